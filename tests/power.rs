//! The suite's power (BQ316): edits that leave every case passable by the reference core but
//! stop a case catching a bug it caught are findings of `validate` and refusals of `release`.
//! Each edit here kept `validate` clean before BQ316 (the red-team reproductions of this round):
//! an expectation loosened (an emptied one is BQ308's, at the field), a published case removed with its fixture, a gate row inserted ahead
//! of the published ones, a Redis case's expectations dropped; and a published case no variant
//! fails renamed or removed (BQ317, which the recording's list of unprotected cases holds);
//! and, on a suite of the recorded version, any case's content changed where no variant shows
//! it (BQ318, which the recording's content fingerprints hold), and any rule of its skip policy
//! widened, added or dropped (BQ319, which the recording's rule fingerprints hold).
//!
//! The Redis half uses `BQ_REDIS_URL`, else a `redis-server` the test support starts, else it
//! skips and says so (a failure under `BQ_REQUIRE_REDIS`).

mod support;

use std::time::Duration;

use bqsuite::diag::Finding;
use bqsuite::validate::Options;
use serde_json::{Value, json};
use support::{SuiteCopy, bqsuite_env, transcript};

/// The findings of `code`, as (pointer, message) pairs, asserting there are no others.
fn only(findings: &[Finding], code: &str) -> Vec<(String, String)> {
    let other: Vec<_> = findings.iter().filter(|f| f.code.id != code).collect();
    assert!(other.is_empty(), "findings other than {code}: {other:#?}");
    findings.iter().map(|f| (f.pointer.clone().unwrap_or_default(), f.message.clone())).collect()
}

/// `validate` reports `what` (exit 1), and `release` refuses and writes nothing.
fn refused(s: &SuiteCopy, what: &str) {
    let o = bqsuite_env(s.path(), &["validate"], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains(what), "{}", transcript(&o));
    let out = tempfile::tempdir().unwrap();
    let o =
        bqsuite_env(s.path(), &["release", "--no-previous", "--out", out.path().join("dist").to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(1), "release refuses: {}", transcript(&o));
    assert!(!out.path().join("dist").exists(), "release wrote nothing");
}

fn case_mut<'m>(m: &'m mut Value, section: &str, name: &str) -> &'m mut Value {
    m[section]["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["name"] == name).unwrap()
}

#[test]
fn loosened_expectations_stop_catching_and_are_findings() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        // The extension key is the point of the case; the core keys it also lists stay.
        case_mut(m, "extension_write", "flat-scalar-key")["expect_envelope"]
            .as_object_mut()
            .unwrap()
            .shift_remove("/meta/vendor_flag");
    });
    let found = only(&s.validate(), "BQ316");
    let has = |ptr: &str, says: &str| found.iter().any(|(p, m)| p == ptr && m.contains(says));
    assert!(
        has("/extension_write/cases/0", "no longer catches the broken variant decode-drops-unknown-keys"),
        "{found:#?}"
    );
    refused(&s, "BQ316 catch-lost");
}

/// A poison splice's literals were the only thing that caught a re-encoding writer in some
/// cases, so loosening them lost the catch (BQ316). Since the judge holds every splice to the
/// byte-level rule (R13), the re-encode is caught whatever the literals say: the loosened case
/// is only changed content of the recorded version (BQ318), not a lost catch.
#[test]
fn a_poison_splice_is_held_byte_for_byte_whatever_its_literals_say() {
    support::assert_recording_current();
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        case_mut(m, "poison_dlq", "repeated-top-level-name")["expect"]["splice_literals"] = json!(["\"job\""]);
    });
    let found = only(&s.validate(), "BQ318");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].1.starts_with("poison_dlq/repeated-top-level-name differs from the case of the recorded suite"));
}

#[test]
fn a_published_case_removed_is_a_finding_once_per_case() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        let cases = m["forbidden_keys"]["cases"].as_array_mut().unwrap();
        let at = cases.iter().position(|c| c["name"] == "forbidden-key-meta-ts").unwrap();
        cases.remove(at);
    });
    s.remove("fixtures/forbidden-key-meta-ts.json");
    let found = only(&s.validate(), "BQ316");
    assert_eq!(found.len(), 1, "one finding for the case, naming every variant it caught: {found:#?}");
    let (ptr, msg) = &found[0];
    assert_eq!(ptr, "/forbidden_keys");
    assert!(msg.starts_with("forbidden_keys/forbidden-key-meta-ts is gone, and it caught"), "{msg}");
    assert!(msg.contains("decode-keeps-forbidden-keys"), "{msg}");
}

