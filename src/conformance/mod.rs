//! `bqsuite run`: the reference core through every in-scope section, as a results file.
//!
//! Invariants: sections are enumerated from the manifest's `sections` map, never from a
//! hard-coded list; every case id of every in-scope section is reported exactly once, under the
//! one case-id rule ([`crate::suite::ids`]); a section with no runner is reported case by case as
//! `fail` with a reason, never left out and never `pass`; a runner panic fails that case, not the
//! run; unknown case fields are ignored (runners read only the fields they know) and a section
//! with an unknown scope is tolerated (left out). Runners are data-driven: every expected value
//! comes from the manifest or a fixture, never from the runner's code.

pub mod artemis;
pub mod asb;
pub mod backoff;
mod binding;
pub mod cases;
pub mod data_shape;
pub mod delay;
pub mod encode_reject;
mod envelope_checks;
pub mod extension_write;
pub mod fields;
pub mod forbidden_keys;
pub mod idempotency;
pub mod job_type;
pub mod kafka;
pub mod kafka_poison;
pub mod outcome;
pub mod payload_schema;
pub mod poison_dlq;
pub mod pulsar;
pub mod rabbitmq;
pub mod redis;
pub mod redis_delay;
pub mod redis_layout;
pub mod redis_link;
pub mod retry_backoff;
pub mod roundtrip;
pub mod sqs;
pub mod traceparent;
pub mod trim;

use std::panic::{AssertUnwindSafe, catch_unwind};

pub use outcome::{Check, ensure};
pub use redis_link::RedisLink;

pub use crate::results::{Outcome, ResultsFile, Status};

use crate::suite::{CaseRef, Scope, Section, Suite};

/// The name the reference core reports as (decisions R7).
pub const SDK_NAME: &str = "bqsuite-reference";

/// The scopes the reference core carries: all of them.
pub const CARRIED: [Scope; 9] = Scope::ALL;

/// Settings of a run that come from outside the suite.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only these sections (all in-scope sections when empty).
    pub only: Vec<String>,
    /// Where a live Redis is (`BQ_REDIS_URL`).
    pub redis_url: Option<String>,
    /// An unreachable Redis is a failure, not a skip (`BQ_REQUIRE_REDIS`).
    pub require_redis: bool,
    /// Connect and reply timeout for Redis (`None`: [`redis_link::DEFAULT_TIMEOUT`]).
    pub redis_timeout: Option<std::time::Duration>,
}

/// What a runner sees of the run.
pub struct RunCx<'a> {
    pub suite: &'a Suite,
    pub section: Section<'a>,
    pub options: &'a RunOptions,
    /// The run's one Redis connection (for the cases that need a live Redis).
    pub redis: &'a RedisLink,
}

impl RunCx<'_> {
    /// The exact bytes of a suite file, or a failure reason naming it.
    pub fn bytes(&self, rel: &str) -> Result<&[u8], String> {
        self.suite.file(rel).map(|f| f.bytes.as_slice()).ok_or_else(|| format!("{rel} is not in the suite"))
    }
}

/// A section runner: maps one manifest case to reference-core calls.
pub trait SectionRunner {
    /// Run one case of the section.
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome;
}

/// The runner for a section, if the reference core implements it.
pub fn runner_for(section: &str) -> Option<Box<dyn SectionRunner>> {
    match section {
        "cases" => Some(Box::new(cases::Cases)),
        "roundtrip" => Some(Box::new(roundtrip::Roundtrip)),
        "data_shape" => Some(Box::new(data_shape::DataShape)),
        "forbidden_keys" => Some(Box::new(forbidden_keys::ForbiddenKeys)),
        "extension_write" => Some(Box::new(extension_write::ExtensionWrite)),
        "encode_reject" => Some(Box::new(encode_reject::EncodeReject)),
        "trim" => Some(Box::new(trim::Trim)),
        "job_type" => Some(Box::new(job_type::JobType)),
        "payload_schema" | "payload_schema_unicode" => Some(Box::<payload_schema::PayloadSchema>::default()),
        "idempotency" => Some(Box::new(idempotency::Idempotency)),
        "retry_backoff" => Some(Box::new(retry_backoff::RetryBackoff)),
        "poison_dlq" => Some(Box::new(poison_dlq::PoisonDlq)),
        "traceparent" => Some(Box::new(traceparent::Traceparent)),
        "sqs" => Some(Box::new(sqs::Sqs)),
        "delay" => Some(Box::new(delay::Delay)),
        "asb" => Some(Box::new(asb::Asb)),
        "pulsar" => Some(Box::new(pulsar::Pulsar)),
        "kafka" => Some(Box::new(kafka::Kafka)),
        "backoff" => Some(Box::new(backoff::Backoff)),
        "kafka_poison" => Some(Box::new(kafka_poison::KafkaPoison)),
        "artemis" => Some(Box::new(artemis::Artemis)),
        "rabbitmq" => Some(Box::new(rabbitmq::Rabbitmq)),
        "redis" => Some(Box::new(redis::Redis)),
        "redis_layout" => Some(Box::new(redis_layout::RedisLayout)),
        "redis_delay" => Some(Box::new(redis_delay::RedisDelay)),
        _ => None,
    }
}

/// Run every in-scope section of `suite` and collect the results.
pub fn run(suite: &Suite, options: &RunOptions) -> ResultsFile {
    let mut results = ResultsFile {
        sdk: SDK_NAME.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        conformance_version: suite.version().unwrap_or_default().to_owned(),
        generated_at: crate::results::generated_at(),
        bindings: CARRIED.iter().filter(|s| s.is_binding()).map(|s| s.as_str().to_owned()).collect(),
        sections: serde_json::Map::new(),
    };
    let redis = RedisLink::with_timeout(
        options.redis_url.as_deref(),
        options.require_redis,
        options.redis_timeout.unwrap_or(redis_link::DEFAULT_TIMEOUT),
    );
    for section in suite.sections() {
        let Some(scope) = section.scope else { continue };
        if !CARRIED.contains(&scope) || (!options.only.is_empty() && !options.only.iter().any(|s| s == section.name)) {
            continue;
        }
        let cx = RunCx { suite, section, options, redis: &redis };
        let mut runner = runner_for(section.name);
        for case in section.cases() {
            let outcome = match runner.as_mut() {
                None => Outcome::fail(format!("section {:?} is not implemented by the reference core", section.name)),
                Some(r) => catch_unwind(AssertUnwindSafe(|| r.run_case(&cx, &case)))
                    .unwrap_or_else(|p| Outcome::fail(format!("runner panicked: {}", panic_text(&p)))),
            };
            results.record(section.name, &case.id, &outcome);
        }
        results
            .sections
            .entry(section.name.to_owned())
            .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    }
    results
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}
