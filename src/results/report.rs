//! The cross-SDK compatibility matrix: sections as rows, SDKs (results files) as columns.
//!
//! Invariants: the matrix is built only from [`FileCheck`]s, so a column's verdict is exactly
//! `results check`'s verdict for that file; rows are the suite's sections in manifest order,
//! then, when any file reports a section the suite does not have, one row for all of them
//! ([`Cell::Others`]: each file's such sections in its order), so the matrix grows with the
//! files and their size, never with their product (a row per odd section times a cell per
//! file would let 10 000 small files ask for 10^8 cells); columns
//! keep the order the files were given in. A column carries the file's pass / fail / skip counts
//! (the verdict line's). A cell counts pass / fail / skip, tells the skips the skip policy allows
//! from the others, and keeps the failing case ids (with their reasons), the missing ones, the
//! ones its section does not have and those without a status for the drill-down, and every
//! other error finding `results check` makes inside the section (a pointer at or under
//! `/sections/<name>`: a repeated key, a schema violation, a skip the policy refuses, a section
//! not run); a cell is clean only when it has none of them, so no cell looks clean where
//! `results check` points at something wrong. A file of another suite version is checked against
//! none of this suite's sections (BQ603), so its cells only count, each saying it was not
//! checked, never "missing" or "not allowed" for what the other version's sections hold. Renderers
//! ([`Matrix::markdown`], [`Matrix::html`]) escape every string that comes from an input file.

use std::collections::{HashMap, HashSet};

use super::model::{Counts, Status};
use super::view::SectionResults;
use crate::diag::{Code, Severity};
use crate::suite::{Scope, Suite, pointer};

use super::{FileCheck, Verdict};

/// The label of the row of sections the suite does not have (the one row whose scope is `None`).
pub const OTHERS: &str = "(not in the suite)";

/// A compatibility matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    /// The version of the suite the files were checked against.
    pub suite_version: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
}

/// One SDK (one results file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub file: String,
    /// `sdk` (the file name when the file does not say).
    pub sdk: String,
    pub version: Option<String>,
    /// The suite version the SDK ran.
    pub conformance_version: Option<String>,
    pub family: Option<String>,
    pub verdict: Verdict,
    /// Error codes with counts (empty when Compatible).
    pub reasons: Vec<String>,
    /// Every reported case by status.
    pub counts: Counts,
    /// How many of the skips the skip policy allows (`None`: the policy was not applied, the
    /// file ran another suite version).
    pub policy_skips: Option<usize>,
    /// `results check`'s error findings outside every section (the file as a whole, its
    /// `sdk`, `bindings`, `generated_at`, …), in its order: the cells cannot show them.
    pub findings: Vec<FileFinding>,
}

/// An error finding of `results check` outside every section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileFinding {
    /// Its pointer (RFC 6901, escaped; `None` for the file as a whole).
    pub at: Option<String>,
    pub code: Code,
    pub message: String,
}

impl Column {
    /// `N pass, N fail, N skip` (and how many skips the policy allows), as `results check` says.
    pub fn counts_text(&self) -> String {
        self.counts.text(self.policy_skips)
    }
}

/// One section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The section's name ([`OTHERS`] for the row of the sections the suite does not have).
    pub section: String,
    /// `None` for the row of the sections the suite does not have.
    pub scope: Option<Scope>,
    /// One cell per column.
    pub cells: Vec<Cell>,
}

