//! Where a reply first departs from the protocol, said as a JSON pointer and what the protocol
//! wants there: what an adapter's author needs, and what serde cannot say (its message names a
//! Rust type, "invalid type: null, expected u64", and not the member; inside an internally
//! tagged enum it has lost the position too).
//!
//! Invariants:
//! - The walk reads the protocol's own schema ([`super::protocol::schema`]), which the serde
//!   types generate, so the two cannot disagree about what a reply is; they differ only in how
//!   much they can say. A reply the walk finds nothing wrong with is told by serde's message
//!   alone (the caller keeps it).
//! - A `oneOf` / `anyOf` is entered at the branch whose constant members (`reply`, `op`,
//!   `kind`, …) the value carries, as serde picks a variant by its tag. A value that carries no
//!   branch's constants is told at its tag member. Branches without constants (an optional
//!   value) are each tried: one that fits means no departure, else the deepest departure is
//!   told, and departures all at the value itself are told as one ("an object or null").
//! - A value of the wrong JSON type is told by its type (`is a string, where the protocol wants a
//!   boolean`; `is a number written with a fraction or an exponent` where an integer belongs),
//!   never by its value, so one fault reads alike in every call ([`Departure::of_type`]); so is
//!   a string of the wrong form (not base64, not a pointer). A value of the right type that is
//!   still refused (a tag, a bound) is shown, cut.
//! - Members are judged in the reply's own order, then the missing ones, as serde reads them;
//!   the first departure is the one told. A string the schema encodes as base64 (`Bytes`) is
//!   decoded as serde decodes it (standard, padded), the one `pattern` of the schema; a string
//!   of `format` `json-pointer` (a warning's pointer) is parsed as serde's reader parses it.
//! - Whenever serde refuses a reply the walk names a place in it (a property test mutates
//!   replies to hold it), unless the reply is beyond [`BUDGET`].
//! - Everything the adapter wrote and the walk repeats (a member's name, a string's value) is cut
//!   to [`SHOWN`] characters; the caller makes the text terminal-safe.
//! - It runs only on a reply that could not be read, and looks at [`BUDGET`] values at most:
//!   a reply larger than that (an 8 MB array of numbers with one string at its end) is told by
//!   serde's message alone, so that no reply makes it cost more than reading one. The schema
//!   is generated once per process.

use std::fmt;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::suite::pointer;

/// At most this many characters of an adapter's name or string are repeated.
const SHOWN: usize = 40;

/// The most values one walk looks at (red team F3: 4 million array items took 20 s).
const BUDGET: usize = 100_000;

/// Deeper than this, the walk stops (the schema's own nesting is far shallower; a reply nested
/// deeper was refused by the line cap or serde's recursion limit before it got here).
const MAX_DEPTH: usize = 64;

/// The first place a reply departs from the protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Departure {
    /// A JSON pointer into the reply line (`/response/result/envelope/attempts`).
    pub pointer: String,
    /// What is there (`null`, `missing`, `"decodd"`, `an object`, `a string`).
    pub found: String,
    /// `found` says what kind of value is there (its JSON type, `a string` where a boolean
    /// belongs; a string of the wrong form, not base64, not a pointer), never the value: one
    /// fault of an adapter then reads the same whatever value each call held, so the failure
    /// digest and the incident summary tell it once.
    pub of_type: bool,
    /// What the protocol wants there (`an integer (uint64)`, `one of "decoded", "rejected"`).
    pub wants: String,
}

impl fmt::Display for Departure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "the reply" } else { &self.pointer };
        write!(f, "{at} is {}, where the protocol wants {}", self.found, self.wants)
    }
}

/// Where `reply` (a line the adapter wrote, parsed) first departs from the protocol's `Reply`,
/// if the walk can tell.
pub fn departure(reply: &Value) -> Option<Departure> {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    let root = SCHEMA.get_or_init(|| super::protocol::schema().to_value());
    let defs = root.get("$defs")?.as_object()?;
    let walk = Walk { defs, left: std::cell::Cell::new(BUDGET) };
    let found = walk.at(defs.get("Reply")?, reply, "", 0);
    // A walk that ran out of budget may have judged only part of the reply.
    if walk.left.get() == 0 { None } else { found }
}

