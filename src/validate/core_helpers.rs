//! Cross-checks of the core helper sections: every expectation re-derived independently.
//!
//! Rules:
//!
//! * `payload_schema`, `payload_schema_unicode` — each section's `schema` is compiled once with
//!   the `jsonschema` crate (Draft-07, formats not asserted) and every case's `valid` must equal
//!   its verdict on `data` (BQ820); a schema that does not compile or a case without `data` or a
//!   boolean `valid` is BQ821.
//! * `poison_dlq` — a case has exactly one of `body` / `body_base64`, a known `shape` and a
//!   `record` object, and a `splice_or_wrapper` case non-empty string lists `splice_literals` and
//!   `splice_keys` (BQ824); every `body_base64` is standard padded base64 (BQ822); a case whose
//!   record expects `raw_encoding: "base64"` has a body that really is invalid UTF-8, and an
//!   invalid-UTF-8 body expects it (BQ823); the expectation agrees with its body (BQ825): a
//!   wrapper record's `raw` is the body (its base64 for invalid UTF-8), a splice body is a
//!   strict object without a top-level `dead_letter` and its record is the parsed body, and a
//!   splice_or_wrapper body contains every splice literal and has exactly the `splice_keys` as
//!   distinct top-level names.
//! * `idempotency.sequences` — an `outcome` only on a `run`, and every `run` has `ok` or `throw`
//!   (BQ826); `expected_effects` is the number of `run` deliveries (decisions R6, BQ827); each
//!   `expect_effect` is what the seen-set rule gives after the deliveries before it (BQ828).
//! * `retry_backoff` — the inputs and expectation have the shape of decisions R14 (BQ829), and
//!   `expect_delay_ms` / the upper bound of `expect_delay_range_ms` equal `d(n)` computed in
//!   exact rational arithmetic (BQ830); multipliers must be binary fractions (at most 8
//!   fractional bits) so that every language's double arithmetic gives the same product.

use std::collections::{BTreeSet, HashSet};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::core::json::same_value;
use crate::core::poison::top_level_members;
use crate::core::strict::strict_object;
use crate::diag::{Code, Finding};
use crate::suite::{CaseRef, MANIFEST, pointer};

use super::Ctx;
use crate::schema::draft7;

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for section in ["payload_schema", "payload_schema_unicode"] {
        payload_schema(cx, section, &mut out);
    }
    let each = |name: &str, f: fn(&CaseRef<'_>, &mut Vec<Finding>), out: &mut Vec<Finding>| {
        for case in cx.cases(name) {
            f(case, out);
        }
    };
    each("poison_dlq", poison_case, &mut out);
    each("idempotency", idempotency_case, &mut out);
    each("retry_backoff", retry_case, &mut out);
    out
}

fn at(code: Code, msg: impl Into<String>, ptr: &str) -> Finding {
    Finding::error(code, msg).in_file(MANIFEST).at(ptr)
}

fn payload_schema(cx: &Ctx<'_>, name: &str, out: &mut Vec<Finding>) {
    let Some(section) = cx.suite.section(name) else { return };
    let base = pointer::join("", name);
    let Some(schema) = section.block.get("schema") else {
        out.push(at(Code::PAYLOAD_SCHEMA_CASE, format!("{name} has no \"schema\""), &base));
        return;
    };
    let validator = match draft7(schema) {
        Ok(v) => v,
        Err(e) => {
            out.push(at(
                Code::PAYLOAD_SCHEMA_CASE,
                format!("the schema does not compile: {e}"),
                &pointer::join(&base, "schema"),
            ));
            return;
        }
    };
    for case in cx.cases(name) {
        let (data, valid) = (case.value.get("data"), case.value.get("valid").and_then(Value::as_bool));
        let (Some(data), Some(valid)) = (data, valid) else {
            out.push(at(
                Code::PAYLOAD_SCHEMA_CASE,
                format!("case {:?} needs \"data\" and a boolean \"valid\"", case.id),
                &case.pointer,
            ));
            continue;
        };
        let verdict = validator.is_valid(data);
        if verdict != valid {
            let why = validator.iter_errors(data).map(|e| e.to_string()).collect::<Vec<_>>().join("; ");
            out.push(at(
                Code::PAYLOAD_SCHEMA_VERDICT,
                format!(
                    "case {:?} says valid: {valid}, but a Draft-07 validator says {verdict}{}",
                    case.id,
                    if why.is_empty() { String::new() } else { format!(" ({why})") }
                ),
                &pointer::join(&case.pointer, "valid"),
            ));
        }
    }
}

