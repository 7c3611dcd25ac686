//! `bqsuite results check FILE…`: results files against the suite, one verdict per file.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::diag::{self, Format, Summary};
use crate::results::known::{self, KnownFailing, OnFile};
use crate::results::{self, CheckOptions, FileCheck, Verdict};
use crate::suite::Suite;

use super::{SuiteArg, emit, exit, fail, write_step_summary};

/// `results` subcommands.
#[derive(Debug, Args)]
pub struct ResultsArgs {
    #[command(subcommand)]
    pub command: ResultsCommand,
}

/// What to do with results files.
#[derive(Debug, Subcommand)]
pub enum ResultsCommand {
    /// Check results files against the suite, one verdict per file.
    ///
    /// Checks the results schema, the suite version, scopes and family exceptions, every case
    /// id, and every skip against the suite's skip policy (manifest.json → skip_policy: which
    /// cases may be skipped, citing which ADR), and gives each file a verdict, Compatible or Not
    /// compatible, with its pass / fail / skip counts. Exit 1 when any file is not compatible; a
    /// file that cannot be read at all (missing, not a regular file, over 64 MiB) is exit 2,
    /// and the files that can are still judged. A file is judged for the SDK it names: in an
    /// SDK's CI, --sdk NAME makes a file another SDK wrote (or the reference core) a finding.
    #[command(after_help = super::exit_help!("every file is Compatible", "a file is Not compatible"))]
    Check(CheckArgs),
}

/// `results check` options.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The results files (results.json of a conformance run).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub suite: SuiteArg,
    /// The name the SDK writes as `sdk` in its results file (babelqueue-node): every FILE's
    /// `sdk` must be NAME, else it is a finding (BQ622), so that the reference core's results
    /// (`bqsuite run` without --sdk, or the adapter `bqsuite adapter`: sdk bqsuite-reference) or
    /// another SDK's file cannot pass as this SDK's. (Not `run --sdk`, which takes the adapter's
    /// command.)
    #[arg(long, value_name = "NAME")]
    pub sdk: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// At most N skips per file, even skips the policy allows (default: no limit beyond the
    /// policy); more is a finding (BQ616).
    #[arg(long, value_name = "N")]
    pub max_skips: Option<usize>,
    /// Cases expected to fail for now, one per line as `bqsuite ids` prints them (section, white
    /// space, case id), or as messages print a case (`section / id`); a line starting with `#`
    /// is a comment, while a note after an id is part of it. The verdict stands (a failing case is Not compatible); the exit code counts only the failures
    /// the list does not name, and an entry whose case did not fail is a finding (BQ621), so
    /// the list only shrinks. Given several FILEs, the one list is applied to each: check each
    /// SDK's file with its own list.
    #[arg(long, value_name = "FILE")]
    pub known_failing: Option<PathBuf>,
    /// Print, instead of the findings, a known-failing list of the one FILE's failed cases, to
    /// start the list --known-failing reads (`> tests/known-failing.txt`): two comment lines,
    /// then each case the suite has that FILE reports failed. Exit 0 once printed.
    #[arg(long, conflicts_with_all = ["known_failing", "format", "max_skips"])]
    pub print_known_failing: bool,
}

/// `--sdk NAME`: a name as a results file's `sdk` must be written (BQ620), or no file could match.
fn sdk_name(s: &str) -> Result<String, String> {
    if results::is_a_name(s) {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "\"{}\" is not a package name as a results file's sdk is written (printable ASCII without white space)",
            crate::diag::visible(&crate::diag::terminal_safe(s))
        ))
    }
}

/// Run `results …`.
pub(super) fn run(a: &ResultsArgs, color: bool) -> ExitCode {
    match &a.command {
        ResultsCommand::Check(c) => check(c, color),
    }
}

fn verdict_json(fc: &FileCheck) -> Value {
    let r = fc.results.as_ref();
    json!({
        "file": fc.file,
        "sdk": r.and_then(|r| r.sdk.as_deref()),
        "version": r.and_then(|r| r.version.as_deref()),
        "conformance_version": r.and_then(|r| r.conformance_version.as_deref()),
        "family": fc.family,
        "verdict": fc.verdict().as_str(),
        "compatible": fc.verdict() == Verdict::Compatible,
        "reasons": fc.reasons(),
        "counts": {
            "pass": fc.counts.pass,
            "fail": fc.counts.fail,
            "skip": fc.counts.skip,
            "skip_allowed_by_policy": fc.policy_skip_total(),
            "skip_policy_applied": fc.same_version,
        },
    })
}

