//! The BabelQueue envelope: decode, accepts, encode and the producer API `make`.
//!
//! Invariants this module keeps (wire contract, schema_version 1):
//!
//! * **Decode** takes exactly one JSON object. Keys match case-sensitively (`JOB` is an unknown
//!   key, never `job`). A repeated key follows last-wins and is never merged. Unknown keys, at
//!   the top level and inside `meta`, are kept with their values in decoded order and re-emitted.
//! * **Identity**: a non-blank string `job` wins; a blank string `job` (empty or only the six
//!   ASCII whitespace characters) falls back to `urn` silently; a non-string `job` is ignored
//!   with a warning naming `/job`; `urn` is the inbound alias. When `job` wins, a present `urn`
//!   (whatever its JSON type) is dropped with a warning naming `/urn`. No usable identity is a decode error. The resolved
//!   URN is kept verbatim: re-emit never trims.
//! * **Forbidden keys** (`/timestamp`, `/meta/max_retries`, `/meta/attempts`, `/meta/source`,
//!   `/meta/ts`) decode with a warning naming their pointer and are not captured as extras, so
//!   they are never re-emitted.
//! * **Accepts** is "decode succeeds": identity, `meta` an object with `schema_version` equal to 1,
//!   `data` an object, `attempts` a non-negative integer, `trace_id` a non-blank string. Numbers
//!   follow JSON Schema: `1.0` is the integer 1, `true` is not a number.
//! * **Encode** writes compact UTF-8 JSON with no trailing newline, non-ASCII and `/` literal, the
//!   canonical key order `job, trace_id, data, meta{id, queue, lang, schema_version, created_at,
//!   extras…}, attempts, dead_letter`, then top-level extras in decoded order. An empty `data` is
//!   `{}`. Encode refuses — with an error naming the key, producing no JSON — a forbidden key, a
//!   key colliding with a canonical one, and a repeated extension key, wherever it came from
//!   (the write API or carried-over extras). Non-finite numbers cannot enter a `serde_json`
//!   value, so encode never writes one (nor a `null` in its place).
//! * **Make** trims exactly the ASCII six from the URN and the trace_id input, mints fresh v4
//!   UUIDs for `meta.id` (and for `trace_id` when none or a blank one is given), stamps
//!   `created_at` in epoch milliseconds, `attempts: 0` and `lang: "rust"`.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use super::json::as_integer;
use super::text::{is_blank, trim};
use crate::fault::{self, Fault};

/// The language tag this core stamps on what it produces (decisions R7).
pub const LANG: &str = "rust";
/// The one envelope version this core understands.
pub const SCHEMA_VERSION: u64 = 1;
/// Canonical top-level keys, in emit order.
pub const TOP_LEVEL_KEYS: [&str; 6] = ["job", "trace_id", "data", "meta", "attempts", "dead_letter"];
/// Canonical `meta` keys, in emit order.
pub const CORE_META_KEYS: [&str; 5] = ["id", "queue", "lang", "schema_version", "created_at"];
/// Non-canonical top-level keys: warned about on decode, refused on encode.
pub const FORBIDDEN_TOP_LEVEL_KEYS: [&str; 2] = ["timestamp", "urn"];
/// Non-canonical `meta` keys: warned about on decode, refused on encode.
pub const FORBIDDEN_META_KEYS: [&str; 4] = ["max_retries", "attempts", "source", "ts"];

/// An ordered list of preserved or written extension entries.
///
/// Decode fills it from a JSON object, so it never holds a key twice there; the producer write
/// API and the test-access [`Extras::push`] may put anything in it, and encode is what refuses a
/// repeated, colliding or forbidden key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras(Vec<(String, Value)>);

impl Extras {
    /// Append an entry as given (no checks: encode is the gate).
    ///
    /// This is also the test access the suite's `encode_reject` runner uses to stand for
    /// extras carried over from an inbound message.
    pub fn push(&mut self, key: impl Into<String>, value: Value) {
        self.0.push((key.into(), value));
    }

    /// Entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// The `meta` object: the canonical keys as decoded (verbatim values) plus extras.
///
/// `schema_version` is not stored: a decoded or made envelope always has version 1.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    pub id: Option<Value>,
    pub queue: Option<Value>,
    pub lang: Option<Value>,
    pub created_at: Option<Value>,
    pub extras: Extras,
}

