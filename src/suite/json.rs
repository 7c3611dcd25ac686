//! Reading JSON text: the one parser every suite file and every results file goes through.
//!
//! Invariants:
//! - The value is exactly what `serde_json::from_str::<Value>` gives (with `preserve_order`):
//!   numbers through the same `u64` / `i64` / `f64` paths, strict RFC 8259 (no BOM, no trailing
//!   data, no NaN), and a repeated key keeps its first position with its last value.
//! - A repeated key is never silent: [`Parsed::duplicates`] lists every repeat, in text order,
//!   with the pointer of the member and the line:column of its first and of its repeated
//!   occurrence. Whether a repeat is an error is the caller's rule (fixtures repeat keys on
//!   purpose; the manifest, schemas, sync targets and results files must not).
//! - Nesting deeper than [`MAX_DEPTH`] levels is [`JsonErrorKind::TooDeep`] ("nested too deeply
//!   (limit N)"), never reported as "not JSON".
//!
//! Cost: the parse builds the value in one pass and only notes *that* a key repeated; the
//! locations are found afterwards by one linear scan, which runs only when a repeat exists.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::pointer;
use super::span::{LineIndex, skip_ws, string_end, value_end};
use crate::diag::Span;

/// The deepest nesting that parses: serde_json's recursion limit (128) refuses the 128th level.
pub const MAX_DEPTH: usize = 127;

/// Why text is not JSON the suite accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// Not JSON (syntax, trailing data, a BOM, a lone surrogate escape, …).
    Syntax,
    /// JSON nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A key repeated where no repeat is meant (only from [`super::parse_json`]).
    DuplicateKey,
}

/// A JSON parse failure with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub kind: JsonErrorKind,
    pub message: String,
    pub span: Option<Span>,
}

/// A key that appears twice in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// RFC 6901 pointer of the member (its object's pointer plus the key).
    pub pointer: String,
    pub key: String,
    /// Where the key first appears (its opening quote).
    pub first: Span,
    /// Where it appears again.
    pub again: Span,
}

impl fmt::Display for Duplicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "key {:?} appears twice in one object: first at line {} column {}, again at line {} column {}",
            self.key, self.first.line, self.first.column, self.again.line, self.again.column
        )
    }
}

/// Text that parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub value: Value,
    /// Every repeated key, in text order (empty for most files).
    pub duplicates: Vec<Duplicate>,
}

/// Parse JSON text.
pub fn parse(text: &str) -> Result<Parsed, JsonError> {
    let repeated = Cell::new(false);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = ValueSeed { repeated: &repeated }.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    let value = value.map_err(|e| {
        let span = (e.line() > 0).then(|| Span { line: e.line(), column: e.column().max(1) });
        if e.to_string().starts_with("recursion limit exceeded") {
            JsonError { kind: JsonErrorKind::TooDeep, message: format!("nested too deeply (limit {MAX_DEPTH})"), span }
        } else {
            JsonError { kind: JsonErrorKind::Syntax, message: e.to_string(), span }
        }
    })?;
    let duplicates = if repeated.get() { find_duplicates(text) } else { Vec::new() };
    Ok(Parsed { value, duplicates })
}

/// Builds a [`Value`] exactly as serde_json's own visitor does, noting any repeated key.
#[derive(Clone, Copy)]
struct ValueSeed<'a> {
    repeated: &'a Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut vec = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            vec.push(v);
        }
        Ok(Value::Array(vec))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut values = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let v = map.next_value_seed(self)?;
            if values.insert(key, v).is_some() {
                self.repeated.set(true);
            }
        }
        Ok(Value::Object(values))
    }
}

/// One open container of the duplicate scan.
enum Frame {
    Object {
        /// Each key seen so far with the offset of its first occurrence.
        seen: HashMap<String, usize>,
        /// The current member's key.
        key: String,
        /// Is the next string a key?
        want_key: bool,
    },
    Array {
        index: usize,
    },
}

