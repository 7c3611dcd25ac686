//! `bqsuite run`: its options, the run of the reference core or an adapter, and what it tells
//! on stderr (the digest of failures, the known-failing list's verdict, the adapter log's end).
//! The run itself is the library's ([`crate::conformance`], [`crate::adapter`]); this prints.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{RedisArgs, SuiteArg, emit, exit, fail, out_file, subject};
use crate::conformance::{self, RunOptions};
use crate::diag::terminal_safe;
use crate::results::known::KnownFailing;
use crate::suite::Suite;

/// `run` options.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub suite: SuiteArg,
    /// Write results.json here (atomically) instead of to stdout (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Run only this section (repeatable). The results then cover only these sections, so
    /// `results check` calls them Not compatible (the other in-scope sections are missing,
    /// BQ605): a partial run is for working on a section, not a verdict. A section whose scope
    /// the SDK does not carry (with --sdk: the bindings of its hello) is a usage error, and
    /// nothing is run.
    #[arg(long = "section", value_name = "S")]
    pub sections: Vec<String>,
    /// Run only this case (repeatable): a case id as the results file names it, or a block's
    /// prefix ending in `/` (`sequences/`) for every case of the block, in every section run
    /// (narrow with --section). Like --section, a partial run is not a verdict. A pattern that
    /// selects no case is a usage error, and nothing is run; a run narrowed to cases that all
    /// need Redis, given none, skips them and exits 2, saying so.
    #[arg(long = "case", value_name = "ID")]
    pub cases: Vec<String>,
    #[command(flatten)]
    pub redis: RedisArgs,
    /// Run this adapter instead of the reference core: a command and its arguments, split
    /// like a shell would (quotes, no expansion), that speaks the adapter protocol on its
    /// stdin and stdout (docs/adapter-protocol.md), e.g. "bqsuite adapter" or "python3
    /// adapter.py". Its stderr is appended to --adapter-log.
    #[arg(long, value_name = "CMD")]
    pub sdk: Option<String>,
    /// With --sdk: seconds to wait for each reply of the adapter and for its exit after the
    /// shutdown (its hello: at least 10); decimals allowed.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = parse_timeout, requires = "sdk")]
    pub timeout: std::time::Duration,
    /// With --sdk: how many times an adapter that failed is started again for the remaining
    /// cases. An operation never answered that took it down three times is not sent again (its
    /// calls fail at once), so one operation that always crashes does not use the budget up.
    #[arg(long, value_name = "N", default_value_t = crate::adapter::process::DEFAULT_MAX_RESTARTS, requires = "sdk")]
    pub max_restarts: u32,
    /// With --sdk: the file the adapter's stderr goes to (default: adapter.log beside --out,
    /// else in the temporary directory); emptied when the run starts.
    #[arg(long, value_name = "FILE", requires = "sdk")]
    pub adapter_log: Option<PathBuf>,
    /// With --sdk: also write every line exchanged with the adapter to its log, in order with
    /// its stderr: `→` what bqsuite sent, `←` what the adapter answered, each case's verdict,
    /// and after a failed case `≠ reference, call N:` the reference core's answers where the
    /// adapter's differ (for calls written ahead, which were predicted with them; for any other
    /// failed case, the reference core runs it again after the adapter, sending the adapter
    /// nothing, on the same Redis under a key prefix of its own when it needs Redis, and compares
    /// while the calls are the same, all but the prefix and a reservation's name and token). For
    /// working on a case (with --case): a full run's log grows by every call.
    #[arg(long, requires = "sdk")]
    pub trace: bool,
    /// Cases expected to fail for now (the format of `results check --known-failing`): the exit
    /// code counts only the failures the list does not name, and a listed case that does not
    /// fail (of those the run runs) fails it too, so the list only shrinks. The results file
    /// and its verdict are unchanged.
    #[arg(long, value_name = "FILE")]
    pub known_failing: Option<PathBuf>,
}

/// A positive number of seconds, at most a day.
fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(std::time::Duration::from_secs_f64(s)),
        _ => Err("expected a number of seconds above 0 and at most 86400".into()),
    }
}