/// Load the suite and check every file, for `report` (a file that cannot be read stops it);
/// `Err` means exit 2.
pub(super) fn load_and_check(
    suite: &SuiteArg,
    files: &[PathBuf],
    options: CheckOptions,
) -> Result<(Suite, Vec<FileCheck>), String> {
    let suite = suite.load()?;
    let checks = results::check_paths(&suite, files, options)?;
    Ok((suite, checks))
}

fn check(a: &CheckArgs, color: bool) -> ExitCode {
    let known = match a.known_failing.as_deref().map(KnownFailing::read).transpose() {
        Ok(k) => k,
        Err(e) => return fail(format!("--known-failing: {e}")),
    };
    let suite = match a.suite.load() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    // Checked here, not by clap, whose message would echo the raw value (a terminal escape, a
    // bidi control) before ours escapes it.
    if let Some(Err(e)) = a.sdk.as_deref().map(sdk_name) {
        return fail(format!("--sdk: {e}"));
    }
    let options = CheckOptions { max_skips: a.max_skips, sdk: a.sdk.clone() };
    // A file that cannot be read is exit 2, but the others are still judged: one missing file
    // must not hide their verdicts (the GitHub Action checks every results file in one command).
    let (mut checks, unread) = match results::check_each(&suite, &a.files, options) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    if checks.is_empty() || (a.print_known_failing && !unread.is_empty()) {
        return unreadable(&unread);
    }
    if a.print_known_failing {
        let [one] = checks.as_slice() else {
            return fail("--print-known-failing: name one results file (a list is one SDK's)");
        };
        // A list is of one SDK's run of this suite: not of a file that is none, or of another
        // version's run.
        use crate::diag::Code;
        let not_a_run =
            [Code::RESULTS_NOT_JSON, Code::RESULTS_VERSION_MISMATCH, Code::RESULTS_TOO_DEEP, Code::RESULTS_MALFORMED];
        let mut why: Vec<&str> =
            one.findings.iter().filter(|f| not_a_run.contains(&f.code)).map(|f| f.code.id).collect();
        why.sort_unstable();
        why.dedup();
        return match &one.results {
            Some(results) if why.is_empty() => {
                emit(&known::list_of(&suite, results));
                // What no line of a list can hold (a skip the policy refuses, a missing case):
                // the list is still the one to start from, but the check it feeds will fail.
                let mut other: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
                for f in one
                    .findings
                    .iter()
                    .filter(|f| f.severity == crate::diag::Severity::Error && f.code != Code::RESULTS_CASE_FAILED)
                {
                    *other.entry(f.code.id).or_default() += 1;
                }
                if !other.is_empty() {
                    let list: Vec<String> = other.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
                    note!(
                        "bqsuite: note: {} also has {} error finding(s) no known-failing line can name ({}): \
                         --known-failing will still fail on them",
                        crate::diag::terminal_safe(&one.file),
                        other.values().sum::<usize>(),
                        list.join(", ")
                    );
                }
                ExitCode::SUCCESS
            }
            _ => fail(format!(
                "--print-known-failing: {} is not a run of this suite ({}): `bqsuite results check {}{}` says why",
                one.file,
                if why.is_empty() { "not JSON".to_owned() } else { why.join(", ") },
                crate::diag::path_word(&one.file),
                suite.suite_option()
            )),
        };
    }
    // What the list makes of each file: its listed failures say so, its stale entries are
    // findings of the list.
    let on_files: Vec<OnFile> = match &known {
        Some(k) => {
            let cases = known::suite_cases(&suite);
            checks.iter_mut().map(|c| k.check_file(c, &cases)).collect()
        }
        None => Vec::new(),
    };
    let github = a.format == Format::Github;
    // One file without a list (the usual case): its findings as they are, not a copy of them all.
    let merged: Vec<diag::Finding>;
    let findings: &[diag::Finding] = match (checks.as_slice(), on_files.as_slice()) {
        ([one], []) => &one.findings,
        (all, on) => {
            // In a CI log a listed failure is a warning annotation (a green job carries no error
            // for what it was told to expect); the verdicts are computed from `checks`, which
            // keep it an error, and so do the human and JSON reports (a JSON consumer's count of
            // errors stays the verdict's; each listed one carries `known_failure` instead).
            merged = all
                .iter()
                .enumerate()
                .flat_map(|(n, c)| {
                    let known = on.get(n).map(|o| o.known.as_slice()).unwrap_or_default();
                    c.findings.iter().enumerate().map(move |(i, f)| {
                        let mut f = f.clone();
                        if github && known.iter().any(|(k, _)| *k == i) {
                            f.severity = diag::Severity::Warning;
                        }
                        f
                    })
                })
                .chain({
                    // An entry the suite has no case for is stale whatever the file: once, not
                    // once per results file (its message names none).
                    let mut seen = std::collections::HashSet::new();
                    on.iter()
                        .flat_map(|o| o.stale.iter())
                        .filter(move |f| seen.insert((f.span.map(|s| (s.line, s.column)), f.message.clone())))
                        .cloned()
                })
                .collect();
            &merged
        }
    };
    let n = checks.len();
    let summary = Summary::new(
        "results check",
        format!(
            "{n} results file{} against suite {} at {}{}",
            if n == 1 { "" } else { "s" },
            suite.version().unwrap_or("?"),
            suite.root.display(),
            match unread.len() {
                0 => String::new(),
                k => format!("; {k} more could not be read, so not checked (exit 2)"),
            }
        ),
    );
    let rendered = diag::render(findings, a.format, color, &summary);
    let mut verdicts: String = checks.iter().map(|c| results::verdict_line(c) + "\n").collect();
    if let Some(k) = &known {
        for (c, on) in checks.iter().zip(&on_files) {
            verdicts.push_str(&(known_line(k, c, on) + "\n"));
        }
    }
    match a.format {
        Format::Json => {
            let mut doc: Value = serde_json::from_str(&rendered).expect("the JSON reporter writes JSON");
            doc["verdicts"] = checks.iter().map(verdict_json).collect();
            if !unread.is_empty() {
                doc["unread"] = json!(unread);
            }
            if let Some(k) = &known {
                // The findings are each file's in order, then the stale entries: mark each
                // listed failure where it lies, so a consumer need not read the message.
                let mut start = 0;
                for (c, on) in checks.iter().zip(&on_files) {
                    for (i, line) in &on.known {
                        doc["findings"][start + i]["known_failure"] = json!({"list": k.file, "line": line});
                    }
                    start += c.findings.len();
                }
                doc["known_failing"] = json!({
                    "file": k.file,
                    "files": checks.iter().zip(&on_files).map(|(c, on)| json!({
                        "file": c.file,
                        "listed": on.listed,
                        "still_failing": on.still_failing,
                        "stale": on.stale.len(),
                        "unlisted_errors": on.unlisted,
                        "holds": on.holds(),
                    })).collect::<Vec<_>>(),
                });
            }
            emit(&diag::json_text(&doc));
        }
        Format::Human => emit(&(rendered + &verdicts)),
        Format::Github => {
            // A line of the log that starts with `::` (after white space) is a workflow command to
            // the runner: a results file named `::error …` must not make its verdict line one.
            let verdicts = diag::workflow_inert(&verdicts).into_owned();
            emit(&(rendered + &verdicts));
            // The verdicts first (they are what a reader looks for), escaped like every finding.
            let mut list: String =
                checks.iter().map(|c| format!("- {}\n", diag::markdown_text(&results::verdict_line(c)))).collect();
            if let Some(k) = &known {
                for (c, on) in checks.iter().zip(&on_files) {
                    list.push_str(&format!("- {}\n", diag::markdown_text(&known_line(k, c, on))));
                }
            }
            // A file not read has no verdict: the summary says so beside the others'.
            for why in &unread {
                list.push_str(&format!("- not checked: {}\n", diag::markdown_text(why)));
            }
            write_step_summary(&diag::markdown_summary_with(findings, &summary, &list));
        }
    }
    let code = match &known {
        // A file that cannot be read: exit 2, said last on stderr, after the others' verdicts.
        _ if !unread.is_empty() => unreadable(&unread),
        // The list decides the exit code, never the verdict.
        Some(_) => exit(on_files.iter().any(|on| !on.holds())),
        None => exit(checks.iter().any(|c| c.verdict() == Verdict::NotCompatible)),
    };
    // The process exits next: freeing the suite and the findings node by node would be wasted
    // work (as in `validate`).
    std::mem::forget((suite, checks));
    code
}

/// Exit 2 for the files that could not be read, each said on its own `bqsuite: error:` line.
fn unreadable(why: &[String]) -> ExitCode {
    for w in why {
        fail(w);
    }
    ExitCode::from(2)
}

/// What a known-failing list made of one file, after its verdict line: the verdict stands, the
/// exit code follows the list.
fn known_line(k: &KnownFailing, c: &FileCheck, on: &OnFile) -> String {
    let mut line = format!(
        "{}: known failures ({}): {} listed, {} still failing",
        diag::terminal_safe(&c.file),
        diag::terminal_safe(&k.file),
        on.listed,
        on.still_failing
    );
    if !on.stale.is_empty() {
        line.push_str(&format!(", {} stale (BQ621: take them out of the list)", on.stale.len()));
    }
    if on.unlisted > 0 {
        line.push_str(&format!("; {} error finding(s) the list does not name", on.unlisted));
    }
    if on.holds() {
        line.push_str("; the list holds (the verdict stands)");
    }
    line
}
