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
//! reference adds nothing, so both paths write the same file for the same behaviour. An SDK
//! across a process boundary may take the calls of a section's cases ahead of them
//! ([`UnderTest::calls_ahead`]): predicted by running the reference core, answered by the SDK
//! under test, and used only where a case makes exactly the predicted call, so the judging
//! always sees the SDK's own answers to the calls the case made. A prediction carries the
//! reference's answers too, since a later call of a case is predicted from them and must not
//! reach the SDK before it has given those very answers itself. A case that needs Redis is
//! never predicted (its calls touch a broker), nor is any case for an SDK that takes no calls
//! ahead; when a case fails, an SDK under test that asks for the reference
//! ([`UnderTest::reference`]: an adapter traced, for a case none of whose calls it answered
//! ahead) has it run the case again, with the service the case needs (never one the run does
//! not have): on the same Redis, under a key prefix of its own as every run of a case has, so
//! the reference never touches the SDK's keys. Its outcome changes nothing, and the SDK is
//! sent nothing for it.

pub mod adapter;
pub mod kill;

use std::rc::Rc;

pub use crate::results::{Outcome, ResultsFile, Status};

pub use crate::adapter::Plan;
use crate::sdk::reference::ReferenceSdk;
use crate::sdk::{Request, Response, Sdk, SdkError};
use crate::sections::{self, Needs, RedisLink, RedisRequired, RunCx};
use crate::suite::{Scope, Suite};

/// The name the reference core reports as (decisions R7).
pub use crate::sdk::reference::SDK_NAME;

/// Settings of a run that come from outside the suite.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only these sections (all in-scope sections when empty).
    pub only: Vec<String>,
    /// Only the cases these patterns select ([`selects_case`]; every case when empty).
    pub cases: Vec<String>,
    /// Where a live Redis is (`--redis-url` or `BQ_REDIS_URL`).
    pub redis_url: Option<String>,
    /// Whether an unreachable Redis is a failure, not a skip, and why (`BQ_REQUIRE_REDIS`, or a
    /// Redis named with `--redis-url`).
    pub require_redis: RedisRequired,
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
    /// The sections [`RunOptions::only`] asks for whose scope the SDK does not carry (with that
    /// scope; `None` when the manifest gives none that is known). When there is any, no case
    /// is run: a results file without them would look like a run that passed them.
    pub not_carried: Vec<(String, Option<Scope>)>,
    /// The [`RunOptions::cases`] patterns that select no case of the sections the run covers,
    /// each with the block it likely meant (`sequences/` for `sequences`) when one of those
    /// sections has it. When there is any, no case is run: a typo would otherwise run nothing
    /// and exit 0.
    pub unmatched: Vec<(String, Option<String>)>,
    /// Cases an adapter skipped whose skip the whole run refused (an all-or-none rule another
    /// case of the run refutes), failed after every case ended: a run narrowed to one of them
    /// would let the skip stand.
    pub refused_by_the_run: Vec<(String, String)>,
    /// Cases an adapter failed with no call of theirs sent to it (an operation its hello does
    /// not declare, a Redis that could not be reached): a trace of one shows no exchange.
    pub never_sent: Vec<(String, String)>,
    /// Cases an adapter failed for want of an operation its hello does not declare.
    pub lacking: Vec<(String, String)>,
    /// Cases an adapter failed without being sent a call for what happened before they began
    /// (its restarts used up, an operation retired), with why ([`crate::adapter::CaseNotes::not_run`]):
    /// collateral of another case's incident, each of which a run of it alone would send.
    pub not_run: Vec<(String, String, String)>,
    /// The cases run that need a live Redis ([`Needs::Redis`]), in the run's order.
    pub need_redis: Vec<(String, String)>,
}

/// Whether the `--case` patterns select case `id`: every case when there is none; else a
/// pattern equal to the id, or one ending in `/` that the id starts with (every case of a
/// block: `sequences/`).
pub fn selects_case(patterns: &[String], id: &str) -> bool {
    patterns.is_empty() || patterns.iter().any(|p| p == id || (p.ends_with('/') && id.starts_with(p.as_str())))
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
    /// Would it take the calls the cases of a section are predicted to make, ahead of them?
    fn takes_calls_ahead(&self) -> bool {
        false
    }
    /// The calls the cases of `section` are predicted to make (case id, its calls in order,
    /// each with the reference core's answer), before the first of them begins.
    fn calls_ahead(&mut self, _section: &str, _plan: Plan) {}
    /// The reference core, to run a failed case again after the SDK did (with the service the
    /// case needs: the same Redis under a key prefix of its own), for the SDK's answers to be
    /// compared with its answers when the case ends (`None`: they are not compared, as for a
    /// case whose calls the SDK answered ahead, each compared with its predicted answer).
    fn reference(&mut self) -> Option<&mut dyn Sdk> {
        None
    }
}