impl Meta {
    /// `meta.id` when it is a string.
    pub fn id(&self) -> Option<&str> {
        self.id.as_ref().and_then(Value::as_str)
    }
    /// `meta.lang` when it is a string.
    pub fn lang(&self) -> Option<&str> {
        self.lang.as_ref().and_then(Value::as_str)
    }
    /// `meta.created_at` when it is an integer.
    pub fn created_at(&self) -> Option<i128> {
        self.created_at.as_ref().and_then(as_integer)
    }
}

/// A decoded or produced message.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// The resolved URN, verbatim.
    pub job: String,
    pub trace_id: String,
    pub data: Map<String, Value>,
    pub meta: Meta,
    pub attempts: u64,
    /// The dead-letter block as decoded or written; consumers ignore it, re-emit keeps it.
    pub dead_letter: Option<Value>,
    /// Unknown top-level keys.
    pub extras: Extras,
}

/// A decode warning: the message is accepted, but something in it was ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// RFC 6901 pointer of the offending key (`/timestamp`, `/meta/ts`, `/job`, `/urn`).
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pointer, self.message)
    }
}

/// A successful decode: the envelope and what was ignored on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub envelope: Envelope,
    pub warnings: Vec<Warning>,
}

/// Why a body is not an acceptable envelope.
#[derive(Debug, Clone, PartialEq)]
pub enum DecodeError {
    /// Not JSON text (the parser's message).
    NotJson(String),
    /// JSON, but not an object.
    NotAnObject,
    /// Neither a usable `job` nor a usable `urn`.
    NoIdentity,
    /// `meta` is absent or not an object.
    BadMeta,
    /// `meta.schema_version` is absent or not 1.
    UnsupportedSchemaVersion(Option<Value>),
    /// `data` is absent or not an object.
    BadData(Option<Value>),
    /// `attempts` is absent or not a non-negative integer.
    BadAttempts(Option<Value>),
    /// `trace_id` is absent, not a string, or blank.
    BadTraceId(Option<Value>),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn shown(v: &Option<Value>) -> String {
            v.as_ref().map_or_else(|| "absent".to_owned(), Value::to_string)
        }
        match self {
            Self::NotJson(e) => write!(f, "body is not JSON: {e}"),
            Self::NotAnObject => f.write_str("body is not a JSON object"),
            Self::NoIdentity => f.write_str("no usable 'job' or 'urn': the message has no identity"),
            Self::BadMeta => f.write_str("'meta' is absent or not an object"),
            Self::UnsupportedSchemaVersion(v) => {
                write!(f, "meta.schema_version {} is not a version this core supports", shown(v))
            }
            Self::BadData(v) => write!(f, "'data' must be a JSON object, found {}", shown(v)),
            Self::BadAttempts(v) => {
                write!(f, "'attempts' must be a non-negative integer, found {}", shown(v))
            }
            Self::BadTraceId(v) => {
                write!(f, "'trace_id' must be a non-blank string, found {}", shown(v))
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why an envelope could not be encoded. Every variant names the offending key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// A non-canonical key (`/timestamp`, `/urn`, `/meta/ts`, …).
    ForbiddenKey { pointer: String },
    /// An extension key that collides with a canonical key.
    Collision { pointer: String },
    /// The same extension key supplied twice.
    RepeatedKey { pointer: String },
    /// The URN is blank.
    BlankJob,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ForbiddenKey { pointer } => {
                write!(f, "refusing to encode forbidden key '{pointer}'")
            }
            Self::Collision { pointer } => {
                write!(f, "refusing to encode '{pointer}': it collides with a canonical key")
            }
            Self::RepeatedKey { pointer } => {
                write!(f, "refusing to encode '{pointer}': the key is supplied more than once")
            }
            Self::BlankJob => f.write_str("refusing to encode a blank 'job'"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Why `make` refused its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MakeError {
    /// The URN is empty or only ASCII whitespace.
    BlankUrn,
    /// The queue name is empty or only ASCII whitespace.
    BlankQueue,
}

impl fmt::Display for MakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BlankUrn => f.write_str("make needs a non-empty URN"),
            Self::BlankQueue => f.write_str("make needs a non-empty queue name"),
        }
    }
}

impl std::error::Error for MakeError {}

/// Parse `body` as one JSON object (last-wins on repeated keys, decoded order kept).
pub fn parse_object(body: &[u8]) -> Result<Map<String, Value>, DecodeError> {
    let latin1: String;
    let parsed = if fault::active(Fault::DecodeBytesAsLatin1) {
        latin1 = body.iter().copied().map(char::from).collect();
        serde_json::from_str::<Value>(&latin1)
    } else {
        serde_json::from_slice::<Value>(body)
    };
    match parsed {
        Ok(Value::Object(map)) => {
            Ok(if fault::active(Fault::DecodeFirstKeyWins) { fault::first_key_wins(body) } else { map })
        }
        Ok(_) => Err(DecodeError::NotAnObject),
        Err(e) => Err(DecodeError::NotJson(e.to_string())),
    }
}

/// Decode a body into an envelope plus warnings.
pub fn decode(body: &[u8]) -> Result<Decoded, DecodeError> {
    decode_object(parse_object(body)?)
}

/// Decode an already parsed JSON object.
pub fn decode_object(mut obj: Map<String, Value>) -> Result<Decoded, DecodeError> {
    if fault::active(Fault::DecodeKeysIgnoreCase) {
        obj = obj.into_iter().map(|(key, value)| (key.to_ascii_lowercase(), value)).collect();
    }
    let mut warnings = Vec::new();
    let job = resolve_identity(obj.shift_remove("job"), obj.shift_remove("urn"), &mut warnings)?;

    let trace_id = match obj.shift_remove("trace_id") {
        Some(Value::String(s)) if !is_blank(&s) => s,
        other => return Err(DecodeError::BadTraceId(other)),
    };
    let data = match obj.shift_remove("data") {
        Some(Value::Object(m)) => m,
        other => return Err(DecodeError::BadData(other)),
    };
    let meta = match obj.shift_remove("meta") {
        Some(Value::Object(m)) => decode_meta(m, &mut warnings)?,
        _ => return Err(DecodeError::BadMeta),
    };
    let attempts = match obj.shift_remove("attempts") {
        Some(v) => match as_integer(&v).and_then(|i| u64::try_from(i).ok()) {
            Some(n) => n,
            None => return Err(DecodeError::BadAttempts(Some(v))),
        },
        None => return Err(DecodeError::BadAttempts(None)),
    };
    let dead_letter = obj.shift_remove("dead_letter");
    let extras = unknown_keys(obj, "", &FORBIDDEN_TOP_LEVEL_KEYS, &mut warnings);

    Ok(Decoded { envelope: Envelope { job, trace_id, data, meta, attempts, dead_letter, extras }, warnings })
}

/// What is left of an object (the top level or `meta`) once its canonical keys are taken out:
/// every forbidden key is reported with a warning naming its pointer and left out, every other
/// key is kept, in decoded order, to be re-emitted.
fn unknown_keys(rest: Map<String, Value>, prefix: &str, forbidden: &[&str], warnings: &mut Vec<Warning>) -> Extras {
    let mut extras = Extras::default();
    for (key, value) in rest {
        if forbidden.contains(&key.as_str()) {
            let pointer = format!("{prefix}/{}", escape_token(&key));
            forbidden_key_warning(pointer, "non-canonical key ignored on decode and never re-emitted", warnings);
            if !fault::active(Fault::EmitForbiddenKeys) {
                continue;
            }
        }
        if !fault::active(Fault::DropUnknownKeys) {
            extras.push(key, value);
        }
    }
    extras
}

/// Report a non-canonical key that decode drops (message-envelope §10, ADR-0031 (c)).
fn forbidden_key_warning(pointer: String, message: &str, warnings: &mut Vec<Warning>) {
    if !fault::active(Fault::SilentForbiddenKeys) {
        warnings.push(Warning { pointer, message: message.to_owned() });
    }
}

/// The identity (resolved URN) of a parsed object under the decode rules, without the rest of
/// the envelope checks: what a consumer routes on before it validates the message.
pub fn identity_of(obj: &Map<String, Value>) -> Result<String, DecodeError> {
    resolve_identity(obj.get("job").cloned(), obj.get("urn").cloned(), &mut Vec::new())
}

fn resolve_identity(
    job: Option<Value>,
    urn: Option<Value>,
    warnings: &mut Vec<Warning>,
) -> Result<String, DecodeError> {
    let from_job = match job {
        Some(Value::String(s)) if !is_blank(&s) => Some(s),
        Some(Value::String(_)) | None => None,
        Some(other) => {
            if fault::active(Fault::StringifyNonStringJob) {
                Some(other.to_string())
            } else {
                warnings.push(Warning {
                    pointer: "/job".to_owned(),
                    message: format!("'job' is a {}, not a string: ignored", super::json::type_name(&other)),
                });
                None
            }
        }
    };
    if let Some(job) = from_job {
        if urn.is_some() {
            forbidden_key_warning(
                "/urn".to_owned(),
                "'urn' beside a usable 'job' is ignored and never re-emitted",
                warnings,
            );
        }
        return Ok(job);
    }
    match urn {
        Some(Value::String(s)) if !is_blank(&s) && !fault::active(Fault::NoUrnAlias) => Ok(s),
        Some(Value::String(_)) | None => Err(DecodeError::NoIdentity),
        Some(other) => {
            warnings.push(Warning {
                pointer: "/urn".to_owned(),
                message: format!("'urn' is a {}, not a string: ignored", super::json::type_name(&other)),
            });
            Err(DecodeError::NoIdentity)
        }
    }
}

fn decode_meta(mut m: Map<String, Value>, warnings: &mut Vec<Warning>) -> Result<Meta, DecodeError> {
    let version = m.shift_remove("schema_version");
    let is_v1 = version.as_ref().and_then(as_integer) == Some(i128::from(SCHEMA_VERSION));
    if !is_v1 && !fault::active(Fault::IgnoreSchemaVersion) {
        return Err(DecodeError::UnsupportedSchemaVersion(version));
    }
    let id = m.shift_remove("id");
    let queue = m.shift_remove("queue");
    let lang = m.shift_remove("lang");
    let created_at = m.shift_remove("created_at");
    let extras = unknown_keys(m, "/meta", &FORBIDDEN_META_KEYS, warnings);
    Ok(Meta { id, queue, lang, created_at, extras })
}

/// `accepts(envelope)`: is this body an acceptable envelope for this core?
pub fn accepts(body: &[u8]) -> bool {
    decode(body).is_ok()
}

/// Encode an envelope as compact canonical JSON.
pub fn encode(env: &Envelope) -> Result<String, EncodeError> {
    if is_blank(&env.job) {
        return Err(EncodeError::BlankJob);
    }
    let top_extras = checked_extras(&env.extras, "", &TOP_LEVEL_KEYS, &FORBIDDEN_TOP_LEVEL_KEYS)?;
    let meta_extras = checked_extras(&env.meta.extras, "/meta", &CORE_META_KEYS, &FORBIDDEN_META_KEYS)?;

    let (job, trace_id) = if fault::active(Fault::ReemitTrims) {
        (trim(&env.job), trim(&env.trace_id))
    } else {
        (env.job.as_str(), env.trace_id.as_str())
    };

    let mut out = String::with_capacity(256);
    out.push('{');
    let mut w = ObjectWriter::new(&mut out);
    w.entry("job", &Value::from(job));
    w.entry("trace_id", &Value::from(trace_id));
    if env.data.is_empty() && fault::active(Fault::EmptyDataAsArray) {
        w.raw("data", "[]");
    } else {
        w.entry("data", &env.data);
    }
    let mut meta = String::from("{");
    {
        let mut m = ObjectWriter::new(&mut meta);
        let version = Value::from(SCHEMA_VERSION);
        for (key, value) in [
            ("id", env.meta.id.as_ref()),
            ("queue", env.meta.queue.as_ref()),
            ("lang", env.meta.lang.as_ref()),
            ("schema_version", Some(&version)),
            ("created_at", env.meta.created_at.as_ref().filter(|_| !fault::active(Fault::EncodeWithoutCreatedAt))),
        ] {
            if let Some(value) = value {
                m.entry(key, value);
            }
        }
        for (key, value) in meta_extras {
            m.entry(key, value);
        }
    }
    meta.push('}');
    w.raw("meta", &meta);
    w.entry("attempts", &Value::from(env.attempts));
    if let Some(dl) = &env.dead_letter {
        w.entry("dead_letter", dl);
    }
    for (key, value) in top_extras {
        w.entry(key, value);
    }
    out.push('}');
    Ok(out)
}

/// The extras that may be written, in order; an error for the first one that may not.
fn checked_extras<'a>(
    extras: &'a Extras,
    prefix: &str,
    canonical: &[&str],
    forbidden: &[&str],
) -> Result<Vec<(&'a str, &'a Value)>, EncodeError> {
    let mut seen: Vec<&str> = Vec::new();
    let mut keep = Vec::new();
    for (key, value) in extras.iter() {
        let pointer = || format!("{prefix}/{}", escape_token(key));
        let err = if forbidden.contains(&key) && !fault::active(Fault::EncodeWritesForbiddenKeys) {
            Some(EncodeError::ForbiddenKey { pointer: pointer() })
        } else if canonical.contains(&key) {
            Some(EncodeError::Collision { pointer: pointer() })
        } else if seen.contains(&key) {
            Some(EncodeError::RepeatedKey { pointer: pointer() })
        } else {
            None
        };
        match err {
            Some(_) if fault::active(Fault::DropRejectedKeys) => continue,
            Some(e) => return Err(e),
            None => {
                seen.push(key);
                keep.push((key, value));
            }
        }
    }
    Ok(keep)
}

