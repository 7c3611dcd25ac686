//! `bqsuite explain CODE` and `bqsuite explain --list`: the code table's explanations, printed.

use std::process::ExitCode;

use clap::Args;

use crate::diag::explain;

use super::{IdsFormat, SUITE_VERSION, emit, fail};

/// `explain` options.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The code: its id (BQ612, bq612, 612) or its name (results-case-failed).
    #[arg(value_name = "CODE", required_unless_present = "list", conflicts_with = "list")]
    pub code: Option<String>,
    /// List every code by family, with its name, severity and summary.
    #[arg(long)]
    pub list: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = IdsFormat::Human)]
    pub format: IdsFormat,
}

pub(super) fn run(a: &ExplainArgs, color: bool) -> ExitCode {
    let text = match (&a.code, a.format) {
        (None, IdsFormat::Human) => explain::render_list(color),
        (None, IdsFormat::Json) => pretty(&explain::render_list_json()),
        (Some(typed), format) => {
            let Some(code) = explain::lookup(typed) else {
                if let Some(r) = explain::lookup_retired(typed) {
                    emit(&match format {
                        IdsFormat::Human => explain::render_retired_text(r, color),
                        IdsFormat::Json => pretty(&explain::render_retired_json(r)),
                    });
                    return ExitCode::SUCCESS;
                }
                return fail(format!(
                    "{:?} is no finding code: give its id (BQ612, 612) or its name; `bqsuite explain --list` lists them",
                    crate::diag::terminal_safe(typed)
                ));
            };
            match format {
                IdsFormat::Human => explain::render_text(code.explain(), SUITE_VERSION, color),
                IdsFormat::Json => pretty(&explain::render_json(code.explain(), SUITE_VERSION)),
            }
        }
    };
    emit(&text);
    ExitCode::SUCCESS
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}
