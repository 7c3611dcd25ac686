//! `bqsuite report FILE…`: the cross-SDK compatibility matrix as Markdown or HTML.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::results::Matrix;

use super::{SuiteArg, emit, fail};

/// `report` output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// GitHub-flavoured Markdown (a job summary, a README table).
    Markdown,
    /// One self-contained HTML page (inline CSS, loads nothing).
    Html,
}

/// `report` options.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The results files, one column each, in this order.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub suite: SuiteArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
    pub format: ReportFormat,
    /// Write the report here (atomically) instead of to stdout (`-`: stdout).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
}

/// Run `report`: exit 0 once the report is written, whatever the verdicts (`results check` is
/// the gate); 2 when it cannot be produced.
pub(super) fn run(a: &ReportArgs) -> ExitCode {
    if let Some(Err(e)) = super::out_file(&a.out).map(crate::fsutil::check_writable) {
        return fail(e);
    }
    let (suite, checks) = match super::results::load_and_check(&a.suite, &a.files, Default::default()) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let matrix = Matrix::build(&suite, &checks);
    let text = match a.format {
        ReportFormat::Markdown => matrix.markdown(),
        ReportFormat::Html => matrix.html(),
    };
    match super::out_file(&a.out) {
        Some(path) => {
            if let Err(e) = crate::fsutil::write_atomic(path, text.as_bytes()) {
                return fail(format!("cannot write {}: {e}", path.display()));
            }
            note!("report: wrote {} ({})", path.display(), matrix.headline());
        }
        None => emit(&text),
    }
    ExitCode::SUCCESS
}
