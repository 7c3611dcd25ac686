//! `bqsuite run --sdk CMD`: an adapter process as the SDK under test.
//!
//! The sections run exactly as they do in process (the same registry, the same judging); the
//! adapter ([`crate::adapter::Adapter`]) is one more implementation of the SDK interface, and
//! the results file's `sdk`, `version` and `bindings` come from its hello, so the scopes that
//! run are the ones it declares.
//!
//! Invariants: what the adapter says besides results is judged here, case by case, after the
//! section's own verdict:
//! - an operation the adapter does not implement fails its case with "`<op>` is not
//!   implemented by `<sdk>`" — never a skip, since skipping is not a way to leave work out;
//! - a `skip` reply makes the case `skip` with the adapter's reason only where the suite's skip
//!   policy ([`SkipRules`]) allows skipping that case citing an ADR the reason names, under a
//!   rule the SDK applies (the runner contract's, no live Redis, is bqsuite's own); anywhere
//!   else the case fails, saying what the adapter skipped and why that is not allowed;
//! - adapter trouble (a crash, a hang, a malformed line) fails the cases it hits, with the
//!   transport's reason, and never stops the run; only a first start that fails (no hello, an
//!   unknown protocol version) means no case can be run at all.

use super::kill::{KillMatrix, kill_matrix_by};
use super::{Outcome, Plan, Run, RunOptions, UnderTest, redis_link, run_under};
use crate::adapter::{Adapter, AdapterOptions, Launched, Summary, Trouble};
use crate::results::Status;
use crate::sdk::Sdk;
use crate::sections::redis::link::RUNNER_CONTRACT_ADR;
use crate::suite::Suite;
use crate::suite::skip_policy::{Rule, SkipPolicy, SkipVerdict};

/// Which cases the suite allows a run to skip, and citing which ADRs.
pub trait SkipRules {
    /// `Ok` when case `id` of `section` may be skipped with `reason`; otherwise why not.
    fn allows(&self, section: &str, id: &str, reason: &str) -> Result<(), String>;
}

/// No case may be skipped (the rules of a suite without a skip policy).
pub struct NoSkips;

impl SkipRules for NoSkips {
    fn allows(&self, _section: &str, _id: &str, _reason: &str) -> Result<(), String> {
        Err("the suite has no skip policy, so no case may be skipped".into())
    }
}

/// The suite's skip policy (manifest.json → `skip_policy`), the same lookup `results check`
/// judges a results file's skips with, less the rules of the runner contract (those citing
/// [`RUNNER_CONTRACT_ADR`]): their condition is that the run has no live Redis, which bqsuite
/// decides and applies itself without asking the adapter, so an adapter asked such a case is
/// being run with a live Redis and may not skip it under them.
impl SkipRules for SkipPolicy {
    fn allows(&self, section: &str, id: &str, reason: &str) -> Result<(), String> {
        match self.judge(section, id, Some(reason)) {
            SkipVerdict::Allowed(_) => {
                let by_the_sdk = |r: &Rule| !r.adrs.iter().any(|a| a == RUNNER_CONTRACT_ADR);
                if let SkipVerdict::Allowed(_) = self.judge_by(section, id, Some(reason), by_the_sdk) {
                    Ok(())
                } else {
                    Err(format!(
                        "the skip policy allows skipping {section} {id} only under the runner contract \
                         ({RUNNER_CONTRACT_ADR}: the run has no live Redis), which bqsuite applies itself; \
                         this run has a live Redis"
                    ))
                }
            }
            SkipVerdict::NotSkippable => Err(format!("the skip policy allows no skip of {section} {id}")),
            SkipVerdict::NoAdr => Err("its reason cites no ADR (ADR-NNNN)".into()),
            SkipVerdict::WrongAdr => Err(format!(
                "the skip policy allows skipping {section} {id} only citing {}",
                self.allowed_adrs(section, id).join(" or ")
            )),
        }
    }
}

/// The skip rules of `suite`: its skip policy (empty, allowing nothing, when it has none).
pub fn skip_rules(suite: &Suite) -> &dyn SkipRules {
    suite.skip_policy()
}

/// The adapter under test, with the suite's skip rules.
struct AdapterRun<'r> {
    adapter: Adapter,
    rules: &'r dyn SkipRules,
}

impl UnderTest for AdapterRun<'_> {
    fn sdk(&mut self) -> &mut dyn Sdk {
        &mut self.adapter
    }

    fn begin_case(&mut self, section: &str, id: &str) {
        self.adapter.begin_case(section, id);
    }

    fn takes_calls_ahead(&self) -> bool {
        self.adapter.pipelines()
    }

    fn calls_ahead(&mut self, section: &str, plan: Plan) {
        self.adapter.send_ahead(section, plan);
    }

    fn end_case(&mut self, section: &str, id: &str, outcome: Outcome) -> Outcome {
        let notes = self.adapter.case_notes();
        if let Some((op, reason)) = notes.skips.first() {
            return match self.rules.allows(section, id, reason) {
                Ok(()) => Outcome::skip(reason.clone()),
                Err(why) => Outcome::fail(format!("the adapter skipped {op} ({reason:?}), but {why}")),
            };
        }
        match notes.not_implemented.first() {
            Some(op) if outcome.status == Status::Fail => {
                Outcome::fail(format!("{op} is not implemented by {}", self.adapter.hello().sdk))
            }
            _ => outcome,
        }
    }
}

/// Run the adapter `adapter` through every in-scope section of `suite`, judging its skips
/// with `rules`; the error says why it could not start.
pub fn run_adapter(
    suite: &Suite,
    options: &RunOptions,
    adapter: AdapterOptions,
    rules: &dyn SkipRules,
) -> Result<(Run, Summary), Trouble> {
    run_launched(suite, options, Adapter::launch(adapter), rules)
}

/// [`run_adapter`] for an adapter process already started ([`Adapter::launch`]: started
/// before the suite was loaded, so that the two overlap); the hello names the suite's version.
pub fn run_launched(
    suite: &Suite,
    options: &RunOptions,
    launched: Launched,
    rules: &dyn SkipRules,
) -> Result<(Run, Summary), Trouble> {
    let redis = redis_link(options);
    let adapter = launched.connect(suite.version())?;
    let mut under = AdapterRun { adapter, rules };
    let run = run_under(suite, options, &mut under, &redis);
    Ok((run, under.adapter.finish()))
}

/// The kill matrix across the process boundary: `adapter` (the reference adapter, `bqsuite
/// adapter`) run once as it is and once per broken variant with `--broken NAME` appended to
/// its command.
pub fn kill_matrix_through(
    suite: &Suite,
    options: &RunOptions,
    adapter: &AdapterOptions,
    rules: &dyn SkipRules,
) -> Result<KillMatrix, Trouble> {
    kill_matrix_by(&mut |broken| {
        let mut a = adapter.clone();
        if let Some(b) = broken {
            a.command.extend(["--broken".to_owned(), b.name().to_owned()]);
        }
        let (run, summary) = run_adapter(suite, options, a, rules)?;
        // A variant caught by an adapter failure would not be caught by the suite.
        match summary.incidents.into_iter().next() {
            Some(incident) => Err(incident.trouble),
            None => Ok(run),
        }
    })
}
