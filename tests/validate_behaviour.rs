//! The behaviour-section cross-checks of `validate` (BQ801–BQ811): break a copy of the suite in
//! one way, assert the finding's code, file and pointer (and that line:column is located).

#[macro_use]
mod support;

use serde_json::{Value, json};
use support::{SuiteCopy, assert_finding};

/// The index of case `name` in `section`.
fn index(s: &SuiteCopy, section: &str, name: &str) -> usize {
    let m: Value = serde_json::from_str(&s.read("manifest.json")).unwrap();
    m[section]["cases"].as_array().unwrap().iter().position(|c| c["name"] == name).expect("case exists")
}

fn case_mut<'m>(m: &'m mut Value, section: &str, i: usize) -> &'m mut serde_json::Map<String, Value> {
    m[section]["cases"][i].as_object_mut().unwrap()
}

#[test]
fn a_producer_schema_valid_false_fixture_that_passes_the_schema() {
    let s = SuiteCopy::new();
    let i = index(&s, "roundtrip", "unknown-lang");
    s.write("fixtures/unknown-lang.json", s.read("fixtures/unknown-lang.json").replace("\"cobol\"", "\"php\""));
    let ptr = format!("/roundtrip/cases/{i}/producer_schema_valid");
    let f = assert_finding(&findings!(s), "BQ802", "manifest.json", Some(&ptr));
    assert!(f.span.is_some());
}

#[test]
fn the_flag_on_a_producer_valid_fixture_is_a_lie_too() {
    let s = SuiteCopy::new();
    let i = index(&s, "roundtrip", "unknown-meta-roundtrip");
    s.edit_manifest(|m| {
        case_mut(m, "roundtrip", i).insert("producer_schema_valid".into(), json!(false));
    });
    assert_finding(
        &findings!(s),
        "BQ802",
        "manifest.json",
        Some(&format!("/roundtrip/cases/{i}/producer_schema_valid")),
    );
}

#[test]
fn a_roundtrip_fixture_that_fails_the_schema_without_the_flag() {
    let s = SuiteCopy::new();
    let i = index(&s, "roundtrip", "unknown-lang");
    s.edit_manifest(|m| {
        case_mut(m, "roundtrip", i).shift_remove("producer_schema_valid");
    });
    let f = assert_finding(&findings!(s), "BQ801", "fixtures/unknown-lang.json", Some("/meta/lang"));
    assert_eq!(f.span.map(|s| s.line), Some(10), "located at the lang line");
}

#[test]
fn a_forbidden_keys_fixture_that_fails_the_schema() {
    let s = SuiteCopy::new();
    s.write(
        "fixtures/forbidden-key-meta-ts.json",
        s.read("fixtures/forbidden-key-meta-ts.json").replace("\"attempts\": 0", "\"attempts\": -1"),
    );
    assert_finding(&findings!(s), "BQ801", "fixtures/forbidden-key-meta-ts.json", Some("/attempts"));
}

#[test]
fn the_rejected_data_array_fixture_must_fail_the_schema() {
    let s = SuiteCopy::new();
    let text = s.read("fixtures/data-array-rejected.json");
    let start = text.find("\"data\": [").unwrap();
    let end = start + text[start..].find(']').unwrap() + 1;
    s.write("fixtures/data-array-rejected.json", format!("{}\"data\": {{}}{}", &text[..start], &text[end..]));
    let i = index(&s, "data_shape", "data-array-rejected");
    assert_finding(&findings!(s), "BQ803", "manifest.json", Some(&format!("/data_shape/cases/{i}/valid")));
}

#[test]
fn an_expect_preserved_pointer_missing_from_its_fixture() {
    let s = SuiteCopy::new();
    let i = index(&s, "roundtrip", "unknown-meta-roundtrip");
    s.edit_manifest(|m| {
        case_mut(m, "roundtrip", i)["expect_preserved"]["/meta/vendor~1flag"] = json!(true);
    });
    let f = assert_finding(
        &findings!(s),
        "BQ805",
        "manifest.json",
        Some(&format!("/roundtrip/cases/{i}/expect_preserved/~1meta~1vendor~01flag")),
    );
    assert!(f.span.is_some(), "an escaped pointer key is located");
}

