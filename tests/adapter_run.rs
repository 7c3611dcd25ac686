//! `bqsuite run --sdk CMD` end to end: the reference adapter gives the in-process results byte
//! for byte (with and without Redis), the kill matrix is the same across the process boundary,
//! the Python example adapter passes its sections and misses exactly the rest, a misbehaving
//! adapter fails the case it hits and nothing else, skips are judged against the skip rules,
//! and every line actually exchanged (and every line of the protocol document's example)
//! follows the committed JSON Schema.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use bqsuite::adapter::AdapterOptions;
use bqsuite::conformance::adapter::{NoSkips, SkipRules, kill_matrix_through, run_adapter};
use bqsuite::conformance::kill::kill_matrix;
use bqsuite::conformance::{RunOptions, Status};
use bqsuite::sdk::reference::Broken;
use bqsuite::sections::RedisRequired;
use bqsuite::sections::redis::link::RUNNER_CONTRACT_ADR;
use bqsuite::suite::{Scope, Suite};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_bqsuite");

/// The sections the Python example adapter is run through in CI.
const PYTHON_SECTIONS: [&str; 8] =
    ["cases", "roundtrip", "data_shape", "forbidden_keys", "extension_write", "encode_reject", "trim", "job_type"];

/// `bqsuite ARGS` in the repository, with a fixed clock and Redis only when `redis` is given.
fn bqsuite(args: &[&str], redis: Option<&str>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(support::repo())
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", "1764489600")
        .env_remove("BQ_REDIS_URL")
        .env_remove("BQ_REQUIRE_REDIS");
    if let Some(url) = redis {
        cmd.env("BQ_REDIS_URL", url).env("BQ_REQUIRE_REDIS", "1");
    }
    cmd.output().expect("bqsuite runs")
}

/// A shell word for `path` (it may hold spaces).
fn word(path: &str) -> String {
    shlex::try_quote(path).expect("a path without NUL").into_owned()
}

fn adapter_cmd() -> String {
    format!("{} adapter", word(BIN))
}

fn misbehave_cmd(mode: &str, at: u32, once: &Path) -> String {
    let script = support::repo().join("tests/adapters/misbehave.py");
    format!(
        "python3 {} {} {mode} {at} --once {}",
        word(&script.display().to_string()),
        word(BIN),
        word(&once.display().to_string())
    )
}

/// How the relay's calls reach it: written ahead (the real adapter's hello declares
/// `pipeline`), or one at a time (`--sequential`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Calls {
    Ahead,
    OneByOne,
}

fn misbehave_cmd_with(mode: &str, at: u32, once: &Path, calls: Calls) -> String {
    let cmd = misbehave_cmd(mode, at, once);
    match calls {
        Calls::Ahead => cmd,
        Calls::OneByOne => format!("{cmd} --sequential"),
    }
}

/// `run --section cases` through the relay over the reference adapter misbehaving as `mode` at
/// call 1, once: its output (exit 1 checked) and the results file's bytes; `None` without
/// python3.
fn run_cases_misbehaving(mode: &str) -> Option<(Output, Vec<u8>)> {
    if !have_python() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let cmd = misbehave_cmd(mode, 1, &dir.path().join("once"));
    let o = bqsuite(&["run", "--sdk", &cmd, "--section", "cases", "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{mode}: {}", support::transcript(&o));
    let file = std::fs::read(&out).expect("the results file exists");
    Some((o, file))
}

fn python_cmd() -> String {
    format!("python3 {}", word(&support::repo().join("examples/adapter-python/adapter.py").display().to_string()))
}

/// python3 is there; outside CI a missing one skips the test, saying so.
fn have_python() -> bool {
    let ok = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "python3 is needed for the adapter tests");
        eprintln!("skipped: python3 is not installed");
    }
    ok
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("the results file exists")).expect("results are JSON")
}

/// One case of a results file: section, id, status, reason.
type CaseOutcome = (String, String, String, Option<String>);

/// Every (section, id, status, reason) of a results file.
fn outcomes(results: &Value) -> Vec<CaseOutcome> {
    let mut out = Vec::new();
    for (section, cases) in results["sections"].as_object().unwrap() {
        for (id, o) in cases.as_object().unwrap() {
            let reason = o.get("reason").and_then(Value::as_str).map(str::to_owned);
            out.push((section.clone(), id.clone(), o["status"].as_str().unwrap().to_owned(), reason));
        }
    }
    out
}

fn the_adapter_run_equals_the_in_process_run(redis: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let (inproc, through) = (dir.path().join("in-process.json"), dir.path().join("adapter.json"));
    let a = bqsuite(&["run", "--out", inproc.to_str().unwrap()], redis);
    let b = bqsuite(&["run", "--sdk", &adapter_cmd(), "--out", through.to_str().unwrap()], redis);
    assert_eq!(a.status.code(), Some(0), "{}", support::transcript(&a));
    assert_eq!(b.status.code(), Some(0), "{}", support::transcript(&b));
    let (x, y) = (std::fs::read(&inproc).unwrap(), std::fs::read(&through).unwrap());
    assert!(x == y, "the results differ:\n{}\n---\n{}", String::from_utf8_lossy(&x), String::from_utf8_lossy(&y));
    let stderr = String::from_utf8_lossy(&b.stderr);
    assert!(stderr.contains("adapter: 0 incident(s), 0 restart(s)"), "{stderr}");
    // A run with no failure has no failure digest, nor a hint (a regression of this stop
    // printed "failed: 0 case(s), 0 reason(s)").
    for o in [&a, &b] {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("failed: ") && !err.contains("--trace"), "{err}");
    }
    // The sections are listed grouped by scope, as the docs list them: core first, otel last.
    let listed: Vec<&str> = stderr.lines().filter_map(|l| l.split_whitespace().next()).collect();
    let at = |s: &str| listed.iter().position(|l| *l == s).unwrap_or_else(|| panic!("{s}: {stderr}"));
    assert!(
        at("poison_dlq") < at("redis") && at("sqs") < at("kafka") && at("kafka_poison") < at("traceparent"),
        "{stderr}"
    );
    assert!(dir.path().join("adapter.log").exists(), "the log is beside --out");
    let skipped = outcomes(&read_json(&through)).iter().filter(|o| o.2 == "skip").count();
    assert_eq!(skipped == 0, redis.is_some(), "with a Redis nothing is skipped, without one the Redis cases are");
}

#[test]
fn the_reference_adapter_writes_the_in_process_results_byte_for_byte_without_redis() {
    the_adapter_run_equals_the_in_process_run(None);
}

#[test]
fn the_reference_adapter_writes_the_in_process_results_byte_for_byte_with_redis() {
    if let Some(url) = support::redis_url() {
        the_adapter_run_equals_the_in_process_run(Some(&url));
    }
}

fn options(redis: Option<String>) -> RunOptions {
    RunOptions {
        require_redis: if redis.is_some() { RedisRequired::ByEnv } else { RedisRequired::No },
        redis_url: redis,
        ..Default::default()
    }
}

fn adapter_options(command: Vec<String>, log: PathBuf) -> AdapterOptions {
    AdapterOptions {
        command,
        timeout: Duration::from_secs(10),
        max_restarts: 0,
        log,
        conformance_version: "1.6.0".into(),
        trace: false,
    }
}

#[test]
fn the_kill_matrix_is_the_same_across_the_process_boundary() {
    let suite = Suite::load(support::repo()).unwrap();
    let redis = support::redis_url();
    let dir = tempfile::tempdir().unwrap();
    let adapter = adapter_options(vec![BIN.into(), "adapter".into()], dir.path().join("log"));
    let through = kill_matrix_through(&suite, &options(redis.clone()), &adapter, &NoSkips).expect("no adapter trouble");
    let inproc = kill_matrix(&suite, &options(redis));
    assert_eq!(through.reference.failing, inproc.reference.failing);
    assert_eq!(through.reference.skipped, inproc.reference.skipped);
    assert_eq!(through.rows.len(), inproc.rows.len());
    for (t, i) in through.rows.iter().zip(&inproc.rows) {
        assert_eq!(t.broken, i.broken);
        assert_eq!(t.failing, i.failing, "{}: other cases fail through the protocol", t.broken);
        assert_eq!(t.skipped, i.skipped, "{}", t.broken);
    }
    // With a Redis, every variant of the catalogue is caught through the protocol too (without
    // one, the Redis variants are caught by no case, in process or not).
    if support::redis_url().is_some() {
        let missed: Vec<_> = through.rows.iter().filter(|r| !r.caught()).map(|r| r.broken.name()).collect();
        assert!(missed.is_empty(), "not caught through the protocol: {missed:?}");
    }
    assert_eq!(through.markdown(), inproc.markdown());
}

