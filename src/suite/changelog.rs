//! Reading CHANGELOG.md, the one reader of it: the entry of one version (what `validate`
//! requires for `CONFORMANCE_VERSION`, what the release notes print), the sections it names and
//! the corrections it names (what the release gate reads).
//!
//! Invariants:
//! - The file is read as GitHub renders it: CommonMark with GitHub's tables and strikethrough
//!   (`pulldown-cmark`, the parser `bqsuite docs` renders with). What a reader of the rendered
//!   CHANGELOG does not see as the entry's text is not read: HTML (comments included, a heading
//!   inside one too), link reference definitions, footnote definitions, images, code blocks
//!   (fenced or indented: an example), struck-through text. Hand-written line rules once let an HTML comment, a setext
//!   or indented heading, a link definition's title or an indented example name a correction.
//! - An entry starts at a level-2 heading (ATX, `#` marks indented up to three spaces and
//!   followed by a space or tab, or setext) at the top level of the file, whose first word,
//!   with an optional `[` … `]` around it, is the version; it ends before the next heading of
//!   level 1 or 2 wherever that stands (one in a block quote or a list item too). The entry
//!   for `X.Y.Z-pre` (any pre-release) is `## X.Y.Z-pre`, else `## X.Y.Z`, the version it is
//!   becoming. Build metadata (`X.Y.Z+build.1`) is ignored, as SemVer precedence ignores it:
//!   `## X.Y.Z+build.1` if there is one, else the entry of `X.Y.Z`. When two headings name the
//!   version (two branches each added one), the entry is both, items in file order: the gate
//!   reads everything the file says about the version.
//! - An entry is a list of items: each item of a top-level list (with everything nested in
//!   it, up to a level-1 or level-2 heading inside it, which ends the entry there), each
//!   paragraph outside one, each heading of level 3 to 6, each table row. Names are code spans,
//!   compared exactly; a file is named only by its exact path.
//! - An item *states* something by a word (letters and digits; code spans and punctuation
//!   separate words), compared without letter case, that is not negated: no negation (*no*,
//!   *not*, *nothing*, *none*, *never*, *neither*, *nor*, *without*, *cannot*, a word ending in
//!   *n't*) comes before it in its clause (a clause ends at `.` `;` `:` `!` `?` `(` `)` `[`
//!   `]` or a dash `—`, not at a comma), the first word after it is no negation either
//!   ("Correction: none"; *un* counts, as in "un-corrected"), and no word anywhere in its
//!   clause puts it off or takes it back (*deferred*, *postponed*, *proposed*, *planned*,
//!   *pending*, *will*, *would*, *may*, *might*, *could*, *should*, *future*, *reverted*,
//!   *withdrawn*, *rejected*, *undone*, *rolled*). A false "not stated" costs a MAJOR the gate asks about; a false
//!   "stated" would let an unnamed correction through, so the rule errs on the first side.
//! - An addition is named by a sentence (as below) that states an addition (*new*, *add*,
//!   *adds*, *added*, *adding*, *addition*, *additions*, *gains*, *gained*, *introduce*,
//!   *introduces*, *introduced*, *introducing*, *newly*) and holds a code span naming it: a
//!   section by a span equal to its name; an added case or block by its reference
//!   (`` `traceparent.flags-3-hex` ``) or a block prefix of it (`` `redis_layout.pcall_poison` ``),
//!   either also with `/` for the `.` as findings print a case (`` `traceparent/flags-3-hex` ``),
//!   or by its section's name in one span and the rest in another ("`redis_layout` gains
//!   `pcall_poison/x`"). Naming only the section ("new cases in `trace`") names no case: the
//!   entry is where SDK maintainers find the cases that are new to them. Stated and named in
//!   one sentence, so "Adds a note; `trim` is unchanged" names nothing in `trim`; but for an
//!   addition a stop inside parentheses (where every one of the item closes) or after *e.g.*,
//!   *i.e.*, *cf.*, *etc.*, *vs.*, *incl.* ends no sentence. A question states nothing, and
//!   words in parentheses do not state the addition ("Removes `x` (added by mistake)"), unless
//!   the parenthesis holds the word alone ("`x` (new)"). Every item and paragraph under a
//!   heading of level 3 to 6 that says only that things were added (its words are addition
//!   words and *case*, *section*, *block*, *field*, *and*: Keep a Changelog's "### Added",
//!   "### New cases"; not "### Added (planned)"), or under a lead-in paragraph ending in `:`
//!   that states an addition ("New cases:"), until the next heading or lead-in, states one
//!   unless it opens with a negation ("Nothing new in `x`"); so does every row of a table whose
//!   head row states one. These rules catch an entry that forgets an addition or only gestures
//!   at it; they are not a lie detector: a sentence written to mislead ("New cases: none (`x`
//!   is only reworded)") is for review.
//! - A correction is named by an item that cites at least one ADR (`ADR-` and four digits) and
//!   has a sentence (ended by `.` `;` `!` `?` before white space) that states a correction
//!   (*correction*, *corrections*, *corrects*, *corrected*: not *correct*, *correctly* or
//!   *incorrect*, which say nothing was changed) and holds a code span naming it:
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
    /// Its code spans, exactly as written between the backticks.
    pub spans: Vec<String>,
    /// It stands under a heading of level 3 to 6 of the entry that states an addition
    /// (Keep a Changelog's "### Added"): each of its sentences states one.
    pub under_addition: bool,
}

