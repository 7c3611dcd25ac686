//! What the broker-binding runners share: reading case fields, the block a case lives in, the
//! envelope a block names, exact comparison of golden maps, AMQP-typed comparison, and the
//! schema-version gate table (one runner for the five gate tables).
//!
//! Gate table runner (spec "schema_version_gate"): the block names the native `property` and the
//! `fixture` that is always the body. For each row the binding's runner builds one or more
//! received messages that carry the row's value under `property` — a JSON number stands for every
//! integer width the binding can carry (at least 32-bit and 64-bit), a `value_type: "float"` row or
//! a non-integral number for a real 32-bit and 64-bit float, `null` for the key present with a
//! null value, `absent: true` for no key — and consumes each with the reference core. `decode`
//! passes when every message gets through the gate and the body decodes; `reject` passes when the
//! gate refuses every message (a body rejection does not count: the body is always valid).

use serde_json::{Map, Value};

use crate::core::bindings::{AmqpValue, ConsumeError, Consumed};
use crate::core::envelope::{self, Envelope};
use crate::sections::judge::same_value;
use crate::suite::CaseRef;

use super::{Check, Outcome, RunCx, ensure, fields};

/// The block a case lives in (the sub-key object), or the section block for a top-level case.
pub(super) fn block<'a>(cx: &RunCx<'a>, case: &CaseRef<'a>) -> &'a Value {
    case.sub.and_then(|s| cx.section.block.get(s)).unwrap_or(cx.section.block)
}

/// Decode the suite file `rel` as an envelope.
pub(super) fn envelope_at(cx: &RunCx<'_>, rel: &str) -> Result<Envelope, String> {
    envelope::decode(cx.bytes(rel)?).map(|d| d.envelope).map_err(|e| format!("{rel} does not decode: {e}"))
}

/// The envelope a block's `envelope_file` names.
pub(super) fn block_envelope(cx: &RunCx<'_>, block: &Value) -> Result<Envelope, String> {
    envelope_at(cx, fields::str(block, "envelope_file")?)
}

/// The fields of a native message that are set, as a JSON map of strings.
pub(super) fn set_strings<'a>(fields: impl IntoIterator<Item = (&'a str, &'a Option<String>)>) -> Map<String, Value> {
    fields.into_iter().filter_map(|(k, v)| v.as_deref().map(|v| (k.to_owned(), Value::from(v)))).collect()
}

/// The bytes a binding put on the wire as its body are the encoded envelope, unchanged.
pub(super) fn body_is_envelope(what: &str, env: &Envelope, body: &[u8]) -> Check {
    let want = envelope::encode(env).map_err(|e| e.to_string())?;
    ensure(body == want.as_bytes(), || format!("the {what} is not the envelope"))
}

/// A golden map is closed: exactly the expected keys, each with the same value (R4).
pub(super) fn exact_map(what: &str, expected: &Map<String, Value>, actual: &Map<String, Value>) -> Check {
    for (k, want) in expected {
        match actual.get(k) {
            None => return Err(format!("{what}: {k:?} is missing (expected {want})")),
            Some(got) => ensure(same_value(want, got), || format!("{what}: {k:?} is {got}, expected {want}"))?,
        }
    }
    match actual.keys().find(|k| !expected.contains_key(*k)) {
        Some(extra) => Err(format!("{what}: unexpected key {extra:?} = {}", actual[extra])),
        None => Ok(()),
    }
}

/// A golden map of AMQP-typed values: exactly the expected keys, each matching by
/// [`amqp_matches`].
pub(super) fn exact_amqp_map<'a>(
    what: &str,
    expected: &Map<String, Value>,
    actual: impl IntoIterator<Item = (&'a String, &'a AmqpValue)>,
) -> Check {
    let actual: Vec<_> = actual.into_iter().collect();
    for (k, want) in expected {
        let got = actual.iter().find(|(a, _)| *a == k).map(|(_, v)| *v);
        match got {
            None => return Err(format!("{what}: {k:?} is missing (expected {want})")),
            Some(v) => ensure(amqp_matches(want, v), || format!("{what}: {k:?} is {v}, expected {want}"))?,
        }
    }
    match actual.iter().find(|(k, _)| !expected.contains_key(k.as_str())) {
        Some((k, v)) => Err(format!("{what}: unexpected key {k:?} = {v}")),
        None => Ok(()),
    }
}

