//! The Redis connection layer of `run`: a URL that does not parse is a usage error, passwords
//! never show, a server that accepts but never answers costs one short timeout and says so,
//! and every key a case creates carries a TTL from the moment it exists.

mod support;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bqsuite::conformance::{Outcome, Status};
use bqsuite::core::redis::{Keys, LayoutKind, Queue, RetryAfter, SystemClock};
use bqsuite::sections::RedisRequired;
use bqsuite::sections::redis::link::{KEY_TTL, RedisLink};
use support::{repo, transcript};

/// How `run` is told where the Redis is.
#[derive(Clone, Copy, Debug)]
enum Via {
    /// `--redis-url`: asked for on the command line, so an unreachable one fails the cases.
    Flag,
    /// `BQ_REDIS_URL`: the runner contract (ADR-0033), so an unreachable one is a skip.
    Env,
}

/// `run --section redis` against `url`, given `via` the flag or the environment, with the
/// caller's BQ_REQUIRE_REDIS removed.
fn run_redis_via(via: Via, url: &str, extra: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bqsuite"));
    cmd.args(["run", "--section", "redis"]).args(extra).current_dir(repo()).env("NO_COLOR", "1");
    cmd.env_remove("BQ_REQUIRE_REDIS").env_remove("BQ_REDIS_URL");
    match via {
        Via::Flag => cmd.args(["--redis-url", url]),
        Via::Env => cmd.env("BQ_REDIS_URL", url),
    };
    cmd.output().unwrap()
}

/// `run --section redis --redis-url url`.
fn run_redis(url: &str, extra: &[&str]) -> std::process::Output {
    run_redis_via(Via::Flag, url, extra)
}

/// What an unreachable Redis makes of the run: a Redis named with `--redis-url` fails the cases
/// that need it (exit 1), one from `BQ_REDIS_URL` lets them be skipped (exit 0).
fn unreachable_exit(via: Via) -> Option<i32> {
    match via {
        Via::Flag => Some(1),
        Via::Env => Some(0),
    }
}

#[test]
fn a_url_that_does_not_parse_is_a_usage_error() {
    for url in ["foo", "http://:hunter2@127.0.0.1/", "redis://:hunter2@[::1/"] {
        let o = run_redis(url, &[]);
        assert_eq!(o.status.code(), Some(2), "{url}: {}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("is not a Redis URL"), "{err}");
        assert!(!err.contains("hunter2"), "the password shows: {err}");
        assert!(o.stdout.is_empty(), "nothing ran: {}", transcript(&o));
    }
    let o = run_redis("", &[]);
    assert_eq!(o.status.code(), Some(2), "an empty --redis-url is not 'no Redis': {}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--redis-url: the URL is empty"), "{}", transcript(&o));
    // With a section that needs no Redis beside: a run of Redis cases alone, given none, judges
    // nothing and is exit 2 (adapter_run's a_narrowed_run_whose_every_case_needs_the_redis_not_given).
    let o = run_redis_via(Via::Env, "", &["--section", "cases"]);
    assert_eq!(o.status.code(), Some(0), "an empty BQ_REDIS_URL is none (the runner contract): {}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no Redis is given"), "{}", transcript(&o));
    let o = run_redis_via(Via::Env, "foo", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("BQ_REDIS_URL: foo is not a Redis URL"), "{}", transcript(&o));
    for bad in ["0", "3601", "18446744073709551616"] {
        let o = run_redis("redis://127.0.0.1:1/", &["--redis-timeout", bad]);
        assert_eq!(o.status.code(), Some(2), "--redis-timeout {bad}: {}", transcript(&o));
    }
}

#[test]
fn a_refused_connection_names_the_url_without_its_password() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    for via in [Via::Flag, Via::Env] {
        let o = run_redis_via(via, &format!("redis://:wrongpass@127.0.0.1:{port}/"), &[]);
        assert_eq!(o.status.code(), unreachable_exit(via), "{via:?}: {}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("redis://:***@127.0.0.1:{port}/")), "{err}");
        assert!(!transcript(&o).contains("wrongpass"), "{}", transcript(&o));
    }
}

