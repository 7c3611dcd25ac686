//! The plain data the SDK interface is made of, beside the operations themselves: bytes,
//! ordered entries, AMQP-typed values, Kafka headers, and the small enums the spec names.
//!
//! Invariants: every type here is serde data that means the same in process and on a wire;
//! bytes travel as standard padded base64 (a body need not be UTF-8); an AMQP value keeps its
//! type and width (`{"type": "int", "value": 1}` is not `{"type": "long", "value": 1}`, a
//! `float` is never an integer); a key present with a null value is written as `null`, an
//! absent key is not written (Artemis properties, Kafka headers); ordered entries keep their
//! order and their repeats.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Exact bytes; standard padded base64 on the wire.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.0
    }
}

impl From<&[u8]> for Bytes {
    fn from(b: &[u8]) -> Self {
        Bytes(b.to_vec())
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(b: Vec<u8>) -> Self {
        Bytes(b)
    }
}

impl From<&str> for Bytes {
    fn from(s: &str) -> Self {
        Bytes(s.as_bytes().to_vec())
    }
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(&text).map(Bytes).map_err(|e| {
            // The value itself, shortened, so the message shows which member it was.
            let end = text.char_indices().nth(40).map_or(text.len(), |(i, _)| i);
            let more = if end < text.len() { "…" } else { "" };
            serde::de::Error::custom(format!(
                "{:?}{more} is not standard padded base64 ({e}){}",
                &text[..end],
                base64_hint(&text)
            ))
        })
    }
}

/// What the usual other encoders do differently, when `text` shows it: a MIME encoder's line
/// breaks, the URL-safe alphabet, no padding.
fn base64_hint(text: &str) -> &'static str {
    let alphabet = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '-' | '_' | '=' | '\n' | '\r' | ' ');
    if !text.chars().all(alphabet) {
        // The usual mistake: the bytes themselves, not their encoding.
        "; it is not base64 at all (the bytes themselves?): encode them"
    } else if text.contains(['\n', '\r']) {
        "; it has line breaks, as a MIME encoder writes: write it on one line"
    } else if text.contains(['-', '_']) {
        "; it uses the URL-safe alphabet (- and _): the protocol's is + and /"
    } else if !text.len().is_multiple_of(4) && !text.ends_with('=') {
        "; it has no = padding to a multiple of 4 characters"
    } else {
        ""
    }
}

impl JsonSchema for Bytes {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Bytes".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Exact bytes as standard base64 with padding (RFC 4648 §4); a body need not be UTF-8.",
            "type": "string",
            "contentEncoding": "base64",
            "pattern": "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
        })
    }
}

/// Ordered `[key, value]` entries (repeats allowed): `[["ext", {…}], ["ext", {…}]]`.
pub type Entries = Vec<(String, Value)>;

/// A decode warning: the message is accepted, but the key at `pointer` was ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Warning {
    /// RFC 6901 pointer of the key (`/timestamp`, `/meta/ts`, `/job`, `/urn`).
    #[serde(deserialize_with = "json_pointer")]
    #[schemars(extend("format" = "json-pointer"))]
    pub pointer: String,
    pub message: String,
}

/// A warning's pointer as an adapter wrote it, refused unless it is an RFC 6901 pointer: a key
/// named bare (`timestamp`) would otherwise only fail the cases that pin the warning, and pass
/// silently where warnings are not judged.
fn json_pointer<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let text = String::deserialize(d)?;
    // RFC 6901's syntax (`suite::pointer` parses it; the SDK layer does not reach up to suite).
    let why = if !text.is_empty() && !text.starts_with('/') {
        "must be empty or start with '/'"
    } else if text.split('~').skip(1).any(|after| !after.starts_with(['0', '1'])) {
        "has a '~' that is not '~0' or '~1'"
    } else {
        return Ok(text);
    };
    Err(serde::de::Error::custom(format!("pointer {text:?} {why} (RFC 6901: \"/timestamp\", \"/meta/ts\")")))
}

/// A dead-letter reason (message-envelope §10b).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeadLetterReason {
    Failed,
    UnknownUrn,
    Poison,
}

impl DeadLetterReason {
    /// Every reason.
    pub const ALL: [DeadLetterReason; 3] = [Self::Failed, Self::UnknownUrn, Self::Poison];

