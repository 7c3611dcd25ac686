//! Section `poison_dlq` (scope core): the dead-letter record of a poison body (ADR-0035).
//!
//! Case: `{name, body | body_base64, expect: {shape: splice | wrapper | splice_or_wrapper,
//! record, splice_literals?, splice_keys?}}` — exactly one of `body` (the text) and
//! `body_base64` (standard padded base64 of the exact bytes; BQ307, BQ308); a
//! `splice_or_wrapper` case has non-empty string lists `splice_literals` and `splice_keys`.
//!
//! Runner: hand the body bytes to the SDK's poison writer as consumed from [`QUEUE`], then check
//! the record:
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
//! Top-level members are read with the tolerant scanner ([`top_level_members`]: no depth limit,
//! repeats kept), so records a value parser cannot hold (depth 600, `1e400`) are still checked.
//!
//! Cross-checks: a record that expects `raw_encoding: "base64"` has a body that really is
//! invalid UTF-8, and an invalid-UTF-8 body expects it (BQ823); the expectation agrees with the
//! body (BQ825): a wrapper record's `raw` is the body (its base64 for invalid UTF-8), a splice
//! body is a strict object without a top-level `dead_letter` that a re-encoding writer carries
//! losslessly and its record is the parsed body, and a splice_or_wrapper body is such an object
//! that writer cannot carry ([`body_shape`]), contains every splice literal and has exactly the
//! `splice_keys` as distinct top-level names.

use std::collections::BTreeSet;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::diag::{Code, Finding};
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::PoisonRecord;
use crate::sdk::reference::Broken;
use crate::sdk::wire::Bytes;
use crate::sections::judge::{first_difference, poison_record, same_value, strict_object, top_level_members};
use crate::sections::read::body_fields::{BODY, BODY_BASE64};
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Reader, RunCx, Version, catch, ensure, quoted, quoted_list};
use crate::suite::exact::{Number, every_number};
use crate::suite::{MANIFEST, Scope};

/// The queue the runner says it consumed the body from.
pub const QUEUE: &str = "conformance.poison";
/// The member name of the block.
const DEAD_LETTER: &str = "dead_letter";

/// The `poison_dlq` section.
pub struct PoisonDlq;

/// The record shape a case expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Splice,
    Wrapper,
    SpliceOrWrapper,
}

/// A poison_dlq case.
pub struct Case<'s> {
    body: Vec<u8>,
    shape: Shape,
    record: &'s Map<String, Value>,
    literals: Vec<&'s str>,
    keys: BTreeSet<&'s str>,
}

fn strings<'s>(r: &mut Reader<'s>, at: &crate::sections::Place<'s>, key: &str) -> Option<Vec<&'s str>> {
    let p = r.array(at, key)?;
    let list: Option<Vec<&str>> = p.value.as_array().and_then(|a| a.iter().map(Value::as_str).collect());
    match list {
        Some(l) if !l.is_empty() => {
            r.slot(&p, || {
                let mut wrong = p.value.as_array().cloned().unwrap_or_default();
                wrong.push(Value::from("bqsuite-wrong"));
                Value::Array(wrong)
            });
            Some(l)
        }
        _ => {
            r.problem(Code::CASE_SHAPE, &p.pointer, format!("{key} must be a non-empty list of strings"));
            None
        }
    }
}

