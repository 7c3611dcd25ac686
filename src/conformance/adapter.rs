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
//!   rule the SDK applies (the runner contract's, no live Redis, is bqsuite's own) and that is
//!   open to it as `results check` opens rules (a rule with `families` to an SDK of one of
//!   them, by the hello's `sdk`; an `all_or_none` rule only when no case it covers ran, which
//!   is judged once the run is over); anywhere else the case fails, saying what the adapter
//!   skipped and why that is not allowed, so `run` never writes a skip that `results check`
//!   refuses;
//! - adapter trouble (a crash, a hang, a malformed line) fails the cases it hits, with the
//!   transport's reason, and never stops the run; only a first start that fails (no hello, an
//!   unknown protocol version) means no case can be run at all.

use std::rc::Rc;

use super::kill::{KillMatrix, kill_matrix_by};
use super::{Outcome, Plan, Recorder, Run, RunOptions, UnderTest, redis_link, run_under};
use crate::adapter::{Adapter, AdapterOptions, Launched, Summary, Trouble};
use crate::results::{ResultsFile, Status, bounded_reason, family_of};
use crate::sdk::Sdk;
use crate::sdk::reference::ReferenceSdk;
use crate::sections::redis::link::RUNNER_CONTRACT_ADR;
use crate::suite::skip_policy::{Rule, SkipPolicy, SkipVerdict};
use crate::suite::{Suite, adr_citations};

/// Which cases the suite allows a run to skip, and citing which ADRs.
pub trait SkipRules {
    /// `Ok` when the SDK named `sdk` may skip case `id` of `section` with `reason`; otherwise
    /// why not.
    fn allows(&self, sdk: &str, section: &str, id: &str, reason: &str) -> Result<(), String>;

    /// Once every case has run: why a skip [`Self::allows`] let through does not hold for the
    /// run as a whole (each rule allowing it has a condition about the whole run or SDK, and a
    /// case it covers ran in `results`), or `None` when it holds.
    fn refuted(&self, _sdk: &str, _results: &ResultsFile, _section: &str, _id: &str, _reason: &str) -> Option<String> {
        None
    }
}

/// No case may be skipped (the rules of a suite without a skip policy).
pub struct NoSkips;

impl SkipRules for NoSkips {
    fn allows(&self, _sdk: &str, _section: &str, _id: &str, _reason: &str) -> Result<(), String> {
        Err("the suite has no skip policy, so no case may be skipped".into())
    }
}

/// The suite's skip policy (manifest.json → `skip_policy`), judged as `results check` judges a
/// results file's skips (a rule with `families` is open only to an SDK of those families, as
/// its `sdk` names it; an `all_or_none` rule holds only for a run in which no case it covers
/// ran), less the rules of the runner contract (those citing [`RUNNER_CONTRACT_ADR`]): their
/// condition is that the run has no live Redis, which bqsuite decides and applies itself
/// without asking the adapter, so an adapter asked such a case is being run with a live Redis
/// and may not skip it under them.
pub struct SuiteSkips<'s> {
    policy: &'s SkipPolicy,
    /// The SDK families a name is read against ([`family_of`]).
    families: Vec<String>,
}

/// Is `rule` one an SDK applies (not the runner contract's)?
fn by_the_sdk(rule: &Rule) -> bool {
    !rule.adrs.iter().any(|a| a == RUNNER_CONTRACT_ADR)
}

impl SuiteSkips<'_> {
    /// The rules selecting case `id` of `section` that the SDK `sdk` may apply, citing an ADR
    /// `reason` names.
    fn open_rules(&self, sdk: &str, section: &str, id: &str, reason: &str) -> Vec<&Rule> {
        let family = family_of(sdk, &self.families);
        let cited = adr_citations(reason);
        self.policy
            .rules_for(section, id)
            .into_iter()
            .filter(|r| by_the_sdk(r) && SkipPolicy::for_family(r, family.as_deref()))
            .filter(|r| r.adrs.iter().any(|a| cited.contains(&a.as_str())))
            .collect()
    }
}

