//! `bqsuite results check FILE…`: results files against the suite, one verdict per file.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::diag::{self, Format, Summary};
use crate::results::{self, FileCheck, Verdict};
use crate::suite::Suite;

use super::{SuiteArg, emit, exit, fail, write_step_summary};

/// `results` subcommands.
#[derive(Debug, Args)]
pub struct ResultsArgs {
    #[command(subcommand)]
    pub command: ResultsCommand,
}

/// What to do with results files.
#[derive(Debug, Subcommand)]
pub enum ResultsCommand {
    /// Check results files against the suite, one verdict per file.
    ///
    /// Checks the results schema, the suite version, scopes and family exceptions, every case
    /// id and every skip, and gives each file a verdict: Compatible or Not compatible. Exit 1
    /// when any file is not compatible; a file that cannot be read at all is exit 2.
    #[command(after_help = super::exit_help!("every file is Compatible", "a file is Not compatible"))]
    Check(CheckArgs),
}

/// `results check` options.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The results files (results.json of a conformance run).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub suite: SuiteArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Run `results …`.
pub(super) fn run(a: &ResultsArgs, color: bool) -> ExitCode {
    match &a.command {
        ResultsCommand::Check(c) => check(c, color),
    }
}

fn verdict_json(fc: &FileCheck) -> Value {
    let r = fc.results.as_ref();
    json!({
        "file": fc.file,
        "sdk": r.and_then(|r| r.sdk.as_deref()),
        "version": r.and_then(|r| r.version.as_deref()),
        "conformance_version": r.and_then(|r| r.conformance_version.as_deref()),
        "family": fc.family,
        "verdict": fc.verdict().as_str(),
        "compatible": fc.verdict() == Verdict::Compatible,
        "reasons": fc.reasons(),
    })
}

/// Load the suite and check every file (shared with `report`); `Err` means exit 2.
pub(super) fn load_and_check(suite: &SuiteArg, files: &[PathBuf]) -> Result<(Suite, Vec<FileCheck>), String> {
    let suite = suite.load()?;
    let checks = results::check_paths(&suite, files)?;
    Ok((suite, checks))
}

fn check(a: &CheckArgs, color: bool) -> ExitCode {
    let (suite, checks) = match load_and_check(&a.suite, &a.files) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let findings: Vec<_> = checks.iter().flat_map(|c| c.findings.iter().cloned()).collect();
    let n = checks.len();
    let summary = Summary {
        command: "results check".into(),
        subject: format!(
            "{n} results file{} against suite {} at {}",
            if n == 1 { "" } else { "s" },
            suite.version().unwrap_or("?"),
            suite.root.display()
        ),
    };
    let rendered = diag::render(&findings, a.format, color, &summary);
    let verdicts: String = checks.iter().map(|c| results::verdict_line(c) + "\n").collect();
    match a.format {
        Format::Json => {
            let mut doc: Value = serde_json::from_str(&rendered).expect("the JSON reporter writes JSON");
            doc["verdicts"] = checks.iter().map(verdict_json).collect();
            emit(&(serde_json::to_string_pretty(&doc).expect("a JSON value always serialises") + "\n"));
        }
        Format::Human => emit(&(rendered + &verdicts)),
        Format::Github => {
            emit(&(rendered + &verdicts));
            let list: String = checks.iter().map(|c| format!("- {}\n", results::verdict_line(c))).collect();
            write_step_summary(&format!("{}\n{list}", diag::markdown_summary(&findings, &summary)));
        }
    }
    exit(checks.iter().any(|c| c.verdict() == Verdict::NotCompatible))
}
