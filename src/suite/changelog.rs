//! Reading CHANGELOG.md, the one reader of it: the entry of one version (what `validate`
//! requires for `CONFORMANCE_VERSION`, what the release notes print), the sections it names and
//! the corrections it names (what the release gate reads).
//!
//! Invariants:
//! - An entry starts at a level-2 heading (`## `) whose first word, with an optional `[` … `]`
//!   around it, is the version, and ends before the next heading of level 1 or 2. The entry
//!   for `X.Y.Z-pre` (any pre-release) is `## X.Y.Z-pre`, else `## X.Y.Z`, the version it is
//!   becoming. When two headings name the version (two branches each added one), the entry
//!   is both, items in file order: the gate reads everything the file says about the version.
//! - A fenced code block (a line starting with up to three spaces and then three or more
//!   backticks or tildes, to its closing fence of the same character, at least as long; or to
//!   the end of the file) is an example, not the changelog: a heading inside one neither
//!   starts nor ends an entry, and its lines are no item.
//! - An entry is a list of items: each list item (a line starting `- ` or `* `, with any
//!   indented lines after it) and each paragraph of other text. Names are code spans: the text
//!   between a pair of backticks, compared exactly.
//! - A section is named when any item has a code span equal to its name.
//! - A correction is named by an item that contains "correct" (any letter case: *Correction*,
//!   *corrects*, *corrected*), cites at least one ADR (`ADR-` and four digits) and has a code
//!   span naming it: the change's reference itself (`` `backoff.retry_republish/first-failure-first-tier` ``,
//!   `` `fixtures/x.json` ``), or a block or section prefix of it (`` `backoff.retry_republish` ``
//!   names every case id of the block; `` `backoff` `` names only the section's own fields).

use serde::Serialize;

use super::cites_adr;

/// The CHANGELOG item that names a correction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Naming {
    /// 1-based line of the item in CHANGELOG.md.
    pub line: usize,
    /// The ADRs the item cites.
    pub adrs: Vec<String>,
}

/// One item of an entry: its first line (1-based) and its text, lines joined by spaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub line: usize,
    pub text: String,
}

impl Item {
    /// The item's code spans.
    pub fn spans(&self) -> Vec<&str> {
        self.text.split('`').skip(1).step_by(2).collect()
    }

    /// Every `ADR-NNNN` the item cites, in order, once each.
    pub fn adrs(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (i, _) in self.text.match_indices("ADR-") {
            let adr = self.text.get(i..i + 8).filter(|a| cites_adr(a)).map(str::to_owned);
            if let Some(a) = adr.filter(|a| !out.contains(a)) {
                out.push(a);
            }
        }
        out
    }
}

/// The entry of one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The heading line without `## `.
    pub heading: String,
    /// 1-based line of the heading.
    pub line: usize,
    pub items: Vec<Item>,
}

impl Entry {
    /// Does the entry name section `name`?
    pub fn names_section(&self, name: &str) -> bool {
        self.items.iter().any(|i| i.spans().contains(&name))
    }

    /// The item naming the correction with `reference`, as a [`Naming`].
    pub fn naming(&self, reference: &str) -> Option<Naming> {
        let covers =
            |span: &str| reference == span || reference.strip_prefix(span).is_some_and(|rest| rest.starts_with('/'));
        self.items
            .iter()
            .find(|i| {
                i.text.to_lowercase().contains("correct") && cites_adr(&i.text) && i.spans().into_iter().any(covers)
            })
            .map(|i| Naming { line: i.line, adrs: i.adrs() })
    }
}

/// The first word of a level-2 heading, without `[` `]`.
fn heading_version(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("## ")?.trim_start();
    let rest = rest.strip_prefix('[').unwrap_or(rest);
    rest.split(|c: char| c.is_whitespace() || c == ']').next().filter(|w| !w.is_empty())
}

/// The opening or closing fence a line is, as (its character, its length), when it is one.
fn fence(line: &str) -> Option<(u8, usize)> {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return None;
    }
    let c = *rest.as_bytes().first().filter(|c| matches!(c, b'`' | b'~'))?;
    let n = rest.bytes().take_while(|b| *b == c).count();
    (n >= 3).then_some((c, n))
}

