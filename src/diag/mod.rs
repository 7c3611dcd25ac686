//! Findings as data, and the reporters that render them.
//!
//! A [`Finding`] carries a stable [`Code`] (`BQ` + number, plus a kebab-case name), a severity,
//! a message, and where known the file, the RFC 6901 pointer inside it and the 1-based
//! line:column. Checks only ever *return* findings; rendering happens here, once, after all
//! checks ran. Codes are stable once shipped: tests assert codes, never wording.

mod codes;
mod escape;
pub mod explain;
mod render;
pub mod style;

pub use codes::{ALL_CODES, Code, RETIRED, Retired};
pub use escape::{
    is_hidden, is_invisible_layout, is_unsafe_char, json_inert, json_text, markdown_code, markdown_code_cell,
    markdown_text, no_legacy_commands, path_word, redact_url, shell_word, terminal_safe, terminal_safe_lines,
    token_safe, visible, workflow_inert,
};
pub use render::{
    Format, STEP_SUMMARY_CAP, Summary, github_error, markdown_summary, markdown_summary_with, render, summary_rows,
};

use serde::Serialize;

/// How bad a finding is. Any `Error` makes the command exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// A 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Span {
    pub line: usize,
    pub column: usize,
}

/// One problem found by a check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// Path of the file, as the user should see it (suite-relative with `/`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// RFC 6901 pointer inside `file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

impl Finding {
    /// An error finding.
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Self { code, severity: Severity::Error, message: message.into(), file: None, pointer: None, span: None }
    }

    /// A warning finding.
    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Self { severity: Severity::Warning, ..Self::error(code, message) }
    }

    /// Attach the file.
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Attach the pointer.
    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }

    /// Attach a known line:column.
    pub fn with_span(mut self, span: Option<Span>) -> Self {
        self.span = span;
        self
    }

    /// Order findings for stable output: file, position, code.
    pub fn sort(findings: &mut [Finding]) {
        findings
            .sort_by(|a, b| (&a.file, a.span, &a.pointer, a.code.id).cmp(&(&b.file, b.span, &b.pointer, b.code.id)));
    }
}

/// How many of `total` items a list capped at `cap` shows before it counts the rest ("… and N
/// more"): all of them when no more than one would be left out, since the line that counts one
/// item could have named it. Every capped list of user-facing output keeps this rule.
pub fn shown(total: usize, cap: usize) -> usize {
    if total <= cap.saturating_add(1) { total } else { cap }
}

/// Paths as a message names them: how many, then the first three, or all of them when only one
/// would be left (the rule of [`shown`]): `2 files: a, b`, `4 files: a, b, c, d`, `5 files: a,
/// b, c and 2 more`.
pub fn listed(paths: &[String]) -> String {
    let (n, named) = (paths.len(), shown(paths.len(), 3));
    let first = paths[..named].join(", ");
    let more = if n > named { format!(" and {} more", n - named) } else { String::new() };
    format!("{n} file{}: {first}{more}", if n == 1 { "" } else { "s" })
}

/// Does any finding fail the command?
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_capped_list_shows_the_one_it_would_count() {
        assert_eq!(super::shown(3, 10), 3);
        assert_eq!(super::shown(10, 10), 10);
        assert_eq!(super::shown(11, 10), 11, "\"and 1 more\" takes the line the one item would");
        assert_eq!(super::shown(12, 10), 10);
        assert_eq!(super::shown(3, usize::MAX), 3, "no cap");
    }

    #[test]
    fn listed_names_three_and_counts_the_rest() {
        let p = |n: usize| (0..n).map(|i| format!("f{i}")).collect::<Vec<_>>();
        assert_eq!(super::listed(&p(1)), "1 file: f0");
        assert_eq!(super::listed(&p(3)), "3 files: f0, f1, f2");
        // "and 1 more" could have named it.
        assert_eq!(super::listed(&p(4)), "4 files: f0, f1, f2, f3");
        assert_eq!(super::listed(&p(5)), "5 files: f0, f1, f2 and 2 more");
    }
}