impl SkipRules for SuiteSkips<'_> {
    fn allows(&self, sdk: &str, section: &str, id: &str, reason: &str) -> Result<(), String> {
        let policy = self.policy;
        match policy.judge(section, id, Some(reason)) {
            SkipVerdict::Allowed(_) if !self.open_rules(sdk, section, id, reason).is_empty() => Ok(()),
            SkipVerdict::Allowed(_) => {
                let cited = adr_citations(reason);
                let citing: Vec<&Rule> = policy
                    .rules_for(section, id)
                    .into_iter()
                    .filter(|r| r.adrs.iter().any(|a| cited.contains(&a.as_str())))
                    .collect();
                match citing.iter().find(|r| by_the_sdk(r)) {
                    Some(rule) => {
                        let family = family_of(sdk, &self.families);
                        let is = family.map_or_else(
                            || format!("names no SDK family ({})", self.families.join(", ")),
                            |f| format!("is of family {f}"),
                        );
                        Err(format!(
                            "the skip policy allows skipping {section} {id} under rule {} only to SDKs of family \
                             {}, and sdk {} {is}",
                            rule.name,
                            rule.families.join(" or "),
                            crate::sections::quoted(sdk)
                        ))
                    }
                    None => Err(format!(
                        "the skip policy allows skipping {section} {id} only under the runner contract \
                         ({RUNNER_CONTRACT_ADR}: the run has no live Redis), which bqsuite applies itself; \
                         this run has a live Redis"
                    )),
                }
            }
            SkipVerdict::NotSkippable => Err(format!("the skip policy allows no skip of {section} {id}")),
            SkipVerdict::NoAdr => Err("its reason cites no ADR (ADR-NNNN)".into()),
            SkipVerdict::WrongAdr => Err(format!(
                "the skip policy allows skipping {section} {id} only citing {}",
                policy.allowed_adrs(section, id).join(" or ")
            )),
        }
    }

    fn refuted(&self, sdk: &str, results: &ResultsFile, section: &str, id: &str, reason: &str) -> Option<String> {
        let rules = self.open_rules(sdk, section, id, reason);
        if rules.iter().any(|r| !r.all_or_none) {
            return None;
        }
        let ran = results.sections.iter().flat_map(|(s, cases)| {
            cases.as_object().into_iter().flatten().filter_map(move |(c, outcome)| {
                matches!(outcome.get("status").and_then(|v| v.as_str()), Some("pass" | "fail"))
                    .then_some((s.as_str(), c.as_str()))
            })
        });
        let refuted = self.policy.refuted_all_or_none(ran);
        // The skip holds while any rule allowing it holds.
        let why: Option<Vec<String>> = rules
            .iter()
            .map(|rule| {
                let (_, first) = refuted.get(rule.name.as_str())?;
                Some(format!(
                    "rule {} covers this case only all or none (its condition is a fact about the whole run or SDK), \
                     and a case it covers ran ({first})",
                    rule.name
                ))
            })
            .collect();
        why.filter(|w| !w.is_empty()).map(|w| w.join("; "))
    }
}

/// The skip rules of `suite`: its skip policy (empty, allowing nothing, when it has none).
pub fn skip_rules(suite: &Suite) -> SuiteSkips<'_> {
    SuiteSkips { policy: suite.skip_policy(), families: suite.families() }
}

/// The adapter under test, with the suite's skip rules.
struct AdapterRun<'r> {
    adapter: Adapter,
    rules: &'r dyn SkipRules,
    /// The cases the adapter skipped as the rules allow: section, id, operation, reason.
    skipped: Vec<(String, String, &'static str, String)>,
    /// The failed cases no call of which reached the adapter (an operation the hello does not
    /// declare, a Redis that could not be reached): a trace of them shows no exchange.
    never_sent: Vec<(String, String)>,
    /// The failed cases that needed an operation the hello does not declare.
    lacking: Vec<(String, String)>,
    /// The failed cases a call of which was not sent for what happened before them, with why.
    not_run: Vec<(String, String, String)>,
    /// With `--trace`: the reference core on the run's Redis, recording every call, to run a
    /// failed case none of whose calls was answered ahead again ([`UnderTest::reference`]).
    reference: Option<Recorder>,
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

    fn reference(&mut self) -> Option<&mut dyn Sdk> {
        if !self.adapter.wants_reference() {
            return None;
        }
        let recorder = self.reference.as_mut()?;
        recorder.calls.clear();
        Some(recorder)
    }

    fn end_case(&mut self, section: &str, id: &str, outcome: Outcome) -> Outcome {
        if let Some(calls) = self.reference.as_mut().map(|r| std::mem::take(&mut r.calls))
            && !calls.is_empty()
        {
            self.adapter.reference_ran(calls);
        }
        let outcome = self.judge_notes(section, id, outcome);
        let verdict = match (&outcome.status, &outcome.reason) {
            (status, Some(reason)) => format!("{}: {reason}", status.as_str()),
            (status, None) => status.as_str().to_owned(),
        };
        self.adapter.case_ended(id, &verdict, outcome.status == Status::Fail);
        outcome
    }
}

