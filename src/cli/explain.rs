//! `bqsuite explain CODE`, `bqsuite explain --list` and `bqsuite explain SECTION/ID`: the code
//! table's explanations, and what the suite's contract says about one case (`docs::case`).
//!
//! A code and a case id cannot be confused: an argument that names a code (its id, its number
//! or its name, current or retired) is that code, as before there were case explanations, and
//! needs no suite; anything else is a case of the suite. A bare case id that is also a code's
//! name or number is reached as `SECTION/ID`, and a note on stderr says so when the suite has
//! one (the canonical suite has none: `tests/explain.rs` holds that).

use std::process::ExitCode;

use clap::Args;

use crate::diag::{explain, terminal_safe, visible};
use crate::docs::case::{self, Lookup};

use super::{IdsFormat, SUITE_VERSION, SuiteArg, emit, fail};

/// `explain` options.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A finding code: its id (BQ612, bq612, 612) or its name (results-case-failed). Or a case
    /// of the suite (--suite), as bqsuite names one: SECTION/ID, "SECTION / ID", SECTION ID, or
    /// a bare ID that one section holds. A code wins over a case id of the same text.
    #[arg(value_name = "CODE|CASE", num_args = 1..=2, required_unless_present = "list", conflicts_with = "list")]
    pub code: Vec<String>,
    /// List every code by family, with its name, severity and summary.
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub suite: SuiteArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = IdsFormat::Human)]
    pub format: IdsFormat,
}

pub(super) fn run(a: &ExplainArgs, color: bool) -> ExitCode {
    let text = match (a.code.as_slice(), a.format) {
        ([], IdsFormat::Human) => explain::render_list(color),
        ([], IdsFormat::Json) => pretty(&explain::render_list_json()),
        ([typed], format) if explain::lookup(typed).is_some() || explain::lookup_retired(typed).is_some() => {
            note_case_of_the_same_name(a, typed);
            let Some(code) = explain::lookup(typed) else {
                let r = explain::lookup_retired(typed).expect("a retired code");
                emit(&match format {
                    IdsFormat::Human => explain::render_retired_text(r, color),
                    IdsFormat::Json => pretty(&explain::render_retired_json(r)),
                });
                return ExitCode::SUCCESS;
            };
            match format {
                IdsFormat::Human => explain::render_text(code.explain(), SUITE_VERSION, color),
                IdsFormat::Json => pretty(&explain::render_json(code.explain(), SUITE_VERSION)),
            }
        }
        (words, format) => match explain_case(a, words, format, color) {
            Ok(text) => text,
            Err(code) => return code,
        },
    };
    emit(&text);
    ExitCode::SUCCESS
}

/// A case's explanation, or the exit of a lookup that found none or several.
fn explain_case(a: &ExplainArgs, words: &[String], format: IdsFormat, color: bool) -> Result<String, ExitCode> {
    let typed = words.join(" ");
    let shown = terminal_safe(&typed);
    let suite = a.suite.load().map_err(|e| {
        fail(format!(
            "{shown:?} is no finding code (`bqsuite explain --list` lists them), and there is no suite to read it as a case id from: {e}"
        ))
    })?;
    suite.manifest_or_why().map_err(fail)?;
    let name = |(s, i): &(String, String)| format!("{}/{}", visible(s), visible(i));
    let hint = format!("`bqsuite ids{}` lists every case id", terminal_safe(&suite.suite_option()));
    let (section, id) = match case::lookup(&suite, words) {
        Lookup::Found(section, id) => (section, id),
        Lookup::Ambiguous(all) => {
            let list: Vec<String> = all.iter().map(name).collect();
            return Err(fail(format!(
                "{shown:?} is a case id of {} sections: {}; name one as SECTION/ID",
                all.len(),
                list.join(", ")
            )));
        }
        Lookup::Unknown(near) => {
            let near = if near.is_empty() {
                String::new()
            } else {
                format!("; nearest: {}", near.iter().map(name).collect::<Vec<_>>().join(", "))
            };
            return Err(fail(format!(
                "{shown:?} is neither a finding code nor a case of suite {}{near}; {hint} (`bqsuite explain --list` every code)",
                crate::diag::token_safe(suite.version().unwrap_or("?"))
            )));
        }
    };
    let e = case::explain(&suite, &section, &id, SUITE_VERSION).ok_or_else(|| fail("the case cannot be read"))?;
    Ok(match format {
        IdsFormat::Human => case::render_text(&e, color),
        IdsFormat::Json => pretty(&case::render_json(&e)),
    })
}

/// When the suite (if there is one) holds a case whose bare id is `typed`, which names a code:
/// say on stderr how to reach the case.
fn note_case_of_the_same_name(a: &ExplainArgs, typed: &str) {
    let Ok(suite) = a.suite.load() else { return };
    let first = match case::lookup(&suite, &[typed.to_owned()]) {
        Lookup::Found(section, id) => Some((section, id)),
        Lookup::Ambiguous(all) => all.into_iter().next(),
        Lookup::Unknown(_) => None,
    };
    if let Some((section, id)) = first {
        note!(
            "bqsuite: note: {:?} names a finding code, explained below; it is also a case id of section {}: `bqsuite explain {}/{}` explains the case",
            terminal_safe(typed),
            visible(&section),
            visible(&section),
            visible(&id)
        );
    }
}

fn pretty(v: &serde_json::Value) -> String {
    crate::diag::json_text(v)
}
