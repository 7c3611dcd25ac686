//! The adapter transport against deliberately misbehaving adapters (`tests/adapters/
//! misbehave.py`, a relay over `bqsuite adapter` that misbehaves at one call): each kind of
//! misbehaviour fails the call it hits with a reason that says what happened, never hangs,
//! and the next case gets a fresh adapter (or none, once the restarts are used up).

mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bqsuite::adapter::{Adapter, AdapterOptions, Trouble};
use bqsuite::sdk::ops::{Accepts, Decode, DecodeOutcome};
use bqsuite::sdk::wire::Bytes;
use bqsuite::sdk::{Calls, Request, Response, Sdk, SdkError};

/// python3, or `None` (and a message) when it is missing outside CI.
fn python() -> Option<&'static str> {
    let ok = std::process::Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "python3 is needed for the misbehaving adapters");
        eprintln!("skipped: python3 is not installed");
        return None;
    }
    Some("python3")
}

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap() }
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("adapter.log")
    }

    fn options(&self, mode: &str, at: u32, once: bool) -> AdapterOptions {
        let mut command = vec![
            "python3".to_owned(),
            support::repo().join("tests/adapters/misbehave.py").display().to_string(),
            env!("CARGO_BIN_EXE_bqsuite").to_owned(),
            mode.to_owned(),
            at.to_string(),
        ];
        if once {
            command.push("--once".into());
            command.push(self.dir.path().join("once").display().to_string());
        }
        AdapterOptions {
            command,
            timeout: Duration::from_millis(1500),
            max_restarts: 2,
            log: self.log(),
            conformance_version: "1.6.0".into(),
            trace: false,
        }
    }

    /// The reference adapter itself (`bqsuite adapter`, which declares `pipeline`), no relay.
    fn reference(&self) -> AdapterOptions {
        AdapterOptions {
            command: vec![env!("CARGO_BIN_EXE_bqsuite").into(), "adapter".into()],
            ..self.options("relay", 0, false)
        }
    }
}

const ENVELOPE: &str = r#"{"job":"urn:x","trace_id":"t","data":{},"meta":{"schema_version":1},"attempts":0}"#;

fn accepts(a: &mut Adapter) -> Result<bool, SdkError> {
    a.accepts(Accepts { body: Bytes::from(ENVELOPE) })
}

fn transport(r: Result<bool, SdkError>) -> String {
    match r {
        Err(SdkError::Transport { message }) => message,
        other => panic!("expected a transport error, got {other:?}"),
    }
}

/// Calls 1 .. at-1 answer; call `at` fails with a reason containing `says`; the rest of the
/// case fails at once; the next case runs on a fresh adapter.
fn fails_once_then_recovers(mode: &str, says: &str) {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let mut a = Adapter::start(s.options(mode, 2, true)).expect("the adapter starts");
    a.begin_case("cases", "one");
    assert_eq!(accepts(&mut a), Ok(true));
    let started = Instant::now();
    let why = transport(accepts(&mut a));
    assert!(started.elapsed() < Duration::from_secs(10), "{mode} took {:?}", started.elapsed());
    assert!(why.contains("call 2 (accepts)") && why.contains(says), "{mode}: {why}");
    let rest = transport(accepts(&mut a));
    assert!(rest.contains("failed earlier in this case"), "{rest}");
    // The case had an incident: none of its calls is one not run for what came before it.
    assert_eq!(a.case_notes().not_run, None, "{mode}");
    a.begin_case("cases", "two");
    assert_eq!(accepts(&mut a), Ok(true), "{mode}: a fresh adapter answers");
    let summary = a.finish();
    assert_eq!(summary.starts, 2, "{mode}: one restart");
    assert_eq!(summary.incidents.len(), 1, "{mode}: {:?}", summary.incidents);
    assert_eq!((summary.incidents[0].section.as_str(), summary.incidents[0].case.as_str()), ("cases", "one"));
    let log = std::fs::read_to_string(s.log()).unwrap();
    assert!(log.contains("== bqsuite: start 2 of the adapter"), "{log}");
    // The log says how each process ended: one that exited was not stopped; the last one
    // exited cleanly after the shutdown.
    let ends: Vec<&str> = log.lines().filter(|l| l.starts_with("== bqsuite: the adapter ")).collect();
    assert_eq!(ends.len(), 2, "{log}");
    assert!(ends[0].contains(says), "{log}");
    assert_eq!(ends[0].contains("stopped it"), mode != "crash", "{log}");
    assert_eq!(ends[1], "== bqsuite: the adapter exited cleanly after the shutdown", "{log}");
}

