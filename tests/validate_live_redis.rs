//! `validate` and `release` with and without a live Redis: the cases that need one run through
//! the reference core only when a Redis is given, and an offline gate says how many it did not
//! run, so a wrong Redis expectation can no longer pass `validate` and `release` unseen where a
//! Redis is at hand (CI and the release workflow always give one).
//!
//! The live half uses `BQ_REDIS_URL`, else a `redis-server` the test support starts, else it
//! skips and says so (a failure under `BQ_REQUIRE_REDIS`).

mod support;

use std::time::Duration;

use bqsuite::conformance::{self, RunOptions};
use bqsuite::suite::Suite;
use bqsuite::validate::{Options, RedisCoverage, validate_with};
use serde_json::json;
use support::{SuiteCopy, assert_finding, bqsuite_env, repo, transcript};

/// The case whose expectation the tests break: its reserve stores the re-encoding at
/// floor(1000.4) + 60 = 1060, never 1061.
const BROKEN_AT: &str = "/redis_layout/reserve/cases/0";

fn broken() -> SuiteCopy {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["redis_layout"]["reserve"]["cases"][0]["expect"]["reserved"][0]["score"] = json!(1061));
    s
}

/// How many cases of the canonical suite need a live Redis, found another way than validate's:
/// the ones an offline `run` of the reference core skips under the runner contract.
fn needing_redis() -> usize {
    static SKIPS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *SKIPS.get_or_init(|| {
        let suite = Suite::load(repo()).unwrap();
        let skips = conformance::run(&suite, &RunOptions::default()).results.counts(None).skip;
        assert!(skips > 50, "redis_layout alone has more: {skips}");
        skips
    })
}

fn with_redis(url: &str) -> Options {
    Options { redis: Some((url.to_owned(), Duration::from_secs(3))), ..Default::default() }
}

#[test]
fn offline_the_redis_cases_are_counted_and_not_run() {
    support::assert_recording_current();
    let v = validate_with(&Suite::load(repo()).unwrap(), &Options::default());
    assert!(v.findings.is_empty(), "{:#?}", v.findings);
    assert_eq!(v.redis, RedisCoverage { cases: needing_redis(), run: 0, pairs_missed: 0 });
}

#[test]
fn a_wrong_redis_expectation_passes_offline_and_is_caught_with_a_live_redis() {
    let s = broken();
    let offline = s.validate_with(&Options::default());
    assert!(
        offline.findings.iter().all(|f| f.code.id != "BQ311"),
        "offline, the Redis case is read, not run: {:#?}",
        offline.findings
    );
    let Some(url) = support::redis_url() else { return };
    let live = s.validate_with(&with_redis(&url));
    let findings = live.findings;
    assert_finding(&findings, "BQ311", "manifest.json", Some(BROKEN_AT));
    assert_eq!(findings.len(), 1, "only the broken case: {findings:#?}");
    assert!(findings[0].message.contains("expected 1061"), "{}", findings[0].message);
    assert_eq!(live.redis, RedisCoverage { cases: needing_redis(), run: needing_redis(), pairs_missed: 0 });
}

#[test]
fn with_a_live_redis_the_reference_passes_every_case_of_the_canonical_suite() {
    let Some(url) = support::redis_url() else { return };
    let v = validate_with(&Suite::load(repo()).unwrap(), &with_redis(&url));
    assert!(v.findings.is_empty(), "{:#?}", v.findings);
    let n = needing_redis();
    assert_eq!(v.redis, RedisCoverage { cases: n, run: n, pairs_missed: 0 });
}