/// The words that state a correction.
const CORRECTION: [&str; 4] = ["correction", "corrections", "corrects", "corrected"];

/// The words that state an addition.
const ADDITION: [&str; 14] = [
    "new",
    "newly",
    "add",
    "adds",
    "added",
    "adding",
    "addition",
    "additions",
    "gains",
    "gained",
    "introduces",
    "introduced",
    "introducing",
    "introduce",
];

/// Words that end with a full stop without ending a sentence ("flags e.g. `0f`").
const ABBREVIATIONS: [&str; 6] = ["e.g.", "i.e.", "cf.", "etc.", "vs.", "incl."];

/// The words that negate a statement (besides any word ending in n't).
const NEGATIONS: [&str; 10] = ["no", "not", "nothing", "none", "never", "neither", "nor", "without", "cannot", "un"];

/// The words that put a statement off or take it back, wherever they stand in its clause
/// ("corrections to `x` were proposed but are deferred").
const HEDGES: [&str; 17] = [
    "deferred",
    "postponed",
    "proposed",
    "planned",
    "pending",
    "will",
    "would",
    "may",
    "might",
    "could",
    "should",
    "future",
    "reverted",
    "withdrawn",
    "rejected",
    "undone",
    "rolled",
];

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
        let clause = tokens[..i].iter().rev().map_while(word).chain(tokens[i + 1..].iter().map_while(word));
        let hedged = clause.clone().any(|w| HEDGES.contains(&w));
        !before && !after && !hedged
    })
}

/// Does every `(` and `[` of `prose` close, in order?
fn balanced(prose: &str) -> bool {
    let mut depth = 0usize;
    for c in prose.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' if depth == 0 => return false,
            ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    depth == 0
}

/// Does `sentence` end with one of [`ABBREVIATIONS`] (as a word of its own)? Only its last
/// few characters are looked at, so a long item costs no more per stop than a short one.
fn ends_with_abbreviation(sentence: &str) -> bool {
    let start = sentence.char_indices().rev().nth(7).map_or(0, |(i, _)| i);
    let lower = sentence[start..].to_lowercase();
    ABBREVIATIONS.iter().any(|a| {
        lower.strip_suffix(a).is_some_and(|before| before.chars().next_back().is_none_or(|c| !c.is_alphanumeric()))
    })
}

/// Does `sentence` of an item state an addition? A question states nothing ("Adds `x`?"),
/// and what stands in parentheses or brackets is not read for it ("Removes `x` (added by
/// mistake)"), unless the parenthesis holds an addition word alone ("`x` (new)"); under a
/// heading, lead-in or table head that states an addition (`under_addition`) every other
/// sentence does, unless it opens with a negation ("Nothing new in `x`").
fn states_addition(sentence: &str, under_addition: bool) -> bool {
    if sentence.trim_end().ends_with('?') {
        return false;
    }
    // The sentence without what stands in parentheses, except a parenthesis that holds an
    // addition word alone ("`x` (new)").
    let (mut outside, mut inside, mut depth) = (String::new(), String::new(), 0usize);
    for (i, piece) in sentence.split('`').enumerate() {
        if i % 2 == 1 {
            if depth == 0 {
                outside.push_str("``");
            } else {
                inside.push_str("``");
            }
            continue;
        }
        for c in piece.chars() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        let word = std::mem::take(&mut inside).trim().to_lowercase();
                        if ADDITION.contains(&word.as_str()) {
                            outside.push_str(&word);
                        }
                    }
                    outside.push(' ');
                }
                _ if depth == 0 => outside.push(c),
                _ => inside.push(c),
            }
        }
    }
    if under_addition {
        // Under a heading or lead-in that states the addition, a sentence states it too unless
        // it opens with a negation ("Nothing new in `x`"); a negation in its description
        // ("`x`: flags must not be dropped") is about the case.
        let first = tokens(&outside).into_iter().find_map(|t| match t {
            Token::Word(w) => Some(w),
            Token::Break => None,
        });
        return !first.is_some_and(|w| is_negation(&w));
    }
    states(&outside, &ADDITION)
}

