//! `bqsuite run`: an SDK through every in-scope section, as a results file.
//!
//! Invariants: sections are enumerated from the manifest's `sections` map, never from a
//! hard-coded list, and each is run by its definition in the registry
//! ([`crate::sections::registry`]) against the SDK interface only; every case id of every
//! in-scope section is reported exactly once, under the one case-id rule
//! ([`crate::suite::ids`]); a section the registry does not know is reported case by case as
//! `fail`, never left out and never `pass`; a case that does not read cleanly is a `fail` with
//! reason `invalid case: …` naming its pointer and is counted as a suite error ([`Run::invalid`]:
//! the suite is broken, the SDK is not judged on it); a runner panic fails that case, not the
//! run; a section with an unknown scope, or one the SDK does not carry, is left out. Runners are
//! data-driven: every expected value comes from the manifest or a fixture. The SDK under test
//! ([`UnderTest`]) is told where each case begins and may add to its outcome what it said
//! besides results (an adapter's skips and missing operations, [`adapter`]); the in-process
//! reference adds nothing, so both paths write the same file for the same behaviour.

pub mod adapter;
pub mod kill;

use std::rc::Rc;

pub use crate::results::{Outcome, ResultsFile, Status};

use crate::sdk::Sdk;
use crate::sdk::reference::ReferenceSdk;
use crate::sections::{self, RedisLink, RunCx};
use crate::suite::{Scope, Suite};

/// The name the reference core reports as (decisions R7).
pub use crate::sdk::reference::SDK_NAME;

/// Settings of a run that come from outside the suite.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only these sections (all in-scope sections when empty).
    pub only: Vec<String>,
    /// Where a live Redis is (`BQ_REDIS_URL`).
    pub redis_url: Option<String>,
    /// An unreachable Redis is a failure, not a skip (`BQ_REQUIRE_REDIS`).
    pub require_redis: bool,
    /// Connect and reply timeout for Redis (`None`: [`crate::sections::redis::link::DEFAULT_TIMEOUT`]).
    pub redis_timeout: Option<std::time::Duration>,
}

/// A case the suite cannot have run: it does not read cleanly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidCase {
    pub section: String,
    pub id: String,
    /// `pointer: problem` for every problem of the case.
    pub problems: Vec<String>,
}

/// What a run gave: the results file, and the cases the suite itself got wrong.
#[derive(Debug, Clone)]
pub struct Run {
    pub results: ResultsFile,
    pub invalid: Vec<InvalidCase>,
}

/// Run the reference core through every in-scope section of `suite`.
pub fn run(suite: &Suite, options: &RunOptions) -> Run {
    let redis = Rc::new(redis_link(options));
    let mut sdk = ReferenceSdk::with_redis(redis.clone());
    run_with(suite, options, &mut sdk, &redis)
}

/// The judge's Redis for a run with `options`.
fn redis_link(options: &RunOptions) -> RedisLink {
    RedisLink::with_timeout(
        options.redis_url.as_deref(),
        options.require_redis,
        options.redis_timeout.unwrap_or(crate::sections::redis::link::DEFAULT_TIMEOUT),
    )
}

/// The SDK under test as a run sees it: the SDK, told where each case begins and asked how
/// it ended (an adapter adds what it said besides results: a skip, an operation it lacks).
pub trait UnderTest {
    /// The SDK the sections call.
    fn sdk(&mut self) -> &mut dyn Sdk;
    /// Case `id` of `section` begins: the calls until it ends belong to it.
    fn begin_case(&mut self, _section: &str, _id: &str) {}
    /// Case `id` of `section` ended with `outcome`; the outcome to record.
    fn end_case(&mut self, _section: &str, _id: &str, outcome: Outcome) -> Outcome {
        outcome
    }
}

/// An SDK in process, as it is.
struct InProcess<'a>(&'a mut dyn Sdk);

impl UnderTest for InProcess<'_> {
    fn sdk(&mut self) -> &mut dyn Sdk {
        self.0
    }
}

/// Run `sdk` through every in-scope section of `suite`; `redis` is the judge's Redis.
pub fn run_with(suite: &Suite, options: &RunOptions, sdk: &mut dyn Sdk, redis: &RedisLink) -> Run {
    run_under(suite, options, &mut InProcess(sdk), redis)
}

/// Run the SDK `under` test through every in-scope section of `suite`; `redis` is the judge's
/// Redis.
pub fn run_under(suite: &Suite, options: &RunOptions, under: &mut dyn UnderTest, redis: &RedisLink) -> Run {
    let identity = under.sdk().hello();
    let carried: Vec<Scope> = std::iter::once(Scope::Core)
        .chain(identity.bindings.iter().filter_map(|b| Scope::parse(b)).filter(|s| s.is_binding()))
        .collect();
    let mut results = ResultsFile {
        sdk: identity.sdk,
        version: identity.version,
        conformance_version: suite.version().unwrap_or_default().to_owned(),
        generated_at: crate::results::generated_at(),
        bindings: identity.bindings,
        sections: serde_json::Map::new(),
    };
    let mut invalid = Vec::new();
    for section in suite.sections() {
        let Some(scope) = section.scope else { continue };
        if !carried.contains(&scope) || (!options.only.is_empty() && !options.only.iter().any(|s| s == section.name)) {
            continue;
        }
        results
            .sections
            .entry(section.name.to_owned())
            .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
        let Some(def) = sections::find(section.name) else {
            for case in section.cases() {
                let reason = format!("section {:?} is not implemented by the reference core", section.name);
                results.record(section.name, &case.id, &Outcome::fail(reason));
            }
            continue;
        };
        let cases = def.read(suite, &section);
        for i in 0..cases.len() {
            let case = cases.case(i);
            let problems: Vec<String> = cases.problems(i).iter().filter(|p| !p.lint).map(ToString::to_string).collect();
            if !problems.is_empty() {
                invalid.push(InvalidCase { section: section.name.to_owned(), id: case.id.clone(), problems });
            }
            under.begin_case(section.name, &case.id);
            let outcome = cases.run(i, &mut RunCx { sdk: under.sdk(), redis });
            let outcome = under.end_case(section.name, &case.id, outcome);
            results.record(section.name, &case.id, &outcome);
        }
    }
    Run { results, invalid }
}
