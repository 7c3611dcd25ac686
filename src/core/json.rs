//! JSON value helpers shared by the core.
//!
//! Invariants: an integer is what JSON Schema calls one (an integer literal, or a number with a
//! zero fraction: `1.0` is 1, `true` is not).
//! Comparing values the way the suite judges them is not the core's business
//! (`crate::sections::judge` owns that).

use serde_json::Value;

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
}
