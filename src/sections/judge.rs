//! The yardsticks an SDK is measured by: value comparison, the tolerant top-level scanner and
//! the strict-JSON check the runners and `validate` judge with.
//!
//! These live on the judging side on purpose: the reference core has behaviour of its own that
//! looks alike (payload-schema `enum`, the poison writer's `dead_letter` lookup, the strict
//! check a consumer classifies bodies with), but a judge that shared its code with the thing it
//! judges would stay lenient together with it. Nothing here calls the core.
//!
//! Invariants: "same value" is JSON deep equality with type distinction between JSON types
//! (`true` ≠ `1`, `{}` ≠ `[]`, `"1"` ≠ `1`, `null` ≠ absent) where two numbers are equal when
//! their mathematical values are (`1` equals `1.0`), decisions R4, and object key order never
//! matters; the top-level scanner keeps every member in order with repeats and its raw text, has
//! no depth limit below the top level and converts no number; the strict check accepts exactly
//! one RFC 8259 object in valid UTF-8 without a byte-order mark, without NaN / Infinity
//! literals and without a lone surrogate escape.

use serde::de::IgnoredAny;
use serde_json::{Number, Value};

/// Deep equality under the contract's "same value" rule (R4).
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => same_number(x, y),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => false,
    }
}

/// Where `got` first departs from `want` under [`same_value`]: the JSON pointer of the place
/// and what each side holds there (`None`: the member or element is absent on that side), or
/// `None` when they are the same value. Members are visited in `want`'s order, then the members
/// only `got` has; elements by index. So a long value's failure can say where it differs
/// instead of quoting both values whole.
pub fn first_difference<'v>(got: &'v Value, want: &'v Value) -> Option<(String, Option<&'v Value>, Option<&'v Value>)> {
    fn walk<'v>(
        got: &'v Value,
        want: &'v Value,
        at: &mut String,
    ) -> Option<(String, Option<&'v Value>, Option<&'v Value>)> {
        if same_value(got, want) {
            return None;
        }
        let here = at.len();
        match (got, want) {
            (Value::Object(g), Value::Object(w)) => {
                for (k, wv) in w {
                    crate::suite::pointer::push(at, k);
                    let found = match g.get(k) {
                        None => Some((at.clone(), None, Some(wv))),
                        Some(gv) => walk(gv, wv, at),
                    };
                    at.truncate(here);
                    if found.is_some() {
                        return found;
                    }
                }
                let (k, gv) = g.iter().find(|(k, _)| !w.contains_key(*k))?;
                Some((crate::suite::pointer::join(at, k), Some(gv), None))
            }
            (Value::Array(g), Value::Array(w)) => {
                for (i, (gv, wv)) in g.iter().zip(w).enumerate() {
                    crate::suite::pointer::push_index(at, i);
                    let found = walk(gv, wv, at);
                    at.truncate(here);
                    if found.is_some() {
                        return found;
                    }
                }
                let i = g.len().min(w.len());
                Some((crate::suite::pointer::join_index(at, i), g.get(i), w.get(i)))
            }
            _ => Some((at.clone(), Some(got), Some(want))),
        }
    }
    walk(got, want, &mut String::new())
}

/// Numbers are equal when their mathematical values are; integers compare exactly.
fn same_number(x: &Number, y: &Number) -> bool {
    match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
        (Some(p), Some(q), ..) => p == q,
        (.., Some(p), Some(q)) => p == q,
        _ => matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q),
    }
}

/// The members of a JSON object text at its top level, in order, repeats kept, each value as
/// its raw text. Tolerant: no depth limit below the top level and no number conversion, so it
/// reads records a value parser cannot hold (depth 600, `1e400`). The text must be one object.
/// (The same scan splits a large suite file for the two-thread parse, so it lives with the
/// parser.)
pub use crate::suite::json::top_level_members;

/// Is `bytes` exactly one strict RFC 8259 JSON object? `Err` says why not.
pub fn strict_object(bytes: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not valid UTF-8 at byte {}", e.valid_up_to()))?;
    if text.starts_with('\u{FEFF}') {
        return Err("it starts with a byte-order mark".into());
    }
    // IgnoredAny walks without building values: no depth limit, no number conversion, and it
    // refuses NaN / Infinity, trailing data and bad escapes. It does not see lone surrogates.
    serde_json::from_str::<IgnoredAny>(text).map_err(|e| format!("not JSON: {e}"))?;
    if let Some(at) = lone_surrogate(text) {
        return Err(format!("a lone surrogate escape at byte {at}"));
    }
    match text.trim_start_matches([' ', '\t', '\n', '\r']).as_bytes().first() {
        Some(b'{') => Ok(()),
        _ => Err("not an object".into()),
    }
}