pub(super) fn run(a: &RunArgs) -> ExitCode {
    // The adapter's process starts first, so that it starts (a runtime loads) while the suite
    // loads; anything wrong with it is reported where it was before, after the suite's checks.
    let early = a.sdk.as_deref().map(|cmd| launch_adapter(a, cmd));
    let suite = match a.suite.load() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if let Err(why) = suite.manifest_or_why() {
        return fail(why);
    }
    for name in &a.sections {
        if suite.section(name).is_none() {
            return fail(format!("the manifest has no section {name:?}"));
        }
    }
    // Fail before running every case, not after.
    if let Some(Err(e)) = out_file(&a.out).map(crate::fsutil::check_writable) {
        return fail(e);
    }
    if let Err(e) = crate::results::source_date_epoch() {
        return fail(e);
    }
    let known = match a.known_failing.as_deref().map(KnownFailing::read).transpose() {
        Ok(k) => k,
        Err(e) => return fail(format!("--known-failing: {e}")),
    };
    let (redis_url, require_redis) = match a.redis.resolve() {
        Ok(given) => given,
        Err(e) => return fail(e),
    };
    let options = RunOptions {
        only: a.sections.clone(),
        cases: a.cases.clone(),
        redis_url: redis_url.clone(),
        require_redis,
        redis_timeout: Some(a.redis.timeout()),
    };
    let (
        conformance::Run {
            results,
            invalid,
            not_carried,
            unmatched,
            refused_by_the_run,
            never_sent,
            lacking,
            not_run,
            need_redis,
        },
        adapter,
    ) = match (&a.sdk, early) {
        (Some(cmd), Some(launched)) => match run_adapter(cmd, launched, &suite, &options) {
            Ok((run, summary)) => (run, Some(summary)),
            Err(code) => return code,
        },
        _ => (conformance::run(&suite, &options), None),
    };
    if !not_carried.is_empty() {
        let declared = if results.bindings.is_empty() { "none".to_owned() } else { results.bindings.join(", ") };
        let asked: Vec<String> = not_carried
            .iter()
            .map(|(name, scope)| match scope {
                Some(scope) => format!("{name:?} (scope {scope})"),
                None => format!("{name:?} (no known scope)"),
            })
            .collect();
        return fail(terminal_safe(&format!(
            "--section {}: not in the scope of {}, whose bindings are {declared}; nothing was run (a section is \
             run only for an SDK that carries its scope)",
            asked.join(", "),
            results.sdk
        )));
    }
    if !unmatched.is_empty() {
        let within = if a.sections.is_empty() {
            format!("any section {} runs", results.sdk)
        } else {
            format!("the sections asked for ({})", a.sections.join(", "))
        };
        // A block's name without its `/` is the likeliest slip: say which pattern was meant.
        let shown: Vec<String> = unmatched
            .iter()
            .map(|(p, meant)| match meant {
                Some(block) => format!("{p:?} (the block is {block:?})"),
                None => format!("{p:?}"),
            })
            .collect();
        return fail(terminal_safe(&format!(
            "--case {}: selects no case of {within}; nothing was run (`bqsuite ids` lists the case ids; a block's \
             prefix ends in `/`)",
            shown.join(", ")
        )));
    }
    // Grouped by scope as the docs list them (core, then each binding, then otel), in manifest
    // order within one; the results file keeps the run's order.
    let mut names: Vec<&String> = results.sections.keys().collect();
    names.sort_by_key(|n| {
        let scope = suite.scope_of(n);
        (scope.is_none(), scope)
    });
    for name in names {
        let c = results.counts(Some(name));
        note!("{:<24} {:>4} pass {:>4} fail {:>4} skip", terminal_safe(name), c.pass, c.fail, c.skip);
    }
    let digest = Digest {
        out: out_file(&a.out),
        suite: &suite,
        refused_by_the_run: &refused_by_the_run,
        never_sent: &never_sent,
        not_run: &not_run,
        incidents: adapter.iter().flat_map(|s| &s.incidents).map(|i| (i.section.as_str(), i.case.as_str())).collect(),
    };
    let first_failed = note_failures(&results, &digest);
    // Where to look next, for an adapter: the exchange of one failing case; when every failure
    // is an operation never sent, what the reference core is sent and answers for one of them.
    let word = |w: &str| terminal_safe(&crate::diag::shell_word(w)).into_owned();
    // A case that needs Redis, rerun without one, is skipped and shows nothing: the command
    // names a Redis, as a placeholder (the run's own URL may carry a password). A command the
    // hint extends that named one with the flag has it already.
    let needs_redis = |section: &str, id: &str| need_redis.iter().any(|(s, i)| s == section && i == id);
    let redis_word = |section: &str, id: &str, extends: bool| {
        if needs_redis(section, id) && !(extends && a.redis.redis_url.is_some()) { " --redis-url URL" } else { "" }
    };
    match (&adapter, first_failed, a.trace) {
        (Some(summary), Some((section, id)), false) => note!(
            "to see what one case sent the adapter and got back: add `--section {} --case {} --trace{}` (the exchange goes to {})",
            word(section),
            word(id),
            redis_word(section, id, true),
            terminal_safe(&summary.log.display().to_string())
        ),
        // The reference adapter shows a case that needs an operation the adapter lacks; a case
        // nothing reached for another cause (a Redis that could not be reached) it would not.
        (Some(_), None, _) if let Some((section, id)) = lacking.first() => note!(
            "no failed case was sent to the adapter (an operation its hello lacks, or nothing reached it); to see what an SDK is sent for one that needs an operation it lacks, and what the reference core answers: `{} run{} --sdk {} --section {} --case {}{} --trace --adapter-log reference.log --out -`",
            terminal_safe(&this_binary()),
            terminal_safe(&suite.suite_option()),
            terminal_safe(&crate::diag::shell_word(&format!("{} adapter", this_binary()))),
            word(section),
            word(id),
            redis_word(section, id, false)
        ),
        _ => {}
    }
    // The rule the first failure broke, in words, from the suite itself (a vendored copy
    // carries no docs; `explain` prints what the section's page says of the case).
    if let Some((section, id)) = first_failed {
        note!(
            "what that case holds an SDK to: `{} explain{} {}`",
            terminal_safe(&this_binary()),
            terminal_safe(&suite.suite_option()),
            word(&format!("{section}/{id}"))
        );
    }
    let total = results.counts(None);
    let known_holds =
        known.as_ref().map(|k| note_known(k, &suite, &results, !a.sections.is_empty() || !a.cases.is_empty()));
    // A narrowed run ends without a verdict (its results leave out cases): say so, not nothing.
    let partial = if a.sections.is_empty() && a.cases.is_empty() {
        ""
    } else {
        "; a partial run (--section / --case), so no verdict"
    };
    note!("run: {total} ({}){partial}", subject(&suite));
    if let Some(summary) = adapter {
        note_inline!("{summary}");
        if !summary.incidents.is_empty() {
            note_log_tail(&summary.log);
        }
    }
    let json = results.to_json();
    match out_file(&a.out) {
        Some(path) => {
            if let Err(e) = crate::fsutil::write_atomic(path, json.as_bytes()) {
                return fail(format!("cannot write {}: {e}", path.display()));
            }
        }
        None => emit(&json),
    }
    if a.sections.is_empty() && a.cases.is_empty() && invalid.is_empty() {
        note_verdict(&suite, out_file(&a.out), json.into_bytes());
    }
    // A run narrowed to cases that all need Redis, given none, judged nothing: as a `--case`
    // that selects no case, exit 2, not a pass (user study: `--case X` of a Redis case exited 0
    // with only the general note). A Redis given by BQ_REDIS_URL that did not answer is the
    // runner contract's skip (ADR-0033), said plainly but kept exit 0; a required one failed
    // the cases (exit 1).
    let narrowed = !a.sections.is_empty() || !a.cases.is_empty();
    let all_skipped_for_redis = narrowed
        && total.pass == 0
        && total.fail == 0
        && !need_redis.is_empty()
        && need_redis.len() == results.sections.values().filter_map(|c| c.as_object()).map(|c| c.len()).sum::<usize>();
    let redis_skipped = || {
        format!(
            "every case you selected ({}) needs Redis and was skipped",
            match need_redis.as_slice() {
                [(s, id)] => terminal_safe(&format!("{s} / {id}")).into_owned(),
                all => format!("{} cases", all.len()),
            }
        )
    };
    if all_skipped_for_redis && invalid.is_empty() {
        if redis_url.is_none() {
            return fail(format!(
                "{}, so nothing was judged: pass --redis-url URL or set BQ_REDIS_URL",
                redis_skipped()
            ));
        }
        note!(
            "bqsuite: {}: the Redis of BQ_REDIS_URL did not answer (said above), which the runner contract allows \
             (ADR-0033); set BQ_REQUIRE_REDIS to make that a failure",
            redis_skipped()
        );
    }
    if !invalid.is_empty() {
        // The suite is broken, not the SDK: exit 2 (toml-test's "bug in the test").
        note!(
            "bqsuite: error: {} case(s) of the suite do not read cleanly, so the SDK was not judged on them; run {}:",
            invalid.len(),
            suite.validate_command()
        );
        let listed = crate::diag::shown(invalid.len(), MAX_LISTED);
        for c in &invalid[..listed] {
            note!("  {}/{}: {}", c.section, c.id, c.problems.join("; "));
        }
        if invalid.len() > listed {
            note!("  … and {} more", invalid.len() - listed);
        }
        return ExitCode::from(2);
    }
    exit(known_holds.map_or(total.fail > 0, |holds| !holds))
}

