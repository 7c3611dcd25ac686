//! Per-URN payload schemas (ADR-0024): the SDK-side validator of a message's `data`.
//!
//! This is the reference core's own validator, deliberately separate from any general JSON
//! Schema library: every SDK implements the same small Draft-07 keyword subset, so that all of
//! them reach the same verdict. Rules it keeps:
//!
//! * The keywords are `type`, `required`, `properties`, `additionalProperties`, `items`, `enum`,
//!   `const`, `minLength` and `minimum`. Every other keyword (`$schema`, `format`, `maxLength`,
//!   `x-gdpr-sensitive`, …) is ignored. A subschema may be `true` (anything) or `false` (nothing).
//! * `type` is one name or a list of names out of `object`, `array`, `string`, `integer`,
//!   `number`, `boolean`, `null`. `integer` is a number with no fraction (`1.0` counts, as in
//!   Draft-07); a boolean is never a number.
//! * `enum` and `const` compare with the contract's "same value" (R4): JSON types are told apart,
//!   numbers compare by mathematical value (`1` equals `1.0`).
//! * `minLength` counts Unicode code points — not UTF-8 bytes, UTF-16 units or graphemes.
//! * `minimum` is inclusive and compares mathematical values (integers exactly).
//! * `required`, `properties` and `additionalProperties` apply to objects only; `items` (one
//!   schema for every item, or a list applied by position) to arrays only; `minLength` to strings
//!   only; `minimum` to numbers only — as Draft-07 says.
//! * A keyword whose value has the wrong shape (`"type": 5`, `"minLength": -1`) makes the schema
//!   fail to compile: an SDK must not silently validate against less than the schema says.

use std::fmt;

use serde_json::{Map, Number, Value};

use super::json::{as_integer, type_name};
use crate::fault::{self, Fault};

/// A JSON type name a schema can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
    Null,
}

impl Type {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "object" => Self::Object,
            "array" => Self::Array,
            "string" => Self::String,
            "integer" => Self::Integer,
            "number" => Self::Number,
            "boolean" => Self::Boolean,
            "null" => Self::Null,
            _ => return None,
        })
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Object => "object",
            Self::Array => "array",
            Self::String => "string",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Null => "null",
        }
    }

    fn admits(self, v: &Value) -> bool {
        match (self, v) {
            (Self::Object, Value::Object(_))
            | (Self::Array, Value::Array(_))
            | (Self::String, Value::String(_))
            | (Self::Number, Value::Number(_))
            | (Self::Boolean, Value::Bool(_))
            | (Self::Null, Value::Null) => true,
            (Self::Integer, Value::Number(n)) => is_integral(n),
            _ => false,
        }
    }
}

/// A number without a fraction. Every integer literal converts to a whole double (a large one
/// rounds to another whole double), so the double's fraction decides for every number.
fn is_integral(n: &Number) -> bool {
    n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// What `items` says about an array's elements.
#[derive(Debug, Clone, PartialEq)]
pub enum Items {
    /// Every element matches this schema.
    Each(Box<Schema>),
    /// Element `i` matches schema `i`; elements past the list are not constrained.
    Positional(Vec<Schema>),
}

/// A compiled schema: only the supported keywords, each with a checked shape.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Schema {
    /// `false` as a schema: nothing is valid.
    pub reject_all: bool,
    pub types: Option<Vec<Type>>,
    pub required: Vec<String>,
    pub properties: Vec<(String, Schema)>,
    /// `additionalProperties`: `None` when absent or `true`.
    pub additional: Option<Box<Schema>>,
    pub items: Option<Items>,
    pub enumeration: Option<Vec<Value>>,
    pub constant: Option<Value>,
    /// `minLength`, in code points.
    pub min_length: Option<u64>,
    /// `minimum`, inclusive.
    pub minimum: Option<Number>,
}

/// A schema keyword with a value of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// RFC 6901 pointer of the keyword inside the schema.
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "schema {}: {}", if self.pointer.is_empty() { "root" } else { &self.pointer }, self.message)
    }
}

impl std::error::Error for SchemaError {}