/// What one SDK reports for one section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// The file ran another suite version, so `results check` checked none of its sections
    /// against this suite (BQ603): what it reports for the section (`None`: nothing), and the
    /// cases it says failed (each a finding whatever the version, BQ612), nothing judged.
    NotChecked { counts: Option<Counts>, failing: Vec<(String, Option<String>)> },
    /// The SDK does not carry the section's scope, and the section is absent (as it must be).
    NotCarried,
    /// A family exception excludes the binding; the section is absent (as it must be).
    Excepted { adr: String },
    /// A required section is absent.
    Missing,
    /// `results check` judged nothing here: the file is not JSON, or its `sections` (for a
    /// section it would call missing, or one that is not an object) or its `bindings` (for a
    /// binding's section) could not be read; the file's findings say why. What it reports for
    /// the section, when it reports it, the cases it says failed (each a finding whatever
    /// else, BQ612), and the error findings inside it (the reason it could not be read, a
    /// repeated key).
    NotJudged { counts: Option<Counts>, failing: Vec<(String, Option<String>)>, findings: Vec<SectionFinding> },
    /// The row of the sections the suite does not have: each one this file reports, by name, as
    /// a [`Cell::Reported`] (out of scope) or [`Cell::NotChecked`] cell; empty when it reports none.
    Others { sections: Vec<(String, Cell)> },
    /// The section is reported.
    Reported {
        counts: Counts,
        /// How many of the skips the skip policy allows (the rest are findings).
        policy_skips: usize,
        /// Failing case ids with their reasons.
        failing: Vec<(String, Option<String>)>,
        /// Case ids of the section the file leaves out.
        missing: Vec<String>,
        /// Case ids the file reports that the section does not have.
        unknown: Vec<String>,
        /// Case ids whose status is none of pass, fail and skip (they are in no count).
        no_status: Vec<String>,
        /// The section should be absent (its scope is not carried, or the suite lacks it).
        out_of_scope: bool,
        /// `results check`'s other error findings inside the section (those the fields above
        /// do not already list case by case), in its order.
        findings: Vec<SectionFinding>,
    },
}

/// An error finding of `results check` inside a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionFinding {
    /// Its pointer below the section's (RFC 6901, escaped; empty for the section itself).
    pub at: String,
    pub code: Code,
    pub message: String,
}

/// The codes of a refused skip (one finding each): a cell counts those skips as "not allowed",
/// so they are not counted again among its "more findings" (the drill-downs still list them).
const REFUSED_SKIP: [Code; 3] =
    [Code::RESULTS_SKIP_NOT_ALLOWED, Code::RESULTS_SKIP_WITHOUT_ADR, Code::RESULTS_SKIP_WRONG_ADR];

impl SectionFinding {
    /// Where it is, for people: the case id as the file spells it (a pointer token escapes the
    /// `/` of `gate/0` as `gate~10`) and the pointer below the case (empty at the case), both
    /// with their hidden characters shown ([`shown`]), or `None` for the section itself.
    pub fn place(&self) -> Option<(String, String)> {
        if self.at.is_empty() {
            return None;
        }
        let (case, rest) = first_token(&self.at).unwrap_or_else(|| (self.at.clone(), ""));
        Some((shown(&case), shown(rest)))
    }

    /// Is it the finding of a skip the cell already counts as not allowed?
    pub fn is_a_refused_skip(&self) -> bool {
        REFUSED_SKIP.contains(&self.code)
    }
}

/// How many of a cell's findings its counts do not already show.
fn more(findings: &[SectionFinding]) -> usize {
    findings.iter().filter(|f| !f.is_a_refused_skip()).count()
}

/// The codes a [`Cell::Reported`] lists by case already (failing, missing, unknown, without a
/// status), so they are not listed twice.
const LISTED_BY_CASE: [Code; 4] =
    [Code::RESULTS_CASE_FAILED, Code::RESULTS_MISSING_CASE, Code::RESULTS_UNKNOWN_CASE, Code::RESULTS_NO_STATUS];

/// A file's error findings inside `/sections/<name>`, by section name, less [`LISTED_BY_CASE`].
fn findings_by_section(fc: &FileCheck) -> HashMap<String, Vec<SectionFinding>> {
    let mut by: HashMap<String, Vec<SectionFinding>> = HashMap::new();
    for f in fc.findings.iter().filter(|f| f.severity == Severity::Error && !LISTED_BY_CASE.contains(&f.code)) {
        if let Some((section, at)) = f.pointer.as_deref().and_then(inside_a_section) {
            by.entry(section).or_default().push(SectionFinding { at, code: f.code, message: f.message.clone() });
        }
    }
    by
}

/// A file's error findings outside every section, less the missing sections (each a
/// [`Cell::Missing`] already).
fn file_findings(fc: &FileCheck) -> Vec<FileFinding> {
    fc.findings
        .iter()
        .filter(|f| f.severity == Severity::Error && f.code != Code::RESULTS_MISSING_SECTION)
        .filter(|f| f.pointer.as_deref().and_then(inside_a_section).is_none())
        .map(|f| FileFinding {
            at: f.pointer.clone().filter(|p| !p.is_empty()),
            code: f.code,
            message: f.message.clone(),
        })
        .collect()
}