/// RFC 6901 escaping of one reference token.
fn escape_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Writes `"key":value` pairs separated by commas into an object being built.
struct ObjectWriter<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> ObjectWriter<'a> {
    fn new(out: &'a mut String) -> Self {
        Self { out, first: true }
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        push_json(self.out, key);
        self.out.push(':');
    }

    fn raw(&mut self, key: &str, json: &str) {
        self.key(key);
        self.out.push_str(json);
    }

    /// Member `key` with `value` in compact JSON (the bytes `Value`'s `Display` writes, without
    /// its formatting machinery or a copy of the value).
    fn entry<T: serde::Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        self.key(key);
        push_json(self.out, value);
    }
}

/// Append `value` as compact JSON. A `Value`, a string or a map of them always serializes (the
/// keys are strings), so the error arm cannot be taken; it writes nothing rather than panic.
fn push_json<T: serde::Serialize + ?Sized>(out: &mut String, value: &T) {
    if let Ok(json) = serde_json::to_string(value) {
        out.push_str(&json);
    }
}

/// The producer API: a new envelope for `urn` on `queue`.
///
/// `trace_id` continues a causal chain; `None` or a blank value mints a fresh one. `meta` holds
/// extension entries in order (a vendor block is the whole `ext` value); they are checked when
/// the envelope is encoded, so a forbidden, colliding or repeated key makes encode fail.
pub fn make(
    urn: &str,
    data: Map<String, Value>,
    queue: &str,
    trace_id: Option<&str>,
    meta: Vec<(String, Value)>,
) -> Result<Envelope, MakeError> {
    let urn = trim(urn);
    if is_blank(urn) {
        return Err(MakeError::BlankUrn);
    }
    if is_blank(queue) {
        return Err(MakeError::BlankQueue);
    }
    let trace_id = match trace_id.map(trim) {
        Some(t) if !t.is_empty() => t.to_owned(),
        _ => new_uuid(),
    };
    let mut extras = Extras::default();
    for (key, value) in meta {
        extras.push(key, value);
    }
    Ok(Envelope {
        job: urn.to_owned(),
        trace_id,
        data,
        meta: Meta {
            id: (!fault::active(Fault::MakeWithoutMetaId)).then(|| Value::String(new_uuid())),
            queue: Some(Value::String(queue.to_owned())),
            lang: Some(Value::String(LANG.to_owned())),
            created_at: Some(Value::from(if fault::active(Fault::MakeCreatedAtInSeconds) {
                now_ms() / 1000
            } else {
                now_ms()
            })),
            extras,
        },
        attempts: 0,
        dead_letter: None,
        extras: Extras::default(),
    })
}