impl AdapterRun<'_> {
    /// The case's outcome with what the adapter said besides results (a skip: allowed, or a
    /// failure; an operation it lacks).
    fn judge_notes(&mut self, section: &str, id: &str, outcome: Outcome) -> Outcome {
        let notes = self.adapter.case_notes();
        if let Some((op, reason)) = notes.skips.first() {
            // Judged as it will be recorded, so that results check reads the same reason.
            let reason = &bounded_reason(reason).into_owned();
            return match self.rules.allows(&self.adapter.hello().sdk, section, id, reason) {
                Ok(()) => {
                    self.skipped.push((section.to_owned(), id.to_owned(), op, reason.clone()));
                    Outcome::skip(reason.clone())
                }
                Err(why) => Outcome::fail(skip_refused(op, reason, &why)),
            };
        }
        if outcome.status == Status::Fail && !notes.exchanged {
            self.never_sent.push((section.to_owned(), id.to_owned()));
        }
        if let (Status::Fail, Some(why), true) = (&outcome.status, &notes.not_run, notes.not_implemented.is_empty()) {
            self.not_run.push((section.to_owned(), id.to_owned(), why.clone()));
        }
        let sdk = &self.adapter.hello().sdk;
        match notes.not_implemented.first() {
            Some((op, false)) if outcome.status == Status::Fail => {
                self.lacking.push((section.to_owned(), id.to_owned()));
                Outcome::fail(format!("{op} is not implemented by {sdk}"))
            }
            Some((op, true)) if outcome.status == Status::Fail => Outcome::fail(format!(
                "{sdk} answered not_implemented to this case's {op} call (its hello declares {op}: the SDK cannot make this variant)"
            )),
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
    let redis = Rc::new(redis_link(options));
    let adapter = launched.connect(suite.version())?;
    // The results file takes `sdk` and `version` from the hello: refuse one that results check
    // would refuse (BQ620) rather than run every case and write it.
    let hello = adapter.hello();
    for (member, text) in [("sdk", &hello.sdk), ("version", &hello.version)] {
        if !crate::results::is_a_name(text) {
            return Err(adapter.refuse(Trouble::BadHello(format!(
                "{member} {text:?} is not a package name or version as registries write one (printable ASCII without \
                 white space)"
            ))));
        }
    }
    let mut under = AdapterRun {
        adapter,
        rules,
        skipped: Vec::new(),
        never_sent: Vec::new(),
        lacking: Vec::new(),
        not_run: Vec::new(),
        reference: None,
    };
    // The reference core shares the judge's connection (a run connects to Redis once).
    under.reference = under.adapter.traces().then(|| Recorder::new(ReferenceSdk::with_redis(redis.clone()), true));
    let mut run = run_under(suite, options, &mut under, &redis);
    run.never_sent = std::mem::take(&mut under.never_sent);
    run.lacking = std::mem::take(&mut under.lacking);
    run.not_run = std::mem::take(&mut under.not_run);
    let sdk = under.adapter.hello().sdk;
    for (section, id, why) in refute_skips(rules, &sdk, &mut run.results, under.skipped) {
        // The trace said `skip` when the case ended; the whole run refused it.
        under.adapter.case_judged_again(&section, &id, &format!("fail (after the run): {why}"));
        run.refused_by_the_run.push((section, id));
    }
    Ok((run, under.adapter.finish()))
}

/// What a case the adapter skipped, but may not skip, fails with.
fn skip_refused(op: &str, reason: &str, why: &str) -> String {
    format!("the adapter skipped {op} ({}), but {why}", crate::sections::quoted(reason))
}

/// Fail each of the adapter's `skipped` cases whose skip the whole run refutes
/// ([`SkipRules::refuted`]); a case failed so has run, and may refute another, so until none
/// changes. The cases failed so, with their reasons.
fn refute_skips(
    rules: &dyn SkipRules,
    sdk: &str,
    results: &mut ResultsFile,
    mut skipped: Vec<(String, String, &'static str, String)>,
) -> Vec<(String, String, String)> {
    let mut all = Vec::new();
    loop {
        // Each pass is judged on the results as the pass found them, so that a refusal cites a
        // case that ran before it cites one whose skip was refused in the same pass.
        let mut refused = Vec::new();
        skipped.retain(|(section, id, op, reason)| match rules.refuted(sdk, results, section, id, reason) {
            Some(why) => {
                refused.push((section.clone(), id.clone(), skip_refused(op, reason, &why)));
                false
            }
            None => true,
        });
        if refused.is_empty() {
            return all;
        }
        for (section, id, why) in refused {
            results.record(&section, &id, &Outcome::fail(why.clone()));
            all.push((section, id, why));
        }
    }
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
