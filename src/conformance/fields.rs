//! Reading case fields: each helper returns the value or a failure reason naming the field.
//!
//! Runners read only the fields they know; a missing or mistyped field they need fails the case
//! with a reason (never a panic), and every other field is ignored.

use serde_json::{Map, Value};

/// A required field.
pub fn req<'v>(v: &'v Value, key: &str) -> Result<&'v Value, String> {
    v.get(key).ok_or_else(|| format!("case has no {key:?}"))
}

fn typed<'v, T>(v: &'v Value, key: &str, what: &str, f: impl FnOnce(&'v Value) -> Option<T>) -> Result<T, String> {
    let x = req(v, key)?;
    f(x).ok_or_else(|| format!("{key:?} is not {what}: {x}"))
}

/// A required string field.
pub fn str<'v>(v: &'v Value, key: &str) -> Result<&'v str, String> {
    typed(v, key, "a string", Value::as_str)
}

/// A required boolean field.
pub fn bool(v: &Value, key: &str) -> Result<bool, String> {
    typed(v, key, "a boolean", Value::as_bool)
}

/// A required non-negative integer field.
pub fn u64(v: &Value, key: &str) -> Result<u64, String> {
    typed(v, key, "a non-negative integer", Value::as_u64)
}

/// A required array field.
pub fn array<'v>(v: &'v Value, key: &str) -> Result<&'v [Value], String> {
    typed(v, key, "an array", |x| x.as_array().map(Vec::as_slice))
}

/// An optional string field: absent or `null` is `None`, any other non-string an error.
pub fn opt_str<'v>(v: &'v Value, key: &str) -> Result<Option<&'v str>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x.as_str().map(Some).ok_or_else(|| format!("{key:?} is not a string: {x}")),
    }
}

/// A required integer field.
pub fn i64(v: &Value, key: &str) -> Result<i64, String> {
    typed(v, key, "an integer", Value::as_i64)
}

/// A required number field.
pub fn f64(v: &Value, key: &str) -> Result<f64, String> {
    typed(v, key, "a number", Value::as_f64)
}

/// A required object field.
pub fn object<'v>(v: &'v Value, key: &str) -> Result<&'v Map<String, Value>, String> {
    typed(v, key, "an object", Value::as_object)
}

/// An optional object field: absent is `None`, present but not an object an error.
pub fn opt_object<'v>(v: &'v Value, key: &str) -> Result<Option<&'v Map<String, Value>>, String> {
    v.get(key).map(|x| x.as_object().ok_or_else(|| format!("{key:?} is not an object: {x}"))).transpose()
}

/// A required list of non-negative integers.
pub fn u64_list(v: &Value, key: &str) -> Result<Vec<u64>, String> {
    array(v, key)?
        .iter()
        .map(|x| x.as_u64().ok_or_else(|| format!("{key:?} holds {x}, not a non-negative integer")))
        .collect()
}