struct Walk<'s> {
    defs: &'s Map<String, Value>,
    /// Values it may still look at.
    left: std::cell::Cell<usize>,
}

impl<'s> Walk<'s> {
    /// The schema a `$ref` names (only this schema's own `#/$defs/…` are followed).
    fn target(&self, schema: &'s Map<String, Value>) -> Option<&'s Value> {
        let name = schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")?;
        self.defs.get(name)
    }

    fn at(&self, schema: &'s Value, value: &Value, at: &str, depth: usize) -> Option<Departure> {
        let Value::Object(s) = schema else {
            // `false` admits nothing, `true` everything.
            return (schema == &Value::Bool(false)).then(|| depart(at, value, "nothing here".into()));
        };
        if depth > MAX_DEPTH || self.left.get() == 0 {
            return None;
        }
        self.left.set(self.left.get() - 1);
        if let Some(target) = self.target(s)
            && let Some(d) = self.at(target, value, at, depth + 1)
        {
            return Some(d);
        }
        if let Some(d) = scalar(s, value, at) {
            return Some(d);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = s.get(key)
                && let Some(d) = self.branches(branches, value, at, depth)
            {
                return Some(d);
            }
        }
        match value {
            Value::Object(members) => self.object(s, members, at, depth),
            Value::Array(items) => self.array(s, items, at, depth),
            _ => None,
        }
    }

    /// The constant members a branch requires (its own `properties` and its `$ref`'s).
    fn constants(&self, branch: &'s Value) -> Vec<(&'s str, &'s Value)> {
        let mut out = Vec::new();
        let mut next = Some(branch);
        // A `$ref` chain is short; the bound only guards a schema that refers to itself.
        for _ in 0..8 {
            let Some(Value::Object(s)) = next else { break };
            if let Some(Value::Object(props)) = s.get("properties") {
                out.extend(props.iter().filter_map(|(k, p)| Some((k.as_str(), p.get("const")?))));
            }
            next = self.target(s);
        }
        out
    }

    fn branches(&self, branches: &'s [Value], value: &Value, at: &str, depth: usize) -> Option<Departure> {
        let tagged: Vec<Vec<(&str, &Value)>> = branches.iter().map(|b| self.constants(b)).collect();
        if let Value::Object(members) = value
            && tagged.iter().any(|c| !c.is_empty())
        {
            let fits = |c: &[(&str, &Value)]| !c.is_empty() && c.iter().all(|(k, v)| members.get(*k) == Some(*v));
            if let Some(i) = tagged.iter().position(|c| fits(c)) {
                return self.at(&branches[i], value, at, depth + 1);
            }
            // No branch's tag: told at the tag member the most branches use.
            let mut names: Vec<&str> = tagged.iter().flatten().map(|(k, _)| *k).collect();
            names.sort_unstable();
            let tag = names
                .chunk_by(|a, b| a == b)
                .max_by_key(|run| run.len())
                .map(|run| run[0])
                .expect("some branch has a constant");
            let allowed: Vec<String> =
                tagged.iter().flatten().filter(|(k, _)| *k == tag).map(|(_, v)| v.to_string()).collect();
            let wants = format!("one of {}", allowed.join(", "));
            let at = pointer::join(at, tag);
            return Some(match members.get(tag) {
                Some(v) => depart(&at, v, wants),
                None => Departure { pointer: cut_pointer(&at), found: "missing".into(), wants, of_type: false },
            });
        }
        let mut found: Vec<Departure> = Vec::with_capacity(branches.len());
        for branch in branches {
            match self.at(branch, value, at, depth + 1) {
                None => return None,
                Some(d) => found.push(d),
            }
        }
        let deepest = found.iter().map(|d| d.pointer.len()).max()?;
        if deepest == cut_pointer(at).len() && found.len() > 1 {
            // Every branch refused the value itself: one departure that names them all.
            let mut wants: Vec<String> = Vec::new();
            for d in &found {
                if !wants.contains(&d.wants) {
                    wants.push(d.wants.clone());
                }
            }
            let first = found.swap_remove(0);
            return Some(Departure { wants: wants.join(" or "), ..first });
        }
        found.into_iter().find(|d| d.pointer.len() == deepest)
    }

    fn object(
        &self,
        s: &'s Map<String, Value>,
        members: &Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Option<Departure> {
        let props = s.get("properties").and_then(Value::as_object);
        let extra = s.get("additionalProperties");
        for (name, v) in members {
            let here = pointer::join(at, name);
            match props.and_then(|p| p.get(name)) {
                Some(p) => {
                    if let Some(d) = self.at(p, v, &here, depth + 1) {
                        return Some(d);
                    }
                }
                None => match extra {
                    Some(Value::Bool(false)) => {
                        let known: Vec<&str> =
                            props.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
                        let wants = if known.is_empty() {
                            "no member here".to_owned()
                        } else {
                            format!("no such member (the object has {})", known.join(", "))
                        };
                        return Some(Departure {
                            pointer: cut_pointer(&here),
                            found: "present".into(),
                            wants,
                            of_type: false,
                        });
                    }
                    Some(p @ Value::Object(_)) => {
                        if let Some(d) = self.at(p, v, &here, depth + 1) {
                            return Some(d);
                        }
                    }
                    _ => {}
                },
            }
        }
        let required = s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
        for name in required {
            if !members.contains_key(name) {
                let wants = props.and_then(|p| p.get(name)).map_or_else(|| "a value".to_owned(), |p| self.describe(p));
                return Some(Departure {
                    pointer: cut_pointer(&pointer::join(at, name)),
                    found: "missing".into(),
                    wants,
                    of_type: false,
                });
            }
        }
        None
    }

    fn array(&self, s: &'s Map<String, Value>, items: &[Value], at: &str, depth: usize) -> Option<Departure> {
        let n = items.len();
        let min = s.get("minItems").and_then(Value::as_u64).map_or(0, |m| m as usize);
        let max = s.get("maxItems").and_then(Value::as_u64).map(|m| m as usize);
        if n < min || max.is_some_and(|m| n > m) {
            let wants = match max {
                Some(m) if m == min => format!("an array of {m}"),
                Some(m) => format!("an array of {min} to {m}"),
                None => format!("an array of at least {min}"),
            };
            return Some(Departure {
                pointer: cut_pointer(at),
                found: format!("an array of {n}"),
                wants,
                of_type: false,
            });
        }
        let prefix = s.get("prefixItems").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for (i, item) in items.iter().enumerate() {
            let schema = match prefix.get(i) {
                Some(p) => p,
                None => match s.get("items") {
                    Some(p) => p,
                    None => continue,
                },
            };
            if let Some(d) = self.at(schema, item, &pointer::join_index(at, i), depth + 1) {
                return Some(d);
            }
        }
        None
    }

    /// What a schema admits, in words (for a member that is missing).
    fn describe(&self, schema: &'s Value) -> String {
        let Value::Object(s) = schema else { return "a value".into() };
        if let Some(target) = self.target(s) {
            return self.describe(target);
        }
        if let Some(c) = s.get("const") {
            return c.to_string();
        }
        if s.contains_key("oneOf") || s.contains_key("anyOf") || s.contains_key("properties") {
            return "an object".into();
        }
        wanted(s)
    }
}

/// Type, constant, enumeration and bounds: what a schema says of a value on its own.
fn scalar(s: &Map<String, Value>, value: &Value, at: &str) -> Option<Departure> {
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| is_type(value, t)) {
            return Some(depart_type(at, value, wanted(s)));
        }
    }
    if let Some(c) = s.get("const")
        && value != c
    {
        return Some(depart(at, value, c.to_string()));
    }
    if let Some(Value::Array(allowed)) = s.get("enum")
        && !allowed.contains(value)
    {
        let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
        return Some(depart(at, value, format!("one of {}", listed.join(", "))));
    }
    match value {
        Value::Number(n) => {
            let (lo, hi) = bounds(s);
            let out = match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => lo.is_some_and(|lo| i128::from(i) < lo) || hi.is_some_and(|hi| i128::from(i) > hi),
                (None, Some(u)) => lo.is_some_and(|lo| i128::from(u) < lo) || hi.is_some_and(|hi| i128::from(u) > hi),
                // A fraction against integer bounds: compared as a float (the bounds are small).
                (None, None) => {
                    n.as_f64().is_some_and(|f| lo.is_some_and(|lo| f < lo as f64) || hi.is_some_and(|hi| f > hi as f64))
                }
            };
            out.then(|| depart(at, value, wanted(s)))
        }
        Value::String(text) => {
            // Bytes: the schema's `pattern` is standard padded base64, which serde decodes.
            // A string of the wrong form is told by its kind too: the value differs in every
            // call (the body of each case), and one encoder's bug would read as many.
            if s.get("contentEncoding").and_then(Value::as_str) == Some("base64")
                && base64::Engine::decode(&base64::engine::general_purpose::STANDARD, text).is_err()
            {
                let found =
                    "a string that is not standard padded base64 (raw text, no padding, or the URL-safe alphabet?)";
                return Some(depart_kind(at, found, "standard padded base64 (RFC 4648 §4)".into()));
            }
            if s.get("format").and_then(Value::as_str) == Some("json-pointer") && pointer::parse(text).is_err() {
                let wants = "an RFC 6901 pointer (empty, or each key after a \"/\": \"/timestamp\")";
                return Some(depart_kind(at, "a string that is not a JSON pointer", wants.into()));
            }
            let n = text.chars().count() as u64;
            let min = s.get("minLength").and_then(Value::as_u64);
            let max = s.get("maxLength").and_then(Value::as_u64);
            (min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m)).then(|| Departure {
                pointer: cut_pointer(at),
                found: format!("a string of {n} characters"),
                wants: wanted(s),
                of_type: false,
            })
        }
        _ => None,
    }
}