/// Each line of `text` with whether it lies in a fenced code block (fences included).
fn lines_outside_fences(text: &str) -> Vec<(&str, bool)> {
    let mut open: Option<(u8, usize)> = None;
    text.lines()
        .map(|line| {
            let f = fence(line);
            match (open, f) {
                (None, Some(f)) => {
                    open = Some(f);
                    (line, true)
                }
                (Some((c, n)), Some((c2, n2))) if c == c2 && n2 >= n && line.trim().len() == n2 => {
                    open = None;
                    (line, true)
                }
                (Some(_), _) => (line, true),
                (None, None) => (line, false),
            }
        })
        .collect()
}

/// The first word of every level-2 heading outside fenced blocks, in file order (what
/// [`entry`] can be asked for).
pub fn headings(text: &str) -> Vec<&str> {
    lines_outside_fences(text)
        .into_iter()
        .filter(|(_, fenced)| !fenced)
        .filter_map(|(l, _)| heading_version(l))
        .collect()
}

/// The heading lines (0-based) of the entry for `version`: every heading naming it, else every
/// heading naming the version a pre-release becomes; empty when there is none.
fn entry_starts(lines: &[(&str, bool)], version: &str) -> Vec<usize> {
    let base = version.split_once('-').map(|(b, _)| b);
    let heading = |v: &str| -> Vec<usize> {
        lines
            .iter()
            .enumerate()
            .filter(|(_, (l, fenced))| !fenced && heading_version(l) == Some(v))
            .map(|(i, _)| i)
            .collect()
    };
    [Some(version), base].into_iter().flatten().map(heading).find(|s| !s.is_empty()).unwrap_or_default()
}

/// The lines after the heading at `start` up to the next level-1 or level-2 heading outside a
/// fence, as (0-based line, text, fenced).
fn body<'a>(lines: &'a [(&'a str, bool)], start: usize) -> impl Iterator<Item = (usize, &'a str, bool)> + 'a {
    lines
        .iter()
        .enumerate()
        .skip(start + 1)
        .take_while(|(_, (l, fenced))| *fenced || !(l.starts_with("# ") || l.starts_with("## ")))
        .map(|(i, (l, fenced))| (i, *l, *fenced))
}

/// The text of the entry for `version` as written, for release notes: the lines under each of
/// its headings (the headings themselves left out), in file order, fenced blocks included,
/// line endings as `\n`; `None` when there is no entry or it holds nothing but white space.
pub fn entry_text(text: &str, version: &str) -> Option<String> {
    let lines = lines_outside_fences(text);
    let mut out = String::new();
    for start in entry_starts(&lines, version) {
        for (_, line, _) in body(&lines, start) {
            out.push_str(line);
            out.push('\n');
        }
    }
    (!out.trim().is_empty()).then_some(out)
}