#[test]
fn a_published_case_no_variant_fails_cannot_be_renamed_or_dropped_away() {
    // decisions R1: published cases stay. These cases are failed by no broken variant, so BQ316
    // never held them; renamed or removed, validate stayed clean.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        case_mut(m, "traceparent", "absent-header")["name"] = json!("absent-header-kept");
        let dlq = m["poison_dlq"]["cases"].as_array_mut().unwrap();
        dlq.retain(|c| c["name"] != "nesting-depth-600");
        let release = m["delay"]["release"]["cases"].as_array_mut().unwrap();
        release.iter_mut().find(|c| c["name"] == "release-exactly-43200").unwrap()["name"] =
            json!("release-at-the-max");
    });
    let found = only(&s.validate(), "BQ317");
    let gone: Vec<_> = found.iter().map(|(p, m)| (p.as_str(), m.split(" is gone").next().unwrap_or(""))).collect();
    assert_eq!(
        gone,
        [
            ("/poison_dlq", "poison_dlq/nesting-depth-600"),
            ("/traceparent", "traceparent/absent-header"),
            ("/delay", "delay/release/release-exactly-43200"),
        ],
        "{found:#?}"
    );
    assert!(found[0].1.contains("published cases stay (decisions R1)"), "{found:#?}");
}

#[test]
fn a_block_emptied_is_the_blocks_finding_not_one_per_unprotected_case() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["delay"]["release"]["cases"] = json!([]));
    let codes: Vec<_> = s.validate().iter().map(|f| f.code.id).collect();
    assert_eq!(codes, ["BQ314"], "one finding for the emptied block");
}

#[test]
fn a_gate_row_inserted_ahead_of_the_published_ones_shifts_what_they_catch() {
    support::assert_recording_current();
    // decisions R2: append new rows at the end, never insert. Inserted at 0, every published
    // row's id moves by one, and the rows at the old ids no longer catch what those did.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["asb"]["schema_version_gate"]["cases"]
            .as_array_mut()
            .unwrap()
            .insert(0, json!({"value": "1", "expect": "decode"}))
    });
    let findings = s.validate();
    let other: Vec<_> = findings.iter().filter(|f| !["BQ316", "BQ318"].contains(&f.code.id)).collect();
    assert!(other.is_empty(), "{other:#?}");
    assert!(
        findings.iter().any(|f| f.code.id == "BQ316"
            && f.pointer.as_deref() == Some("/asb/schema_version_gate/cases/22")
            && f.message.contains("asb-float-one-is-integral")),
        "the float row's old id: {findings:#?}"
    );
    // Every published id now names another row: each one is a finding, a lost catch (BQ316)
    // where a variant shows it, a changed content (BQ318) where none does, never both.
    let mut at: Vec<String> = findings.iter().filter_map(|f| f.pointer.clone()).collect();
    at.sort();
    // The inserted row is the same as the published row 0, so id 0 keeps its content; the 23
    // published rows after it each moved.
    let mut want: Vec<String> = (1..=23).map(|i| format!("/asb/schema_version_gate/cases/{i}")).collect();
    want.sort();
    at.dedup();
    assert_eq!(at, want, "{findings:#?}");
    assert!(findings.iter().any(|f| f.code.id == "BQ318"), "{findings:#?}");
}

#[test]
fn the_canonical_suite_holds_its_recorded_power_offline() {
    let s = SuiteCopy::new();
    assert!(s.validate().is_empty());
}