/// A Redis named on the command line is asked for: a mistyped port must not turn every Redis
/// case into an allowed skip and the run into a Compatible verdict (the newcomer of stop 44 got
/// "82 skip (82 allowed by the skip policy)" and exit 0). From `BQ_REDIS_URL` the runner
/// contract still holds: skipped, citing ADR-0033, unless BQ_REQUIRE_REDIS is set.
#[test]
fn a_redis_named_with_the_flag_must_answer_one_from_the_environment_may_be_skipped() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("redis://127.0.0.1:{port}/");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let status = |o: &std::process::Output| -> serde_json::Value {
        assert!(o.status.code().is_some(), "{}", transcript(o));
        let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        file["sections"]["redis"]["payload_identity"].clone()
    };

    let o = run_redis_via(Via::Flag, &url, &["--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("the Redis was given with --redis-url, so the cases that need Redis fail"), "{err}");
    let cases = status(&o);
    assert_eq!(cases["status"], "fail", "{cases}");
    assert!(
        cases["reason"].as_str().unwrap().starts_with("the Redis was given with --redis-url and Redis is unreachable"),
        "{cases}"
    );

    let o = run_redis_via(Via::Env, &url, &["--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let cases = status(&o);
    assert_eq!(cases["status"], "skip", "{cases}");
    assert!(cases["reason"].as_str().unwrap().starts_with("ADR-0033"), "{cases}");
}

/// A unix-socket URL carries its password in the query (`?pass=`): it showed on stderr and in
/// the skip reason of every skipped case of the results file.
#[test]
fn a_password_in_a_unix_socket_urls_query_never_shows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    for via in [Via::Flag, Via::Env] {
        for url in ["unix:///nonexistent/redis.sock?pass=REDISSECRET", "redis+unix:///x.sock?db=1&pass=REDISSECRET"] {
            let o = run_redis_via(via, url, &["--out", out.to_str().unwrap()]);
            assert_eq!(o.status.code(), unreachable_exit(via), "{via:?}: {}", transcript(&o));
            assert!(!transcript(&o).contains("REDISSECRET"), "{}", transcript(&o));
            let written = std::fs::read_to_string(&out).unwrap();
            assert!(!written.contains("REDISSECRET") && written.contains(".sock?***"), "{written}");
        }
    }
}

#[test]
fn a_server_that_accepts_but_never_answers_is_connected_but_no_reply() {
    // A loopback listener that accepts connections and never writes a byte.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming().take(16) {
            held.push(s);
        }
        std::thread::sleep(Duration::from_secs(60));
    });
    for (url, says) in [
        (format!("redis://127.0.0.1:{port}/"), "connected to Redis at redis://127.0.0.1:"),
        (format!("redis://:sekrit@127.0.0.1:{port}/"), "connected to Redis at redis://:***@127.0.0.1:"),
    ] {
        let started = Instant::now();
        let o = run_redis(&url, &["--redis-timeout", "1"]);
        assert!(started.elapsed() < Duration::from_secs(30), "the timeout bounds the wait");
        assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says) && err.contains("but no reply within 1s"), "{err}");
        assert!(!err.contains("sekrit") && !err.contains("os error 11"), "{err}");
    }
}

#[test]
fn a_silent_server_costs_one_timeout_the_ping_not_one_per_handshake_command() {
    // What the server is sent before bqsuite gives up. The redis crate's handshake pipelines
    // CLIENT SETINFO LIB-NAME and LIB-VER and awaits each reply for the whole timeout, so a
    // silent server took twice --redis-timeout and the PING that the message is about was
    // never sent. The handshake is now only what the URL asks for (AUTH, SELECT), then PING.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let heard = std::thread::spawn(move || {
        use std::io::Read;
        let (mut s, _) = listener.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        got
    });
    let o = run_redis(&format!("redis://127.0.0.1:{port}/"), &["--redis-timeout", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("but no reply within 1s"), "{}", transcript(&o));
    let heard = String::from_utf8_lossy(&heard.join().unwrap()).into_owned();
    assert!(heard.contains("PING"), "the PING is sent: {heard:?}");
    assert!(!heard.contains("SETINFO"), "no reply is awaited for anything the URL did not ask for: {heard:?}");
}

#[test]
fn every_key_a_case_creates_expires() {
    let Some(url) = support::redis_url() else { return };
    let link = RedisLink::new(Some(&url), RedisRequired::ByEnv);
    let mut observer = redis::Client::open(url.as_str()).unwrap().get_connection().unwrap();
    let outcome: Outcome = link.run(|space| space.with(|con| Ok(case(con, &space.prefix, &mut observer)))?);
    assert_eq!(outcome.status, Status::Pass, "{:?}", outcome.reason);

    fn case(con: &mut dyn redis::ConnectionLike, prefix: &str, observer: &mut redis::Connection) -> Result<(), String> {
        // Plain commands, a MULTI pipeline and the Lua scripts of both layouts create keys.
        for kind in LayoutKind::ALL {
            let keys = Keys::new(kind, prefix, "orders");
            let q = Queue::new(keys, RetryAfter::Seconds(60), Arc::new(SystemClock));
            q.push(con, br#"{"job":"urn:a","data":{},"meta":{"id":"1"}}"#).map_err(|e| e.to_string())?;
            q.reserve(con).map_err(|e| e.to_string())?;
        }
        redis::cmd("SET").arg(format!("{prefix}plain")).arg("x").exec(con).map_err(|e| e.to_string())?;
        let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{prefix}*")).query(observer).unwrap();
        if keys.len() < 4 {
            return Err(format!("expected the keys of both layouts, got {keys:?}"));
        }
        for k in keys {
            let ttl: i64 = redis::cmd("TTL").arg(&k).query(observer).unwrap();
            if !(1..=KEY_TTL as i64).contains(&ttl) {
                return Err(format!("{k} has TTL {ttl}"));
            }
        }
        Ok(())
    }
}

/// `connected`, which tells `run --trace` whether the run has the Redis a failed case needs
/// for the reference core to run it again, never connects, and says whether a case could.
#[test]
fn connected_never_connects_and_says_whether_the_run_could() {
    let nowhere = RedisLink::new(None, RedisRequired::No).quiet();
    assert!(!nowhere.connected());
    assert!(nowhere.reach().is_err());
    assert!(!nowhere.connected(), "a Redis that could not be reached");
    let Some(url) = support::redis_url() else { return };
    let link = RedisLink::new(Some(&url), RedisRequired::ByFlag);
    assert!(!link.connected(), "not before a case connects");
    link.reach().unwrap();
    assert!(link.connected());
}