/// Does a heading say only that things were added ("Added", "New cases", "Additions")? Its
/// words are addition words and names of what was added, nothing else: "Added (planned)",
/// "Added in 1.8.0" or "To be added" say something more, and state nothing.
fn heading_states_addition(heading: &str) -> bool {
    const WHAT: [&str; 9] = ["case", "cases", "section", "sections", "block", "blocks", "field", "fields", "and"];
    let words: Vec<String> = tokens(heading)
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w) if w != "`" => Some(w),
            _ => None,
        })
        .collect();
    !heading.trim_end().ends_with('?')
        && words.iter().any(|w| ADDITION.contains(&w.as_str()))
        && words.iter().all(|w| ADDITION.contains(&w.as_str()) || WHAT.contains(&w.as_str()))
}

impl Item {
    /// Does the item state a correction (the rules of the module doc)?
    pub fn states_correction(&self) -> bool {
        states(&self.text, &CORRECTION)
    }

    /// The item's sentences (ended by `.`, `;`, `!` or `?` before white space or the end, outside
    /// code spans), each with its code spans: a correction is named by a span in a sentence that
    /// states it ("Corrected a typo in the README; `x` is unchanged" names no correction of `x`).
    pub fn sentences(&self) -> Vec<(String, Vec<&str>)> {
        self.split(false)
    }

    /// The sentences an addition is read in: as [`Item::sentences`], except that a stop inside
    /// parentheses or brackets, or after an abbreviation (*e.g.*, *i.e.*, *cf.*, *etc.*,
    /// *vs.*, *incl.*), ends none ("New cases (each quotes the rule it tests; none changes an
    /// expectation): …" is one sentence).
    fn addition_sentences(&self) -> Vec<(String, Vec<&str>)> {
        self.split(true)
    }

