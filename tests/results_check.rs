//! `bqsuite results check`: one test per finding code, each from a complete passing results file
//! (built from the canonical suite's own case ids) broken in one way; the verdict; the reference
//! run's output; the command line's exit codes and formats.

mod support;

use bqsuite::conformance::{self, RunOptions};
use bqsuite::diag::Finding;
use bqsuite::results::{Checker, FileCheck, Source, Verdict};
use bqsuite::suite::{Scope, Suite};
use serde_json::{Map, Value, json};
use support::{assert_finding, bqsuite, repo, transcript};

const FILE: &str = "results.json";

fn suite() -> Suite {
    Suite::load(repo()).expect("the canonical suite loads")
}

/// A complete results file in which every case passes: every core section plus the sections of
/// `bindings`, every case id from the suite's case-id rule.
fn passing(suite: &Suite, sdk: &str, bindings: &[&str]) -> Value {
    let mut sections = Map::new();
    for s in suite.sections() {
        let Some(scope) = s.scope else { continue };
        if scope == Scope::Core || bindings.contains(&scope.as_str()) {
            let cases: Map<String, Value> = s.cases().into_iter().map(|c| (c.id, json!({"status": "pass"}))).collect();
            sections.insert(s.name.to_owned(), Value::Object(cases));
        }
    }
    json!({
        "sdk": sdk,
        "version": "2.4.1",
        "conformance_version": suite.version().unwrap(),
        "generated_at": "2026-11-30T09:15:00Z",
        "bindings": bindings,
        "sections": sections,
    })
}

fn check_text(suite: &Suite, text: &[u8]) -> FileCheck {
    Checker::new(suite).expect("the suite can check results").check(&Source { file: FILE.into(), bytes: text.to_vec() })
}

fn check(suite: &Suite, v: &Value) -> FileCheck {
    check_text(suite, serde_json::to_string_pretty(v).unwrap().as_bytes())
}

fn codes(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.code.id).collect()
}

/// Check `v`, assert it is Not compatible with a finding `code` at `pointer`, located.
#[track_caller]
fn broken(v: &Value, code: &str, pointer: &str) -> FileCheck {
    let fc = check(&suite(), v);
    assert_eq!(fc.verdict(), Verdict::NotCompatible, "{:#?}", fc.findings);
    let f = assert_finding(&fc.findings, code, FILE, Some(pointer));
    assert!(f.span.is_some(), "line:column located: {f:?}");
    assert!(fc.reasons().iter().any(|r| r.starts_with(code)), "{:?}", fc.reasons());
    fc
}

#[test]
fn a_complete_passing_file_is_compatible() {
    let s = suite();
    for bindings in [&[][..], &["sqs"], &["redis", "sqs", "otel"]] {
        let fc = check(&s, &passing(&s, "babelqueue-python", bindings));
        assert!(fc.findings.is_empty(), "{bindings:?}: {:#?}", fc.findings);
        assert_eq!(fc.verdict(), Verdict::Compatible);
        assert!(fc.reasons().is_empty());
        assert_eq!(fc.family.as_deref(), Some("python"));
    }
}

#[test]
fn a_skip_citing_an_adr_in_an_in_scope_section_is_compatible() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-go", &["sqs"]);
    v["sections"]["sqs"]["attribute_projection"] =
        json!({"status": "skip", "reason": "not applicable to this transport (ADR-0031)"});
    let fc = check(&s, &v);
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
}

#[test]
fn the_reference_run_with_every_outcome_forced_to_pass_is_compatible() {
    let s = suite();
    let mut v = serde_json::to_value(conformance::run(&s, &RunOptions::default()).results).unwrap();
    for cases in v["sections"].as_object_mut().unwrap().values_mut() {
        for outcome in cases.as_object_mut().unwrap().values_mut() {
            *outcome = json!({"status": "pass"});
        }
    }
    let fc = check(&s, &v);
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
    assert_eq!(fc.verdict(), Verdict::Compatible);
}

/// `bqsuite run` output always passes `results check`: no shape, version, scope or id finding.
/// (Sections without a runner yet fail, so only failed-case findings may appear.)
#[test]
fn the_reference_run_output_passes_results_check() {
    let s = suite();
    // With a Redis the behavioural Redis cases run; without one they are skipped citing
    // ADR-0033, which results check accepts: either way the reference is Compatible.
    let options =
        RunOptions { redis_url: support::redis_url(), require_redis: support::redis_required(), ..Default::default() };
    let results = conformance::run(&s, &options).results;
    assert_eq!(results.counts(None).fail, 0, "the reference core passes every case");
    let fc = check_text(&s, results.to_json().as_bytes());
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
    assert_eq!(fc.verdict(), Verdict::Compatible);
}

