//! Writing Markdown: code spans, table cells, JSON values in short, heading slugs, relative links.
//!
//! Invariants: every text taken from the suite goes into a page through [`code`] or [`cell`]
//! (or a fenced block), so no manifest string can open a link, a heading or raw HTML; table
//! cells never hold a raw `|` or a line break; [`slug`] is GitHub's heading-anchor rule, used
//! for the links the pages write and for the ids the HTML gives its headings, so one link works
//! on GitHub and in the HTML rendering alike.

use std::fmt::Write as _;

use serde_json::Value;

/// `text` as an inline code span, invisible characters escaped: control and invisible
/// characters as `\u{XXXX}` ([`crate::diag::visible`], the one notation of the pages, `explain`
/// and a failing case's reason), every other character, a backslash included, itself, so a
/// backslash not followed by `u{` is a backslash of the text (the suite holds no `\u{`).
pub fn code(text: &str) -> String {
    crate::diag::explain::code_span(&crate::diag::visible(text))
}

/// Make Markdown safe inside a table cell: `|` escaped, line breaks as spaces.
pub fn cell(markdown: &str) -> String {
    markdown.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// Plain prose from the suite (a description) made safe as Markdown text: characters that
/// would start markup are escaped, and so are those that would start a heading, a list, a quote
/// or a thematic break at the start of a line; a line's leading whitespace (which could open a
/// code block) is dropped.
pub fn prose(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    text.split('\n').map(prose_line).collect::<Vec<_>>().join("\n")
}

/// One line of [`prose`].
fn prose_line(line: &str) -> String {
    let chars: Vec<char> = line.trim_start().chars().collect();
    // A leading ordered-list marker: digits, then `.` or `)` and a space (or the end).
    let digits = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    let list_marker = (1..=9).contains(&digits)
        && matches!(chars.get(digits), Some('.' | ')'))
        && chars.get(digits + 1).is_none_or(|c| c.is_whitespace());
    let mut out = String::with_capacity(line.len());
    for (i, &c) in chars.iter().enumerate() {
        let word = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphanumeric());
        let intraword = word(i.checked_sub(1)) && word(Some(i + 1));
        let special = match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '|' | '~' | '&' => true,
            '_' => !intraword,
            '#' | '>' | '-' | '+' | '=' => i == 0,
            '.' | ')' => list_marker && i == digits,
            _ => false,
        };
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A JSON value in short: [`full`], cut to `max` characters with `…`. Not yet a code span.
pub fn short(v: &Value, max: usize) -> String {
    cut(&full(v), max)
}

/// A JSON value in full: strings as their text (empty: `""`), anything else as compact JSON.
/// Not yet a code span.
pub fn full(v: &Value) -> String {
    match v {
        Value::String(s) if s.is_empty() => "\"\"".to_owned(),
        Value::String(s) => s.clone(),
        other => compact(other),
    }
}

/// Compact JSON with a space after `,` and `:` (readable, still valid JSON).
pub fn compact(v: &Value) -> String {
    match v {
        Value::Array(items) => format!("[{}]", items.iter().map(compact).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), compact(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// `text` cut to `max` characters, `…` marking the cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max { text.to_owned() } else { text.chars().take(max - 1).collect::<String>() + "…" }
}

/// GitHub's anchor for a heading: lowercase, markup and punctuation other than `-` and `_`
/// removed, spaces as `-`.
pub fn slug(heading: &str) -> String {
    let mut out = String::new();
    for c in heading.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else if c == ' ' {
            out.push('-');
        }
    }
    out
}

/// The ids of a page's headings, in order, as GitHub gives them: the [`slug`] of each heading's
/// plain text, a repeat numbered `-1`, `-2`, … (the HTML rendering gives its headings these ids).
#[derive(Debug, Default)]
pub struct HeadingIds {
    seen: std::collections::BTreeMap<String, usize>,
}

impl HeadingIds {
    /// The id of the next heading, whose plain text is `plain`.
    pub fn next(&mut self, plain: &str) -> String {
        let base = slug(plain);
        let n = self.seen.entry(base.clone()).or_insert(0);
        let id = if *n == 0 { base } else { format!("{base}-{n}") };
        *n += 1;
        id
    }
}

/// The relative link from the page at `from` to the repository path `to` (both relative to the
/// repository root, `/`-separated).
pub fn relative(from: &str, to: &str) -> String {
    let from_dir: Vec<&str> =
        from.split('/').collect::<Vec<_>>().split_last().map(|(_, d)| d.to_vec()).unwrap_or_default();
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_dir.iter().zip(&to_parts).take_while(|(a, b)| a == b).count();
    let ups = from_dir.len() - common;
    let mut parts: Vec<&str> = std::iter::repeat_n("..", ups).collect();
    parts.extend(&to_parts[common..]);
    parts.join("/")
}

/// A Markdown table: a header row and body rows (cells already Markdown, made [`cell`]-safe here).
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(out, "|{}|", head.iter().map(|_| "---").collect::<Vec<_>>().join("|"));
    for r in rows {
        let _ = writeln!(out, "| {} |", r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn slugs_follow_github() {
        assert_eq!(slug("The skip policy"), "the-skip-policy");
        assert_eq!(slug("`run --sdk` and `adapter`: any SDK"), "run---sdk-and-adapter-any-sdk");
        assert_eq!(slug("BQ612"), "bq612");
        assert_eq!(slug("1.6.0"), "160");
    }

    #[test]
    fn relative_links_climb_and_descend() {
        assert_eq!(relative("docs/sections/kafka_poison.md", "fixtures/x.json"), "../../fixtures/x.json");
        assert_eq!(relative("docs/sections/a.md", "docs/sections/b.md"), "b.md");
        assert_eq!(relative("README.md", "docs/codes.md"), "docs/codes.md");
        assert_eq!(relative("docs/codes.md", "README.md"), "../README.md");
    }

    #[test]
    fn values_in_short_and_in_code() {
        assert_eq!(short(&json!("{\"job\":5}"), 80), "{\"job\":5}");
        assert_eq!(short(&json!(""), 80), "\"\"");
        assert_eq!(short(&json!({"a": [1, null]}), 80), "{\"a\": [1, null]}");
        assert_eq!(short(&json!("abcdef"), 4), "abc…");
        assert_eq!(code("\u{feff}{} \n\\ud800"), "`\\u{feff}{} \\u{000a}\\ud800`");
        assert_eq!(cell("`a|b`\nc"), "`a\\|b` c");
        assert_eq!(prose("a *b* [c](d) <e> expect_preserved _x"), "a \\*b\\* \\[c\\](d) \\<e> expect_preserved \\_x");
        // No line of a description starts markup, and an entity is its characters.
        assert_eq!(prose("a\n## h\n- l\r\n1. o\r  =="), "a\n\\## h\n\\- l\n1\\. o\n\\==");
        assert_eq!(prose("- l"), "\\- l");
        assert_eq!(prose("+ l"), "\\+ l");
        assert_eq!(prose("---"), "\\---");
        assert_eq!(prose("12) o"), "12\\) o");
        assert_eq!(prose("1.6.0: x"), "1.6.0: x");
        assert_eq!(prose("    code"), "code");
        assert_eq!(prose("&lt;script&gt; &amp;"), "\\&lt;script\\&gt; \\&amp;");
    }
}
