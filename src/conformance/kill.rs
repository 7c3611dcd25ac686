//! The kill matrix: the reference core run through the suite once per broken variant of the
//! catalogue ([`crate::sdk::reference::Broken`]), and which cases of which sections fail.
//!
//! Invariants: each variant runs alone (switched on for the run's thread, off again after); a
//! variant is caught when at least one case fails under it; the matrix is data (the sections
//! in manifest order, the failing case ids per variant and section), rendered as Markdown for
//! `bqsuite dev kill-matrix`; the checks of the registry's declarations ([`crate::sections::Catch`])
//! are made against it by the tests.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::results::Status;
use crate::sdk::reference::{Broken, with_broken};
use crate::suite::Suite;

use super::{Run, RunOptions};

/// What one broken variant did.
#[derive(Debug, Clone)]
pub struct Row {
    pub broken: Broken,
    /// Section → the ids of its cases that failed.
    pub failing: BTreeMap<String, Vec<String>>,
    /// Section → the ids of its cases that were skipped (they need a Redis that is not there).
    pub skipped: BTreeMap<String, Vec<String>>,
}

impl Row {
    /// Did any case fail?
    pub fn caught(&self) -> bool {
        self.failing.values().any(|ids| !ids.is_empty())
    }

    /// The failing ids of `section`.
    pub fn failing_in(&self, section: &str) -> &[String] {
        self.failing.get(section).map_or(&[], Vec::as_slice)
    }

    /// The skipped ids of `section`.
    pub fn skipped_in(&self, section: &str) -> &[String] {
        self.skipped.get(section).map_or(&[], Vec::as_slice)
    }
}

/// The matrix: the reference run, then one row per variant.
#[derive(Debug, Clone)]
pub struct KillMatrix {
    /// The sections run, in manifest order.
    pub sections: Vec<String>,
    /// The reference core as it is (nothing broken).
    pub reference: Row,
    pub rows: Vec<Row>,
}

fn row(broken: Option<Broken>, out: &Run) -> (Vec<String>, Row) {
    let mut failing = BTreeMap::new();
    let mut skipped = BTreeMap::new();
    let mut sections = Vec::new();
    for (section, cases) in &out.results.sections {
        sections.push(section.clone());
        let with = |want: Status| -> Vec<String> {
            let status = |o: &serde_json::Value| o.get("status").and_then(|s| s.as_str()).and_then(Status::parse);
            cases
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, o)| status(o) == Some(want))
                .map(|(id, _)| id.clone())
                .collect()
        };
        failing.insert(section.clone(), with(Status::Fail));
        skipped.insert(section.clone(), with(Status::Skip));
    }
    (sections, Row { broken: broken.unwrap_or(Broken::ALL[0]), failing, skipped })
}

/// Run the reference and every broken variant through `suite`, in process.
pub fn kill_matrix(suite: &Suite, options: &RunOptions) -> KillMatrix {
    // One judge's Redis for every run: one connection, and one note when there is none (a
    // link per run said "no Redis is given" once per variant, 104 times).
    let redis = std::rc::Rc::new(super::redis_link(options));
    let matrix = kill_matrix_by(&mut |broken| {
        let go = || {
            let mut sdk = crate::sdk::reference::ReferenceSdk::with_redis(redis.clone());
            super::run_with(suite, options, &mut sdk, &redis)
        };
        Ok::<_, std::convert::Infallible>(match broken {
            Some(b) => with_broken(b, go),
            None => go(),
        })
    });
    match matrix {
        Ok(m) => m,
    }
}

/// The matrix of the runs `run` gives: once with nothing broken, then once per variant of the
/// catalogue (the same matrix in process or across the adapter protocol).
pub fn kill_matrix_by<E>(run: &mut dyn FnMut(Option<Broken>) -> Result<Run, E>) -> Result<KillMatrix, E> {
    let (sections, reference) = row(None, &run(None)?);
    let mut rows = Vec::with_capacity(Broken::ALL.len());
    for b in Broken::ALL {
        rows.push(row(Some(*b), &run(Some(*b))?).1);
    }
    Ok(KillMatrix { sections, reference, rows })
}

impl KillMatrix {
    /// Every (variant, section, case) where the variant fails the case: what
    /// [`crate::sections::power`] records.
    pub fn pairs(&self) -> Vec<crate::sections::power::Pair> {
        let mut out = Vec::new();
        for r in &self.rows {
            for (section, ids) in &r.failing {
                for id in ids {
                    out.push(crate::sections::power::Pair {
                        variant: r.broken,
                        section: section.clone(),
                        id: id.clone(),
                    });
                }
            }
        }
        out.sort();
        out
    }

    /// How many cases each run skipped (they needed a Redis that was not there).
    pub fn skipped(&self) -> usize {
        self.reference.skipped.values().map(Vec::len).sum()
    }

    /// The matrix as a Markdown table: one row per variant, one column per section, each cell
    /// the number of failing cases (blank: none); then the variants no case catches.
    pub fn markdown(&self) -> String {
        let mut out = String::from("| variant | what it breaks |");
        for s in &self.sections {
            let _ = write!(out, " {s} |");
        }
        out.push_str("\n|---|---|");
        out.push_str(&"---:|".repeat(self.sections.len()));
        out.push('\n');
        for r in &self.rows {
            let _ = write!(out, "| `{}` | {} |", r.broken.name(), r.broken.breaks().replace('|', "\\|"));
            for s in &self.sections {
                match r.failing_in(s).len() {
                    0 => out.push_str(" |"),
                    n => {
                        let _ = write!(out, " {n} |");
                    }
                }
            }
            out.push('\n');
        }
        let missed: Vec<&str> = self.rows.iter().filter(|r| !r.caught()).map(|r| r.broken.name()).collect();
        let reference_failures: usize = self.reference.failing.values().map(Vec::len).sum();
        let _ = write!(
            out,
            "\n{} variants, {} caught; the reference core fails {reference_failures} case(s); {} case(s) skipped per run.\n",
            self.rows.len(),
            self.rows.len() - missed.len(),
            self.reference.skipped.values().map(Vec::len).sum::<usize>()
        );
        if !missed.is_empty() {
            let _ = writeln!(out, "Not caught by any case: {}.", missed.join(", "));
        }
        out
    }
}
