//! Reporters: the same findings as human text, JSON, or GitHub workflow commands.
//!
//! Invariants: reporters never read files or re-run checks; output order is the findings'
//! order; every string a finding carries (message, file, pointer, the subject) is escaped for
//! the terminal ([`super::terminal_safe`]) in human and GitHub output, a pointer with every
//! hidden character written `\u{XXXX}` ([`super::visible`]: a key with a zero-width space must
//! not read like the key it is not), and JSON escapes every such character as `\uXXXX`
//! ([`super::json_text`]: serde_json's C0 escapes, and the C1, separator and bidirectional
//! controls it would let through raw).
//!
//! GitHub: an annotation's `file=` is the finding's file relative to the workspace:
//! `$GITHUB_WORKSPACE` when that is set (read here, once per report, in
//! [`GithubContext::detect`]), else the repository root (the nearest directory above the current
//! one that holds `.git`), else the current directory, so annotations attach to the files of the
//! checkout whatever directory the command ran in. A file outside the workspace (a results file
//! the GitHub Action's adapter run wrote to `$RUNNER_TEMP`, a suite fetched there) is no file of
//! the repository, so GitHub could not attach an annotation to it: its annotation has no `file=`,
//! `line=` or `col=`, and its message starts with the file's path and line:column instead.
//! Annotations are capped at 10 per severity (GitHub drops the rest silently); the remainder is
//! announced in one notice and listed in the job summary when `$GITHUB_STEP_SUMMARY` is set,
//! otherwise printed right after the notice in plain form, at most [`PLAIN_CAP`] of them (then
//! how many more `--format json` carries): a results file with a million ids must not bury the
//! verdict under hundreds of megabytes of log.
//!
//! Job summary ([`markdown_summary`]): Markdown that GitHub renders, so every string a finding
//! or the caller's preface carries goes through the one Markdown escaping
//! ([`super::markdown_text`]); one command never appends more than [`STEP_SUMMARY_CAP`] (GitHub
//! refuses a larger summary): the preface is cut to [`PREFACE_CAP`] and the findings table to
//! the rows that fit, which [`summary_rows`] decides for both the summary and the annotations,
//! so a finding left out of the summary and not annotated is printed in plain form instead.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use serde_json::json;

use super::{Finding, Severity, markdown_text, terminal_safe};

/// Output format of a findings report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    Github,
}

/// What the report is about, for its header and summary line.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// The command (`validate`, `results check`, …).
    pub command: String,
    /// What was checked, e.g. `suite 1.6.0 at .`.
    pub subject: String,
    /// The directory the findings' relative files are relative to, when it is not the current
    /// one (`sync` names files relative to the sync root).
    pub files_base: Option<PathBuf>,
    /// What the command could not check or chose not to, in sentences (the Redis cases not run,
    /// a gate with nothing to compare): the human report leaves them to stderr, where the
    /// command says them as it goes; the JSON report lists them (`notes`), GitHub output makes
    /// each a notice, and the job summary says them under its heading, so a machine or a CI page
    /// sees what a clean result did not cover.
    pub notes: Vec<String>,
}

impl Summary {
    /// A summary whose findings name files relative to the current directory (or absolute).
    pub fn new(command: impl Into<String>, subject: impl Into<String>) -> Self {
        Self { command: command.into(), subject: subject.into(), files_base: None, notes: Vec::new() }
    }
}

/// Where GitHub annotations point, and where findings beyond the cap go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GithubContext {
    /// The absolute directory the findings' relative files are relative to.
    pub base: PathBuf,
    /// The absolute directory annotation paths are relative to.
    pub workspace: PathBuf,
    /// Does the job summary (`$GITHUB_STEP_SUMMARY`) receive the full list?
    pub step_summary: bool,
}

impl GithubContext {
    /// The context of this process: the current directory, `$GITHUB_WORKSPACE` (else the
    /// repository root above the current directory, else the current directory) and whether
    /// `$GITHUB_STEP_SUMMARY` is set.
    pub fn detect(summary: &Summary) -> Self {
        // Canonical like the workspace below, so that the two compare (on Windows canonical
        // paths are verbatim, `\\?\C:\…`, and the current directory is not).
        let cwd = std::env::current_dir().unwrap_or_default();
        let cwd = cwd.canonicalize().unwrap_or(cwd);
        let base = summary.files_base.as_ref().map_or_else(|| cwd.clone(), |b| normalize(&cwd.join(b)));
        let workspace = match std::env::var_os("GITHUB_WORKSPACE").filter(|w| !w.is_empty()) {
            Some(w) => {
                let w = cwd.join(w);
                w.canonicalize().unwrap_or_else(|_| normalize(&w))
            }
            None => cwd.ancestors().find(|d| d.join(".git").exists()).unwrap_or(&cwd).to_path_buf(),
        };
        let step_summary = std::env::var_os("GITHUB_STEP_SUMMARY").is_some_and(|v| !v.is_empty());
        Self { base, workspace, step_summary }
    }

