//! Reading a case into its section's typed form: one reader for `validate` and `run`.
//!
//! Invariants: reading never panics and collects every problem it finds (not just the first),
//! each with the absolute RFC 6901 pointer of the offending place in `manifest.json` and a
//! stable code of the generic family (missing field or wrong type BQ305, unknown value BQ306,
//! not exactly one of BQ307, unreadable value BQ308, bad pointer BQ804, missing file BQ301); a
//! case with a problem has no typed form, so it is never cross-checked or run; a referenced file
//! that exists but cannot be read as JSON is a problem whose root cause the file rules report
//! ([`Problem::shown`] false), so `validate` names it once; an expectation the reader takes is
//! recorded as a [`Slot`] with a wrong value of the same shape, for the test that every
//! expectation is checked by the reference agreement.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use crate::diag::Code;
use crate::suite::{CaseRef, Suite, pointer};

/// One problem of a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub code: Code,
    /// Absolute pointer in `manifest.json`.
    pub pointer: String,
    pub message: String,
    /// Reported by `validate` as a finding of its own (false: another rule already reports the
    /// root cause, e.g. the fixture that does not parse).
    pub shown: bool,
    /// A lint: reported by `validate`, but the case still reads (runners ignore unknown fields).
    pub lint: bool,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.pointer, self.message)
    }
}

/// A field did not read (the reader has recorded why).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unread;

/// An expectation of a case and a wrong value for it (same JSON shape, another meaning).
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// Absolute pointer in `manifest.json`.
    pub pointer: String,
    pub wrong: Value,
}

/// A place in the manifest: a value and its absolute pointer.
#[derive(Debug, Clone)]
pub struct Place<'s> {
    pub value: &'s Value,
    pub pointer: String,
}

impl<'s> Place<'s> {
    /// The place of member `key` (which must exist).
    fn child(&self, key: &str, value: &'s Value) -> Place<'s> {
        Place { value, pointer: pointer::join(&self.pointer, key) }
    }

    /// The place of element `i`.
    pub fn element(&self, i: usize) -> Option<Place<'s>> {
        let value = self.value.as_array()?.get(i)?;
        Some(Place { value, pointer: pointer::join_index(&self.pointer, i) })
    }

    /// The places of every element (none when this is not an array).
    pub fn elements(&self) -> Vec<Place<'s>> {
        let n = self.value.as_array().map_or(0, Vec::len);
        (0..n).filter_map(|i| self.element(i)).collect()
    }
}

/// A suite file a case names, read and parsed.
#[derive(Debug, Clone, Copy)]
pub struct Fixture<'s> {
    pub rel: &'s str,
    pub bytes: &'s [u8],
    pub json: &'s Value,
}

/// The reader of one case.
pub struct Reader<'s> {
    pub suite: &'s Suite,
    /// The case id.
    pub id: String,
    /// The sub-key the case lives under (`None`: a case of the section's own `cases`).
    pub sub: Option<&'s str>,
    /// The case's position in its `cases` array (`None`: a single-case sub-key).
    pub index: Option<usize>,
    case: Place<'s>,
    /// The object the case lives in: its sub-key block, or the section's own block.
    pub block: &'s Value,
    block_pointer: String,
    pub problems: Vec<Problem>,
    /// The case's expectation slots, when asked for ([`Reader::with_slots`]); `None`: not
    /// collected (`run` and `validate` have no use for them, and building the wrong values of
    /// every expectation would cost every read).
    pub slots: Option<Vec<Slot>>,
}

