//! `bqsuite docs [--out DIR] [--check]`: render the contract's pages, or check the committed ones.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory};

use crate::diag::{self, Format, Summary};

use super::{Cli, SuiteArg, emit, exit, fail, subject};

/// `docs` options.
#[derive(Debug, Args)]
pub struct DocsArgs {
    #[command(flatten)]
    pub suite: SuiteArg,
    /// Write the pages under DIR (as `DIR/docs/…` and `DIR/README.md`) instead of the suite's
    /// repository; with --check, compare DIR instead.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write nothing: compare the committed pages with what the suite renders, one finding per
    /// file that is missing, differs or is stale.
    #[arg(long)]
    pub check: bool,
    /// Output format of --check's findings.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub(super) fn run(a: &DocsArgs, color: bool) -> ExitCode {
    let suite = match a.suite.load() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let docs = match crate::docs::render(&suite, &Cli::command()) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let base = a.out.clone().unwrap_or_else(|| suite.root.clone());
    if a.check {
        let findings = crate::docs::findings(&docs, &base);
        let summary = Summary::new("docs --check", subject(&suite));
        emit(&diag::render(&findings, a.format, color, &summary));
        if findings.iter().any(|f| f.code == diag::Code::DOCS_DIR_NOT_A_DIRECTORY) {
            note!("bqsuite: a directory the docs are written into is not one (BQ963): delete it before `bqsuite docs`");
        } else if !findings.is_empty() {
            note!(
                "bqsuite: the docs differ from what the suite renders: run `bqsuite docs` (in this repository, \
                 `cargo run -- docs`) and commit the result"
            );
        }
        return exit(diag::has_errors(&findings));
    }
    match crate::docs::write(&docs, &base) {
        Ok(w) => {
            for rel in &w.written {
                note!("wrote {rel}");
            }
            for rel in &w.removed {
                note!("removed the stale {rel}");
            }
            note!(
                "docs: {} written, {} removed, {} unchanged under {}",
                w.written.len(),
                w.removed.len(),
                w.unchanged,
                base.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