    /// Where a finding's `file` is: `Ok` with its path relative to the workspace (`/`
    /// separators), the annotation's `file=`; `Err` with its absolute path when it lies outside
    /// the workspace, where no annotation can attach to it.
    pub fn annotation_path(&self, file: &str) -> Result<String, String> {
        let path = normalize(&self.base.join(file));
        // The workspace is canonical; a file named through a symlink to it (an absolute path
        // by the workspace's other name) is inside all the same.
        let path = match path.strip_prefix(&self.workspace) {
            Ok(_) => path,
            // Only to find it inside: a file outside is named as it was given (a symlink's own
            // path, not where it leads).
            Err(_) => path.canonicalize().ok().filter(|c| c.starts_with(&self.workspace)).unwrap_or(path),
        };
        match path.strip_prefix(&self.workspace) {
            Ok(rel) if !rel.as_os_str().is_empty() => {
                Ok(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
            }
            _ => {
                let shown = path.display().to_string();
                Err(shown.strip_prefix(r"\\?\").map(str::to_owned).unwrap_or(shown))
            }
        }
    }
}

/// `p` with `.` and `..` components resolved lexically.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// GitHub shows at most this many annotations of one severity per step.
const GITHUB_CAP: usize = 10;
/// The findings `--format github` lists in plain form, at most, after those it annotates and
/// those the job summary holds.
const PLAIN_CAP: usize = 1000;

/// The most one command appends to `$GITHUB_STEP_SUMMARY` (GitHub's limit for a step's summary).
pub const STEP_SUMMARY_CAP: usize = 1 << 20;

/// The most the preface of a job summary (the verdict list of `results check`) takes of it.
pub const PREFACE_CAP: usize = 64 << 10;

/// Room kept for the closing line that says how many findings were left out.
const CLOSING_ROOM: usize = 512;

/// Render findings in `format`. `color` only affects `Human`.
pub fn render(findings: &[Finding], format: Format, color: bool, summary: &Summary) -> String {
    match format {
        Format::Human => human(findings, color, summary),
        Format::Json => json_report(findings, summary),
        Format::Github => github(findings, summary, &GithubContext::detect(summary)),
    }
}

fn counts(findings: &[Finding]) -> (usize, usize) {
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    (errors, findings.len() - errors)
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `file:line:column (pointer)` as far as known, `file` shown as given.
fn location(f: &Finding) -> Option<String> {
    location_of(f, f.file.clone()?)
}

/// `file:line:column (pointer)` for `file`, escaped for the terminal.
fn location_of(f: &Finding, file: String) -> Option<String> {
    let mut s = file;
    if let Some(span) = f.span {
        let _ = write!(s, ":{}:{}", span.line, span.column);
    }
    if let Some(p) = &f.pointer {
        // A key with a zero-width or no-break space must not read like the key it is not.
        let _ = write!(s, " ({})", if p.is_empty() { "document root".into() } else { super::visible(p) });
    }
    Some(terminal_safe(&s).into_owned())
}

/// One finding as plain text: `error[CODE name]: message` and its location line.
fn plain(out: &mut String, f: &Finding, label: &str, code: &str, location: Option<String>) {
    let _ = writeln!(out, "{label}{code}: {}", terminal_safe(&f.message));
    if let Some(loc) = location {
        let _ = writeln!(out, "  --> {loc}");
    }
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
            terminal_safe(&f.message)
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
    let _ = writeln!(out, "{}: {verdict} ({})", summary.command, terminal_safe(&summary.subject));
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
    let mut doc = json!({
        "version": 1,
        "tool": "bqsuite",
        "command": summary.command,
        "subject": summary.subject,
        "findings": items,
        "summary": {"errors": errors, "warnings": warnings},
    });
    if !summary.notes.is_empty() {
        doc["notes"] = json!(summary.notes);
    }
    super::escape::json_text(&doc)
}

/// A GitHub error annotation with no file: for a command that failed before it had findings
/// (a release that did not verify), so that a CI page shows why, not only the log.
pub fn github_error(title: &str, message: &str) -> String {
    format!("::error title={}::{}\n", escape_property(title), escape_data(&terminal_safe(message)))
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn github(findings: &[Finding], summary: &Summary, ctx: &GithubContext) -> String {
    let mut out = String::new();
    let mut shown = [0usize; 2];
    let mut hidden: Vec<&Finding> = Vec::new();
    for f in findings {
        let slot = usize::from(f.severity == Severity::Error);
        if shown[slot] == GITHUB_CAP {
            hidden.push(f);
            continue;
        }
        shown[slot] += 1;
        let kind = if slot == 1 { "error" } else { "warning" };
        let mut props = Vec::new();
        let mut msg = String::new();
        match f.file.as_deref().map(|file| ctx.annotation_path(file)) {
            Some(Ok(file)) => {
                props.push(format!("file={}", escape_property(&terminal_safe(&file))));
                if let Some(span) = f.span {
                    props.push(format!("line={}", span.line));
                    props.push(format!("col={}", span.column));
                }
            }
            // Outside the workspace: the place in the message, where a reader finds it.
            Some(Err(outside)) => {
                msg.push_str(&terminal_safe(&outside));
                if let Some(span) = f.span {
                    let _ = write!(msg, ":{}:{}", span.line, span.column);
                }
                msg.push_str(": ");
            }
            None => {}
        }
        props.push(format!("title={}", escape_property(&f.code.to_string())));
        msg.push_str(&terminal_safe(&f.message));
        if let Some(p) = &f.pointer {
            let shown = if p.is_empty() { "document root".into() } else { super::visible(p) };
            let _ = write!(msg, " (at {shown})");
        }
        let _ = writeln!(out, "::{kind} {}::{}", props.join(","), escape_data(&msg));
    }
    if !hidden.is_empty() {
        let n = hidden.len();
        let what = if n == 1 { "finding" } else { "findings" };
        // The job summary lists the findings in order, as many as fit in it.
        let in_summary = if ctx.step_summary { summary_rows(findings, summary) } else { 0 };
        let listed = |f: &Finding| findings[..in_summary].iter().any(|g| std::ptr::eq(f, g));
        let rest: Vec<&Finding> = hidden.iter().copied().filter(|f| !listed(f)).collect();
        let whereto = match (ctx.step_summary, rest.len()) {
            (true, 0) => "the job summary lists all".to_owned(),
            (true, r) => format!(
                "the job summary lists what fits in GitHub's {} MiB, and the {r} it leaves out are listed below in plain form",
                STEP_SUMMARY_CAP >> 20
            ),
            (false, _) => "listed below in plain form".to_owned(),
        };
        let whereto = if rest.len() > PLAIN_CAP {
            format!("{whereto}, the first {PLAIN_CAP} of them; `--format json` carries all")
        } else {
            whereto
        };
        let _ = writeln!(
            out,
            "::notice title={}::{n} more {what} not annotated (GitHub shows at most {GITHUB_CAP} per severity); {whereto}",
            escape_property(&summary.command),
        );
        {
            let over = rest.len().saturating_sub(PLAIN_CAP);
            for f in rest.into_iter().take(PLAIN_CAP) {
                let label = if f.severity == Severity::Error { "error" } else { "warning" };
                let loc = f
                    .file
                    .as_ref()
                    .and_then(|file| location_of(f, ctx.annotation_path(file).unwrap_or_else(|outside| outside)));
                plain(&mut out, f, label, &format!("[{}]", f.code), loc);
            }
            if over > 0 {
                let _ = writeln!(
                    out,
                    "… and {over} more not listed here, so that the log keeps the verdict in sight: `--format json` carries every finding"
                );
            }
        }
    }
    for note in &summary.notes {
        let _ = writeln!(
            out,
            "::notice title={}::{}",
            escape_property(&summary.command),
            escape_data(&terminal_safe(note))
        );
    }
    let (errors, warnings) = counts(findings);
    let _ = writeln!(
        out,
        "{}: {}, {} ({})",
        summary.command,
        plural(errors, "error"),
        plural(warnings, "warning"),
        terminal_safe(&summary.subject)
    );
    out
}

/// Text from an input made safe for the job summary: escaped for the terminal first (so a
/// control or bidi character shows as `\uXXXX`, as in the log), then for Markdown.
fn md(s: &str) -> String {
    markdown_text(&terminal_safe(s))
}

/// The heading of a job summary: what ran, its counts and its subject.
fn summary_head(findings: &[Finding], summary: &Summary) -> String {
    let (errors, warnings) = counts(findings);
    let mut head = format!(
        "### bqsuite {}: {}, {}\n\n{}\n\n",
        md(&summary.command),
        plural(errors, "error"),
        plural(warnings, "warning"),
        md(&summary.subject)
    );
    for note in &summary.notes {
        let _ = write!(head, "Note: {}\n\n", md(note));
    }
    head
}

const TABLE_HEAD: &str = "| severity | code | location | message |\n|---|---|---|---|\n";

/// One finding as a row of the job summary's table.
fn summary_row(f: &Finding) -> String {
    format!(
        "| {} | {} | {} | {} |\n",
        if f.severity == Severity::Error { "error" } else { "warning" },
        f.code,
        md(&location(f).unwrap_or_default()),
        md(&f.message)
    )
}

/// How many findings, from the first, the job summary's table holds within
/// [`STEP_SUMMARY_CAP`] (the preface counted at its cap).
pub fn summary_rows(findings: &[Finding], summary: &Summary) -> usize {
    let mut left = STEP_SUMMARY_CAP
        .saturating_sub(summary_head(findings, summary).len() + PREFACE_CAP + TABLE_HEAD.len() + CLOSING_ROOM);
    findings
        .iter()
        .take_while(|f| {
            let n = summary_row(f).len();
            let fits = n <= left;
            left = left.saturating_sub(n);
            fits
        })
        .count()
}

/// The findings table in Markdown, for `$GITHUB_STEP_SUMMARY`.
pub fn markdown_summary(findings: &[Finding], summary: &Summary) -> String {
    markdown_summary_with(findings, summary, "")
}

/// [`markdown_summary`] with `preface` (Markdown the caller made safe, such as a verdict list)
/// after the heading, cut at a line to [`PREFACE_CAP`]; the whole is at most
/// [`STEP_SUMMARY_CAP`] bytes, with a closing line saying how many findings did not fit.
pub fn markdown_summary_with(findings: &[Finding], summary: &Summary, preface: &str) -> String {
    let mut out = summary_head(findings, summary);
    if preface.len() <= PREFACE_CAP {
        out.push_str(preface);
    } else {
        let mut cut = 0;
        for line in preface.split_inclusive('\n') {
            if cut + line.len() > PREFACE_CAP - CLOSING_ROOM {
                break;
            }
            cut += line.len();
        }
        out.push_str(&preface[..cut]);
        let left = preface[cut..].lines().count();
        let _ = writeln!(out, "\n({left} more lines left out: a job summary holds at most 1 MiB.)");
    }
    if !preface.is_empty() {
        out.push('\n');
    }
    if findings.is_empty() {
        return out;
    }
    let rows = summary_rows(findings, summary);
    out.push_str(TABLE_HEAD);
    for f in &findings[..rows] {
        out.push_str(&summary_row(f));
    }
    if rows < findings.len() {
        let left = findings.len() - rows;
        let _ = writeln!(
            out,
            "\n{left} more finding{} left out: a job summary holds at most {} MiB. The step's log lists each one \
             not annotated, up to {PLAIN_CAP}, and `--format json` carries all of them.",
            if left == 1 { " is" } else { "s are" },
            STEP_SUMMARY_CAP >> 20
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
        Summary::new("validate", "suite 1.6.0 at .")
    }

    fn ctx(step_summary: bool) -> GithubContext {
        GithubContext { base: "/w/repo".into(), workspace: "/w/repo".into(), step_summary }
    }

    #[test]
    fn github_escapes_data_and_properties() {
        let out = github(&sample(), &summary(), &ctx(true));
        assert!(out.starts_with(
            "::error file=fixtures/a%2Cb.json,line=3,col=7,title=BQ001 invalid-json::expected value, 50%25 sure\\u000asecond line (at /meta)\n"
        ), "{out}");
        assert!(out.contains("::warning file=fixtures/x.json,title=BQ304 orphan-fixture::unused\n"));
    }

    #[test]
    fn github_caps_annotations_per_severity_and_lists_the_rest() {
        let many: Vec<_> =
            (0..13).map(|i| Finding::error(Code::INVALID_JSON, format!("e{i}")).in_file("manifest.json")).collect();
        let out = github(&many, &summary(), &ctx(true));
        assert_eq!(out.matches("::error ").count(), 10);
        assert!(out.contains(
            "3 more findings not annotated (GitHub shows at most 10 per severity); the job summary lists all"
        ));
        assert!(!out.contains("error[BQ001 invalid-json]: e10"));
        let out = github(&many, &summary(), &ctx(false));
        assert_eq!(out.matches("::error ").count(), 10);
        assert!(out.contains(
            "3 more findings not annotated (GitHub shows at most 10 per severity); listed below in plain form"
        ));
        for i in 10..13 {
            assert!(out.contains(&format!("error[BQ001 invalid-json]: e{i}\n  --> manifest.json\n")), "{out}");
        }
    }

    #[test]
    fn github_paths_are_relative_to_the_workspace() {
        let c = GithubContext { base: "/w/repo/sub".into(), workspace: "/w/repo".into(), step_summary: true };
        assert_eq!(c.annotation_path("../manifest.json").as_deref(), Ok("manifest.json"));
        assert_eq!(c.annotation_path("x/../fixtures/a.json").as_deref(), Ok("sub/fixtures/a.json"));
        assert_eq!(c.annotation_path("/w/repo/schema/s.json").as_deref(), Ok("schema/s.json"));
        assert_eq!(c.annotation_path("../../other/f.json"), Err("/w/other/f.json".into()), "outside: absolute");
        let f = Finding::error(Code::INVALID_JSON, "x").in_file("../manifest.json");
        assert!(github(&[f], &summary(), &c).starts_with("::error file=manifest.json,title="));
    }

    /// User report: the GitHub Action's adapter writes its results file to $RUNNER_TEMP, outside
    /// the workspace, and an annotation whose file= is there cannot attach to a file of the
    /// repository. Such an annotation has no file=, line= or col=; its message starts with the
    /// path and line:column.
    #[test]
    fn a_file_outside_the_workspace_is_named_in_the_message_not_in_file() {
        let c = GithubContext { base: "/w/repo".into(), workspace: "/w/repo".into(), step_summary: false };
        let f = Finding::error(Code::RESULTS_CASE_FAILED, "cases / a failed: 50% off")
            .in_file("/runner/temp/babelqueue-conformance/results.json")
            .at("/sections/cases/a")
            .with_span(Some(Span { line: 12, column: 5 }));
        let out = github(&[f], &summary(), &c);
        assert!(
            out.starts_with(
                "::error title=BQ612 results-case-failed::/runner/temp/babelqueue-conformance/results.json:12:5: \
                 cases / a failed: 50%25 off (at /sections/cases/a)\n"
            ),
            "{out}"
        );
        // Past the cap, the plain listing names it the same way.
        let many: Vec<_> =
            (0..11).map(|i| Finding::error(Code::INVALID_JSON, format!("e{i}")).in_file("/elsewhere/m.json")).collect();
        let out = github(&many, &summary(), &c);
        assert_eq!(out.matches("::error title=BQ001 invalid-json::/elsewhere/m.json: e").count(), 10, "{out}");
        assert!(out.contains("error[BQ001 invalid-json]: e10\n  --> /elsewhere/m.json\n"), "{out}");
    }

    /// Red team of stop 53: the workspace is canonical, and a file named by an absolute path
    /// through a symlink to it lost its `file=`.
    #[cfg(unix)]
    #[test]
    fn a_file_named_through_a_symlink_to_the_workspace_is_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(ws.join("r.json"), "{}").unwrap();
        std::os::unix::fs::symlink(&ws, dir.path().join("link")).unwrap();
        let c =
            GithubContext { base: dir.path().join("link"), workspace: ws.canonicalize().unwrap(), step_summary: false };
        assert_eq!(c.annotation_path("r.json"), Ok("r.json".to_owned()));
        assert!(c.annotation_path("/elsewhere/r.json").is_err());
    }

    #[test]
    fn untrusted_strings_are_escaped_in_every_text_format() {
        let evil = "evil\u{1b}[2J\nfake: Compatible\r\u{1b}]0;title\u{7}";
        let f = Finding::error(Code::INVALID_JSON, evil).in_file("a\u{1b}.json").at("/x\u{1b}");
        let escaped = "evil\\u001b[2J\\u000afake: Compatible\\u000d\\u001b]0;title\\u0007";
        for out in [
            render(std::slice::from_ref(&f), Format::Human, false, &summary()),
            github(std::slice::from_ref(&f), &summary(), &ctx(true)),
        ] {
            assert!(!out.contains('\u{1b}') && !out.contains('\r') && !out.contains('\u{7}'), "{out:?}");
            assert!(out.contains(escaped), "{out}");
            assert!(out.contains("a\\u001b.json"), "{out}");
        }
        // The job summary is Markdown: the same text, escaped for Markdown too.
        let md = markdown_summary(std::slice::from_ref(&f), &summary());
        assert!(!md.contains('\u{1b}') && !md.contains('\r') && !md.contains('\u{7}'), "{md:?}");
        assert!(md.contains(&markdown_text(escaped)), "{md}");
        let json = render(&[f], Format::Json, false, &summary());
        assert!(!json.contains('\u{1b}') && json.contains("\\u001b"));
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

    #[test]
    fn the_job_summary_escapes_markdown_and_html() {
        // Red team F4: a reason with an image and an HTML heading became a green badge and an
        // "All results files Compatible" heading in the job summary.
        let evil = "![ok](https://img.shields.io/badge/x) <h2>All results files Compatible</h2> | [link](u) *b*";
        let f = Finding::error(Code::INVALID_JSON, evil).in_file("r|<b>.json").at("/a_b");
        let md = markdown_summary_with(&[f], &Summary::new("results check", "<img src=x> *s*"), "- v\n");
        let unescaped = |raw: &str| md.match_indices(raw).any(|(i, _)| !md[..i].ends_with('\\'));
        for raw in ["![ok]", "<h2>", "</h2>", "[link]", "<img", "<b>", "*b*", "*s*", "| [link"] {
            assert!(!unescaped(raw), "{raw} unescaped in {md}");
        }
        assert!(
            md.contains("\\!\\[ok\\](https\\://img.shields.io/badge/x) \\<h2\\>All results files Compatible\\</h2\\>"),
            "{md}"
        );
        assert!(md.contains("\n- v\n"), "the preface follows the heading: {md}");
        let row = md.lines().find(|l| l.starts_with("| error |")).unwrap();
        let cell_pipes = row.match_indices('|').filter(|(i, _)| !row[..*i].ends_with('\\')).count();
        assert_eq!(cell_pipes, 5, "four cells: {row}");
    }

    #[test]
    fn the_job_summary_is_capped_and_says_what_it_leaves_out() {
        // Red team F5: a few thousand findings made a summary GitHub refuses (over 1 MiB).
        let long = "x".repeat(300);
        let many: Vec<_> = (0..10_000)
            .map(|i| Finding::error(Code::INVALID_JSON, format!("{i} {long}")).in_file("r.json").at(format!("/{i}")))
            .collect();
        let preface = "- a verdict line\n".repeat(10_000);
        let md = markdown_summary_with(&many, &summary(), &preface);
        assert!(md.len() <= STEP_SUMMARY_CAP, "{}", md.len());
        let rows = summary_rows(&many, &summary());
        assert!(rows > 1000 && rows < many.len(), "{rows}");
        assert_eq!(md.lines().filter(|l| l.starts_with("| error |")).count(), rows);
        assert!(md.contains(&format!("| {} {long} |", rows - 1)) && !md.contains(&format!("| {rows} {long} |")));
        let left = many.len() - rows;
        assert!(md.contains(&format!("{left} more findings are left out: a job summary holds at most 1 MiB. The step's log lists each one not annotated, up to 1000, and `--format json` carries all of them.")), "{}", &md[md.len() - 400..]);
        assert!(md.contains("more lines left out: a job summary holds at most 1 MiB."), "the preface is cut too");
        // The log then prints, in plain form, the findings neither annotated nor in the summary,
        // up to its cap (red team F5: a million ids once wrote 276 MB of log).
        let out = github(&many, &summary(), &ctx(true));
        assert!(left > PLAIN_CAP, "{left}");
        assert!(out.contains(&format!("; the job summary lists what fits in GitHub's 1 MiB, and the {left} it leaves out are listed below in plain form, the first 1000 of them; `--format json` carries all")), "{}", &out[..2000]);
        assert!(out.contains(&format!("error[BQ001 invalid-json]: {rows} {long}\n")));
        assert!(!out.contains(&format!("error[BQ001 invalid-json]: {} {long}\n", rows - 1)));
        assert!(out.contains(&format!("error[BQ001 invalid-json]: {} {long}\n", rows + PLAIN_CAP - 1)));
        assert_eq!(out.matches("error[BQ001 invalid-json]: ").count(), PLAIN_CAP);
        assert!(out.contains(&format!("\n… and {} more not listed here, so that the log keeps the verdict in sight: `--format json` carries every finding\n", left - PLAIN_CAP)));
        // Small ones are whole, with no such line.
        let md = markdown_summary(&sample(), &summary());
        assert!(!md.contains("left out"), "{md}");
    }
}