/// Every repeated key of `text` (which parses), in text order, with both locations.
fn find_duplicates(text: &str) -> Vec<Duplicate> {
    let b = text.as_bytes();
    let lines = LineIndex::new(text);
    let mut out = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut p = skip_ws(b, 0);
    while p < b.len() {
        match b[p] {
            b'{' => {
                stack.push(Frame::Object { seen: HashMap::new(), key: String::new(), want_key: true });
                p += 1;
            }
            b'[' => {
                stack.push(Frame::Array { index: 0 });
                p += 1;
            }
            b'}' | b']' => {
                stack.pop();
                p += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object { want_key, .. }) => *want_key = true,
                    Some(Frame::Array { index }) => *index += 1,
                    None => {}
                }
                p += 1;
            }
            b'"' => {
                let Some(end) = string_end(b, p) else { break };
                let repeat = match stack.last_mut() {
                    Some(Frame::Object { seen, key, want_key }) if *want_key => {
                        *want_key = false;
                        *key = serde_json::from_slice(&b[p..end]).unwrap_or_default();
                        let first = *seen.entry(key.clone()).or_insert(p);
                        (first != p).then(|| (first, key.clone()))
                    }
                    _ => None,
                };
                if let Some((first, key)) = repeat {
                    let pointer = member_pointer(&stack, &key);
                    out.push(Duplicate { pointer, key, first: lines.span(first), again: lines.span(p) });
                }
                p = end;
            }
            b':' | b' ' | b'\t' | b'\n' | b'\r' => p += 1,
            _ => p = value_end(b, p).unwrap_or(b.len()),
        }
    }
    out
}

/// The pointer of the current member of the innermost object on `stack`.
fn member_pointer(stack: &[Frame], key: &str) -> String {
    let mut ptr = String::new();
    let (last, outer) = stack.split_last().expect("a key is inside an object");
    for f in outer {
        match f {
            Frame::Object { key, .. } => pointer::push(&mut ptr, key),
            Frame::Array { index } => {
                use std::fmt::Write;
                let _ = write!(ptr, "/{index}");
            }
        }
    }
    debug_assert!(matches!(last, Frame::Object { .. }));
    pointer::push(&mut ptr, key);
    ptr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_is_what_serde_json_gives() {
        let texts = [
            r#"{"x":0,"job":"a","y":1,"job":"b"}"#,
            r#"{"meta":{"q":1,"id":"a"},"z":0,"meta":{"id":"b"}}"#,
            r#"[1, -1, 1.0, 1e2, 1.50, -0, 18446744073709551615, 18446744073709551616, 1e-400, 0.1000000000000000055511151231257827]"#,
            r#"{"z":1,"a":2,"m":3,"s":"\u00e9\n/","n":null,"t":true,"e":{},"l":[]}"#,
            "  \"top\"  ",
        ];
        for t in texts {
            let ours = parse(t).unwrap().value;
            let theirs: Value = serde_json::from_str(t).unwrap();
            assert_eq!(ours, theirs, "{t}");
            assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&theirs).unwrap(), "{t}");
        }
        for bad in ["1e400", "\u{feff}{}", "{} x", "NaN", r#"{"k":"\ud800"}"#, "", "[1,]"] {
            assert!(parse(bad).is_err(), "{bad:?}");
            assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn repeated_keys_are_listed_with_both_locations() {
        let text = "{\n \"a\": 1,\n \"b\": [{\"k\": 1, \"k\": 2, \"k\": 3}],\n \"a\": {\"x\\/y\": 0, \"x/y\": 1}\n}";
        let p = parse(text).unwrap();
        assert_eq!(p.value["a"]["x/y"], 1);
        let got: Vec<_> = p.duplicates.iter().map(|d| (d.pointer.as_str(), d.first, d.again)).collect();
        let s = |line, column| Span { line, column };
        assert_eq!(
            got,
            [
                ("/b/0/k", s(3, 9), s(3, 17)),
                ("/b/0/k", s(3, 9), s(3, 25)),
                ("/a", s(2, 2), s(4, 2)),
                ("/a/x~1y", s(4, 8), s(4, 19)),
            ]
        );
        assert_eq!(p.duplicates[3].key, "x/y");
        assert!(p.duplicates[2].to_string().contains("first at line 2 column 2, again at line 4 column 2"));
        assert!(parse(r#"{"a":{"b":1},"c":[{"b":2}]}"#).unwrap().duplicates.is_empty());
    }

    #[test]
    fn too_deep_is_not_a_syntax_error() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let e = parse(&deep).unwrap_err();
        assert_eq!(e.kind, JsonErrorKind::TooDeep);
        assert_eq!(e.message, format!("nested too deeply (limit {MAX_DEPTH})"));
        let e = parse("{\n  oops").unwrap_err();
        assert_eq!((e.kind, e.span), (JsonErrorKind::Syntax, Some(Span { line: 2, column: 3 })));
        assert!(e.message.starts_with("key must be a string"), "{}", e.message);
    }
}
