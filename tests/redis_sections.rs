//! The Redis sections (`redis`, `redis_layout`, `redis_delay`) run by the reference transport:
//! all green against a live Redis, red for each broken variant, and the runner contract without
//! a Redis (skip with an ADR-0033 reason, or fail under `BQ_REQUIRE_REDIS`).

mod support;

use std::process::Command;

use bqsuite::conformance::{self, Outcome, ResultsFile, RunOptions, Status};
use bqsuite::core::fault::{self, Fault};
use bqsuite::core::redis::{
    FAULT_ACK_WITHOUT_GATE, FAULT_FLOOR_OF_SUM, FAULT_HAND_OUT_MEMBER, FAULT_RELEASE_MEMBER, FAULT_SWEEP_TO_FRONT,
};
use bqsuite::suite::Suite;

const SECTIONS: [&str; 3] = ["redis", "redis_layout", "redis_delay"];

fn run(redis_url: Option<String>, require_redis: bool) -> ResultsFile {
    let suite = Suite::load(support::repo()).expect("the canonical suite loads");
    let options =
        RunOptions { only: SECTIONS.map(String::from).to_vec(), redis_url, require_redis, ..RunOptions::default() };
    conformance::run(&suite, &options)
}

/// Every case as (section/id, outcome).
fn outcomes(r: &ResultsFile) -> Vec<(String, Outcome)> {
    r.sections
        .iter()
        .flat_map(|(s, cases)| {
            cases
                .as_object()
                .unwrap()
                .iter()
                .map(move |(id, o)| (format!("{s}/{id}"), serde_json::from_value(o.clone()).unwrap()))
        })
        .collect()
}

fn failing(r: &ResultsFile) -> Vec<String> {
    outcomes(r).into_iter().filter(|(_, o)| o.status == Status::Fail).map(|(id, _)| id).collect()
}

/// A loopback port nothing listens on.
fn closed_port_url() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    format!("redis://127.0.0.1:{port}/")
}

#[test]
fn with_a_live_redis_every_case_passes() {
    let Some(url) = support::redis_url() else { return };
    let r = run(Some(url), true);
    let all = outcomes(&r);
    let not_passing: Vec<_> = all.iter().filter(|(_, o)| o.status != Status::Pass).collect();
    assert!(not_passing.is_empty(), "{not_passing:#?}");
    assert!(
        all.iter()
            .any(|(id, _)| id == "redis_layout/retry_after_null/null-consumer-still-sweeps-foreign-expired-member")
    );
    assert!(all.len() > 80, "every block ran: {}", all.len());
}

/// Run with `fault` on and assert that each of `expected` is among the failing cases.
fn caught(fault_name: &'static str, expected: &[&str]) {
    let Some(url) = support::redis_url() else { return };
    let r = fault::with(Fault::Named(fault_name), || run(Some(url), true));
    let failing = failing(&r);
    assert!(!failing.is_empty(), "{fault_name}: no case failed");
    for id in expected {
        assert!(failing.iter().any(|f| f == id), "{fault_name}: {id} did not fail; failing: {failing:#?}");
    }
}

#[test]
fn a_reserve_that_hands_out_the_reencoded_member_is_caught() {
    caught(
        FAULT_HAND_OUT_MEMBER,
        &["redis/payload_identity", "redis_layout/reserve/handler-gets-the-raw-element-byte-for-byte"],
    );
}

#[test]
fn a_sweep_that_pushes_to_the_front_is_caught() {
    caught(
        FAULT_SWEEP_TO_FRONT,
        &[
            "redis_layout/processing_sweep/expired-item-moves-to-the-ready-tail",
            "redis_layout/retry_after_null/null-consumer-still-sweeps-foreign-expired-member",
        ],
    );
}

#[test]
fn an_ack_without_the_zrem_gate_is_caught() {
    caught(FAULT_ACK_WITHOUT_GATE, &["redis_layout/late_ack/late-ack-leaves-the-new-reservation-alone"]);
}

#[test]
fn a_release_that_writes_the_cjson_member_is_caught() {
    caught(FAULT_RELEASE_MEMBER, &["redis_layout/release/release-writes-the-core-encoding-with-attempts-plus-one"]);
}

#[test]
fn floor_of_the_sum_scoring_is_caught_with_and_without_redis() {
    caught(FAULT_FLOOR_OF_SUM, &["redis_layout/delayed_score/score-where-floor-of-sum-differs"]);
    // redis_delay needs no Redis: the fault is caught even when the behavioural blocks skip.
    let r = fault::with(Fault::Named(FAULT_FLOOR_OF_SUM), || run(Some(closed_port_url()), false));
    let failing = failing(&r);
    assert!(failing.contains(&"redis_delay/floor-of-sum-would-differ".to_owned()), "{failing:#?}");
    assert!(failing.iter().all(|f| f.starts_with("redis_delay/")), "{failing:#?}");
}

#[test]
fn without_redis_the_behavioural_cases_skip_citing_adr_0033_and_the_rest_passes() {
    let r = run(Some(closed_port_url()), false);
    let all = outcomes(&r);
    let mut skipped = 0;
    for (id, o) in &all {
        let needs_redis = id == "redis/payload_identity" || id.matches('/').count() == 2;
        if needs_redis {
            assert_eq!(o.status, Status::Skip, "{id}: {o:?}");
            assert!(o.reason.as_deref().is_some_and(|r| r.contains("ADR-0033")), "{id}: {o:?}");
            skipped += 1;
        } else {
            assert_eq!(o.status, Status::Pass, "{id}: {o:?}");
        }
    }
    assert!(skipped > 70 && all.len() > skipped + 8, "{skipped} of {}", all.len());
    // With no URL at all the contract is the same.
    assert_eq!(failing(&run(None, false)), Vec::<String>::new());
}

#[test]
fn with_bq_require_redis_an_unreachable_redis_fails_the_behavioural_cases() {
    let r = run(Some(closed_port_url()), true);
    let failing = failing(&r);
    assert!(failing.contains(&"redis/payload_identity".to_owned()));
    assert!(failing.contains(&"redis_layout/migrate/due-delayed-item-moves-to-the-ready-tail".to_owned()));
    assert!(failing.iter().all(|f| f.starts_with("redis/") || f.matches('/').count() == 2), "{failing:#?}");
}

fn bqsuite_run(require: Option<&str>) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bqsuite"));
    cmd.args(["run", "--section", "redis", "--section", "redis_layout", "--section", "redis_delay"])
        .current_dir(support::repo())
        .env("BQ_REDIS_URL", closed_port_url())
        .env_remove("BQ_REQUIRE_REDIS");
    if let Some(v) = require {
        cmd.env("BQ_REQUIRE_REDIS", v);
    }
    cmd.output().expect("run bqsuite")
}

#[test]
fn the_binary_skips_and_logs_without_redis_and_fails_when_it_is_required() {
    let o = bqsuite_run(None);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("cannot reach Redis") && stderr.contains("skipped (ADR-0033)"), "{stderr}");
    assert_eq!(stderr.matches("cannot reach Redis").count(), 1, "logged once per run: {stderr}");

    let o = bqsuite_run(Some("1"));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("BQ_REQUIRE_REDIS is set"), "{stderr}");
}
