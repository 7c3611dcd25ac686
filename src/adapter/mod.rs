//! The adapter protocol: any SDK driven through the suite over JSON lines on stdio.
//!
//! An adapter is a small program over an SDK's own code that performs the operations of the
//! SDK interface ([`crate::sdk`]) on request; bqsuite does all the judging. [`protocol`] holds
//! the messages and their generated JSON Schema, [`serve`] the adapter side (`bqsuite adapter`
//! serves the reference core with it), [`process`] the bqsuite side (an adapter process as an
//! [`crate::sdk::Sdk`], restarted when it fails), and [`pipe`] the line transport with
//! deadlines that keeps bqsuite from ever hanging on an adapter. `docs/adapter-protocol.md` is
//! the specification an SDK maintainer writes an adapter from.
//!
//! Invariants: the operations on the wire are the SDK interface's own types, so an operation
//! means the same in process and across the boundary; the protocol version is exact; nothing
//! here judges a case.

pub mod departure;
pub mod pipe;
pub mod process;
pub mod protocol;
pub mod serve;

pub use process::{
    Adapter, AdapterOptions, CaseNotes, Incident, Launched, Plan, Summary, Trouble, split_command, stop_all,
};
pub use protocol::{Command, Hello, MAX_LINE, PROTOCOL, Reply};