/// A name or id from a results file as the matrix shows it: every hidden character written
/// `\u{XXXX}` ([`crate::diag::visible`]), as `results check` names it, so two ids that differ
/// only in a zero-width or no-break space, or a line break, never look alike.
fn shown(s: &str) -> String {
    crate::diag::visible(s).into_owned()
}

/// `(section, pointer below it)` when `p` is `/sections/<name>` or below it.
fn inside_a_section(p: &str) -> Option<(String, String)> {
    let (name, below) = first_token(p.strip_prefix(super::view::SECTIONS)?.strip_prefix('/')?)?;
    Some((name, below.strip_prefix('/').unwrap_or(below).to_owned()))
}

/// The first token of a pointer's tail (`tok/more…`, no leading `/`), unescaped (`gate~10` is
/// `gate/0`), and the pointer after it (`/more…`, or empty).
fn first_token(tail: &str) -> Option<(String, &str)> {
    let (token, rest) = tail.find('/').map_or((tail, ""), |i| tail.split_at(i));
    let name = pointer::parse(&format!("/{token}")).ok()?.pop()?;
    Some((name, rest))
}

impl Cell {
    /// The cell's short text: `pass / fail / skip` counts, or what the absence means.
    pub fn summary(&self) -> String {
        match self {
            Cell::NotChecked { counts: None, .. } => "not checked".into(),
            Cell::NotChecked { counts: Some(c), .. } => format!("{} / {} / {}, not checked", c.pass, c.fail, c.skip),
            Cell::NotCarried => "—".into(),
            Cell::Excepted { adr } => format!("n/a ({adr})"),
            Cell::Missing => "missing".into(),
            Cell::NotJudged { counts: None, .. } => "not judged".into(),
            Cell::NotJudged { counts: Some(c), .. } => format!("{} / {} / {}, not judged", c.pass, c.fail, c.skip),
            Cell::Others { sections } if sections.is_empty() => "—".into(),
            Cell::Others { sections } => {
                let (mut counts, mut more, mut no_status, mut not_checked) = (Counts::default(), 0, 0, false);
                for (_, c) in sections {
                    match c {
                        Cell::Reported { counts: c, findings, no_status: n, .. } => {
                            counts += *c;
                            more += self::more(findings);
                            no_status += n.len();
                        }
                        Cell::NotChecked { counts: c, .. } => {
                            counts += c.unwrap_or_default();
                            not_checked = true;
                        }
                        _ => {}
                    }
                }
                let n = sections.len();
                let mut t = format!(
                    "{n} section{}: {} / {} / {}",
                    if n == 1 { "" } else { "s" },
                    counts.pass,
                    counts.fail,
                    counts.skip
                );
                if no_status > 0 {
                    t.push_str(&format!(", {no_status} without a status"));
                }
                t.push_str(if not_checked { ", not checked" } else { ", not in the suite" });
                match more {
                    0 => {}
                    1 => t.push_str(", 1 more finding"),
                    m => t.push_str(&format!(", {m} more findings")),
                }
                t
            }
            Cell::Reported { counts, policy_skips, missing, unknown, no_status, out_of_scope, findings, .. } => {
                let mut t = format!("{} / {} / {}", counts.pass, counts.fail, counts.skip);
                let other = counts.skip - policy_skips.min(&counts.skip);
                match (counts.skip, other) {
                    (0, _) => {}
                    // Every case skipped as the policy allows: passed, but never exercised.
                    (_, 0) if counts.pass + counts.fail == 0 => t.push_str(" (policy, none run)"),
                    (_, 0) => t.push_str(" (policy)"),
                    (s, o) if o == s => t.push_str(" (not allowed)"),
                    (_, o) => t.push_str(&format!(" ({policy_skips} policy, {o} not allowed)")),
                }
                if !missing.is_empty() {
                    t.push_str(&format!(", {} missing", missing.len()));
                }
                if !unknown.is_empty() {
                    t.push_str(&format!(", {} unknown", unknown.len()));
                }
                if !no_status.is_empty() {
                    t.push_str(&format!(", {} without a status", no_status.len()));
                }
                if *out_of_scope {
                    t.push_str(", out of scope");
                }
                match more(findings) {
                    0 => {}
                    1 => t.push_str(", 1 more finding"),
                    n => t.push_str(&format!(", {n} more findings")),
                }
                t
            }
        }
    }

