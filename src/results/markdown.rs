//! The compatibility matrix as GitHub-flavoured Markdown.
//!
//! Invariants: every string from an input file goes through the one Markdown escaping
//! ([`crate::diag::markdown_text`] for free text such as reasons, [`crate::diag::markdown_code`]
//! / [`crate::diag::markdown_code_cell`] for names and ids, as code spans, the latter inside a
//! table cell), so no input can open a link, an HTML tag, a table cell or a new line; the output
//! ends with exactly one newline.

use std::fmt::Write as _;

use super::Verdict;
use super::report::{Cell, LEGEND, Matrix, SectionFinding};

use crate::diag::{markdown_code as code, markdown_code_cell as cell_code, markdown_text as text};

fn opt(s: Option<&str>) -> String {
    s.map_or_else(|| "?".to_owned(), text)
}

pub(super) fn render(m: &Matrix) -> String {
    let mut out = String::from("# BabelQueue conformance: compatibility\n\n");
    let _ = writeln!(out, "{}\n", text(&m.headline()));
    out.push_str("| section | scope |");
    for c in &m.columns {
        let _ = write!(out, " {} {} |", cell_code(&c.sdk), opt(c.version.as_deref()));
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---|".repeat(m.columns.len()));
    out.push_str("\n| **verdict** | |");
    for c in &m.columns {
        let _ = match c.verdict {
            Verdict::Compatible => write!(out, " Compatible |"),
            Verdict::NotCompatible => write!(out, " **Not compatible** |"),
        };
    }
    out.push_str("\n| suite run | |");
    for c in &m.columns {
        let v = opt(c.conformance_version.as_deref());
        let _ = if c.conformance_version.as_deref() == Some(m.suite_version.as_str()) {
            write!(out, " {v} |")
        } else {
            write!(out, " **{v}** |")
        };
    }
    out.push_str("\n| file | |");
    for c in &m.columns {
        let _ = write!(out, " {} |", cell_code(&c.file));
    }
    out.push_str("\n| family | |");
    for c in &m.columns {
        let _ = write!(out, " {} |", c.family.as_deref().map_or_else(|| "—".to_owned(), text));
    }
    out.push_str("\n| counts | |");
    for c in &m.columns {
        let _ = write!(out, " {} |", text(&c.counts_text()));
    }
    out.push('\n');
    for r in &m.rows {
        let scope = r.scope.map_or("unknown", |s| s.as_str());
        let _ = match r.scope {
            Some(_) => write!(out, "| {} | {scope} |", cell_code(&r.section)),
            None => write!(out, "| {} | {scope} |", text(&r.section)),
        };
        for cell in &r.cells {
            let s = cell.summary();
            let _ = if cell.is_clean() { write!(out, " {s} |") } else { write!(out, " **{s}** |") };
        }
        out.push('\n');
    }
    let _ = writeln!(out, "\n{}", text(LEGEND));
    for (i, c) in m.columns.iter().enumerate() {
        let _ = writeln!(out, "\n## {} {}: {}\n", code(&c.sdk), opt(c.version.as_deref()), c.verdict);
        let _ = writeln!(out, "File {}: {}.", code(&c.file), text(&c.counts_text()));
        if !c.reasons.is_empty() {
            let _ = writeln!(out, "Reasons: {}.", text(&c.reasons.join(", ")));
        }
        // The findings no cell shows first: the file as a whole, `sdk`, `bindings`, ….
        let mut lines: Vec<String> = c
            .findings
            .iter()
            .map(|f| {
                let at = f.at.as_deref().map_or_else(|| "(whole file)".to_owned(), cell_code);
                format!("| (file) | {at} | {} | {} |", f.code, text(&f.message))
            })
            .collect();
        for r in &m.rows {
            drill_down(&r.section, &r.cells[i], &mut lines);
        }
        if !lines.is_empty() {
            out.push_str("\n| section | case | status | reason |\n|---|---|---|---|\n");
            for l in lines {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    out
}

/// The drill-down lines of one cell (of each section in it, for the row of the sections the
/// suite does not have).
fn drill_down(section: &str, cell: &Cell, lines: &mut Vec<String>) {
    for (id, reason) in cell.failing() {
        lines.push(format!(
            "| {} | {} | fail | {} |",
            cell_code(section),
            cell_code(id),
            reason.as_deref().map(text).unwrap_or_default()
        ));
    }
    match cell {
        Cell::Missing => lines.push(format!("| {} | (whole section) | missing | |", cell_code(section))),
        Cell::Reported { missing, unknown, no_status, findings, .. } => {
            for id in missing {
                lines.push(format!("| {} | {} | missing | |", cell_code(section), cell_code(id)));
            }
            for id in unknown {
                lines.push(format!("| {} | {} | unknown | |", cell_code(section), cell_code(id)));
            }
            for id in no_status {
                lines.push(format!("| {} | {} | no status | |", cell_code(section), cell_code(id)));
            }
            finding_lines(section, findings, lines);
        }
        Cell::NotJudged { findings, .. } => finding_lines(section, findings, lines),
        Cell::Others { sections } => {
            for (name, c) in sections {
                drill_down(name, c, lines);
            }
        }
        Cell::NotCarried | Cell::Excepted { .. } | Cell::NotChecked { .. } => {}
    }
}

/// The drill-down lines of a cell's findings.
fn finding_lines(section: &str, findings: &[SectionFinding], lines: &mut Vec<String>) {
    for f in findings {
        let at = match f.place() {
            None => "(whole section)".to_owned(),
            Some((case, rest)) if rest.is_empty() => cell_code(&case),
            Some((case, rest)) => format!("{} at {}", cell_code(&case), cell_code(&rest)),
        };
        lines.push(format!("| {} | {at} | {} | {} |", cell_code(section), f.code, text(&f.message)));
    }
}

impl Matrix {
    /// The Markdown rendering. (The renderers extend the matrix, so the matrix does not import them.)
    pub fn markdown(&self) -> String {
        render(self)
    }
}