/// `reason` with what may change from run to run masked: UUIDs (a made message's `meta.id` and
/// `trace_id`) and numbers (clock readings; the draws of a jitter generator, whose state a
/// call written ahead in vain advances).
fn unstamped(reason: &str) -> String {
    let b = reason.as_bytes();
    let mut out = String::with_capacity(reason.len());
    let mut i = 0;
    while i < b.len() {
        let uuid = b.len() - i >= 36
            && b[i..i + 36].iter().enumerate().all(|(k, c)| match k {
                8 | 13 | 18 | 23 => *c == b'-',
                _ => c.is_ascii_hexdigit(),
            });
        let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if uuid {
            out.push_str("<uuid>");
            i += 36;
        } else if digits > 0 {
            out.push_str("<n>");
            i += digits;
        } else {
            let c = reason[i..].chars().next().expect("i is on a character boundary");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Calls written ahead are predicted from the reference core; an SDK that answers otherwise
/// makes other calls, and those are made when its cases come to them. Whatever an SDK
/// answers, writing ahead must not change an outcome: every broken variant of the catalogue,
/// served with and without `pipeline`, gives the same statuses and reasons (what may differ by
/// chance masked). A case's later call is written ahead only once the SDK answered the earlier
/// ones as the reference did, so none is written in vain, and an SDK that answers otherwise
/// makes more calls one at a time.
#[test]
fn calls_written_ahead_change_no_outcome_whatever_the_sdk_answers() {
    let suite = Suite::load(support::repo()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let mut command = vec![BIN.to_owned(), "adapter".to_owned()];
        command.extend(extra.iter().map(|s| (*s).to_owned()));
        let (run, summary) =
            run_adapter(&suite, &options(None), adapter_options(command, dir.path().join("log")), &NoSkips)
                .expect("the adapter starts");
        assert!(summary.incidents.is_empty(), "{extra:?}: {summary}");
        let mut got = outcomes(&serde_json::json!({"sections": run.results.sections}));
        for o in &mut got {
            o.3 = o.3.as_deref().map(unstamped);
        }
        (got, summary)
    };
    let (_, reference) = run(&[]);
    let mut mispredicted = 0;
    // The Lua variants act only in the Redis scripts, whose cases need a Redis and touch a
    // broker: none of their calls is ever written ahead.
    let variants: Vec<_> = Broken::ALL.iter().filter(|b| !b.name().starts_with("lua-")).collect();
    for broken in &variants {
        let name = broken.name();
        let (ahead, summary) = run(&["--broken", name]);
        let (one_by_one, sequential) = run(&["--broken", name, "--sequential"]);
        assert_eq!(ahead, one_by_one, "{name}: writing calls ahead changed an outcome");
        let (sent, used) = summary.ahead.expect("the reference adapter declares pipeline");
        assert!(sent > 0 && sequential.ahead.is_none(), "{name}: {summary} / {sequential}");
        assert_eq!(sent, used, "{name}: a call was written ahead in vain: {summary}");
        mispredicted += summary.one_by_one.saturating_sub(reference.one_by_one);
    }
    assert!(mispredicted > 0, "some broken variant makes calls other than the predicted ones");
}

/// A later call of a case is predicted from the reference core's answers to its earlier calls
/// (`extension_write` re-emits the envelope `make` produced), so written before the adapter
/// answered those, it would show the adapter the answer it is asked for. `peek_ahead.py`'s
/// `make` drops every meta entry, and answers a `make` with the body of a following `reemit` of
/// the same case when one is waiting on its stdin: it must fail every case, as it does with
/// one call at a time (it used to pass all five).
#[test]
fn a_call_written_ahead_never_shows_the_adapter_the_answer_it_is_asked_for() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let log = dir.path().join("adapter.log");
    let script = support::repo().join("tests/adapters/peek_ahead.py");
    let cmd = format!("python3 {} {}", word(&script.display().to_string()), word(BIN));
    let args = ["run", "--sdk", &cmd, "--section", "extension_write", "--out", out.to_str().unwrap()];
    let o = bqsuite(&[&args[..], &["--adapter-log", log.to_str().unwrap()]].concat(), None);
    let t = support::transcript(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    let got = outcomes(&read_json(&out));
    assert_eq!(got.len(), 5, "{got:?}");
    for (_, id, status, reason) in &got {
        assert_eq!(status, "fail", "{id} passed on an answer read off a call written ahead");
        assert!(reason.as_deref().unwrap_or_default().starts_with("after make: "), "{id}: {reason:?}");
    }
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains("peek_ahead: found 0 answer(s)"), "{log}");
    assert!(t.contains("call(s) written ahead"), "the adapter declared pipeline: {t}");
}

/// The core sections of the manifest that the Python example is not run through.
fn core_sections_left_out(suite: &Suite) -> BTreeSet<String> {
    suite
        .sections()
        .into_iter()
        .filter(|s| s.scope == Some(Scope::Core) && !PYTHON_SECTIONS.contains(&s.name))
        .map(|s| s.name.to_owned())
        .collect()
}

#[test]
fn the_python_example_passes_its_sections_and_results_check_names_exactly_the_missing_ones() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let cmd = python_cmd();
    let mut args = vec!["run", "--sdk", &cmd, "--out", out.to_str().unwrap()];
    for s in PYTHON_SECTIONS {
        args.extend(["--section", s]);
    }
    let o = bqsuite(&args, None);
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    let results = read_json(&out);
    assert_eq!(results["sdk"], "babelqueue-python-example");
    assert_eq!(results["bindings"], serde_json::json!([]));
    let got: BTreeSet<&str> = results["sections"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(got, PYTHON_SECTIONS.into_iter().collect(), "exactly the sections asked for");
    let not_passed: Vec<_> = outcomes(&results).into_iter().filter(|o| o.2 != "pass").collect();
    assert!(not_passed.is_empty(), "{not_passed:#?}");

    let check = bqsuite(&["results", "check", out.to_str().unwrap(), "--format", "json"], None);
    assert_eq!(check.status.code(), Some(1), "{}", support::transcript(&check));
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    let suite = Suite::load(support::repo()).unwrap();
    let missing = core_sections_left_out(&suite);
    let findings = report["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f["code"] == "BQ605"), "only missing sections: {findings:#?}");
    let named: BTreeSet<String> = findings
        .iter()
        .filter_map(|f| f["message"].as_str().and_then(|m| m.split('"').nth(1)).map(str::to_owned))
        .collect();
    assert_eq!((findings.len(), named), (missing.len(), missing.clone()));
    let verdict = &report["verdicts"][0];
    assert_eq!(verdict["verdict"], "Not compatible");
    assert_eq!(verdict["reasons"], serde_json::json!([format!("BQ605 results-missing-section ×{}", missing.len())]));
}

#[test]
fn the_python_example_fails_every_case_of_an_operation_it_does_not_implement() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let o = bqsuite(&["run", "--sdk", &python_cmd(), "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let suite = Suite::load(support::repo()).unwrap();
    let mut failing = BTreeSet::new();
    for (section, id, status, reason) in outcomes(&read_json(&out)) {
        match status.as_str() {
            "pass" => assert!(PYTHON_SECTIONS.contains(&section.as_str()), "{section}/{id} passed"),
            "fail" => {
                let reason = reason.unwrap_or_default();
                assert!(
                    reason.ends_with(" is not implemented by babelqueue-python-example"),
                    "{section}/{id}: {reason}"
                );
                failing.insert(section);
            }
            other => panic!("{section}/{id} is {other}: never a skip for what is not implemented"),
        }
    }
    assert_eq!(failing, core_sections_left_out(&suite));
}

/// The run's stderr groups the failed cases by reason, the most common first, so an adapter's
/// author sees what to fix without opening the results file: at most ten reasons, each cut to
/// 200 characters and shown terminal-safe, then where the rest are.
#[test]
fn a_failing_run_names_its_most_common_reasons() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Every call fails: call 1 with a long message holding an escape, calls 2 to 4 alike, calls
    // 5 and 6 alike, and every later one with a message of its own.
    let script = dir.path().join("adapter.py");
    std::fs::write(
        &script,
        r#"import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["cmd"] == "hello":
        r = {"reply": "hello", "protocol": 1, "sdk": "failing-sdk", "version": "1", "language": "python",
             "bindings": [], "operations": ["make", "decode", "reemit"]}
    elif m["cmd"] == "shutdown":
        break
    else:
        n = m["seq"]
        text = "\x1b[31mred " + "y" * 300 if n == 1 else "alike" if n <= 4 else "a pair" if n <= 6 else "call %d" % n
        r = {"reply": "error", "seq": n, "message": text}
    print(json.dumps(r), flush=True)
"#,
    )
    .unwrap();
    let out = dir.path().join("results.json");
    let cmd = format!("python3 {}", word(&script.display().to_string()));
    let mut args = vec!["run", "--sdk", &cmd, "--out", out.to_str().unwrap()];
    args.extend([
        "--section",
        "cases",
        "--section",
        "roundtrip",
        "--section",
        "data_shape",
        "--section",
        "forbidden_keys",
    ]);
    let o = bqsuite(&args, None);
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let digest: Vec<&str> =
        err.lines().skip_while(|l| !l.starts_with("failed: ")).take_while(|l| !l.starts_with("run: ")).collect();
    let got = outcomes(&read_json(&out));
    let reasons: BTreeSet<_> = got.iter().map(|o| o.3.clone()).collect();
    assert!(got.iter().all(|o| o.2 == "fail") && reasons.len() > 10, "{got:#?}");
    assert_eq!(
        digest[0],
        format!("failed: {} case(s), {} reason(s), the most common first:", got.len(), reasons.len())
    );
    assert_eq!(
        digest.len(),
        14,
        "ten reasons, then where the rest are, how to see one case and what it holds an SDK to: {err}"
    );
    let more = format!(
        "  … and {} more reason(s); `bqsuite results check {}` lists every case",
        reasons.len() - 10,
        out.display()
    );
    assert_eq!(digest[11], more);
    // The case whose trace is suggested is one the adapter was sent: not one that failed for
    // want of an operation its hello leaves out (a trace of that shows no exchange).
    let log = out.with_file_name("adapter.log");
    let named = digest[12]
        .strip_prefix("to see what one case sent the adapter and got back: add `--section ")
        .and_then(|rest| rest.strip_suffix(&format!(" --trace` (the exchange goes to {})", log.display())))
        .and_then(|rest| rest.split_once(" --case "))
        .unwrap_or_else(|| panic!("{}", digest[12]));
    // Then what that case holds an SDK to, as a command that prints it from the suite.
    let explain = digest[13]
        .strip_prefix("what that case holds an SDK to: `")
        .and_then(|rest| rest.strip_suffix('`'))
        .unwrap_or_else(|| panic!("{}", digest[13]));
    let words: Vec<&str> = explain.split(' ').collect();
    assert_eq!(words[1..], ["explain", &format!("{}/{}", named.0, named.1)], "{explain}");
    let shown = bqsuite(&words[1..], None);
    assert_eq!(shown.status.code(), Some(0), "{}", support::transcript(&shown));
    assert!(
        String::from_utf8_lossy(&shown.stdout).starts_with(&format!("{} / {} (suite ", named.0, named.1)),
        "{}",
        support::transcript(&shown)
    );
    let reason = got.iter().find(|o| (o.0.as_str(), o.1.as_str()) == named).map(|o| o.3.clone());
    assert!(
        reason.as_ref().is_some_and(|r| r.as_deref().is_some_and(|r| r.contains("the SDK failed"))),
        "{named:?}: {reason:?}"
    );
    // Run from elsewhere on a suite named by --suite, the command it suggests names it too.
    let elsewhere = Command::new(BIN)
        .args(&args)
        .args(["--suite", support::repo().to_str().unwrap()])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .env_remove("BQ_REDIS_URL")
        .output()
        .unwrap();
    let more = format!("{} --suite {}` lists every case", out.display(), word(support::repo().to_str().unwrap()));
    assert!(String::from_utf8_lossy(&elsewhere.stderr).contains(&more), "{}", support::transcript(&elsewhere));
    let counts: Vec<usize> =
        digest[1..11].iter().map(|l| l.trim_start().split('×').next().unwrap().parse().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "the most common first: {err}");
    assert!(
        digest.iter().any(|l| l.starts_with("     3× ") && l.ends_with(" and 2 more: the SDK failed: alike")),
        "{err}"
    );
    // A reason of two cases names both (not "and 1 more"), the second by its id alone when it is
    // of the first's section.
    let pair: Vec<&CaseOutcome> = got.iter().filter(|o| o.3.as_deref() == Some("the SDK failed: a pair")).collect();
    let [a, b] = pair[..] else { panic!("{got:#?}") };
    let second = if a.0 == b.0 { b.1.clone() } else { format!("{} / {}", b.0, b.1) };
    let line = format!("     2× {} / {} and {second}: the SDK failed: a pair", a.0, a.1);
    assert!(digest.contains(&line.as_str()), "{line}\n{err}");
    // A reason shared by cases of several sections says how many each: `accepts` is not
    // declared, and `cases` and `data_shape` call it.
    let lacking = Some("accepts is not implemented by failing-sdk".to_owned());
    let mut per_section: Vec<(String, usize)> = Vec::new();
    for (section, ..) in got.iter().filter(|o| o.3 == lacking) {
        match per_section.last_mut() {
            Some((s, n)) if s == section => *n += 1,
            _ => per_section.push((section.clone(), 1)),
        }
    }
    assert!(per_section.len() > 1, "{per_section:?}");
    let n: usize = per_section.iter().map(|(_, n)| n).sum();
    let each: Vec<String> = per_section.iter().map(|(s, n)| format!("{s} {n}")).collect();
    let line = format!(
        "{n:>6}× cases / order-created and {} more (all {n}: {}): accepts is not implemented by failing-sdk",
        n - 1,
        each.join(", ")
    );
    assert!(digest.contains(&line.as_str()), "{line}\n{err}");
    // Call 1's message, shown with its escape written out by code point (as every character a
    // reader cannot see is, in the reason itself) and cut.
    let long = digest.iter().find(|l| l.contains("red yyy")).expect("the long reason is listed");
    assert!(long.contains(": the SDK failed: \\u{001b}[31mred yyy") && long.ends_with("y …"), "{long}");
    assert!(!err.contains('\u{1b}') && long.len() < 300, "{long}");
}

/// One fault of an adapter is one reason of the digest, whatever value each call met: a
/// retry_delay answered with a bare integer (a different one per call) where the protocol wants
/// an array is told by the integer's type, not its value. And when every failure is an
/// operation the adapter lacks, no trace of its own can show an exchange, so the hint is the
/// reference adapter's run of one of those cases, which works as written.
#[test]
fn one_fault_is_one_reason_and_a_lacking_operation_points_at_the_reference() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("adapter.py");
    std::fs::write(
        &script,
        r#"import json, sys
ops = sys.argv[1:]
for line in sys.stdin:
    m = json.loads(line)
    if m["cmd"] == "hello":
        r = {"reply": "hello", "protocol": 1, "sdk": "shape-sdk", "version": "1", "language": "python",
             "bindings": [], "operations": ops}
    elif m["cmd"] == "shutdown":
        break
    else:
        r = {"reply": "result", "seq": m["seq"], "response": {"op": "retry_delay", "result": 1000 + m["seq"]}}
    print(json.dumps(r), flush=True)
"#,
    )
    .unwrap();
    let out = dir.path().join("results.json");
    // Run from a directory of its own (the hint's log is written there), on the suite named.
    let run = |ops: &str| {
        let cmd = format!("python3 {} {ops}", word(&script.display().to_string()));
        Command::new(BIN)
            .args(["run", "--sdk", &cmd, "--section", "retry_backoff", "--out", out.to_str().unwrap()])
            .args(["--suite", support::repo().to_str().unwrap()])
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .env_remove("BQ_REDIS_URL")
            .output()
            .unwrap()
    };
    let o = run("retry_delay");
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let n = outcomes(&read_json(&out)).len();
    assert!(n > 10, "{err}");
    assert!(err.contains(&format!("failed: {n} case(s), 1 reason(s), the most common first:")), "{err}");
    assert!(err.contains("/response/result is an integer, where the protocol wants an array"), "{err}");

    let o = run("");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("retry_delay is not implemented by shape-sdk"), "{err}");
    let hint = err
        .lines()
        .find_map(|l| {
            l.strip_prefix(
                "no failed case was sent to the adapter (an operation its hello lacks, or nothing reached it); to see what an SDK is sent for one that needs an operation it lacks, and what the reference core answers: `",
            )
        })
        .and_then(|l| l.strip_suffix('`'))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(!err.contains("add `--section"), "no trace of the adapter's own is suggested: {err}");
    // Started by its path, the binary names itself by that path, twice: the suggestion runs
    // as it is, with no bqsuite on PATH.
    let words = shlex::split(hint).unwrap();
    assert_eq!(&words[..3], [BIN, "run", "--suite"], "{hint}");
    assert_eq!(&words[4..6], ["--sdk".to_owned(), format!("{} adapter", word(BIN))], "{hint}");
    let reference = Command::new(&words[0])
        .args(&words[1..])
        .current_dir(dir.path())
        .env("PATH", "/usr/bin:/bin")
        .env_remove("BQ_REDIS_URL")
        .output()
        .unwrap();
    assert_eq!(reference.status.code(), Some(0), "{}", support::transcript(&reference));
    let log = std::fs::read_to_string(dir.path().join("reference.log")).unwrap();
    assert!(log.contains(r#""op":"retry_delay""#) && log.contains("← "), "{log}");
}

/// `--case` through an adapter: only the cases selected run, and only their calls are written
/// ahead (every call written ahead is used: none belongs to a case that does not run).
#[test]
fn a_case_selection_writes_ahead_only_the_calls_of_its_cases() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let args = ["run", "--sdk", &adapter_cmd(), "--case", "order-created", "--case", "sequences/"];
    let o = bqsuite(&[&args[..], &["--out", out.to_str().unwrap()]].concat(), None);
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    let got = outcomes(&read_json(&out));
    assert!(got.iter().all(|o| o.2 == "pass" && (o.1 == "order-created" || o.1.starts_with("sequences/"))), "{got:#?}");
    assert!(got.len() > 2, "{got:#?}");
    let err = String::from_utf8_lossy(&o.stderr);
    let ahead = err.split("; ").find(|p| p.contains("written ahead")).expect("calls were written ahead");
    let (written, used) = ahead.split_once(" call(s) written ahead (").unwrap();
    assert_eq!(format!("{written} used), 0 one at a time"), used, "{err}");
    assert!(written.parse::<usize>().unwrap() >= got.len(), "{err}");
}

#[test]
fn a_section_asked_for_that_the_sdk_does_not_carry_is_a_usage_error_not_an_empty_pass() {
    // The Python example declares no binding: `--section delay` (scope sqs) cannot run, and
    // a results file with no section and exit 0 ("every case passed") would say it did.
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let o = bqsuite(
        &["run", "--sdk", &python_cmd(), "--section", "delay", "--section", "cases", "--out", out.to_str().unwrap()],
        None,
    );
    let t = support::transcript(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("delay") && t.contains("sqs") && t.contains("bindings"), "{t}");
    assert!(!out.exists(), "no results file is written");
}

/// A run of `cases` and `roundtrip` through the misbehaving relay, misbehaving once at call
/// `at`, with calls written ahead and one at a time: one case fails with `says`, everything
/// else is what the reference gives.
fn misbehaves_once(mode: &str, at: u32, timeout: &str, says: &str) {
    for calls in [Calls::Ahead, Calls::OneByOne] {
        misbehaves_once_with(mode, at, timeout, says, calls);
    }
}

fn misbehaves_once_with(mode: &str, at: u32, timeout: &str, says: &str, calls: Calls) {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (reference, out) = (dir.path().join("reference.json"), dir.path().join("out.json"));
    let sections = ["--section", "cases", "--section", "roundtrip"];
    let mut args = vec!["run", "--out", reference.to_str().unwrap()];
    args.extend(sections);
    assert_eq!(bqsuite(&args, None).status.code(), Some(0));
    let cmd = misbehave_cmd_with(mode, at, &dir.path().join("once"), calls);
    let mut args = vec!["run", "--sdk", &cmd, "--timeout", timeout, "--out", out.to_str().unwrap()];
    args.extend(sections);
    let o = bqsuite(&args, None);
    let mode = format!("{mode} ({calls:?})");
    assert_eq!(o.status.code(), Some(1), "{mode}: {}", support::transcript(&o));
    let (want, got) = (outcomes(&read_json(&reference)), outcomes(&read_json(&out)));
    assert_eq!(want.len(), got.len());
    let differ: Vec<_> = want.iter().zip(&got).filter(|(w, g)| w != g).map(|(_, g)| g.clone()).collect();
    assert_eq!(differ.len(), 1, "{mode}: exactly one case differs: {differ:#?}");
    assert_eq!(differ[0].2, Status::Fail.as_str());
    let reason = differ[0].3.clone().unwrap_or_default();
    assert!(reason.contains(says), "{mode}: {reason}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("adapter: 1 incident(s), 1 restart(s)"), "{mode}: {stderr}");
    assert_eq!(stderr.contains("written ahead"), calls == Calls::Ahead, "{mode}: {stderr}");
    assert!(
        stderr.contains(&format!("  {} {}: call ", differ[0].0, differ[0].1)),
        "{mode}: the summary names the case: {stderr}"
    );
}

/// A reason quotes what the adapter said, and an adapter can say megabytes: an error of 2 MB
/// on every call made a 320 MB results file that `results check` refused to read ("more than
/// the 64 MiB this file may have"). A reason is cut, saying so.
#[test]
fn a_long_error_message_is_cut_in_the_results_file() {
    let Some((_, file)) = run_cases_misbehaving("long-error") else { return };
    let got = outcomes(&serde_json::from_slice(&file).unwrap());
    let (status, reason) = outcome_of(&got, "cases", "order-created");
    assert_eq!(status, "fail");
    assert!(reason.starts_with("the SDK failed: boom xxx"), "{}", &reason[..80]);
    let suffix = format!("… (cut: {} bytes in all)", "the SDK failed: boom ".len() + (1 << 20));
    assert!(reason.ends_with(&suffix), "{}", &reason[reason.len() - 80..]);
    assert!(reason.len() <= bqsuite::results::MAX_REASON, "{}", reason.len());
    assert!(file.len() < 1 << 20, "the file holds no megabyte of it");
}

#[test]
fn a_crash_mid_run_fails_one_case_and_the_rest_runs_on_a_restarted_adapter() {
    misbehaves_once("crash", 5, "10", "exited (exit status: 3) before answering");
}

/// A crashed adapter whose helper holds its stdout open gives no end of file: the exit is
/// seen all the same (it used to fail the case only after --timeout, as "gave no answer", and
/// this timeout is longer than the whole test may take).
#[cfg(target_os = "linux")]
#[test]
fn a_crash_is_seen_while_a_helper_holds_the_adapters_stdout() {
    misbehaves_once("crash-held", 5, "30", "exited (exit status: 3) before answering");
}

/// `--trace` puts the exchange in the log, in order with the adapter's stderr: the hello both
/// ways, each call and its reply, each case's verdict and, for a failed case, the reference
/// core's answers where the adapter's differ, and the shutdown. Without it the log holds none
/// of that.
#[test]
fn trace_writes_the_exchange_to_the_log() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let log = dir.path().join("adapter.log");
    // Call 1 (accepts of order-created) is answered "yes\x07" instead of true.
    let cmd = misbehave_cmd("bad-shape", 1, &dir.path().join("once"));
    let args = ["run", "--sdk", &cmd, "--section", "cases", "--case", "order-created", "--out", out.to_str().unwrap()];
    let o = bqsuite(&[&args[..], &["--trace"]].concat(), None);
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("--trace"), "no hint to do what is done");
    // Narrowed: it says why no verdict follows (newcomer: nothing did).
    assert!(
        err.contains(&format!(
            "run: 0 pass, 1 fail, 0 skip (suite {} at .); a partial run (--section / --case), so no verdict",
            support::version()
        )),
        "{err}"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at =
        |prefix: &str| lines.iter().position(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}: {text}"));
    let hello = at(r#"→ {"cmd":"hello","protocol":1,"#);
    let hello_back = at(r#"← {"reply":"hello","protocol":1,"#);
    let call =
        at(r#"→ {"cmd":"call","seq":1,"section":"cases","case":"order-created","request":{"op":"accepts","body":""#);
    // As the adapter wrote it (Python's separators).
    // The body's bytes, which travel as base64, as text beside the call (a line break escaped).
    assert!(
        lines[call + 1].starts_with(r#"  /request/body as text: {\u000a  "job": "urn:babel:orders:created","#),
        "{text}"
    );
    let reply = at(r#"← {"reply": "result", "seq": 1, "response": {"op": "accepts", "result": "yes\u0007"}}"#);
    let verdict = at("== bqsuite: cases order-created: fail: ");
    let reference = at(r#"≠ reference, call 1: {"op":"accepts","result":true}"#);
    let shutdown = at(r#"→ {"cmd":"shutdown"}"#);
    assert!(
        hello < hello_back
            && hello_back < call
            && call < reply
            && reply < verdict
            && verdict < reference
            && reference < shutdown,
        "{text}"
    );

    // Misbehaving once only: it answers as the reference does now.
    let o = bqsuite(&args, None);
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("== bqsuite: start 1 of the adapter"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with(['→', '←', '≠'])), "{text}");

    // A passing case's differences from the reference (the example adapter's `make` stamps
    // its own meta.id and lang) are not the judge's, and are not told (newcomer B4: a passing
    // run's trace held 166 of them).
    let cmd = python_cmd();
    let o = bqsuite(
        &["run", "--sdk", &cmd, "--section", "extension_write", "--out", out.to_str().unwrap(), "--trace"],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains(r#""result":{"kind":"made","#), "make was called and answered: {text}");
    assert!(text.contains("\n== bqsuite: extension_write flat-scalar-key: pass\n"), "{text}");
    assert!(!text.contains("≠ reference"), "{text}");
}

/// `--trace` marks where the adapter's answers differ from the reference core's in a case that
/// needs Redis too (it did not: such a case is never predicted, its calls touching a broker).
/// The reference core runs a failed one again after it, on the same Redis under a key prefix of
/// its own, and what each side names on its own is not compared: the prefix, a reservation's
/// name and its random token, or every reserve would be marked.
#[test]
fn trace_marks_where_a_failed_redis_case_differs_from_the_reference() {
    let Some(url) = support::redis_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let log = dir.path().join("adapter.log");
    // The legacy ack without its ZREM gate applies an ack the reference refuses.
    let cmd = format!("{} --broken redis-ack-without-gate", adapter_cmd());
    let case = "late_ack/ack-with-a-swept-token-changes-nothing";
    let args = ["run", "--sdk", &cmd, "--section", "redis_layout", "--case", case, "--out", out.to_str().unwrap()];
    let o = bqsuite(&[&args[..], &["--trace"]].concat(), Some(&url));
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let seq_of = |op: &str| {
        let call = lines
            .iter()
            .find(|l| l.starts_with(r#"→ {"cmd":"call""#) && l.contains(&format!(r#""request":{{"op":"{op}""#)))
            .unwrap_or_else(|| panic!("{op}: {text}"));
        let v: Value = serde_json::from_str(call.strip_prefix("→ ").unwrap()).unwrap();
        v["seq"].as_u64().unwrap()
    };
    // The reserve answered a token of its own, which the reference's cannot equal.
    assert!(text.contains(r#""op":"redis_reserve","result":{"reservation":"r1","poison":false,"token":""#), "{text}");
    let marked: Vec<&&str> = lines.iter().filter(|l| l.starts_with('≠')).collect();
    assert_eq!(
        marked,
        [&format!(r#"≠ reference, call {}: {{"op":"redis_ack","result":false}}"#, seq_of("redis_ack")).as_str()],
        "only the ack differs: {text}"
    );
    let at =
        |prefix: &str| lines.iter().position(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}: {text}"));
    let (verdict, reference) = (at(&format!("== bqsuite: redis_layout {case}: fail: ")), at("≠ reference"));
    assert!(verdict < reference && reference < at(r#"→ {"cmd":"shutdown"}"#), "{text}");
    // The adapter that does as the reference does passes, and nothing is marked.
    let args =
        ["run", "--sdk", &adapter_cmd(), "--section", "redis_layout", "--case", case, "--out", out.to_str().unwrap()];
    let o = bqsuite(&[&args[..], &["--trace"]].concat(), Some(&url));
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    assert!(!std::fs::read_to_string(&log).unwrap().contains('≠'));
}

/// `--trace` marks where the adapter's answers differ from the reference core's in an ordinary
/// case of an adapter that does not pipeline too (it did not: no call was predicted, so no
/// reference answer was known). The reference core runs the failed case again after it, which
/// changes neither the outcome nor the results file; a pipelining adapter's case, compared with
/// its predictions, is marked as before, once.
#[test]
fn trace_marks_where_a_failed_case_of_an_adapter_that_does_not_pipeline_differs_from_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let log = dir.path().join("adapter.log");
    let case = "trace-id-31-hex";
    let run = |calls: Calls, trace: bool| {
        // The parser takes a trace id of 31 hex digits, which the reference refuses.
        let broken = format!("{} --broken traceparent-accepts-31-hex", adapter_cmd());
        let cmd = if calls == Calls::OneByOne { format!("{broken} --sequential") } else { broken };
        let args = ["run", "--sdk", &cmd, "--section", "traceparent", "--case", case, "--out", out.to_str().unwrap()];
        let o = bqsuite(&[&args[..], if trace { &["--trace"][..] } else { &[][..] }].concat(), None);
        assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
        let mut results: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        results["generated_at"] = Value::Null;
        (results, std::fs::read_to_string(&log).unwrap())
    };
    for calls in [Calls::OneByOne, Calls::Ahead] {
        let (traced, text) = run(calls, true);
        let pipelines = !text.contains(r#""pipeline":false"#);
        assert_eq!(pipelines, calls == Calls::Ahead, "{text}");
        let lines: Vec<&str> = text.lines().collect();
        let call = lines
            .iter()
            .find(|l| l.starts_with(r#"→ {"cmd":"call""#) && l.contains(r#""request":{"op":"traceparent_extract""#))
            .unwrap_or_else(|| panic!("{calls:?}: {text}"));
        let seq = serde_json::from_str::<Value>(call.strip_prefix("→ ").unwrap()).unwrap()["seq"].as_u64().unwrap();
        let marked: Vec<&&str> = lines.iter().filter(|l| l.starts_with('≠')).collect();
        assert_eq!(marked.len(), 1, "{calls:?}: {text}");
        assert!(marked[0].starts_with(&format!(r#"≠ reference, call {seq}: {{"op":"traceparent_extract","#)), "{text}");
        assert!(marked[0].contains(r#""source":"fallback""#), "the reference falls back: {text}");
        let at = |prefix: &str| {
            lines.iter().position(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}: {text}"))
        };
        let verdict = at(&format!("== bqsuite: traceparent {case}: fail: "));
        assert!(verdict < at("≠ reference") && at("≠ reference") < at(r#"→ {"cmd":"shutdown"}"#), "{text}");
        // The reference's run sends the adapter nothing: one call, as without --trace.
        assert_eq!(lines.iter().filter(|l| l.starts_with(r#"→ {"cmd":"call""#)).count(), 1, "{text}");
        // Nor does it change the results, byte for byte but the time.
        let (untraced, _) = run(calls, false);
        assert_eq!(traced, untraced, "{calls:?}");
    }
}

/// A hello that does not follow the protocol is told where, as a reply is: the member and what
/// the protocol wants there, not only serde's message.
#[test]
fn a_hello_of_the_wrong_shape_is_told_where() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let bad = format!("{} --hello {}", misbehave_cmd("relay", 1, &dir.path().join("once")), word(r#"{"sdk": 5}"#));
    let o = bqsuite(&["run", "--sdk", &bad, "--section", "cases", "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("gave a hello that does not follow the protocol: /sdk is an integer, where the protocol wants a string of at most 200 characters"),
        "{err}"
    );
}

/// What an adapter writes reaches stderr only escaped and cut: a reply kind holding a line
/// break, a GitHub workflow command, an ANSI escape and a bidi override (quoted by the parse
/// error) used to print as it was, so under the action it became a forged annotation, and a
/// long one made megabytes of stderr per incident.
#[test]
fn an_adapters_text_never_reaches_stderr_raw() {
    let Some((o, _)) = run_cases_misbehaving("inject") else { return };
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("answered with a reply that does not follow the protocol"), "{err}");
    assert!(!err.lines().any(|l| l.starts_with("::")), "a workflow command on a line of its own: {err}");
    assert!(!err.contains(['\u{1b}', '\u{202e}']), "{err}");
    // Where it departs: the reply kind as JSON, its line break written `\n`.
    assert!(err.contains(r#"/reply is "x\n::error title=Injected::forged"#), "{err}");
    assert!(err.len() < 8 << 10, "stderr is {} bytes", err.len());
    // The hello's text too, when the first hello fails.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let bad = format!(
        "{} --hello {}",
        misbehave_cmd("relay", 1, &dir.path().join("once2")),
        word(r#"{"bindings": ["x\u202e\n::error::no"]}"#)
    );
    let o = bqsuite(&["run", "--sdk", &bad, "--section", "cases", "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is not a binding of the contract") && err.contains("\\u202e"), "{err}");
    assert!(!err.contains('\u{202e}') && !err.lines().any(|l| l.starts_with("::")), "{err}");
}

/// With no restart allowed, the crash loses the adapter for the rest of the run, and the summary
/// says the budget is used up.
#[test]
fn a_crash_with_no_restart_allowed_uses_the_budget_up() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let cmd = misbehave_cmd("crash", 5, &dir.path().join("once"));
    let o = bqsuite(
        &["run", "--sdk", &cmd, "--section", "cases", "--max-restarts", "0", "--out", out.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("adapter: 1 incident(s), 0 restart(s), restarts used up"), "{err}");
    // The digest groups the transport's reasons with the call's number written N, but a reason
    // of one case is shown as written, its call's number and all.
    assert!(err.lines().any(|l| l.starts_with("     1× ") && l.contains("adapter: call 5 (")), "{err}");
}

/// A reply written without its line feed is told so, with what was written: "gave no answer"
/// sent its author looking for a hang.
#[test]
fn a_reply_without_its_line_feed_is_told_so() {
    misbehaves_once("no-newline", 5, "0.5", r#"bytes but no line end within 0.5 s ({"reply":"result""#);
}

#[test]
fn a_hang_fails_one_case_after_the_timeout() {
    misbehaves_once("hang", 5, "0.5", "gave no answer within 0.5 s (--timeout)");
}

/// A reply with an escaped lone surrogate follows the JSON grammar, but is no Unicode text:
/// serde_json's "unexpected end of hex escape" pointed at nothing wrong. A line in another
/// encoding than UTF-8 (a JVM whose platform encoding is Latin-1) said "invalid unicode code
/// point".
#[test]
fn a_line_that_is_not_unicode_text_says_why() {
    misbehaves_once("lone-surrogate", 3, "5", "a lone surrogate escape at byte");
    misbehaves_once("latin1", 3, "5", "not UTF-8 (a byte at offset");
    // A banner is not blamed on its encoding (red team M4): it is no reply at all.
    misbehaves_once("latin1-banner", 3, "5", "not JSON (expected value at line 1 column 1): D\u{fffd}marrage");
}

/// No hello: the message names the hello's own wait (at least 10 s, whatever --timeout says)
/// and the usual cause, a stdout that is not flushed. It blamed "--timeout" (1 s here).
#[test]
fn an_adapter_that_writes_no_hello_is_told_what_the_hello_needs() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("adapter.log");
    let log = log.to_str().unwrap();
    let o = bqsuite(
        &["run", "--sdk", "sleep 60", "--timeout", "1", "--section", "cases", "--out", "-", "--adapter-log", log],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("wrote no hello within 10 s (the hello waits for --timeout, and at least 10 s): an adapter writes its hello as soon as it starts, and flushes its stdout after every line"),
        "{stderr}"
    );
}

/// A hello without its line feed is told as such (red team L4: "wrote no hello … flushes its
/// stdout" sent the author looking for a flush that was there).
#[test]
fn a_hello_without_a_line_end_is_told_so() {
    let sh = r#"sh -c 'printf "{\"reply\":\"hello\"}"; sleep 60'"#;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("adapter.log");
    let log = log.to_str().unwrap();
    let o = bqsuite(
        &["run", "--sdk", sh, "--timeout", "1", "--section", "cases", "--out", "-", "--adapter-log", log],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(
            r#"wrote 17 bytes but no line end within 10 s ({"reply":"hello"}): every message, the hello too, is one line ending with a line feed (\n), and stdout is flushed after it"#
        ),
        "{stderr}"
    );
}

/// A hello after a byte-order mark (what .NET's default UTF8Encoding writes) is told so: the
/// mark is invisible in the excerpt, and "not JSON (expected value at line 1 column 1)" pointed
/// at nothing one could see.
#[test]
fn a_hello_after_a_byte_order_mark_is_told_so() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cmd = misbehave_cmd("bom-hello", 0, &dir.path().join("once"));
    let log = dir.path().join("adapter.log");
    let o = bqsuite(
        &["run", "--sdk", &cmd, "--section", "cases", "--out", "-", "--adapter-log", log.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("it starts with a byte-order mark (U+FEFF), which JSON text does not have"), "{stderr}");
}

/// The end of the adapter's log is shown when it fails; a stack trace's tab-indented frames are
/// indented, not escaped.
#[test]
fn a_stack_trace_in_the_log_tail_keeps_its_indent() {
    let sh = r#"sh -c 'printf "Exception in thread main\n\tat Adapter.main(Adapter.java:7)\n" >&2; exit 3'"#;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("adapter.log");
    let o = bqsuite(
        &["run", "--sdk", sh, "--section", "cases", "--out", "-", "--adapter-log", log.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("  |     at Adapter.main(Adapter.java:7)"), "{stderr}");
    assert!(!stderr.contains("\\u0009"), "{stderr}");
}

#[test]
fn a_garbage_line_fails_one_case() {
    misbehaves_once("garbage", 5, "10", "not a reply of the protocol: not JSON");
}

#[test]
fn a_wrong_seq_fails_one_case() {
    misbehaves_once("wrong-seq", 5, "10", "answered seq 105, which was never sent");
}

#[test]
fn a_reply_to_seq_0_was_never_sent() {
    // Not "before an earlier call": bqsuite numbers its calls from 1.
    misbehaves_once("seq-zero", 5, "10", "answered seq 0, which was never sent");
}

#[test]
fn a_duplicate_response_fails_the_next_case_that_calls() {
    // Call 6 is the first call of the case after call 5's (cases make two calls each).
    misbehaves_once("duplicate", 6, "10", "answered seq 6 a second time (a duplicate response)");
}

#[test]
fn a_huge_line_fails_one_case() {
    misbehaves_once("huge", 5, "10", "a line longer than 8 MiB");
}

#[test]
fn replies_out_of_the_order_of_the_calls_fail_one_case() {
    // Only calls written ahead can be answered out of order: call 6 is there to be answered
    // before call 5.
    misbehaves_once_with(
        "swap",
        5,
        "10",
        "answered seq 6 before an earlier call (replies come in the order of the calls)",
        Calls::Ahead,
    );
}

fn cannot_start(mode: &str, says: &str) {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let cmd = misbehave_cmd(mode, 0, &dir.path().join("once"));
    let o = bqsuite(&["run", "--sdk", &cmd, "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{mode}: {}", support::transcript(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains(says) && stderr.contains("so no case could be run"), "{mode}: {stderr}");
    assert!(!out.exists(), "{mode}: no results file is written");
    // The end of its log follows, so why it failed is in front of whoever ran it.
    assert!(
        stderr.contains("the end of the adapter's log (") && stderr.contains("  | == bqsuite: start 1 of the adapter"),
        "{mode}: {stderr}"
    );
}

/// The end of the adapter's log on stderr is the adapter's text: escaped and bounded; and
/// bqsuite's own lines in the log start lines of their own, after whatever the adapter left
/// unfinished (a bidi override there turned bqsuite's line around).
#[cfg(unix)]
#[test]
fn the_adapters_log_is_shown_escaped_and_bqsuites_lines_stand_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let cmd = r#"sh -c 'i=0; while [ $i -lt 300 ]; do printf "noise %s\n" $i >&2; i=$((i+1)); done; printf "\342\200\256partial \033[2J" >&2; exit 3'"#;
    let o = bqsuite(&["run", "--sdk", cmd, "--section", "cases", "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let tail: Vec<&str> =
        err.lines().skip_while(|l| !l.starts_with("the end of the adapter's log (")).skip(1).collect();
    assert!(!tail.is_empty() && tail.len() <= 20, "{err}");
    assert!(tail.iter().all(|l| l.starts_with("  | ")), "{err}");
    assert!(!err.contains(['\u{1b}', '\u{202e}']), "{err}");
    assert!(tail.iter().any(|l| l.contains("\\u202epartial \\u001b[2J")), "{err}");
    let log = std::fs::read_to_string(dir.path().join("adapter.log")).unwrap();
    assert!(log.lines().any(|l| l.starts_with("== bqsuite: the adapter exited")), "{log}");
}

/// A hello's names are names: one of hundreds of characters is refused (it would be printed in
/// every summary and verdict line).
#[test]
fn a_hello_with_a_name_too_long_is_refused() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let members = format!(r#"{{"sdk": "{}"}}"#, "x".repeat(300));
    let cmd = format!("{} --hello {}", misbehave_cmd("relay", 1, &dir.path().join("once")), word(&members));
    let o = bqsuite(&["run", "--sdk", &cmd, "--section", "cases", "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("sdk is 300 characters long (at most 200)"), "{err}");
    assert!(err.len() < 8 << 10, "{err}");
}

#[test]
fn an_unknown_protocol_version_is_exit_2() {
    cannot_start("protocol", "speaks adapter protocol 2, and bqsuite speaks protocol 1 only");
}

#[test]
fn an_adapter_that_exits_at_once_is_exit_2() {
    cannot_start("exit-at-once", "exited (exit status: 3) before its hello");
}

#[test]
fn a_command_that_does_not_parse_is_a_usage_error() {
    let o = bqsuite(&["run", "--sdk", "python3 'unterminated"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unterminated quote"), "{}", support::transcript(&o));
}

/// Allows skipping exactly one case, citing ADR-0032.
struct AllowOne(&'static str, &'static str);

impl SkipRules for AllowOne {
    fn allows(&self, _sdk: &str, section: &str, id: &str, reason: &str) -> Result<(), String> {
        if (section, id) == (self.0, self.1) && reason.contains("ADR-0032") {
            Ok(())
        } else {
            Err(format!("the skip policy does not allow skipping {section} {id}"))
        }
    }
}

#[test]
fn a_skip_counts_only_where_the_skip_rules_allow_it() {
    if !have_python() {
        return;
    }
    let suite = Suite::load(support::repo()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |rules: &dyn SkipRules, once: &str| {
        let script = support::repo().join("tests/adapters/misbehave.py").display().to_string();
        let command =
            vec!["python3".into(), script, BIN.into(), "skip".into(), "1".into(), "--once".into(), once.into()];
        let options = RunOptions { only: vec!["cases".into()], ..Default::default() };
        let (run, summary) =
            run_adapter(&suite, &options, adapter_options(command, dir.path().join("log")), rules).unwrap();
        assert!(summary.incidents.is_empty(), "a skip is no incident: {summary}");
        let first =
            run.results.sections["cases"].as_object().unwrap().iter().next().map(|(k, v)| (k.clone(), v.clone()));
        first.unwrap()
    };
    let once = |n: &str| dir.path().join(n).display().to_string();
    let (id, allowed) = run(&AllowOne("cases", "order-created"), &once("a"));
    assert_eq!(id, "order-created");
    assert_eq!(allowed, serde_json::json!({"status": "skip", "reason": "ADR-0032: cannot carry it"}));
    let (_, refused) = run(&NoSkips, &once("b"));
    assert_eq!(refused["status"], "fail");
    assert_eq!(
        refused["reason"],
        "the adapter skipped accepts (\"ADR-0032: cannot carry it\"), but the suite has no skip policy, so no case may be skipped"
    );
}

#[test]
fn the_suites_skip_policy_judges_an_adapters_skips() {
    let suite = Suite::load(support::repo()).unwrap();
    let rules = bqsuite::conformance::adapter::skip_rules(&suite);
    // A case a rule selects, and the rule's ADR.
    let policy = suite.skip_policy();
    // (A rule of the SDK's: the runner contract's is bqsuite's own, below.)
    let rule = policy
        .rules
        .iter()
        .find(|r| !r.adrs.iter().any(|a| a == RUNNER_CONTRACT_ADR))
        .expect("the suite has a skip policy with a rule the SDK applies");
    let section = suite.section(&rule.selectors[0].section).unwrap();
    let id = section
        .cases()
        .into_iter()
        .map(|c| c.id)
        .find(|id| !policy.allowed_adrs(section.name, id).is_empty())
        .expect("the rule selects a case");
    let adr = &rule.adrs[0];
    assert_eq!(rules.allows("babelqueue-node", section.name, &id, &format!("{adr}: the condition holds")), Ok(()));
    let wrong = rules.allows("babelqueue-node", section.name, &id, "ADR-9999: no such reason").unwrap_err();
    assert!(wrong.contains("only citing"), "{wrong}");
    assert!(rules.allows("babelqueue-node", section.name, &id, "no ADR at all").unwrap_err().contains("cites no ADR"));
    let never = rules.allows("babelqueue-node", "cases", "order-created", &format!("{adr}: anything")).unwrap_err();
    assert_eq!(never, "the skip policy allows no skip of cases order-created");

    // Through the CLI: the adapter skips a case the policy does not let it skip.
    let Some((_, file)) = run_cases_misbehaving("skip") else { return };
    let first = outcomes(&serde_json::from_slice(&file).unwrap()).into_iter().find(|o| o.1 == "order-created").unwrap();
    assert_eq!(first.2, "fail");
    assert_eq!(
        first.3.as_deref(),
        Some(
            "the adapter skipped accepts (\"ADR-0032: cannot carry it\"), but the skip policy allows no skip of cases order-created"
        )
    );
}

/// An adapter that declares an operation and answers `not_implemented` to one call of it (the
/// Java SDK's `make` cannot write `meta` entries) fails that case with a reason that says so:
/// "make is not implemented" read as if the SDK had no `make` at all (stop 48's probe).
#[test]
fn a_call_answered_not_implemented_is_told_from_an_operation_left_out() {
    let Some((_, file)) = run_cases_misbehaving("not-implemented") else { return };
    let got = outcomes(&serde_json::from_slice(&file).unwrap());
    let failing: Vec<_> = got.iter().filter(|o| o.2 == "fail").collect();
    assert_eq!(failing.len(), 1, "{got:?}");
    assert_eq!(
        failing[0].3.as_deref(),
        Some(
            "bqsuite-reference answered not_implemented to this case's accepts call (its hello declares accepts: the SDK cannot make this variant)"
        ),
        "{got:?}"
    );
}

/// A whole run through the relay over the reference adapter, with `hello` merged into its
/// hello and every call of the `skips` cases (`section:id`) answered with a skip citing
/// ADR-0032: the exit code of `run`, that of `results check` on the file it wrote, and the
/// file's outcomes.
fn run_and_check(dir: &Path, name: &str, hello: &str, skips: &[&str]) -> (i32, i32, Vec<CaseOutcome>) {
    let script = support::repo().join("tests/adapters/misbehave.py");
    let mut cmd =
        format!("python3 {} {} relay 0 --hello {}", word(&script.display().to_string()), word(BIN), word(hello));
    for s in skips {
        cmd.push_str(&format!(" --skip {}", word(s)));
    }
    let out = dir.join(format!("{name}.json"));
    let o = bqsuite(&["run", "--sdk", &cmd, "--out", out.to_str().unwrap()], None);
    let ran = o.status.code().unwrap_or_else(|| panic!("{name}: {}", support::transcript(&o)));
    let c = bqsuite(&["results", "check", out.to_str().unwrap()], None);
    let checked = c.status.code().unwrap();
    assert!(ran < 2 && checked < 2, "{name}: {}\n{}", support::transcript(&o), support::transcript(&c));
    (ran, checked, outcomes(&read_json(&out)))
}

fn outcome_of<'o>(got: &'o [CaseOutcome], section: &str, id: &str) -> (&'o str, &'o str) {
    let o = got.iter().find(|o| o.0 == section && o.1 == id).unwrap_or_else(|| panic!("{section} {id}: {got:?}"));
    (o.2.as_str(), o.3.as_deref().unwrap_or_default())
}

/// An adapter's skip is judged as `results check` judges it, so `run` never records a skip the
/// verdict refuses: it recorded (and exited 0 on) a skip under a rule open only to another
/// family, and a skip under an all-or-none rule that other cases of the run refute, which
/// `results check` then called Not compatible.
#[test]
fn run_and_results_check_agree_on_an_adapters_skips() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // single-number-type: the node family only.
    let gate = "schema_version_gate/22";
    let (ran, checked, got) =
        run_and_check(dir, "node", r#"{"sdk":"babelqueue-node"}"#, &["asb:schema_version_gate/22"]);
    assert_eq!((ran, checked), (0, 0));
    assert_eq!(outcome_of(&got, "asb", gate), ("skip", "ADR-0032: cannot carry it"));
    let (ran, checked, got) =
        run_and_check(dir, "python", r#"{"sdk":"babelqueue-python"}"#, &["asb:schema_version_gate/22"]);
    assert_eq!((ran, checked), (1, 1));
    let (status, reason) = outcome_of(&got, "asb", gate);
    assert_eq!(status, "fail");
    assert!(
        reason.contains("under rule single-number-type only to SDKs of family node")
            && reason.contains("sdk \"babelqueue-python\" is of family python"),
        "{reason}"
    );
    // native-receive-count: all or none of the SQS reconciliation rows.
    let (ran, checked, got) = run_and_check(dir, "all-rows", "{}", &["sqs:attempts_reconciliation/"]);
    assert_eq!((ran, checked), (0, 0));
    assert_eq!(got.iter().filter(|o| o.0 == "sqs" && o.2 == "skip").count(), 6, "{got:?}");
    let one = "attempts_reconciliation/first-delivery";
    let (ran, checked, got) = run_and_check(dir, "one-row", "{}", &[&format!("sqs:{one}")]);
    assert_eq!((ran, checked), (1, 1));
    let (status, reason) = outcome_of(&got, "sqs", one);
    assert_eq!(status, "fail");
    assert!(
        reason.contains(
            "rule native-receive-count covers this case only all or none (its condition is a fact about the whole \
             run or SDK), and a case it covers ran (sqs / "
        ),
        "{reason}"
    );
    // Newcomer B2: with two rows skipped, the second's refusal cited the first (whose skip was
    // refused a moment before) as a case that ran. It cites a case that did run.
    let third = "attempts_reconciliation/third-delivery";
    let (ran, _, got) = run_and_check(dir, "two-rows", "{}", &[&format!("sqs:{one}"), &format!("sqs:{third}")]);
    assert_eq!(ran, 1);
    for id in [one, third] {
        let (status, reason) = outcome_of(&got, "sqs", id);
        assert_eq!(status, "fail");
        assert!(!reason.contains("first-delivery)") && !reason.contains("third-delivery)"), "{id}: {reason}");
    }
}

/// Red team F2: a skip the whole run refuses (an all-or-none rule) is judged after every case
/// ended. The trace said `skip` and never more, and the digest's hint reran the case narrowed,
/// where the skip stands and the run passes. The trace now says the later verdict, and the hint
/// names no case a narrowed run cannot show failing.
#[test]
fn a_skip_the_whole_run_refuses_is_traced_and_not_hinted() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let script = support::repo().join("tests/adapters/misbehave.py");
    let one = "attempts_reconciliation/first-delivery";
    let cmd = format!(
        "python3 {} {} relay 0 --skip {}",
        word(&script.display().to_string()),
        word(BIN),
        word(&format!("sqs:{one}"))
    );
    let o = bqsuite(&["run", "--sdk", &cmd, "--section", "sqs", "--out", out.to_str().unwrap(), "--trace"], None);
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let log = std::fs::read_to_string(dir.path().join("adapter.log")).unwrap();
    let skip = log.find(&format!("== bqsuite: sqs {one}: skip: ")).unwrap_or_else(|| panic!("{log}"));
    let after = log
        .find(&format!("== bqsuite: sqs {one}: fail (after the run): the adapter skipped "))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(skip < after, "{log}");
    let o = bqsuite(&["run", "--sdk", &cmd, "--section", "sqs", "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("--trace"), "{}", support::transcript(&o));
}

fn schema_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(support::repo().join("docs/adapter-protocol.schema.json")).unwrap();
    jsonschema::draft202012::new(&serde_json::from_str::<Value>(&text).unwrap()).expect("the schema compiles")
}

/// `line` follows the schema, and reads as the message type of its direction.
fn follows_the_protocol(v: &jsonschema::Validator, from_bqsuite: bool, line: &str) {
    let value: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    let errors: Vec<String> = v.iter_errors(&value).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{line}\n{errors:#?}");
    if from_bqsuite {
        serde_json::from_value::<bqsuite::adapter::Command>(value).unwrap_or_else(|e| panic!("{e}: {line}"));
    } else {
        serde_json::from_value::<bqsuite::adapter::Reply>(value).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
}

#[test]
fn every_line_of_a_whole_run_follows_the_schema() {
    if !have_python() {
        return;
    }
    let redis = support::redis_url();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("exchange.txt");
    let script = support::repo().join("tests/adapters/misbehave.py").display().to_string();
    let cmd =
        format!("python3 {} {} relay 0 --record {}", word(&script), word(BIN), word(&record.display().to_string()));
    let out = dir.path().join("out.json");
    let o = bqsuite(&["run", "--sdk", &cmd, "--out", out.to_str().unwrap()], redis.as_deref());
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    let v = schema_validator();
    let text = std::fs::read_to_string(&record).unwrap();
    let mut ops = BTreeSet::new();
    for line in text.lines() {
        let (dir, msg) = line.split_at(2);
        follows_the_protocol(&v, dir == "> ", msg);
        if let Some(op) = serde_json::from_str::<Value>(msg).unwrap()["request"]["op"].as_str() {
            ops.insert(op.to_owned());
        }
    }
    // The run exercised every operation of the interface (the Redis ones need a Redis).
    let all: BTreeSet<String> = bqsuite::sdk::OPERATIONS
        .iter()
        .filter(|o| {
            redis.is_some() || !o.starts_with("redis_") || ["redis_key_names", "redis_delayed_score"].contains(o)
        })
        .map(|o| (*o).to_owned())
        .collect();
    assert_eq!(ops, all, "operations the run did not send");
}

#[test]
fn the_example_exchange_of_the_protocol_document_follows_the_schema() {
    let doc = std::fs::read_to_string(support::repo().join("docs/adapter-protocol.md")).unwrap();
    let start = doc.find("## A complete example exchange").expect("the document has the example");
    let block = doc[start..].split("```").nth(1).expect("a fenced block");
    let v = schema_validator();
    let mut n = 0;
    for line in block.lines().filter(|l| l.starts_with("> ") || l.starts_with("< ")) {
        follows_the_protocol(&v, line.starts_with("> "), &line[2..]);
        n += 1;
    }
    assert!(n >= 6, "the example has a hello, calls and a shutdown");
}

/// The runner contract's skip (ADR-0033: the run has no live Redis) is bqsuite's own: it skips
/// the cases that need a live Redis itself when it has none, without asking the adapter. An
/// adapter asked such a case is being run with a live Redis, so its skip citing ADR-0033 is a
/// claim the run knows to be false, and the case fails (it used to be an allowed skip, and
/// `results check` then called the file Compatible although the Redis cases never ran).
#[test]
fn an_adapter_may_not_skip_under_the_runner_contract() {
    let suite = Suite::load(support::repo()).unwrap();
    let rules = bqsuite::conformance::adapter::skip_rules(&suite);
    let policy = suite.skip_policy();
    assert_eq!(
        policy.allowed_adrs("redis", "payload_identity"),
        [RUNNER_CONTRACT_ADR],
        "the rule results check applies"
    );
    let refused = rules.allows("babelqueue-node", "redis", "payload_identity", "ADR-0033: no Redis here").unwrap_err();
    assert!(refused.contains("runner contract") && refused.contains("bqsuite applies itself"), "{refused}");
    // An SDK's own rule still allows its skip, whatever else the reason cites.
    let (section, id, adr) = policy
        .rules
        .iter()
        .filter(|r| !r.adrs.iter().any(|a| a == RUNNER_CONTRACT_ADR))
        .find_map(|r| {
            let s = suite.section(&r.selectors[0].section)?;
            let id = s
                .cases()
                .into_iter()
                .map(|c| c.id)
                .find(|id| policy.allowed_adrs(s.name, id).contains(&r.adrs[0].as_str()))?;
            Some((s.name, id, r.adrs[0].clone()))
        })
        .unwrap();
    assert_eq!(rules.allows("babelqueue-node", section, &id, &format!("{RUNNER_CONTRACT_ADR} and {adr}")), Ok(()));

    // Through the CLI, with a live Redis: the adapter skips every Redis operation.
    let Some(url) = support::redis_url() else { return };
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let cmd = misbehave_cmd("skip-redis", 1, &dir.path().join("once"));
    let o = bqsuite(&["run", "--sdk", &cmd, "--section", "redis", "--out", out.to_str().unwrap()], Some(&url));
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let got = outcomes(&read_json(&out));
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].1.as_str(), got[0].2.as_str()), ("payload_identity", "fail"), "{got:?}");
    assert!(got[0].3.as_deref().unwrap_or_default().contains("runner contract"), "{got:?}");
}

/// Is process `pid` gone (or a zombie waiting for its parent)?
#[cfg(target_os = "linux")]
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

/// An adapter runs in a process group of its own, which the terminal's SIGINT does not reach:
/// an interrupted run kills it (it used to stay behind, here hanging forever before its hello).
#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_run_stops_its_adapter() {
    for signal in ["-TERM", "-INT"] {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let adapter = format!("sh -c 'echo $$ > {}; exec sleep 600'", word(&pid_file.display().to_string()));
        let mut child = Command::new(BIN)
            .args(["run", "--sdk", &adapter, "--out", dir.path().join("out.json").to_str().unwrap()])
            .current_dir(support::repo())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut pid = String::new();
        for _ in 0..200 {
            pid = std::fs::read_to_string(&pid_file).unwrap_or_default().trim().to_owned();
            if !pid.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        assert!(!pid.is_empty(), "the adapter started");
        assert!(!gone(&pid));
        let _ = Command::new("kill").args([signal, &child.id().to_string()]).status();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(if signal == "-TERM" { 143 } else { 130 }));
        let stopped = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(20));
            gone(&pid)
        });
        if !stopped {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
        }
        assert!(stopped, "{signal}: the adapter {pid} is still running after bqsuite exited");
        assert!(!dir.path().join("out.json").exists(), "no results file");
    }
}

/// Started by a parent that ignores SIGCHLD (inherited through exec, so the kernel would reap
/// every adapter at once), bqsuite still sees a clean shutdown as clean: it used to report
/// "could not be waited for: No child processes".
#[cfg(unix)]
#[test]
fn a_parent_that_ignores_sigchld_changes_nothing() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let o = Command::new("python3")
        .args(["-c", "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])"])
        .args([BIN, "run", "--sdk", &adapter_cmd(), "--section", "cases", "--out", out.to_str().unwrap()])
        .current_dir(support::repo())
        .env("NO_COLOR", "1")
        .env_remove("BQ_REDIS_URL")
        .env_remove("BQ_REQUIRE_REDIS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("could not be waited for") && err.contains("adapter: 0 incident(s)"), "{err}");
}

/// Nothing an adapter starts in its process group outlives it: a helper it left running in the
/// background (its output sent elsewhere, so the pipe closes) is killed once the adapter has
/// exited, after a clean shutdown as when it exits at once. It used to run on after bqsuite
/// after a clean shutdown (the second variant guards the path where the adapter dies first:
/// its group is killed when it is seen exiting, as a killed adapter's group is).
#[cfg(target_os = "linux")]
#[test]
fn a_helper_the_adapter_left_running_does_not_outlive_it() {
    // The third variant's helper keeps the adapter's stdout open, so no end of file comes: its
    // clean exit was reported as "did not exit within the timeout after the shutdown".
    for (how, redirect, then, code) in [
        ("exited at once", "</dev/null >/dev/null 2>&1", "exit 3 #", 2),
        ("shut down", "</dev/null >/dev/null 2>&1", "exec", 0),
        ("shut down, its helper holding stdout", "", "exec", 0),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("helper.pid");
        let adapter = format!(
            "sh -c 'sleep 600 {redirect} & echo $! > {}; {then} {} adapter'",
            word(&pid_file.display().to_string()),
            word(BIN)
        );
        let out = dir.path().join("out.json");
        let o = bqsuite(
            &["run", "--sdk", &adapter, "--section", "cases", "--max-restarts", "0", "--out", out.to_str().unwrap()],
            None,
        );
        assert_eq!(o.status.code(), Some(code), "{how}: {}", support::transcript(&o));
        if code == 0 {
            // A budget of no restart is not "used up" by an adapter that ran to the end.
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("adapter: 0 incident(s), 0 restart(s); "), "{how}: {err}");
        }
        let pid = std::fs::read_to_string(&pid_file).unwrap().trim().to_owned();
        assert!(!pid.is_empty(), "{how}: the helper started");
        let stopped = (0..100).any(|_| {
            if gone(&pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
            false
        });
        if !stopped {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
        }
        assert!(stopped, "{how}: the helper {pid} is still running after bqsuite exited");
    }
}

/// The run is planned on the first hello: the SDK's identity, what it carries and answers, and
/// whether calls may be written ahead. A restarted adapter that comes back as another (here: no
/// longer taking calls written ahead, or carrying other bindings) runs no further case and is
/// not started again, and the summary says which members changed; it had been compared without
/// `pipeline`, told only `sdk` and `version`, and restarted until the budget was used up.
#[test]
fn a_restarted_adapter_that_comes_back_as_another_runs_no_further_case() {
    if !have_python() {
        return;
    }
    for (members, says) in [
        (r#"{"pipeline": false}"#, "its pipeline changed"),
        (r#"{"bindings": ["sqs"], "version": "9.9.9"}"#, "its version, bindings changed"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.json");
        let cmd =
            format!("{} --restarted-hello {}", misbehave_cmd("crash", 5, &dir.path().join("once")), word(members));
        let o = bqsuite(&["run", "--sdk", &cmd, "--section", "cases", "--out", out.to_str().unwrap()], None);
        assert_eq!(o.status.code(), Some(1), "{members}: {}", support::transcript(&o));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains(&format!("restarted with another hello than the first ({says})")),
            "{members}: {stderr}"
        );
        // No further restart mends it: one restart, not the whole budget of the same incident.
        assert!(
            stderr
                .contains("adapter: 2 incident(s), 1 restart(s), not started again (it came back with another hello)"),
            "{members}: {stderr}"
        );
        // Every case not answered by the first process fails, saying why (none passes on the
        // process that came back as another).
        let got = outcomes(&read_json(&out));
        let changed = got.iter().filter(|o| o.3.as_deref().is_some_and(|r| r.contains(says))).count();
        assert!(changed > 0, "{members}: {got:#?}");
        assert!(got.iter().all(|o| o.2 == Status::Fail.as_str()), "{members}: {got:#?}");
    }
}

/// The results file takes `sdk` and `version` from the hello, so a hello whose name results
/// check would refuse (BQ620: a bidirectional control in it) runs no case and writes no file.
#[test]
fn a_hello_whose_name_results_check_refuses_runs_nothing() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let cmd =
        format!("{} --hello {}", misbehave_cmd("relay", 0, &dir.path().join("once")), word(r#"{"sdk": "node\u202e"}"#));
    let o = bqsuite(&["run", "--sdk", &cmd, "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("sdk \"node\\u{202e}\" is not a package name or version as registries write one"),
        "{stderr}"
    );
    assert!(!out.exists(), "no results file is written");
    // The log ends as for any refused hello: why, and that bqsuite stopped it (newcomer B1: it
    // ended at the start line).
    let log = std::fs::read_to_string(dir.path().join("adapter.log")).unwrap();
    let last = log.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("== bqsuite: the adapter gave a hello that does not follow the protocol: sdk ")
            && last.contains("; stopped it ("),
        "{log}"
    );
}

/// Third red team F8: a symlink planted where the adapter log goes (beside --out) made `run`
/// truncate and write its target. The log is never written through a symlink: at the default
/// place one is replaced, named by --adapter-log one is refused.
#[cfg(unix)]
#[test]
fn the_adapter_log_is_never_written_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    std::os::unix::fs::symlink(&victim, out_dir.join("adapter.log")).unwrap();
    let out = out_dir.join("r.json");
    let cmd = adapter_cmd();
    let o = bqsuite(&["run", "--section", "cases", "--sdk", &cmd, "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious", "the link's target is untouched");
    let log = std::fs::symlink_metadata(out_dir.join("adapter.log")).unwrap();
    assert!(log.is_file(), "the planted link was replaced by the log itself");
    // Named explicitly, a symlink is refused before anything runs.
    let named = dir.path().join("named.log");
    std::os::unix::fs::symlink(&victim, &named).unwrap();
    let o = bqsuite(
        &[
            "run",
            "--section",
            "cases",
            "--sdk",
            &cmd,
            "--adapter-log",
            named.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a symlink"), "{}", support::transcript(&o));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

/// `run --known-failing FILE`: the example adapter does not implement validate_payload, so
/// every payload_schema case fails. Listed, they leave the exit code 0 and the results file as
/// it was (every case failing, the reasons kept); a failure the list does not name, or an entry
/// of a case the run ran that did not fail, makes it 1. An entry of a case a narrowed run did
/// not run is not judged.
#[test]
fn a_known_failing_list_holds_what_an_sdk_has_reached() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let list = dir.path().join("known.txt");
    let s = Suite::load(support::repo()).unwrap();
    let ids: Vec<String> = s.section("payload_schema").unwrap().cases().into_iter().map(|c| c.id).collect();
    let all: String = ids.iter().map(|id| format!("payload_schema\t{id}\n")).collect();
    let run = |text: &str| {
        std::fs::write(&list, text).unwrap();
        let cmd = python_cmd();
        let args = ["run", "--sdk", &cmd, "--section", "payload_schema", "--section", "cases", "--out"];
        bqsuite(&[&args[..], &[out.to_str().unwrap(), "--known-failing", list.to_str().unwrap()]].concat(), None)
    };

    // Every failure listed, and an entry of a section not run (not judged): exit 0.
    let o = run(&format!("{all}kafka_poison job-number\n"));
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let n = ids.len();
    assert!(
        err.contains(&format!(
            "known failures ({}): {n} listed of the cases run ({} in the list), {n} still failing; the list holds",
            list.display(),
            n + 1
        )),
        "{err}"
    );
    let got = outcomes(&read_json(&out));
    assert_eq!(got.iter().filter(|o| o.2 == "fail").count(), n, "the results file is as it was: {got:?}");

    // The form every message prints a case in (`payload_schema / ID`, the failure digest's and
    // BQ612's) names the same cases (user study: it was read as ids starting with `/ `).
    let as_printed: String = ids.iter().map(|id| format!("payload_schema / {id}\n")).collect();
    let o = run(&as_printed);
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{n} listed, {n} still failing; the list holds")), "{err}");

    // One failure left out of the list.
    let o = run(&all.lines().skip(1).map(|l| format!("{l}\n")).collect::<String>());
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("; 1 failure(s) it does not name (the first: payload_schema / {})", ids[0])),
        "{err}"
    );

    // An entry of a case that passed in this run.
    let o = run(&format!("{all}cases order-created\n"));
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let line = ids.len() + 1;
    assert!(
        err.contains(&format!(
            "  {}:{line}: cases / order-created is listed as a known failure, but it passed in this run: take its line out of the list",
            list.display()
        )),
        "{err}"
    );
}

/// The example adapter is the model SDK maintainers copy: its parser refuses what strict JSON
/// refuses, a lone surrogate escape included (Python's json.loads lets it through), so reusing
/// it for the Kafka classifier or the poison dead-letter writer is safe. A paired escape is
/// one character, and accepted.
#[test]
fn the_example_adapters_parser_is_strict_json() {
    if !have_python() {
        return;
    }
    use base64::Engine as _;
    use std::io::Write as _;
    let script = support::repo().join("examples/adapter-python/adapter.py");
    let mut child = Command::new("python3")
        .arg(&script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let body = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
    // A valid envelope (the order-created fixture) with one string of its data changed.
    let fixture = std::fs::read_to_string(support::repo().join("fixtures/order-created.json")).unwrap();
    let with = |name: &str| fixture.replacen("\"order_id\"", &format!("\"{name}\": 1, \"order_id\""), 1);
    let (lone, paired) = (with("\\ud800"), with("\\ud83d\\ude00"));
    assert_ne!(lone, fixture);
    let mut input =
        String::from("{\"cmd\":\"hello\",\"protocol\":1,\"bqsuite\":\"t\",\"conformance_version\":\"1.6.0\"}\n");
    for (seq, text) in [(1, lone.as_str()), (2, paired.as_str())] {
        input.push_str(&format!(
            "{{\"cmd\":\"call\",\"seq\":{seq},\"section\":\"s\",\"case\":\"c\",\"request\":{{\"op\":\"accepts\",\"body\":\"{}\"}}}}\n",
            body(text)
        ));
    }
    input.push_str("{\"cmd\":\"shutdown\"}\n");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let accepts: Vec<&Value> = lines.iter().skip(1).map(|r| &r["response"]["result"]).collect();
    assert_eq!(accepts, [&Value::Bool(false), &Value::Bool(true)], "{lines:?}");
}

/// JSON numbers carry no type: an adapter whose JSON library holds every number as a double
/// (Gson's default) writes `"seq": 3.0`, `"protocol": 1.0` and `[1000.0]` where the protocol
/// wants integers, and the protocol's own schema (2020-12) takes them. The run is the run of the
/// same adapter writing integers, case for case. (It was refused from the hello on: "the adapter
/// speaks adapter protocol 1.0".)
#[test]
fn a_reply_writing_its_integers_as_floats_is_the_same_run() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (plain, floats) = (dir.path().join("plain.json"), dir.path().join("floats.json"));
    let a = bqsuite(&["run", "--sdk", &adapter_cmd(), "--out", plain.to_str().unwrap()], None);
    assert_eq!(a.status.code(), Some(0), "{}", support::transcript(&a));
    let cmd = misbehave_cmd("protocol-floats", 0, &dir.path().join("once"));
    let b = bqsuite(&["run", "--sdk", &cmd, "--out", floats.to_str().unwrap()], None);
    assert_eq!(b.status.code(), Some(0), "{}", support::transcript(&b));
    assert_eq!(outcomes(&read_json(&plain)), outcomes(&read_json(&floats)));
    assert!(String::from_utf8_lossy(&b.stderr).contains("adapter: 0 incident(s), 0 restart(s)"));
}

/// The envelope an SDK writes keeps its integers as integers (the contract's encoding rules):
/// `attempts: 1.0` is the same number as 1 by value, but Go's struct decode and the PHP and
/// Python acceptance checks refuse it. Every section that judges an envelope the SDK encoded
/// fails such an SDK, with one reason, and nothing else does. (roundtrip, extension_write and the
/// binding projections passed it, and backoff said "body attempts None".)
#[test]
fn an_envelope_written_with_float_integers_fails_wherever_the_sdk_encodes() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let cmd = misbehave_cmd("floats", 1, &dir.path().join("once"));
    let o = bqsuite(&["run", "--sdk", &cmd, "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let failed: Vec<CaseOutcome> = outcomes(&read_json(&out)).into_iter().filter(|c| c.2 == "fail").collect();
    let sections: BTreeSet<&str> = failed.iter().map(|c| c.0.as_str()).collect();
    for s in ["roundtrip", "data_shape", "forbidden_keys", "extension_write", "trim", "job_type", "backoff", "kafka"] {
        assert!(sections.contains(s), "{s}: {sections:?}");
    }
    // Decoding is not encoding: the decode verdicts stand.
    assert!(!sections.contains("cases"), "{failed:#?}");
    for (section, id, _, reason) in &failed {
        let reason = reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("/attempts is written with a fraction: the envelope's integers are written as integers"),
            "{section} / {id}: {reason}"
        );
    }
}

/// One operation that crashes the adapter every time costs its own cases, not the run: after
/// taking the adapter down three times in a row it is not sent (nor written ahead) again, and every other
/// section runs on restarted adapters. (Its crashes used up --max-restarts, and every later
/// section was "not run".)
#[test]
fn an_operation_that_always_crashes_costs_only_its_own_cases() {
    if !have_python() {
        return;
    }
    for calls in [Calls::Ahead, Calls::OneByOne] {
        let dir = tempfile::tempdir().unwrap();
        let (reference, out) = (dir.path().join("reference.json"), dir.path().join("out.json"));
        let sections = ["--section", "cases", "--section", "roundtrip", "--section", "forbidden_keys"];
        let mut args = vec!["run", "--out", reference.to_str().unwrap()];
        args.extend(sections);
        assert_eq!(bqsuite(&args, None).status.code(), Some(0));
        let cmd = misbehave_cmd_with("crash-on-accepts", 0, &dir.path().join("once"), calls);
        let mut args = vec!["run", "--sdk", &cmd, "--out", out.to_str().unwrap()];
        args.extend(sections);
        let o = bqsuite(&args, None);
        assert_eq!(o.status.code(), Some(1), "{calls:?}: {}", support::transcript(&o));
        let (want, got) = (outcomes(&read_json(&reference)), outcomes(&read_json(&out)));
        for (w, g) in want.iter().zip(&got) {
            if g.0 == "cases" {
                // Every `cases` case asks accepts first.
                assert_eq!(g.2, "fail", "{calls:?}: {g:?}");
            } else {
                assert_eq!(w, g, "{calls:?}: the other sections run as the reference's");
            }
        }
        let not_sent = got
            .iter()
            .filter(|g| {
                g.3.as_deref().is_some_and(|r| {
                    r.contains("not run: accepts took the adapter down 3 times and was never answered")
                })
            })
            .count();
        assert_eq!(not_sent, got.iter().filter(|g| g.0 == "cases").count() - 3, "{calls:?}: {got:#?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains(
                "adapter: 3 incident(s), 3 restart(s), never answered and not sent again after taking it down 3 times: accepts"
            ),
            "{calls:?}: {stderr}"
        );
    }
}

/// A failing case's reason often quotes two strings that differ only in characters a reader
/// cannot see (a no-break, em or ideographic space): the Java SDK probe of stop 48 read
/// `/job is " urn…", expected " urn… "` with the difference invisible. Every such character is
/// written `\u{XXXX}`, in the results file and on the terminal alike.
#[test]
fn a_failing_reason_shows_the_invisible_characters_it_is_about() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let cmd = format!("{} --broken unicode-whitespace", adapter_cmd());
    let o = bqsuite(&["run", "--sdk", &cmd, "--section", "trim", "--out", out.to_str().unwrap()], None);
    let t = support::transcript(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    let got = outcomes(&read_json(&out));
    let reason = |id: &str| got.iter().find(|c| c.1 == id).and_then(|c| c.3.clone()).unwrap_or_default();
    let mixed = reason("trim-make-mixed-padding-keeps-non-ascii");
    assert!(mixed.contains(r#"expected "\u{00a0}urn:babel:orders:created\u{3000}""#), "{mixed}");
    assert!(t.contains(r"\u{00a0}urn:babel:orders:created\u{3000}"), "{t}");
    let failing: Vec<_> = got.iter().filter(|c| c.2 == "fail").collect();
    assert!(failing.len() > 1, "{got:?}");
    for (_, id, _, reason) in failing {
        let reason = reason.as_deref().unwrap_or_default();
        assert!(!reason.chars().any(bqsuite::diag::is_hidden), "{id}: {reason:?}");
    }
}

/// User study: under the broken variant `whitespace-with-nbsp` the SQS gate row whose value is
/// a no-break space failed with "String attribute: expected the gate to reject, but it decoded",
/// which does not show the value judged, and `--trace` wrote the request with the raw U+00A0
/// (bytes C2 A0), which reads as a space. Both write it `\u{00a0}`; a control character in the
/// trace keeps its terminal escape (`\u000a`).
#[test]
fn a_gate_reason_and_the_trace_show_the_hidden_value_judged() {
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(support::repo().join("manifest.json")).unwrap()).unwrap();
    let rows = manifest["sqs"]["schema_version_gate"]["cases"].as_array().expect("the SQS gate table");
    let row = rows.iter().position(|r| r["value"] == "\u{a0}").expect("a row whose value is a no-break space");
    let id = format!("schema_version_gate/{row}");
    let dir = tempfile::tempdir().unwrap();
    let (out, log) = (dir.path().join("out.json"), dir.path().join("adapter.log"));
    let cmd = format!("{} --broken whitespace-with-nbsp", adapter_cmd());
    let args = ["run", "--sdk", &cmd, "--section", "sqs", "--case", &id, "--out", out.to_str().unwrap(), "--trace"];
    let o = bqsuite(&args, None);
    let t = support::transcript(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    let got = outcomes(&read_json(&out));
    let (status, reason) = outcome_of(&got, "sqs", &id);
    assert_eq!(status, "fail");
    assert_eq!(reason, r#"String attribute "\u{00a0}": expected the gate to reject, but it decoded"#);
    assert!(t.contains(r#"String attribute "\u{00a0}": expected"#), "{t}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains('\u{a0}'), "a raw no-break space in the trace: {text}");
    assert!(text.contains(r#""StringValue":"\u{00a0}""#), "{text}");
    assert!(text.contains(r"  /request/body as text: {\u000a"), "a line feed keeps its terminal escape: {text}");
    assert!(
        text.contains(&format!(r#"== bqsuite: sqs {id}: fail: String attribute "\u{{00a0}}": expected"#)),
        "{text}"
    );
}

/// The digest lines of a run's stderr: from `failed: ` to the line before `run: `.
fn digest_of(err: &str) -> Vec<&str> {
    err.lines().skip_while(|l| !l.starts_with("failed: ")).take_while(|l| !l.starts_with("run: ")).collect()
}

/// The `--section S --case ID` the "to see what one case sent" hint names, with the rest of the
/// flags it adds (`--trace` and any after it).
fn hinted(err: &str) -> Option<(String, String, String)> {
    let line = err.lines().find_map(|l| l.strip_prefix("to see what one case sent the adapter and got back: add `"))?;
    let flags = line.split_once('`')?.0;
    let rest = flags.strip_prefix("--section ")?;
    let (section, rest) = rest.split_once(" --case ")?;
    let (id, tail) = rest.split_once(" --trace")?;
    Some((section.to_owned(), id.to_owned(), tail.to_owned()))
}

/// User study: an adapter that crashes (or hangs) at the 40th call of every process used its
/// restarts up, and `run` listed the hundreds of cases not run after that first, named one of
/// them in the "to see one case" hint (alone it passes), and listed the incidents after them.
/// The incidents come first now, the hint names the first of them, and the cases not run are
/// one line: how many, of which sections, and why.
#[test]
fn after_the_restarts_are_used_up_the_digest_leads_with_the_incidents() {
    if !have_python() {
        return;
    }
    for (mode, timeout) in [("crash", "10"), ("hang", "0.5")] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.json");
        // Misbehaving at call 15 of every process (no --once): two starts, then none. Three
        // cases before it are skipped where no skip is allowed: a reason more common than either
        // incident's, listed after them all the same.
        let script = support::repo().join("tests/adapters/misbehave.py");
        let skips = "--skip cases:order-created --skip cases:urn-alias --skip cases:dead-lettered";
        let cmd = format!("python3 {} {} {mode} 15 {skips}", word(&script.display().to_string()), word(BIN));
        let sections = ["--section", "cases", "--section", "roundtrip", "--section", "trim"];
        let args = [&["run", "--sdk", &cmd, "--max-restarts", "1", "--timeout", timeout][..], &sections[..]].concat();
        let o = bqsuite(&[&args[..], &["--out", out.to_str().unwrap()]].concat(), None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{mode}: {}", support::transcript(&o));
        let got = outcomes(&read_json(&out));
        let reason = |o: &CaseOutcome| o.3.clone().unwrap_or_default();
        let incidents: Vec<_> = got.iter().filter(|o| reason(o).contains("adapter: call 15 (")).collect();
        let given_up = "not run: the adapter failed 2 times and is not started again (--max-restarts 1)";
        let not_run: Vec<_> = got.iter().filter(|o| reason(o).contains(given_up)).collect();
        assert_eq!(incidents.len(), 2, "{mode}: {got:#?}");
        assert!(not_run.len() > 5, "{mode}: {got:#?}");
        let digest = digest_of(&err);
        let failed = got.iter().filter(|o| o.2 == "fail").count();
        assert_eq!(
            digest[0],
            format!(
                "failed: {failed} case(s), 3 reason(s), the adapter's incidents first, then the most common; then {} \
                 not run after the adapter failed:",
                not_run.len()
            ),
            "{mode}: {err}"
        );
        // The incidents first, in the order they happened, then the most common.
        for (line, incident) in digest[1..3].iter().zip(&incidents) {
            assert!(line.starts_with(&format!("     1× {} / {}: ", incident.0, incident.1)), "{mode}: {err}");
        }
        assert!(
            digest[3].starts_with("     3× cases / order-created and 2 more: the adapter skipped"),
            "{mode}: {err}"
        );
        // The cases not run: one line, last, and none of them anywhere else.
        let folded: Vec<&&str> = digest[1..].iter().filter(|l| l.contains("not run")).collect();
        assert_eq!(folded.len(), 1, "{mode}: {err}");
        assert!(
            folded[0].starts_with(&format!("{:>6}× not run (", not_run.len()))
                && folded[0].ends_with("): the adapter failed 2 times and is not started again (--max-restarts 1)"),
            "{mode}: {err}"
        );
        assert_eq!(digest[digest.len() - 3], *folded[0], "{mode}: last, before the two hints: {err}");
        assert!(
            digest[digest.len() - 1].ends_with(&format!(" explain {}/{}`", incidents[0].0, incidents[0].1)),
            "{mode}: what the incident's case holds an SDK to: {err}"
        );
        // The hint reruns the first incident's case, never one that was only not run.
        let (section, id, tail) = hinted(&err).unwrap_or_else(|| panic!("{mode}: no hint: {err}"));
        assert_eq!(
            (section.as_str(), id.as_str()),
            (incidents[0].0.as_str(), incidents[0].1.as_str()),
            "{mode}: {err}"
        );
        assert_eq!(tail, "", "{mode}: no case here needs Redis: {err}");
        // `results check` of the same file lists its failures in the digest's order: the
        // incidents first, in the order they happened, the cases not run last, in the file's.
        let o = bqsuite(&["results", "check", out.to_str().unwrap(), "--format", "json"], None);
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{mode}: {e}"));
        let failed: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "BQ612")
            .map(|f| f["pointer"].as_str().unwrap())
            .collect();
        let at = |o: &&CaseOutcome| format!("/sections/{}/{}", o.0, o.1.replace('~', "~0").replace('/', "~1"));
        let incidents: Vec<String> = incidents.iter().map(at).collect();
        let not_run: Vec<String> = not_run.iter().map(at).collect();
        assert_eq!(failed[..2], incidents, "{mode}: {doc:#}");
        assert_eq!(failed[failed.len() - not_run.len()..], not_run, "{mode}: {doc:#}");
        let pointers: Vec<&str> =
            doc["findings"].as_array().unwrap().iter().filter_map(|f| f["pointer"].as_str()).collect();
        assert_eq!(pointers[..2], incidents, "{mode}: the incidents before every other finding: {doc:#}");
    }
}

/// User study: `run --case X` of a case that needs Redis, with no Redis given, skipped it and
/// exited 0 under the general "no Redis is given" note: a narrowed run that tests nothing. It
/// is exit 2 now, as a `--case` that selects no case is, saying what to pass. A run that
/// selected other cases too, or whose Redis came from BQ_REDIS_URL and did not answer (the
/// runner contract, ADR-0033), keeps its exit code.
#[test]
fn a_narrowed_run_whose_every_case_needs_the_redis_not_given_judges_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let s = Suite::load(support::repo()).unwrap();
    // A behavioural case of redis_layout (a block's; the section's own `cases` need no Redis).
    let layout: Vec<String> = s.section("redis_layout").unwrap().cases().into_iter().map(|c| c.id).collect();
    let id = layout.iter().find(|id| id.contains('/')).expect("a behavioural case").clone();
    let says = format!(
        "bqsuite: error: every case you selected (redis_layout / {id}) needs Redis and was skipped, so nothing was \
         judged: pass --redis-url URL or set BQ_REDIS_URL"
    );
    for sdk in [None, Some(adapter_cmd())] {
        let mut args = vec!["run", "--section", "redis_layout", "--case", &id, "--out", out.to_str().unwrap()];
        if let Some(cmd) = &sdk {
            args.extend(["--sdk", cmd]);
        }
        let o = bqsuite(&args, None);
        assert_eq!(o.status.code(), Some(2), "{sdk:?}: {}", support::transcript(&o));
        assert!(String::from_utf8_lossy(&o.stderr).contains(&says), "{sdk:?}: {}", support::transcript(&o));
        // The results file says what happened: the case skipped, citing the runner contract.
        let got = outcomes(&read_json(&out));
        assert_eq!(outcome_of(&got, "redis_layout", &id).0, "skip");
    }
    // Several cases, all needing Redis: counted.
    let o = bqsuite(
        &["run", "--section", "redis", "--section", "redis_layout", "--case", &id, "--case", "payload_identity"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", support::transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("every case you selected (2 cases) needs Redis and was skipped"),
        "{}",
        support::transcript(&o)
    );
    // The whole section: its `cases` block needs no Redis and ran, so something was judged.
    let o = bqsuite(&["run", "--section", "redis_layout", "--out", out.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("every case you selected"), "{}", support::transcript(&o));
    // A Redis from BQ_REDIS_URL that does not answer: the runner contract's skip, said plainly.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let o = Command::new(BIN)
        .args(["run", "--section", "redis_layout", "--case", &id, "--out", out.to_str().unwrap()])
        .current_dir(support::repo())
        .env("NO_COLOR", "1")
        .env("BQ_REDIS_URL", format!("redis://127.0.0.1:{port}/"))
        .env_remove("BQ_REQUIRE_REDIS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(&format!(
            "bqsuite: every case you selected (redis_layout / {id}) needs Redis and was skipped: the Redis of \
             BQ_REDIS_URL did not answer"
        )),
        "{}",
        support::transcript(&o)
    );
}

/// The case the "to see one case" hint names may need Redis: rerun without one it is skipped
/// and shows nothing, so the hint names a Redis, as the placeholder `URL` (the run's own URL
/// may carry a password). A run given its Redis with `--redis-url` has the flag already.
#[test]
fn the_hint_to_see_a_redis_case_names_a_redis_but_never_the_runs() {
    let Some(url) = support::redis_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let cmd = format!("{} --broken redis-reserve-hands-member", adapter_cmd());
    let args = ["run", "--sdk", &cmd, "--section", "redis_layout", "--out", out.to_str().unwrap()];
    // From the environment: the hint adds the flag.
    let o = bqsuite(&args, Some(&url));
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let (section, id, tail) = hinted(&err).unwrap_or_else(|| panic!("no hint: {err}"));
    assert_eq!(section, "redis_layout");
    assert!(id.contains('/'), "a behavioural case, which needs Redis: {err}");
    assert_eq!(tail, " --redis-url URL", "{err}");
    assert!(!err.contains(&format!("--redis-url {url}")), "{err}");
    // From the flag: the command the hint extends names it already.
    let o = bqsuite(&[&args[..], &["--redis-url", &url]].concat(), None);
    assert_eq!(o.status.code(), Some(1), "{}", support::transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(hinted(&err).map(|h| h.2), Some(String::new()), "{err}");
}