    /// The cases it says failed, with their reasons (for a drill-down).
    pub fn failing(&self) -> &[(String, Option<String>)] {
        match self {
            Cell::Reported { failing, .. } | Cell::NotChecked { failing, .. } | Cell::NotJudged { failing, .. } => {
                failing
            }
            Cell::NotCarried | Cell::Excepted { .. } | Cell::Missing | Cell::Others { .. } => &[],
        }
    }

    /// Is the cell a clean pass (reported, nothing failing, missing or out of place) or a
    /// correct absence? (A cell that was not checked is neither.)
    pub fn is_clean(&self) -> bool {
        match self {
            Cell::NotCarried | Cell::Excepted { .. } => true,
            Cell::Missing | Cell::NotChecked { .. } | Cell::NotJudged { .. } => false,
            Cell::Others { sections } => sections.iter().all(|(_, c)| c.is_clean()),
            Cell::Reported { counts, policy_skips, missing, unknown, no_status, out_of_scope, findings, .. } => {
                counts.fail == 0
                    && *policy_skips == counts.skip
                    && missing.is_empty()
                    && unknown.is_empty()
                    && no_status.is_empty()
                    && !out_of_scope
                    && findings.is_empty()
            }
        }
    }
}

/// The legend both renderers print under the table.
pub const LEGEND: &str = "Each cell counts pass / fail / skip; (policy) every skip is one the suite's skip policy \
allows, (policy, none run) every case of the section is such a skip, so nothing of it was exercised, (not allowed) \
or (N policy, N not allowed) some are not (each listed below). — the SDK does not carry the section's scope; \
n/a (ADR) a family exception excludes the binding; missing a required section the file leaves out; \
not judged results check could not read the file, its sections or its bindings there (the file's findings, listed below, say \
why); \
N missing case ids the section leaves out; N unknown case ids the section does not have; N without a status \
cases whose status is none of pass, fail and skip (counted nowhere); N more findings other findings of results check \
inside the section (listed below); out of scope a section the file should not report; not in the suite sections \
the file reports that the suite does not have; \
not checked the file ran another suite version, so none of its sections was checked against this one (check it against \
that version's suite).";

impl Matrix {
    /// Build the matrix of `checks` (one per file, in column order) over `suite`.
    pub fn build(suite: &Suite, checks: &[FileCheck]) -> Matrix {
        let columns = checks
            .iter()
            .map(|fc| {
                let r = fc.results.as_ref();
                Column {
                    file: fc.file.clone(),
                    sdk: r.and_then(|r| r.sdk.as_deref()).map_or_else(|| fc.file.clone(), shown),
                    version: r.and_then(|r| r.version.as_deref()).map(shown),
                    conformance_version: r.and_then(|r| r.conformance_version.as_deref()).map(shown),
                    family: fc.family.clone(),
                    verdict: fc.verdict(),
                    reasons: fc.reasons(),
                    counts: fc.counts,
                    policy_skips: fc.same_version.then(|| fc.policy_skip_total()),
                    findings: file_findings(fc),
                }
            })
            .collect();
        // One index per file, so finding a section is a lookup, not a scan of the file's sections.
        let index: Vec<HashMap<&str, &SectionResults>> = checks
            .iter()
            .map(|fc| fc.results.iter().flat_map(|r| &r.sections).map(|s| (s.name.as_str(), s)).collect())
            .collect();
        let mut found: Vec<_> = checks.iter().map(findings_by_section).collect();
        let sections: Vec<(&str, Scope)> =
            suite.sections().into_iter().filter_map(|s| Some((s.name, s.scope?))).collect();
        let mut rows: Vec<Row> = sections
            .iter()
            .map(|&(section, scope)| {
                let cells = checks
                    .iter()
                    .zip(&index)
                    .zip(&mut found)
                    .map(|((fc, ix), found)| cell(fc, section, Some(scope), ix.get(section).copied(), found))
                    .collect();
                Row { section: section.to_owned(), scope: Some(scope), cells }
            })
            .collect();
        let known: HashSet<&str> = sections.iter().map(|(n, _)| *n).collect();
        let others: Vec<Cell> = checks
            .iter()
            .zip(&mut found)
            .map(|(fc, found)| Cell::Others {
                sections: fc
                    .results
                    .iter()
                    .flat_map(|r| &r.sections)
                    .filter(|s| !known.contains(s.name.as_str()))
                    .map(|s| (shown(&s.name), cell(fc, &s.name, None, Some(s), found)))
                    .collect(),
            })
            .collect();
        if !others.iter().all(|c| matches!(c, Cell::Others { sections } if sections.is_empty())) {
            rows.push(Row { section: OTHERS.to_owned(), scope: None, cells: others });
        }
        Matrix { suite_version: suite.version().unwrap_or("?").to_owned(), columns, rows }
    }

