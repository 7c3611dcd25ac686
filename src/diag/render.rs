//! Reporters: the same findings as human text, JSON, or GitHub workflow commands.
//!
//! Invariants: reporters never read files or re-run checks; output order is the findings'
//! order; GitHub annotations are capped at 10 per severity (GitHub drops the rest silently), the
//! remainder is announced in one notice and the full list goes to the Markdown summary.

use std::fmt::Write as _;

use serde_json::json;

use super::{Finding, Severity};

/// Output format of a findings report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    Github,
}

/// What the report is about, for its header and summary line.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The command (`validate`, `results check`, …).
    pub command: String,
    /// What was checked, e.g. `suite 1.6.0 at .`.
    pub subject: String,
}

/// GitHub shows at most this many annotations of one severity per step.
const GITHUB_CAP: usize = 10;

/// Render findings in `format`. `color` only affects `Human`.
pub fn render(findings: &[Finding], format: Format, color: bool, summary: &Summary) -> String {
    match format {
        Format::Human => human(findings, color, summary),
        Format::Json => json_report(findings, summary),
        Format::Github => github(findings, summary),
    }
}

fn counts(findings: &[Finding]) -> (usize, usize) {
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    (errors, findings.len() - errors)
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `file:line:column (pointer)` as far as known.
fn location(f: &Finding) -> Option<String> {
    let mut s = f.file.clone()?;
    if let Some(span) = f.span {
        let _ = write!(s, ":{}:{}", span.line, span.column);
    }
    if let Some(p) = &f.pointer {
        let _ = write!(s, " ({})", if p.is_empty() { "document root" } else { p });
    }
    Some(s)
}

fn human(findings: &[Finding], color: bool, summary: &Summary) -> String {
    let paint = |style, text: &str| super::style::paint(style, text, color);
    let mut out = String::new();
    for f in findings {
        let (label, colour) = match f.severity {
            Severity::Error => ("error", super::style::ERROR),
            Severity::Warning => ("warning", super::style::WARNING),
        };
        let _ = writeln!(
            out,
            "{}{}: {}",
            paint(colour, label),
            paint(super::style::EMPHASIS, &format!("[{}]", f.code)),
            f.message
        );
        if let Some(loc) = location(f) {
            let _ = writeln!(out, "  {} {loc}", paint(super::style::LOCATION, "-->"));
        }
    }
    let (errors, warnings) = counts(findings);
    let verdict = if findings.is_empty() {
        paint(super::style::CLEAN, "clean")
    } else {
        format!("{}, {}", plural(errors, "error"), plural(warnings, "warning"))
    };
    let _ = writeln!(out, "{}: {verdict} ({})", summary.command, summary.subject);
    out
}

fn json_report(findings: &[Finding], summary: &Summary) -> String {
    let (errors, warnings) = counts(findings);
    let items: Vec<_> = findings
        .iter()
        .map(|f| {
            json!({
                "code": f.code.id,
                "rule": f.code.name,
                "severity": f.severity,
                "message": f.message,
                "file": f.file,
                "pointer": f.pointer,
                "line": f.span.map(|s| s.line),
                "column": f.span.map(|s| s.column),
            })
        })
        .collect();
    let doc = json!({
        "version": 1,
        "tool": "bqsuite",
        "command": summary.command,
        "subject": summary.subject,
        "findings": items,
        "summary": {"errors": errors, "warnings": warnings},
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("a JSON value always serialises");
    s.push('\n');
    s
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn github(findings: &[Finding], summary: &Summary) -> String {
    let mut out = String::new();
    let mut shown = [0usize; 2];
    let mut hidden = 0usize;
    for f in findings {
        let slot = usize::from(f.severity == Severity::Error);
        if shown[slot] == GITHUB_CAP {
            hidden += 1;
            continue;
        }
        shown[slot] += 1;
        let kind = if slot == 1 { "error" } else { "warning" };
        let mut props = Vec::new();
        if let Some(file) = &f.file {
            props.push(format!("file={}", escape_property(file)));
            if let Some(span) = f.span {
                props.push(format!("line={}", span.line));
                props.push(format!("col={}", span.column));
            }
        }
        props.push(format!("title={}", escape_property(&f.code.to_string())));
        let mut msg = f.message.clone();
        if let Some(p) = &f.pointer {
            let _ = write!(msg, " (at {})", if p.is_empty() { "document root" } else { p });
        }
        let _ = writeln!(out, "::{kind} {}::{}", props.join(","), escape_data(&msg));
    }
    if hidden > 0 {
        let _ = writeln!(
            out,
            "::notice title={}::{hidden} more {} not annotated (GitHub shows at most {GITHUB_CAP} per severity); the job summary lists all",
            escape_property(&summary.command),
            if hidden == 1 { "finding" } else { "findings" }
        );
    }
    let (errors, warnings) = counts(findings);
    let _ = writeln!(
        out,
        "{}: {}, {} ({})",
        summary.command,
        plural(errors, "error"),
        plural(warnings, "warning"),
        summary.subject
    );
    out
}

/// The full findings table in Markdown, for `$GITHUB_STEP_SUMMARY`.
pub fn markdown_summary(findings: &[Finding], summary: &Summary) -> String {
    let (errors, warnings) = counts(findings);
    let mut out = format!(
        "### bqsuite {}: {}, {}\n\n{}\n\n",
        summary.command,
        plural(errors, "error"),
        plural(warnings, "warning"),
        summary.subject
    );
    if findings.is_empty() {
        return out;
    }
    out.push_str("| severity | code | location | message |\n|---|---|---|---|\n");
    for f in findings {
        let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            if f.severity == Severity::Error { "error" } else { "warning" },
            f.code,
            cell(&location(f).unwrap_or_default()),
            cell(&f.message)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Code, Span};

    fn sample() -> Vec<Finding> {
        vec![
            Finding::error(Code::INVALID_JSON, "expected value, 50% sure\nsecond line")
                .in_file("fixtures/a,b.json")
                .at("/meta")
                .with_span(Some(Span { line: 3, column: 7 })),
            Finding::warning(Code::ORPHAN_FIXTURE, "unused").in_file("fixtures/x.json"),
        ]
    }

    fn summary() -> Summary {
        Summary { command: "validate".into(), subject: "suite 1.6.0 at .".into() }
    }

    #[test]
    fn github_escapes_data_and_properties() {
        let out = render(&sample(), Format::Github, false, &summary());
        assert!(out.starts_with(
            "::error file=fixtures/a%2Cb.json,line=3,col=7,title=BQ001 invalid-json::expected value, 50%25 sure%0Asecond line (at /meta)\n"
        ), "{out}");
        assert!(out.contains("::warning file=fixtures/x.json,title=BQ304 orphan-fixture::unused\n"));
    }

    #[test]
    fn github_caps_annotations_per_severity() {
        let many: Vec<_> = (0..13).map(|i| Finding::error(Code::INVALID_JSON, format!("e{i}"))).collect();
        let out = render(&many, Format::Github, false, &summary());
        assert_eq!(out.matches("::error ").count(), 10);
        assert!(out.contains("3 more findings not annotated"));
    }

    #[test]
    fn human_and_json_carry_code_location_and_summary() {
        let out = render(&sample(), Format::Human, false, &summary());
        assert!(out.contains("error[BQ001 invalid-json]: expected value"));
        assert!(out.contains("--> fixtures/a,b.json:3:7 (/meta)"));
        assert!(out.ends_with("validate: 1 error, 1 warning (suite 1.6.0 at .)\n"));
        let v: serde_json::Value = serde_json::from_str(&render(&sample(), Format::Json, false, &summary())).unwrap();
        assert_eq!(v["findings"][0]["code"], "BQ001");
        assert_eq!(v["findings"][0]["line"], 3);
        assert_eq!(v["summary"]["warnings"], 1);
        assert!(render(&[], Format::Human, true, &summary()).contains(&super::super::style::paint(
            super::super::style::CLEAN,
            "clean",
            true
        )));
        assert!(
            markdown_summary(&sample(), &summary())
                .contains("| error | BQ001 invalid-json | fixtures/a,b.json:3:7 (/meta) |")
        );
    }
}
