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
use serde_json::value::RawValue;
use std::ops::RangeInclusive;

use serde_json::{Map, Number, Value};

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

/// Numbers are equal when their mathematical values are. An integer literal (of 64 bits) is
/// read exactly, and a literal with a fraction or an exponent as the IEEE-754 double it names,
/// as every SDK language's default decoder reads it; an integer and a double are compared
/// exactly too, so `9007199254740993` is not `9.007199254740992E15`, the double an SDK that
/// holds numbers as doubles writes for it.
fn same_number(x: &Number, y: &Number) -> bool {
    fn integer(n: &Number) -> Option<i128> {
        n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
    }
    /// A double's value as an integer, when it is one that fits (every integral double below
    /// 2^64 in magnitude converts to an `i128` exactly).
    fn integral(f: f64) -> Option<i128> {
        (f.fract() == 0.0 && f.abs() < 18_446_744_073_709_551_616.0).then_some(f as i128)
    }
    match (integer(x), integer(y)) {
        (Some(p), Some(q)) => p == q,
        (Some(p), None) => y.as_f64().and_then(integral) == Some(p),
        (None, Some(q)) => x.as_f64().and_then(integral) == Some(q),
        (None, None) => matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q),
    }
}

/// The envelope members every consumer decodes into an integer type, those the producer schema
/// types `integer`: `attempts`, `meta.schema_version`, `meta.created_at`, and a dead-letter
/// block's `attempts` and `failed_at`.
pub const ENVELOPE_INTEGERS: [&str; 5] =
    ["/attempts", "/meta/schema_version", "/meta/created_at", "/dead_letter/attempts", "/dead_letter/failed_at"];

/// The moments an SDK may stamp, in Unix epoch milliseconds (the contract's unit for
/// `meta.created_at` and `dead_letter.failed_at`): at least 10^12 (2001-09-09T01:46:40Z) and
/// below 10^13 (2286-11-20T17:46:40Z). A count of seconds, 0 or a small constant falls below;
/// a count of microseconds (about 1.7 × 10^15 today) or nanoseconds above, where .NET's
/// `FromUnixTimeMilliseconds`, a JavaScript `Date` and Python's `datetime.fromtimestamp` refuse
/// or misread it.
pub const EPOCH_MS: std::ops::Range<u64> = 1_000_000_000_000..10_000_000_000_000;

/// A `dead_letter` block an SDK wrote for a message it dead-lettered with `reason` from
/// `queue`: those two values, then [`dead_letter_block`]'s shape, every fault said at once (an
/// adapter's author fixing the first would otherwise meet the next only on the next run: the
/// Go probe of stop 49 saw only the reason of a record that had also lost its body and named
/// the wrong queue).
pub fn dead_letter_for(
    block: &Value,
    reason: &str,
    queue: &str,
    clock: Option<RangeInclusive<u64>>,
) -> Result<(), String> {
    let Some(members) = block.as_object() else { return dead_letter_block(block, clock) };
    let shown = |key: &str| members.get(key).map_or_else(|| "absent".to_owned(), Value::to_string);
    let mut wrong = Vec::new();
    if members.get("reason").and_then(Value::as_str) != Some(reason) {
        wrong.push(format!("dead_letter.reason is {}, expected \"{reason}\"", shown("reason")));
    }
    if members.get("original_queue").and_then(Value::as_str) != Some(queue) {
        wrong.push(format!("dead_letter.original_queue is {}, expected \"{queue}\"", shown("original_queue")));
    }
    // The two compared above are not judged again on their shape.
    wrong.extend(shape_faults(members, clock, &["reason", "original_queue"]));
    joined(wrong)
}