#[test]
fn an_expect_preserved_value_that_differs_from_the_fixture() {
    let s = SuiteCopy::new();
    let i = index(&s, "forbidden_keys", "forbidden-key-job-and-urn");
    s.edit_manifest(|m| {
        case_mut(m, "forbidden_keys", i)["expect_preserved"]["/job"] = json!("urn:babel:orders:placed");
    });
    assert_finding(
        &findings!(s),
        "BQ806",
        "manifest.json",
        Some(&format!("/forbidden_keys/cases/{i}/expect_preserved/~1job")),
    );
}

#[test]
fn pointers_that_are_not_rfc6901() {
    let s = SuiteCopy::new();
    let (r, f, t) = (
        index(&s, "roundtrip", "urn-only-roundtrip"),
        index(&s, "forbidden_keys", "forbidden-key-meta-ts"),
        index(&s, "job_type", "job-type-null-job-falls-back-to-urn"),
    );
    s.edit_manifest(|m| {
        case_mut(m, "roundtrip", r)["expect_after_reencode"]["job"] = json!("urn:x");
        case_mut(m, "forbidden_keys", f).insert("forbidden_key".into(), json!("/meta/t~2s"));
        case_mut(m, "job_type", t).insert("expect_warnings".into(), json!([5]));
    });
    let findings = findings!(s);
    assert_finding(
        &findings,
        "BQ804",
        "manifest.json",
        Some(&format!("/roundtrip/cases/{r}/expect_after_reencode/job")),
    );
    assert_finding(&findings, "BQ804", "manifest.json", Some(&format!("/forbidden_keys/cases/{f}/forbidden_key")));
    assert_finding(&findings, "BQ804", "manifest.json", Some(&format!("/job_type/cases/{t}/expect_warnings/0")));
}

#[test]
fn a_forbidden_key_missing_from_its_fixture_and_from_the_absent_list() {
    let s = SuiteCopy::new();
    let i = index(&s, "forbidden_keys", "forbidden-key-meta-source");
    s.edit_manifest(|m| {
        case_mut(m, "forbidden_keys", i).insert("forbidden_key".into(), json!("/meta/origin"));
    });
    let findings = findings!(s);
    let at = format!("/forbidden_keys/cases/{i}/forbidden_key");
    assert_finding(&findings, "BQ807", "manifest.json", Some(&at));
    assert_finding(&findings, "BQ808", "manifest.json", Some(&at));
}

#[test]
fn an_absent_pointer_the_fixture_never_had() {
    let s = SuiteCopy::new();
    let i = index(&s, "roundtrip", "blank-ascii-job-urn-fallback");
    s.edit_manifest(|m| {
        case_mut(m, "roundtrip", i)["expect_absent_after_reencode"] = json!(["/urn", "/timestamp"]);
    });
    assert_finding(
        &findings!(s),
        "BQ809",
        "manifest.json",
        Some(&format!("/roundtrip/cases/{i}/expect_absent_after_reencode/1")),
    );
}

#[test]
fn an_encode_reject_case_with_two_inputs_or_a_stray_offending_key() {
    let s = SuiteCopy::new();
    let (a, b, c) = (
        index(&s, "encode_reject", "reject-meta-ts"),
        index(&s, "encode_reject", "reject-top-level-urn"),
        index(&s, "encode_reject", "reject-repeated-key"),
    );
    s.edit_manifest(|m| {
        case_mut(m, "encode_reject", a).insert("extras_meta".into(), json!({"ts": 1}));
        case_mut(m, "encode_reject", b).insert("offending_key".into(), json!("timestamp"));
        case_mut(m, "encode_reject", c).insert("meta_entries".into(), json!({"ext": 1}));
    });
    let findings = findings!(s);
    assert_finding(&findings, "BQ307", "manifest.json", Some(&format!("/encode_reject/cases/{a}")));
    assert_finding(&findings, "BQ811", "manifest.json", Some(&format!("/encode_reject/cases/{b}/offending_key")));
    assert_finding(&findings, "BQ305", "manifest.json", Some(&format!("/encode_reject/cases/{c}/meta_entries")));
}