/// The entry for `version` in CHANGELOG text, when it has one.
pub fn entry(text: &str, version: &str) -> Option<Entry> {
    let lines = lines_outside_fences(text);
    let starts = entry_starts(&lines, version);
    let first = *starts.first()?;
    let mut items: Vec<Item> = Vec::new();
    for &start in &starts {
        let mut open = false;
        for (i, line, fenced) in body(&lines, start) {
            if fenced {
                open = false;
                continue;
            }
            let trimmed = line.trim();
            if trimmed.is_empty() {
                open = false;
                continue;
            }
            let bullet = ["- ", "* "].iter().any(|b| line.trim_start().starts_with(b))
                && line.len() - line.trim_start().len() < 2;
            match items.last_mut() {
                Some(item) if open && !bullet => {
                    item.text.push(' ');
                    item.text.push_str(trimmed);
                }
                _ => {
                    items.push(Item { line: i + 1, text: trimmed.to_owned() });
                    open = true;
                }
            }
        }
    }
    Some(Entry { heading: lines[first].0.trim_start_matches('#').trim().to_owned(), line: first + 1, items })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# Changelog\n\nIntro.\n\n## [1.6.0] - 2026-01-01\n\nADR-0034.\n\n\
        - New sections: `redis_delay` (redis) and\n  `poison_dlq` (core).\n\
        - Correction (ADR-0034): `backoff.retry_republish` now follows\n  the tier rule.\n\
        - Corrects `cases.order-created`, see ADR-0099 and ADR-0034.\n\
        - Fixes `kafka.attempts_reconciliation/x` (ADR-0001).\n\
        - Correction: `trim.t1` (no ADR).\n\n## 1.5.0\n\n- `trim`\n";

    #[test]
    fn finds_the_entry_and_its_items() {
        let e = entry(TEXT, "1.6.0").unwrap();
        assert_eq!(e.heading, "[1.6.0] - 2026-01-01");
        assert_eq!(e.line, 5);
        assert_eq!(e.items.len(), 6);
        assert_eq!(e.items[1].text, "- New sections: `redis_delay` (redis) and `poison_dlq` (core).");
        assert_eq!(e.items[2].line, 11);
        assert!(e.names_section("redis_delay") && e.names_section("poison_dlq"));
        assert!(!e.names_section("trim"), "a later entry does not count");
        assert!(entry(TEXT, "1.7.0").is_none());
        assert_eq!(entry(TEXT, "1.6.0-pre").unwrap().line, 5, "a pre-release reads the entry it becomes");
        assert_eq!(entry(TEXT, "1.5.0").unwrap().items.len(), 1);
    }

    #[test]
    fn a_heading_in_a_fenced_block_is_an_example() {
        let text = "# Changelog\n\n## 1.7.0\n\n- `a` added.\n\n```md\n## 1.6.0\n- `fenced`\n```\n\n- `b` added.\n\n\
            ~~~~\n## 1.8.0\n~~~\n~~~~\n\n## 1.6.0\n\n- `c`\n";
        let e = entry(text, "1.7.0").unwrap();
        let texts: Vec<&str> = e.items.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(texts, ["- `a` added.", "- `b` added."], "the fence neither ends the entry nor adds items");
        assert_eq!(entry(text, "1.6.0").unwrap().line, 19, "the real heading, not the fenced one");
        assert!(entry(text, "1.8.0").is_none(), "a heading inside a longer fence is fenced too");
        let unclosed = "## 1.7.0\n\n- `a`\n\n```\n## 1.6.0\n- `b`\n";
        assert!(entry(unclosed, "1.6.0").is_none(), "an unclosed fence runs to the end of the file");
        assert_eq!(entry(unclosed, "1.7.0").unwrap().items.len(), 1);
        assert!(entry("    ```\n## 1.6.0\n", "1.6.0").is_some(), "four spaces make no fence");
        assert_eq!(headings(text), ["1.7.0", "1.6.0"]);
    }

    #[test]
    fn the_entry_as_written_is_what_the_gate_reads() {
        let text = "## [1.7.0] - 2026-12-04\r\n\r\n- `a`\r\n\r\n```\r\n## 1.6.0\r\n```\r\n## 1.6.0\r\n- `old`\r\n## 1.7.0\r\n- `b`\r\n";
        assert_eq!(entry_text(text, "1.7.0").as_deref(), Some("\n- `a`\n\n```\n## 1.6.0\n```\n- `b`\n"));
        assert_eq!(entry_text(text, "1.7.0-rc.1"), entry_text(text, "1.7.0"), "the entry a candidate becomes");
        assert_eq!(entry_text(text, "1.6.0").as_deref(), Some("- `old`\n"));
        assert_eq!(entry_text("## 1.8.0\n\n## 1.7.0\n- x\n", "1.8.0"), None, "an empty entry is none");
        assert_eq!(entry_text(text, "1.5.0"), None);
    }

    #[test]
    fn two_headings_for_one_version_are_one_entry() {
        let text = "## 1.7.0\n\n- `a`\n\n## 1.6.0\n\n- `old`\n\n## [1.7.0]\n\n- `b`, corrected (ADR-0034)\n";
        let e = entry(text, "1.7.0").unwrap();
        assert_eq!((e.line, e.heading.as_str()), (1, "1.7.0"));
        assert!(e.names_section("a") && e.names_section("b") && !e.names_section("old"));
        assert_eq!(e.naming("b").unwrap().line, 11);
    }

    #[test]
    fn names_corrections_by_case_id_or_block_with_an_adr() {
        let e = entry(TEXT, "1.6.0").unwrap();
        let n = e.naming("backoff.retry_republish/first-failure-first-tier").unwrap();
        assert_eq!((n.line, n.adrs), (11, vec!["ADR-0034".to_owned()]));
        assert!(e.naming("backoff.retry_republish").is_some(), "the block's own fields");
        assert!(e.naming("backoff.retry_republish_other/x").is_none(), "a prefix must end at / or .");
        assert_eq!(e.naming("cases.order-created").unwrap().adrs, ["ADR-0099", "ADR-0034"]);
        assert!(e.naming("kafka.attempts_reconciliation/x").is_none(), "no 'correct' in the item");
        assert!(e.naming("trim.t1").is_none(), "no ADR in the item");
        assert!(e.naming("backoff.requested_delay/x").is_none());
    }
}
