//! JSON value helpers shared by the core.
//!
//! Invariant: "same value" is JSON deep equality with type distinction between JSON types
//! (`true` ≠ `1`, `{}` ≠ `[]`, `"1"` ≠ `1`, `null` ≠ absent) where two numbers are equal when
//! their mathematical values are equal (`1` equals `1.0`), decisions R4. Object key order never
//! matters.

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

/// Numbers are equal when their mathematical values are; integers compare exactly.
pub fn same_number(x: &Number, y: &Number) -> bool {
    if let (Some(p), Some(q)) = (x.as_i64(), y.as_i64()) {
        return p == q;
    }
    if let (Some(p), Some(q)) = (x.as_u64(), y.as_u64()) {
        return p == q;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(p), Some(q)) => p == q,
        _ => false,
    }
}

/// A JSON Schema "integer": an integer literal, or a number with a zero fraction.
pub fn as_integer(v: &Value) -> Option<i128> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    // Exact for every f64 in i128's range; larger magnitudes are not useful counters.
    (f.fract() == 0.0 && f.abs() < 1e30).then_some(f as i128)
}

/// A finite `f64` as a JSON number; a non-finite one is an error, never `null`.
pub fn finite_number(f: f64) -> Result<Value, NonFinite> {
    Number::from_f64(f).map(Value::Number).ok_or(NonFinite(f))
}

/// A number that JSON cannot carry (NaN or ±Infinity).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NonFinite(pub f64);

impl std::fmt::Display for NonFinite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is not a finite number and cannot be encoded as JSON", self.0)
    }
}

impl std::error::Error for NonFinite {}

/// The JSON type name of a value, in the spec's words.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_value_distinguishes_types_but_not_number_spelling() {
        assert!(same_value(&json!(1), &json!(1.0)));
        assert!(same_value(&json!({"a": [1, {"b": null}]}), &json!({"a": [1.0, {"b": null}]})));
        assert!(!same_value(&json!(true), &json!(1)));
        assert!(!same_value(&json!({}), &json!([])));
        assert!(!same_value(&json!("1"), &json!(1)));
        assert!(!same_value(&json!({"a": null}), &json!({})));
        assert!(!same_value(&json!(u64::MAX), &json!(-1)));
    }

    #[test]
    fn integers_follow_json_schema() {
        assert_eq!(as_integer(&json!(3)), Some(3));
        assert_eq!(as_integer(&json!(3.0)), Some(3));
        assert_eq!(as_integer(&json!(-2)), Some(-2));
        assert_eq!(as_integer(&json!(1.5)), None);
        assert_eq!(as_integer(&json!(true)), None);
        assert_eq!(as_integer(&json!("1")), None);
    }

    #[test]
    fn non_finite_numbers_are_errors_not_null() {
        assert!(finite_number(f64::NAN).is_err());
        assert!(finite_number(f64::INFINITY).is_err());
        assert!(finite_number(f64::NEG_INFINITY).is_err());
        assert_eq!(finite_number(0.5).unwrap(), json!(0.5));
    }
}