#[test]
fn a_redis_case_emptied_is_caught_only_with_a_redis() {
    support::assert_recording_current();
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        let c = &mut m["redis_layout"]["reserve"]["cases"][0];
        c.as_object_mut().unwrap().shift_remove("expect");
        for step in c["steps"].as_array_mut().unwrap() {
            step.as_object_mut().unwrap().shift_remove("expect");
        }
    });
    // Offline the Redis cases are read, not run: the recorded content shows the edit all the same.
    let offline = only(&s.validate(), "BQ318");
    assert_eq!(offline.len(), 1, "{offline:#?}");
    assert_eq!(offline[0].0, "/redis_layout/reserve/cases/0");
    let Some(url) = support::redis_url() else { return };
    let live = s.validate_with(&Options { redis: Some((url, Duration::from_secs(5))), ..Default::default() });
    let found = only(&live.findings, "BQ316");
    assert!(!found.is_empty() && found.iter().all(|(p, _)| p == "/redis_layout/reserve/cases/0"), "{found:#?}");
    assert!(found.iter().any(|(_, m)| m.contains("redis-reserve-hands-member")), "{found:#?}");
}

/// The byte-exact fixtures and the traceparent fields the red team normalised away (P07, P02i):
/// each edit keeps the case passable and its expectation true, but the case stops testing its
/// point, and the variant it was written against passes it.
#[test]
fn normalised_fixtures_and_dropped_header_fields_stop_catching() {
    let s = SuiteCopy::new();
    let rewrite = |rel: &str, edit: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let mut v: Value = serde_json::from_str(&s.read(rel)).unwrap();
        edit(v.as_object_mut().unwrap());
        s.write(rel, serde_json::to_string_pretty(&v).unwrap());
    };
    // P07a: a JSON tool collapses the repeated job and data to their last values.
    rewrite("fixtures/duplicate-keys-last-wins.json", &|_| {});
    // P07b: the wrongly cased key goes; the fixture still has no identity.
    rewrite("fixtures/invalid-wrong-case-job.json", &|o| {
        o.shift_remove("JOB");
    });
    // P07c: the non-ASCII title written as \u escapes: the same string, no multi-byte UTF-8.
    let ascii: String = s
        .read("fixtures/unicode-and-numbers.json")
        .chars()
        .map(|c| if c.is_ascii() { c.to_string() } else { format!("\\u{:04x}", c as u32) })
        .collect();
    assert!(!ascii.contains('\u{2615}') && ascii.contains("\\u2615"), "the title has a BMP character to escape");
    s.write("fixtures/unicode-and-numbers.json", ascii);
    // P02i: the header case no longer says which span id and flags the header gives.
    s.edit_manifest(|m| {
        let expect = case_mut(m, "traceparent", "valid-header-wins")["expect"].as_object_mut().unwrap();
        expect.shift_remove("parent_span_id");
        expect.shift_remove("trace_flags");
    });
    let found = only(&s.validate(), "BQ316");
    let named = |variant: &str| -> Vec<&str> {
        found
            .iter()
            .filter(|(_, m)| m.contains(&format!("broken variant {variant}")))
            .map(|(p, _)| p.as_str())
            .collect()
    };
    let cases = |name: &str| {
        let m: Value = serde_json::from_str(&s.read("manifest.json")).unwrap();
        let at = m["cases"].as_array().unwrap().iter().position(|c| c["name"] == name).unwrap();
        format!("/cases/{at}")
    };
    assert_eq!(named("decode-first-key-wins"), [cases("duplicate-keys-last-wins")], "{found:#?}");
    assert_eq!(named("decode-keys-ignore-case"), [cases("invalid-wrong-case-job")], "{found:#?}");
    assert_eq!(named("decode-bytes-as-latin1"), [cases("unicode-and-numbers")], "{found:#?}");
    assert_eq!(named("traceparent-fallback-span-id"), ["/traceparent/cases/0"], "{found:#?}");
    assert_eq!(named("traceparent-flags-always-sampled"), Vec::<&str>::new(), "the unsampled case still catches it");
}