/// A fresh random (v4) UUID in lowercase 8-4-4-4-12 form.
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().hyphenated().to_string()
}

/// Milliseconds since the Unix epoch, UTC.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ORDER: &str = r#"{"job":"urn:babel:orders:created","trace_id":"7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b","data":{"order_id":1042},"meta":{"id":"f1e2d3c4-b5a6-4789-90ab-cdef01234567","queue":"orders","lang":"php","schema_version":1,"created_at":1749132727000},"attempts":0}"#;

    fn with_body(patch: impl FnOnce(&mut Map<String, Value>)) -> Vec<u8> {
        let mut m: Map<String, Value> = serde_json::from_str(ORDER).unwrap();
        patch(&mut m);
        serde_json::to_vec(&m).unwrap()
    }

    #[test]
    fn canonical_envelope_roundtrips_byte_for_byte() {
        let d = decode(ORDER.as_bytes()).unwrap();
        assert!(d.warnings.is_empty());
        assert_eq!(encode(&d.envelope).unwrap(), ORDER);
    }

    #[test]
    fn repeated_keys_last_wins_never_merged() {
        let body = br#"{"job":"urn:a","data":{"a":1},"trace_id":"t","meta":{"schema_version":1},"attempts":0,"job":"urn:b","data":{"b":2}}"#;
        let env = decode(body).unwrap().envelope;
        assert_eq!(env.job, "urn:b");
        assert_eq!(Value::Object(env.data), json!({"b": 2}));
    }

    #[test]
    fn wrong_case_keys_are_unknown_keys() {
        let body = with_body(|m| {
            m.shift_remove("job");
            m.insert("JOB".into(), json!("urn:babel:orders:created"));
        });
        assert_eq!(decode(&body), Err(DecodeError::NoIdentity));

        let body = with_body(|m| {
            m.insert("Data".into(), json!({"x": 1}));
        });
        let env = decode(&body).unwrap().envelope;
        assert!(env.extras.iter().any(|(k, v)| k == "Data" && *v == json!({"x": 1})));
        let out: Value = serde_json::from_str(&encode(&env).unwrap()).unwrap();
        assert_eq!(out["Data"], json!({"x": 1}));
        assert_eq!(out["data"], json!({"order_id": 1042}));
    }

    #[test]
    fn unknown_keys_keep_decoded_order_after_canonical_ones() {
        let body = br#"{"zeta":1,"job":"urn:x","alpha":[],"trace_id":"t","data":{},"meta":{"z":{},"schema_version":1,"a":true},"attempts":2}"#;
        let env = decode(body).unwrap().envelope;
        assert_eq!(
            encode(&env).unwrap(),
            r#"{"job":"urn:x","trace_id":"t","data":{},"meta":{"schema_version":1,"z":{},"a":true},"attempts":2,"zeta":1,"alpha":[]}"#
        );
    }

    #[test]
    fn identity_rules() {
        // urn alone: no warning.
        let body = with_body(|m| {
            let job = m.shift_remove("job").unwrap();
            m.insert("urn".into(), job);
        });
        let d = decode(&body).unwrap();
        assert_eq!(d.envelope.job, "urn:babel:orders:created");
        assert!(d.warnings.is_empty());

        // blank ASCII job falls back to urn silently.
        let body = with_body(|m| {
            m.insert("job".into(), json!(" \u{0B}"));
            m.insert("urn".into(), json!("urn:u"));
        });
        let d = decode(&body).unwrap();
        assert_eq!((d.envelope.job.as_str(), d.warnings.len()), ("urn:u", 0));

        // a Unicode-space job is not blank: it wins and urn is dropped with a warning.
        let body = with_body(|m| {
            m.insert("job".into(), json!("\u{2003}"));
            m.insert("urn".into(), json!("urn:u"));
        });
        let d = decode(&body).unwrap();
        assert_eq!(d.envelope.job, "\u{2003}");
        assert_eq!(d.warnings[0].pointer, "/urn");

        // non-string job: ignored with a warning naming /job.
        for bad in [json!(null), json!(5), json!(true), json!({}), json!([])] {
            let body = with_body(|m| {
                m.insert("job".into(), bad.clone());
                m.insert("urn".into(), json!("urn:u"));
            });
            let d = decode(&body).unwrap();
            assert_eq!(d.envelope.job, "urn:u");
            assert_eq!(d.warnings.iter().map(|w| w.pointer.as_str()).collect::<Vec<_>>(), ["/job"]);
        }
        // non-string job and no urn: no identity.
        let body = with_body(|m| {
            m.insert("job".into(), json!(5));
        });
        assert_eq!(decode(&body).unwrap_err(), DecodeError::NoIdentity);
    }

    #[test]
    fn accepts_checks_the_five_conditions() {
        assert!(accepts(ORDER.as_bytes()));
        type Patch = Box<dyn Fn(&mut Map<String, Value>)>;
        let cases: Vec<Patch> = vec![
            Box::new(|m| {
                m["meta"]["schema_version"] = json!(2);
            }),
            Box::new(|m| {
                m["meta"]["schema_version"] = json!(true);
            }),
            Box::new(|m| {
                m["data"] = json!([1, 2]);
            }),
            Box::new(|m| {
                m["attempts"] = json!(1.5);
            }),
            Box::new(|m| {
                m["attempts"] = json!(-1);
            }),
            Box::new(|m| {
                m["trace_id"] = json!(" \t");
            }),
            Box::new(|m| {
                m["trace_id"] = json!(7);
            }),
            Box::new(|m| {
                m.shift_remove("meta");
            }),
        ];
        for (i, patch) in cases.iter().enumerate() {
            assert!(!accepts(&with_body(patch)), "case {i}");
        }
        assert!(!accepts(b"[1]"));
        assert!(!accepts(b"{"));
        assert!(accepts(&with_body(|m| {
            m["attempts"] = json!(2.0);
        })));
    }

    #[test]
    fn forbidden_keys_warn_and_are_not_reemitted() {
        let body = with_body(|m| {
            m.insert("timestamp".into(), json!(1749132727));
            m["meta"]["ts"] = json!(1);
            m["meta"]["attempts"] = json!(3);
        });
        let d = decode(&body).unwrap();
        let pointers: Vec<_> = d.warnings.iter().map(|w| w.pointer.as_str()).collect();
        assert_eq!(pointers, ["/meta/ts", "/meta/attempts", "/timestamp"]);
        let out: Value = serde_json::from_str(&encode(&d.envelope).unwrap()).unwrap();
        assert!(out.get("timestamp").is_none() && out["meta"].get("ts").is_none());
        assert_eq!(out["attempts"], json!(0));
    }

    #[test]
    fn encode_writes_non_ascii_and_slash_literally() {
        let mut data = Map::new();
        data.insert("t".into(), json!("Café/☕ <&>"));
        let env = make("urn:x", data, "q", None, vec![]).unwrap();
        let out = encode(&env).unwrap();
        assert!(out.contains(r#""t":"Café/☕ <&>""#), "{out}");
        assert!(!out.ends_with('\n'));
    }

    #[test]
    fn encode_refuses_forbidden_colliding_and_repeated_keys() {
        let base = make("urn:x", Map::new(), "q", None, vec![]).unwrap();
        let check = |patch: &dyn Fn(&mut Envelope), pointer: &str| {
            let mut env = base.clone();
            patch(&mut env);
            let err = encode(&env).unwrap_err();
            assert!(err.to_string().contains(pointer));
        };
        check(&|e| e.extras.push("timestamp", json!(1)), "/timestamp");
        check(&|e| e.extras.push("urn", json!("u")), "/urn");
        check(&|e| e.extras.push("data", json!({})), "/data");
        check(&|e| e.meta.extras.push("ts", json!(1)), "/meta/ts");
        check(&|e| e.meta.extras.push("id", json!("x")), "/meta/id");
        check(
            &|e| {
                e.meta.extras.push("ext", json!({}));
                e.meta.extras.push("ext", json!({}));
            },
            "/meta/ext",
        );
    }

    #[test]
    fn make_trims_only_ascii_whitespace_and_fills_the_envelope() {
        let env = make("\u{0B} urn:x\r\n", Map::new(), "orders", Some("\t t-1 "), vec![]).unwrap();
        assert_eq!(env.job, "urn:x");
        assert_eq!(env.trace_id, "t-1");
        assert_eq!((env.attempts, env.meta.lang()), (0, Some("rust")));
        let env = make("\u{A0}urn:x\u{3000}", Map::new(), "q", Some(" "), vec![]).unwrap();
        assert_eq!(env.job, "\u{A0}urn:x\u{3000}");
        assert_eq!(env.trace_id.len(), 36);
        assert_ne!(env.trace_id, env.meta.id().unwrap());
        assert!(env.meta.created_at().unwrap() > 1_700_000_000_000);
        assert_eq!(make(" \t", Map::new(), "q", None, vec![]), Err(MakeError::BlankUrn));
        let out = encode(&make("urn:x", Map::new(), "q", None, vec![]).unwrap()).unwrap();
        assert!(out.contains(r#""data":{}"#));
    }
}
