//! The validate cross-checks of the core helper sections (BQ820–BQ830): break one expectation
//! in a copy of the suite, assert the finding's code and pointer.

#[macro_use]
mod support;

use serde_json::{Value, json};
use support::{SuiteCopy, assert_finding};

/// Index of the case `name` in `section`'s cases array (`sub` for a sub-block's cases).
fn index(m: &Value, path: &str, name: &str) -> usize {
    m.pointer(path).and_then(Value::as_array).unwrap().iter().position(|c| c["name"] == name).unwrap()
}

/// Edit one case of the copy; returns its pointer.
fn edit_case(s: &SuiteCopy, path: &str, name: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut at = String::new();
    s.edit_manifest(|m| {
        at = format!("{path}/{}", index(m, path, name));
        edit(m.pointer_mut(&at).unwrap());
    });
    at
}

#[test]
fn a_payload_schema_case_with_a_wrong_valid_flag() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/payload_schema/cases", "invalid-below-minimum", |c| c["valid"] = json!(true));
    let f = assert_finding(&findings!(s), "BQ820", "manifest.json", Some(&format!("{at}/valid")));
    assert!(f.span.is_some());
}

#[test]
fn a_payload_schema_unicode_case_counted_in_bytes() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/payload_schema_unicode/cases", "turkish-2cp-min3", |c| c["valid"] = json!(true));
    assert_finding(&findings!(s), "BQ820", "manifest.json", Some(&format!("{at}/valid")));
}

#[test]
fn a_payload_schema_case_without_data() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/payload_schema/cases", "valid-minimal", |c| {
        c.as_object_mut().unwrap().shift_remove("data");
    });
    assert_finding(&findings!(s), "BQ305", "manifest.json", Some(&at));
}

#[test]
fn a_body_base64_without_padding() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/poison_dlq/cases", "invalid-utf8-byte", |c| {
        let b = c["body_base64"].as_str().unwrap().trim_end_matches('=').to_owned();
        c["body_base64"] = json!(b + "A");
    });
    assert_finding(&findings!(s), "BQ308", "manifest.json", Some(&format!("{at}/body_base64")));
}

#[test]
fn a_case_marked_invalid_utf8_whose_body_is_valid_utf8() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/poison_dlq/cases", "invalid-utf8-byte", |c| {
        c["body_base64"] = json!("e30="); // "{}"
        c["expect"]["record"]["raw"] = json!("e30=");
    });
    assert_finding(&findings!(s), "BQ823", "manifest.json", Some(&format!("{at}/expect/record")));
}

#[test]
fn an_invalid_utf8_body_not_marked() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/poison_dlq/cases", "invalid-utf8-byte", |c| {
        c["expect"]["record"].as_object_mut().unwrap().shift_remove("raw_encoding");
    });
    assert_finding(&findings!(s), "BQ823", "manifest.json", Some(&format!("{at}/expect/record")));
}

#[test]
fn a_poison_case_with_both_bodies() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/poison_dlq/cases", "empty-body", |c| c["body_base64"] = json!(""));
    assert_finding(&findings!(s), "BQ307", "manifest.json", Some(&at));
}

#[test]
fn a_splice_or_wrapper_case_without_literals() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/poison_dlq/cases", "exponent-overflow", |c| c["expect"]["splice_literals"] = json!([]));
    assert_finding(&findings!(s), "BQ305", "manifest.json", Some(&format!("{at}/expect/splice_literals")));
}

