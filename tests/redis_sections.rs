//! The runner contract of the Redis sections without a Redis: skip with an ADR-0033 reason, or
//! fail under `BQ_REQUIRE_REDIS` (the kill matrix runs them against a live one).

mod support;

use std::process::Command;

use bqsuite::conformance::{self, Outcome, ResultsFile, RunOptions, Status};
use bqsuite::sections::Needs;
use bqsuite::sections::RedisRequired;
use bqsuite::suite::{Scope, Suite};

/// Run the sections of scope redis.
fn run(redis_url: Option<String>, require_redis: bool) -> ResultsFile {
    let suite = Suite::load(support::repo()).expect("the canonical suite loads");
    let only = suite.sections().iter().filter(|s| s.scope == Some(Scope::Redis)).map(|s| s.name.to_owned()).collect();
    let require_redis = if require_redis { RedisRequired::ByEnv } else { RedisRequired::No };
    conformance::run(&suite, &RunOptions { only, redis_url, require_redis, ..RunOptions::default() }).results
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

/// `section/id` of every case of scope redis that needs a live Redis, by its definition.
fn needing_redis() -> Vec<String> {
    let suite = Suite::load(support::repo()).unwrap();
    let mut out = Vec::new();
    for section in suite.sections().into_iter().filter(|s| s.scope == Some(Scope::Redis)) {
        let cases = bqsuite::sections::find(section.name).expect("registered").read(&suite, &section);
        for i in 0..cases.len() {
            if cases.needs(i) == Some(Needs::Redis) {
                out.push(format!("{}/{}", section.name, cases.case(i).id));
            }
        }
    }
    out
}

#[test]
fn without_redis_the_behavioural_cases_skip_citing_adr_0033_and_the_rest_passes() {
    let r = run(Some(closed_port_url()), false);
    let all = outcomes(&r);
    let needs = needing_redis();
    for (id, o) in &all {
        if needs.contains(id) {
            assert_eq!(o.status, Status::Skip, "{id}: {o:?}");
            assert!(o.reason.as_deref().is_some_and(|r| r.contains("ADR-0033")), "{id}: {o:?}");
        } else {
            assert_eq!(o.status, Status::Pass, "{id}: {o:?}");
        }
    }
    assert!(!needs.is_empty() && all.len() > needs.len(), "both kinds of case are there");
    // With no URL at all the contract is the same.
    assert_eq!(failing(&run(None, false)), Vec::<String>::new());
}

#[test]
fn with_bq_require_redis_an_unreachable_redis_fails_the_behavioural_cases() {
    let r = run(Some(closed_port_url()), true);
    assert_eq!(failing(&r), needing_redis());
}

fn bqsuite_run(require: Option<&str>) -> std::process::Output {
    let suite = Suite::load(support::repo()).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bqsuite"));
    cmd.arg("run");
    for s in suite.sections().into_iter().filter(|s| s.scope == Some(Scope::Redis)) {
        cmd.args(["--section", s.name]);
    }
    cmd.current_dir(support::repo()).env("BQ_REDIS_URL", closed_port_url()).env_remove("BQ_REQUIRE_REDIS");
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