/// The stop-38 reproductions: values weakened in cases no broken variant fails kept validate
/// clean before the version's tag. Each is now a finding of its case (BQ318), and release
/// refuses; prose, white space and key order are not content.
#[test]
fn a_case_no_variant_fails_keeps_its_recorded_content() {
    support::assert_recording_current();
    let s = SuiteCopy::new();
    assert!(s.validate().is_empty(), "the canonical suite has its recorded content");
    s.edit_manifest(|m| {
        let release = m["delay"]["release"]["cases"].as_array_mut().unwrap();
        let c = release.iter_mut().find(|c| c["name"] == "release-exactly-43200").unwrap();
        c["delay_seconds"] = json!(30000);
        c["expect_visibility_timeout"] = json!(30000);
        case_mut(m, "retry_backoff", "reaches-the-cap-exactly")["max"] = json!(4500);
        let non_hex = case_mut(m, "traceparent", "non-hex-flags")["traceparent"].clone();
        case_mut(m, "traceparent", "flags-3-hex")["traceparent"] = non_hex;
        case_mut(m, "redis_delay", "fractional-now-rounds-down")["now"] = json!(1000.0);
        m["sqs"]["schema_version_gate"]["fixture"] = json!("fixtures/unicode-and-numbers.json");
        // Prose and key order are not content.
        case_mut(m, "roundtrip", "unknown-meta-roundtrip")["description"] = json!("reworded");
        let c = case_mut(m, "trim", "trim-make-urn-space-padded");
        let reversed: serde_json::Map<String, Value> =
            c.as_object().unwrap().iter().rev().map(|(k, v)| (k.clone(), v.clone())).collect();
        *c = Value::Object(reversed);
    });
    let found = only(&s.validate(), "BQ318");
    let at = |ptr: &str| found.iter().filter(|(p, _)| p == ptr).count();
    let release_at = {
        let m: Value = serde_json::from_str(&s.read("manifest.json")).unwrap();
        let i = m["delay"]["release"]["cases"]
            .as_array()
            .unwrap()
            .iter()
            .position(|c| c["name"] == "release-exactly-43200")
            .unwrap();
        format!("/delay/release/cases/{i}")
    };
    assert_eq!(at(&release_at), 1, "{found:#?}");
    assert!(
        found.iter().any(|(p, m)| p.starts_with("/retry_backoff/cases/")
            && m.starts_with("retry_backoff/reaches-the-cap-exactly differs")),
        "{found:#?}"
    );
    assert!(found.iter().any(|(_, m)| m.starts_with("traceparent/flags-3-hex differs")), "{found:#?}");
    assert!(found.iter().any(|(_, m)| m.starts_with("redis_delay/fractional-now-rounds-down differs")), "{found:#?}");
    assert!(!found.iter().any(|(_, m)| m.starts_with("roundtrip/")), "prose is not content: {found:#?}");
    assert!(!found.iter().any(|(_, m)| m.starts_with("trim/")), "key order is not content: {found:#?}");
    // The gate table's shared fixture: every row of the table, and nothing outside it.
    let rows = found.iter().filter(|(p, _)| p.starts_with("/sqs/schema_version_gate/cases/")).count();
    let m: Value = serde_json::from_str(&s.read("manifest.json")).unwrap();
    assert_eq!(rows, m["sqs"]["schema_version_gate"]["cases"].as_array().unwrap().len(), "{found:#?}");
    assert_eq!(found.len(), 4 + rows, "{found:#?}");
    assert!(
        found[0].1.contains("--record src/sections/power.json") && found[0].1.contains("bqsuite fetch"),
        "{}",
        found[0].1
    );
    refused(&s, "BQ318 recorded-case-changed");
}

