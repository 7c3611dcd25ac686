//! `bqsuite sync` and `bqsuite sync --check`: parse, call [`crate::sync`], render, exit.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::diag::{self, Format};
use crate::sync::{self, Mode, Options, targets};

use super::{SuiteArg, emit, exit, fail, write_step_summary};

/// `sync` options.
#[derive(Debug, Args)]
pub struct SyncArgs {
    #[command(flatten)]
    pub suite: SuiteArg,
    /// The directory holding the SDK repositories (default: the parent of the suite directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Use this targets file instead of the suite's sync-targets.json.
    #[arg(long, value_name = "FILE")]
    pub targets: Option<PathBuf>,
    /// Only these targets: a repository name (all its targets) or <repo>/<path>.
    #[arg(long, value_name = "NAME", num_args = 1..)]
    pub only: Vec<String>,
    /// A missing SDK repository is an error (exit 1), not a skip.
    #[arg(long)]
    pub strict: bool,
    /// Compare every copy with the canonical suite byte by byte and report drift and CI pins;
    /// write nothing. Exit 1 on drift.
    #[arg(long)]
    pub check: bool,
    /// Print what a sync would change; write nothing.
    #[arg(long, conflicts_with = "check")]
    pub dry_run: bool,
    /// Replace copies that hold uncommitted changes in their SDK repository's git work tree
    /// (modified, staged, deleted or untracked files), which sync otherwise refuses (BQ720):
    /// those changes are lost.
    #[arg(long, conflicts_with = "check")]
    pub allow_dirty: bool,
    /// After the copies, rewrite every CI pin of each repository's workflows (--branch vX.Y.Z,
    /// uses: BabelQueue/conformance@vX.Y.Z, actions/checkout's ref:) to the canonical tag, only
    /// the tag's text, so the copy and its pin land in one commit. Only in a repository whose
    /// every copy is now at that version; a pin by commit SHA is bumped with the SHA of the
    /// tag's commit in this suite's repository, or left and named. With --dry-run: what it
    /// would rewrite.
    #[arg(long, conflicts_with = "check")]
    pub bump_pins: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// With --check: leave the unified diff of each modified file out of the human and GitHub
    /// report (the table and the findings still name every file; JSON keeps the diffs), for a
    /// check across many copies where an old one would print thousands of lines.
    #[arg(long, requires = "check")]
    pub no_diff: bool,
}

pub(super) fn sync(a: &SyncArgs, color: bool) -> ExitCode {
    let suite = match a.suite.load() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let all = match &a.targets {
        Some(file) => targets::from_file(file),
        None => targets::from_suite(&suite),
    };
    let selected = match all.and_then(|all| targets::select(&all, &a.only)) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let root = match &a.root {
        Some(r) => r.clone(),
        None => match suite.root.canonicalize().ok().and_then(|r| r.parent().map(PathBuf::from)) {
            Some(parent) => parent,
            None => return fail(format!("cannot tell the parent of {}; pass --root DIR", suite.root.display())),
        },
    };
    if !root.is_dir() {
        return fail(format!("the sync root {} is not a directory", root.display()));
    }
    let mode = match (a.check, a.dry_run) {
        (true, _) => Mode::Check,
        (false, true) => Mode::DryRun,
        (false, false) => Mode::Sync,
    };
    if mode != Mode::Check {
        // A released version never changes (BQ956): never vendor a copy that differs from the
        // asset its version was released as (every such copy would fail `fetch --check`). A dry
        // run refuses as the sync would, so that it predicts it.
        let remote = super::diff::RemoteArgs { base_url: None };
        match super::diff::released_run(&suite, &remote) {
            Ok(super::diff::Released::Checked(tag, changed)) if !changed.is_empty() => {
                let summary = diag::Summary::new("sync", super::subject(&suite));
                emit(&diag::render(&changed, Format::Human, color, &summary));
                return fail(format!(
                    "refusing to sync: {tag} already released this version with other files; bump the version ({})",
                    crate::diff::gate::BUMPED
                ));
            }
            Ok(super::diff::Released::Unchecked(why)) => note!("sync: {why}"),
            Ok(_) => {}
            Err(e) => return fail(e),
        }
    }
    super::interrupt::name_from(&root);
    let report = match sync::run(
        &suite,
        &selected,
        &Options {
            root,
            mode,
            strict: a.strict,
            allow_dirty: a.allow_dirty,
            bump_pins: a.bump_pins,
            releases: Some(crate::diff::gate::released_copy),
        },
    ) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    emit(&report.render(a.format, color, !a.no_diff));
    if a.format == Format::Github {
        write_step_summary(&diag::markdown_summary(&report.findings(), &report.summary()));
    }
    exit(report.failed())
}
