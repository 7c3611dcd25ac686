//! bqsuite — the BabelQueue conformance suite's own tool.
//!
//! Data flows one way: files on disk → [`suite`] (loaded once) → the section registry
//! ([`sections`]: each section's typed cases, cross-checks and run) → checks ([`validate`]) and
//! the run ([`conformance`], against the SDK interface [`sdk`], which the reference [`core`]
//! implements in process and an [`adapter`] process implements across stdio) → findings ([`diag`]) or results ([`results`]) → reporters → exit code
//! ([`cli`]). Nothing downstream reaches back upstream (`tests/architecture.rs` holds the
//! allowed edges), and the reference core knows nothing of the suite tooling. Below the core
//! sits only [`fault`], the catalogue of its broken variants: the switches the core consults,
//! which only the tooling (the kill matrix, `adapter --broken`) ever turns on.
//!
//! Messages to stderr go through `note!`, never `eprintln!`: a closed or failing stderr
//! (`bqsuite run 2>&1 | head -1`) loses the message, never the work or the exit code.
//!
//! The API docs are for this repository's developers (`cargo doc --document-private-items`,
//! which CI builds with warnings denied), so a public item's docs may link private ones; and the
//! clap doc comments are the `--help` text, whose `<PLACEHOLDER>`s and plain URLs are not HTML.
#![allow(rustdoc::private_intra_doc_links, rustdoc::invalid_html_tags, rustdoc::bare_urls)]

/// `eprintln!` that cannot panic: stderr carries diagnostics only, so when it is closed (a
/// pipe whose reader left) or fails, the message is dropped and the command carries on to its
/// own exit code. `eprintln!` would panic there (exit 101, which no caller expects).
macro_rules! note {
    () => {{
        use std::io::Write as _;
        let _ = std::io::stderr().write_all(b"\n");
    }};
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // Formatted first, written once: stderr is unbuffered, and formatting straight into it
        // costs a system call per padding character. No note carries a control character but
        // its line feeds, whatever it quotes, and a runner, which reads workflow commands on
        // stderr too, reads none in it (diag::terminal_safe_lines).
        let text = format!("{}\n", format_args!($($arg)*));
        let _ = std::io::stderr().write_all($crate::diag::terminal_safe_lines(&text).as_bytes());
    }};
}

/// `note!` without the newline (`eprint!` that cannot panic).
macro_rules! note_inline {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = std::io::stderr().write_all($crate::diag::terminal_safe_lines(&text).as_bytes());
    }};
}

pub mod adapter;
pub mod cli;
pub mod conformance;
pub mod core;
pub mod diag;
pub mod diff;
pub mod docs;
pub mod fault;
pub mod fetch;
pub mod fsutil;
pub mod git;
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