/// A problem with one case: code, message, pointer suffix below the case.
type Problem = (Code, String, String);

fn problem(code: Code, msg: impl Into<String>, suffix: &str) -> Problem {
    (code, msg.into(), suffix.to_owned())
}

fn poison_case(case: &CaseRef<'_>, out: &mut Vec<Finding>) {
    for (code, msg, suffix) in poison_problems(case.value) {
        out.push(at(code, format!("case {:?}: {msg}", case.id), &format!("{}{suffix}", case.pointer)));
    }
}

fn poison_problems(c: &Value) -> Vec<Problem> {
    let body = match (c.get("body"), c.get("body_base64")) {
        (Some(Value::String(s)), None) => s.as_bytes().to_vec(),
        (None, Some(Value::String(b))) => match STANDARD.decode(b) {
            Ok(bytes) => bytes,
            Err(e) => {
                return vec![problem(Code::BODY_BASE64, format!("not standard padded base64: {e}"), "/body_base64")];
            }
        },
        _ => return vec![problem(Code::POISON_CASE_SHAPE, "needs exactly one of body and body_base64, a string", "")],
    };
    let expect = c.get("expect").unwrap_or(&Value::Null);
    let shape = expect.get("shape").and_then(Value::as_str);
    let record = expect.get("record").filter(|r| r.is_object());
    let (Some(shape @ ("splice" | "wrapper" | "splice_or_wrapper")), Some(record)) = (shape, record) else {
        let msg = "needs expect.shape (splice, wrapper or splice_or_wrapper) and an expect.record object";
        return vec![problem(Code::POISON_CASE_SHAPE, msg, "")];
    };
    let mut out = Vec::new();
    let utf8 = std::str::from_utf8(&body).ok();
    let marked = record.get("raw_encoding") == Some(&Value::from("base64"));
    if marked != utf8.is_none() {
        let msg = if marked {
            "expects raw_encoding \"base64\", but the body is valid UTF-8"
        } else {
            "the body is not valid UTF-8, but the record does not expect raw_encoding \"base64\""
        };
        out.push(problem(Code::INVALID_UTF8_MARK, msg, "/expect/record"));
    }
    let raw = Value::from(utf8.map_or_else(|| STANDARD.encode(&body), str::to_owned));
    if shape != "splice" && record.get("raw") != Some(&raw) {
        out.push(problem(Code::POISON_EXPECTATION, "the wrapper record's raw is not the body", "/expect/record"));
    }
    // The body's distinct top-level names, when it can be spliced at all.
    let splice_names = utf8.ok_or_else(|| "it is not valid UTF-8".to_owned()).and_then(|text| {
        strict_object(&body).map_err(|e| format!("it is not a strict object: {e}"))?;
        let names: BTreeSet<String> =
            top_level_members(text).map_err(|e| e.to_string())?.into_iter().map(|(k, _)| k).collect();
        if names.contains("dead_letter") { Err("it has a top-level dead_letter".into()) } else { Ok((text, names)) }
    });
    match (shape, splice_names) {
        ("wrapper", Ok(_)) => out.push(problem(Code::POISON_EXPECTATION, "the body can be spliced", "/expect/shape")),
        ("wrapper", Err(_)) => {}
        (_, Err(why)) => {
            out.push(problem(Code::POISON_EXPECTATION, format!("the body is a wrapper: {why}"), "/expect/shape"))
        }
        ("splice", Ok((text, _))) => {
            let parsed: Option<Value> = serde_json::from_str(text).ok();
            if !parsed.is_some_and(|p| same_value(&p, record)) {
                out.push(problem(
                    Code::POISON_EXPECTATION,
                    "the splice record is not the parsed body",
                    "/expect/record",
                ));
            }
        }
        (_, Ok((text, names))) => out.extend(splice_expectation(text, &names, expect)),
    }
    out
}

