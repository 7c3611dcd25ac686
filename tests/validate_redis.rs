//! One test per validate rule of the Redis case languages (BQ860–BQ867, and BQ305 for the shape of a case): break a copy of the
//! suite in one way, assert the finding's code, file and pointer.

#[macro_use]
mod support;

use serde_json::{Value, json};
use support::{SuiteCopy, assert_finding};

/// A suite copy with the first case of a behavioural block edited.
fn edit_case(block: &str, edit: impl FnOnce(&mut Value)) -> SuiteCopy {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| edit(&mut m["redis_layout"][block]["cases"][0]));
    s
}

#[test]
fn the_redis_sections_are_clean() {
    let findings = findings!(SuiteCopy::new());
    assert!(findings.iter().all(|f| !f.code.id.starts_with("BQ86")), "{findings:#?}");
}

#[test]
fn unknown_layout() {
    let f = findings!(edit_case("migrate", |c| c["layout"] = json!("list")));
    assert_finding(&f, "BQ860", "manifest.json", Some("/redis_layout/migrate/cases/0/layout"));
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["redis_layout"]["cases"][0]["layout"] = json!("stream"));
    assert_finding(&findings!(s), "BQ860", "manifest.json", Some("/redis_layout/cases/0/layout"));
}

#[test]
fn unknown_op() {
    let f = findings!(edit_case("migrate", |c| c["steps"][0]["op"] = json!("teleport")));
    assert_finding(&f, "BQ861", "manifest.json", Some("/redis_layout/migrate/cases/0/steps/0/op"));
}

#[test]
fn step_without_now() {
    let f = findings!(edit_case("migrate", |c| {
        c["steps"][0].as_object_mut().unwrap().shift_remove("now");
    }));
    let found = assert_finding(&f, "BQ862", "manifest.json", Some("/redis_layout/migrate/cases/0/steps/0"));
    assert!(found.span.is_some(), "line:column located");
}

#[test]
fn op_or_key_not_in_the_layout() {
    let f = findings!(edit_case("processing_sweep", |c| c["steps"][0]["op"] = json!("migrate")));
    assert_finding(&f, "BQ863", "manifest.json", Some("/redis_layout/processing_sweep/cases/0/steps/0/op"));
    let f = findings!(edit_case("migrate", |c| c["expect"]["deadlines_count"] = json!(0)));
    assert_finding(&f, "BQ863", "manifest.json", Some("/redis_layout/migrate/cases/0/expect/deadlines_count"));
    let f = findings!(edit_case("legacy_release_gate", |c| c["steps"][2]["delay"] = json!(5)));
    assert_finding(&f, "BQ863", "manifest.json", Some("/redis_layout/legacy_release_gate/cases/0/steps/2/delay"));
}

#[test]
fn unknown_body() {
    let f = findings!(edit_case("reserve", |c| c["steps"][0]["body"] = json!("nope")));
    assert_finding(&f, "BQ864", "manifest.json", Some("/redis_layout/reserve/cases/0/steps/0/body"));
}

#[test]
fn unknown_reservation() {
    let f = findings!(edit_case("late_ack", |c| c["steps"][3]["reservation"] = json!("r9")));
    assert_finding(&f, "BQ865", "manifest.json", Some("/redis_layout/late_ack/cases/0/steps/3/reservation"));
}

#[test]
fn expectation_shape() {
    let f = findings!(edit_case("migrate", |c| c["expect"]["ready_count"] = json!("two")));
    assert_finding(&f, "BQ866", "manifest.json", Some("/redis_layout/migrate/cases/0/expect/ready_count"));
    let f = findings!(edit_case("migrate", |c| c["steps"][0]["expect"]["handed"] = json!("a")));
    assert_finding(&f, "BQ866", "manifest.json", Some("/redis_layout/migrate/cases/0/steps/0/expect/handed"));
    let f = findings!(edit_case("migrate", |c| c["state"]["delayed"][0] = json!("a")));
    assert_finding(&f, "BQ866", "manifest.json", Some("/redis_layout/migrate/cases/0/state/delayed/0"));
}

#[test]
fn bad_retry_after() {
    let f = findings!(edit_case("late_ack", |c| c["retry_after"] = json!(-5)));
    assert_finding(&f, "BQ867", "manifest.json", Some("/redis_layout/late_ack/cases/0/retry_after"));
}

#[test]
fn case_shape() {
    let f = findings!(edit_case("migrate", |c| {
        c.as_object_mut().unwrap().shift_remove("steps");
    }));
    assert_finding(&f, "BQ305", "manifest.json", Some("/redis_layout/migrate/cases/0"));
    let f = findings!(edit_case("reserve", |c| c["steps"][1]["colour"] = json!("blue")));
    assert_finding(&f, "BQ305", "manifest.json", Some("/redis_layout/reserve/cases/0/steps/1/colour"));
}

#[test]
fn delay_case_shape() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["redis_delay"]["cases"][0]["expected_score"] = json!(1002.5));
    assert_finding(&findings!(s), "BQ305", "manifest.json", Some("/redis_delay/cases/0/expected_score"));
}