/// What a known-failing list makes of a run's results, on stderr; whether it holds (every
/// failure listed, every entry judged still failing). A narrowed run judges only the entries
/// of the cases it ran.
fn note_known(k: &KnownFailing, suite: &Suite, results: &crate::results::ResultsFile, narrowed: bool) -> bool {
    let on = k.check_run(results, &crate::results::known::suite_cases(suite), narrowed);
    // A narrowed run judges only the entries of the cases it ran: say of how many.
    let of = if narrowed && on.judged.judged != k.entries.len() {
        format!(" of the cases run ({} in the list)", k.entries.len())
    } else {
        String::new()
    };
    let mut line = format!(
        "known failures ({}): {} listed{of}, {} still failing",
        terminal_safe(&k.file),
        on.judged.judged,
        on.judged.still_failing
    );
    if !on.judged.stale.is_empty() {
        line.push_str(&format!(", {} stale", on.judged.stale.len()));
    }
    if let Some((section, id)) = on.unlisted.first() {
        line.push_str(&format!(
            "; {} failure(s) it does not name (the first: {} / {})",
            on.unlisted.len(),
            terminal_safe(section),
            terminal_safe(id)
        ));
    }
    if on.holds() {
        line.push_str("; the list holds");
    }
    note!("{line}");
    let listed = crate::diag::shown(on.judged.stale.len(), MAX_LISTED);
    for (entry, why) in &on.judged.stale[..listed] {
        let f = k.finding(entry, *why, "this run");
        note!("  {}:{}: {}", terminal_safe(&k.file), entry.line, f.message);
    }
    if on.judged.stale.len() > listed {
        note!("  … and {} more", on.judged.stale.len() - listed);
    }
    on.holds()
}