#[test]
fn a_crash_mid_run() {
    fails_once_then_recovers("crash", "exited (exit status: 3) before answering");
}

#[test]
fn a_hang() {
    fails_once_then_recovers("hang", "gave no answer within 1.5 s (--timeout)");
}

#[test]
fn a_garbage_line() {
    fails_once_then_recovers("garbage", "not a reply of the protocol: not JSON");
}

#[test]
fn a_wrong_seq() {
    fails_once_then_recovers("wrong-seq", "answered seq 102, which was never sent");
}

#[test]
fn a_huge_line() {
    fails_once_then_recovers("huge", "a line longer than 8 MiB");
}

#[test]
fn a_duplicate_response_fails_the_next_call() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let mut a = Adapter::start(s.options("duplicate", 2, true)).unwrap();
    a.begin_case("cases", "one");
    assert_eq!(accepts(&mut a), Ok(true));
    assert_eq!(accepts(&mut a), Ok(true), "the first of the two answers is taken");
    let why = transport(accepts(&mut a));
    assert!(
        why.contains("call 3 (accepts)") && why.contains("answered seq 2 a second time (a duplicate response)"),
        "{why}"
    );
    a.begin_case("cases", "two");
    assert_eq!(accepts(&mut a), Ok(true));
    assert_eq!(a.finish().starts, 2);
}

#[test]
fn a_seq_that_is_not_an_integer_is_named_as_such() {
    fails_once_then_recovers("string-seq", "not a reply of the protocol: seq \"2\" is not a positive integer");
}

/// Call 2 is answered in step but with a result that does not follow the protocol: only that
/// call fails, the same process answers the next one, and the reason names what is wrong.
fn fails_only_that_call(mode: &str, says: &str) {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let mut a = Adapter::start(s.options(mode, 2, true)).unwrap();
    a.begin_case("cases", "one");
    assert_eq!(accepts(&mut a), Ok(true));
    let why = transport(accepts(&mut a));
    let kept = "answered with a reply that does not follow the protocol (kept running): ";
    assert!(why.contains(&format!("{kept}{says}")), "{mode}: {why}");
    assert_eq!(accepts(&mut a), Ok(true), "the stream is in step: the same process answers");
    let summary = a.finish();
    assert_eq!((summary.starts, summary.incidents.len()), (1, 1));
}

#[test]
fn a_result_of_another_operation_fails_only_that_call() {
    let says = "a result of kafka_default_tiers to the accepts call (response.op must be accepts)";
    fails_only_that_call("bad-result", says);
}

#[test]
fn a_result_naming_another_operation_is_told_so_before_its_shape_is_judged() {
    // The result (a boolean) fits accepts, not the decode it claims to be.
    fails_only_that_call("wrong-op", "a result of decode to the accepts call (response.op must be accepts)");
}

/// A result of the right operation but the wrong shape: the reason says where it departs from
/// the protocol and what the protocol wants there. A value of the wrong JSON type is told by its
/// type alone (here the string "yes\u0007" where a boolean belongs), so one fault of an adapter
/// reads alike whatever value each call held, and the failure digest tells it once.
#[test]
fn a_result_of_the_wrong_shape_is_told_where() {
    fails_only_that_call("bad-shape", "/response/result is a string, where the protocol wants a boolean");
}

/// A number of the wrong type is told by its kind, not its value: serde_json reads
/// `0.0000000000000001` as 1e-16, and a value differs in every call anyway (a float delay),
/// which made one fault as many reasons as calls.
#[test]
fn a_number_of_the_wrong_type_is_told_by_its_kind() {
    let Some((_a, _s, why)) = failed_decode("near-int") else { return };
    assert!(
        why.contains(
            "/response/result/envelope/attempts is a number written with a fraction or an exponent, where the protocol wants an integer (uint64)"
        ) && !why.contains("0.0000000000000001"),
        "{why}"
    );
}

/// A warning's pointer that is not an RFC 6901 pointer (a key named bare) fails the call, told
/// where, even where no case judges warnings.
#[test]
fn a_warning_pointer_that_is_not_a_pointer_is_told_where() {
    let Some((mut a, _s, why)) = failed_decode("bad-pointer") else { return };
    assert!(
        why.contains(
            r#"/response/result/warnings/0/pointer is a string that is not a JSON pointer, where the protocol wants an RFC 6901 pointer (empty, or each key after a "/": "/timestamp")"#
        ),
        "{why}"
    );
    assert_eq!(decode(&mut a), Ok(true), "the stream is in step: the same process answers");
}

