//! Per-case outcomes.

use serde::{Deserialize, Serialize};

/// A case's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

impl Status {
    /// The results-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }
}

/// What running one case gave, as written to results.json.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
}

impl Outcome {
    /// The case passed.
    pub fn pass() -> Self {
        Self { status: Status::Pass, reason: None }
    }

    /// The case failed, and why.
    pub fn fail(reason: impl Into<String>) -> Self {
        Self { status: Status::Fail, reason: Some(reason.into()) }
    }

    /// The case does not apply; `reason` must cite the ADR that says so (`ADR-NNNN`).
    pub fn skip(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        debug_assert!(crate::suite::cites_adr(&reason), "a skip reason must cite an ADR: {reason}");
        Self { status: Status::Skip, reason: Some(reason) }
    }
}

/// What a runner's check gives: `Err` carries the failure reason.
pub type Check = Result<(), String>;

impl From<Check> for Outcome {
    fn from(c: Check) -> Self {
        match c {
            Ok(()) => Outcome::pass(),
            Err(reason) => Outcome::fail(reason),
        }
    }
}

/// Fail with `msg` unless `cond` holds.
pub fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Check {
    if cond { Ok(()) } else { Err(msg()) }
}