    /// How many columns are Compatible.
    pub fn compatible_count(&self) -> usize {
        self.columns.iter().filter(|c| c.verdict == Verdict::Compatible).count()
    }

    /// The one-line summary both renderers print above the table.
    pub fn headline(&self) -> String {
        let n = self.columns.len();
        format!(
            "Suite {} · {n} results file{} · {} Compatible · {} Not compatible",
            self.suite_version,
            if n == 1 { "" } else { "s" },
            self.compatible_count(),
            n - self.compatible_count()
        )
    }
}

fn cell(
    fc: &FileCheck,
    section: &str,
    scope: Option<Scope>,
    reported: Option<&SectionResults>,
    found: &mut HashMap<String, Vec<SectionFinding>>,
) -> Cell {
    let in_scope = scope.is_some_and(|s| fc.carried.contains(&s));
    let failing = |r: &super::view::SectionResults| -> Vec<(String, Option<String>)> {
        r.cases()
            .iter()
            .filter(|c| c.status == Some(Status::Fail))
            .map(|c| (shown(&c.id), c.reason.as_deref().map(|r| shown(&super::diags::said(r)))))
            .collect()
    };
    // A binding's section, where `bindings` could not be read: whether the SDK carries it is
    // unknown, so nothing about it was judged.
    let unread_binding = scope.is_some_and(Scope::is_binding) && !in_scope && !fc.readable.bindings;
    if !fc.same_version {
        // Its scopes, ids and skips belong to another suite: count, judge nothing.
        return Cell::NotChecked {
            counts: reported.map(|r| r.counts()),
            failing: reported.map(failing).unwrap_or_default(),
        };
    }
    match reported {
        // Not an object: none of its cases could be read (BQ620 says so).
        Some(r) if r.cases.is_none() && in_scope => {
            Cell::NotJudged { counts: None, failing: Vec::new(), findings: found.remove(section).unwrap_or_default() }
        }
        Some(r) if unread_binding => Cell::NotJudged {
            counts: Some(r.counts()),
            failing: failing(r),
            findings: found.remove(section).unwrap_or_default(),
        },
        Some(r) => Cell::Reported {
            counts: r.counts(),
            policy_skips: fc.policy_skips.get(section).copied().unwrap_or(0),
            failing: failing(r),
            missing: fc.missing_cases.get(section).cloned().unwrap_or_default(),
            unknown: fc
                .unknown_cases
                .get(section)
                .map(|ids| ids.iter().map(|id| shown(id)).collect())
                .unwrap_or_default(),
            no_status: r.cases().iter().filter(|c| c.status.is_none()).map(|c| shown(&c.id)).collect(),
            out_of_scope: !in_scope,
            findings: found.remove(section).unwrap_or_default(),
        },
        None if in_scope && fc.readable.sections => Cell::Missing,
        None if in_scope || unread_binding => {
            Cell::NotJudged { counts: None, failing: Vec::new(), findings: Vec::new() }
        }
        None => match scope.and_then(|s| fc.exception_for(s)) {
            Some(x) => Cell::Excepted { adr: x.adr.clone() },
            None => Cell::NotCarried,
        },
    }
}