/// JSON deeper than serde reads (here in a decoded envelope's data) is said so, not called
/// "not JSON": it is JSON.
#[test]
fn a_reply_nested_too_deeply_is_told_so() {
    let Some((_a, _s, why)) = failed_decode("deep") else { return };
    assert!(
        why.contains(
            "not a reply of the protocol: JSON nested too deeply (more than 127 levels), which bqsuite does not read: {"
        ) && !why.contains("not JSON"),
        "{why}"
    );
}

/// An adapter misbehaving as `mode` at call 2, a `decode` after an `accepts` that it answers:
/// the adapter (dropped before its setup), its setup, and why the decode failed; `None` (the
/// test skips) without python3.
fn failed_decode(mode: &str) -> Option<(Adapter, Setup, String)> {
    python()?;
    let s = Setup::new();
    let mut a = Adapter::start(s.options(mode, 2, true)).unwrap();
    a.begin_case("cases", "one");
    assert_eq!(accepts(&mut a), Ok(true));
    let why = transport(decode(&mut a));
    Some((a, s, why))
}

/// The calls [`accepts`] and [`decode`] make, for a plan written ahead.
fn accepts_call() -> Request {
    Request::Accepts(Accepts { body: Bytes::from(ENVELOPE) })
}

fn decode_call() -> Request {
    Request::Decode(Decode { body: Bytes::from(ENVELOPE) })
}

/// `decode` of the envelope: whether it decoded (the outcome itself is large).
fn decode(a: &mut Adapter) -> Result<bool, SdkError> {
    a.decode(Decode { body: Bytes::from(ENVELOPE) }).map(|o| matches!(o, DecodeOutcome::Decoded { .. }))
}

#[test]
fn restarts_are_capped() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    // Crashes at its first call, every time; two restarts allowed. Two operations take turns,
    // so neither is retired before the budget is used up.
    let mut a = Adapter::start(s.options("crash", 1, false)).unwrap();
    for (case, op) in [("a", "accepts"), ("b", "decode"), ("c", "accepts")] {
        a.begin_case("cases", case);
        let why = if op == "accepts" { transport(accepts(&mut a)) } else { transport(decode(&mut a)) };
        assert!(why.contains("exited (exit status: 3)"), "{case}: {why}");
    }
    a.begin_case("cases", "d");
    let started = Instant::now();
    let why = transport(decode(&mut a));
    assert!(why.contains("not run: the adapter failed 3 times and is not started again (--max-restarts 2)"), "{why}");
    assert!(started.elapsed() < Duration::from_millis(200), "no restart is attempted");
    let summary = a.finish();
    assert!(summary.gave_up);
    assert_eq!((summary.starts, summary.incidents.len()), (3, 3));
}

/// An operation that takes the adapter down three times in a row is not sent again: a crash that
/// repeats is the SDK's bug in that operation, and the restarts left serve the others. (One
/// operation crashing in every case used up the whole budget, and every section after it was
/// "not run".)
#[test]
fn an_operation_that_takes_the_adapter_down_three_times_in_a_row_is_not_sent_again() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    // A budget of 5: the operation is retired before the adapter would be given up.
    let options = AdapterOptions { max_restarts: 5, ..s.options("crash-on-accepts", 0, false) };
    let mut a = Adapter::start(options).unwrap();
    for case in ["a", "b", "c"] {
        a.begin_case("cases", case);
        assert!(transport(accepts(&mut a)).contains("exited (exit status: 3)"), "{case}");
    }
    a.begin_case("cases", "d");
    let started = Instant::now();
    let why = transport(accepts(&mut a));
    assert!(
        why.contains(
            "not run: accepts took the adapter down 3 times and was never answered, so it is not sent again (the other operations go on)"
        ),
        "{why}"
    );
    assert!(started.elapsed() < Duration::from_millis(200), "no restart is attempted for it");
    // Another operation is answered by a restarted adapter.
    assert!(matches!(decode(&mut a), Ok(true)));
    // Nor is it written ahead: of a plan that holds both, only the other operation's call goes
    // out, so the restarted adapter is not taken down again (no fourth incident, no fifth start).
    a.send_ahead("cases", vec![("e".into(), vec![(accepts_call(), None)]), ("f".into(), vec![(decode_call(), None)])]);
    a.begin_case("cases", "e");
    assert!(transport(accepts(&mut a)).contains("not run: accepts took the adapter down 3 times"));
    a.begin_case("cases", "f");
    assert!(matches!(decode(&mut a), Ok(true)));
    let summary = a.finish();
    assert!(!summary.gave_up);
    assert_eq!(summary.retired_operations, ["accepts"]);
    assert_eq!((summary.starts, summary.incidents.len()), (4, 3));
    assert_eq!(summary.ahead, Some((1, 1)), "only the decode was written ahead, and used: {summary}");
    assert!(
        summary.to_string().contains(", never answered and not sent again after taking it down 3 times: accepts;"),
        "{summary}"
    );
}