/// Does a native AMQP value match a JSON expectation? A JSON string is an AMQP string, a JSON
/// integer literal an AMQP integer of any width with that value (never a float: a float 1.0 is
/// not integral 1, the gate rejects it), a JSON literal with a fraction or exponent a float or
/// double of that value, `true`/`false` a boolean, `null` null.
pub(super) fn amqp_matches(expected: &Value, actual: &AmqpValue) -> bool {
    match (expected, actual) {
        (Value::Null, AmqpValue::Null) => true,
        (Value::Bool(a), AmqpValue::Bool(b)) => a == b,
        (Value::String(a), AmqpValue::String(b)) => a == b,
        (Value::Number(n), v) if n.is_f64() => match v {
            AmqpValue::Float(x) => n.as_f64() == Some(f64::from(*x)),
            AmqpValue::Double(x) => n.as_f64() == Some(*x),
            _ => false,
        },
        (Value::Number(n), v) => {
            let want = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
            want.is_some() && v.integral() == want
        }
        _ => false,
    }
}

/// A gate row's value, as the runner must hand it to a binding.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum RowValue {
    /// `absent: true`: no key.
    Absent,
    /// `value: null`: the key present with a null value.
    Null,
    Text(String),
    /// A JSON number with an integral value and no `value_type`.
    Integer(i128),
    /// `value_type: "float"`, or a number with a fraction: a real floating-point value.
    Float(f64),
}

/// One way of carrying a row value on the wire and what the consumer made of it.
pub(super) type Attempt = (String, Result<Consumed, ConsumeError>);

fn row_value(row: &Value) -> Result<RowValue, String> {
    let absent = row.get("absent");
    match (row.get("value"), absent) {
        (Some(_), Some(_)) => return Err("a row has both \"value\" and \"absent\"".into()),
        (None, Some(Value::Bool(true))) => return Ok(RowValue::Absent),
        (None, _) => return Err("a row needs \"value\" or \"absent\": true".into()),
        (Some(_), None) => {}
    }
    let value = &row["value"];
    let float = match row.get("value_type") {
        None => false,
        Some(Value::String(t)) if t == "float" => true,
        Some(other) => return Err(format!("unknown value_type {other}")),
    };
    match value {
        Value::Null => Ok(RowValue::Null),
        Value::String(s) => Ok(RowValue::Text(s.clone())),
        Value::Number(n) => {
            let f = n.as_f64().ok_or("a number that is not finite")?;
            let int = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
            Ok(match int {
                Some(i) if !float => RowValue::Integer(i),
                // An integral value written as 2.0 without a marker is still the integer 2 (R4).
                None if !float && f.fract() == 0.0 && f.abs() < 1e18 => RowValue::Integer(f as i128),
                _ => RowValue::Float(f),
            })
        }
        other => Err(format!("a row value must be a string, number or null, found {other}")),
    }
}

/// Run one gate row. `carry` builds and consumes the messages for a row: given the property
/// name, the row value and the fixture body, it returns one [`Attempt`] per native form, or an
/// error when the binding cannot carry such a value at all.
pub(super) fn gate_row(
    cx: &RunCx<'_>,
    case: &CaseRef<'_>,
    carry: impl Fn(&str, &RowValue, &[u8]) -> Result<Vec<Attempt>, String>,
) -> Outcome {
    let run = || -> Check {
        let table = block(cx, case);
        let property = fields::str(table, "property")?;
        let body = cx.bytes(fields::str(table, "fixture")?)?;
        let row = case.value;
        let value = row_value(row)?;
        let decode = match fields::str(row, "expect")? {
            "decode" => true,
            "reject" => false,
            other => return Err(format!("unknown expect {other:?}")),
        };
        let attempts = carry(property, &value, body)?;
        ensure(!attempts.is_empty(), || "the runner built no message for this row".into())?;
        for (how, result) in attempts {
            match (decode, result) {
                (true, Ok(_)) | (false, Err(ConsumeError::Gate(_))) => {}
                (true, Err(e)) => return Err(format!("{how}: expected decode, got {e}")),
                (false, Ok(_)) => return Err(format!("{how}: expected the gate to reject, but it decoded")),
                (false, Err(e)) => {
                    return Err(format!("{how}: expected the gate to reject, but it let the message through: {e}"));
                }
            }
        }
        Ok(())
    };
    run().into()
}