    fn split(&self, lenient: bool) -> Vec<(String, Vec<&str>)> {
        // Parentheses that do not close hold no sentence together: an unclosed `(` would join
        // the rest of the item into one sentence.
        let prose: String = self.text.split('`').step_by(2).collect();
        let depth_counts = lenient && balanced(&prose);
        let mut out = Vec::new();
        let (mut sentence, mut spans, mut k, mut depth) = (String::new(), Vec::new(), 0, 0usize);
        for (i, piece) in self.text.split('`').enumerate() {
            if i % 2 == 1 {
                sentence.push('`');
                sentence.push_str(piece);
                sentence.push('`');
                spans.extend(self.spans.get(k).map(String::as_str));
                k += 1;
                continue;
            }
            let mut chars = piece.chars().peekable();
            while let Some(c) = chars.next() {
                sentence.push(c);
                match c {
                    '(' | '[' => depth += 1,
                    ')' | ']' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                let stop = matches!(c, '.' | ';' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace());
                let kept =
                    stop && lenient && ((depth_counts && depth > 0) || (c == '.' && ends_with_abbreviation(&sentence)));
                if stop && !kept {
                    out.push((std::mem::take(&mut sentence), std::mem::take(&mut spans)));
                }
            }
        }
        out.push((sentence, spans));
        out
    }

    /// The item's code spans.
    pub fn spans(&self) -> Vec<&str> {
        self.spans.iter().map(String::as_str).collect()
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
    /// The spans of every sentence that states an addition, read once for all the additions
    /// the gate asks about.
    added: std::cell::OnceCell<Vec<Vec<String>>>,
}

impl Entry {
    /// Does the entry name section `name` as added (in a sentence that states an addition)?
    pub fn names_section(&self, name: &str) -> bool {
        self.names_added(|spans| spans.contains(&name))
    }

    /// Does the entry name the addition whose reference is `reference`, a case or block of
    /// section `section` (in a sentence that states an addition)?
    pub fn names_addition(&self, reference: &str, section: &str) -> bool {
        let inside = reference.strip_prefix(section).and_then(|r| r.strip_prefix('.'));
        self.names_added(|spans| {
            spans.iter().any(|span| names(reference, span))
                || inside.is_some_and(|inside| {
                    spans.contains(&section) && spans.iter().any(|span| super::pointer::at_or_under(inside, span))
                })
        })
    }

    /// Has the entry a sentence that states an addition and whose spans `naming` accepts?
    fn names_added(&self, naming: impl Fn(&[&str]) -> bool) -> bool {
        let added = self.added.get_or_init(|| {
            self.items
                .iter()
                .flat_map(|i| {
                    i.addition_sentences()
                        .into_iter()
                        .filter(|(sentence, _)| states_addition(sentence, i.under_addition))
                        .map(|(_, spans)| spans.into_iter().map(str::to_owned).collect())
                        .collect::<Vec<Vec<String>>>()
                })
                .collect()
        });
        added.iter().any(|spans| naming(&spans.iter().map(String::as_str).collect::<Vec<_>>()))
    }

    /// The item naming the correction with `reference`, as a [`Naming`].
    pub fn naming(&self, reference: &str) -> Option<Naming> {
        self.items
            .iter()
            .find(|i| {
                cites_adr(&i.text)
                    && i.sentences().into_iter().any(|(sentence, spans)| {
                        states(&sentence, &CORRECTION) && spans.into_iter().any(|span| names(reference, span))
                    })
            })
            .map(|i| Naming { line: i.line, adrs: i.adrs() })
    }
}

/// Does code span `span` name the change whose reference is `reference`? A file by its exact
/// path only (`` `fixtures` `` names no fixture); a case by its id, its block or its section
/// (the rules of the module doc), written `<section>.<case id>` or as findings and `ids` print
/// a case, `<section>/<case id>`.
fn names(reference: &str, span: &str) -> bool {
    if super::in_suite_dirs(reference) {
        return span == reference;
    }
    if super::pointer::at_or_under(reference, span) {
        return true;
    }
    // `retry_backoff/capped` for `retry_backoff.capped` (a section's name holds no `/`).
    span.split_once('/').is_some_and(|(section, inside)| {
        reference
            .strip_prefix(section)
            .and_then(|r| r.strip_prefix('.'))
            .is_some_and(|case| !inside.is_empty() && super::pointer::at_or_under(case, inside))
    })
}

/// The first word of a heading's text, without `[` `]`.
fn heading_version(text: &str) -> Option<&str> {
    let rest = text.trim_start();
    let rest = rest.strip_prefix('[').unwrap_or(rest);
    rest.split(|c: char| c.is_whitespace() || c == ']').next().filter(|w| !w.is_empty())
}

/// A heading of CHANGELOG.md as GitHub renders it.
#[derive(Debug)]
struct Heading {
    /// 1 to 6.
    level: u8,
    /// At the top level of the document (not inside a list item or a block quote): only such
    /// a heading starts an entry.
    top: bool,
    /// Its text as rendered (code spans as their content).
    text: String,
    /// Its source, first line, without the ATX `#` marks: what the report shows.
    source: String,
    /// 0-based line of its first line, and byte offsets of its start and of the line after it.
    line: usize,
    start: usize,
    end: usize,
}

/// A block of CHANGELOG.md the gate reads as one item: a list item of a list at the top level
/// (with everything nested in it), a paragraph outside such an item, a heading of level 3 to 6,
/// a table row.
#[derive(Debug)]
struct Block {
    offset: usize,
    text: String,
    spans: Vec<String>,
    kind: BlockKind,
}

/// What a [`Block`] is in the rendered file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    /// An item of a top-level list.
    Item,
    /// A paragraph outside a list.
    Paragraph,
    /// A heading of level 3 to 6 at the top level.
    Heading,
    /// The head row of a table.
    TableHead,
    /// A body row of a table.
    TableRow,
}

/// CHANGELOG.md read as CommonMark (with GitHub's tables and strikethrough): its headings and
/// its item blocks, each with where it starts, in file order. What renders as nothing is not
/// read: HTML (comments included), link reference definitions, images; nor is what renders as
/// an example or as withdrawn: code blocks, fenced or indented, and struck-through text.
#[derive(Debug)]
struct Doc {
    headings: Vec<Heading>,
    blocks: Vec<Block>,
    /// Byte offset of the start of each line.
    lines: Vec<usize>,
}

impl Doc {
    fn read(text: &str) -> Doc {
        use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
        let lines: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        let line_of = |offset: usize| lines.partition_point(|&l| l <= offset).saturating_sub(1);
        // The start of the line after the one `offset` lies in (itself when it starts a line).
        let next_line = |offset: usize| -> usize {
            if offset == 0 || text.as_bytes().get(offset - 1) == Some(&b'\n') {
                offset
            } else {
                text[offset..].find('\n').map_or(text.len(), |i| offset + i + 1)
            }
        };
        let mut headings = Vec::new();
        let mut blocks: Vec<Block> = Vec::new();
        // Containers open around the current event: list items and block quotes.
        let mut containers = 0usize;
        let mut lists = 0usize;
        // The block being read, and how deep in skipped content (code, HTML, images, struck
        // text, footnote definitions) it is.
        let mut current: Option<Block> = None;
        // The heading being read: its level, whether it is at the top level, its plain text,
        // its text as a block (code spans kept), where it starts, and whether it cut a list
        // item in two (the rest of the item is read after it).
        let mut heading: Option<(u8, bool, String, Block, bool)> = None;
        let mut skipping = 0usize;
        let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES;
        let fresh = |offset: usize, kind: BlockKind| Block { offset, text: String::new(), spans: Vec::new(), kind };
        for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
            match event {
                Event::Start(Tag::Heading { level, .. }) => {
                    let level = level as u8;
                    // A level-1 or level-2 heading ends the block it stands in (one in a list
                    // item too): what follows it is under it.
                    let cut = level <= 2 && current.is_some();
                    if cut {
                        blocks.extend(current.take());
                    }
                    heading =
                        Some((level, containers == 0, String::new(), fresh(range.start, BlockKind::Heading), cut));
                }
                Event::End(TagEnd::Heading(_)) => {
                    let Some((level, top, plain, block, cut)) = heading.take() else { continue };
                    let (start, end) = (block.offset, next_line(range.end));
                    let first = text[start..range.end].lines().next().unwrap_or_default().trim();
                    let source = first.trim_start_matches('#').trim().trim_end_matches('#').trim_end().to_owned();
                    if cut {
                        current = Some(fresh(end, BlockKind::Item));
                    } else if level >= 3 {
                        match current.as_mut() {
                            Some(b) => {
                                b.text.push(' ');
                                b.text.push_str(&block.text);
                                b.spans.extend(block.spans);
                            }
                            None => blocks.push(block),
                        }
                    }
                    headings.push(Heading { level, top, text: plain, source, line: line_of(start), start, end });
                }
                Event::Start(Tag::List(_)) => lists += 1,
                Event::End(TagEnd::List(_)) => lists -= 1,
                Event::Start(Tag::Item) => {
                    containers += 1;
                    if lists == 1 && current.is_none() {
                        current = Some(fresh(range.start, BlockKind::Item));
                    }
                }
                Event::End(TagEnd::Item) => {
                    containers -= 1;
                    if lists == 1 {
                        blocks.extend(current.take());
                    }
                }
                Event::Start(Tag::BlockQuote(_)) => containers += 1,
                Event::End(TagEnd::BlockQuote(_)) => containers -= 1,
                Event::Start(tag @ (Tag::Paragraph | Tag::TableRow | Tag::TableHead))
                    if current.is_none() && lists == 0 =>
                {
                    let kind = match tag {
                        Tag::TableHead => BlockKind::TableHead,
                        Tag::TableRow => BlockKind::TableRow,
                        _ => BlockKind::Paragraph,
                    };
                    current = Some(fresh(range.start, kind));
                }
                Event::End(TagEnd::Paragraph | TagEnd::TableRow | TagEnd::TableHead) if lists == 0 => {
                    blocks.extend(current.take());
                }
                Event::Start(
                    Tag::CodeBlock(_)
                    | Tag::HtmlBlock
                    | Tag::Image { .. }
                    | Tag::Strikethrough
                    | Tag::FootnoteDefinition(_),
                ) => {
                    skipping += 1;
                }
                Event::End(
                    TagEnd::CodeBlock
                    | TagEnd::HtmlBlock
                    | TagEnd::Image
                    | TagEnd::Strikethrough
                    | TagEnd::FootnoteDefinition,
                ) => {
                    skipping = skipping.saturating_sub(1);
                }
                Event::Text(t) if skipping == 0 => match heading.as_mut() {
                    Some(h) => {
                        h.2.push_str(&t);
                        h.3.text.push_str(&t.replace('`', "'"));
                    }
                    None => push_text(current.as_mut(), &t),
                },
                Event::Code(c) if skipping == 0 => {
                    if let Some(h) = heading.as_mut() {
                        h.2.push_str(&c);
                    }
                    if let Some(b) = heading.as_mut().map(|h| &mut h.3).or(current.as_mut()) {
                        b.text.push('`');
                        b.text.push_str(&c.replace('`', "'"));
                        b.text.push('`');
                        b.spans.push(c.to_string());
                    }
                }
                Event::SoftBreak | Event::HardBreak if skipping == 0 => match heading.as_mut() {
                    Some(h) => {
                        h.2.push(' ');
                        h.3.text.push(' ');
                    }
                    None => push_text(current.as_mut(), " "),
                },
                Event::End(TagEnd::TableCell) if skipping == 0 => push_text(current.as_mut(), " | "),
                _ => {}
            }
        }
        for b in &mut blocks {
            b.text = b.text.split_whitespace().collect::<Vec<_>>().join(" ");
        }
        blocks.retain(|b| !b.text.is_empty());
        Doc { headings, blocks, lines }
    }