/// A process that exits right after answering a call is lost while the next call is awaited,
/// which is charged for it. That call's operation is never the first a fresh process answers
/// there, so it is not retired on such evidence: the red team's adapter had decode "not sent
/// again", its 29 cases failed, for a crash after accepts.
#[test]
fn an_operation_charged_for_a_crash_after_the_call_before_is_not_retired() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let options = AdapterOptions { max_restarts: 5, ..s.options("exit-after-accepts", 0, false) };
    let mut a = Adapter::start(options).unwrap();
    for case in ["a", "b", "c", "d"] {
        a.begin_case("cases", case);
        assert_eq!(accepts(&mut a), Ok(true), "{case}");
        let why = transport(decode(&mut a));
        assert!(why.contains("exited (exit status: 3)"), "{case}: {why}");
    }
    let summary = a.finish();
    assert!(summary.retired_operations.is_empty(), "{summary}");
}

/// An operation that was answered once crashes on some inputs only (or was charged for another
/// call's crash, as at a start-up flake): it keeps being sent, within the restart budget. The
/// red team's adapter had reemit retired by processes that died at their start, and poison_record
/// by a crash on lone-surrogate bodies: 26 and 24 fails, 4 and 8 before.
#[test]
fn an_operation_once_answered_is_never_retired() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let options = AdapterOptions { max_restarts: 5, ..s.options("crash-on-later-accepts", 0, true) };
    let mut a = Adapter::start(options).unwrap();
    a.begin_case("cases", "a");
    assert_eq!(accepts(&mut a), Ok(true));
    for case in ["b", "c", "d", "e"] {
        a.begin_case("cases", case);
        let why = transport(accepts(&mut a));
        assert!(why.contains("exited (exit status: 3)"), "{case}: {why}");
    }
    let summary = a.finish();
    assert!(summary.retired_operations.is_empty(), "{summary}");
}

#[test]
fn an_adapter_that_ignores_the_shutdown_is_killed_after_the_timeout() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let mut a = Adapter::start(s.options("linger", 0, false)).unwrap();
    a.begin_case("cases", "one");
    assert_eq!(accepts(&mut a), Ok(true));
    let started = Instant::now();
    let summary = a.finish();
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(summary.incidents.len(), 1, "{summary}");
    assert_eq!(summary.incidents[0].trouble, Trouble::Lingered);
    assert_eq!(
        summary.incidents[0].to_string(),
        "the adapter did not exit within the timeout after the shutdown (killed)"
    );
}

/// An adapter that writes after the shutdown and then exits in time is not killed, but its log
/// must not call that exit clean (a newcomer read "exited cleanly" beside the summary's incident).
#[test]
fn an_adapter_that_writes_after_the_shutdown_then_exits_is_not_called_clean() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let mut a = Adapter::start(s.options("talk-after", 0, false)).unwrap();
    a.begin_case("cases", "one");
    assert_eq!(accepts(&mut a), Ok(true));
    let summary = a.finish();
    let troubles: Vec<_> = summary.incidents.iter().map(|i| &i.trouble).collect();
    assert!(matches!(troubles[..], [Trouble::Garbage(_)]), "{summary}");
    let log = std::fs::read_to_string(s.log()).unwrap();
    let ends: Vec<&str> = log.lines().filter(|l| l.starts_with("== bqsuite: the adapter ")).collect();
    assert_eq!(ends, ["== bqsuite: the adapter exited after the shutdown, having written after it"], "{log}");
}