/// splice_or_wrapper: every literal occurs in the body, and the keys are its top-level names.
fn splice_expectation(text: &str, names: &BTreeSet<String>, expect: &Value) -> Vec<Problem> {
    let strings = |k: &str| -> Option<Vec<&str>> {
        let list = expect.get(k)?.as_array().filter(|a| !a.is_empty())?;
        list.iter().map(Value::as_str).collect()
    };
    let (Some(literals), Some(keys)) = (strings("splice_literals"), strings("splice_keys")) else {
        let msg = "needs non-empty string lists splice_literals and splice_keys";
        return vec![problem(Code::POISON_CASE_SHAPE, msg, "")];
    };
    let mut out = Vec::new();
    for (i, lit) in literals.iter().enumerate() {
        if !text.contains(lit) {
            let msg = format!("the body does not contain the splice literal {lit:?}");
            out.push(problem(Code::POISON_EXPECTATION, msg, &format!("/expect/splice_literals/{i}")));
        }
    }
    let want: BTreeSet<String> = keys.into_iter().map(str::to_owned).collect();
    if &want != names {
        let msg = format!("splice_keys {want:?} are not the body's top-level names {names:?}");
        out.push(problem(Code::POISON_EXPECTATION, msg, "/expect/splice_keys"));
    }
    out
}

fn idempotency_case(case: &CaseRef<'_>, out: &mut Vec<Finding>) {
    if case.sub != Some("sequences") {
        return;
    }
    let Some(deliveries) = case.value.get("deliveries").and_then(Value::as_array) else { return };
    let mut seen = HashSet::new();
    let mut runs = 0u64;
    for (i, d) in deliveries.iter().enumerate() {
        let dptr = format!("{}/deliveries/{i}", case.pointer);
        let id = d.get("meta_id").and_then(Value::as_str).unwrap_or_default();
        let effect = d.get("expect_effect").and_then(Value::as_str);
        let outcome = d.get("outcome");
        match (effect, outcome) {
            (Some("skip"), Some(_)) => out.push(at(
                Code::IDEMPOTENCY_OUTCOME,
                "an outcome on a skipped delivery: the handler does not run",
                &pointer::join(&dptr, "outcome"),
            )),
            (Some("run"), o) if !matches!(o.and_then(Value::as_str), Some("ok" | "throw")) => {
                out.push(at(Code::IDEMPOTENCY_OUTCOME, "a run delivery needs outcome \"ok\" or \"throw\"", &dptr));
            }
            _ => {}
        }
        if d.get("forget_before").and_then(Value::as_bool) == Some(true) {
            seen.remove(id);
        }
        let derived = if !id.is_empty() && seen.contains(id) { "skip" } else { "run" };
        if effect != Some(derived) {
            out.push(at(
                Code::IDEMPOTENCY_EFFECT,
                format!("delivery {i} of {:?} expects {effect:?}, the seen-set rule gives {derived:?}", case.id),
                &pointer::join(&dptr, "expect_effect"),
            ));
        }
        if effect == Some("run") {
            runs += 1;
        }
        if derived == "run" && outcome == Some(&Value::from("ok")) && !id.is_empty() {
            seen.insert(id);
        }
    }
    let expected = case.value.get("expected_effects");
    if expected.and_then(Value::as_u64) != Some(runs) {
        out.push(at(
            Code::IDEMPOTENCY_EFFECTS,
            format!(
                "expected_effects is {}, but {runs} deliveries run (every run counts, R6)",
                expected.unwrap_or(&Value::Null)
            ),
            &pointer::join(&case.pointer, "expected_effects"),
        ));
    }
}