/// What the failure digest of a run refers to besides its results.
struct Digest<'a> {
    /// Where the results file was written (`None`: stdout).
    out: Option<&'a Path>,
    suite: &'a Suite,
    /// Skips the whole run refused ([`conformance::Run::refused_by_the_run`]).
    refused_by_the_run: &'a [(String, String)],
    /// Failed cases no call of which reached the adapter ([`conformance::Run::never_sent`]).
    never_sent: &'a [(String, String)],
    /// Failed cases a call of which was not sent for what happened before them, with why
    /// ([`conformance::Run::not_run`]).
    not_run: &'a [(String, String, String)],
    /// The cases the adapter's incidents hit (a crash, a hang, a reply out of the protocol).
    incidents: Vec<(&'a str, &'a str)>,
}

/// How many reasons the failure digest of a run lists, and how much of each it shows.
const DIGEST_REASONS: usize = 10;
const DIGEST_REASON_CHARS: usize = 200;
const DIGEST_SECTIONS: usize = 4;

/// How many cases of each section `cases` holds, in their order: `trim 16, job_type 10, 2 more
/// sections` (at most [`DIGEST_SECTIONS`] named, unless one more would be all:
/// [`crate::diag::shown`]).
fn per_section<'c>(cases: impl IntoIterator<Item = &'c str>) -> (usize, String) {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in cases {
        match counts.last_mut() {
            Some((last, n)) if *last == s => *n += 1,
            _ => counts.push((s, 1)),
        }
    }
    let named = crate::diag::shown(counts.len(), DIGEST_SECTIONS);
    let mut each: Vec<String> = counts[..named].iter().map(|(s, k)| format!("{s} {k}")).collect();
    if counts.len() > named {
        each.push(format!("{} more sections", counts.len() - named));
    }
    (counts.len(), each.join(", "))
}

