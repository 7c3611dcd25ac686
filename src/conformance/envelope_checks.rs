//! Checks shared by the envelope behaviour runners (roundtrip, data_shape, forbidden_keys,
//! extension_write, encode_reject, trim, job_type).
//!
//! Invariants: every expected value comes from the case (or its fixture), never from here;
//! pointers are RFC 6901 and resolved with [`crate::suite::pointer`]; values compare under the
//! contract's "same value" rule ([`same_value`], R4); an optional field is evaluated only when the
//! case carries it, and a field this module does not know is never read. Output of the reference
//! core is always checked as parsed JSON, never as bytes (key order and whitespace are free).

use serde_json::Value;

use crate::core::envelope::{self, Envelope, Warning};
use crate::sections::judge::same_value;
use crate::suite::pointer;

use super::{Check, RunCx, ensure, fields};

/// The pointers named by the warnings, for failure messages.
pub(crate) fn named(warnings: &[Warning]) -> String {
    if warnings.is_empty() {
        return "no warning".to_owned();
    }
    warnings.iter().map(|w| w.pointer.as_str()).collect::<Vec<_>>().join(", ")
}

/// Encode with the reference core and parse the output back.
pub(crate) fn encode_parsed(env: &Envelope) -> Result<(String, Value), String> {
    let text = envelope::encode(env).map_err(|e| format!("encode failed: {e}"))?;
    let value = serde_json::from_str(&text).map_err(|e| format!("encode wrote text that is not JSON ({e}): {text}"))?;
    Ok((text, value))
}

/// Every pointer of the optional object field `key` holds the same value in `doc`.
pub(crate) fn pointers_hold(doc: &Value, case: &Value, key: &str) -> Check {
    let Some(want) = fields::opt_object(case, key)? else {
        return Ok(());
    };
    for (ptr, value) in want {
        match pointer::get(doc, ptr) {
            None => return Err(format!("{key}: {ptr} is missing from the output")),
            Some(got) => ensure(same_value(value, got), || format!("{key}: {ptr} is {got}, expected {value}"))?,
        }
    }
    Ok(())
}

/// No pointer of the optional array field `key` exists in `doc`.
pub(crate) fn pointers_absent(doc: &Value, case: &Value, key: &str) -> Check {
    let Some(list) = case.get(key) else {
        return Ok(());
    };
    for ptr in list.as_array().ok_or_else(|| format!("case field {key:?} is not an array"))? {
        let ptr = ptr.as_str().ok_or_else(|| format!("{key} holds a non-string pointer {ptr}"))?;
        if let Some(got) = pointer::get(doc, ptr) {
            return Err(format!("{key}: {ptr} exists in the output (value {got})"));
        }
    }
    Ok(())
}

/// The re-emit checks every behaviour section shares: `expect_preserved`,
/// `expect_after_reencode` and `expect_absent_after_reencode`, each when present.
pub(crate) fn reemit_checks(doc: &Value, case: &Value) -> Check {
    pointers_hold(doc, case, "expect_preserved")?;
    pointers_hold(doc, case, "expect_after_reencode")?;
    pointers_absent(doc, case, "expect_absent_after_reencode")
}

/// `expect_warnings`, when present: each listed pointer is named by at least one warning; an
/// empty list means no warning at all.
pub(crate) fn expected_warnings(warnings: &[Warning], case: &Value) -> Check {
    let Some(list) = case.get("expect_warnings") else {
        return Ok(());
    };
    let list = list.as_array().ok_or("case field \"expect_warnings\" is not an array")?;
    if list.is_empty() {
        return ensure(warnings.is_empty(), || format!("decode warned ({}), expected no warning", named(warnings)));
    }
    for ptr in list {
        let ptr = ptr.as_str().ok_or_else(|| format!("expect_warnings holds a non-string pointer {ptr}"))?;
        ensure(warnings.iter().any(|w| w.pointer == ptr), || {
            format!("decode raised no warning naming {ptr} (warnings: {})", named(warnings))
        })?;
    }
    Ok(())
}

