//! Section `poison_dlq`: the dead-letter record of a poison body (ADR-0035).
//!
//! Runner: hand the body bytes (`body` as UTF-8, or `body_base64` decoded) to the reference
//! writer as consumed from [`QUEUE`], then check the record:
//!
//! * always — it is one strict JSON object in valid UTF-8; it has exactly one top-level
//!   `dead_letter`, whose `reason` is `poison` and whose `original_queue` is [`QUEUE`]; it
//!   contains no U+FFFD (literal or `\uFFFD`) unless the body does;
//! * `splice` / `wrapper` — the record without `dead_letter`, as parsed JSON, equals
//!   `expect.record` (same value, R4);
//! * `splice_or_wrapper` — either that, or a splice passing the spec's three structural checks:
//!   every `splice_literals` entry occurs verbatim, no top-level `raw` / `raw_encoding`, and the
//!   distinct top-level names other than `dead_letter` equal the set `splice_keys`.
//!
//! Top-level members are read with the tolerant scanner ([`crate::sections::judge::top_level_members`]: no
//! depth limit, repeats kept), so records a value parser cannot hold (depth 600, `1e400`) are
//! still checked.

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::core::envelope::now_ms;
use crate::core::poison::{self, DEAD_LETTER, Poison};
use crate::sections::judge::same_value;
use crate::sections::judge::strict_object;
use crate::suite::CaseRef;

use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The queue the runner says it consumed the body from.
pub const QUEUE: &str = "conformance.poison";

/// The `poison_dlq` runner.
pub struct PoisonDlq;

impl SectionRunner for PoisonDlq {
    fn run_case(&mut self, _: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        check(case.value).into()
    }
}

/// The body bytes of a case: `body` as UTF-8 text, or `body_base64` decoded (standard, padded).
pub fn body_bytes(case: &Value) -> Result<Vec<u8>, String> {
    match (case.get("body"), case.get("body_base64")) {
        (Some(Value::String(s)), None) => Ok(s.as_bytes().to_vec()),
        (None, Some(Value::String(b))) => STANDARD.decode(b).map_err(|e| format!("\"body_base64\" is not base64: {e}")),
        _ => Err("a case has exactly one of \"body\" and \"body_base64\", as a string".into()),
    }
}

fn check(case: &Value) -> Check {
    let body = body_bytes(case)?;
    let expect = fields::req(case, "expect")?;
    let shape = fields::str(expect, "shape")?;
    let record = fields::req(expect, "record")?;
    let out = poison::record(&body, &Poison { original_queue: QUEUE, failed_at_ms: now_ms(), error: None });
    let text = out.text.as_str();

    strict_object(text.as_bytes()).map_err(|e| format!("the record is not one strict JSON object: {e}"))?;
    let members =
        crate::sections::judge::top_level_members(text).map_err(|e| format!("the record cannot be scanned: {e}"))?;
    check_block(&members)?;
    ensure(!has_replacement(text.as_bytes()) || has_replacement(&body), || {
        "the record contains U+FFFD that the body does not".into()
    })?;

    match shape {
        "splice" | "wrapper" => same_rest(&members, record),
        "splice_or_wrapper" => same_rest(&members, record).or_else(|as_wrapper| {
            structural_splice(text, &members, expect)
                .map_err(|as_splice| format!("neither the wrapper ({as_wrapper}) nor a splice ({as_splice})"))
        }),
        other => Err(format!("unknown shape {other:?}")),
    }
}

fn has_replacement(bytes: &[u8]) -> bool {
    let lower = String::from_utf8_lossy(bytes).to_ascii_lowercase();
    bytes.windows(3).any(|w| w == "\u{FFFD}".as_bytes()) || lower.contains("\\ufffd")
}

/// Exactly one top-level `dead_letter`, with reason `poison` and our queue.
fn check_block(members: &[(String, &RawValue)]) -> Check {
    let blocks: Vec<_> = members.iter().filter(|(k, _)| k == DEAD_LETTER).collect();
    let [(_, raw)] = blocks[..] else {
        return Err(format!("the record has {} top-level dead_letter members, expected 1", blocks.len()));
    };
    let block: Value = serde_json::from_str(raw.get()).map_err(|e| format!("dead_letter does not parse: {e}"))?;
    let reason = block.get("reason");
    ensure(reason == Some(&Value::from("poison")), || {
        format!("dead_letter.reason is {reason:?}, expected \"poison\"")
    })?;
    let queue = block.get("original_queue");
    ensure(queue == Some(&Value::from(QUEUE)), || {
        format!("dead_letter.original_queue is {queue:?}, expected {QUEUE:?}")
    })
}

/// The record without `dead_letter`, parsed (last wins, as any JSON parser), equals `want`.
fn same_rest(members: &[(String, &RawValue)], want: &Value) -> Check {
    let mut rest = Map::new();
    for (k, raw) in members.iter().filter(|(k, _)| k != DEAD_LETTER) {
        let v: Value = serde_json::from_str(raw.get()).map_err(|e| format!("member {k:?} does not parse: {e}"))?;
        rest.insert(k.clone(), v);
    }
    let rest = Value::Object(rest);
    ensure(same_value(&rest, want), || format!("the record without dead_letter is {}, expected {want}", short(&rest)))
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 { format!("{}…", s.chars().take(200).collect::<String>()) } else { s }
}

/// The three structural checks of a byte-level splice.
fn structural_splice(text: &str, members: &[(String, &RawValue)], expect: &Value) -> Check {
    let literals = fields::array(expect, "splice_literals")?;
    ensure(!literals.is_empty(), || "splice_literals is empty".into())?;
    for lit in literals {
        let lit = lit.as_str().ok_or("a splice_literals entry is not a string")?;
        ensure(text.contains(lit), || format!("the record does not contain {lit:?} verbatim"))?;
    }
    for forbidden in ["raw", "raw_encoding"] {
        ensure(members.iter().all(|(k, _)| k != forbidden), || format!("the splice has a top-level {forbidden:?}"))?;
    }
    let names: BTreeSet<&str> = members.iter().map(|(k, _)| k.as_str()).filter(|k| *k != DEAD_LETTER).collect();
    let keys = fields::array(expect, "splice_keys")?;
    let want = keys
        .iter()
        .map(Value::as_str)
        .collect::<Option<BTreeSet<&str>>>()
        .ok_or("a splice_keys entry is not a string")?;
    ensure(names == want, || format!("top-level names {names:?}, expected {want:?}"))
}