/// The cases of one reason as the digest names them: the first, and how many more (how many of
/// each section, when they come from several); two are both named, the second by its id alone
/// when it is of the first's section (`cases / a and b`, `cases / a and trim / b`), since "and
/// 1 more" could have named it.
fn cases_named(cases: &[(&str, &str)]) -> String {
    let Some(&(section, id)) = cases.first() else { return String::new() };
    let more = match (cases, per_section(cases.iter().map(|&(s, _)| s))) {
        ([_], _) => String::new(),
        ([_, (s, id)], _) if *s == section => format!(" and {id}"),
        ([_, (s, id)], _) => format!(" and {s} / {id}"),
        (all, (1, _)) => format!(" and {} more", all.len() - 1),
        (all, (_, each)) => format!(" and {} more (all {}: {each})", all.len() - 1, all.len()),
    };
    format!("{section} / {id}{more}")
}

/// The failed cases of a run grouped by reason, so that whoever runs an SDK sees at once what
/// to fix (`accepts is not implemented` for 80 cases) without opening the results file: the
/// reasons of the adapter's incidents first (a crash or a hang costs the cases after it), then
/// the most common; last, folded into one line per cause, the cases the adapter was never sent
/// a call for because of an earlier incident (its restarts used up, an operation retired),
/// which say nothing of their own (user study: 219 such lines came before the one crash that
/// caused them). Every case and its whole reason stay in the file, which `results check` lists.
/// The case the hint reruns, from the first reason listed.
fn note_failures<'r>(results: &'r crate::results::ResultsFile, digest: &Digest<'_>) -> Option<(&'r str, &'r str)> {
    let mut groups = results.failures_by_reason();
    if groups.is_empty() {
        return None;
    }
    let listed = |list: &[(String, String)], s: &str, id: &str| list.iter().any(|(ls, lid)| ls == s && lid == id);
    // The index of the first incident that hit a case (`None`: none did).
    let incident_at = |s: &str, id: &str| digest.incidents.iter().position(|&(is, iid)| is == s && iid == id);
    let incident = |s: &str, id: &str| incident_at(s, id).is_some();
    let not_run = |s: &str, id: &str| {
        digest.not_run.iter().find(|(ns, nid, _)| ns == s && nid == id && !incident(s, id)).map(|(_, _, why)| why)
    };
    // The cases not run, by why, in the file's order; out of their reasons' groups.
    let mut folded: Vec<(&str, Vec<&str>)> = Vec::new();
    for g in &mut groups {
        g.cases.retain(|&(s, id)| match not_run(s, id) {
            Some(why) => {
                match folded.iter_mut().find(|(w, _)| *w == why.as_str()) {
                    Some((_, sections)) => sections.push(s),
                    None => folded.push((why.as_str(), vec![s])),
                }
                false
            }
            None => true,
        });
        // The first case's reason stands for a group of one: it may be another case's now.
        if let Some(&(s, id)) = g.cases.first() {
            g.first = results.sections.get(s).and_then(|c| c.get(id)).and_then(|o| o.get("reason")?.as_str());
        }
    }
    groups.retain(|g| !g.cases.is_empty());
    // The incidents' reasons in the order they happened, then the rest, the most common first
    // (a stable sort keeps that order).
    // (Said only where there is an order to say: more than one reason.)
    let with_incidents = groups.len() > 1 && groups.iter().any(|g| g.cases.iter().any(|&(s, id)| incident(s, id)));
    groups.sort_by_key(|g| g.cases.iter().filter_map(|&(s, id)| incident_at(s, id)).min().unwrap_or(usize::MAX));
    // The case the hint reruns: the first listed that a run narrowed to it fails again (a skip
    // the whole run's other cases refused stands in a narrowed run) and whose trace shows an
    // exchange (a case whose operation was never sent shows none, nor does one not run).
    let first = groups
        .iter()
        .flat_map(|g| g.cases.iter().copied())
        .find(|(s, id)| !listed(digest.refused_by_the_run, s, id) && !listed(digest.never_sent, s, id));
    let failed =
        groups.iter().map(|g| g.cases.len()).sum::<usize>() + folded.iter().map(|(_, c)| c.len()).sum::<usize>();
    let order =
        if with_incidents { "the adapter's incidents first, then the most common" } else { "the most common first" };
    let not_sent: usize = folded.iter().map(|(_, c)| c.len()).sum();
    match not_sent {
        0 => note!("failed: {failed} case(s), {} reason(s), {order}:", groups.len()),
        n => note!(
            "failed: {failed} case(s), {} reason(s), {order}; then {n} not run after the adapter failed:",
            groups.len()
        ),
    }
    let listed = crate::diag::shown(groups.len(), DIGEST_REASONS);
    for g in &groups[..listed] {
        // One case: its reason as written, its call's number and all.
        let reason = match g.cases.len() {
            1 => g.first,
            _ => g.reason.as_deref(),
        };
        let reason = reason.unwrap_or("(no reason given)");
        let shown: String = reason.chars().take(DIGEST_REASON_CHARS).collect();
        let cut = if shown.len() < reason.len() { " …" } else { "" };
        note!("  {:>4}× {}: {}{cut}", g.cases.len(), terminal_safe(&cases_named(&g.cases)), terminal_safe(&shown));
    }
    if groups.len() > listed {
        let file = digest.out.map_or_else(|| "FILE".to_owned(), |p| crate::diag::path_word(&p.display().to_string()));
        note!(
            "  … and {} more reason(s); `bqsuite results check {}{}` lists every case",
            groups.len() - listed,
            terminal_safe(&file),
            terminal_safe(&digest.suite.suite_option())
        );
    }
    for (why, sections) in &folded {
        let (_, each) = per_section(sections.iter().copied());
        note!("  {:>4}× not run ({}): {}", sections.len(), terminal_safe(&each), terminal_safe(why));
    }
    first
}