impl Definition for PoisonDlq {
    const NAME: &'static str = "poison_dlq";
    const SINCE: Version = (1, 6, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 6, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[catch(
        Broken::PoisonReEncode,
        &[
            "exponent-underflow",
            "integer-beyond-uint64",
            "decimal-beyond-double",
            "repeated-top-level-name",
            "repeated-nested-name",
        ],
    )];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field { name: "name", ty: "string", meaning: "The case id." },
            Field {
                name: "description",
                ty: "string (optional)",
                meaning: "What the case pins and the spec sentence it tests, for people; not compared.",
            },
            BODY,
            BODY_BASE64,
            Field {
                name: "expect",
                ty: "object `{shape, record, splice_literals?, splice_keys?}`",
                meaning: "What the dead-letter record must be. `shape`: `splice` (the body, a strict object, plus `dead_letter`), `wrapper` (`{raw, raw_encoding?}` plus `dead_letter`) or `splice_or_wrapper` (either, for bodies a re-encoding writer cannot carry). `record`: the record with its `dead_letter` member removed, as parsed JSON (for a wrapper, `raw` is the body text, or for invalid UTF-8 its base64 with `raw_encoding` `base64`). `splice_literals` and `splice_keys` (`splice_or_wrapper` only, non-empty lists of strings): texts a splice record contains verbatim, and the set of its top-level member names besides `dead_letter`.",
            },
        ],
        steps: &[
            "Take the body's bytes (`body` as UTF-8, or `body_base64` decoded) and hand them to the SDK's poison dead-letter writer, as a body consumed from a queue the runner names (any name; bqsuite's runner uses `conformance.poison`). No broker is needed: the runner calls the writer and takes the record it would publish.",
            "Every record: it is exactly one strict RFC 8259 JSON object in valid UTF-8; it has exactly one top-level `dead_letter` member, whose `reason` is `poison` and whose `original_queue` is the queue the runner named (its other members, `error`, `exception`, `failed_at`, `attempts`, `lang`, are the writer's and their values are not compared, but the block has the producer schema's shape: `failed_at` an integer of epoch milliseconds ≥ 10^12 and < 10^13, `attempts` an integer ≥ 0, `error` and `exception` a string or null and `lang` a string when written); it contains U+FFFD, literal or as a `\\ufffd` escape in any case, only if the body does. A record without a top-level `raw` member is a splice, and a splice is byte for byte: the body's bytes unchanged, with `,\"dead_letter\":{…}` inserted before the body's final `}` (no comma after an empty body's `{`; whitespace around the comma, the name and the colon is free), so a writer that re-encodes the body, even to the same value, fails. A record with a top-level `raw` is the writer's wrapper, written as it likes.",
            "Read the record's top-level members with a tolerant scanner (no depth limit, repeated names kept, values left as text), remove `dead_letter`, and parse the rest (a repeated name: the last wins). `splice` and `wrapper`: that rest must be the same value as `expect.record` (a wrapper's member order and whitespace are the writer's; a splice's are the body's, by step 2).",
            "`splice_or_wrapper`: the case passes when the rest is the same value as `expect.record` (the wrapper), or when the record is a byte-level splice that passes three checks: the record text contains every `splice_literals` entry verbatim; it has no top-level `raw` or `raw_encoding`; its distinct top-level member names other than `dead_letter`, as a set, equal `splice_keys`. A writer that rounds a number, writes null or Infinity, or collapses a repeated name fails.",
            "Report `pass`, or `fail` with the first check that failed as `reason`; an error raised by the writer is a `fail` with its text.",
        ],
        operations: &["poison_record"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        let body = r.body(&at);
        let expect = r.field(&at, "expect", "an object")?;
        r.object(&expect)?;
        let shape = r.one_of(
            &expect,
            "shape",
            &[("splice", Shape::Splice), ("wrapper", Shape::Wrapper), ("splice_or_wrapper", Shape::SpliceOrWrapper)],
        );
        let record = r.map(&expect, "record");
        let (mut literals, mut keys) = (Vec::new(), BTreeSet::new());
        if shape == Some(Shape::SpliceOrWrapper) {
            literals = strings(r, &expect, "splice_literals")?;
            keys = strings(r, &expect, "splice_keys")?.into_iter().collect();
        } else {
            r.expects(&expect, "record");
        }
        Some(Case { body: body?, shape: shape?, record: record?, literals, keys })
    }

    fn check<'s>(_cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        for e in cases {
            let Some(c) = &e.typed else { continue };
            for (code, msg, suffix) in expectation_problems(c) {
                out.push(
                    Finding::error(code, format!("case {:?}: {msg}", e.case.id))
                        .in_file(MANIFEST)
                        .at(format!("{}{suffix}", e.case.pointer)),
                );
            }
        }
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        check(cx, case).into()
    }
}

/// A problem with one case: code, message, pointer suffix below the case.
type Problem = (Code, String, String);