/// One reason an instance does not match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// RFC 6901 pointer of the offending value inside the instance (`""` for the root).
    pub pointer: String,
    /// The keyword that failed.
    pub keyword: &'static str,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", if self.pointer.is_empty() { "/" } else { &self.pointer }, self.keyword, self.message)
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn err(at: &str, keyword: &str, message: impl Into<String>) -> SchemaError {
    SchemaError { pointer: format!("{at}/{}", escape(keyword)), message: message.into() }
}

impl Schema {
    /// Compile a Draft-07 schema value, keeping the supported keywords.
    pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
        compile_at(schema, "")
    }

    /// Every violation, in keyword order, depth first.
    pub fn violations(&self, instance: &Value) -> Vec<Violation> {
        let mut out = Vec::new();
        self.check(instance, "", &mut out);
        out
    }

    fn check(&self, v: &Value, at: &str, out: &mut Vec<Violation>) {
        let mut fail = |keyword: &'static str, message: String| {
            out.push(Violation { pointer: at.to_owned(), keyword, message });
        };
        if self.reject_all {
            fail("false", "the schema admits nothing".into());
            return;
        }
        if let Some(c) = &self.constant
            && !equal(c, v)
        {
            fail("const", format!("{v} is not {c}"));
        }
        if let Some(list) = &self.enumeration
            && !list.iter().any(|e| equal(e, v))
        {
            fail("enum", format!("{v} is not one of the enumerated values"));
        }
        if let Some(types) = &self.types
            && !types.iter().any(|t| t.admits(v))
        {
            let names: Vec<_> = types.iter().map(|t| t.as_str()).collect();
            fail("type", format!("{} is not {}", type_name(v), names.join(" or ")));
        }
        match v {
            Value::String(s) => {
                if let Some(min) = self.min_length {
                    let len =
                        if fault::active(Fault::PayloadSchemaByteLength) { s.len() } else { s.chars().count() } as u64;
                    if len < min {
                        fail("minLength", format!("{len} code points, at least {min} required"));
                    }
                }
            }
            Value::Number(n) => {
                if let Some(min) = &self.minimum
                    && below(n, min)
                {
                    fail("minimum", format!("{n} is below the minimum {min}"));
                }
            }
            Value::Object(obj) => self.check_object(obj, at, out),
            Value::Array(arr) => match &self.items {
                Some(Items::Each(s)) => {
                    for (i, item) in arr.iter().enumerate() {
                        s.check(item, &format!("{at}/{i}"), out);
                    }
                }
                Some(Items::Positional(list)) => {
                    for (i, (item, s)) in arr.iter().zip(list).enumerate() {
                        s.check(item, &format!("{at}/{i}"), out);
                    }
                }
                None => {}
            },
            _ => {}
        }
    }

    fn check_object(&self, obj: &Map<String, Value>, at: &str, out: &mut Vec<Violation>) {
        for key in &self.required {
            if !obj.contains_key(key) {
                out.push(Violation {
                    pointer: at.to_owned(),
                    keyword: "required",
                    message: format!("missing required property {key:?}"),
                });
            }
        }
        for (key, value) in obj {
            let child = format!("{at}/{}", escape(key));
            match self.properties.iter().find(|(k, _)| k == key) {
                Some((_, s)) => s.check(value, &child, out),
                None => {
                    if let Some(extra) = &self.additional
                        && !(extra.reject_all && fault::active(Fault::PayloadSchemaIgnoreAdditional))
                    {
                        if extra.reject_all {
                            out.push(Violation {
                                pointer: child,
                                keyword: "additionalProperties",
                                message: format!("property {key:?} is not allowed"),
                            });
                        } else {
                            extra.check(value, &child, out);
                        }
                    }
                }
            }
        }
    }
}

/// JSON Schema instance equality (`enum`, `const`): numbers by mathematical value (`1` is
/// `1.0`), everything else structurally, key order ignored.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64() && as_integer(a) == as_integer(b),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// Is `n` strictly below `min`? Integers compare exactly; anything else as doubles.
fn below(n: &Number, min: &Number) -> bool {
    let int = |x: &Number| x.as_i64().map(i128::from).or_else(|| x.as_u64().map(i128::from));
    match (int(n), int(min)) {
        (Some(a), Some(b)) => a < b,
        _ => n.as_f64().zip(min.as_f64()).is_some_and(|(a, b)| a < b),
    }
}