    /// The indices (into `headings`) of the entry for `version`: every top-level level-2
    /// heading naming it, else every one naming the version a pre-release becomes.
    fn starts(&self, version: &str) -> Vec<usize> {
        // Build metadata first (it may hold a `-`), as SemVer precedence ignores it; then the
        // pre-release part.
        let release = version.split_once('+').map(|(r, _)| r);
        let base = release.unwrap_or(version).split_once('-').map(|(b, _)| b);
        let named = |v: &str| -> Vec<usize> {
            (0..self.headings.len())
                .filter(|&i| {
                    let h = &self.headings[i];
                    h.level == 2 && h.top && heading_version(&h.text) == Some(v)
                })
                .collect()
        };
        [Some(version), release, base].into_iter().flatten().map(named).find(|s| !s.is_empty()).unwrap_or_default()
    }

    /// The byte range of the body of the entry that heading `i` starts: from the line after it
    /// to the next heading of level 1 or 2, wherever that stands (a quoted one too), or the end.
    fn body(&self, i: usize, text_len: usize) -> (usize, usize) {
        let from = self.headings[i].end;
        let to = self.headings[i + 1..].iter().find(|h| h.level <= 2).map_or(text_len, |h| h.start);
        (from, to.max(from))
    }
}

fn push_text(block: Option<&mut Block>, t: &str) {
    if let Some(b) = block {
        b.text.push_str(&t.replace('`', "'"));
    }
}

