//! Results files (ADR-0032): the results model ([`model`]: status, outcome, counts, the file a
//! run writes) and its lenient reader ([`view`]), reading them, checking them against a loaded suite
//! (`bqsuite results check`), and the cross-SDK compatibility report (`bqsuite report`).
//!
//! Invariants: a results file is read from disk once ([`read`]), only as a regular file of at
//! most [`RESULTS_CAP`] bytes; only a file that cannot be read at all (missing, a FIFO or device,
//! too large) is an error (exit 2: `results check` still judges the files that read,
//! [`check_each`]; `report` produces nothing); anything read — not UTF-8, not JSON, nested
//! too deeply, a repeated key, wrong shape — is checked and reported as findings in the BQ6xx
//! range, with the results file as the
//! finding's file and a pointer inside it. Case ids come only from the suite's one case-id rule
//! ([`crate::suite::case_ids`]). The report is built from the same checks, so its verdicts and
//! `results check`'s always agree; renderers never re-read a file.

mod check;
pub mod date_time;
mod diags;
mod floor;
mod html;
pub mod known;
mod markdown;
pub mod model;
pub mod report;
mod view;

use std::fmt;
use std::path::Path;

pub use check::{CheckOptions, Checker, FileCheck, cites_adr, family_of};
pub use floor::is_a_name;
pub use model::{
    Counts, FailureKind, Failures, MAX_REASON, Outcome, ResultsFile, Status, bounded_reason, failure_kind,
    generated_at, rfc3339, source_date_epoch,
};
pub use report::{Cell, Column, Matrix, Row};
pub use view::{CaseResult, Results, SectionResults};

/// The `sdk` the reference core's results files carry (`bqsuite run` without `--sdk`, or the
/// adapter `bqsuite adapter`): the same name as `sdk::reference::SDK_NAME`, which this layer
/// does not import (the results model stands below the SDK interface); a test in
/// `conformance` holds the two equal.
pub const REFERENCE_SDK: &str = "bqsuite-reference";

/// A results file as read from disk.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as the user named it.
    pub file: String,
    pub bytes: Vec<u8>,
}

/// The largest results file read (a ×100 suite's results with every case failing are 7 MB).
pub const RESULTS_CAP: u64 = 64 << 20;

/// Read a results file (a regular file of at most [`RESULTS_CAP`] bytes); `Err` names the file
/// and says why it cannot be read (and, for a path that does not exist and looks like a glob,
/// that globs are not expanded).
pub fn read(path: &Path) -> Result<Source, String> {
    crate::fsutil::read_bounded(path, RESULTS_CAP)
        .map(|bytes| Source { file: path.display().to_string(), bytes })
        .map_err(|e| {
            format!(
                "cannot read {}: {e}{}",
                crate::diag::terminal_safe(&path.display().to_string()),
                crate::fsutil::glob_hint(path, &e)
            )
        })
}

/// A results file's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No failing case, every required section and case present, nothing out of place.
    Compatible,
    NotCompatible,
}

impl Verdict {
    /// How the verdict is written.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Compatible => "Compatible",
            Verdict::NotCompatible => "Not compatible",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One line per file: `FILE: VERDICT (sdk version, suite v): N pass, N fail, N skip[ (K
/// allowed by the skip policy)][; reasons]`. Every string from the file is escaped for the
/// terminal.
pub fn verdict_line(fc: &FileCheck) -> String {
    use crate::diag::terminal_safe as safe;
    let suite = fc.results.as_ref().and_then(|r| r.conformance_version.as_deref()).unwrap_or("?");
    let mut line = format!(
        "{}: {} ({}, suite {}): {}",
        safe(&fc.file),
        fc.verdict(),
        safe(&fc.label()),
        safe(suite),
        fc.counts_text()
    );
    if fc.verdict() == Verdict::NotCompatible {
        line.push_str("; ");
        line.push_str(&fc.reasons().join(", "));
    }
    line
}

/// Read and check every file at `paths` against `suite`, in order. `Err` when the suite cannot
/// check results (no manifest, version or results schema) or a file cannot be read at all.
pub fn check_paths(
    suite: &crate::suite::Suite,
    paths: &[std::path::PathBuf],
    options: CheckOptions,
) -> Result<Vec<FileCheck>, String> {
    let (checks, unread) = check_each(suite, paths, options)?;
    match unread.into_iter().next() {
        Some(why) => Err(why),
        None => Ok(checks),
    }
}

/// Read every file at `paths` and check each one that reads against `suite`, in order: the
/// checks, and why each other file cannot be read at all (as [`read`] says it), so that one
/// missing file does not hide the verdicts of the others. `Err` when the suite cannot check
/// results (no manifest, version or results schema).
pub fn check_each(
    suite: &crate::suite::Suite,
    paths: &[std::path::PathBuf],
    options: CheckOptions,
) -> Result<(Vec<FileCheck>, Vec<String>), String> {
    let checker = Checker::new(suite)?.with_options(options);
    let (mut checks, mut unread) = (Vec::new(), Vec::new());
    for p in paths {
        match read(p) {
            Ok(src) => checks.push(checker.check(&src)),
            Err(why) => unread.push(why),
        }
    }
    Ok((checks, unread))
}
