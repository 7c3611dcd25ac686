//! Reading CHANGELOG.md, the one reader of it: the entry of one version (what `validate`
//! requires for `CONFORMANCE_VERSION`, what the release notes print), the sections it names and
//! the corrections it names (what the release gate reads).
//!
//! Invariants:
//! - An entry starts at a level-2 heading (`## `) whose first word, with an optional `[` … `]`
//!   around it, is the version, and ends before the next heading of level 1 or 2. The entry
//!   for `X.Y.Z-pre` (any pre-release) is `## X.Y.Z-pre`, else `## X.Y.Z`, the version it is
//!   becoming. Build metadata (`X.Y.Z+build.1`) is ignored, as SemVer precedence ignores it:
//!   `## X.Y.Z+build.1` if there is one, else the entry of `X.Y.Z`. When two headings name the version (two branches each added one), the entry
//!   is both, items in file order: the gate reads everything the file says about the version.
//! - A fenced code block (a line starting with up to three spaces and then three or more
//!   backticks or tildes, to its closing fence of the same character, at least as long; or to
//!   the end of the file) is an example, not the changelog: a heading inside one neither
//!   starts nor ends an entry, and its lines are no item.
//! - An entry is a list of items: each list item (a line starting `- ` or `* `, with any
//!   indented lines after it) and each paragraph of other text. HTML comments (`<!--` to
//!   `-->`, across lines too) are not read: they are invisible in the rendered CHANGELOG, so
//!   they neither name nor state anything. Names are code spans: the text between a pair of
//!   backticks, compared exactly.
//! - An item *states* something by a word (letters and digits; code spans and punctuation
//!   separate words), compared without letter case, that is not negated: no negation (*no*,
//!   *not*, *nothing*, *none*, *never*, *neither*, *nor*, *without*, *cannot*, a word ending in
//!   *n't*) comes before it in its clause (a clause ends at `.` `;` `:` `!` `?` `(` `)` `[`
//!   `]` or a dash `—`, not at a comma), and the first word after it is no negation either
//!   ("Correction: none"). A false "not stated" costs a MAJOR the gate asks about; a false
//!   "stated" would let an unnamed correction through, so the rule errs on the first side.
//! - A section is named when an item that states an addition (*new*, *add*, *adds*, *added*,
//!   *gains*, *introduces*, *introduced*) has a code span equal to its name.
//! - A correction is named by an item that states a correction (*correction*, *corrections*,
//!   *corrects*, *corrected*: not *correct*, *correctly* or *incorrect*, which say nothing was
//!   changed), cites at least one ADR (`ADR-` and four digits) and has a code span naming it:
//!   the change's reference itself
//!   (`` `backoff.retry_republish/first-failure-first-tier` ``, `` `fixtures/x.json` ``), or a
//!   block or section prefix of it (`` `backoff.retry_republish` `` names every case id of the
//!   block; `` `backoff` `` names only the section's own fields).

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

/// The words that state a correction.
const CORRECTION: [&str; 4] = ["correction", "corrections", "corrects", "corrected"];

/// The words that state an addition.
const ADDITION: [&str; 7] = ["new", "add", "adds", "added", "gains", "introduces", "introduced"];

/// The words that negate a statement (besides any word ending in n't).
const NEGATIONS: [&str; 9] = ["no", "not", "nothing", "none", "never", "neither", "nor", "without", "cannot"];

/// A piece of an item's prose: a word (lowercase; a code span is the word `` ` ``), or the end
/// of a clause.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Break,
}

/// The item's prose as words and clause ends (the rules of the module doc).
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for (i, piece) in text.split('`').enumerate() {
        if i % 2 == 1 {
            out.push(Token::Word("`".into()));
            continue;
        }
        let mut word = String::new();
        for ch in piece.chars() {
            if ch.is_alphanumeric() || ((ch == '\'' || ch == '’') && !word.is_empty()) {
                word.extend(ch.to_lowercase());
                continue;
            }
            if !word.is_empty() {
                out.push(Token::Word(std::mem::take(&mut word)));
            }
            if matches!(ch, '.' | ';' | ':' | '!' | '?' | '(' | ')' | '[' | ']' | '—') {
                out.push(Token::Break);
            }
        }
        if !word.is_empty() {
            out.push(Token::Word(word));
        }
    }
    out
}

fn is_negation(word: &str) -> bool {
    NEGATIONS.contains(&word) || word.ends_with("n't") || word.ends_with("n’t")
}

/// Does `text` state one of `words`, not negated?
fn states(text: &str, words: &[&str]) -> bool {
    fn word(t: &Token) -> Option<&str> {
        match t {
            Token::Word(w) => Some(w.as_str()),
            Token::Break => None,
        }
    }
    let tokens = tokens(text);
    tokens.iter().enumerate().any(|(i, t)| {
        if !word(t).is_some_and(|w| words.contains(&w)) {
            return false;
        }
        let before = tokens[..i].iter().rev().map_while(word).any(is_negation);
        let after = tokens[i + 1..].iter().find_map(word).is_some_and(is_negation);
        !before && !after
    })
}

