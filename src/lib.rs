//! bqsuite — the BabelQueue conformance suite's own tool.
//!
//! Data flows one way: files on disk → [`suite`] (loaded once) → checks ([`validate`]) and
//! runners ([`conformance`], over the reference [`core`]) → findings ([`diag`]) or results →
//! reporters → exit code ([`cli`]). Nothing downstream reaches back upstream, and the reference
//! core knows nothing of the suite tooling.

pub mod cli;
pub mod conformance;
pub mod core;
pub mod diag;
pub mod diff;
pub mod fetch;
pub mod fsutil;
pub mod release;
pub mod results;
pub mod schema;
pub mod staging;
pub mod suite;
pub mod sync;
pub mod synth;
pub mod validate;
pub mod vendored;