/// An `attempts_reconciliation` case of a binding whose native count is the unsigned integer
/// field `count_field`: `reconcile(body_attempts, count)` must give `expected_attempts`.
pub(super) fn reconciliation(case: &Value, count_field: &str, reconcile: fn(u64, u32) -> u64) -> Check {
    let body = fields::u64(case, "body_attempts")?;
    let count = u32::try_from(fields::u64(case, count_field)?).map_err(|_| format!("{count_field} is too large"))?;
    let want = fields::u64(case, "expected_attempts")?;
    let got = reconcile(body, count);
    ensure(got == want, || format!("attempts {got}, expected {want}"))
}

/// The row value of a binding whose property is a string (SQS, Pulsar): only text or absent.
pub(super) fn text_only<'r>(binding: &str, value: &'r RowValue) -> Result<Option<&'r str>, String> {
    match value {
        RowValue::Absent => Ok(None),
        RowValue::Text(s) => Ok(Some(s)),
        other => Err(format!("{binding} cannot carry {other:?} in a string property")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_become_typed_values() {
        assert_eq!(row_value(&json!({"absent": true, "expect": "decode"})), Ok(RowValue::Absent));
        assert_eq!(row_value(&json!({"value": null})), Ok(RowValue::Null));
        assert_eq!(row_value(&json!({"value": 1})), Ok(RowValue::Integer(1)));
        assert_eq!(row_value(&json!({"value": 2.0})), Ok(RowValue::Integer(2)));
        assert_eq!(row_value(&json!({"value": 1.0, "value_type": "float"})), Ok(RowValue::Float(1.0)));
        assert_eq!(row_value(&json!({"value": 1, "value_type": "float"})), Ok(RowValue::Float(1.0)));
        assert_eq!(row_value(&json!({"value": 1.5})), Ok(RowValue::Float(1.5)));
        assert!(row_value(&json!({"value": "1", "absent": true})).is_err());
        assert!(row_value(&json!({"absent": false})).is_err());
        assert!(row_value(&json!({"value": 1, "value_type": "double"})).is_err());
    }

    #[test]
    fn amqp_values_match_by_type() {
        assert!(amqp_matches(&json!(1), &AmqpValue::Int(1)));
        assert!(amqp_matches(&json!(1), &AmqpValue::ULong(1)));
        assert!(!amqp_matches(&json!(1), &AmqpValue::Double(1.0)));
        assert!(!amqp_matches(&json!(1), &AmqpValue::String("1".into())));
        assert!(amqp_matches(&json!(1.5), &AmqpValue::Float(1.5)));
        assert!(!amqp_matches(&json!(1.0), &AmqpValue::Int(1)));
        assert!(amqp_matches(&json!("php"), &AmqpValue::String("php".into())));
        assert!(!amqp_matches(&json!("php"), &AmqpValue::Symbol("php".into())));
        assert!(amqp_matches(&json!(null), &AmqpValue::Null));
    }

    #[test]
    fn golden_maps_are_closed() {
        let want = json!({"a": 1, "b": "x"});
        let want = want.as_object().unwrap();
        assert!(exact_map("m", want, json!({"a": 1.0, "b": "x"}).as_object().unwrap()).is_ok());
        assert!(exact_map("m", want, json!({"a": 1}).as_object().unwrap()).is_err());
        assert!(exact_map("m", want, json!({"a": 1, "b": "x", "c": 0}).as_object().unwrap()).is_err());
        assert!(exact_map("m", want, json!({"a": "1", "b": "x"}).as_object().unwrap()).is_err());
    }
}