/// `line` without its HTML comments; `open` says whether a comment is open where it starts,
/// and is left saying whether one is open where it ends.
fn without_comments(line: &str, open: &mut bool) -> String {
    let mut out = String::new();
    let mut rest = line;
    loop {
        if *open {
            match rest.find("-->") {
                Some(i) => {
                    rest = &rest[i + 3..];
                    *open = false;
                }
                None => return out,
            }
        }
        match rest.find("<!--") {
            Some(i) => {
                out.push_str(&rest[..i]);
                rest = &rest[i + 4..];
                *open = true;
            }
            None => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

impl Item {
    /// Does the item state a correction (the rules of the module doc)?
    pub fn states_correction(&self) -> bool {
        states(&self.text, &CORRECTION)
    }

    /// Does the item state an addition?
    pub fn states_addition(&self) -> bool {
        states(&self.text, &ADDITION)
    }

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
    /// Does the entry name section `name` (in an item that states an addition)?
    pub fn names_section(&self, name: &str) -> bool {
        self.items.iter().any(|i| i.spans().contains(&name) && i.states_addition())
    }

    /// The item naming the correction with `reference`, as a [`Naming`].
    pub fn naming(&self, reference: &str) -> Option<Naming> {
        self.items
            .iter()
            .find(|i| {
                i.states_correction()
                    && cites_adr(&i.text)
                    && i.spans().into_iter().any(|span| super::pointer::at_or_under(reference, span))
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
    // Build metadata first (it may hold a `-`), as SemVer precedence ignores it; then the
    // pre-release part.
    let release = version.split_once('+').map(|(r, _)| r);
    let base = release.unwrap_or(version).split_once('-').map(|(b, _)| b);
    let heading = |v: &str| -> Vec<usize> {
        lines
            .iter()
            .enumerate()
            .filter(|(_, (l, fenced))| !fenced && heading_version(l) == Some(v))
            .map(|(i, _)| i)
            .collect()
    };
    [Some(version), release, base].into_iter().flatten().map(heading).find(|s| !s.is_empty()).unwrap_or_default()
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
        let mut comment = false;
        for (i, line, fenced) in body(&lines, start) {
            if fenced {
                open = false;
                continue;
            }
            let line = without_comments(line, &mut comment);
            let line = line.as_str();
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
        assert_eq!(entry(TEXT, "1.6.0+build.1").unwrap().line, 5, "build metadata is ignored");
        assert_eq!(entry(TEXT, "1.6.0-rc.1+build-7").unwrap().line, 5);
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
        let text =
            "## 1.7.0\n\n- New `a`\n\n## 1.6.0\n\n- New `old`\n\n## [1.7.0]\n\n- New `b`, corrected (ADR-0034)\n";
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

    /// Items that only look like corrections: "correct" as a substring, a negated statement,
    /// an HTML comment (invisible when rendered). Each would turn an unnamed correction (MAJOR)
    /// into a named one (MINOR).
    #[test]
    fn a_correction_is_stated_as_a_word_not_negated_and_not_in_a_comment() {
        let named = |item: &str| {
            let e = entry(&format!("## 1.7.0\n\n{item}\n\n- Other.\n"), "1.7.0").unwrap();
            e.naming("cases.order-created").is_some()
        };
        for yes in [
            "- Correction (ADR-0034 §9): `cases.order-created` now follows the rule.",
            "- Corrects `cases.order-created` (ADR-0034).",
            "- `cases.order-created` is corrected: it contradicted §2 (ADR-0034).",
            "- Corrections (ADR-0034): `cases.order-created`, `cases.other`.",
            "- Adds no section; corrects `cases.order-created` (ADR-0034).\n  <!-- a note -->",
        ] {
            assert!(named(yes), "{yes}");
        }
        // A comma does not end a clause, so a negation of another word before it still counts:
        // the rule errs on the side of an unnamed correction (a MAJOR the gate asks about).
        assert!(!named("- Adds no section, and corrects `cases.order-created` (ADR-0034)."));
        for no in [
            "- Clarified `cases.order-created`; its expectation was already correct (ADR-0001).",
            "- `cases.order-created` now reads correctly; the incorrect wording is gone (ADR-0001).",
            "- No expectation is corrected in this release; `cases.order-created` is unchanged (ADR-0034).",
            "- Nothing is corrected: `cases.order-created` stays as ADR-0031 wrote it.",
            "- `cases.order-created` is not corrected (ADR-0034).",
            "- `cases.order-created` isn't corrected (ADR-0034).",
            "- Correction: none. `cases.order-created` keeps ADR-0034's value.",
            "- Corrects nothing in `cases.order-created` (ADR-0034).",
            "<!-- Correction (ADR-0034): `cases.order-created` -->",
            "- Rewords the prose. <!-- Correction (ADR-0034):\n  `cases.order-created` --> Nothing else.",
        ] {
            assert!(!named(no), "{no}");
        }
    }

    #[test]
    fn a_section_is_named_by_an_item_that_states_its_addition() {
        let names = |item: &str| entry(&format!("## 1.7.0\n\n{item}\n"), "1.7.0").unwrap().names_section("mqtt");
        assert!(names("- New section `mqtt` (core)."));
        assert!(names("- New sections: `a` (core) and `mqtt` (core)."));
        assert!(names("- Adds the section `mqtt`."));
        assert!(!names("- `mqtt` is not new; the section was renamed."));
        assert!(!names("- Rewords the description of `mqtt`."));
        assert!(!names("<!-- New section `mqtt`. -->"));
    }
}