/// What a reader methods want of a value.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<'s> Reader<'s> {
    /// A reader of `case`, a case of the section whose block is `section_block`.
    pub fn new(suite: &'s Suite, case: &CaseRef<'s>, section_name: &str, section_block: &'s Value) -> Self {
        let (block, block_pointer) = match case.sub.and_then(|s| section_block.get(s).map(|b| (s, b))) {
            Some((s, b)) => (b, pointer::join(&pointer::join("", section_name), s)),
            None => (section_block, pointer::join("", section_name)),
        };
        Self {
            suite,
            id: case.id.clone(),
            sub: case.sub,
            index: case.index,
            case: Place { value: case.value, pointer: case.pointer.clone() },
            block,
            block_pointer,
            problems: Vec::new(),
            slots: None,
        }
    }

    /// This reader, collecting the case's expectation slots.
    pub fn with_slots(mut self) -> Self {
        self.slots = Some(Vec::new());
        self
    }

    /// The case itself.
    pub fn root(&self) -> Place<'s> {
        self.case.clone()
    }

    /// The name of the block the case lives in (`cases` for the section's own array): one of its
    /// definition's `BLOCKS`, which the registry checks before the case is read.
    pub fn block_name(&self) -> &'s str {
        self.sub.unwrap_or("cases")
    }

    /// The block the case lives in.
    pub fn block_place(&self) -> Place<'s> {
        Place { value: self.block, pointer: self.block_pointer.clone() }
    }

    /// The case must be a row of its block's `cases` array (not the block itself, which the
    /// case-id rule makes a single case when it has no `cases` array).
    pub fn row(&mut self) -> Option<()> {
        if self.index.is_some() {
            return Some(());
        }
        let at = self.block_pointer.clone();
        self.problem(Code::CASE_SHAPE, at, "the block needs a \"cases\" array of rows");
        None
    }

    /// Record a problem.
    pub fn problem(&mut self, code: Code, pointer: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            code,
            pointer: pointer.into(),
            message: message.into(),
            shown: true,
            lint: false,
        });
    }

    /// Record a lint: a problem `validate` reports that does not stop the case from reading.
    pub fn lint(&mut self, code: Code, pointer: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem { code, pointer: pointer.into(), message: message.into(), shown: true, lint: true });
    }

    /// Did reading find a problem that stops the case?
    pub fn failed(&self) -> bool {
        self.problems.iter().any(|p| !p.lint)
    }

    /// `place` as an object, or a problem.
    pub fn object(&mut self, place: &Place<'s>) -> Option<&'s Map<String, Value>> {
        match place.value {
            Value::Object(m) => Some(m),
            other => {
                self.problem(Code::CASE_SHAPE, &place.pointer, format!("must be an object, found {}", kind_of(other)));
                None
            }
        }
    }

    /// Member `key` of the object at `place`, when present.
    pub fn opt(&mut self, place: &Place<'s>, key: &str) -> Option<Place<'s>> {
        let v = place.value.as_object()?.get(key)?;
        Some(place.child(key, v))
    }

    /// Member `key`, required.
    pub fn field(&mut self, place: &Place<'s>, key: &str, what: &str) -> Option<Place<'s>> {
        if !place.value.is_object() {
            self.object(place);
            return None;
        }
        let got = self.opt(place, key);
        if got.is_none() {
            self.problem(Code::CASE_SHAPE, &place.pointer, format!("{key:?} is missing (must be {what})"));
        }
        got
    }

    fn typed<T>(&mut self, p: &Place<'s>, what: &str, f: impl FnOnce(&'s Value) -> Option<T>) -> Option<T> {
        let got = f(p.value);
        if got.is_none() {
            self.problem(Code::CASE_SHAPE, &p.pointer, format!("must be {what}, found {}", p.value));
        }
        got
    }

    /// A required field of a type, read by `f`.
    pub fn req<T>(
        &mut self,
        place: &Place<'s>,
        key: &str,
        what: &str,
        f: impl FnOnce(&'s Value) -> Option<T>,
    ) -> Option<T> {
        let p = self.field(place, key, what)?;
        self.typed(&p, what, f)
    }

    /// An optional field of a type (absent is `Ok(None)`; null counts as absent when
    /// `null_is_absent`).
    pub fn opt_typed<T>(
        &mut self,
        place: &Place<'s>,
        key: &str,
        what: &str,
        null_is_absent: bool,
        f: impl FnOnce(&'s Value) -> Option<T>,
    ) -> Result<Option<T>, Unread> {
        match self.opt(place, key) {
            None => Ok(None),
            Some(p) if null_is_absent && p.value.is_null() => Ok(None),
            Some(p) => self.typed(&p, what, f).map(Some).ok_or(Unread),
        }
    }

    /// A required string.
    pub fn str(&mut self, place: &Place<'s>, key: &str) -> Option<&'s str> {
        self.req(place, key, "a string", Value::as_str)
    }

    /// A required boolean.
    pub fn bool(&mut self, place: &Place<'s>, key: &str) -> Option<bool> {
        self.req(place, key, "a boolean", Value::as_bool)
    }

    /// A required non-negative integer.
    pub fn u64(&mut self, place: &Place<'s>, key: &str) -> Option<u64> {
        self.req(place, key, "a non-negative integer", Value::as_u64)
    }

    /// A required integer.
    pub fn i64(&mut self, place: &Place<'s>, key: &str) -> Option<i64> {
        self.req(place, key, "an integer", Value::as_i64)
    }

    /// A required finite number.
    pub fn f64(&mut self, place: &Place<'s>, key: &str) -> Option<f64> {
        self.req(place, key, "a finite number", |v| v.as_f64().filter(|f| f.is_finite()))
    }

    /// A required object.
    pub fn map(&mut self, place: &Place<'s>, key: &str) -> Option<&'s Map<String, Value>> {
        self.req(place, key, "an object", Value::as_object)
    }

    /// A required array.
    pub fn array(&mut self, place: &Place<'s>, key: &str) -> Option<Place<'s>> {
        let p = self.field(place, key, "an array")?;
        self.typed(&p, "an array", Value::as_array)?;
        Some(p)
    }

    /// A required list of non-negative integers.
    pub fn u64_list(&mut self, place: &Place<'s>, key: &str) -> Option<Vec<u64>> {
        let p = self.array(place, key)?;
        let mut out = Vec::new();
        let mut ok = true;
        for e in p.elements() {
            match e.value.as_u64() {
                Some(n) => out.push(n),
                None => {
                    ok = false;
                    self.problem(
                        Code::CASE_SHAPE,
                        &e.pointer,
                        format!("must be a non-negative integer, found {}", e.value),
                    );
                }
            }
        }
        ok.then_some(out)
    }

    /// A required non-negative integer that fits 32 bits (a native delivery count).
    pub fn u32(&mut self, place: &Place<'s>, key: &str) -> Option<u32> {
        let n = self.u64(place, key)?;
        u32::try_from(n).ok().or_else(|| {
            self.bad_value(pointer::join(&place.pointer, key), format!("{n} does not fit 32 bits"));
            None
        })
    }

    /// A required field that is a string or `null` (`Some(None)`).
    pub fn str_or_null(&mut self, place: &Place<'s>, key: &str) -> Option<Option<&'s str>> {
        let p = self.field(place, key, "a string or null")?;
        match p.value {
            Value::Null => Some(None),
            Value::String(s) => Some(Some(s)),
            _ => self.typed(&p, "a string or null", |_| None),
        }
    }

    /// A required field that is a non-negative integer or `null` (`Some(None)`).
    pub fn u64_or_null(&mut self, place: &Place<'s>, key: &str) -> Option<Option<u64>> {
        let p = self.field(place, key, "a non-negative integer or null")?;
        match p.value {
            Value::Null => Some(None),
            _ => self.typed(&p, "a non-negative integer or null", Value::as_u64).map(Some),
        }
    }

    /// An optional string: absent or null is `None`.
    pub fn opt_str(&mut self, place: &Place<'s>, key: &str) -> Result<Option<&'s str>, Unread> {
        self.opt_typed(place, key, "a string or null", true, Value::as_str)
    }

    /// A required string that must be one of `values`.
    pub fn one_of<T: Copy>(&mut self, place: &Place<'s>, key: &str, values: &[(&str, T)]) -> Option<T> {
        // The case that reads records nothing: find its value before formatting any message.
        let text = place.value.get(key).and_then(Value::as_str);
        if let Some((_, t)) = text.and_then(|text| values.iter().find(|(n, _)| *n == text)) {
            return Some(*t);
        }
        let names: Vec<&str> = values.iter().map(|(n, _)| *n).collect();
        let text = self.req(place, key, &format!("one of {names:?}"), Value::as_str)?;
        match values.iter().find(|(n, _)| *n == text) {
            Some((_, t)) => Some(*t),
            None => {
                self.problem(
                    Code::CASE_UNKNOWN_VALUE,
                    pointer::join(&place.pointer, key),
                    format!("{text:?} is not one of {names:?}"),
                );
                None
            }
        }
    }

    /// A value that has the right type but that the section cannot use.
    pub fn bad_value(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.problem(Code::CASE_BAD_VALUE, pointer, message);
    }

    /// Exactly one of `keys` is present at `place`; which one.
    pub fn exactly_one<'k>(&mut self, place: &Place<'s>, keys: &[&'k str]) -> Option<&'k str> {
        let present: Vec<&str> = keys.iter().copied().filter(|k| place.value.get(k).is_some()).collect();
        match present.as_slice() {
            [one] => Some(one),
            _ => {
                self.problem(
                    Code::CASE_ONE_OF,
                    &place.pointer,
                    format!("must carry exactly one of {keys:?}; it has {present:?}"),
                );
                None
            }
        }
    }

    /// An RFC 6901 pointer held in the string at `p`.
    pub fn pointer_text(&mut self, p: &Place<'s>) -> Option<&'s str> {
        let Some(text) = p.value.as_str() else {
            self.problem(Code::BAD_POINTER, &p.pointer, format!("{} is not a string pointer", p.value));
            return None;
        };
        self.pointer_syntax(&p.pointer, text)
    }

    fn pointer_syntax(&mut self, at: &str, text: &'s str) -> Option<&'s str> {
        match pointer::parse(text) {
            Ok(_) => Some(text),
            Err(e) => {
                self.problem(Code::BAD_POINTER, at, format!("not an RFC 6901 pointer: {e}"));
                None
            }
        }
    }

    /// An optional `{ "<pointer>": <value> }` map: every key a valid pointer.
    pub fn pointer_map(&mut self, place: &Place<'s>, key: &str) -> Result<Vec<(&'s str, &'s Value)>, Unread> {
        let Some(p) = self.opt(place, key) else { return Ok(Vec::new()) };
        let Some(m) = self.typed(&p, "an object of pointer → value", Value::as_object) else { return Err(Unread) };
        let mut out = Vec::new();
        let mut ok = true;
        for (k, v) in m {
            match self.pointer_syntax(&pointer::join(&p.pointer, k), k) {
                Some(k) => out.push((k, v)),
                None => ok = false,
            }
        }
        if ok { Ok(out) } else { Err(Unread) }
    }

    /// An optional list of pointers.
    pub fn pointer_list(&mut self, place: &Place<'s>, key: &str) -> Result<Option<Vec<&'s str>>, Unread> {
        let Some(p) = self.opt(place, key) else { return Ok(None) };
        if self.typed(&p, "an array of pointers", Value::as_array).is_none() {
            return Err(Unread);
        }
        let list: Vec<Option<&str>> = p.elements().iter().map(|e| self.pointer_text(e)).collect();
        list.into_iter().collect::<Option<Vec<_>>>().map(Some).ok_or(Unread)
    }

    /// The suite file named by the string field `key`, read and parsed as JSON.
    pub fn file(&mut self, place: &Place<'s>, key: &str) -> Option<Fixture<'s>> {
        let rel = self.str(place, key)?;
        let at = pointer::join(&place.pointer, key);
        let Some(file) = self.suite.file(rel) else {
            self.problem(Code::MISSING_FIXTURE, at, missing_file_message(rel));
            return None;
        };
        let Some(why) = file.why_no_json() else {
            let json = file.json()?;
            return Some(Fixture { rel: &file.rel, bytes: file.bytes(), json });
        };
        self.problems.push(Problem {
            code: Code::MISSING_FIXTURE,
            pointer: at,
            message: format!("{rel} {why}"),
            shown: false,
            lint: false,
        });
        None
    }

    /// The body bytes of a case that carries exactly one of `body` (the text) and
    /// `body_base64` (standard padded base64).
    pub fn body(&mut self, place: &Place<'s>) -> Option<Vec<u8>> {
        match self.exactly_one(place, &["body", "body_base64"])? {
            "body" => self.str(place, "body").map(|s| s.as_bytes().to_vec()),
            _ => {
                let b64 = self.str(place, "body_base64")?;
                match STANDARD.decode(b64) {
                    Ok(bytes) => Some(bytes),
                    Err(e) => {
                        self.bad_value(
                            pointer::join(&place.pointer, "body_base64"),
                            format!("not standard padded base64: {e}"),
                        );
                        None
                    }
                }
            }
        }
    }

    /// Ordered entries from a `{key: value}` object, or (`pairs`) a `[[key, value], …]` list.
    pub fn entries(&mut self, place: &Place<'s>, key: &str, pairs: bool) -> Option<Vec<(String, Value)>> {
        let p = self.field(place, key, if pairs { "a list of [key, value] pairs" } else { "an object" })?;
        if !pairs {
            let m = self.typed(&p, "an object", Value::as_object)?;
            return Some(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
        }
        self.typed(&p, "a list of [key, value] pairs", Value::as_array)?;
        let mut out = Vec::new();
        for e in p.elements() {
            match e.value.as_array().map(Vec::as_slice) {
                Some([Value::String(k), v]) => out.push((k.clone(), v.clone())),
                _ => self.problem(
                    Code::CASE_SHAPE,
                    &e.pointer,
                    format!("must be a [key, value] pair, found {}", e.value),
                ),
            }
        }
        (!self.failed()).then_some(out)
    }

    // ---- expectations -------------------------------------------------------------------

    /// Record the field at `p` as an expectation whose wrong value is `wrong()` (called only
    /// when the slots are collected).
    pub fn slot(&mut self, p: &Place<'s>, wrong: impl FnOnce() -> Value) {
        if let Some(slots) = &mut self.slots {
            slots.push(Slot { pointer: p.pointer.clone(), wrong: wrong() });
        }
    }

    /// Record the verdict of the case at `at` as an expectation whose wrong value is the case
    /// with the members of `patch` set (for an expected rejection: the case claiming success,
    /// with expectations that still read).
    pub fn slot_case(&mut self, at: &Place<'s>, patch: impl FnOnce() -> Value) {
        self.slot(at, || {
            let mut wrong = at.value.clone();
            if let (Some(w), Value::Object(p)) = (wrong.as_object_mut(), patch()) {
                w.extend(p);
            }
            wrong
        });
    }

    /// Record the field at `p` as an expectation, with a wrong value of the same JSON type.
    pub fn expectation(&mut self, p: &Place<'s>) {
        self.slot(p, || wrong_like(p.value));
    }

    /// Record member `key` (when present) as an expectation.
    pub fn expects(&mut self, place: &Place<'s>, key: &str) {
        if let Some(p) = self.opt(place, key) {
            self.expectation(&p);
        }
    }

    /// Record an enumerated member `key` as an expectation whose wrong value is another of
    /// `values` (none when there is no other).
    pub fn expects_other(&mut self, place: &Place<'s>, key: &str, values: &[&str]) {
        if let Some(p) = self.opt(place, key)
            && let Some(other) = values.iter().find(|v| p.value.as_str() != Some(**v))
        {
            self.slot(&p, || Value::from(*other));
        }
    }

    /// Record the first entry of a pointer map `key` as an expectation (its value made wrong).
    pub fn expects_map_entry(&mut self, place: &Place<'s>, key: &str) {
        if let Some(p) = self.opt(place, key)
            && let Some((k, v)) = p.value.as_object().and_then(|m| m.iter().next())
        {
            let entry = p.child(k, v);
            self.expectation(&entry);
        }
    }
}

/// A value of the same JSON type as `v` but another value.
pub fn wrong_like(v: &Value) -> Value {
    match v {
        Value::Null => Value::from("bqsuite-wrong"),
        Value::Bool(b) => Value::Bool(!b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), ..) => Value::from(u.saturating_add(1)),
            (_, Some(i), _) => Value::from(i.saturating_add(1)),
            (.., Some(f)) => serde_json::Number::from_f64(f + 1.0).map_or(Value::from(0), Value::Number),
            _ => Value::from(0),
        },
        Value::String(s) => Value::from(format!("{s}-bqsuite-wrong")),
        Value::Array(a) => {
            let mut a = a.clone();
            a.push(a.last().cloned().unwrap_or(Value::from("bqsuite-wrong")));
            Value::Array(a)
        }
        Value::Object(m) => {
            let mut m = m.clone();
            m.insert("bqsuite-wrong".into(), Value::Bool(true));
            Value::Object(m)
        }
    }
}

/// The message of a file reference that names no suite file (shared with the file-reference
/// rule, so the two report it identically).
pub fn missing_file_message(rel: &str) -> String {
    format!("{rel} does not exist in the suite")
}

/// The runner-contract fields of a body given by [`Reader::body`] (`body` or `body_base64`),
/// for the sections whose cases carry one.
pub mod body_fields {
    use crate::sections::Field;

    pub const BODY: Field = Field {
        name: "body",
        ty: "string (present unless `body_base64` is)",
        meaning: "The body as text: its bytes are this string's UTF-8 encoding, exactly (no trimming, no normalisation, no BOM added or removed). It is the string after the manifest's own JSON decoding, so `\"{\\\"job\\\":5}\"` in manifest.json is the 9-character body {\"job\":5}; a JSON escape written inside the body, such as the 6 characters \\ud800, is part of the text, not a character.",
    };
    pub const BODY_BASE64: Field = Field {
        name: "body_base64",
        ty: "string (present unless `body` is)",
        meaning: "The body as standard base64 with padding (RFC 4648 §4) of its exact bytes, for a body that is not valid UTF-8 and so cannot be a JSON string. Exactly one of `body` and `body_base64` is present.",
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_values_keep_the_json_type() {
        assert_eq!(wrong_like(&json!(true)), json!(false));
        assert_eq!(wrong_like(&json!(3)), json!(4));
        assert_eq!(wrong_like(&json!(-3)), json!(-2));
        assert_eq!(wrong_like(&json!(1.5)), json!(2.5));
        assert_eq!(wrong_like(&json!("a")), json!("a-bqsuite-wrong"));
        assert_eq!(wrong_like(&json!([1])), json!([1, 1]));
        assert_eq!(wrong_like(&json!({})), json!({"bqsuite-wrong": true}));
    }
}