#[test]
fn a_fixture_edited_is_a_finding_of_each_case_that_reads_it_unless_the_fixture_has_one() {
    support::assert_recording_current();
    let s = SuiteCopy::new();
    // The same JSON, laid out otherwise: a fixture is the bytes an SDK decodes, so its readers
    // have other content, and no other finding is about them.
    let v: Value = serde_json::from_str(&s.read("fixtures/order-created.json")).unwrap();
    s.write("fixtures/order-created.json", serde_json::to_string(&v).unwrap());
    let relaid = only(&s.validate(), "BQ318");
    assert!(relaid.iter().any(|(p, _)| p == "/cases/0"), "{relaid:#?}");
    assert!(relaid.iter().any(|(p, _)| p.starts_with("/sqs/schema_version_gate/cases/")), "{relaid:#?}");
    // Another valid envelope: the top-level case that reads it expects its data (BQ311, and no
    // BQ318 beside it); the gate rows that read it pass as before, and no variant shows it.
    let mut v = v;
    v["data"]["note"] = json!("an added member");
    s.write("fixtures/order-created.json", serde_json::to_string_pretty(&v).unwrap());
    let findings = s.validate();
    let of = |code: &str| -> Vec<&str> {
        findings.iter().filter(|f| f.code.id == code).filter_map(|f| f.pointer.as_deref()).collect()
    };
    assert!(findings.iter().all(|f| ["BQ311", "BQ318"].contains(&f.code.id)), "{findings:#?}");
    assert_eq!(of("BQ311"), ["/cases/0"], "{findings:#?}");
    assert!(!of("BQ318").contains(&"/cases/0"), "{findings:#?}");
    assert!(of("BQ318").iter().any(|p| p.starts_with("/sqs/schema_version_gate/cases/")), "{findings:#?}");
    // Broken instead, the fixture's own finding says it all.
    s.write("fixtures/order-created.json", "{\"job\": ");
    let findings = s.validate();
    assert!(!findings.is_empty());
    assert!(findings.iter().all(|f| f.code.id != "BQ318"), "{findings:#?}");
}

#[test]
fn a_later_version_is_not_held_to_the_recorded_content() {
    // After the tag, a change to a case is the release gate's (diff against the previous
    // release: a correction its CHANGELOG entry must name), not a difference from the recording.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        case_mut(m, "retry_backoff", "reaches-the-cap-exactly")["max"] = json!(4500);
        m["conformance_version"] = json!(format!("{}-pre", support::bumped("minor")));
    });
    s.write("CONFORMANCE_VERSION", format!("{}-pre\n", support::bumped("minor")));
    let findings = s.validate();
    assert!(findings.iter().all(|f| f.code.id != "BQ318"), "{findings:#?}");
}

/// The rule of the skip policy named `name`.
fn rule_mut<'m>(m: &'m mut Value, name: &str) -> &'m mut Value {
    m["skip_policy"]["rules"].as_array_mut().unwrap().iter_mut().find(|r| r["name"] == name).unwrap()
}

#[test]
fn a_skip_policy_rule_widened_added_or_dropped_is_a_finding_before_the_tag() {
    support::assert_recording_current();
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        // A run with a Redis could skip exactly the Redis cases it fails.
        rule_mut(m, "no-live-redis")["all_or_none"] = json!(false);
        // Another family may skip the float gate row.
        rule_mut(m, "single-number-type")["families"] = json!(["node", "php"]);
        // A new rule, well formed, and a published one dropped.
        let rules = m["skip_policy"]["rules"].as_array_mut().unwrap();
        rules.retain(|r| r["name"] != "one-map-per-call");
        rules.push(json!({
            "name": "no-tracing",
            "condition": "The SDK does not propagate trace context.",
            "adrs": ["ADR-0032"],
            "cases": [{"section": "traceparent", "case": "garbage-header"}]
        }));
        // Prose and key order are not content.
        m["skip_policy"]["description"] = json!("reworded");
        let r = rule_mut(m, "no-null-property");
        let reversed: serde_json::Map<String, Value> =
            r.as_object().unwrap().iter().rev().map(|(k, v)| (k.clone(), v.clone())).collect();
        *r = Value::Object(reversed);
    });
    let mut found = only(&s.validate(), "BQ319");
    found.sort();
    let index = |name: &str| {
        let m: Value = serde_json::from_str(&s.read("manifest.json")).unwrap();
        let rules = m["skip_policy"]["rules"].as_array().unwrap().clone();
        format!("/skip_policy/rules/{}", rules.iter().position(|r| r["name"] == name).unwrap())
    };
    let says = |ptr: &str, start: &str| found.iter().any(|(p, m)| p == ptr && m.starts_with(start));
    assert!(says(&index("no-live-redis"), "skip_policy rule no-live-redis differs"), "{found:#?}");
    assert!(says(&index("single-number-type"), "skip_policy rule single-number-type differs"), "{found:#?}");
    assert!(
        says(&index("no-tracing"), "skip_policy rule no-tracing is not a rule of the recorded suite"),
        "{found:#?}"
    );
    let gone =
        format!("skip_policy rule one-map-per-call of the recorded suite {} is gone", support::recorded_version());
    assert!(says("/skip_policy/rules", &gone));
    assert_eq!(found.len(), 4, "prose and key order are not content: {found:#?}");
    assert!(found[0].1.contains("--record src/sections/power.json") && found[0].1.contains("bqsuite fetch"));
    refused(&s, "BQ319 recorded-policy-changed");
}

