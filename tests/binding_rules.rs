//! The broker-binding validate rules (BQ840–BQ849): break a copy of the suite in one way and
//! assert the finding's code, file and pointer. The canonical suite has none of them.

#[macro_use]
mod support;

use serde_json::json;
use support::{SuiteCopy, assert_finding};

fn codes(findings: &[bqsuite::diag::Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.code.id).collect()
}

#[test]
fn the_canonical_suite_has_no_binding_findings() {
    let findings = findings!(SuiteCopy::new());
    assert!(codes(&findings).iter().all(|c| !c.starts_with("BQ84")), "{findings:#?}");
}

#[test]
fn a_gate_table_must_name_its_property_fixture_and_cases() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["sqs"]["schema_version_gate"].as_object_mut().unwrap().shift_remove("property");
        m["pulsar"]["schema_version_gate"]["property"] = json!("");
        m["kafka"]["schema_version_gate"].as_object_mut().unwrap().shift_remove("fixture");
        m["artemis"]["schema_version_gate"]["cases"] = json!({});
    });
    let f = findings!(s);
    for table in ["/sqs", "/kafka", "/artemis"] {
        assert_finding(&f, "BQ305", "manifest.json", Some(&format!("{table}/schema_version_gate")));
    }
    assert_finding(&f, "BQ308", "manifest.json", Some("/pulsar/schema_version_gate/property"));
}

#[test]
fn a_gate_fixture_must_be_a_valid_envelope() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["asb"]["schema_version_gate"]["fixture"] = json!("fixtures/invalid-missing-urn.json"));
    let f = assert_finding(&findings!(s), "BQ841", "manifest.json", Some("/asb/schema_version_gate/fixture"));
    assert!(f.span.is_some(), "line:column located");
}

#[test]
fn a_gate_row_has_exactly_one_of_value_and_absent() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        let rows = &mut m["sqs"]["schema_version_gate"]["cases"];
        rows[0]["absent"] = json!(true);
        rows[5]["absent"] = json!(false);
        rows[6].as_object_mut().unwrap().shift_remove("value");
    });
    let f = findings!(s);
    assert_finding(&f, "BQ307", "manifest.json", Some("/sqs/schema_version_gate/cases/0"));
    assert_finding(&f, "BQ308", "manifest.json", Some("/sqs/schema_version_gate/cases/5/absent"));
    assert_finding(&f, "BQ307", "manifest.json", Some("/sqs/schema_version_gate/cases/6"));
}

#[test]
fn a_gate_row_expects_decode_or_reject() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["kafka"]["schema_version_gate"]["cases"][3]["expect"] = json!("accept"));
    assert_finding(&findings!(s), "BQ306", "manifest.json", Some("/kafka/schema_version_gate/cases/3/expect"));
}

#[test]
fn value_type_is_only_float_and_only_on_numeric_rows() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["asb"]["schema_version_gate"]["cases"][0]["value_type"] = json!("float");
        m["asb"]["schema_version_gate"]["cases"][22]["value_type"] = json!("double");
    });
    let f = findings!(s);
    assert_finding(&f, "BQ844", "manifest.json", Some("/asb/schema_version_gate/cases/0/value_type"));
    assert_finding(&f, "BQ306", "manifest.json", Some("/asb/schema_version_gate/cases/22/value_type"));
}

#[test]
fn a_gate_row_carries_only_what_the_binding_can() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["sqs"]["schema_version_gate"]["cases"][0]["value"] = json!(null);
        m["pulsar"]["schema_version_gate"]["cases"][0]["value"] = json!(1);
        m["kafka"]["schema_version_gate"]["cases"][0]["value"] = json!(1);
        m["asb"]["schema_version_gate"]["cases"][19]["value"] = json!(4_294_967_296_i64);
        m["asb"]["schema_version_gate"]["cases"][20]["value"] = json!(0.0);
        m["artemis"]["schema_version_gate"]["cases"][0]["value"] = json!(true);
    });
    let f = findings!(s);
    for table in ["sqs", "pulsar", "kafka", "artemis"] {
        assert_finding(&f, "BQ845", "manifest.json", Some(&format!("/{table}/schema_version_gate/cases/0/value")));
    }
    assert_finding(&f, "BQ845", "manifest.json", Some("/asb/schema_version_gate/cases/19/value"));
    // An integral value written 0.0 is carried (the integer 0 to Go and Node, R4), but without
    // value_type it is a float to the Java, .NET and Python runners: ambiguous (BQ844), never
    // BQ845. The published ASB numeric and null rows and the Kafka and Artemis null rows are fine.
    let at = "/asb/schema_version_gate/cases/20/value";
    assert_finding(&f, "BQ844", "manifest.json", Some(at));
    assert!(!f.iter().any(|x| x.pointer.as_deref() == Some(at) && x.code.id != "BQ844"));
    assert!(!f.iter().any(|x| x.pointer.as_deref() == Some("/asb/schema_version_gate/cases/22/value")));
    assert!(!f.iter().any(|x| x.pointer.as_deref() == Some("/kafka/schema_version_gate/cases/18/value")));
}