/// A multiplier as `p / 2^k` with at most 8 fractional bits.
fn binary_fraction(m: f64) -> Option<(u128, u32)> {
    (0..=8).find_map(|k| {
        let scaled = m * f64::from(1u32 << k);
        (scaled.fract() == 0.0 && scaled < 1e18).then_some((scaled as u128, k))
    })
}

/// `floor(min(max, base × (p/2^k)^(n−1)))` exactly; `None` when it outgrows 128 bits.
fn exact_delay(base: u64, (p, k): (u128, u32), max: u64, n: u64) -> Option<u128> {
    let cap = |x: u128| if max > 0 { x.min(u128::from(max)) } else { x };
    let (mut num, mut shift) = (u128::from(base), 0u32);
    for _ in 1..n {
        if max > 0 && (num >> shift) >= u128::from(max) {
            break; // the factor is >= 1: the cap is reached for good
        }
        num = num.checked_mul(p)?;
        shift += k;
        if shift > 100 {
            return None;
        }
    }
    Some(cap(num >> shift))
}

fn retry_case(case: &CaseRef<'_>, out: &mut Vec<Finding>) {
    let c = case.value;
    let bad = |msg: &str, key: &str| {
        at(Code::RETRY_BACKOFF_CASE, format!("case {:?}: {msg}", case.id), &pointer::join(&case.pointer, key))
    };
    let int = |k: &str| c.get(k).and_then(Value::as_u64);
    let Some(base) = int("retry_backoff") else {
        return out.push(bad("retry_backoff must be a non-negative integer (ms)", "retry_backoff"));
    };
    let multiplier = match c.get("multiplier") {
        None => Some((1, 0)),
        Some(m) => match m.as_f64().filter(|m| *m >= 1.0) {
            None => return out.push(bad("multiplier must be a number >= 1", "multiplier")),
            Some(m) => binary_fraction(m),
        },
    };
    let Some(multiplier) = multiplier else {
        return out.push(bad(
            "multiplier must be a binary fraction (at most 8 fractional bits) so double arithmetic is exact",
            "multiplier",
        ));
    };
    let max = match c.get("max") {
        None => 0,
        Some(m) => match m.as_u64() {
            Some(m) => m,
            None => return out.push(bad("max must be a non-negative integer (ms)", "max")),
        },
    };
    let Some(n) = int("n").filter(|n| *n >= 1) else {
        return out.push(bad("n must be an integer >= 1 (the first retry is 1)", "n"));
    };
    let (at_ptr, got) = match c.get("jitter").and_then(Value::as_str) {
        Some("none") => match int("expect_delay_ms") {
            Some(d) => (pointer::join(&case.pointer, "expect_delay_ms"), d),
            None => {
                return out.push(bad("jitter none needs expect_delay_ms (a non-negative integer)", "expect_delay_ms"));
            }
        },
        Some("full") => match c.get("expect_delay_range_ms").and_then(Value::as_array).map(Vec::as_slice) {
            Some([lo, hi]) if lo.as_u64() == Some(0) && hi.as_u64().is_some() => (
                format!("{}/1", pointer::join(&case.pointer, "expect_delay_range_ms")),
                hi.as_u64().unwrap_or_default(),
            ),
            _ => return out.push(bad("jitter full needs expect_delay_range_ms [0, d(n)]", "expect_delay_range_ms")),
        },
        _ => return out.push(bad("jitter must be \"none\" or \"full\"", "jitter")),
    };
    if let Some(d) = exact_delay(base, multiplier, max, n)
        && d != u128::from(got)
    {
        out.push(at(
            Code::RETRY_BACKOFF_EXPECTATION,
            format!("case {:?}: d({n}) is {d} ms, the case says {got}", case.id),
            &at_ptr,
        ));
    }
}
