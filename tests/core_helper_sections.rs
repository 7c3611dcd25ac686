//! The core helper sections (payload_schema, payload_schema_unicode, idempotency, retry_backoff,
//! poison_dlq, traceparent) against the reference core: every case passes, and for each section
//! a reference core with one behaviour broken fails at least one case — the case named here.

mod support;

use bqsuite::conformance::{self, RunOptions};
use bqsuite::core::fault::{self, Fault};
use bqsuite::core::poison;
use bqsuite::suite::Suite;
use serde_json::Value;

const SECTIONS: [&str; 6] =
    ["payload_schema", "payload_schema_unicode", "idempotency", "retry_backoff", "poison_dlq", "traceparent"];

/// Run one section of the canonical suite; the ids of its failing cases, and how many ran.
fn failures(section: &str) -> (Vec<String>, usize) {
    let suite = Suite::load(support::repo()).expect("the suite loads");
    let results = conformance::run(&suite, &RunOptions { only: vec![section.to_owned()], ..RunOptions::default() });
    let cases = results.sections[section].as_object().expect("the section was run");
    let failed = cases.iter().filter(|(_, o)| o["status"] != "pass").map(|(id, o)| format!("{id}: {o}")).collect();
    (failed, cases.len())
}

#[test]
fn the_reference_core_passes_every_case() {
    for section in SECTIONS {
        let (failed, ran) = failures(section);
        assert!(ran > 0, "{section} has cases");
        assert!(failed.is_empty(), "{section}: {failed:#?}");
    }
}

#[test]
fn the_cli_run_of_the_six_sections_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("results.json");
    let mut args = vec!["run".to_owned(), "--out".to_owned(), out_file.display().to_string()];
    for s in SECTIONS {
        args.extend(["--section".to_owned(), s.to_owned()]);
    }
    let out = support::bqsuite(&support::repo(), &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(0), "{}", support::transcript(&out));
    let results: Value = serde_json::from_slice(&std::fs::read(out_file).unwrap()).unwrap();
    let mut ran: Vec<&str> = results["sections"].as_object().unwrap().keys().map(String::as_str).collect();
    ran.sort_unstable();
    let mut want = SECTIONS.to_vec();
    want.sort_unstable();
    assert_eq!(ran, want);
}

/// The writer splices the suite's own splice_or_wrapper bodies (depth 600, 1e400, …) at byte
/// level: the record is the body with exactly the dead_letter member inserted, nothing else.
#[test]
fn the_poison_writer_never_rewrites_a_byte_of_the_hard_bodies() {
    let suite = Suite::load(support::repo()).unwrap();
    let cases = suite.section("poison_dlq").unwrap().cases();
    let hard: Vec<_> = cases.iter().filter(|c| c.value["expect"]["shape"] == "splice_or_wrapper").collect();
    assert!(hard.iter().any(|c| c.id == "nesting-depth-600") && hard.iter().any(|c| c.id == "exponent-overflow"));
    let p = poison::Poison { original_queue: "q", failed_at_ms: 1, error: Some("e") };
    for case in hard {
        let body = case.value["body"].as_str().unwrap();
        let record = poison::record(body.as_bytes(), &p);
        assert_eq!(record.shape, poison::Shape::Splice, "{}", case.id);
        let close = body.rfind('}').unwrap();
        let (head, tail) = record.text.split_at(close);
        assert_eq!(head, &body[..close], "{}: bytes before the insertion changed", case.id);
        let inserted = tail.strip_suffix(&body[close..]).expect("the body's end is kept");
        let block = inserted.strip_prefix(",\"dead_letter\":").expect("exactly the dead_letter member is inserted");
        let block: Value = serde_json::from_str(block).unwrap();
        assert_eq!(block["reason"], "poison", "{}", case.id);
    }
}

/// Under `fault`, `section` fails at least `expected` (and so at least one case).
#[track_caller]
fn caught(fault: Fault, section: &str, expected: &[&str]) {
    let (failed, _) = fault::with(fault, || failures(section));
    assert!(!failed.is_empty(), "{fault}: no case of {section} failed");
    for id in expected {
        assert!(
            failed.iter().any(|f| f.starts_with(&format!("{id}: "))),
            "{fault}: {id} did not fail; failed: {failed:#?}"
        );
    }
}

#[test]
fn byte_length_min_length_is_caught() {
    caught(
        Fault::PayloadSchemaByteLength,
        "payload_schema_unicode",
        &["turkish-2cp-min3", "emoji-1cp-min2", "emoji-plus-ascii-2cp-min3"],
    );
}

#[test]
fn ignoring_additional_properties_is_caught() {
    caught(Fault::PayloadSchemaIgnoreAdditional, "payload_schema", &["invalid-additional-property"]);
}

#[test]
fn dedupe_on_trace_id_is_caught() {
    caught(
        Fault::IdempotencyTraceIdKey,
        "idempotency",
        &["dedup_key", "sequences/distinct-ids-each-run", "sequences/missing-id-fails-open"],
    );
}

#[test]
fn counting_retries_from_zero_is_caught() {
    caught(Fault::RetryNFromZero, "retry_backoff", &["first-retry-ignores-multiplier", "doubling-third-retry"]);
}

#[test]
fn a_re_encoding_poison_writer_is_caught() {
    caught(
        Fault::PoisonReEncode,
        "poison_dlq",
        &[
            "exponent-underflow",
            "integer-beyond-uint64",
            "decimal-beyond-double",
            "repeated-top-level-name",
            "repeated-nested-name",
        ],
    );
}

#[test]
fn a_traceparent_parser_taking_31_hex_ids_is_caught() {
    caught(Fault::TraceparentAccepts31Hex, "traceparent", &["trace-id-31-hex"]);
}