#[test]
fn reconciliation_cases_keep_their_published_fields_and_types() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["kafka"]["attempts_reconciliation"]["cases"][2].as_object_mut().unwrap().shift_remove("header_attempts");
        m["sqs"]["attempts_reconciliation"]["cases"][0]["approximate_receive_count"] = json!(1);
        m["asb"]["attempts_reconciliation"]["cases"][0]["delivery_count"] = json!("1");
        m["pulsar"]["attempts_reconciliation"]["cases"][0]["expected_attempts"] = json!(-1);
    });
    let f = findings!(s);
    assert_finding(&f, "BQ305", "manifest.json", Some("/kafka/attempts_reconciliation/cases/2"));
    assert_finding(
        &f,
        "BQ305",
        "manifest.json",
        Some("/sqs/attempts_reconciliation/cases/0/approximate_receive_count"),
    );
    assert_finding(&f, "BQ305", "manifest.json", Some("/asb/attempts_reconciliation/cases/0/delivery_count"));
    assert_finding(&f, "BQ305", "manifest.json", Some("/pulsar/attempts_reconciliation/cases/0/expected_attempts"));
}

#[test]
fn delay_blocks_and_cases_have_their_shape() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["delay"]["send"]["cases"][0]["queue"] = json!("lifo");
        m["delay"]["send"]["cases"][1].as_object_mut().unwrap().shift_remove("expect_delay_seconds");
        m["delay"]["release"]["cases"][0]["expect"] = json!("send");
        m["delay"]["release"].as_object_mut().unwrap().shift_remove("envelope_file");
    });
    let f = findings!(s);
    assert_finding(&f, "BQ306", "manifest.json", Some("/delay/send/cases/0/queue"));
    assert_finding(&f, "BQ305", "manifest.json", Some("/delay/send/cases/1"));
    assert_finding(&f, "BQ306", "manifest.json", Some("/delay/release/cases/0/expect"));
    assert_finding(&f, "BQ305", "manifest.json", Some("/delay/release"));
}

#[test]
fn backoff_blocks_and_cases_have_their_shape() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["backoff"]["topic_names"]["cases"][0]["tiers_ms"] = json!(["5000"]);
        m["backoff"]["retry_republish"]["cases"][0].as_object_mut().unwrap().shift_remove("expect_headers");
        m["backoff"]["requested_delay"]["cases"][0]["delay_ms"] = json!(1.5);
        m["backoff"]["default_tiers"]["expect_tiers_ms"] = json!([5000, -1]);
    });
    let f = findings!(s);
    assert_finding(&f, "BQ305", "manifest.json", Some("/backoff/topic_names/cases/0/tiers_ms/0"));
    assert_finding(&f, "BQ305", "manifest.json", Some("/backoff/retry_republish/cases/0"));
    assert_finding(&f, "BQ305", "manifest.json", Some("/backoff/requested_delay/cases/0/delay_ms"));
    assert_finding(&f, "BQ305", "manifest.json", Some("/backoff/default_tiers/expect_tiers_ms/1"));
}

#[test]
fn kafka_poison_cases_carry_one_body_and_a_known_verdict() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["kafka_poison"]["cases"][0]["body_base64"] = json!("e30=");
        m["kafka_poison"]["cases"][1]["expect"] = json!("maybe");
        let last = m["kafka_poison"]["cases"].as_array().unwrap().len() - 1;
        m["kafka_poison"]["cases"][last]["body_base64"] = json!("not base64!");
    });
    let f = findings!(s);
    assert_finding(&f, "BQ307", "manifest.json", Some("/kafka_poison/cases/0"));
    assert_finding(&f, "BQ306", "manifest.json", Some("/kafka_poison/cases/1/expect"));
    let n = serde_json::from_str::<serde_json::Value>(&s.read("manifest.json")).unwrap()["kafka_poison"]["cases"]
        .as_array()
        .unwrap()
        .len();
    assert_finding(&f, "BQ308", "manifest.json", Some(&format!("/kafka_poison/cases/{}/body_base64", n - 1)));
}