/// Whether `value` is of JSON Schema type `t` (an integer is a number without a fraction or
/// exponent part that serde reads as one: `1.0` is not, as serde's integers refuse it).
fn is_type(value: &Value, t: &str) -> bool {
    match t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

/// The range an integer `format` (uint8 … int64) names.
fn format_range(format: Option<&str>) -> (Option<i128>, Option<i128>) {
    match format {
        Some("uint8") => (Some(0), Some(i128::from(u8::MAX))),
        Some("uint16") => (Some(0), Some(i128::from(u16::MAX))),
        Some("uint32") => (Some(0), Some(i128::from(u32::MAX))),
        Some("uint64") => (Some(0), Some(i128::from(u64::MAX))),
        Some("int8") => (Some(i128::from(i8::MIN)), Some(i128::from(i8::MAX))),
        Some("int16") => (Some(i128::from(i16::MIN)), Some(i128::from(i16::MAX))),
        Some("int32") => (Some(i128::from(i32::MIN)), Some(i128::from(i32::MAX))),
        Some("int64") => (Some(i128::from(i64::MIN)), Some(i128::from(i64::MAX))),
        _ => (None, None),
    }
}

/// The range a schema's `format` and `minimum` / `maximum` allow.
fn bounds(s: &Map<String, Value>) -> (Option<i128>, Option<i128>) {
    let (mut lo, mut hi) = format_range(s.get("format").and_then(Value::as_str));
    let int = |v: &Value| v.as_i64().map(i128::from).or_else(|| v.as_u64().map(i128::from));
    if let Some(m) = s.get("minimum").and_then(int) {
        lo = Some(lo.map_or(m, |l| l.max(m)));
    }
    if let Some(m) = s.get("maximum").and_then(int) {
        hi = Some(hi.map_or(m, |h| h.min(m)));
    }
    (lo, hi)
}

/// What a schema's type, format, bounds and length allow, in words.
fn wanted(s: &Map<String, Value>) -> String {
    let types: Vec<&str> = match s.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let one = |t: &str| -> String {
        match t {
            "integer" => {
                let format = s.get("format").and_then(Value::as_str);
                let (lo, hi) = bounds(s);
                let named = format.is_some() && format_range(format) == (lo, hi);
                match (format, lo, hi) {
                    (Some(f), _, _) if named => format!("an integer ({f})"),
                    (_, Some(lo), Some(hi)) => format!("an integer from {lo} to {hi}"),
                    (_, Some(lo), None) => format!("an integer of at least {lo}"),
                    (_, None, Some(hi)) => format!("an integer of at most {hi}"),
                    _ => "an integer".into(),
                }
            }
            "number" => "a number".into(),
            "string" => {
                match (s.get("minLength").and_then(Value::as_u64), s.get("maxLength").and_then(Value::as_u64)) {
                    (Some(lo), Some(hi)) => format!("a string of {lo} to {hi} characters"),
                    (None, Some(hi)) => format!("a string of at most {hi} characters"),
                    (Some(lo), None) => format!("a string of at least {lo} characters"),
                    (None, None) => "a string".into(),
                }
            }
            "boolean" => "a boolean".into(),
            "null" => "null".into(),
            "array" => "an array".into(),
            "object" => "an object".into(),
            other => other.to_owned(),
        }
    };
    if types.is_empty() {
        return "a value".into();
    }
    types.iter().map(|t| one(t)).collect::<Vec<_>>().join(" or ")
}

/// A departure at `at` of `value`, shown briefly.
fn depart(at: &str, value: &Value, wants: String) -> Departure {
    Departure { pointer: cut_pointer(at), found: brief(value), wants, of_type: false }
}

/// A departure told by the JSON type of what is there ([`Departure::of_type`]).
fn depart_type(at: &str, value: &Value, wants: String) -> Departure {
    let found = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        // What serde reads as no integer: `2.5`, `1.0`, `1e3` (a float delay is the usual slip).
        Value::Number(_) => "a number written with a fraction or an exponent",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    depart_kind(at, found, wants)
}

/// A departure told by what kind of value is there, `found`, never the value
/// ([`Departure::of_type`]).
fn depart_kind(at: &str, found: &str, wants: String) -> Departure {
    Departure { pointer: cut_pointer(at), found: found.into(), wants, of_type: true }
}

/// A value as the departure shows it: a scalar as JSON (a string cut to [`SHOWN`] characters),
/// an object or array by its kind.
fn brief(value: &Value) -> String {
    match value {
        Value::Object(_) => "an object".into(),
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::String(s) if s.chars().count() > SHOWN => {
            let cut: String = s.chars().take(SHOWN).collect();
            format!("{}…", Value::String(cut))
        }
        other => other.to_string(),
    }
}

/// A pointer whose every token is cut to [`SHOWN`] characters (a member's name is the
/// adapter's to choose).
fn cut_pointer(at: &str) -> String {
    if at.split('/').all(|t| t.chars().count() <= SHOWN) {
        return at.to_owned();
    }
    at.split('/')
        .map(|t| {
            if t.chars().count() > SHOWN {
                format!("{}…", t.chars().take(SHOWN).collect::<String>())
            } else {
                t.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn told(reply: Value) -> String {
        departure(&reply).map(|d| d.to_string()).unwrap_or_else(|| "nothing".into())
    }

    fn decoded(envelope: Value) -> Value {
        json!({"reply": "result", "seq": 1, "response": {"op": "decode", "result": {
            "kind": "decoded", "envelope": envelope, "warnings": []}}})
    }

    fn envelope() -> Value {
        json!({"urn": "urn:x", "trace_id": "t", "data": {}, "meta": {}, "attempts": 0})
    }

    #[test]
    fn a_well_formed_reply_departs_nowhere() {
        assert_eq!(told(decoded(envelope())), "nothing");
        assert_eq!(told(json!({"reply": "not_implemented", "seq": 3})), "nothing");
        assert_eq!(
            told(json!({"reply": "result", "seq": 2, "response": {"op": "accepts", "result": true}})),
            "nothing"
        );
    }

    #[test]
    fn a_member_of_the_wrong_type_is_told_by_its_pointer() {
        let mut e = envelope();
        e["attempts"] = Value::Null;
        assert_eq!(
            told(decoded(e)),
            "/response/result/envelope/attempts is null, where the protocol wants an integer (uint64)"
        );
        let mut e = envelope();
        e["attempts"] = json!(-1);
        assert_eq!(
            told(decoded(e)),
            "/response/result/envelope/attempts is -1, where the protocol wants an integer (uint64)"
        );
        // 1.0 is no integer to serde, so not to the walk either; told by its kind, as a float
        // delay of every call reads alike.
        let mut e = envelope();
        e["attempts"] = json!(1.0);
        assert!(told(decoded(e)).starts_with(
            "/response/result/envelope/attempts is a number written with a fraction or an exponent, where"
        ));
    }

    #[test]
    fn a_missing_member_is_told_with_what_it_should_hold() {
        let mut e = envelope();
        e.as_object_mut().unwrap().remove("trace_id");
        assert_eq!(
            told(decoded(e)),
            "/response/result/envelope/trace_id is missing, where the protocol wants a string"
        );
        assert_eq!(
            told(json!({"reply": "result", "response": {"op": "accepts", "result": true}})),
            "/seq is missing, where the protocol wants an integer (uint64)"
        );
    }

    #[test]
    fn a_wrong_tag_is_told_at_the_tag_with_every_allowed_value() {
        let r = json!({"reply": "result", "seq": 1, "response": {"op": "decode", "result": {"kind": "decodd"}}});
        assert_eq!(
            told(r),
            "/response/result/kind is \"decodd\", where the protocol wants one of \"decoded\", \"rejected\""
        );
        let r = json!({"reply": "answer", "seq": 1});
        let t = told(r);
        assert!(t.starts_with("/reply is \"answer\", where the protocol wants one of \"hello\", \"result\""), "{t}");
        let r = json!({"reply": "result", "seq": 1, "response": {"op": "decode", "result": {"envelope": {}}}});
        assert!(told(r).starts_with("/response/result/kind is missing, where the protocol wants one of \"decoded\""));
    }

    #[test]
    fn the_adapters_names_and_strings_are_cut() {
        let long = "k".repeat(500);
        let r = json!({"reply": "result", "seq": 1, "response": {"op": "decode", "result": {"kind": long}}});
        let t = told(r);
        assert!(t.contains(&format!("is \"{}\"…, where", "k".repeat(SHOWN))), "{t}");
        // A member's name is the adapter's too: a pointer token is cut the same way.
        let d = depart(&format!("/a/{long}/b"), &Value::Null, "x".into());
        assert_eq!(d.pointer, format!("/a/{}…/b", "k".repeat(SHOWN)));
    }

    #[test]
    fn a_value_no_branch_of_an_untagged_choice_admits_names_them_all() {
        let s = json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}, {"type": "null"}]});
        let defs = Map::new();
        let walk = Walk { defs: &defs, left: std::cell::Cell::new(BUDGET) };
        let d = walk.at(&s, &json!("x"), "/v", 0).unwrap();
        assert_eq!(d.to_string(), "/v is a string, where the protocol wants an object or null");
        // The branch the value is nearest to is the one told.
        let d = walk.at(&s, &json!({"a": "y"}), "/v", 0).unwrap();
        assert_eq!(d.to_string(), "/v/a is a string, where the protocol wants an integer");
        assert_eq!(walk.at(&s, &Value::Null, "/v", 0), None);
    }

    /// A reply too large to walk within the budget is left to serde's message.
    #[test]
    fn a_reply_beyond_the_budget_is_not_walked() {
        let mut items: Vec<Value> = (0..BUDGET as u64 + 10).map(Value::from).collect();
        items.push(json!("x"));
        let reply = json!({"reply": "result", "seq": 1, "response": {"op": "retry_delay", "result": items}});
        assert_eq!(departure(&reply), None);
        let reply = json!({"reply": "result", "seq": 1, "response": {"op": "retry_delay", "result": [1, "x"]}});
        assert_eq!(told(reply), "/response/result/1 is a string, where the protocol wants an integer (uint64)");
    }

    #[test]
    fn arrays_are_judged_by_length_and_by_item() {
        let s = json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2, "maxItems": 2});
        let defs = Map::new();
        let walk = Walk { defs: &defs, left: std::cell::Cell::new(BUDGET) };
        assert_eq!(
            walk.at(&s, &json!(["a"]), "/p", 0).unwrap().to_string(),
            "/p is an array of 1, where the protocol wants an array of 2"
        );
        assert_eq!(
            walk.at(&s, &json!(["a", "b"]), "/p", 0).unwrap().to_string(),
            "/p/1 is a string, where the protocol wants an integer"
        );
        assert_eq!(walk.at(&s, &json!(["a", 2]), "/p", 0), None);
    }
}