#[test]
fn a_failing_case() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["sections"]["sqs"]["attempts_reconciliation/first-delivery"] =
        json!({"status": "fail", "reason": "expected 0, got 1"});
    let fc = broken(&v, "BQ612", "/sections/sqs/attempts_reconciliation~1first-delivery");
    assert_eq!(codes(&fc.findings), ["BQ612"]);
    assert!(fc.findings[0].message.contains("expected 0, got 1"));
}

#[test]
fn a_missing_case() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["cases"].as_object_mut().unwrap().shift_remove("urn-alias");
    let fc = broken(&v, "BQ608", "/sections/cases");
    assert_eq!(codes(&fc.findings), ["BQ608"]);
    assert!(fc.findings[0].message.contains("urn-alias"));
    assert_eq!(fc.missing_cases["cases"], ["urn-alias"]);
}

#[test]
fn an_unknown_case_id() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["sections"]["sqs"]["schema_version_gate/999"] = json!({"status": "pass"});
    let fc = broken(&v, "BQ609", "/sections/sqs/schema_version_gate~1999");
    assert_eq!(codes(&fc.findings), ["BQ609"]);
}

#[test]
fn a_skip_without_an_adr() {
    let s = suite();
    for outcome in [json!({"status": "skip", "reason": "our transport does not do this"}), json!({"status": "skip"})] {
        let mut v = passing(&s, "babelqueue-python", &[]);
        v["sections"]["cases"]["urn-alias"] = outcome;
        let fc = broken(&v, "BQ610", "/sections/cases/urn-alias");
        assert_eq!(codes(&fc.findings), ["BQ610"], "the schema's report of the same skip is superseded");
    }
}

#[test]
fn a_skip_in_an_out_of_scope_section() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["kafka"] = passing(&s, "x", &["kafka"])["sections"]["kafka"].clone();
    let first = v["sections"]["kafka"].as_object().unwrap().keys().next().unwrap().clone();
    v["sections"]["kafka"][&first] = json!({"status": "skip", "reason": "no Kafka here (ADR-0032)"});
    let fc = broken(&v, "BQ611", &format!("/sections/kafka/{}", first.replace('/', "~1")));
    assert_finding(&fc.findings, "BQ606", FILE, Some("/sections/kafka"));
}

#[test]
fn a_binding_under_an_exception() {
    let s = suite();
    // PHP has no conformant Azure Service Bus path (exceptions: php / asb / ADR-0021).
    let fc = check(&s, &passing(&s, "php-sdk", &["redis"]));
    assert!(fc.findings.is_empty(), "the exception respected: {:#?}", fc.findings);
    assert_eq!(fc.family.as_deref(), Some("php"));

    let v = passing(&s, "php-sdk", &["redis", "asb"]);
    let fc = broken(&v, "BQ604", "/bindings/1");
    let f = &fc.findings.iter().find(|f| f.code.id == "BQ604").unwrap().message;
    assert!(f.contains("ADR-0021") && f.contains("first token"), "the message states the family rule: {f}");
    // Its sections are out of scope, not required.
    assert_finding(&fc.findings, "BQ606", FILE, Some("/sections/asb"));
    assert_eq!(codes(&fc.findings), ["BQ604", "BQ606"]);
    // Another family may carry asb.
    let fc = check(&s, &passing(&s, "babelqueue-java-asb", &["asb"]));
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
}

#[test]
fn a_missing_required_section() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["sections"].as_object_mut().unwrap().shift_remove("sqs");
    let fc = broken(&v, "BQ605", "/sections");
    assert_eq!(codes(&fc.findings), ["BQ605"]);
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"].as_object_mut().unwrap().shift_remove("payload_schema");
    broken(&v, "BQ605", "/sections");
}

#[test]
fn an_out_of_scope_section_present() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["sections"]["pulsar"] = passing(&s, "x", &["pulsar"])["sections"]["pulsar"].clone();
    let fc = broken(&v, "BQ606", "/sections/pulsar");
    assert_eq!(codes(&fc.findings), ["BQ606"]);
}