/// The calls each case of `cases` that needs no service makes when the SDK answers as the
/// reference core does: the reference run in process, its requests recorded (up to the first
/// that touches a broker, which is never answered here). A prediction only: an SDK that
/// answers otherwise makes other calls, and those are made when the case comes to them.
fn predict(cases: &dyn sections::Cases<'_>, selected: &[String], redis: &RedisLink) -> Plan {
    let mut recorder = Recorder::new(ReferenceSdk::new(), false);
    (0..cases.len())
        .filter(|&i| cases.needs(i) == Some(Needs::Nothing) && selects_case(selected, &cases.case(i).id))
        .map(|i| {
            recorder.stopped = false;
            // The outcome is the reference's, and of no interest here.
            let _ = cases.run(i, &mut RunCx { sdk: &mut recorder, redis });
            (cases.case(i).id.clone(), std::mem::take(&mut recorder.calls))
        })
        .filter(|(_, calls)| !calls.is_empty())
        .collect()
}

/// The reference core, recording what it is asked, and what it answers: until a call touches a
/// broker, or (`brokers`) every call.
struct Recorder {
    reference: ReferenceSdk,
    calls: Vec<(Request, Option<Response>)>,
    /// A call touched a broker: nothing more is recorded for this case.
    stopped: bool,
    /// Calls that touch a broker are made and recorded too (a failed case run again, on the
    /// run's Redis when it needs one, [`UnderTest::reference`]).
    brokers: bool,
}

impl Recorder {
    fn new(reference: ReferenceSdk, brokers: bool) -> Self {
        Self { reference, calls: Vec::new(), stopped: false, brokers }
    }
}

impl Sdk for Recorder {
    fn hello(&self) -> crate::sdk::Identity {
        self.reference.hello()
    }

    fn call(&mut self, request: &Request) -> Result<Response, SdkError> {
        if !self.brokers && (self.stopped || request.touches_broker()) {
            self.stopped = true;
            return Err(SdkError::Transport { message: "not predicted: it touches a broker".into() });
        }
        let answer = self.reference.call(request);
        self.calls.push((request.clone(), answer.as_ref().ok().cloned()));
        answer
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
    let not_carried: Vec<(String, Option<Scope>)> = options
        .only
        .iter()
        .filter_map(|name| {
            let scope = suite.section(name).and_then(|s| s.scope);
            (!scope.is_some_and(|s| carried.contains(&s))).then(|| (name.clone(), scope))
        })
        .collect();
    if !not_carried.is_empty() {
        return Run {
            results,
            invalid: Vec::new(),
            not_carried,
            unmatched: Vec::new(),
            refused_by_the_run: Vec::new(),
            never_sent: Vec::new(),
            lacking: Vec::new(),
            not_run: Vec::new(),
            need_redis: Vec::new(),
        };
    }
    // Every section the run covers (in scope, and asked for with --section when it was).
    let covered: Vec<_> = suite
        .sections()
        .into_iter()
        .filter(|section| {
            section.scope.is_some_and(|scope| carried.contains(&scope))
                && (options.only.is_empty() || options.only.iter().any(|s| s == section.name))
        })
        .collect();
    // The ids of its cases, when there are --case patterns to judge.
    let ids: Vec<String> = match options.cases.is_empty() {
        true => Vec::new(),
        false => covered.iter().flat_map(|s| s.cases().into_iter().map(|c| c.id)).collect(),
    };
    // Every section with a case to run, read (`None`: the registry does not know it).
    let in_scope: Vec<_> = covered
        .into_iter()
        .filter(|section| {
            options.cases.is_empty() || section.cases().iter().any(|c| selects_case(&options.cases, &c.id))
        })
        .map(|section| {
            let cases = sections::find(section.name).map(|def| def.read(suite, &section));
            (section, cases)
        })
        .collect();
    let unmatched: Vec<(String, Option<String>)> = options
        .cases
        .iter()
        .filter(|p| !ids.iter().any(|id| selects_case(std::slice::from_ref(p), id)))
        .map(|p| {
            let block = format!("{p}/");
            let meant = ids.iter().any(|id| id.starts_with(&block)).then_some(block);
            (p.clone(), meant)
        })
        .collect();
    if !unmatched.is_empty() {
        return Run {
            results,
            invalid: Vec::new(),
            not_carried,
            unmatched,
            refused_by_the_run: Vec::new(),
            never_sent: Vec::new(),
            lacking: Vec::new(),
            not_run: Vec::new(),
            need_redis: Vec::new(),
        };
    }
    let mut invalid = Vec::new();
    let mut need_redis = Vec::new();
    let ahead = under.takes_calls_ahead();
    let mut run_all = |calls_ahead: &mut dyn FnMut() -> Option<Plan>| {
        for (section, cases) in &in_scope {
            results
                .sections
                .entry(section.name.to_owned())
                .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
            let Some(cases) = cases else {
                for case in section.cases().into_iter().filter(|c| selects_case(&options.cases, &c.id)) {
                    let reason = format!("section {:?} is not implemented by the reference core", section.name);
                    results.record(section.name, &case.id, &Outcome::fail(reason));
                }
                continue;
            };
            if let Some(plan) = calls_ahead() {
                under.calls_ahead(section.name, plan);
            }
            for i in 0..cases.len() {
                let case = cases.case(i);
                if !selects_case(&options.cases, &case.id) {
                    continue;
                }
                let problems: Vec<String> =
                    cases.problems(i).iter().filter(|p| !p.lint).map(ToString::to_string).collect();
                if !problems.is_empty() {
                    invalid.push(InvalidCase { section: section.name.to_owned(), id: case.id.clone(), problems });
                }
                if cases.needs(i) == Some(Needs::Redis) {
                    need_redis.push((section.name.to_owned(), case.id.clone()));
                }
                under.begin_case(section.name, &case.id);
                let outcome = cases.run(i, &mut RunCx { sdk: under.sdk(), redis });
                // A case that needs a service the run does not have never reached the SDK.
                let served = match cases.needs(i) {
                    Some(Needs::Nothing) => true,
                    Some(Needs::Redis) => redis.connected(),
                    None => false,
                };
                if outcome.status == Status::Fail
                    && served
                    && let Some(reference) = under.reference()
                {
                    // Its outcome is the reference's, and of no interest here.
                    let _ = cases.run(i, &mut RunCx { sdk: reference, redis });
                }
                let outcome = under.end_case(section.name, &case.id, outcome);
                results.record(section.name, &case.id, &outcome);
            }
        }
    };
    if ahead {
        // The predictions are made on a second thread, section by section ahead of the run,
        // while this one talks to the SDK.
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel();
            let known: Vec<&dyn sections::Cases<'_>> = in_scope.iter().filter_map(|(_, c)| c.as_deref()).collect();
            scope.spawn(move || {
                // No case that needs a service is predicted, so this link is never used.
                let nowhere = RedisLink::new(None, RedisRequired::No);
                for cases in known {
                    if tx.send(predict(cases, &options.cases, &nowhere)).is_err() {
                        return;
                    }
                }
            });
            run_all(&mut || rx.recv().ok());
        });
    } else {
        run_all(&mut || None);
    }
    Run {
        results,
        invalid,
        not_carried,
        unmatched,
        refused_by_the_run: Vec::new(),
        never_sent: Vec::new(),
        lacking: Vec::new(),
        not_run: Vec::new(),
        need_redis,
    }
}