/// An `--out FILE` that may be `-`, the convention for stdout: the file, or `None` for stdout.
/// The verdict `results check` gives the results file a whole run just wrote, as its last line
/// on stderr, so that an SDK maintainer sees at once what CI will say (a binding its family's
/// exception excludes, say) and not only the counts. When the suite cannot check results, the
/// line says so and why (validate says more): no verdict is never shown as a silent pass.
fn note_verdict(suite: &Suite, out: Option<&Path>, bytes: Vec<u8>) {
    let checker = match crate::results::Checker::new(suite) {
        Ok(checker) => checker,
        Err(why) => {
            note!("results check: not judged: {why}");
            return;
        }
    };
    let file = out.map_or_else(|| "results.json (stdout)".to_owned(), |p| p.display().to_string());
    let check = checker.check(&crate::results::Source { file, bytes });
    note!("results check: {}", crate::results::verdict_line(&check));
}

/// This binary as a suggested command names it: `bqsuite`, or the path it was started by when
/// that holds a `/` (`./target/release/bqsuite`, `/tmp/bin/bqsuite`), which need not be on
/// `PATH`; a shell word either way.
fn this_binary() -> String {
    match std::env::args_os().next().map(|a| a.to_string_lossy().into_owned()) {
        Some(path) if path.contains('/') => crate::diag::path_word(&path),
        _ => "bqsuite".to_owned(),
    }
}

/// `run --sdk CMD`, first step: split the command, empty the log, start the process (the
/// error, if any, is reported by [`run_adapter`]).
fn launch_adapter(a: &RunArgs, cmd: &str) -> Result<(crate::adapter::Launched, PathBuf), String> {
    let command = crate::adapter::split_command(cmd).map_err(|e| format!("--sdk: {e}"))?;
    let log = match (&a.adapter_log, out_file(&a.out)) {
        (Some(log), _) => log.clone(),
        (None, Some(out)) => out.with_file_name("adapter.log"),
        (None, None) => std::env::temp_dir().join(format!("bqsuite-adapter-{}.log", std::process::id())),
    };
    // The log is never written through a symlink (the adapter's appends refuse one too): one at
    // the default place (beside --out, or the temp dir's pid-named file, which anyone can plant)
    // is replaced; one named by --adapter-log is refused.
    if std::fs::symlink_metadata(&log).is_ok_and(|m| m.file_type().is_symlink()) {
        if a.adapter_log.is_some() {
            return Err(format!("the adapter log {} is a symlink; name the file itself", log.display()));
        }
        std::fs::remove_file(&log).map_err(|e| format!("cannot replace the symlink {}: {e}", log.display()))?;
    }
    crate::fsutil::create_no_follow(&log)
        .map_err(|e| format!("cannot write the adapter log {}: {e}", log.display()))?;
    let adapter = crate::adapter::AdapterOptions {
        command,
        timeout: a.timeout,
        max_restarts: a.max_restarts,
        log: log.clone(),
        conformance_version: String::new(),
        trace: a.trace,
    };
    Ok((crate::adapter::Adapter::launch(adapter), log))
}