fn expectation_problems(c: &Case<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    let utf8 = std::str::from_utf8(&c.body).ok();
    let marked = c.record.get("raw_encoding") == Some(&Value::from("base64"));
    if marked != utf8.is_none() {
        let msg = if marked {
            "expects raw_encoding \"base64\", but the body is valid UTF-8"
        } else {
            "the body is not valid UTF-8, but the record does not expect raw_encoding \"base64\""
        };
        out.push((Code::INVALID_UTF8_MARK, msg.into(), "/expect/record".into()));
    }
    let raw = Value::from(utf8.map_or_else(|| STANDARD.encode(&c.body), str::to_owned));
    if c.shape != Shape::Splice && c.record.get("raw") != Some(&raw) {
        out.push((
            Code::POISON_EXPECTATION,
            "the wrapper record's raw is not the body".into(),
            "/expect/record".into(),
        ));
    }
    let (shape, why) = body_shape(&c.body);
    let mismatch = match (c.shape, shape) {
        (want, got) if want == got => None,
        (Shape::Wrapper, _) => Some("the body can be spliced".to_owned()),
        (_, Shape::Wrapper) => Some(format!("the body is a wrapper: {why}")),
        (Shape::Splice, _) => Some(format!("the body may also be wrapped ({why}): its shape is splice_or_wrapper")),
        (_, _) => Some("a re-encoding writer carries the body losslessly: its shape is splice".to_owned()),
    };
    out.extend(mismatch.map(|m| (Code::POISON_EXPECTATION, m, "/expect/shape".to_owned())));
    // The body's distinct top-level names, when it can be spliced at all.
    let splice_names = match (shape, utf8) {
        (Shape::Splice | Shape::SpliceOrWrapper, Some(text)) => top_level_members(text)
            .ok()
            .map(|members| (text, members.into_iter().map(|(k, _)| k).collect::<BTreeSet<String>>())),
        _ => None,
    };
    match (c.shape, splice_names) {
        (Shape::Wrapper, _) | (_, None) => {}
        (Shape::Splice, Some((text, _))) => {
            let parsed: Option<Value> = serde_json::from_str(text).ok();
            if !parsed.is_some_and(|p| same_value(&p, &Value::Object(c.record.clone()))) {
                out.push((
                    Code::POISON_EXPECTATION,
                    "the splice record is not the parsed body".into(),
                    "/expect/record".into(),
                ));
            }
        }
        (Shape::SpliceOrWrapper, Some((text, names))) => {
            for (i, lit) in c.literals.iter().enumerate().filter(|(_, lit)| !text.contains(**lit)) {
                out.push((
                    Code::POISON_EXPECTATION,
                    format!("the body does not contain the splice literal {lit:?}"),
                    format!("/expect/splice_literals/{i}"),
                ));
            }
            let names: BTreeSet<&str> = names.iter().map(String::as_str).collect();
            if c.keys != names {
                out.push((
                    Code::POISON_EXPECTATION,
                    format!("splice_keys {:?} are not the body's top-level names {names:?}", c.keys),
                    "/expect/splice_keys".into(),
                ));
            }
        }
    }
    out
}

/// The record shape ADR-0035 gives a poison body, read from the body alone, with why when it
/// is not a plain splice: [`Shape::Wrapper`] for anything but a valid-UTF-8 strict JSON object
/// without a top-level `dead_letter` (the wrapper is for anything else); for such an object,
/// [`Shape::SpliceOrWrapper`] when a re-encoding writer cannot carry it losslessly (R13 and the
/// section's description: a number beyond a double or an int64 integer, `1e400`, `1e-400`, a
/// decimal beyond double precision, nesting a value parser refuses, a repeated member name),
/// otherwise [`Shape::Splice`]. This section's expectations are held to it (BQ825), and
/// redis_layout judges a poison record by it, so both rule the same bodies alike.
pub fn body_shape(body: &[u8]) -> (Shape, String) {
    let wrapper = |why: String| (Shape::Wrapper, why);
    let Ok(text) = std::str::from_utf8(body) else { return wrapper("it is not valid UTF-8".into()) };
    if let Err(e) = strict_object(body) {
        return wrapper(format!("it is not a strict object: {e}"));
    }
    match top_level_members(text) {
        Err(e) => return wrapper(e.to_string()),
        Ok(members) if members.iter().any(|(k, _)| k == DEAD_LETTER) => {
            return wrapper("it has a top-level dead_letter".into());
        }
        Ok(_) => {}
    }
    let either = |why: String| (Shape::SpliceOrWrapper, why);
    if let Err(e) = serde_json::from_slice::<Value>(body) {
        return either(format!("a value parser refuses it: {e}"));
    }
    let Some((numbers, repeated)) = every_number(body) else {
        return either("a value parser refuses it".into());
    };
    if let Some(at) = repeated.first() {
        return either(format!("{at} is a repeated member name, of which a re-encode keeps one"));
    }
    for (at, n, lit) in &numbers {
        let carried = if n.is_integer_literal() {
            lit.parse::<i64>().is_ok()
        } else {
            // What a double-based writer writes back: the shortest text of the nearest double.
            lit.parse::<f64>().is_ok_and(|f| f.is_finite() && Number::parse(&format!("{f:?}")).same_value(n))
        };
        if !carried {
            let at = if at.is_empty() { "the top" } else { at.as_str() };
            return either(format!("{at} is {lit}, which a re-encoding writer cannot write back exactly"));
        }
    }
    (Shape::Splice, String::new())
}