#[test]
fn poison_expectations_that_contradict_their_body() {
    let s = SuiteCopy::new();
    let wrapper = edit_case(&s, "/poison_dlq/cases", "not-json", |c| c["expect"]["record"]["raw"] = json!("not JSON"));
    let literal = edit_case(&s, "/poison_dlq/cases", "exponent-overflow", |c| {
        c["expect"]["splice_literals"] = json!(["\"v\":1e+400"]);
    });
    let keys = edit_case(&s, "/poison_dlq/cases", "repeated-top-level-name", |c| {
        c["expect"]["splice_keys"] = json!(["job"]);
    });
    let shape = edit_case(&s, "/poison_dlq/cases", "nan-literal", |c| c["expect"]["shape"] = json!("splice"));
    let record = edit_case(&s, "/poison_dlq/cases", "strict-object", |c| c["expect"]["record"]["attempts"] = json!(1));
    let splice_as_wrapper = edit_case(&s, "/poison_dlq/cases", "empty-object", |c| {
        c["expect"] = json!({"shape": "wrapper", "record": {"raw": "{}"}});
    });
    let findings = findings!(s);
    assert_finding(&findings, "BQ825", "manifest.json", Some(&format!("{wrapper}/expect/record")));
    assert_finding(&findings, "BQ825", "manifest.json", Some(&format!("{literal}/expect/splice_literals/0")));
    assert_finding(&findings, "BQ825", "manifest.json", Some(&format!("{keys}/expect/splice_keys")));
    assert_finding(&findings, "BQ825", "manifest.json", Some(&format!("{shape}/expect/shape")));
    assert_finding(&findings, "BQ825", "manifest.json", Some(&format!("{record}/expect/record")));
    assert_finding(&findings, "BQ825", "manifest.json", Some(&format!("{splice_as_wrapper}/expect/shape")));
}

#[test]
fn an_outcome_on_a_skipped_delivery() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/idempotency/sequences/cases", "duplicate-delivery-runs-once", |c| {
        c["deliveries"][1]["outcome"] = json!("ok");
    });
    assert_finding(&findings!(s), "BQ826", "manifest.json", Some(&format!("{at}/deliveries/1/outcome")));
}

#[test]
fn expected_effects_counted_as_run_plus_ok() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/idempotency/sequences/cases", "throw-leaves-id-unmarked", |c| {
        c["expected_effects"] = json!(1);
    });
    assert_finding(&findings!(s), "BQ827", "manifest.json", Some(&format!("{at}/expected_effects")));
}

#[test]
fn an_effect_the_seen_set_rule_does_not_give() {
    let s = SuiteCopy::new();
    let at = edit_case(&s, "/idempotency/sequences/cases", "forget-allows-rerun", |c| {
        c["deliveries"][2].as_object_mut().unwrap().shift_remove("forget_before");
    });
    assert_finding(&findings!(s), "BQ828", "manifest.json", Some(&format!("{at}/deliveries/2/expect_effect")));
}

#[test]
fn retry_backoff_inputs_outside_r14() {
    let s = SuiteCopy::new();
    let m = edit_case(&s, "/retry_backoff/cases", "doubling-third-retry", |c| c["multiplier"] = json!(0.5));
    let n = edit_case(&s, "/retry_backoff/cases", "defaults-first-retry", |c| c["n"] = json!(0));
    let d = edit_case(&s, "/retry_backoff/cases", "capped", |c| c["multiplier"] = json!(1.1));
    let j =
        edit_case(&s, "/retry_backoff/cases", "full-jitter-growth", |c| c["expect_delay_range_ms"] = json!([1, 2000]));
    let findings = findings!(s);
    assert_finding(&findings, "BQ308", "manifest.json", Some(&format!("{m}/multiplier")));
    assert_finding(&findings, "BQ308", "manifest.json", Some(&format!("{n}/n")));
    assert_finding(&findings, "BQ308", "manifest.json", Some(&format!("{d}/multiplier")));
    assert_finding(&findings, "BQ308", "manifest.json", Some(&format!("{j}/expect_delay_range_ms")));
}

#[test]
fn retry_backoff_expectations_off_the_formula() {
    let s = SuiteCopy::new();
    let rounded =
        edit_case(&s, "/retry_backoff/cases", "fractional-result-floors", |c| c["expect_delay_ms"] = json!(5063));
    let bound =
        edit_case(&s, "/retry_backoff/cases", "full-jitter-capped", |c| c["expect_delay_range_ms"] = json!([0, 32000]));
    let findings = findings!(s);
    assert_finding(&findings, "BQ830", "manifest.json", Some(&format!("{rounded}/expect_delay_ms")));
    assert_finding(&findings, "BQ830", "manifest.json", Some(&format!("{bound}/expect_delay_range_ms/1")));
}