/// After the shutdown bqsuite reads whatever the adapter still writes; an adapter that writes
/// short lines without end always has one ready, so no read ever waited out the timeout and
/// the run never ended (it hung for as long as the adapter wrote).
#[test]
fn an_adapter_that_floods_its_stdout_after_the_shutdown_is_killed_after_the_timeout() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let mut a = Adapter::start(s.options("flood", 0, false)).unwrap();
    a.begin_case("cases", "one");
    assert_eq!(accepts(&mut a), Ok(true));
    let started = Instant::now();
    // On a thread, so that a finish that never returns fails the test instead of hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(a.finish());
    });
    let summary = rx.recv_timeout(Duration::from_secs(30)).expect("finish returns within the timeout");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let troubles: Vec<_> = summary.incidents.iter().map(|i| &i.trouble).collect();
    assert!(matches!(troubles[..], [Trouble::Garbage(_), Trouble::Lingered]), "{summary}");
}

fn start_fails(mode: &str) -> Trouble {
    let s = Setup::new();
    let started = Instant::now();
    let t = Adapter::start(s.options(mode, 0, false)).err().expect("the start fails");
    assert!(started.elapsed() < Duration::from_secs(10));
    t
}

#[test]
fn an_unknown_protocol_version_stops_before_any_case() {
    if python().is_none() {
        return;
    }
    let t = start_fails("protocol");
    assert_eq!(t, Trouble::Protocol("2".into()));
    assert_eq!(t.to_string(), "speaks adapter protocol 2, and bqsuite speaks protocol 1 only");
}

#[test]
fn a_hello_naming_a_binding_outside_the_contract_or_one_twice_stops_before_any_case() {
    if python().is_none() {
        return;
    }
    // Its results file would fail the results schema: refused at the hello instead.
    let t = start_fails("unknown-binding");
    let known = "redis, amqp, sqs, asb, pulsar, kafka, artemis, otel";
    let says = format!(
        "gave a hello that does not follow the protocol: bindings: \"nats\" is not a binding of the contract ({known})"
    );
    assert_eq!(t.to_string(), says);
    let t = start_fails("binding-twice");
    assert_eq!(t.to_string(), "gave a hello that does not follow the protocol: bindings: \"sqs\" is named twice");
}

#[test]
fn an_adapter_that_exits_at_once() {
    if python().is_none() {
        return;
    }
    let t = start_fails("exit-at-once");
    assert_eq!(t.to_string(), "exited (exit status: 3) before its hello");
}

#[test]
fn a_banner_before_the_hello() {
    if python().is_none() {
        return;
    }
    let t = start_fails("not-json-hello");
    assert!(matches!(&t, Trouble::Garbage(w) if w.contains("Starting babelqueue adapter")), "{t}");
}

#[test]
fn a_command_that_does_not_exist() {
    let s = Setup::new();
    let mut o = s.options("relay", 0, false);
    o.command = vec!["/nonexistent/adapter".into()];
    let t = Adapter::start(o).err().expect("no such program");
    assert!(matches!(t, Trouble::Spawn(_)), "{t}");
}

#[test]
fn the_reference_adapter_answers_and_shuts_down_cleanly() {
    let s = Setup::new();
    let mut a = Adapter::start(s.reference()).unwrap();
    assert_eq!(bqsuite::sdk::Sdk::hello(&a).sdk, "bqsuite-reference");
    a.begin_case("cases", "x");
    assert_eq!(accepts(&mut a), Ok(true));
    let summary = a.finish();
    assert_eq!((summary.starts, summary.incidents.len()), (1, 0), "{summary}");
}

/// An answer written ahead is the answer to the call it was written for, and to no other: a case
/// that asks something else than predicted gets the adapter's answer to what it asked, made when
/// it asks (the one written ahead is thrown away).
#[test]
fn an_answer_written_ahead_is_used_only_for_the_very_call_it_answers() {
    let s = Setup::new();
    let mut a = Adapter::start(s.reference()).unwrap();
    assert!(a.pipelines(), "the reference adapter declares pipeline");
    let predicted = accepts_call();
    let asked = Request::Accepts(Accepts { body: Bytes::from("not json") });
    a.send_ahead("cases", vec![("x".into(), vec![(predicted, Some(Response::Accepts(true)))])]);
    a.begin_case("cases", "x");
    assert_eq!(a.call(&asked), Ok(Response::Accepts(false)));
    let summary = a.finish();
    assert_eq!(summary.ahead, Some((1, 0)), "written ahead once, used never: {summary}");
}