#[test]
fn a_skip_policy_finding_is_not_repeated_as_a_recorded_policy_change() {
    let s = SuiteCopy::new();
    // A selector that names no case: BQ212, at the selector, is the finding.
    s.edit_manifest(|m| rule_mut(m, "one-map-per-call")["cases"][0]["case"] = json!("no-such-case"));
    assert_eq!(s.validate().iter().map(|f| f.code.id).collect::<Vec<_>>(), ["BQ212"]);
    // A rule whose name is no string: BQ209, and no recorded rule is called gone beside it.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| rule_mut(m, "one-map-per-call")["name"] = json!(7));
    assert_eq!(s.validate().iter().map(|f| f.code.id).collect::<Vec<_>>(), ["BQ209"]);
    // No rules array, or no policy at all: the policy's own finding, not one per recorded rule.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["skip_policy"]["rules"] = json!({}));
    assert_eq!(s.validate().iter().map(|f| f.code.id).collect::<Vec<_>>(), ["BQ209"]);
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m.as_object_mut().unwrap().shift_remove("skip_policy");
    });
    assert_eq!(s.validate().iter().map(|f| f.code.id).collect::<Vec<_>>(), ["BQ208"]);
}

#[test]
fn a_later_version_is_not_held_to_the_recorded_skip_policy() {
    // After the tag, a rule changed is the release gate's (diff: a skip_policy change).
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        rule_mut(m, "no-live-redis")["all_or_none"] = json!(false);
        m["conformance_version"] = json!(format!("{}-pre", support::bumped("minor")));
    });
    s.write("CONFORMANCE_VERSION", format!("{}-pre\n", support::bumped("minor")));
    let findings = s.validate();
    assert!(findings.iter().all(|f| f.code.id != "BQ319"), "{findings:#?}");
    // And a pre-release of the recorded version is the version being prepared: held (on a suite
    // of the recorded content, so the recording must be of the canonical suite).
    support::assert_recording_current();
    let recorded = support::recorded_version();
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        rule_mut(m, "no-live-redis")["all_or_none"] = json!(false);
        m["conformance_version"] = json!(format!("{recorded}-rc.1"));
    });
    s.write("CONFORMANCE_VERSION", format!("{recorded}-rc.1\n"));
    let findings = s.validate();
    assert!(findings.iter().any(|f| f.code.id == "BQ319"), "{findings:#?}");
}

#[test]
fn a_results_schema_weakened_where_the_corpus_does_not_look_is_a_finding_before_the_tag() {
    support::assert_recording_current();
    // Red team F1: strict when sdk is the example's, almost nothing otherwise. BQ406's corpus
    // (each one change to the example) passed it; the recording pins the schema's bytes.
    let s = SuiteCopy::new();
    let schema: Value = serde_json::from_str(&s.read("schema/results.schema.json")).unwrap();
    let example: Value = serde_json::from_str(&s.read("schema/results.example.json")).unwrap();
    let kept = ["$schema", "$id", "title", "description", "$defs"];
    let strict: serde_json::Map<String, Value> = schema
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| !kept.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut gutted: serde_json::Map<String, Value> = schema
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| kept.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    gutted.insert("if".into(), json!({"properties": {"sdk": {"const": example["sdk"]}}}));
    gutted.insert("then".into(), Value::Object(strict));
    gutted.insert(
        "else".into(),
        json!({"type": "object", "required": ["sdk", "version", "conformance_version", "generated_at", "bindings", "sections"],
               "properties": {"sdk": {"type": "string", "minLength": 1}, "version": {"type": "string", "minLength": 1}}}),
    );
    s.write("schema/results.schema.json", serde_json::to_string_pretty(&Value::Object(gutted)).unwrap());
    let findings = s.validate();
    assert_eq!(
        findings.iter().map(|f| (f.code.id, f.file.as_deref().unwrap_or_default())).collect::<Vec<_>>(),
        [("BQ320", "schema/results.schema.json")],
        "{findings:#?}"
    );
    assert!(findings[0].message.contains("--record src/sections/power.json"), "{}", findings[0].message);
    refused(&s, "BQ320 recorded-schema-changed");
    // The same JSON laid out otherwise is other bytes in every copy: still a finding.
    let s = SuiteCopy::new();
    s.write("schema/results.schema.json", serde_json::to_string(&schema).unwrap());
    assert_eq!(s.validate().iter().map(|f| f.code.id).collect::<Vec<_>>(), ["BQ320"]);
}