/// A `dead_letter` block an SDK wrote has the producer schema's shape (its `dead_letter`, wire
/// contract §1.4), so that every consumer can read it, Go's struct decode included: an object
/// whose `reason` is `failed`, `unknown_urn` or `poison`, whose `failed_at` is an integer of
/// epoch milliseconds in [`EPOCH_MS`] (the stamp the SDK makes when it dead-letters, so in the
/// same range as a `meta.created_at` it makes), whose `attempts` is an integer ≥ 0 and whose
/// `original_queue` is a string; `error` and
/// `exception`, when written, a string or null; `lang`, when written, a string. The schema's
/// six-value enum of `lang` is not held (the reference core writes `rust`, R13, and a new SDK
/// language is no wire change). Values are the writer's: the sections compare `reason` and
/// `original_queue` where they know them, and nothing else.
///
/// `clock` is the injected clock's moments in epoch milliseconds when the SDK ran on one (the
/// Redis cases set it to a step's `now`, around 1000 s): a `failed_at` read from it is right too.
pub fn dead_letter_block(block: &Value, clock: Option<RangeInclusive<u64>>) -> Result<(), String> {
    match block.as_object() {
        Some(members) => joined(shape_faults(members, clock, &[])),
        None => Err(format!("dead_letter is {block}, expected an object")),
    }
}

/// One member of a `dead_letter` block: its key, whether the producer schema requires it, what
/// value fits, and what that is in words.
type MemberRule<'a> = (&'a str, bool, &'a dyn Fn(&Value) -> bool, &'a str);

/// Every way a `dead_letter` object departs from [`dead_letter_block`]'s shape, in member order,
/// leaving out the members in `compared` (a caller that compared them with what it expects).
fn shape_faults(block: &Map<String, Value>, clock: Option<RangeInclusive<u64>>, compared: &[&str]) -> Vec<String> {
    let stamped =
        |v: &Value| v.as_u64().is_some_and(|n| EPOCH_MS.contains(&n) || clock.as_ref().is_some_and(|c| c.contains(&n)));
    let injected =
        clock.as_ref().map_or(String::new(), |c| format!(", or of the injected clock ({} to {})", c.start(), c.end()));
    let failed_at = format!("an integer of epoch milliseconds >= 10^12 and < 10^13{injected}");
    let rules: [MemberRule<'_>; 7] = [
        (
            "reason",
            true,
            &|v| matches!(v.as_str(), Some("failed" | "unknown_urn" | "poison")),
            "failed, unknown_urn or poison",
        ),
        ("failed_at", true, &stamped, &failed_at),
        ("original_queue", true, &Value::is_string, "a string"),
        ("attempts", true, &|v| v.as_u64().is_some(), "an integer ≥ 0"),
        ("error", false, &|v| v.is_string() || v.is_null(), "a string or null"),
        ("exception", false, &|v| v.is_string() || v.is_null(), "a string or null"),
        ("lang", false, &Value::is_string, "a string"),
    ];
    rules
        .into_iter()
        .filter(|(key, ..)| !compared.contains(key))
        .filter_map(|(key, required, fits, what)| match block.get(key) {
            Some(v) if fits(v) => None,
            Some(v) => Some(format!("dead_letter.{key} is {v}, expected {what}")),
            None if required => Some(format!("dead_letter.{key} is missing (the producer schema requires it)")),
            None => None,
        })
        .collect()
}

/// `Ok` when there is no fault, else every fault in one reason.
fn joined(faults: Vec<String>) -> Result<(), String> {
    if faults.is_empty() { Ok(()) } else { Err(faults.join("; ")) }
}

/// The text of a poison record the SDK wrote for `body` (R13, the poison_dlq description):
/// - exactly one top-level `dead_letter`;
/// - a splice (its top level holds the body's members) is byte-level: the body's text with
///   `,"dead_letter":{…}` inserted before its final `}` (no comma for an empty object; JSON
///   whitespace around the inserted tokens allowed), never a re-encode, so the rest is the
///   body's own bytes and only the block is the SDK's writing, judged by [`encoded_text`];
/// - a wrapper (`{raw, raw_encoding?, dead_letter}`) is the SDK's writing throughout, judged
///   whole by [`encoded_text`].
///
/// `members` are the record's top-level members ([`top_level_members`]).
pub fn poison_record_text(record: &str, members: &[(String, &RawValue)], body: &[u8]) -> Result<(), String> {
    let block = the_dead_letter(members)?;
    if members.iter().any(|(k, _)| k == "raw") {
        return encoded_text(record, &[], None);
    }
    let body = std::str::from_utf8(body).map_err(|_| "a splice of a body that is not UTF-8".to_owned())?;
    byte_level_splice(record, body)?;
    encoded_text(&format!("{{\"dead_letter\":{}}}", block.get()), &[], None)
}