/// Byte offset of the first `\uXXXX` escape, inside a string literal of JSON text, that is a
/// surrogate without its partner.
///
/// A surrogate escape is `\u` followed by `d` or `D`; text without one (nearly every file) is
/// passed over by two substring searches instead of being walked character by character.
pub fn lone_surrogate(text: &str) -> Option<usize> {
    if !(text.contains("\\ud") || text.contains("\\uD")) {
        return None;
    }
    let unit = |at: usize| text.get(at..at + 4).and_then(|h| u16::from_str_radix(h, 16).ok());
    let mut in_string = false;
    let mut iter = text.char_indices();
    // The high surrogate waiting for its low half, and where it was.
    let mut pending: Option<usize> = None;
    while let Some((i, c)) = iter.next() {
        if !in_string {
            in_string = c == '"';
            continue;
        }
        match c {
            '"' => {
                if pending.is_some() {
                    return pending;
                }
                in_string = false;
            }
            '\\' => {
                let Some((_, e)) = iter.next() else { break };
                if e != 'u' {
                    if pending.is_some() {
                        return pending;
                    }
                    continue;
                }
                let u = unit(i + 2).unwrap_or(0);
                for _ in 0..4 {
                    iter.next();
                }
                match (pending.take(), u) {
                    (Some(_), 0xDC00..=0xDFFF) => {}
                    (Some(high), _) => return Some(high),
                    (None, 0xD800..=0xDBFF) => pending = Some(i),
                    (None, 0xDC00..=0xDFFF) => return Some(i),
                    (None, _) => {}
                }
            }
            _ if pending.is_some() => return pending,
            _ => {}
        }
    }
    pending
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn first_difference_names_the_place_and_both_sides() {
        let want = json!({"job": "x", "data": {"a/b": [1, 2, {"v": 1e-300}]}});
        assert_eq!(first_difference(&json!({"job": "x", "data": {"a/b": [1.0, 2, {"v": 1e-300}]}}), &want), None);
        let got = json!({"job": "x", "data": {"a/b": [1, 2, {"v": 0.0}]}});
        assert_eq!(
            first_difference(&got, &want),
            Some(("/data/a~1b/2/v".into(), Some(&json!(0.0)), Some(&json!(1e-300))))
        );
        let got = json!({"job": "x", "data": {"a/b": [1, 2]}});
        assert_eq!(first_difference(&got, &want), Some(("/data/a~1b/2".into(), None, Some(&json!({"v": 1e-300})))));
        let got = json!({"job": "x", "extra": true, "data": {"a/b": [1, 2, {"v": 1e-300}]}});
        assert_eq!(first_difference(&got, &want), Some(("/extra".into(), Some(&json!(true)), None)));
        assert_eq!(first_difference(&json!([]), &json!({})), Some((String::new(), Some(&json!([])), Some(&json!({})))));
    }

    #[test]
    fn same_value_distinguishes_types_but_not_number_spelling() {
        assert!(same_value(&json!(1), &json!(1.0)));
        assert!(same_value(&json!({"a": [1, {"b": null}]}), &json!({"a": [1.0, {"b": null}]})));
        assert!(!same_value(&json!(true), &json!(1)));
        assert!(!same_value(&json!({}), &json!([])));
        assert!(!same_value(&json!("1"), &json!(1)));
        assert!(!same_value(&json!({"a": null}), &json!({})));
        assert!(!same_value(&json!(u64::MAX), &json!(-1)));
        assert!(!same_value(&json!([1, 2]), &json!([2, 1])));
    }

    #[test]
    fn the_scanner_keeps_repeats_and_reads_any_depth() {
        let deep = format!("{{\"a\":1,\"d\":{}{},\"a\":1e400}}", "[".repeat(5000), "]".repeat(5000));
        let names: Vec<_> = top_level_members(&deep).unwrap().into_iter().map(|(k, v)| (k, v.get().len())).collect();
        assert_eq!(names, [("a".to_owned(), 1), ("d".to_owned(), 10_000), ("a".to_owned(), 5)]);
        assert!(top_level_members("[1]").is_err());
        assert!(top_level_members("{} x").is_err());
    }

    #[test]
    fn strict_objects() {
        for ok in ["{}", " {\"a\":1} \n", r#"{"v":1e400,"a":1,"a":2}"#, r#"{"s":"\ud83d\ude00","t":"\\ud800"}"#] {
            assert_eq!(strict_object(ok.as_bytes()), Ok(()), "{ok}");
        }
        for bad in [
            &b""[..],
            b"{\"a\":\"\xff\"}",
            "\u{FEFF}{}".as_bytes(),
            b"[1]",
            br#"{"a":"\ud800"}"#,
            br#"{"\udc00":1}"#,
            br#"{"v":NaN}"#,
            b"{} {}",
        ] {
            assert!(strict_object(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn lone_surrogates_are_found_pairs_are_not() {
        let found = |t: &str| lone_surrogate(t);
        assert_eq!(found(r#"["\uD83D\uDE00", "\\uDBFF"]"#), None);
        assert_eq!(found(r#"{"k\udbff":1}"#), Some(3));
        assert_eq!(found(r#"["ok", "\udbffx"]"#), Some(8));
        assert_eq!(found(r#"["\udbff\u0000"]"#), Some(2));
        assert_eq!(found(r#"["\uDFFF"]"#), Some(2));
        assert_eq!(found(r#"["\ud800\t"]"#), Some(2));
        assert_eq!(found(r#"["\ud800"]"#), Some(2));
    }
}