    /// The manifest spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Failed => "failed",
            Self::UnknownUrn => "unknown_urn",
            Self::Poison => "poison",
        }
    }
}

/// One AMQP-typed value (ASB application properties, RabbitMQ headers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", content = "value", rename_all = "lowercase")]
pub enum Amqp {
    Null,
    Boolean(bool),
    Ubyte(u8),
    Ushort(u16),
    Uint(u32),
    Ulong(u64),
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Char(char),
    /// Milliseconds since the Unix epoch.
    Timestamp(i64),
    /// 32 lowercase hex digits.
    Uuid(String),
    Binary(Bytes),
    String(String),
    Symbol(String),
}

impl Amqp {
    /// The value of an integer of any width; `None` for every other type.
    pub fn integral(&self) -> Option<i128> {
        Some(match *self {
            Self::Ubyte(n) => n.into(),
            Self::Ushort(n) => n.into(),
            Self::Uint(n) => n.into(),
            Self::Ulong(n) => n.into(),
            Self::Byte(n) => n.into(),
            Self::Short(n) => n.into(),
            Self::Int(n) => n.into(),
            Self::Long(n) => n.into(),
            _ => return None,
        })
    }

    /// The AMQP type name (the wire tag).
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Boolean(_) => "boolean",
            Self::Ubyte(_) => "ubyte",
            Self::Ushort(_) => "ushort",
            Self::Uint(_) => "uint",
            Self::Ulong(_) => "ulong",
            Self::Byte(_) => "byte",
            Self::Short(_) => "short",
            Self::Int(_) => "int",
            Self::Long(_) => "long",
            Self::Float(_) => "float",
            Self::Double(_) => "double",
            Self::Char(_) => "char",
            Self::Timestamp(_) => "timestamp",
            Self::Uuid(_) => "uuid",
            Self::Binary(_) => "binary",
            Self::String(_) => "string",
            Self::Symbol(_) => "symbol",
        }
    }
}

impl fmt::Display for Amqp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match serde_json::to_value(self).ok().and_then(|v| v.get("value").cloned()) {
            Some(v) => write!(f, "{}({v})", self.type_name()),
            None => f.write_str(self.type_name()),
        }
    }
}

/// One Kafka record header: bytes, or present with a null value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaHeader {
    pub key: String,
    pub value: Option<Bytes>,
}

impl KafkaHeader {
    /// A header holding the UTF-8 bytes of `text`.
    pub fn text(key: &str, text: &str) -> Self {
        Self { key: key.to_owned(), value: Some(Bytes::from(text)) }
    }
}

/// A Kafka record, produced or consumed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaRecord {
    pub topic: String,
    /// In order; a key may repeat.
    pub headers: Vec<KafkaHeader>,
    /// Unix milliseconds.
    #[serde(default)]
    pub timestamp: Option<i64>,
    /// `None` is a tombstone. Last, as every byte member of the protocol is, so that a traced
    /// line shows the short members before the long base64.
    pub value: Option<Bytes>,
}

/// An SQS message attribute, spelled as the SQS API (and the manifest) spells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SqsAttribute {
    #[serde(rename = "DataType")]
    pub data_type: String,
    #[serde(rename = "StringValue", default, skip_serializing_if = "Option::is_none")]
    pub string_value: Option<String>,
    #[serde(rename = "BinaryValue", default, skip_serializing_if = "Option::is_none")]
    pub binary_value: Option<Bytes>,
}

impl SqsAttribute {
    /// A `String` attribute.
    pub fn string(text: &str) -> Self {
        Self { data_type: "String".into(), string_value: Some(text.to_owned()), binary_value: None }
    }
}

/// The kind of an SQS queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SqsQueueKind {
    Standard,
    Fifo,
}

/// A Redis key layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedisLayout {
    /// The Laravel-compatible zset layout (broker-bindings §1.1).
    Zset,
    /// The legacy `:processing` layout (§1.7).
    Processing,
}

impl RedisLayout {
    /// Both layouts.
    pub const ALL: [RedisLayout; 2] = [RedisLayout::Zset, RedisLayout::Processing];

    /// The manifest spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RedisLayout::Zset => "zset",
            RedisLayout::Processing => "processing",
        }
    }
}

/// What a Redis key of a layout is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedisRole {
    Ready,
    Delayed,
    Reserved,
    Notify,
    Processing,
    Deadlines,
    Dlq,
}