#[test]
fn an_unknown_section() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["warp_drive"] = json!({"engage": {"status": "pass"}});
    let fc = broken(&v, "BQ607", "/sections/warp_drive");
    assert_eq!(codes(&fc.findings), ["BQ607"]);
}

#[test]
fn a_schema_violation() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["generated_at"] = json!("yesterday");
    let fc = broken(&v, "BQ602", "/generated_at");
    assert_eq!(codes(&fc.findings), ["BQ602"]);
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["cases"]["urn-alias"] = json!({"status": "passed"});
    broken(&v, "BQ602", "/sections/cases/urn-alias/status");
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["bindings"] = json!(["rabbitmq"]);
    broken(&v, "BQ602", "/bindings/0");
}

#[test]
fn a_version_mismatch() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["conformance_version"] = json!("1.5.0");
    v["sections"]["cases"].as_object_mut().unwrap().shift_remove("urn-alias");
    let fc = broken(&v, "BQ603", "/conformance_version");
    assert_eq!(codes(&fc.findings), ["BQ603"], "ids of another version are not checked");
    let m = &fc.findings[0].message;
    assert!(m.contains("ran suite 1.5.0") && m.contains(s.version().unwrap()), "{m}");
}

#[test]
fn a_file_that_is_not_json() {
    let s = suite();
    let fc = check_text(&s, b"{\n  \"sdk\": \"x\",\n  oops\n}\n");
    let f = assert_finding(&fc.findings, "BQ601", FILE, None);
    assert_eq!(f.span.map(|s| (s.line, s.column)), Some((3, 3)));
    assert_eq!(fc.verdict(), Verdict::NotCompatible);
    let fc = check_text(&s, b"{\"sdk\": \"\xff\"}");
    assert_finding(&fc.findings, "BQ601", FILE, None);
}

// --- the command line ---

fn write(dir: &std::path::Path, name: &str, v: &Value) -> String {
    std::fs::write(dir.join(name), serde_json::to_string_pretty(v).unwrap()).unwrap();
    name.to_owned()
}

#[test]
fn cli_exit_codes_and_verdict_lines() {
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let root = repo();
    let suite_arg = root.to_str().unwrap();
    let good = write(dir.path(), "good.json", &passing(&s, "babelqueue-go", &["sqs"]));
    let mut v = passing(&s, "babelqueue-node", &[]);
    v["sections"]["cases"]["urn-alias"] = json!({"status": "fail", "reason": "rejected"});
    let bad = write(dir.path(), "bad.json", &v);

    let o = bqsuite(dir.path(), &["results", "check", &good, "--suite", suite_arg]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("good.json: Compatible (babelqueue-go 2.4.1, suite 1.6.0)"), "{out}");

    let o = bqsuite(dir.path(), &["results", "check", &good, &bad, "--suite", suite_arg]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("error[BQ612 results-case-failed]: cases / urn-alias failed: rejected"), "{out}");
    assert!(out.contains("bad.json: Not compatible (babelqueue-node 2.4.1, suite 1.6.0): BQ612"), "{out}");

    let o = bqsuite(dir.path(), &["results", "check", &good, "missing.json", "--suite", suite_arg]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read missing.json"));
    assert!(o.stdout.is_empty(), "nothing checked when a file cannot be read");

    std::fs::write(dir.path().join("garbage.json"), "not json").unwrap();
    let o = bqsuite(dir.path(), &["results", "check", "garbage.json", "--suite", suite_arg, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "an unparsable file is a finding: {}", transcript(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["findings"][0]["code"], "BQ601");
    assert_eq!(doc["verdicts"][0]["verdict"], "Not compatible");
    assert_eq!(doc["verdicts"][0]["compatible"], false);

    let o = bqsuite(dir.path(), &["results", "check", &bad, "--suite", suite_arg, "--format", "github"]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("::error file=bad.json,line="), "{out}");
}

#[test]
fn cli_run_output_passes_results_check() {
    let dir = tempfile::tempdir().unwrap();
    let o = bqsuite(&repo(), &["run", "--out", dir.path().join("ref.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let o = bqsuite(&repo(), &["results", "check", dir.path().join("ref.json").to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", transcript(&o)));
    assert_eq!(doc["findings"], json!([]));
    assert_eq!(doc["verdicts"][0]["sdk"], "bqsuite-reference");
    assert_eq!(doc["verdicts"][0]["verdict"], "Compatible", "{doc:#}");
}
