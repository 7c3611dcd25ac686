//! The finding-code reference: every code of the one code table, by family, with its
//! explanation and example (the same [`crate::diag::explain`] data `bqsuite explain` prints).

use std::fmt::Write as _;

use super::markdown::{prose, relative, table};
use super::{Context, GENERATED_NOTE};
use crate::diag::explain::{self, FAMILIES};
use crate::diag::{ALL_CODES, Code, RETIRED};

/// The anchor of a code on the page.
pub fn anchor(code: Code) -> String {
    code.id.to_lowercase()
}

fn severity(code: Code) -> String {
    let e = code.explain();
    match e.otherwise {
        Some(other) => format!("{} ({other})", explain::severity_word(e.severity)),
        None => explain::severity_word(e.severity).to_owned(),
    }
}

/// The codes from `first` to `last` as a table linked to this page, for a page at `from`
/// (empty when no code is in the range).
pub fn range_table(from: &str, first: &str, last: &str) -> String {
    let link = relative(from, super::CODES_PAGE);
    let rows: Vec<Vec<String>> = ALL_CODES
        .iter()
        .filter(|c| first <= c.id && c.id <= last)
        .map(|c| vec![format!("[{}]({link}#{})", c.id, anchor(*c)), format!("`{}`", c.name), prose(c.summary)])
        .collect();
    if rows.is_empty() { String::new() } else { table(&["code", "name", "finding"], &rows) }
}

/// The code families `command` reports (`validate`, `results check`…) as a table linked to this
/// page, for a page at `from` (empty when none).
pub fn families_table(from: &str, command: &str) -> String {
    let link = relative(from, super::CODES_PAGE);
    let rows: Vec<Vec<String>> = FAMILIES
        .iter()
        .filter(|f| f.commands.contains(&command))
        .filter_map(|f| {
            let codes: Vec<Code> = explain::codes_of(f).collect();
            let (first, last) = (codes.first()?, codes.last()?);
            let names: Vec<String> = codes.iter().map(|c| format!("[{}]({link}#{})", c.id, anchor(*c))).collect();
            let span = if first == last { first.id.to_owned() } else { format!("{}–{}", first.id, last.id) };
            Some(vec![
                format!("[{}]({link}#{})", prose(f.title), super::markdown::slug(f.title)),
                span,
                names.join(" "),
            ])
        })
        .collect();
    if rows.is_empty() { String::new() } else { table(&["family", "codes", "each code"], &rows) }
}

/// The code reference.
pub fn page(cx: &Context<'_>) -> String {
    let version = cx.suite.version().unwrap_or("?");
    let mut out = String::new();
    let _ = writeln!(out, "{GENERATED_NOTE}\n");
    let _ = writeln!(out, "# The finding codes\n");
    let _ = writeln!(
        out,
        "Every problem bqsuite reports is a finding with a stable code: `BQ` and three digits, and a kebab-case name. A code is never reused or renumbered once shipped, so CI configurations and discussions can name it. Findings carry the file, the JSON pointer and, where known, the line and column; `--format human|json|github` renders them for a terminal, a program or GitHub annotations. An `error` finding makes the command exit 1; a `warning` does not.\n"
    );
    let _ = writeln!(
        out,
        "`bqsuite explain CODE` prints a code's entry below in the terminal (`bqsuite explain --list` lists them all). Each entry's example is executed by the tests (`tests/explain.rs`), so it yields the code as shown. An example starts from a copy of this suite (or from the results file `bqsuite run` writes for it, a sync root, or a vendored copy of its release) and changes it as listed; in a pointer, `[NAME]` stands for the array element whose `name` is NAME.\n"
    );
    let rows: Vec<Vec<String>> = FAMILIES
        .iter()
        .filter(|f| explain::codes_of(f).next().is_some())
        .map(|f| {
            let codes: Vec<Code> = explain::codes_of(f).collect();
            let span = format!("{}–{}", codes[0].id, codes[codes.len() - 1].id);
            vec![format!("[{}](#{})", prose(f.title), super::markdown::slug(f.title)), span, f.reported_by()]
        })
        .collect();
    out.push_str(&table(&["family", "codes", "reported by"], &rows));
    out.push('\n');
    for f in FAMILIES {
        let codes: Vec<Code> = explain::codes_of(f).collect();
        if codes.is_empty() {
            continue;
        }
        let _ = writeln!(out, "## {}\n", f.title);
        let _ = writeln!(out, "Reported by {}.\n", f.reported_by());
        let rows: Vec<Vec<String>> = codes
            .iter()
            .map(|c| {
                vec![format!("[{}](#{})", c.id, anchor(*c)), format!("`{}`", c.name), severity(*c), prose(c.summary)]
            })
            .collect();
        out.push_str(&table(&["code", "name", "severity", "finding"], &rows));
        out.push('\n');
        for c in codes {
            let e = c.explain();
            let _ = writeln!(out, "### {}\n", c.id);
            let _ = writeln!(out, "`{}` · {}. {}\n", c.name, severity(c), prose(c.summary));
            let _ = writeln!(out, "**What it checks.** {}\n", prose(e.checks));
            let _ = writeln!(out, "**Why it matters.** {}\n", prose(e.why));
            let lines = e.example.lines(version);
            let mut text = format!("**Example.** {}", lines[0]);
            for line in &lines[1..] {
                match line.strip_prefix("  - ") {
                    Some(item) => {
                        if !text.ends_with('\n') {
                            text.push_str("\n\n");
                        }
                        let _ = writeln!(text, "- {item}");
                    }
                    None if text.ends_with('\n') => {
                        let _ = write!(text, "\n{line}");
                    }
                    None => {
                        let _ = write!(text, " {line}");
                    }
                }
            }
            let _ = writeln!(out, "{}", text.trim_end());
            let _ = writeln!(out, "\nThis gives {} ({}).\n", c.id, explain::severity_word(e.severity));
        }
    }
    let _ = writeln!(out, "## Retired codes\n");
    let _ = writeln!(
        out,
        "These codes are no longer reported; their ids and names are never given to another finding. What each checked is now checked by the codes beside it (`bqsuite explain` answers for them too).\n"
    );
    let rows: Vec<Vec<String>> = RETIRED
        .iter()
        .map(|r| {
            let now: Vec<String> =
                explain::successors(r).into_iter().map(|c| format!("[{}](#{})", c.id, anchor(c))).collect();
            vec![r.id.to_owned(), format!("`{}`", r.name), prose(r.summary), now.join(" ")]
        })
        .collect();
    out.push_str(&table(&["code", "name", "it reported", "checked now by"], &rows));
    out
}