fn check(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let request = PoisonRecord { body: Bytes(case.body.clone()), original_queue: QUEUE.to_owned() };
    let record = cx.sdk.poison_record(request).map_err(|e| e.to_string())?;
    // One strict object with one `dead_letter` of ours, written as a splice byte for byte or a
    // wrapper the SDK's writing throughout.
    let (text, members) = poison_record(record.as_slice(), &case.body, QUEUE, None)?;
    ensure(!has_replacement(record.as_slice()) || has_replacement(&case.body), || {
        "the record contains U+FFFD that the body does not".into()
    })?;
    let want = Value::Object(case.record.clone());
    match case.shape {
        Shape::Splice | Shape::Wrapper => same_rest(&members, &want),
        Shape::SpliceOrWrapper => same_rest(&members, &want).or_else(|as_wrapper| {
            structural_splice(text, &members, case)
                .map_err(|as_splice| format!("neither the wrapper ({as_wrapper}) nor a splice ({as_splice})"))
        }),
    }
}

fn has_replacement(bytes: &[u8]) -> bool {
    let lower = String::from_utf8_lossy(bytes).to_ascii_lowercase();
    bytes.windows(3).any(|w| w == "\u{FFFD}".as_bytes()) || lower.contains("\\ufffd")
}

/// The record without `dead_letter`, parsed (last wins, as any JSON parser), equals `want`.
fn same_rest(members: &[(String, &RawValue)], want: &Value) -> Check {
    let mut rest = Map::new();
    for (k, raw) in members.iter().filter(|(k, _)| k != DEAD_LETTER) {
        // A member too deep for the judge's parser (past 128 levels) cannot be the expected
        // record, whose members all parse: say that, not only the parser's complaint.
        let v: Value = serde_json::from_str(raw.get())
            .map_err(|e| format!("member {} does not parse ({e}), so the record is not the expected one", quoted(k)))?;
        rest.insert(k.clone(), v);
    }
    let rest = Value::Object(rest);
    match first_difference(&rest, want) {
        None => Ok(()),
        // Where they differ, both sides cut short: a body of a thousand characters quoted whole
        // twice hid the one member that differed.
        Some((at, got, expected)) => {
            let side = |v: Option<&Value>| v.map_or_else(|| "absent".to_owned(), |v| short(&v.to_string(), 120));
            let at = if at.is_empty() { "the top".to_owned() } else { at };
            Err(format!(
                "the record without dead_letter differs at {at}: {}, expected {} (the record without dead_letter: {})",
                side(got),
                side(expected),
                short(&rest.to_string(), 200)
            ))
        }
    }
}

/// `s` cut to `max` characters, with `…` and the length when cut.
fn short(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n > max { format!("{}… ({n} characters)", s.chars().take(max).collect::<String>()) } else { s.to_owned() }
}

/// The three structural checks of a byte-level splice.
fn structural_splice(text: &str, members: &[(String, &RawValue)], case: &Case<'_>) -> Check {
    for lit in &case.literals {
        ensure(text.contains(lit), || format!("the record does not contain {} verbatim", short(&quoted(lit), 120)))?;
    }
    for forbidden in ["raw", "raw_encoding"] {
        ensure(members.iter().all(|(k, _)| k != forbidden), || format!("the splice has a top-level {}", quoted(forbidden)))?;
    }
    let names: BTreeSet<&str> = members.iter().map(|(k, _)| k.as_str()).filter(|k| *k != DEAD_LETTER).collect();
    ensure(names == case.keys, || format!("top-level names {}, expected {}", quoted_list(&names), quoted_list(&case.keys)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_spliced_wrapped_or_either_by_what_a_writer_can_carry() {
        let shape = |body: &str| body_shape(body.as_bytes()).0;
        for splice in [r#"{}"#, r#"{"data":{},"x":[],"big":9007199254740993,"f":0.1,"e":1e2,"z":-0}"#] {
            assert_eq!(shape(splice), Shape::Splice, "{splice}");
        }
        for either in [
            r#"{"v":1e400}"#,
            r#"{"v":1e-400}"#,
            r#"{"v":9223372036854775808}"#,
            r#"{"v":0.1000000000000000055511151231257827}"#,
            r#"{"d":{"k":1,"k":2}}"#,
        ] {
            assert_eq!(shape(either), Shape::SpliceOrWrapper, "{either}");
        }
        let deep = format!("{{\"d\":{}1{}}}", "[".repeat(600), "]".repeat(600));
        assert_eq!(shape(&deep), Shape::SpliceOrWrapper);
        for wrapper in ["", "not json", "[1]", r#"{"v":NaN}"#, r#"{"dead_letter":{}}"#] {
            assert_eq!(shape(wrapper), Shape::Wrapper, "{wrapper}");
        }
        assert_eq!(body_shape(b"{\"a\":\"\xff\"}").0, Shape::Wrapper);
    }
}
