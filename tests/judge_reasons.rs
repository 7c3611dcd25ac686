//! What the judge says when an SDK answers one thing wrong: the reference core behind the SDK
//! interface, with one kind of answer altered, run through one section. The reasons speak the
//! protocol's language (`null`, `absent`, the wire spellings), never Rust's (`None`,
//! `Some(…)`, `Header`), and quote strings one way, whose hidden characters the results file
//! writes `\u{XXXX}` (a newcomer's adapter met `\u{b}`, `\f` and `\u{000b}` in one run).

mod support;

use bqsuite::conformance::{RunOptions, Status, UnderTest, run_under};
use bqsuite::sdk::ops::{DecodeOutcome, ParentContext, TraceSource};
use bqsuite::sdk::reference::ReferenceSdk;
use bqsuite::sdk::{Identity, Request, Response, Sdk, SdkError};
use bqsuite::sections::RedisRequired;
use bqsuite::sections::redis::link::RedisLink;
use bqsuite::suite::Suite;

/// The reference core, with every answer passed through `alter`.
struct Altered {
    reference: ReferenceSdk,
    alter: fn(Response) -> Response,
}

impl Sdk for Altered {
    fn hello(&self) -> Identity {
        self.reference.hello()
    }

    fn call(&mut self, request: &Request) -> Result<Response, SdkError> {
        self.reference.call(request).map(self.alter)
    }
}

impl UnderTest for Altered {
    fn sdk(&mut self) -> &mut dyn Sdk {
        self
    }
}

/// Every case of `section` run with answers altered by `alter`: (case id, status, reason).
fn run(section: &str, alter: fn(Response) -> Response) -> Vec<(String, Status, String)> {
    let suite = Suite::load(support::repo()).expect("the canonical suite loads");
    let redis = std::rc::Rc::new(RedisLink::new(None, RedisRequired::ByEnv));
    let mut sdk = Altered { reference: ReferenceSdk::new(), alter };
    let options = RunOptions { only: vec![section.into()], ..RunOptions::default() };
    let run = run_under(&suite, &options, &mut sdk, &redis);
    let cases = run.results.sections[section].as_object().expect("the section ran").clone();
    cases
        .into_iter()
        .map(|(id, o)| {
            let status = serde_json::from_value(o["status"].clone()).expect("a status");
            (id, status, o["reason"].as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

/// The reasons of the failing cases; panics when none failed.
fn failures(results: &[(String, Status, String)]) -> Vec<&str> {
    let reasons: Vec<&str> =
        results.iter().filter(|(_, s, _)| *s == Status::Fail).map(|(_, _, r)| r.as_str()).collect();
    assert!(!reasons.is_empty(), "no case failed: {results:?}");
    reasons
}

fn no_rust_words(reason: &str) {
    for word in ["None", "Some(", "Header", "Fallback", "\\u{b}"] {
        assert!(!reason.contains(word), "{word} in the reason {reason:?}");
    }
}

#[test]
fn a_decoded_trace_id_that_is_blank_fails_cases() {
    // "Per-message fields (meta.id, trace_id, meta.created_at) ... are asserted for
    // presence/shape": a decode that loses the trace id is not a decode of the message.
    let results = run("cases", |r| match r {
        Response::Decode(DecodeOutcome::Decoded { mut envelope, warnings }) => {
            envelope.trace_id = " \u{b}".into();
            Response::Decode(DecodeOutcome::Decoded { envelope, warnings })
        }
        other => other,
    });
    let reasons = failures(&results);
    for reason in &reasons {
        assert_eq!(*reason, "trace_id is \" \\u{000b}\", expected a string that is not blank");
    }
    // Every valid case decodes; the invalid ones are rejected before the trace id matters.
    let valid = results.iter().filter(|(_, s, _)| *s == Status::Fail).count();
    assert!(valid >= 4, "{results:?}");
}

#[test]
fn a_missing_created_at_is_said_absent_not_null() {
    let results = run("cases", |r| match r {
        Response::Decode(DecodeOutcome::Decoded { mut envelope, warnings }) => {
            envelope.meta.remove("created_at");
            Response::Decode(DecodeOutcome::Decoded { envelope, warnings })
        }
        other => other,
    });
    for reason in failures(&results) {
        assert_eq!(reason, "meta.created_at is absent, expected a non-negative integer");
    }
}

#[test]
fn an_idempotency_error_is_said_null_not_none() {
    let results = run("idempotency", |r| match r {
        Response::IdempotencyReplay(mut replayed) => {
            for d in &mut replayed.deliveries {
                d.error = None;
            }
            Response::IdempotencyReplay(replayed)
        }
        other => other,
    });
    let reasons = failures(&results);
    assert!(reasons.iter().any(|r| r.contains("but the helper reported the error null")), "{reasons:?}");
    reasons.iter().for_each(|r| no_rust_words(r));
}

#[test]
fn a_traceparent_source_is_said_in_the_protocols_words() {
    let results = run("traceparent", |r| match r {
        Response::TraceparentExtract(p) => {
            let source = if p.source == TraceSource::Header { TraceSource::Fallback } else { TraceSource::Header };
            Response::TraceparentExtract(ParentContext { source, ..p })
        }
        other => other,
    });
    let reasons = failures(&results);
    assert!(reasons.iter().any(|r| r.starts_with("source: expected header, got fallback (header \"")), "{reasons:?}");
    assert!(
        reasons.iter().any(|r| r.starts_with("source: expected fallback, got header (header absent)")),
        "{reasons:?}"
    );
    reasons.iter().for_each(|r| no_rust_words(r));
}
