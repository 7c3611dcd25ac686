//! Reading CHANGELOG.md the way the release gate does: the entry of one version, the sections it
//! names, the corrections it names.
//!
//! Invariants:
//! - An entry starts at a level-2 heading (`## `) whose first word, with an optional `[` … `]`
//!   around it, is the version, and ends before the next heading of level 1 or 2. The entry
//!   for `X.Y.Z-pre` (any pre-release) is `## X.Y.Z-pre`, else `## X.Y.Z`, the version it is
//!   becoming.
//! - An entry is a list of items: each list item (a line starting `- ` or `* `, with any
//!   indented lines after it) and each paragraph of other text. Names are code spans: the text
//!   between a pair of backticks, compared exactly.
//! - A section is named when any item has a code span equal to its name.
//! - A correction is named by an item that contains "correct" (any letter case: *Correction*,
//!   *corrects*, *corrected*), cites at least one ADR (`ADR-` and four digits) and has a code
//!   span naming it: the change's reference itself (`` `backoff.retry_republish/first-failure-first-tier` ``,
//!   `` `fixtures/x.json` ``), or a block or section prefix of it (`` `backoff.retry_republish` ``
//!   names every case id of the block; `` `backoff` `` names only the section's own fields).

use crate::suite::cites_adr;

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

    /// The item naming the correction with `reference`, as a [`super::Naming`].
    pub fn naming(&self, reference: &str) -> Option<super::Naming> {
        let covers =
            |span: &str| reference == span || reference.strip_prefix(span).is_some_and(|rest| rest.starts_with('/'));
        self.items
            .iter()
            .find(|i| {
                i.text.to_lowercase().contains("correct") && cites_adr(&i.text) && i.spans().into_iter().any(covers)
            })
            .map(|i| super::Naming { line: i.line, adrs: i.adrs() })
    }
}

/// The first word of a level-2 heading, without `[` `]`.
fn heading_version(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("## ")?.trim_start();
    let rest = rest.strip_prefix('[').unwrap_or(rest);
    rest.split(|c: char| c.is_whitespace() || c == ']').next().filter(|w| !w.is_empty())
}

/// The entry for `version` in CHANGELOG text, when it has one.
pub fn entry(text: &str, version: &str) -> Option<Entry> {
    let base = version.split_once('-').map(|(b, _)| b);
    let lines: Vec<&str> = text.lines().collect();
    let start = [Some(version), base]
        .into_iter()
        .flatten()
        .find_map(|v| lines.iter().position(|l| heading_version(l) == Some(v)))?;
    let mut items: Vec<Item> = Vec::new();
    let mut open = false;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if line.starts_with("# ") || line.starts_with("## ") {
            break;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            open = false;
            continue;
        }
        let bullet =
            ["- ", "* "].iter().any(|b| line.trim_start().starts_with(b)) && line.len() - line.trim_start().len() < 2;
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
    Some(Entry { heading: lines[start].trim_start_matches('#').trim().to_owned(), line: start + 1, items })
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