impl RedisRole {
    /// Every role.
    pub const ALL: [RedisRole; 7] = [
        RedisRole::Ready,
        RedisRole::Delayed,
        RedisRole::Reserved,
        RedisRole::Notify,
        RedisRole::Processing,
        RedisRole::Deadlines,
        RedisRole::Dlq,
    ];

    /// The manifest spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RedisRole::Ready => "ready",
            RedisRole::Delayed => "delayed",
            RedisRole::Reserved => "reserved",
            RedisRole::Notify => "notify",
            RedisRole::Processing => "processing",
            RedisRole::Deadlines => "deadlines",
            RedisRole::Dlq => "dlq",
        }
    }
}

/// Which Redis queue an operation works on, and how: plain data, never a live handle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisTarget {
    /// The Redis to connect to.
    pub url: String,
    /// Prepended to every key (the case's own key space).
    pub prefix: String,
    pub queue: String,
    pub layout: RedisLayout,
    /// The consumer's reservation timeout in seconds; `null` = never expires.
    pub retry_after: Option<u64>,
    /// The clock for this step, epoch seconds; `null` = the SDK's own clock.
    pub now: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_warning_pointer_is_an_rfc_6901_pointer() {
        let read = |p: &str| serde_json::from_value::<Warning>(serde_json::json!({"pointer": p, "message": "m"}));
        for ok in ["", "/timestamp", "/meta/ts", "/a~0b/c~1d", "/"] {
            assert!(read(ok).is_ok(), "{ok:?}");
        }
        for (bad, says) in [("timestamp", "start with '/'"), ("/a~2", "'~0' or '~1'"), ("/a~", "'~0' or '~1'")] {
            let e = read(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }

    #[test]
    fn wire_forms() {
        assert_eq!(serde_json::to_value(Bytes(vec![0xff, 0xfe, 0xfd, 0])).unwrap(), json!("//79AA=="));
        assert_eq!(serde_json::from_value::<Bytes>(json!("//79AA==")).unwrap(), Bytes(vec![0xff, 0xfe, 0xfd, 0]));
        assert!(serde_json::from_value::<Bytes>(json!("//79AA")).is_err(), "padding is required");
        let e = serde_json::from_value::<Bytes>(json!("not base64!")).unwrap_err().to_string();
        assert!(e.starts_with("\"not base64!\" is not standard padded base64 ("), "{e}");
        // The other encoders' habits are named.
        for (text, hint) in [
            ("eyJhIjox\r\nfQ==", "it has line breaks, as a MIME encoder writes: write it on one line"),
            ("-_8=", "it uses the URL-safe alphabet (- and _): the protocol's is + and /"),
            ("MQ", "it has no = padding to a multiple of 4 characters"),
            (
                r#"{"job":"urn:x","trace_id":"7b3f-e41d"}"#,
                "it is not base64 at all (the bytes themselves?): encode them",
            ),
            ("{\n  \"job\": \"x\"\n}", "it is not base64 at all (the bytes themselves?): encode them"),
        ] {
            let e = serde_json::from_value::<Bytes>(json!(text)).unwrap_err().to_string();
            assert!(e.ends_with(hint), "{text}: {e}");
        }
        let long = "é".repeat(50);
        let e = serde_json::from_value::<Bytes>(json!(long)).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{:?}… is not", "é".repeat(40))), "shortened on a char boundary: {e}");
        assert_eq!(serde_json::to_value(Amqp::Int(1)).unwrap(), json!({"type": "int", "value": 1}));
        assert_eq!(serde_json::to_value(Amqp::Float(1.0)).unwrap(), json!({"type": "float", "value": 1.0}));
        assert_eq!(serde_json::to_value(Amqp::Null).unwrap(), json!({"type": "null"}));
        assert_eq!(serde_json::from_value::<Amqp>(json!({"type": "ulong", "value": 7})).unwrap(), Amqp::Ulong(7));
        let h = KafkaHeader { key: "k".into(), value: None };
        assert_eq!(serde_json::to_value(&h).unwrap(), json!({"key": "k", "value": null}));
        let e: Entries = vec![("ext".into(), json!(1)), ("ext".into(), json!(2))];
        assert_eq!(serde_json::to_value(&e).unwrap(), json!([["ext", 1], ["ext", 2]]));
        assert_eq!(Amqp::Long(3).to_string(), "long(3)");
    }
}