/// The first word of every top-level level-2 heading, in file order (what [`entry`] can be
/// asked for).
pub fn headings(text: &str) -> Vec<String> {
    Doc::read(text)
        .headings
        .iter()
        .filter(|h| h.level == 2 && h.top)
        .filter_map(|h| heading_version(&h.text).map(str::to_owned))
        .collect()
}

/// The text, as rendered (code spans as their content), of the first entry heading that names
/// exactly `version`: what GitHub, and the HTML docs, make its anchor from (`## 1.6.0 — 2026-12-06`
/// is `#160--2026-12-06`, not `#160`).
pub fn heading_text(text: &str, version: &str) -> Option<String> {
    Doc::read(text)
        .headings
        .into_iter()
        .find(|h| h.level == 2 && h.top && heading_version(&h.text) == Some(version))
        .map(|h| h.text)
}

/// The text of the entry for `version` as written, for release notes: the lines under each of
/// its headings (the headings themselves left out), in file order, code blocks included, line
/// endings as `\n`; `None` when there is no entry or it holds nothing but white space.
pub fn entry_text(text: &str, version: &str) -> Option<String> {
    let doc = Doc::read(text);
    let mut out = String::new();
    for i in doc.starts(version) {
        let (from, to) = doc.body(i, text.len());
        for line in text[from..to].lines() {
            out.push_str(line);
            out.push('\n');
        }
    }
    (!out.trim().is_empty()).then_some(out)
}

