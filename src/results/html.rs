//! The compatibility matrix as one self-contained HTML page.
//!
//! Invariants: the page loads nothing (inline CSS, no scripts, no images, no fonts, and a
//! Content-Security-Policy that forbids every fetch, a `<base>` and a form's submission); every string from an input file goes
//! through [`esc`]; the drill-down to failing and missing case ids uses `<details>`, so it works
//! without JavaScript.
//!
//! Accessibility (WCAG 2.1 AA; `tests/accessibility.rs` holds the page to it):
//! - One `h1`, then an `h2` per results file; the whole content is in `<main>`; `lang` is set.
//! - Every header cell is a `th` with its scope (`col` for a file's column, `row` for a section).
//! - A colour is never the only carrier of a standing: every coloured cell starts with a mark
//!   (✓ clean, ✗ a problem, ! a warning; [`MARKS`] under the table says so) and the words a
//!   screen reader says instead of it (visually hidden, the mark itself `aria-hidden`); a
//!   "suite run" of another version has its ✗ and says "(not suite X)"; a verdict is its words.
//! - Text colours, both in the light and the dark scheme, contrast at least 4.5:1 with every
//!   background they stand on; the page sets its own text and background colours in both.
//! - The table scrolls sideways in its own box, which the keyboard can reach (`tabindex="0"`,
//!   a named group), so the page itself never scrolls sideways at 320 CSS px; every focusable
//!   element shows a focus ring.
//! - Printed, the page is black on white whatever the scheme, the table is not cut off and every
//!   drill-down is printed open (`::details-content`, in browsers since 2025; an older one prints
//!   the summaries only).
//! - Scrolled sideways on a screen wider than 40rem, the section names stay in view (the first
//!   column sticks to the box's left edge, on an opaque background); narrower, nothing sticks, so
//!   the data keeps the box's width.

use std::fmt::Write as _;

use super::Verdict;
use super::report::{Cell, Column, LEGEND, Matrix, SectionFinding};

