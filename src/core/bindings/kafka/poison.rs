//! Kafka poison classification (broker-bindings §6, ADR-0034 §10, decisions R16): what a consumer
//! does with a record value before it trusts it.
//!
//! Rules:
//!
//! * **poison** — the value is not exactly one strict RFC 8259 JSON object in valid UTF-8
//!   ([`crate::core::strict::strict_object`]): empty (or a tombstone), invalid UTF-8, a leading
//!   BOM, not JSON, a NaN / Infinity / -Infinity literal, a lone surrogate escape in a key or
//!   value, a JSON value that is not an object, or trailing data. The consumer routes it to the
//!   dead-letter topic.
//! * **no_identity** — a strict object without a usable identity under the decode rules
//!   ([`crate::core::envelope::identity_of`]): no non-blank string `job` and no non-blank string
//!   `urn`. A repeated top-level key is last-wins, so `{"job":"urn:x","job":5}` has no identity.
//! * **ok** — a strict object with an identity (`{"job":5,"job":"urn:x"}` is ok). This is only
//!   the classification: an ok body still goes through the normal decode and `accepts`, which may
//!   reject it (an unsupported `meta.schema_version`, a missing `trace_id`, a number too large to
//!   hold) without it being poison.
//!
//! The classification never builds the whole value tree: the strict check is a scan, and the
//! identity is read from the top-level `job` and `urn` members only, so neither nesting depth nor
//! an out-of-range number elsewhere in the body changes the verdict.

use std::fmt;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::core::envelope::identity_of;
use crate::core::strict::{NotStrict, strict_object};

/// What a record value is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classification {
    /// A strict object with this identity (resolved URN).
    Ok(String),
    /// A strict object without a usable `job` / `urn`.
    NoIdentity,
    /// Not one strict JSON object in valid UTF-8.
    Poison(NotStrict),
}

impl fmt::Display for Classification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ok(urn) => write!(f, "ok (identity {urn:?})"),
            Self::NoIdentity => f.write_str("no_identity"),
            Self::Poison(why) => write!(f, "poison ({why})"),
        }
    }
}

/// Classify a record value (`None` is a tombstone).
pub fn classify(value: Option<&[u8]>) -> Classification {
    let body = value.unwrap_or_default();
    if let Err(why) = strict_object(body) {
        return Classification::Poison(why);
    }
    // strict_object guarantees UTF-8 JSON text holding one object.
    let Ok(members) =
        std::str::from_utf8(body).map_err(drop).and_then(|t| serde_json::from_str::<Identity>(t).map_err(drop))
    else {
        return Classification::NoIdentity;
    };
    match identity_of(&members.0) {
        Ok(urn) => Classification::Ok(urn),
        Err(_) => Classification::NoIdentity,
    }
}

/// The last top-level `job` and `urn` members of an object; every other member is skipped
/// without being built.
struct Identity(Map<String, Value>);

impl<'de> Deserialize<'de> for Identity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Identity;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Identity, A::Error> {
                let mut out = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "job" || key == "urn" {
                        let raw: Box<RawValue> = map.next_value()?;
                        out.insert(key, member(raw.get()));
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Identity(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A `job` / `urn` member as a value. Only a string's content matters to identity, and a string
/// member always builds; a member of another type that cannot be built (too deep, a number out
/// of range) stands as `null`, a non-string that identity ignores like any other.
fn member(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's name for a verdict.
    fn name(c: &Classification) -> &'static str {
        match c {
            Classification::Ok(_) => "ok",
            Classification::NoIdentity => "no_identity",
            Classification::Poison(_) => "poison",
        }
    }

    fn verdict(body: &str) -> &'static str {
        name(&classify(Some(body.as_bytes())))
    }

    #[test]
    fn the_published_rows() {
        assert_eq!(verdict(r#"{"job":5}"#), "no_identity");
        assert_eq!(verdict(r#"{"job":"urn:x","job":5}"#), "no_identity");
        assert_eq!(classify(Some(br#"{"job":5,"job":"urn:x"}"#)), Classification::Ok("urn:x".into()));
    }

    #[test]
    fn poison_is_anything_but_one_strict_object() {
        for body in
            ["", "not json", "[1]", "\"urn:x\"", "null", "{} {}", "\u{FEFF}{}", r#"{"v":NaN}"#, r#"{"a":"\ud800"}"#]
        {
            assert_eq!(verdict(body), "poison", "{body:?}");
        }
        assert_eq!(name(&classify(None)), "poison");
        assert_eq!(name(&classify(Some(b"{\"job\":\"\xff\"}"))), "poison");
    }

    #[test]
    fn depth_and_big_numbers_do_not_change_the_verdict() {
        let deep = format!("{{\"job\":\"urn:x\",\"d\":{}{}}}", "[".repeat(600), "]".repeat(600));
        assert_eq!(verdict(&deep), "ok");
        let deep_job = format!("{{\"job\":{}{},\"urn\":\"urn:y\"}}", "[".repeat(600), "]".repeat(600));
        assert_eq!(classify(Some(deep_job.as_bytes())), Classification::Ok("urn:y".into()));
        assert_eq!(verdict(r#"{"job":1e400}"#), "no_identity");
        assert_eq!(verdict(r#"{"urn":"urn:x","data":1e400}"#), "ok");
        assert_eq!(verdict(r#"{"j\u006fb":"urn:x"}"#), "ok");
        assert_eq!(verdict(r#"{"JOB":"urn:x","job":" \t"}"#), "no_identity");
    }
}