/// A JSON object's top-level members in order, repeats kept, each value as its raw text.
pub type Members<'r> = Vec<(String, &'r RawValue)>;

/// What every poison dead-letter record must be, whatever else a section asks of it (ADR-0035,
/// R13): one strict JSON object in valid UTF-8, read with the tolerant scanner (so the splice of
/// a body a value parser cannot hold, `1e400` or depth 600, is read too), with exactly one
/// top-level `dead_letter`, of reason `poison` from `queue` in the producer schema's shape
/// ([`dead_letter_for`]), written as a byte-level splice of `body` or as the SDK's own wrapper
/// ([`poison_record_text`]). Returns the text and its top-level members for the section's own
/// comparison of the rest. The one reading of a poison record: `poison_dlq` and redis_layout's
/// records both go through it.
pub fn poison_record<'r>(
    record: &'r [u8],
    body: &[u8],
    queue: &str,
    clock: Option<RangeInclusive<u64>>,
) -> Result<(&'r str, Members<'r>), String> {
    strict_object(record).map_err(|e| format!("the record is not one strict JSON object: {e}"))?;
    let text = std::str::from_utf8(record).map_err(|_| "the record is not UTF-8")?;
    let members = top_level_members(text).map_err(|e| format!("the record cannot be scanned: {e}"))?;
    let block = the_dead_letter(&members)?;
    let block: Value = serde_json::from_str(block.get()).map_err(|e| format!("dead_letter does not parse: {e}"))?;
    match (dead_letter_for(&block, "poison", queue, clock), poison_record_text(text, &members, body)) {
        (Ok(()), Ok(())) => Ok((text, members)),
        (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
        (Err(block), Err(text)) => Err(format!("{block}; and {text}")),
    }
}

/// A record's one top-level `dead_letter` member: a record carries exactly one.
pub fn the_dead_letter<'r>(members: &[(String, &'r RawValue)]) -> Result<&'r RawValue, String> {
    let blocks: Vec<&RawValue> = members.iter().filter(|(k, _)| k == "dead_letter").map(|(_, raw)| *raw).collect();
    match blocks[..] {
        [block] => Ok(block),
        _ => Err(format!("the record has {} top-level dead_letter members, expected 1", blocks.len())),
    }
}

/// `record` is `body` with `,"dead_letter":<object>` inserted before its final `}`.
fn byte_level_splice(record: &str, body: &str) -> Result<(), String> {
    const WS: [char; 4] = [' ', '\t', '\n', '\r'];
    let not = || {
        "the record is not the body with dead_letter inserted before its final }: a poison body is spliced byte for byte, never re-encoded".to_owned()
    };
    let close = body.rfind('}').ok_or_else(not)?;
    let (head, tail) = body.split_at(close);
    let middle = record.strip_prefix(head).and_then(|r| r.strip_suffix(tail)).ok_or_else(not)?;
    let mut m = middle.trim_start_matches(WS);
    if !head.trim_end_matches(WS).ends_with('{') {
        m = m.strip_prefix(',').ok_or_else(not)?.trim_start_matches(WS);
    }
    let m = m.strip_prefix("\"dead_letter\"").ok_or_else(not)?.trim_start_matches(WS);
    let block = m.strip_prefix(':').ok_or_else(not)?.trim_matches(WS);
    let whole = block.starts_with('{') && serde_json::from_str::<IgnoredAny>(block).is_ok();
    if whole { Ok(()) } else { Err(not()) }
}

