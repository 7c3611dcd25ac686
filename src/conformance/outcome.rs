//! What a runner's checks give, on the way to an [`Outcome`] (the results model lives in
//! [`crate::results`]).

use crate::results::Outcome;

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
