//! The broker-binding sections catch real bugs: the reference core passes every case of them,
//! and each broken variant (the real core with one behaviour switched by `core::fault`) fails at
//! least one case of the section that pins that behaviour.

use bqsuite::conformance::{self, RunOptions};
use bqsuite::core::fault::{self, Fault};
use bqsuite::suite::Suite;

const SECTIONS: [&str; 9] =
    ["sqs", "delay", "asb", "pulsar", "kafka", "backoff", "kafka_poison", "artemis", "rabbitmq"];
const GATES: [&str; 5] = ["sqs", "asb", "pulsar", "kafka", "artemis"];

fn suite() -> Suite {
    Suite::load(env!("CARGO_MANIFEST_DIR")).expect("the canonical suite loads")
}

/// The failing case ids of `sections`, as `section:id`.
fn failures(suite: &Suite, sections: &[&str]) -> Vec<String> {
    let options = RunOptions { only: sections.iter().map(|s| (*s).to_owned()).collect(), ..RunOptions::default() };
    let results = conformance::run(suite, &options);
    let mut out = Vec::new();
    for (section, cases) in &results.sections {
        for (id, outcome) in cases.as_object().expect("a section is an object") {
            if outcome["status"] != "pass" {
                out.push(format!("{section}:{id}"));
            }
        }
    }
    out
}

/// Run `sections` with `fault` on and return the failures (which must not be empty).
#[track_caller]
fn caught(fault: Fault, sections: &[&str]) -> Vec<String> {
    let suite = suite();
    let failed = fault::with(fault, || failures(&suite, sections));
    assert!(!failed.is_empty(), "{fault:?} passed every case of {sections:?}");
    failed
}

#[test]
fn the_reference_core_passes_every_binding_case() {
    let suite = suite();
    assert_eq!(failures(&suite, &SECTIONS), Vec::<String>::new());
    let results =
        conformance::run(&suite, &RunOptions { only: SECTIONS.map(String::from).to_vec(), ..Default::default() });
    for s in SECTIONS {
        let c = results.counts(Some(s));
        assert!(c.pass > 0 && c.fail == 0 && c.skip == 0, "{s}: {c}");
    }
}

#[test]
fn a_gate_that_trims_fails_every_gate_table() {
    let failed = caught(Fault::Named("gate-trims"), &GATES);
    for s in GATES {
        assert!(failed.contains(&format!("{s}:schema_version_gate/9")), "{s}: \" 1\" must reject; {failed:?}");
    }
}

#[test]
fn a_gate_with_a_unicode_blank_check_fails_every_gate_table() {
    let failed = caught(Fault::Named("gate-unicode-blank"), &GATES);
    for s in GATES {
        // Row 12 is NBSP, row 14 U+3000.
        assert!(failed.contains(&format!("{s}:schema_version_gate/12")), "{s}: {failed:?}");
        assert!(failed.contains(&format!("{s}:schema_version_gate/14")), "{s}: {failed:?}");
    }
}

#[test]
fn kafka_reconciliation_with_max_is_caught() {
    let failed = caught(Fault::Named("kafka-attempts-max"), &["kafka"]);
    assert_eq!(failed, ["kafka:attempts_reconciliation/header-authoritative-overrides"]);
}

#[test]
fn sqs_reconciliation_without_minus_one_is_caught() {
    let failed = caught(Fault::Named("sqs-attempts-no-minus-one"), &["sqs"]);
    assert!(failed.contains(&"sqs:attempts_reconciliation/first-delivery".to_owned()), "{failed:?}");
    assert!(failed.contains(&"sqs:attempts_reconciliation/third-delivery".to_owned()), "{failed:?}");
}

#[test]
fn an_asb_gate_that_accepts_float_one_is_caught() {
    // Row 22 is {"value": 1.0, "value_type": "float", "expect": "reject"}.
    assert_eq!(caught(Fault::Named("asb-float-one-is-integral"), &GATES), ["asb:schema_version_gate/22"]);
}

#[test]
fn a_header_writer_that_stringifies_null_is_caught() {
    // Row 18 is the present-with-null row the 1.2.0 spec appends to the kafka gate.
    assert_eq!(caught(Fault::Named("kafka-header-null-stringified"), &["kafka"]), ["kafka:schema_version_gate/18"]);
}

#[test]
fn an_sqs_delay_that_clamps_instead_of_raising_is_caught() {
    let failed = caught(Fault::Named("sqs-delay-clamps"), &["delay"]);
    assert!(failed.contains(&"delay:send/standard-901-raises".to_owned()), "{failed:?}");
}

#[test]
fn a_requested_delay_that_reports_the_tier_delay_is_caught() {
    let failed = caught(Fault::Named("kafka-requested-delay-uses-tier"), &["backoff"]);
    assert!(failed.contains(&"backoff:requested_delay/below-first-tier".to_owned()), "{failed:?}");
    assert!(failed.iter().all(|f| f.starts_with("backoff:requested_delay/")), "the §6.5 rule is separate: {failed:?}");
}

#[test]
fn a_unicode_blank_identity_check_is_caught_by_kafka_poison() {
    let failed = caught(Fault::UnicodeWhitespace, &["kafka_poison"]);
    assert!(failed.contains(&"kafka_poison:unicode-space-job-is-an-identity".to_owned()), "{failed:?}");
}