/// An operation the hello leaves out is never sent, not even written ahead: a case that asks for
/// it gets "not implemented" without a word to the adapter.
#[test]
fn an_operation_the_hello_leaves_out_is_never_written_ahead() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let record = s.dir.path().join("exchange");
    let mut o = s.options("relay", 0, false);
    o.command.extend(["--hello".into(), r#"{"operations": ["decode"]}"#.into()]);
    o.command.extend(["--record".into(), record.display().to_string()]);
    let mut a = Adapter::start(o).unwrap();
    a.send_ahead("cases", vec![("x".into(), vec![(accepts_call(), None)]), ("y".into(), vec![(decode_call(), None)])]);
    a.begin_case("cases", "x");
    assert!(matches!(accepts(&mut a), Err(SdkError::NotImplemented { .. })));
    a.begin_case("cases", "y");
    assert_eq!(decode(&mut a), Ok(true));
    let summary = a.finish();
    assert_eq!(summary.ahead, Some((1, 1)), "only the decode was written ahead, and used: {summary}");
    let exchange = std::fs::read_to_string(&record).unwrap();
    assert!(exchange.contains(r#""op":"decode""#), "the record holds the calls: {exchange}");
    assert!(!exchange.contains(r#""op":"accepts""#), "accepts reached the adapter: {exchange}");
}

/// A process lost at a call written ahead ends its case as one lost at a call made one at a time
/// does: the case's later calls fail at once (the state they would need went with the process),
/// and the next case runs on a fresh adapter.
#[test]
fn a_crash_at_a_call_written_ahead_fails_the_rest_of_its_case() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let mut a = Adapter::start(s.options("crash", 1, true)).unwrap();
    let plan = vec![(accepts_call(), Some(Response::Accepts(true))), (decode_call(), None)];
    a.send_ahead("cases", vec![("one".into(), plan)]);
    a.begin_case("cases", "one");
    let why = transport(accepts(&mut a));
    assert!(why.contains("call 1 (accepts)") && why.contains("exited (exit status: 3) before answering"), "{why}");
    let rest = transport(decode(&mut a));
    assert!(rest.contains("failed earlier in this case"), "{rest}");
    a.begin_case("cases", "two");
    assert_eq!(decode(&mut a), Ok(true), "a fresh adapter answers");
    let summary = a.finish();
    assert_eq!((summary.starts, summary.incidents.len()), (2, 1), "{summary}");
    assert_eq!(summary.ahead, Some((1, 1)), "the crash was the answer written ahead: {summary}");
}

/// When the next section's calls are written ahead, the last section's replies still in flight
/// are read, and nothing more of it is written: the calls it had queued behind the window (cases
/// that asked otherwise than predicted, or not at all) are thrown away, not sent to an adapter
/// that could only be taken down by them after their cases were judged.
#[test]
fn a_section_s_calls_left_in_its_queue_are_not_written_once_the_next_section_begins() {
    let s = Setup::new();
    let mut a = Adapter::start(s.reference()).unwrap();
    // More first calls than the window (64) holds: the rest wait in the queue.
    let plan = (0..70).map(|i| (format!("c{i}"), vec![(accepts_call(), Some(Response::Accepts(true)))])).collect();
    a.send_ahead("one", plan);
    a.send_ahead("two", Vec::new());
    let summary = a.finish();
    assert_eq!(summary.ahead, Some((64, 0)), "only the first window was written: {summary}");
}

/// With `trace`, a call that never reached the adapter (the restarts were used up) is no call of
/// the case to compare with the reference core's: the log tells no reference answer for it,
/// under the number of the last call that did.
#[test]
fn a_call_never_sent_is_not_compared_with_the_reference() {
    if python().is_none() {
        return;
    }
    let s = Setup::new();
    let mut a =
        Adapter::start(AdapterOptions { max_restarts: 0, trace: true, ..s.options("crash", 1, false) }).unwrap();
    a.begin_case("cases", "one");
    assert!(transport(accepts(&mut a)).contains("exited (exit status: 3)"));
    a.case_ended("one", "fail", true);
    a.begin_case("cases", "two");
    assert!(transport(accepts(&mut a)).contains("not run: the adapter failed 1 times"));
    assert!(a.wants_reference());
    a.reference_ran(vec![(accepts_call(), Some(Response::Accepts(true)))]);
    a.case_ended("two", "fail", true);
    a.finish();
    let log = std::fs::read_to_string(s.log()).unwrap();
    assert!(log.contains("→ {\"cmd\":\"call\",\"seq\":1,"), "the trace holds the call sent: {log}");
    assert!(!log.contains("≠ reference"), "{log}");
}