/// Escape text for HTML element content and quoted attribute values.
pub(super) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && !matches!(c, '\n' | '\t') => out.push('\u{FFFD}'),
            // Markup does not contain a bidi control's reordering; show it as the terminal does.
            c if crate::diag::is_invisible_layout(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #59636e;
  --ok-bg: #dafbe1; --bad-bg: #ffebe9; --warn-bg: #fff8c5; --line: #d0d7de; --head: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --ok-bg: #12361f; --bad-bg: #42181b; --warn-bg: #3a2e0b;
  --line: #30363d; --head: #161b22; --ok: #3fb950; --bad: #f85149; --warn: #d29922; --muted: #9198a1; } }
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2rem; color: var(--fg); background: var(--bg); }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
p.headline { color: var(--muted); margin: 0 0 1rem; }
.wrap { overflow-x: auto; position: relative; }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: .35rem .6rem; text-align: left; vertical-align: top; }
thead th { background: var(--head); }
th .ver { display: block; font-weight: normal; color: var(--muted); }
tbody th { white-space: nowrap; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
td.ok { background: var(--ok-bg); }
td.bad { background: var(--bad-bg); }
td.warn { background: var(--warn-bg); }
td.absent { color: var(--muted); text-align: center; }
td.idle { color: var(--muted); }
.verdict-ok { color: var(--ok); font-weight: 600; }
.verdict-bad { color: var(--bad); font-weight: 600; }
.mark { font-weight: 700; }
.vh { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip-path: inset(50%); white-space: nowrap; border: 0; }
:focus-visible { outline: 2px solid var(--fg); outline-offset: 2px; }
details summary { cursor: pointer; color: var(--muted); }
details ul { margin: .25rem 0 0; padding-left: 1.1rem; white-space: normal; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
p.legend { color: var(--muted); max-width: 60rem; }
@media (max-width: 40rem) { body { margin: 1rem; } }
@media screen and (min-width: 40rem) { tbody th, thead th:first-child { position: sticky; left: 0; z-index: 1; box-shadow: inset -1px 0 var(--line); }
  tbody th { background: var(--bg); } }
@media print { :root { color-scheme: light; --fg: #000; --bg: #fff; --muted: #333; --ok: #1a7f37; --bad: #cf222e; --line: #999;
  --ok-bg: #dafbe1; --bad-bg: #ffebe9; --warn-bg: #fff8c5; --head: #f6f8fa; }
  body { margin: 0; } .wrap { overflow: visible; } td.num { white-space: normal; }
  details::details-content { display: block; content-visibility: visible; } details > summary { list-style: none; } }
";

/// The mark of a cell whose colour says something, and the words a screen reader says for it:
/// the colour is never the only carrier of a cell's standing.
fn mark(class: &str) -> Option<(&'static str, &'static str)> {
    let has = |c: &str| class.split(' ').any(|w| w == c);
    if has("bad") {
        Some(("✗", "problem"))
    } else if has("warn") {
        Some(("!", "warning"))
    } else if has("ok") {
        Some(("✓", "clean"))
    } else {
        None
    }
}

/// What the marks mean, under the table.
const MARKS: &str = "✓ clean; ✗ a problem; ! a warning (the cell's words say which).";

fn verdict(v: Verdict) -> String {
    let class = if v == Verdict::Compatible { "verdict-ok" } else { "verdict-bad" };
    format!("<span class=\"{class}\">{v}</span>")
}

fn opt(s: Option<&str>) -> String {
    s.map_or_else(|| "?".to_owned(), esc)
}

fn td_class(cell: &Cell) -> &'static str {
    match cell {
        Cell::NotCarried | Cell::Excepted { .. } => "absent",
        Cell::NotChecked { counts: None, .. } => "absent warn",
        Cell::NotChecked { counts: Some(_), .. } => "num warn",
        Cell::Missing => "bad",
        Cell::NotJudged { counts: None, .. } => "absent warn",
        Cell::NotJudged { counts: Some(_), .. } => "num warn",
        Cell::Others { sections } if sections.is_empty() => "absent",
        Cell::Others { sections } if sections.iter().all(|(_, c)| matches!(c, Cell::NotChecked { .. })) => "num warn",
        Cell::Others { sections } => {
            if sections.iter().all(|(_, c)| td_class(c) != "num bad") {
                "num warn"
            } else {
                "num bad"
            }
        }
        Cell::Reported { counts, policy_skips, missing, unknown, no_status, out_of_scope, findings, .. } => {
            if counts.fail > 0
                || !missing.is_empty()
                || !unknown.is_empty()
                || !no_status.is_empty()
                || !findings.is_empty()
                || *policy_skips < counts.skip
            {
                "num bad"
            } else if *out_of_scope {
                "num warn"
            } else if counts.pass + counts.fail == 0 && counts.skip > 0 {
                // Clean, but nothing of it ran: not the green of a section that passed.
                "num idle"
            } else {
                "num ok"
            }
        }
    }
}

/// A name or id as code, escaped; an empty one as "(empty)", as the Markdown says it (an empty
/// code element shows nothing at all).
fn code(s: &str) -> String {
    if s.is_empty() { "(empty)".to_owned() } else { format!("<code>{}</code>", esc(s)) }
}

fn td(out: &mut String, cell: &Cell) {
    let class = td_class(cell);
    let _ = write!(out, "<td class=\"{class}\">");
    if let Some((symbol, words)) = mark(class) {
        let _ = write!(
            out,
            "<span class=\"mark\" aria-hidden=\"true\">{symbol} </span><span class=\"vh\">{words}: </span>"
        );
    }
    out.push_str(&esc(&cell.summary()));
    details(out, cell);
    out.push_str("</td>");
}

/// The drill-downs of one cell (of each section in it, for the row of the sections the suite
/// does not have).
fn details(out: &mut String, cell: &Cell) {
    let failing = cell.failing();
    if !failing.is_empty() {
        let _ = write!(out, "<details><summary>{} failing</summary><ul>", failing.len());
        for (id, reason) in failing {
            let _ = write!(out, "<li>{}", code(id));
            if let Some(r) = reason {
                let _ = write!(out, ": {}", esc(r));
            }
            out.push_str("</li>");
        }
        out.push_str("</ul></details>");
    }
    if let Cell::Reported { missing, unknown, no_status, findings, .. } = cell {
        for (ids, what) in [(missing, "missing"), (unknown, "unknown"), (no_status, "without a status")] {
            if !ids.is_empty() {
                let _ = write!(out, "<details><summary>{} {what}</summary><ul>", ids.len());
                for id in ids {
                    let _ = write!(out, "<li>{}</li>", code(id));
                }
                out.push_str("</ul></details>");
            }
        }
        finding_details(out, findings);
    }
    if let Cell::NotJudged { findings, .. } = cell {
        finding_details(out, findings);
    }
    if let Cell::Others { sections } = cell
        && !sections.is_empty()
    {
        let _ = write!(out, "<details><summary>{} sections</summary><ul>", sections.len());
        for (name, c) in sections {
            let _ = write!(out, "<li>{}: {}", code(name), esc(&c.summary()));
            details(out, c);
            out.push_str("</li>");
        }
        out.push_str("</ul></details>");
    }
}

/// The drill-downs of a cell's findings: refused skips, then the rest.
fn finding_details(out: &mut String, findings: &[SectionFinding]) {
    let (refused, more): (Vec<_>, Vec<_>) = findings.iter().partition(|f| f.is_a_refused_skip());
    for (list, noun, tail) in [(refused, "skip", " not allowed"), (more, "more finding", "")] {
        if list.is_empty() {
            continue;
        }
        let n = list.len();
        let _ = write!(out, "<details><summary>{n} {noun}{}{tail}</summary><ul>", if n == 1 { "" } else { "s" });
        for f in list {
            let at = match f.place() {
                None => "(whole section)".to_owned(),
                Some((case, rest)) if rest.is_empty() => code(&case),
                Some((case, rest)) => format!("{} at {}", code(&case), code(&rest)),
            };
            let _ = write!(out, "<li>{at}: {}: {}</li>", f.code, esc(&f.message));
        }
        out.push_str("</ul></details>");
    }
}

fn meta_row(out: &mut String, label: &str, columns: &[Column], f: impl Fn(&Column) -> String) {
    let _ = write!(out, "<tr class=\"meta\"><th scope=\"row\">{label}</th><td></td>");
    for c in columns {
        let _ = write!(out, "<td>{}</td>", f(c));
    }
    out.push_str("</tr>\n");
}

pub(super) fn render(m: &Matrix) -> String {
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>BabelQueue conformance: compatibility (suite {})</title>", esc(&m.suite_version));
    let _ = writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>\n<main>");
    out.push_str("<h1>BabelQueue conformance: compatibility</h1>\n");
    let _ = writeln!(out, "<p class=\"headline\">{}</p>", esc(&m.headline()));
    // The table scrolls in its own box, which the keyboard can reach.
    out.push_str("<div class=\"wrap\" role=\"group\" tabindex=\"0\" aria-label=\"compatibility matrix\"><table class=\"matrix\">\n<thead><tr><th scope=\"col\">section</th><th scope=\"col\">scope</th>");
    for c in &m.columns {
        let _ = write!(
            out,
            "<th scope=\"col\" title=\"{}\"><span class=\"sdk\">{}</span> <span class=\"ver\">{}</span></th>",
            esc(&c.file),
            esc(&c.sdk),
            opt(c.version.as_deref())
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    meta_row(&mut out, "verdict", &m.columns, |c| verdict(c.verdict));
    meta_row(&mut out, "suite run", &m.columns, |c| {
        let v = opt(c.conformance_version.as_deref());
        if c.conformance_version.as_deref() == Some(m.suite_version.as_str()) {
            v
        } else {
            format!(
                "<span class=\"verdict-bad\"><span class=\"mark\" aria-hidden=\"true\">✗ </span>{v}<span class=\"vh\"> (not suite {})</span></span>",
                esc(&m.suite_version)
            )
        }
    });
    meta_row(&mut out, "file", &m.columns, |c| format!("<code>{}</code>", esc(&c.file)));
    meta_row(&mut out, "family", &m.columns, |c| c.family.as_deref().map_or_else(|| "—".to_owned(), esc));
    meta_row(&mut out, "counts", &m.columns, |c| esc(&c.counts_text()));
    for r in &m.rows {
        let _ = write!(
            out,
            "<tr><th scope=\"row\">{}</th><td>{}</td>",
            if r.scope.is_some() { format!("<code>{}</code>", esc(&r.section)) } else { esc(&r.section) },
            r.scope.map_or("unknown", |s| s.as_str())
        );
        for cell in &r.cells {
            td(&mut out, cell);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    let _ = writeln!(out, "<p class=\"legend\">{MARKS} {}</p>", esc(LEGEND));
    for c in &m.columns {
        let _ = writeln!(
            out,
            "<h2>{} {}: {}</h2>\n<p>File <code>{}</code>: {}.{}</p>",
            esc(&c.sdk),
            opt(c.version.as_deref()),
            verdict(c.verdict),
            esc(&c.file),
            esc(&c.counts_text()),
            if c.reasons.is_empty() { String::new() } else { format!(" Reasons: {}.", esc(&c.reasons.join(", "))) }
        );
        if !c.findings.is_empty() {
            out.push_str("<ul class=\"file-findings\">");
            for f in &c.findings {
                let at = f.at.as_deref().map_or_else(|| "(whole file)".to_owned(), code);
                let _ = write!(out, "<li>{at}: {}: {}</li>", f.code, esc(&f.message));
            }
            out.push_str("</ul>\n");
        }
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

impl Matrix {
    /// The self-contained HTML page. (The renderers extend the matrix, so the matrix does not import them.)
    pub fn html(&self) -> String {
        render(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_markup_character() {
        assert_eq!(esc("<b a=\"1\" b='2'>&amp;</b>"), "&lt;b a=&quot;1&quot; b=&#39;2&#39;&gt;&amp;amp;&lt;/b&gt;");
        assert_eq!(esc("a\u{0}b"), "a\u{FFFD}b");
        assert_eq!(esc("a\u{202e}b\u{2028}"), "a\\u202eb\\u2028");
    }
}