/// The decode-verdict case shared by data_shape (mode `decode`), trim (mode `decode`) and
/// job_type: `accepts` and decode of `file` both give `valid`; for a valid case `expect_urn`,
/// `expect_warnings`, then the re-emit checks on the message re-encoded unchanged.
pub(crate) fn decode_case(cx: &RunCx<'_>, case: &Value) -> Check {
    let file = fields::str(case, "file")?;
    let valid = fields::bool(case, "valid")?;
    let body = cx.bytes(file)?;
    let accepted = envelope::accepts(body);
    ensure(accepted == valid, || format!("accepts({file}) is {accepted}, the case says valid: {valid}"))?;
    let d = match (valid, envelope::decode(body)) {
        (false, Err(_)) => return Ok(()),
        (false, Ok(_)) => return Err(format!("{file} decoded, but the case says it must be rejected")),
        (true, Err(e)) => return Err(format!("{file} was rejected: {e}")),
        (true, Ok(d)) => d,
    };
    if let Some(want) = case.get("expect_urn") {
        let got = Value::from(d.envelope.job.as_str());
        ensure(same_value(want, &got), || format!("resolved URN is {got}, expected {want}"))?;
    }
    expected_warnings(&d.warnings, case)?;
    let (_, out) = encode_parsed(&d.envelope)?;
    reemit_checks(&out, case)
}

/// Ordered `[key, value]` pairs from a `meta` object or a `meta_entries` list.
pub(crate) fn entries(v: &Value, key: &str) -> Result<Vec<(String, Value)>, String> {
    match v {
        Value::Object(m) => Ok(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        Value::Array(list) => list
            .iter()
            .map(|pair| match pair.as_array().map(Vec::as_slice) {
                Some([Value::String(k), v]) => Ok((k.clone(), v.clone())),
                _ => Err(format!("{key}: {pair} is not a [key, value] pair")),
            })
            .collect(),
        _ => Err(format!("case field {key:?} is neither an object nor a list of pairs")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn w(p: &str) -> Warning {
        Warning { pointer: p.into(), message: String::new() }
    }

    #[test]
    fn pointer_checks_follow_rfc6901_and_same_value() {
        let doc = json!({"a/b": {"~k": [1, {}]}, "n": 1.0, "t": true});
        let case = json!({
            "expect_preserved": {"/a~1b/~0k/1": {}, "/n": 1},
            "expect_absent_after_reencode": ["/missing", "/a~1b/x"]
        });
        assert_eq!(reemit_checks(&doc, &case), Ok(()));
        let wrong = json!({"expect_preserved": {"/t": 1}});
        assert!(pointers_hold(&doc, &wrong, "expect_preserved").unwrap_err().contains("/t"));
        let present = json!({"expect_absent_after_reencode": ["/t"]});
        assert!(pointers_absent(&doc, &present, "expect_absent_after_reencode").is_err());
        let missing = json!({"expect_after_reencode": {"/nope": null}});
        assert!(pointers_hold(&doc, &missing, "expect_after_reencode").unwrap_err().contains("missing"));
    }

    #[test]
    fn warnings_empty_list_means_silent() {
        let silent = json!({"expect_warnings": []});
        assert_eq!(expected_warnings(&[], &silent), Ok(()));
        assert!(expected_warnings(&[w("/job")], &silent).is_err());
        let job = json!({"expect_warnings": ["/job"]});
        assert_eq!(expected_warnings(&[w("/urn"), w("/job")], &job), Ok(()));
        assert!(expected_warnings(&[w("/urn")], &job).is_err());
        assert_eq!(expected_warnings(&[w("/urn")], &json!({})), Ok(()), "absent field: not evaluated");
    }

    #[test]
    fn entries_keep_order_and_repeats() {
        let pairs = entries(&json!([["ext", 1], ["ext", 2]]), "meta_entries").unwrap();
        assert_eq!(pairs, [("ext".to_owned(), json!(1)), ("ext".to_owned(), json!(2))]);
        let obj = entries(&json!({"z": 1, "a": 2}), "meta").unwrap();
        assert_eq!(obj[0].0, "z");
        assert!(entries(&json!([["ext"]]), "meta_entries").is_err());
        assert!(entries(&json!(3), "meta").is_err());
    }
}