/// `run --sdk CMD`: greet the adapter started by [`launch_adapter`] and run it.
fn run_adapter(
    cmd: &str,
    launched: Result<(crate::adapter::Launched, PathBuf), String>,
    suite: &Suite,
    options: &RunOptions,
) -> Result<(conformance::Run, crate::adapter::Summary), ExitCode> {
    let (launched, log) = launched.map_err(fail)?;
    note!("adapter: {cmd}; its stderr goes to {}", log.display());
    let rules = conformance::adapter::skip_rules(suite);
    match conformance::adapter::run_launched(suite, options, launched, &rules) {
        Ok(done) => Ok(done),
        Err(trouble) => {
            // The trouble may quote the adapter's hello, which is the adapter's text: escaped,
            // and cut.
            let mut trouble = trouble.to_string();
            if trouble.chars().count() > 500 {
                trouble = trouble.chars().take(500).chain(" …".chars()).collect();
            }
            let why = format!("the adapter {trouble}, so no case could be run (its stderr: {})", log.display());
            let code = fail(terminal_safe(&why));
            note_log_tail(&log);
            Err(code)
        }
    }
}

/// How much of the end of an adapter's log `run` shows when something went wrong with it.
const LOG_TAIL_BYTES: u64 = 4096;
const LOG_TAIL_LINES: usize = 20;

/// The end of the adapter's log (its stderr, and bqsuite's lines about it) on stderr, so that
/// why it failed is in front of whoever ran it (a CI log, where the file is out of reach): the
/// last lines of at most the last 4 KiB, each terminal-safe, since they are the adapter's words.
/// A tab, which indents the frames of a stack trace, is four spaces (escaped, every frame read
/// `\u0009at …`).
fn note_log_tail(log: &Path) {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(log) else { return };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(LOG_TAIL_BYTES);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err() || file.read_to_end(&mut bytes).is_err() || bytes.is_empty() {
        return;
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if from > 0 && !lines.is_empty() {
        // The first line read is cut at its start.
        lines.remove(0);
    }
    let shown = &lines[lines.len().saturating_sub(LOG_TAIL_LINES)..];
    note!("the end of the adapter's log ({}):", log.display());
    for line in shown {
        note!("  | {}", terminal_safe(&line.replace('\t', "    ")));
    }
}

/// How many invalid cases `run` lists on stderr before it counts the rest.
const MAX_LISTED: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;

    /// A reason of two cases names both: "and 1 more" left the reader to open the results file
    /// for the one case it could have named.
    #[test]
    fn the_digest_names_both_cases_of_a_reason_of_two() {
        assert_eq!(cases_named(&[("cases", "a")]), "cases / a");
        assert_eq!(cases_named(&[("cases", "a"), ("cases", "b")]), "cases / a and b");
        assert_eq!(cases_named(&[("cases", "a"), ("trim", "b")]), "cases / a and trim / b");
        assert_eq!(cases_named(&[("cases", "a"), ("cases", "b"), ("cases", "c")]), "cases / a and 2 more");
        assert_eq!(
            cases_named(&[("cases", "a"), ("cases", "b"), ("trim", "c")]),
            "cases / a and 2 more (all 3: cases 2, trim 1)"
        );
    }

    /// The sections of a digest line: four named and the rest counted, but never "1 more
    /// sections", which could have been named.
    #[test]
    fn per_section_names_a_fifth_section_rather_than_count_it() {
        let five = ["a", "b", "c", "d", "e"];
        assert_eq!(per_section(five), (5, "a 1, b 1, c 1, d 1, e 1".to_owned()));
        assert_eq!(per_section(["a", "b", "c", "d", "e", "f"]), (6, "a 1, b 1, c 1, d 1, 2 more sections".to_owned()));
    }
}