/// What the text of an envelope the SDK encoded must be beyond its value (the contract's
/// encoding rules), in the SDK's text `written`:
/// - each key once in its object (an encoder refuses a key supplied twice; a reader keeps one
///   of the two, and which one differs);
/// - integers stay integers: each of [`ENVELOPE_INTEGERS`] that is a number, and every number
///   at a place where `given` (the message it re-encodes, or a value it was handed, found at
///   `at` in the output) holds an integer, is written as an integer literal: no fraction, no
///   exponent. `1.0` and `1.749132727E12` are the same numbers by value, but Go's struct decode
///   and the PHP and Python acceptance checks read them as floats and refuse the message. A
///   member of [`ENVELOPE_INTEGERS`] that the message re-encoded (its text `read`) itself wrote
///   with a fraction or an exponent is not held to it: a re-encode writes what it read. The
///   literal decides, never serde_json's reading of it (`-0` is an integer literal).
///
/// (`written` that does not parse is the caller's finding, not this one's.)
pub fn encoded_text(written: &str, given: &[(&str, &Value)], read: Option<&[u8]>) -> Result<(), String> {
    // Nearly every envelope has neither: no closer look, no tree.
    if !crate::suite::exact::floats_or_repeats(written.as_bytes()) {
        return Ok(());
    }
    let Some((numbers, repeated)) = crate::suite::exact::every_number(written.as_bytes()) else { return Ok(()) };
    if let Some(at) = repeated.first() {
        return Err(format!("{at} is written twice: an encoder writes each key once"));
    }
    // Every literal that is not an integer literal, in document order (each occurrence of a
    // pointer: a repeated key was refused above, so there is one).
    let floats: Vec<(&str, &str)> =
        numbers.iter().filter(|(_, n, _)| !n.is_integer_literal()).map(|(at, _, lit)| (at.as_str(), *lit)).collect();
    let input = read.and_then(crate::suite::exact::Numbers::of);
    let read_as_float = |at: &str| input.as_ref().and_then(|n| n.get(at)).is_some_and(|(n, _)| !n.is_integer_literal());
    for at in ENVELOPE_INTEGERS {
        // The literal is left out: created_at differs on every message, and one reason for
        // every message lets a run's digest count them as one fault.
        if let Some(&(_, lit)) = floats.iter().find(|(p, _)| *p == at)
            && !read_as_float(at)
        {
            let form = match (lit.contains('.'), lit.contains(['e', 'E'])) {
                (true, true) => "a fraction and an exponent",
                (false, true) => "an exponent",
                _ => "a fraction",
            };
            return Err(format!(
                "{at} is written with {form}: the envelope's integers are written as integers, or a consumer that decodes an integer type refuses the message"
            ));
        }
    }
    // Each float the SDK wrote where what it was given holds an integer (a lookup per float,
    // of which nearly every text has none, not a walk of what was given).
    for (at, lit) in &floats {
        for (base, value) in given {
            let inside = at.strip_prefix(base).filter(|rest| rest.is_empty() || rest.starts_with('/'));
            if let Some(Value::Number(n)) = inside.and_then(|rest| value.pointer(rest))
                && (n.is_i64() || n.is_u64())
            {
                return Err(format!(
                    "{at} is written {lit} where the message had the integer {n}: integers stay integers, or a consumer that decodes an integer type refuses it"
                ));
            }
        }
    }
    Ok(())
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

/// Where JSON text holds an unpaired surrogate escape (a scan over text, so it lives with the
/// parser; the adapter transport names it too).
pub use crate::suite::json::lone_surrogate;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dead_letter_blocks_have_the_schema_shape() {
        let ok = serde_json::json!({"reason": "failed", "error": null, "exception": "E", "failed_at": 1_749_132_730_000_u64,
            "original_queue": "orders", "attempts": 3, "lang": "rust"});
        assert_eq!(dead_letter_block(&ok, None), Ok(()));
        let minimal = serde_json::json!({"reason": "poison", "failed_at": 1_000_000_000_000_u64, "original_queue": "", "attempts": 0});
        assert_eq!(dead_letter_block(&minimal, None), Ok(()));
        for (key, value, says) in [
            (
                "failed_at",
                serde_json::json!("2025-06-05T14:12:07Z"),
                "dead_letter.failed_at is \"2025-06-05T14:12:07Z\", expected an integer of epoch milliseconds",
            ),
            ("failed_at", serde_json::json!(-1), "dead_letter.failed_at is -1"),
            ("failed_at", serde_json::json!(1_749_132_730_u64), "dead_letter.failed_at is 1749132730,"),
            (
                "failed_at",
                serde_json::json!(1_749_132_730_000_000_000_u64),
                "dead_letter.failed_at is 1749132730000000000,",
            ),
            ("attempts", serde_json::json!("0"), "dead_letter.attempts is \"0\", expected an integer ≥ 0"),
            ("attempts", serde_json::json!(1.5), "dead_letter.attempts is 1.5"),
            ("reason", serde_json::json!("gave-up"), "dead_letter.reason is \"gave-up\""),
            ("original_queue", serde_json::json!(7), "dead_letter.original_queue is 7"),
            (
                "error",
                serde_json::json!({"message": "x"}),
                "dead_letter.error is {\"message\":\"x\"}, expected a string or null",
            ),
            ("exception", serde_json::json!(false), "dead_letter.exception is false"),
            ("lang", serde_json::json!(null), "dead_letter.lang is null, expected a string"),
        ] {
            let mut bad = ok.clone();
            bad[key] = value;
            let e = dead_letter_block(&bad, None).unwrap_err();
            assert!(e.starts_with(says), "{key}: {e}");
        }
        for key in ["reason", "failed_at", "original_queue", "attempts"] {
            let mut bad = ok.clone();
            bad.as_object_mut().unwrap().remove(key);
            assert_eq!(
                dead_letter_block(&bad, None).unwrap_err(),
                format!("dead_letter.{key} is missing (the producer schema requires it)")
            );
        }
        assert!(
            dead_letter_block(&serde_json::json!([]), None)
                .unwrap_err()
                .starts_with("dead_letter is [], expected an object")
        );
    }

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
    fn an_integer_and_a_double_compare_exactly() {
        assert!(same_value(&json!(1042), &json!(1042.0)));
        assert!(same_value(&json!(-3), &json!(-3.0)));
        assert!(same_value(&json!(u64::MAX), &json!(u64::MAX)));
        // Above i64 the integers are still read exactly: as doubles these two are one value.
        assert!(!same_value(&json!(u64::MAX), &json!(u64::MAX - 1)));
        assert!(!same_value(&json!(9_007_199_254_740_993_u64), &json!(9.007_199_254_740_992e15)));
        assert!(!same_value(&json!(9.007_199_254_740_992e15), &json!(9_007_199_254_740_993_u64)));
        assert!(same_value(&json!(9_007_199_254_740_992_u64), &json!(9.007_199_254_740_992e15)));
        assert!(!same_value(&json!(1), &json!(1.5)));
        assert!(!same_value(&json!(0), &json!(1e300)));
        assert!(same_value(&json!(0.5), &json!(5e-1)));
    }

    #[test]
    fn encoded_text_in_what_the_sdk_writes() {
        let ok = |text: &str, given: &[(&str, &Value)]| encoded_text(text, given, None);
        let fixture = json!({"data": {"n": 1, "f": 1.5, "l": [2]}, "attempts": 0});
        let given = [("", &fixture)];
        assert!(ok(r#"{"data": {"n": 1, "f": 1.5, "l": [2]}, "attempts": 0}"#, &given).is_ok());
        // A float of the input may be written any way; an integer only as an integer.
        assert!(ok(r#"{"data": {"n": 1, "f": 15e-1, "l": [2]}, "attempts": 0}"#, &given).is_ok());
        let e = ok(r#"{"data": {"n": 1.0, "f": 1.5, "l": [2]}, "attempts": 0}"#, &given).unwrap_err();
        assert!(e.starts_with("/data/n is written 1.0 where the message had the integer 1:"), "{e}");
        let e = ok(r#"{"data": {"n": 1, "f": 1.5, "l": [2e0]}, "attempts": 0}"#, &given).unwrap_err();
        assert!(e.starts_with("/data/l/0 is written 2e0"), "{e}");
        // The envelope's own integers, whatever was given.
        for (text, at) in [
            (r#"{"attempts": 1.0}"#, "/attempts is written with a fraction:"),
            (r#"{"meta": {"schema_version": 1e0}}"#, "/meta/schema_version is written with an exponent:"),
            (
                r#"{"meta": {"created_at": 1.749132727E12}}"#,
                "/meta/created_at is written with a fraction and an exponent:",
            ),
        ] {
            assert!(ok(text, &[]).unwrap_err().starts_with(at), "{text}");
        }
        // Where the output moved or dropped a member, or holds no number, this rule says nothing.
        assert!(ok(r#"{"data": {"n": "1"}, "attempts": 0}"#, &given).is_ok());
        assert!(ok(r#"{"meta": {"created_at": "1749132727000"}}"#, &[]).is_ok());
        assert!(ok("not json", &given).is_ok());
        // The dead-letter block's integers too.
        let e =
            ok(r#"{"attempts": 3, "dead_letter": {"failed_at": 1796505190252.0, "attempts": 3}}"#, &[]).unwrap_err();
        assert!(e.starts_with("/dead_letter/failed_at is written with a fraction:"), "{e}");
        // Every occurrence of a repeated key is looked at, and a repeat is itself refused.
        let e = ok(r#"{"attempts": 1.0, "attempts": 1}"#, &[]).unwrap_err();
        assert_eq!(e, "/attempts is written twice: an encoder writes each key once");
        let e = ok(r#"{"meta": {"a": 1, "a": 1}}"#, &[]).unwrap_err();
        assert!(e.starts_with("/meta/a is written twice"), "{e}");
        // A re-encode writes what it read: a float the message itself carried is not held.
        let read = r#"{"meta": {"created_at": 1.749132727E12}, "attempts": 0}"#;
        let input: Value = serde_json::from_str(read).unwrap();
        let reencoded = |text: &str| encoded_text(text, &[("", &input)], Some(read.as_bytes()));
        assert!(reencoded(r#"{"meta": {"created_at": 1749132727000.0}, "attempts": 0}"#).is_ok());
        assert!(reencoded(r#"{"meta": {"created_at": 1749132727000.0}, "attempts": 0.0}"#).is_err());
        // The literal decides: serde_json reads `-0` as -0.0, but it is an integer literal, so an
        // input's `-0` exempts nothing (red team: `-0` in make, `1.0` on the retry hop).
        let read = r#"{"attempts": -0}"#;
        let input: Value = serde_json::from_str(read).unwrap();
        assert!(encoded_text(r#"{"attempts": 1.0}"#, &[("", &input)], Some(read.as_bytes())).is_err());
        // Given at a place in the output.
        let data = json!({"order_id": 1042});
        let e = ok(r#"{"data": {"order_id": 1042.0}}"#, &[("/data", &data)]).unwrap_err();
        assert!(e.starts_with("/data/order_id is written 1042.0"), "{e}");
        // An integer above i64 is an integer too.
        let big = json!({"id": 18_446_744_073_709_551_615_u64});
        let e = ok(r#"{"data": {"id": 1.8446744073709552e19}}"#, &[("/data", &big)]).unwrap_err();
        assert!(e.starts_with("/data/id is written 1.8446744073709552e19 where the message had the integer"), "{e}");
    }

    /// The block a splice inserts is one object and nothing after it; a record that inserts an
    /// array, or the block and another member, is no byte-level splice of the body.
    #[test]
    fn a_splice_inserts_one_object_and_nothing_else() {
        let body = r#"{"job": "x", "data": {}}"#;
        let spliced = |insert: &str| format!(r#"{{"job": "x", "data": {{}}{insert}}}"#);
        assert_eq!(byte_level_splice(&spliced(r#","dead_letter":{"reason":"poison"}"#), body), Ok(()));
        assert_eq!(byte_level_splice(&spliced(r#" , "dead_letter" : {"reason":"poison"} "#), body), Ok(()));
        for insert in
            [r#","dead_letter":[1]"#, r#","dead_letter":{"reason":"poison"},"extra":1"#, r#","dead_letter":1"#]
        {
            let e = byte_level_splice(&spliced(insert), body).unwrap_err();
            assert!(e.starts_with("the record is not the body with dead_letter inserted before its final }"), "{e}");
        }
    }

    /// A dead-letter block compared with its reason and queue is still held to the schema's
    /// shape in every other member.
    #[test]
    fn a_dead_letter_for_a_reason_and_queue_is_held_to_the_shape_too() {
        let block =
            json!({"reason": "poison", "failed_at": 1_749_132_730_000_u64, "original_queue": "orders", "attempts": 0});
        assert_eq!(dead_letter_for(&block, "poison", "orders", None), Ok(()));
        let mut seconds = block.clone();
        seconds["failed_at"] = json!(1_749_132_730_u64);
        let e = dead_letter_for(&seconds, "poison", "orders", None).unwrap_err();
        assert!(e.starts_with("dead_letter.failed_at is 1749132730, expected an integer of epoch milliseconds"), "{e}");
        // On an injected clock, a stamp of it is right; one of neither is not.
        assert_eq!(dead_letter_for(&seconds, "poison", "orders", Some(1_749_132_000..=1_749_133_000)), Ok(()));
        let e = dead_letter_for(&seconds, "poison", "orders", Some(1_000_000..=1_001_000)).unwrap_err();
        assert!(e.contains("or of the injected clock (1000000 to 1001000)"), "{e}");
        let e = dead_letter_for(&block, "failed", "jobs", None).unwrap_err();
        assert_eq!(
            e,
            "dead_letter.reason is \"poison\", expected \"failed\"; dead_letter.original_queue is \"orders\", expected \"jobs\""
        );
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
        // Values of one type that differ (a judge that compared only types, lengths or key
        // counts would pass them).
        assert!(!same_value(&json!(true), &json!(false)));
        assert!(!same_value(&json!(false), &json!(true)));
        assert!(!same_value(&json!({"a": 1}), &json!({"b": 1})));
        assert!(!same_value(&json!({"a": 1, "b": 2}), &json!({"a": 1, "c": 2})));
        assert!(same_value(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})), "key order never matters");
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

    /// Every way a poison record is wrong is said at once: the Go probe of stop 49 saw only
    /// "dead_letter.reason is \"unknown_urn\"" for a record that had also lost the body and
    /// named another queue.
    #[test]
    fn a_poison_record_says_everything_wrong_with_it_at_once() {
        let body = br#"{"job":"x"#;
        let record = br#"{"job":"","data":{},"dead_letter":{"reason":"unknown_urn","failed_at":1749132730000,"original_queue":"orders","attempts":0}}"#;
        let why = poison_record(record, body, "jobs", None).unwrap_err();
        for says in [
            "dead_letter.reason is \"unknown_urn\", expected \"poison\"",
            "dead_letter.original_queue is \"orders\", expected \"jobs\"",
            "; and the record is not the body with dead_letter inserted before its final }",
        ] {
            assert!(why.contains(says), "{says}: {why}");
        }
        assert_eq!(
            dead_letter_for(&json!(5), "poison", "jobs", None),
            Err("dead_letter is 5, expected an object".into())
        );
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