#[test]
fn a_schema_finding_is_not_repeated_as_a_recorded_schema_change() {
    support::assert_recording_current();
    // The producer schema has its own pin (BQ404, per MAJOR); BQ406 says how the results
    // schema is weakened where its corpus looks.
    let s = SuiteCopy::new();
    let mut envelope: Value = serde_json::from_str(&s.read("schema/message-envelope.schema.json")).unwrap();
    envelope["title"] = json!("reworded");
    s.write("schema/message-envelope.schema.json", serde_json::to_string_pretty(&envelope).unwrap());
    let codes: Vec<_> = s.validate().iter().map(|f| f.code.id).collect();
    assert!(codes.contains(&"BQ404") && !codes.contains(&"BQ320"), "{codes:?}");
    let s = SuiteCopy::new();
    let mut results: Value = serde_json::from_str(&s.read("schema/results.schema.json")).unwrap();
    results["required"] = json!(["sdk", "version", "conformance_version", "bindings", "sections"]);
    s.write("schema/results.schema.json", serde_json::to_string_pretty(&results).unwrap());
    let codes: Vec<_> = s.validate().iter().map(|f| f.code.id).collect();
    assert!(codes.contains(&"BQ406") && !codes.contains(&"BQ320"), "{codes:?}");
    // After the tag the release gate's diff judges a schema change, not the recording.
    let s = SuiteCopy::new();
    s.write("schema/results.schema.json", serde_json::to_string(&results).unwrap());
    s.edit_manifest(|m| m["conformance_version"] = json!(format!("{}-pre", support::bumped("minor"))));
    s.write("CONFORMANCE_VERSION", format!("{}-pre\n", support::bumped("minor")));
    assert!(s.validate().iter().all(|f| f.code.id != "BQ320"));
}

/// A block written twice, the later copy holding a Redis row loosened until it catches less:
/// offline its pairs cannot run, so the recorded content (BQ318) is what shows the edit, and
/// the repeated key's finding (BQ007) used to hide it (a finding at the block was taken as one
/// about its cases). Both are said now: the copy every fingerprint and most runners read is the
/// loosened one.
#[test]
fn a_loosened_copy_of_a_repeated_block_is_still_a_changed_case() {
    support::assert_recording_current();
    let s = SuiteCopy::new();
    let mut m: Value = serde_json::from_str(&s.read("manifest.json")).unwrap();
    let block = m["redis_layout"]["migrate"].clone();
    let mut loose = block.clone();
    let row = loose["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["name"] == "lowest-score-first").unwrap();
    row["steps"][0].as_object_mut().unwrap().shift_remove("expect");
    row["expect"] = json!({"ready_count": 3});
    m["redis_layout"]["migrate"] = json!("@@");
    let text = serde_json::to_string_pretty(&m)
        .unwrap()
        .replace(r#""migrate": "@@""#, &format!(r#""migrate": {block}, "migrate": {loose}"#));
    s.write("manifest.json", text);
    let findings = s.validate();
    let codes: Vec<(&str, Option<&str>)> = findings.iter().map(|f| (f.code.id, f.pointer.as_deref())).collect();
    assert!(codes.iter().any(|(c, _)| *c == "BQ007"), "{codes:?}");
    assert!(
        codes.iter().any(|(c, p)| *c == "BQ318" && p.is_some_and(|p| p.starts_with("/redis_layout/migrate/cases/"))),
        "{codes:?}"
    );
}