/// The entry for `version` in CHANGELOG text, when it has one.
pub fn entry(text: &str, version: &str) -> Option<Entry> {
    let doc = Doc::read(text);
    let starts = doc.starts(version);
    let first = &doc.headings[*starts.first()?];
    let mut items = Vec::new();
    for &i in &starts {
        let (from, to) = doc.body(i, text.len());
        // What the blocks stand under: a heading that says only that things were added, or a
        // lead-in paragraph ending in `:` that states an addition (until the next heading or
        // lead-in); and a table whose head row states one.
        let (mut scope, mut table) = (false, false);
        for b in doc.blocks.iter().filter(|b| b.offset >= from && b.offset < to) {
            let line = doc.lines.partition_point(|&l| l <= b.offset);
            let under_addition = match b.kind {
                BlockKind::Heading => {
                    scope = heading_states_addition(&b.text);
                    false
                }
                BlockKind::Paragraph if b.text.trim_end().ends_with(':') => {
                    scope = states_addition(&b.text, false);
                    false
                }
                BlockKind::TableHead => {
                    table = states_addition(&b.text, false);
                    false
                }
                BlockKind::TableRow => scope || table,
                BlockKind::Item | BlockKind::Paragraph => scope,
            };
            if b.kind != BlockKind::TableRow && b.kind != BlockKind::TableHead {
                table = false;
            }
            items.push(Item { line, text: b.text.clone(), spans: b.spans.clone(), under_addition });
        }
    }
    Some(Entry { heading: first.source.clone(), line: first.line + 1, items, added: std::cell::OnceCell::new() })
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
        assert_eq!(e.items[1].text, "New sections: `redis_delay` (redis) and `poison_dlq` (core).");
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
        assert_eq!(texts, ["`a` added.", "`b` added."], "the fence neither ends the entry nor adds items");
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
            "- Corrects `cases/order-created` (ADR-0034), as validate prints it.",
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

    /// Red team (release gate) F2–F6: the entry is read as GitHub renders the file. Each of
    /// these once named a correction that the rendered 1.7.0 entry does not show.
    #[test]
    fn only_what_renders_as_the_entry_names_a_correction() {
        let item = "- Correction (ADR-0034): `cases.order-created` and `fixtures/x.json`.";
        let named = |text: &str| {
            let e = entry(text, "1.7.0").unwrap();
            (e.naming("cases.order-created").is_some(), e.naming("fixtures/x.json").is_some())
        };
        assert_eq!(named(&format!("## 1.7.0\n\n{item}\n")), (true, true), "the control");
        for text in [
            // A second 1.7.0 heading inside an HTML comment.
            format!("## 1.7.0\n\n- Additions only.\n\n<!--\n## 1.7.0\n{item}\n-->\n"),
            // Another version's heading, setext, indented, with a tab, or quoted.
            format!("## 1.7.0\n\n- Additions only.\n\n1.6.1\n-----\n\n{item}\n"),
            format!("## 1.7.0\n\n- Additions only.\n\n  ## 1.6.1\n\n{item}\n"),
            format!("## 1.7.0\n\n- Additions only.\n\n##\t1.6.1\n\n{item}\n"),
            format!("## 1.7.0\n\n- Additions only.\n\n> ## 1.6.1\n>\n> {item}\n"),
            // A link reference definition, which renders as nothing.
            "## 1.7.0\n\n- Additions only.\n\n[ADR-0034]: https://example.org/0034 \"Correction of `cases.order-created` and `fixtures/x.json`\"\n".to_owned(),
            // An indented code block under a bullet: an example.
            format!("## 1.7.0\n\n- How a correction item is written (example):\n\n          {item}\n"),
            // Struck through: withdrawn.
            "## 1.7.0\n\n- ~~Correction (ADR-0034): `cases.order-created` and `fixtures/x.json`.~~\n".to_owned(),
            // Put off.
            "## 1.7.0\n\n- Corrections to `cases.order-created` and `fixtures/x.json` were proposed in ADR-0034 but are deferred to 2.0.0.\n".to_owned(),
        ] {
            assert_eq!(named(&text), (false, false), "{text}");
        }
        // Third red team: a footnote definition (GitHub drops an unreferenced one, and shows a
        // referenced one at the foot of the page, not in the entry); a heading of another
        // version inside a list item of the entry, before the correction nested under it.
        for text in [
            "## 1.7.0\n\n- Additions only.\n\n[^note]: Correction (ADR-0034): `cases.order-created` and `fixtures/x.json`.\n".to_owned(),
            format!("## 1.7.0\n\n- Additions only.\n\n  ## 1.6.1\n\n  {item}\n"),
        ] {
            assert_eq!(named(&text), (false, false), "{text}");
        }
        // The correction must be stated in the sentence that names it, not elsewhere in the item.
        for (text, is) in [
            ("- Corrected a typo in the README; `fixtures/x.json` is unchanged (ADR-0034).", false),
            ("- `fixtures/x.json` is left un-corrected until ADR-0034 is accepted.", false),
            ("- A correction of `fixtures/x.json` may come in 2.0.0 (ADR-0034).", false),
            ("- Adds `mqtt`. Corrects `fixtures/x.json` to schema_version 3 (ADR-0034).", true),
            ("- Corrects `fixtures/x.json` to the §6.5 rule (ADR-0034).", true),
        ] {
            let e = entry(&format!("## 1.7.0\n\n{text}\n"), "1.7.0").unwrap();
            assert_eq!(e.naming("fixtures/x.json").is_some(), is, "{text}");
        }
        // A file is named by its exact path: `fixtures` names no fixture.
        let dir = "## 1.7.0\n\n- Correction (ADR-0034): `fixtures` line endings normalised.\n";
        assert!(entry(dir, "1.7.0").unwrap().naming("fixtures/x.json").is_none());
        // What renders as the entry still counts: a nested item, a heading with a tab, a
        // setext heading, a link around the version.
        let nested = "## 1.7.0\n\n- Corrections:\n  - Corrects `cases.order-created` (ADR-0034).\n";
        assert_eq!(named(nested), (true, false));
        assert_eq!(named(&format!("##\t1.7.0\n\n{item}\n")), (true, true));
        assert_eq!(named(&format!("1.7.0\n-----\n\n{item}\n")), (true, true));
        let linked = format!("## [1.7.0] - 2026-12-05\n\n{item}\n\n[1.7.0]: https://example.org/v1.7.0\n");
        assert_eq!(named(&linked), (true, true));
        assert_eq!(entry(&linked, "1.7.0").unwrap().heading, "[1.7.0] - 2026-12-05");
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
        assert!(!names("- Adds a note to the README; `mqtt` is unchanged."), "stated and named in one sentence");
    }

    #[test]
    fn an_added_case_is_named_by_its_id_its_block_or_its_section() {
        let names = |item: &str, reference: &str| {
            let section = reference.split('.').next().unwrap();
            entry(&format!("## 1.7.0\n\n{item}\n"), "1.7.0").unwrap().names_addition(reference, section)
        };
        assert!(names("- New case `traceparent.flags-3-hex`.", "traceparent.flags-3-hex"));
        assert!(names("- `traceparent` gains the case `flags-3-hex`.", "traceparent.flags-3-hex"));
        assert!(!names("- Two new cases in `traceparent`.", "traceparent.flags-3-hex"), "which cases?");
        assert!(names("- `redis_layout.pcall_poison` gains four cases.", "redis_layout.pcall_poison/encode-fails-a"));
        assert!(names("- Adds the block `backoff.topic_names`.", "backoff.topic_names"));
        assert!(!names("- New case `traceparent.other`.", "traceparent.flags-3-hex"), "another case");
        assert!(!names("- `traceparent.flags-3-hex` is reworded.", "traceparent.flags-3-hex"), "no addition stated");
        assert!(!names("- Adds a note; `traceparent` is unchanged.", "traceparent.flags-3-hex"), "another sentence");
        assert!(!names("- No new case in `traceparent`.", "traceparent.flags-3-hex"), "negated");
        assert!(!names("- TBD.", "traceparent.flags-3-hex"));
        assert!(names("- `redis_layout` gains `pcall_poison/x` and `other`.", "redis_layout.other/y"));
        assert!(!names("- `redis_layout` gains `pcall_poison/x`.", "redis_layout.other/y"));
        // A block named beside its section names that section's block only: seven sections
        // have a `schema_version_gate`.
        let rows = "- `sqs` gains `schema_version_gate/9`.";
        assert!(names(rows, "sqs.schema_version_gate/9"));
        assert!(!names(rows, "asb.schema_version_gate/9"), "another section's block of that name");
        assert!(!names("- Adds `schema_version_gate/9`.", "asb.schema_version_gate/9"), "no section named");
        // Honest entries the red team saw refused: a stop in parentheses or after an
        // abbreviation, other forms of the words.
        let x = "traceparent.flags-3-hex";
        assert!(names(
            "- New cases (each quotes the rule it tests; none changes an expectation): `traceparent` `flags-3-hex`.",
            x
        ));
        assert!(names("- Adds a case for flags, e.g. `0f`: `traceparent.flags-3-hex`.", x));
        assert!(names("- Adding `traceparent.flags-3-hex`.", x));
        assert!(names("- `traceparent` gained `flags-3-hex`.", x));
        assert!(names("- Addition: `traceparent.flags-3-hex`.", x));
        // What takes it back: a question, an addition only in parentheses.
        assert!(!names("- Adds `traceparent.flags-3-hex`? No.", x));
        assert!(!names("- Removes `traceparent.flags-3-hex` (added by mistake).", x));
        // An unclosed parenthesis holds nothing together.
        assert!(!names("- New notes (see below. `traceparent.flags-3-hex` is unchanged.", x));
        // A case as findings and `ids` print it, `<section>/<case id>`, names it too; its block
        // so written names every case of the block.
        assert!(names("- Adds `traceparent/flags-3-hex`.", x));
        assert!(names("- Adds `redis_layout/pcall_poison`.", "redis_layout.pcall_poison/encode-fails-a"));
        assert!(names("- Adds `sqs/attempts_reconciliation/third`.", "sqs.attempts_reconciliation/third"));
        assert!(!names("- Adds `traceparent/flags`.", x), "another case");
        assert!(!names("- Adds `traceparent/`.", x), "no case");
        assert!(!names("- Adds `trace/parent.flags-3-hex`.", x));
    }

    #[test]
    fn items_under_an_added_heading_state_additions() {
        let e = |text: &str| entry(text, "1.7.0").unwrap();
        let x = "traceparent.flags-3-hex";
        let keep =
            e("## 1.7.0\n\n### Added\n\n- `traceparent.flags-3-hex`\n- `mqtt` (core)\n\n### Changed\n\n- `trim.x`\n");
        assert!(keep.names_addition(x, "traceparent") && keep.names_section("mqtt"));
        assert!(!keep.names_addition("trim.x", "trim"), "under ### Changed");
        assert!(!e("## 1.7.0\n\n### Removed\n\n- `traceparent.flags-3-hex`\n").names_addition(x, "traceparent"));
        assert!(!e("## 1.7.0\n\n### Added?\n\n- `traceparent.flags-3-hex`\n").names_addition(x, "traceparent"));
        assert!(
            !e("## 1.7.0\n\n### Added\n\n- Nothing new in `traceparent.flags-3-hex`.\n")
                .names_addition(x, "traceparent")
        );
        let named = |text: &str| e(&format!("## 1.7.0\n\n{text}\n")).names_addition(x, "traceparent");
        // A negation in a case's description is about the case.
        assert!(named("### Added\n\n- `traceparent.flags-3-hex`: flags other than 01 must not be dropped."));
        // Headings that say more than that things were added.
        for heading in ["### Added (planned)", "### Added in 1.8.0", "### To be added", "### Added later"] {
            assert!(!named(&format!("{heading}\n\n- `traceparent.flags-3-hex`")), "{heading}");
        }
        assert!(named("### New cases\n\n- `traceparent.flags-3-hex`"));
        // A lead-in paragraph, and a table whose head says it; a contrary lead-in ends the scope.
        assert!(named("New cases:\n\n- `traceparent.flags-3-hex`"));
        assert!(named("**New cases:**\n\n- `traceparent.flags-3-hex`"));
        assert!(named("| New case | Why |\n|---|---|\n| `traceparent.flags-3-hex` | flags |"));
        assert!(!named("### Added\n\nRemoved:\n\n- `traceparent.flags-3-hex`"));
        assert!(!named("| Removed | Why |\n|---|---|\n| `traceparent.flags-3-hex` | flags |"));
        // Short honest forms.
        assert!(named("- `traceparent.flags-3-hex` (new)."));
        assert!(named("- Newly covered: `traceparent.flags-3-hex`."));
    }
}
