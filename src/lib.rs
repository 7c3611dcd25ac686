//! bqsuite — the BabelQueue conformance suite's own tool.
//!
//! Data flows one way: files on disk → [`suite`] (loaded once) → the section registry
//! ([`sections`]: each section's typed cases, cross-checks and run) → checks ([`validate`]) and
//! the run ([`conformance`], against the SDK interface [`sdk`], which the reference [`core`]
//! implements in process and an [`adapter`] process implements across stdio) → findings ([`diag`]) or results ([`results`]) → reporters → exit code
//! ([`cli`]). Nothing downstream reaches back upstream (`tests/architecture.rs` holds the
//! allowed edges), and the reference core knows nothing of the suite tooling.

pub mod adapter;
pub mod cli;
pub mod conformance;
pub mod core;
pub mod diag;
pub mod diff;
pub mod docs;
pub mod fetch;
pub mod fsutil;
pub mod release;
pub mod results;
pub mod schema;
pub mod sdk;
pub mod sections;
pub mod staging;
pub mod suite;
pub mod sync;
pub mod synth;
pub mod validate;
pub mod vendored;