#[test]
fn the_cli_says_what_it_did_not_run_and_requires_a_redis_when_told_to() {
    let n = needing_redis();
    let o = bqsuite_env(&repo(), &["validate"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("validate: {n} cases that need a live Redis were read and checked but not run")),
        "{err}"
    );

    let closed = {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        format!("redis://127.0.0.1:{port}/")
    };
    // From the environment, an unreachable Redis is the runner contract's skip: said, not required.
    let o = bqsuite_env(&repo(), &["validate"], &[("BQ_REDIS_URL", &closed)]);
    assert_eq!(o.status.code(), Some(0), "an unreachable Redis is not required: {}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not run through the reference core: cannot reach Redis at"), "{err}");
    // Named on the command line, it was asked for: validate could not do what it was told.
    let o = bqsuite_env(&repo(), &["validate", "--redis-url", &closed], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(o.stdout.is_empty(), "no verdict on a validation that could not run: {}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot reach Redis at") && err.contains("the Redis was given with --redis-url"), "{err}");

    let o = bqsuite_env(&repo(), &["validate", "--redis-url", &closed], &[("BQ_REQUIRE_REDIS", "1")]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(o.stdout.is_empty(), "no verdict on a validation that could not run: {}", transcript(&o));
    let o = bqsuite_env(&repo(), &["validate"], &[("BQ_REQUIRE_REDIS", "1")]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no Redis is given"), "{}", transcript(&o));
    let o = bqsuite_env(&repo(), &["validate", "--redis-url", "http://nope"], &[]);
    assert_eq!(o.status.code(), Some(2), "a URL that is not a Redis URL is a usage error: {}", transcript(&o));

    let Some(url) = support::redis_url() else { return };
    let o = bqsuite_env(&repo(), &["validate"], &[("BQ_REDIS_URL", &url), ("BQ_REQUIRE_REDIS", "1")]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(o.stderr.is_empty(), "every case ran, so nothing to say: {}", transcript(&o));
}

#[test]
fn release_refuses_a_wrong_redis_expectation_when_it_has_a_redis() {
    let Some(url) = support::redis_url() else { return };
    let s = broken();
    let dist = s.path().join("dist");
    let args = ["release", "--no-previous", "--out", dist.to_str().unwrap()];
    let o = bqsuite_env(s.path(), &args, &[("BQ_REDIS_URL", &url)]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("BQ311 reference-disagrees") && out.contains(BROKEN_AT), "{}", transcript(&o));
    assert!(!dist.exists(), "nothing written: {}", transcript(&o));

    // Offline the case is not run, but on the suite of the recorded version its content is
    // pinned: release refuses all the same (BQ318), and writes nothing.
    support::assert_recording_current();
    let o = bqsuite_env(s.path(), &args, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("BQ318 recorded-case-changed") && out.contains(BROKEN_AT), "{}", transcript(&o));
    assert!(!out.contains("BQ311"), "{}", transcript(&o));
    assert!(!dist.exists(), "nothing written: {}", transcript(&o));
}

#[test]
fn offline_release_says_what_its_gate_did_not_run() {
    let s = SuiteCopy::new();
    let dist = s.path().join("dist");
    let o = bqsuite_env(s.path(), &["release", "--no-previous", "--out", dist.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("release: {} cases that need a live Redis", needing_redis())), "{err}");
}

/// A "Redis" that answers one connection's PING (validate's probe) and then stops listening, so
/// every connection after it is refused.
fn one_ping_redis() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let Ok((mut con, _)) = listener.accept() else { return };
        drop(listener);
        let mut buf = [0u8; 4096];
        while let Ok(n) = con.read(&mut buf) {
            if n == 0 {
                break;
            }
            if String::from_utf8_lossy(&buf[..n]).to_ascii_uppercase().contains("PING") {
                let _ = con.write_all(b"+PONG\r\n");
            }
        }
    });
    format!("redis://127.0.0.1:{port}/")
}

/// Red team of stop 44 (H1): the probe passed, every later connection failed, and `validate
/// --redis-url` said "clean" (exit 0) and `release` built the asset, with no Redis case run.
/// A Redis named on the command line is required: what could not run against it stops the
/// command (exit 2), before `release` writes anything. From BQ_REDIS_URL it is said, not
/// required.
#[test]
fn a_named_redis_that_stops_answering_after_the_probe_stops_validate_and_release() {
    let o = bqsuite_env(&repo(), &["validate", "--redis-url", &one_ping_redis()], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(o.stdout.is_empty(), "no verdict: {}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("could not be run through the reference core against the Redis given"), "{err}");
    assert!(err.contains("the Redis was given with --redis-url, so validate did not do what it was asked"), "{err}");

    let s = SuiteCopy::new();
    let out = tempfile::tempdir().unwrap();
    let dist = out.path().join("dist");
    let args = ["release", "--no-previous", "--out", dist.to_str().unwrap(), "--redis-url"];
    let o = bqsuite_env(s.path(), &[&args[..], &[one_ping_redis().as_str()]].concat(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(!dist.exists(), "nothing written: {}", transcript(&o));

    let o = bqsuite_env(&repo(), &["validate"], &[("BQ_REDIS_URL", &one_ping_redis())]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("read and checked but not run through the reference core: the Redis given answered the first PING, then refused or dropped the connection"), "{err}");
    assert!(
        !err.contains("--redis-url or BQ_REDIS_URL runs them"),
        "the advice to give one, when one was given: {err}"
    );
    // Said once, not once per chunk, and not as skips: validate skips nothing.
    assert!(!err.contains("are skipped (ADR-0033)"), "{err}");
    assert_eq!(err.matches("refused or dropped the connection").count(), 1, "{err}");
}

/// Offline, the recorded catches of a Redis case with its recorded content are the recording's
/// (nothing to say), and those of an edited one cannot be checked: the note counts them (it did
/// not, so a later version's suite could lose a Redis catch with validate clean and silent on it).
#[test]
fn offline_the_cli_counts_the_recorded_catches_it_could_not_check() {
    support::assert_recording_current();
    let o = bqsuite_env(&repo(), &["validate"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("recorded catch"), "{}", transcript(&o));

    let s = SuiteCopy::new();
    let mut id = String::new();
    s.edit_manifest(|m| {
        let case = &mut m["redis_layout"]["reserve"]["cases"][0];
        id = format!("reserve/{}", case["name"].as_str().unwrap());
        case.as_object_mut().unwrap().shift_remove("expect");
        for step in case["steps"].as_array_mut().unwrap() {
            step.as_object_mut().unwrap().shift_remove("expect");
        }
    });
    let pairs =
        bqsuite::sections::power::recorded().pairs.iter().filter(|p| p.section == "redis_layout" && p.id == id).count();
    assert!(pairs > 0, "{id} catches something");
    let o = bqsuite_env(s.path(), &["validate"], &[]);
    assert_eq!(o.status.code(), Some(1), "BQ318: {}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!(", and {pairs} recorded catch(es) of them were not checked")), "{err}");
}