fn compile_at(schema: &Value, at: &str) -> Result<Schema, SchemaError> {
    let obj = match schema {
        Value::Bool(true) => return Ok(Schema::default()),
        Value::Bool(false) => return Ok(Schema { reject_all: true, ..Schema::default() }),
        Value::Object(o) => o,
        other => {
            return Err(SchemaError {
                pointer: at.to_owned(),
                message: format!("a schema is an object or a boolean, not {}", type_name(other)),
            });
        }
    };
    let mut s = Schema::default();
    if let Some(t) = obj.get("type") {
        let names: Vec<&Value> = match t {
            Value::Array(a) => a.iter().collect(),
            one => vec![one],
        };
        let mut types = Vec::new();
        for n in names {
            let parsed = n.as_str().and_then(Type::parse);
            types.push(parsed.ok_or_else(|| err(at, "type", format!("{n} is not a JSON type name")))?);
        }
        s.types = Some(types);
    }
    if let Some(r) = obj.get("required") {
        let list = r.as_array().ok_or_else(|| err(at, "required", "must be an array of strings"))?;
        for k in list {
            s.required.push(k.as_str().ok_or_else(|| err(at, "required", "must be an array of strings"))?.to_owned());
        }
    }
    if let Some(p) = obj.get("properties") {
        let map = p.as_object().ok_or_else(|| err(at, "properties", "must be an object"))?;
        let base = format!("{at}/properties");
        for (k, sub) in map {
            s.properties.push((k.clone(), compile_at(sub, &format!("{base}/{}", escape(k)))?));
        }
    }
    if let Some(a) = obj.get("additionalProperties") {
        let sub = compile_at(a, &format!("{at}/additionalProperties"))?;
        s.additional = (sub != Schema::default()).then(|| Box::new(sub));
    }
    if let Some(i) = obj.get("items") {
        let base = format!("{at}/items");
        s.items = Some(match i {
            Value::Array(list) => Items::Positional(
                list.iter()
                    .enumerate()
                    .map(|(n, sub)| compile_at(sub, &format!("{base}/{n}")))
                    .collect::<Result<_, _>>()?,
            ),
            one => Items::Each(Box::new(compile_at(one, &base)?)),
        });
    }
    if let Some(e) = obj.get("enum") {
        s.enumeration = Some(e.as_array().ok_or_else(|| err(at, "enum", "must be an array"))?.clone());
    }
    if let Some(c) = obj.get("const") {
        s.constant = Some(c.clone());
    }
    if let Some(m) = obj.get("minLength") {
        // Draft-07 "nonNegativeInteger": 2 and 2.0 alike.
        let n = m.as_u64().or_else(|| m.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64));
        s.min_length = Some(n.ok_or_else(|| err(at, "minLength", "must be a non-negative integer"))?);
    }
    if let Some(m) = obj.get("minimum") {
        s.minimum = Some(m.as_number().ok_or_else(|| err(at, "minimum", "must be a number"))?.clone());
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Fault, with};
    use serde_json::json;

    fn valid(schema: Value, v: Value) -> bool {
        Schema::compile(&schema).unwrap().violations(&v).is_empty()
    }

    #[test]
    fn types_follow_draft_07() {
        assert!(valid(json!({"type": "integer"}), json!(3)));
        assert!(valid(json!({"type": "integer"}), json!(3.0)));
        assert!(!valid(json!({"type": "integer"}), json!(3.5)));
        assert!(!valid(json!({"type": "integer"}), json!(true)));
        assert!(!valid(json!({"type": "number"}), json!(false)));
        assert!(valid(json!({"type": ["string", "null"]}), json!(null)));
        assert!(!valid(json!({"type": "object"}), json!([])));
        assert!(!valid(json!({"type": "array"}), json!({})));
    }

    #[test]
    fn min_length_counts_code_points() {
        let s = json!({"type": "string", "minLength": 3});
        assert!(!valid(s.clone(), json!("ğü")));
        assert!(valid(s.clone(), json!("ğüş")));
        assert!(!valid(s.clone(), json!("😀a")));
        assert!(valid(json!({"minLength": 2}), json!("e\u{301}")));
        assert!(!valid(json!({"minLength": 2}), json!("😀")));
        assert!(valid(json!({"minLength": 5}), json!(12)), "minLength ignores non-strings");
        with(Fault::PayloadSchemaByteLength, || assert!(valid(s.clone(), json!("ğü"))));
    }

    #[test]
    fn minimum_is_inclusive_and_exact() {
        let s = json!({"minimum": 1});
        assert!(valid(s.clone(), json!(1)));
        assert!(valid(s.clone(), json!(1.0)));
        assert!(!valid(s.clone(), json!(0.999)));
        assert!(!valid(s.clone(), json!(-5)));
        assert!(valid(json!({"minimum": 0}), json!(u64::MAX)));
        assert!(!valid(json!({"minimum": u64::MAX}), json!(-1)));
        assert!(!valid(json!({"minimum": 9007199254740993u64}), json!(9007199254740992u64)));
        assert!(valid(json!({"minimum": 0.5}), json!(1)));
        assert!(valid(json!({"minimum": 1}), json!("0")), "minimum ignores non-numbers");
    }

    #[test]
    fn enum_and_const_use_same_value() {
        assert!(valid(json!({"enum": [1, "a"]}), json!(1.0)));
        assert!(!valid(json!({"enum": [1, "a"]}), json!(true)));
        assert!(!valid(json!({"const": {}}), json!([])));
        assert!(valid(json!({"const": {"a": [1]}}), json!({"a": [1.0]})));
    }

    #[test]
    fn objects_and_arrays() {
        let s = json!({
            "type": "object",
            "required": ["id"],
            "properties": {"id": {"type": "integer"}, "tags": {"items": {"type": "string"}}},
            "additionalProperties": false
        });
        assert!(valid(s.clone(), json!({"id": 1, "tags": ["a"]})));
        assert!(!valid(s.clone(), json!({"tags": []})));
        assert!(!valid(s.clone(), json!({"id": 1, "tags": ["a", 2]})));
        assert!(!valid(s.clone(), json!({"id": 1, "x": 0})));
        with(Fault::PayloadSchemaIgnoreAdditional, || assert!(valid(s.clone(), json!({"id": 1, "x": 0}))));
        assert!(valid(json!({"additionalProperties": {"type": "string"}}), json!({"a": "x"})));
        assert!(!valid(json!({"additionalProperties": {"type": "string"}}), json!({"a": 1})));
        assert!(valid(json!({"items": [{"type": "string"}]}), json!(["a", 2])));
        assert!(!valid(json!({"items": [{"type": "string"}]}), json!([1])));
        assert!(!valid(json!(false), json!(1)));
        assert!(valid(json!(true), json!(1)));
    }

    #[test]
    fn unknown_keywords_are_ignored() {
        assert!(valid(
            json!({"maxLength": 1, "format": "uuid", "x-gdpr-sensitive": true, "pattern": "^a$"}),
            json!("zzz")
        ));
    }

    #[test]
    fn malformed_keywords_do_not_compile() {
        for (schema, pointer) in [
            (json!({"type": 5}), "/type"),
            (json!({"type": "strin"}), "/type"),
            (json!({"required": "a"}), "/required"),
            (json!({"minLength": -1}), "/minLength"),
            (json!({"minLength": 1.5}), "/minLength"),
            (json!({"minimum": "1"}), "/minimum"),
            (json!({"properties": {"a/b": {"enum": 1}}}), "/properties/a~1b/enum"),
            (json!(3), ""),
        ] {
            assert_eq!(Schema::compile(&schema).unwrap_err().pointer, pointer, "{schema}");
        }
    }

    #[test]
    fn violations_name_the_value() {
        let v = Schema::compile(&json!({"properties": {"a": {"properties": {"b": {"minimum": 2}}}}}))
            .unwrap()
            .violations(&json!({"a": {"b": 1}}));
        assert_eq!(v.len(), 1);
        assert_eq!((v[0].pointer.as_str(), v[0].keyword), ("/a/b", "minimum"));
    }
}