#[cfg(test)]
mod tests {
    /// `results` names the reference core's `sdk` without importing the SDK interface (BQ622's
    /// message); the two names must stay one.
    #[test]
    fn the_results_layer_names_the_reference_core_as_it_names_itself() {
        assert_eq!(super::SDK_NAME, crate::results::REFERENCE_SDK);
    }

    /// `results check` orders an adapter run's failures by the words the adapter transport
    /// writes into their reasons (`results::failure_kind`), which it does not import: a reason
    /// as the transport spells it must read as the kind it is.
    #[test]
    fn the_results_layer_reads_the_adapter_transports_reasons_as_it_writes_them() {
        use crate::adapter::process::{EARLIER_IN_THIS_CASE, INCIDENT, NOT_RUN};
        use crate::results::{FailureKind, failure_kind};
        use crate::sdk::SdkError;
        let transport = |message: String| SdkError::Transport { message }.to_string();
        let incident =
            transport(format!("{INCIDENT}call 15 (decode): the adapter exited (exit status: 3) before answering"));
        let not_run =
            transport(format!("{NOT_RUN}the adapter failed 2 times and is not started again (--max-restarts 1)"));
        let earlier = transport(format!("{NOT_RUN}{EARLIER_IN_THIS_CASE}"));
        assert_eq!(failure_kind(Some(&incident)), FailureKind::Incident, "{incident}");
        assert_eq!(failure_kind(Some(&not_run)), FailureKind::NotRun, "{not_run}");
        // The case the adapter failed in had the incident, whichever of its calls gave the reason.
        assert_eq!(failure_kind(Some(&earlier)), FailureKind::Incident, "{earlier}");
        // A section may say the call's context first.
        assert_eq!(failure_kind(Some(&format!("now 5 with delay 2: {not_run}"))), FailureKind::NotRun);
        // An SDK's own error, and no reason, are the case's own failure.
        let own = SdkError::sdk("adapter: not run: nothing").to_string();
        assert_eq!(failure_kind(Some(&own)), FailureKind::Own, "{own}");
        assert_eq!(failure_kind(None), FailureKind::Own);
    }
}
