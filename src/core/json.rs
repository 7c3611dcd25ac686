//! JSON value helpers shared by the core.
//!
//! Invariants: an integer is what JSON Schema calls one (an integer literal, or a number with a
//! zero fraction: `1.0` is 1, `true` is not); a non-finite number is an error, never `null`.
//! Comparing values the way the suite judges them is not the core's business
//! (`crate::sections::judge` owns that).

use serde_json::{Number, Value};

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
