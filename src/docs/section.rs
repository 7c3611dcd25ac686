//! The section pages, the index of sections by scope, and the sections table of the README.
//!
//! Invariants:
//! - Everything on a section page comes from the suite: the scope from the `sections` map, the
//!   contract from the section's and its blocks' `description` (the `cases` array has none, so
//!   its page quotes the README's "The envelope cases", one prose source for both), the rulings
//!   from the sentences of a description that start `Ruling` / `Rulings` / `Suite rulings`, the
//!   cases and their ids from the one case-id rule, the skip rules from `skip_policy`, the
//!   version that added the section from CHANGELOG.md (see [`added_in`]).
//! - A case field is an *expectation* when the section's reader takes an expectation slot in it
//!   (`sections::Section::read_with_slots`) or its name is `valid`, `expect` or starts with
//!   `expect`; `name`, `description`, `reason`, `note` and `comment` are prose; every other
//!   field is an input. So the split follows the registry, not a list kept here.
//! - Values are shown in short ([`markdown::short`]): strings as their text with invisible
//!   characters escaped (the empty string as the words [`EMPTY`], outside code, so it never
//!   reads as two quote characters), anything else as compact JSON, cut at [`CUT`] characters; a
//!   value that names a suite file is a link to it.
//! - A section's runner contract (`sections::Contract`) gives each case field's type and
//!   meaning in the fields tables (and, for a single-case block, the meaning of its
//!   `description`, which the table leaves to the prose above it) and the steps of running a case.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

use super::markdown::{self, code, prose, relative, short, table};
use super::{Context, GENERATED_NOTE};
use crate::sections::{Contract, Needs};
use crate::suite::{CaseRef, Scope, Section, Suite, skip_policy};

/// Values longer than this are cut in tables.
pub const CUT: usize = 90;
/// Where the section pages live.
pub const DIR: &str = "docs/sections";

/// How a table shows the empty string, outside code so it cannot read as two quote characters.
const EMPTY: &str = "(empty text)";
/// Fields that are prose, never asserted.
const PROSE: [&str; 5] = ["name", "description", "reason", "note", "comment"];

/// The page of section `name`.
pub fn path(name: &str) -> String {
    format!("{DIR}/{name}.md")
}

/// What a scope is, for people.
pub fn scope_label(scope: Scope) -> &'static str {
    match scope {
        Scope::Core => "every SDK core",
        Scope::Redis => "Redis",
        Scope::Amqp => "RabbitMQ (AMQP 0-9-1)",
        Scope::Sqs => "Amazon SQS",
        Scope::Asb => "Azure Service Bus",
        Scope::Pulsar => "Apache Pulsar",
        Scope::Kafka => "Apache Kafka",
        Scope::Artemis => "Apache ActiveMQ Artemis (AMQP 1.0)",
        Scope::Otel => "the W3C traceparent code (ADR-0028)",
    }
}

/// Who must run a section of `scope`, in words (Markdown).
pub(super) fn who_runs(suite: &Suite, scope: Scope) -> String {
    if scope == Scope::Core {
        return "`core`: every SDK runs it, whatever it carries.".into();
    }
    let mut s = format!(
        "`{}` ({}): run by every package that carries it, that is whose results file lists `{}` in `bindings`",
        scope.as_str(),
        scope_label(scope),
        scope.as_str()
    );
    let excepted: Vec<String> = suite
        .exceptions()
        .into_iter()
        .filter(|e| e.binding == scope.as_str())
        .map(|e| format!("the {} family ({})", code(&e.family), e.adr))
        .collect();
    if !excepted.is_empty() {
        let _ = write!(
            s,
            ", except {} (an exception: it lists neither the binding nor these sections)",
            excepted.join(" and ")
        );
    }
    s.push('.');
    s
}

/// The version that added `section`: for a section of bqsuite's registry, its `SINCE` (the
/// spec's version history, which validate holds suites to), linked to that version's CHANGELOG
/// entry when there is one. For any other section, the version whose
/// CHANGELOG entry added it: the oldest entry with a list item that announces sections ("New
/// …", "Adds the sections …", "Added section …") and names the section as a code span; else
/// the oldest entry (the first tagged suite, whose entry names the sections it started with
/// only in words). A candidate's entry (`1.7.0-rc.1`) counts as the release it becomes
/// (`1.7.0`).
pub fn added_in(changelog: &str, section: &str) -> Option<String> {
    added_in_entry(changelog, section).map(|(release, _)| release)
}

/// [`added_in`], and the anchor of the entry's heading (its GitHub slug: the heading as written
/// may say more than the version, `## 1.7.0-rc.1` or `## 1.6.0 — 2026-12-06`).
fn added_in_entry(changelog: &str, section: &str) -> Option<(String, Option<String>)> {
    let mut versions: Vec<String> = Vec::new();
    for v in crate::diff::changelog::headings(changelog) {
        if semver::Version::parse(&v).is_ok() && !versions.contains(&v) {
            versions.push(v);
        }
    }
    versions.reverse();
    // An item that announces sections ("New section `x`", "Adds the sections `x` and `y`"), not
    // one that adds cases to one ("Adds three cases to `cases`": the gate's wider rule, BQ953,
    // would date `cases` by its latest cases).
    let announces = |text: &str| {
        let t = text.trim_start_matches(['-', '*', ' ']).to_lowercase();
        let t = t.strip_prefix("adds ").or_else(|| t.strip_prefix("added ")).map_or(t.as_str(), |rest| rest);
        let t = t.strip_prefix("the ").unwrap_or(t);
        t.starts_with("new") || t.starts_with("section")
    };
    let names = |v: &String| {
        crate::diff::changelog::entry(changelog, v)
            .is_some_and(|e| e.items.iter().any(|i| announces(&i.text) && i.spans().contains(&section)))
    };
    // A section announced under a candidate (`## 1.7.0-rc.1`) is added in the release the
    // candidate becomes: no suite a user vendors for good is a pre-release.
    let release = |v: &String| {
        semver::Version::parse(v).map_or_else(|_| v.clone(), |s| format!("{}.{}.{}", s.major, s.minor, s.patch))
    };
    // A section bqsuite's registry knows was added in the version the spec's history says
    // (its `SINCE`, which validate holds suites to): the CHANGELOG gives only the anchor, so an
    // entry whose announcement also names an older section in passing ("New section `x`, the
    // shape of `payload_schema`") cannot re-date that one.
    let v = match crate::sections::find(section) {
        Some(def) => {
            let (major, minor, patch) = def.since();
            let since = format!("{major}.{minor}.{patch}");
            let v = versions.iter().find(|v| **v == since).or_else(|| versions.iter().find(|v| release(v) == since));
            // No entry of that version (a CHANGELOG begun later): the version, and no link.
            let heading = v.map(|v| crate::suite::changelog::heading_text(changelog, v).unwrap_or_else(|| v.clone()));
            return Some((since, heading.map(|h| markdown::slug(&h))));
        }
        None => versions.iter().find(|v| names(v)).or_else(|| versions.first())?,
    };
    let heading = crate::suite::changelog::heading_text(changelog, v).unwrap_or_else(|| v.clone());
    Some((release(v), Some(markdown::slug(&heading))))
}

/// A description split into its contract and its rulings: `(text, [(lead, [ruling])])`.
pub fn split_rulings(description: &str) -> (String, Vec<(String, Vec<String>)>) {
    const MARKS: [&str; 3] = ["Suite rulings", "Rulings", "Ruling"];
    let starts: Vec<usize> = description
        .match_indices("Ruling")
        .map(|(i, _)| i)
        .chain(description.match_indices("Suite rulings").map(|(i, _)| i))
        .filter(|&i| i == 0 || description[..i].ends_with(". ") || description[..i].ends_with("): "))
        .filter(|&i| !description[..i].ends_with("Suite "))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let Some(&first) = starts.first() else { return (description.trim().to_owned(), Vec::new()) };
    let mut rulings = Vec::new();
    let mut bounds = starts.clone();
    bounds.push(description.len());
    for w in bounds.windows(2) {
        let part = description[w[0]..w[1]].trim();
        let mark_len = MARKS.iter().find(|m| part.starts_with(**m)).map_or(0, |m| m.len());
        let (lead, rest) = match part[mark_len..].find(':') {
            Some(colon) if colon < 70 => {
                (part[..mark_len + colon].trim().to_owned(), part[mark_len + colon + 1..].trim())
            }
            _ => (part[..mark_len].to_owned(), part[mark_len..].trim_start_matches([',', ' '])),
        };
        rulings.push((lead, split_top_level(rest)));
    }
    (description[..first].trim().to_owned(), rulings)
}

/// `text` split at `; ` outside parentheses.
fn split_top_level(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b';' if depth == 0 && bytes.get(i + 1) == Some(&b' ') => {
                out.push(text[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim().to_owned());
    out.retain(|s| !s.is_empty());
    out
}

/// What a description says, as a page shows it: its text in parts (a paragraph, or the
/// definition of one of the verdicts its cases expect), then its rulings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Described {
    /// `(None, paragraph)` or `(Some(verdict), its definition)`, in order.
    pub parts: Vec<(Option<String>, String)>,
    /// `(lead, [ruling])`, as [`split_rulings`] gives them.
    pub rulings: Vec<(String, Vec<String>)>,
}

/// `description` split as a page shows it: each sentence that defines one of `verdicts` (as
/// `poison: …`) a part of its own, the rulings apart.
pub(super) fn described(description: &str, verdicts: &BTreeSet<&str>) -> Described {
    let (text, rulings) = split_rulings(description);
    let parts = split_verdicts(&text, verdicts)
        .into_iter()
        .map(|(verdict, text)| (verdict.map(str::to_owned), text.to_owned()))
        .collect();
    Described { parts, rulings }
}

/// A description as Markdown: its text (each sentence that defines one of `verdicts`, as
/// `poison: …`, a list item of its own), then its rulings as lists.
fn describe(out: &mut String, description: &str, verdicts: &BTreeSet<&str>) {
    let Described { parts, rulings } = described(description, verdicts);
    for (i, part) in parts.iter().enumerate() {
        match part {
            (Some(v), def) => {
                let _ = writeln!(out, "- **{}**: {}", code(v), prose(def));
            }
            (None, para) => {
                let _ = writeln!(out, "{}{}\n", if i > 0 { "\n" } else { "" }, prose(para));
            }
        }
    }
    if parts.is_empty() {
        // Nothing to separate from what follows.
    } else if !out.ends_with("\n\n") {
        out.push('\n');
    }
    for (lead, items) in rulings {
        let _ = writeln!(out, "**{}:**\n", prose(&lead));
        for item in items {
            let _ = writeln!(out, "- {}", prose(&item));
        }
        out.push('\n');
    }
}

/// `text` cut where a sentence starts with `VERDICT: ` (one of `verdicts`): the paragraphs
/// between, and each verdict's definition up to the end of its sentence (`. ` outside brackets).
fn split_verdicts<'t>(text: &'t str, verdicts: &BTreeSet<&str>) -> Vec<(Option<&'t str>, &'t str)> {
    let starts_verdict = |at: usize| {
        verdicts.iter().find(|v| text[at..].starts_with(&format!("{v}: "))).map(|v| (at, &text[at..at + v.len()]))
    };
    let mut cuts: Vec<(usize, &str)> = Vec::new();
    if let Some(c) = starts_verdict(0) {
        cuts.push(c);
    }
    cuts.extend(text.match_indices(". ").filter_map(|(i, _)| starts_verdict(i + 2)));
    let mut out = Vec::new();
    let mut at = 0;
    for (start, verdict) in cuts {
        if start < at {
            continue;
        }
        let para = text[at..start].trim();
        if !para.is_empty() {
            out.push((None, para));
        }
        let def_start = start + verdict.len() + 2;
        let def_end = sentence_end(text, def_start);
        out.push((Some(verdict), text[def_start..def_end].trim()));
        at = def_end;
    }
    let rest = text[at..].trim();
    if !rest.is_empty() {
        out.push((None, rest));
    }
    out
}

/// The end (after its `.`) of the sentence that runs from `from`: the first `. ` (or the end of
/// the text) outside parentheses and brackets.
fn sentence_end(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    for i in from..bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'.' if depth <= 0 && bytes.get(i + 1).is_none_or(|&b| b == b' ') => return i + 1,
            _ => {}
        }
    }
    text.len()
}

/// The first sentence of a description (for tables).
pub fn first_sentence(description: &str) -> String {
    let end = description
        .match_indices(". ")
        .map(|(i, _)| i + 1)
        .find(|&i| description[i..].trim_start().chars().next().is_some_and(char::is_uppercase))
        .unwrap_or(description.len());
    markdown::cut(description[..end].trim(), 220)
}

/// The role of a case field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Input,
    Expectation,
    Prose,
}

impl Role {
    /// The role as the pages say it.
    pub fn word(self) -> &'static str {
        match self {
            Role::Input => "input",
            Role::Expectation => "expectation",
            Role::Prose => "prose, not asserted",
        }
    }

    /// The role as one word, for data.
    pub fn key(self) -> &'static str {
        match self {
            Role::Input => "input",
            Role::Expectation => "expectation",
            Role::Prose => "prose",
        }
    }
}

/// One group of cases: the top-level `cases` array, a sub-key's `cases` array, or a
/// single-case sub-key. A page has a heading per group ([`group_heading`]).
pub(super) struct Group<'s> {
    pub sub: Option<&'s str>,
    /// Case indices (into the section's case list), in order.
    pub cases: Vec<usize>,
    pub single: bool,
}

/// A section's cases as the registry reads them: which fields are expectations, which cases
/// need a live Redis.
pub(super) struct Read<'s> {
    pub cases: Vec<CaseRef<'s>>,
    /// Case index → field → role, from the registry.
    expectations: Vec<BTreeSet<String>>,
    pub needs: Vec<Option<Needs>>,
}

/// Read `section`'s cases through its definition in the registry (none: every field but the
/// prose and the `expect…` / `valid` ones is an input).
pub(super) fn read<'s>(suite: &'s Suite, section: &Section<'s>) -> Read<'s> {
    let cases = section.cases();
    let mut expectations = vec![BTreeSet::new(); cases.len()];
    let mut needs = vec![None; cases.len()];
    if let Some(def) = crate::sections::find(section.name) {
        let read = def.read_with_slots(suite, section);
        for (i, case) in cases.iter().enumerate().take(read.len()) {
            needs[i] = read.needs(i);
            for slot in read.slots(i) {
                if let Some(rest) = slot.pointer.strip_prefix(&format!("{}/", case.pointer))
                    && let Some(field) = rest.split('/').next()
                {
                    expectations[i].insert(field.replace("~1", "/").replace("~0", "~"));
                }
            }
        }
    }
    Read { cases, expectations, needs }
}

/// The role of `field` in case `i` (see the module's invariants).
pub(super) fn role(read: &Read<'_>, i: usize, field: &str) -> Role {
    if PROSE.contains(&field) {
        Role::Prose
    } else if read.expectations[i].contains(field) || field == "valid" || field.starts_with("expect") {
        Role::Expectation
    } else {
        Role::Input
    }
}

/// The cases in groups, in order, as the page shows them.
pub(super) fn groups<'s>(read: &Read<'s>) -> Vec<Group<'s>> {
    let mut out: Vec<Group<'s>> = Vec::new();
    for (i, c) in read.cases.iter().enumerate() {
        match out.last_mut() {
            Some(g) if g.sub == c.sub && !g.single && c.index.is_some() => g.cases.push(i),
            _ => out.push(Group { sub: c.sub, cases: vec![i], single: c.index.is_none() }),
        }
    }
    out
}

/// The suite file a value names: a string that is the path of a suite file.
pub(super) fn suite_file<'v>(suite: &Suite, v: &'v Value) -> Option<&'v str> {
    v.as_str().filter(|s| s.contains('/') && suite.file(s).is_some())
}

/// The suite files a value names, anywhere inside it.
fn files_in(cx: &Context<'_>, v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| files_in(cx, x, out)),
        Value::Object(m) => m.values().for_each(|x| files_in(cx, x, out)),
        _ => {
            if let Some(s) = suite_file(cx.suite, v) {
                out.insert(s.to_owned());
            }
        }
    }
}

/// A value in a table cell: a link when it names a suite file, else in short as code.
fn value_cell(cx: &Context<'_>, page: &str, v: &Value) -> String {
    if v.as_str() == Some("") {
        return EMPTY.to_owned();
    }
    if let Some(s) = suite_file(cx.suite, v) {
        let name = s.rsplit('/').next().unwrap_or(s);
        return format!("[{}]({})", crate::diag::visible(name), relative(page, s));
    }
    code(&short(v, CUT))
}

/// The JSON type of a value, in words.
fn type_word(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// What the cases of a group hold in one field.
#[derive(Default)]
struct FieldStats<'v> {
    types: BTreeSet<&'static str>,
    count: usize,
    roles: BTreeSet<Role>,
    strings: BTreeSet<&'v str>,
}

/// The values of the string expectations that recur (at most six distinct ones, each in two
/// cases or more): the verdicts a description defines.
pub(super) fn verdicts<'s>(read: &Read<'s>) -> BTreeSet<&'s str> {
    let mut counts: BTreeMap<&str, BTreeMap<&'s str, usize>> = BTreeMap::new();
    for (i, c) in read.cases.iter().enumerate() {
        for (k, v) in c.value.as_object().into_iter().flatten() {
            if let (Role::Expectation, Value::String(s)) = (role(read, i, k), v) {
                *counts.entry(k.as_str()).or_default().entry(s.as_str()).or_default() += 1;
            }
        }
    }
    counts
        .values()
        .filter(|values| values.len() <= 6 && values.values().all(|&n| n >= 2))
        .flat_map(|values| values.keys().copied())
        .collect()
}

/// The fields table of a group.
fn fields_table(read: &Read<'_>, group: &Group<'_>, id_rule: &str, contract: Option<&Contract>) -> String {
    let mut fields: BTreeMap<&str, FieldStats<'_>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for &i in &group.cases {
        let Some(obj) = read.cases[i].value.as_object() else { continue };
        for (k, v) in obj {
            if !fields.contains_key(k.as_str()) {
                order.push(k);
            }
            let f = fields.entry(k).or_default();
            f.types.insert(type_word(v));
            f.count += 1;
            f.roles.insert(role(read, i, k));
            if let Value::String(s) = v {
                f.strings.insert(s);
            }
        }
    }
    let n = group.cases.len();
    let rows: Vec<Vec<String>> = order
        .iter()
        .map(|&k| {
            let f = &fields[k];
            let mut ty = f.types.iter().copied().collect::<Vec<_>>().join(" or ");
            // A string field with a few values that recur is an enumeration.
            let enumerated = f.types.len() == 1
                && f.types.contains("string")
                && f.strings.len() <= 6
                && f.count >= 4
                && f.strings.len() * 2 <= f.count
                && k != "name";
            if enumerated {
                ty = format!("one of {}", f.strings.iter().map(|s| code(s)).collect::<Vec<_>>().join(", "));
            }
            let role = if k == "name" && id_rule.contains("name") {
                "the case id".to_owned()
            } else {
                f.roles.iter().map(|r| r.word()).collect::<Vec<_>>().join(" / ")
            };
            let present = if f.count == n { "every case".to_owned() } else { format!("{} of {n}", f.count) };
            match contract {
                Some(c) => {
                    let field = c.fields.iter().find(|d| d.name == k);
                    let ty = field.map_or(ty, |d| d.ty.to_owned());
                    vec![code(k), ty, present, role, field.map(|d| d.meaning.to_owned()).unwrap_or_default()]
                }
                None => vec![code(k), ty, present, role],
            }
        })
        .collect();
    match contract {
        Some(_) => table(&["field", "type", "present in", "role", "meaning"], &rows),
        None => table(&["field", "JSON type", "present in", "role"], &rows),
    }
}

/// The cases table of a group.
fn cases_table(cx: &Context<'_>, page: &str, read: &Read<'_>, group: &Group<'_>) -> String {
    let with_notes = group.cases.iter().any(|&i| {
        read.cases[i].value.as_object().is_some_and(|o| o.contains_key("description") || o.contains_key("reason"))
    });
    let all_redis = group.cases.iter().all(|&i| read.needs[i] == Some(Needs::Redis));
    let mut rows = Vec::new();
    for &i in &group.cases {
        let c = &read.cases[i];
        let Some(obj) = c.value.as_object() else {
            rows.push(vec![code(&c.id), code(&short(c.value, CUT)), String::new()]);
            continue;
        };
        let mut inputs = Vec::new();
        let mut expected = Vec::new();
        for (k, v) in obj {
            match role(read, i, k) {
                Role::Input => inputs.push(format!("{} {}", k, value_cell(cx, page, v))),
                Role::Expectation => expected.push((k.as_str(), value_cell(cx, page, v))),
                Role::Prose => {}
            }
        }
        let expected = match expected.as_slice() {
            [(k, v)] if matches!(*k, "expect" | "valid") => v.clone(),
            _ => expected.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join("; "),
        };
        let mut id = code(&c.id);
        if !all_redis && read.needs[i] == Some(Needs::Redis) {
            id.push_str(" (needs Redis)");
        }
        let mut row = vec![id, inputs.join("; "), expected];
        if with_notes {
            let note = obj.get("description").or_else(|| obj.get("reason")).and_then(Value::as_str).unwrap_or_default();
            row.push(prose(note));
        }
        rows.push(row);
    }
    let head: &[&str] =
        if with_notes { &["case id", "input", "expected", "what it pins"] } else { &["case id", "input", "expected"] };
    table(head, &rows)
}

/// The page of one section.
pub fn page(cx: &Context<'_>, section: &Section<'_>) -> String {
    let page = path(section.name);
    let mut out = String::new();
    let _ = writeln!(out, "{GENERATED_NOTE}\n");
    let _ = writeln!(out, "# `{}`\n", section.name);
    let read = read(cx.suite, section);
    let groups = groups(&read);
    if let Some(scope) = section.scope {
        let mut who = who_runs(cx.suite, scope);
        // A binding brings every section of its scope: a maintainer reading one page learns
        // the others here, not from BQ605 (a newcomer carried sqs and left out delay).
        let siblings: Vec<String> = cx
            .suite
            .sections()
            .iter()
            .filter(|s| s.scope == Some(scope) && s.name != section.name)
            .map(|s| format!("[`{}`]({})", s.name, relative(&page, &path(s.name))))
            .collect();
        if scope != Scope::Core && !siblings.is_empty() {
            let _ =
                write!(who, " Carrying it also requires the other section(s) of this scope: {}.", siblings.join(", "));
        }
        let _ = writeln!(out, "- **Scope:** {who}");
    }
    match added_in_entry(cx.changelog, section.name) {
        Some((v, Some(anchor))) => {
            let _ = writeln!(out, "- **Added in:** [{v}]({}#{anchor}) (CHANGELOG).", relative(&page, "CHANGELOG.md"));
        }
        Some((v, None)) => {
            let _ = writeln!(out, "- **Added in:** {v} (the CHANGELOG has no entry of it).");
        }
        None => {}
    }
    let blocks: Vec<String> = groups.iter().filter_map(|g| g.sub).map(|s| format!("`{s}`")).collect();
    let _ = writeln!(
        out,
        "- **Cases:** {} in `manifest.json` → `{}`{}.",
        read.cases.len(),
        section.name,
        if blocks.is_empty() { String::new() } else { format!(", in the blocks {}", blocks.join(", ")) }
    );
    let policy = cx.suite.skip_policy();
    let rules = section_rules(policy, section.name);
    let _ = writeln!(
        out,
        "- **Skip policy:** {}.",
        if rules.is_empty() {
            "no case of this section may be skipped".to_owned()
        } else {
            format!(
                "some cases may be skipped, see [Skipping](#skipping) ({})",
                rules.iter().map(|r| code(&r.name)).collect::<Vec<_>>().join(", ")
            )
        }
    );
    if let Some(contract) = crate::sections::find(section.name).map(|d| d.contract()) {
        let ops: Vec<String> = contract.operations.iter().map(|o| code(o)).collect();
        let _ = writeln!(
            out,
            "- **Adapter operations:** {} (what its cases call through [the adapter protocol]({}#operations)).",
            ops.join(", "),
            relative(&page, super::ADAPTER_PAGE)
        );
    }
    out.push('\n');

    let _ = writeln!(out, "## What an SDK must do\n");
    match must_do(section, cx.envelope_rules) {
        MustDo::Description(d) => describe(&mut out, d, &verdicts(&read)),
        MustDo::Envelope(text) => {
            let _ = writeln!(out, "{}\n", text.trim());
        }
        MustDo::Nothing => {}
    }
    if let Some(schema) = section.block.get("schema") {
        let _ = writeln!(out, "Every case is validated against this schema (`{}.schema`):\n", section.name);
        let _ = writeln!(out, "```json\n{}\n```\n", serde_json::to_string_pretty(schema).unwrap_or_default());
    }
    if let Some(contract) = crate::sections::find(section.name).map(|d| d.contract()) {
        let _ = writeln!(out, "## Running a case\n");
        for (n, step) in contract.steps.iter().enumerate() {
            let _ = writeln!(out, "{}. {step}", n + 1);
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "A runner reads the cases from `manifest.json` (its vendored copy), never from this page. The tables show values in short: a string as its text, where `\\u{{XXXX}}` stands for one invisible or control character (U+XXXX: `\\u{{000a}}` is a line feed, `\\u{{3000}}` an ideographic space, `\\u{{feff}}` a BOM) and every other character, a backslash included, is itself, so `\"\"` is a text of two quote characters and the empty string is shown as {EMPTY}, outside code; any other value as JSON; anything longer than {CUT} characters cut with …\n"
    );

    for g in &groups {
        group(&mut out, cx, &page, section, &read, g, groups.len() == 1);
    }

    if !rules.is_empty() {
        let _ = writeln!(out, "## Skipping\n");
        let _ = writeln!(
            out,
            "A run may report a case of this section as `skip` only under one of these rules of the suite's skip policy, with a `reason` that cites one of the rule's ADRs; any other skip makes the results file Not compatible ([BQ613]({}#bq613)).\n",
            relative(&page, super::CODES_PAGE)
        );
        for r in rules {
            let selected = rule_selects(r, section.name);
            let whole = if skip_policy::SkipPolicy::whole_section(r, section.name) {
                " The whole section may be skipped."
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "- {} (cite {}): {}{} Applies to {}.{whole}",
                code(&r.name),
                r.adrs.join(" or "),
                prose(&r.condition),
                rule_limits(r),
                selected.join(", ")
            );
        }
        out.push('\n');
    }

    let mut files = BTreeSet::new();
    files_in(cx, section.block, &mut files);
    if !files.is_empty() {
        let _ = writeln!(out, "## Fixtures\n");
        for f in &files {
            let _ = writeln!(out, "- [`{f}`]({})", relative(&page, f));
        }
        out.push('\n');
    }

    let _ = writeln!(out, "## Reporting\n");
    let example: Vec<String> = read
        .cases
        .iter()
        .take(2)
        .map(|c| format!("    {}: {{\"status\": \"pass\"}}", Value::String(c.id.clone())))
        .collect();
    let _ = writeln!(
        out,
        "A run reports every case of this section under `sections.{}` of its results file, by case id, as `pass`, `fail` (with a `reason`) or, where the skip policy allows it, `skip` (with a `reason` citing the ADR). See [the results format]({}).\n",
        section.name,
        relative(&page, super::RESULTS_PAGE)
    );
    let _ = writeln!(
        out,
        "```json\n\"sections\": {{\n  {}: {{\n{}{}\n  }}\n}}\n```",
        Value::String(section.name.to_owned()),
        example.join(",\n"),
        if read.cases.len() > 2 { ",\n    …" } else { "" }
    );
    out
}

/// The heading of a group on its section's page (Markdown, without the `## `).
pub(super) fn group_heading(g: &Group<'_>) -> String {
    match g.sub {
        None => "Cases".to_owned(),
        Some(sub) => format!("`{sub}`"),
    }
}

/// The object a group's cases sit in: the section's block, or its sub-key's.
fn group_block<'v>(section: &Section<'v>, g: &Group<'_>) -> &'v Value {
    match g.sub {
        None => section.block,
        Some(sub) => section.block.get(sub).unwrap_or(&Value::Null),
    }
}

/// The rule of a block, above its cases on the page: its `description` (a single-case block is
/// its one case, whose `description` is that rule). The section's own cases have none (the
/// section's description is the page's "What an SDK must do").
pub(super) fn block_description<'v>(section: &Section<'v>, g: &Group<'_>) -> Option<&'v str> {
    g.sub.and_then(|_| group_block(section, g).get("description")).and_then(Value::as_str)
}

/// The members a group's cases share (the block's other members, as the page lists them);
/// `only`: the group is the section's only one.
/// ([`crate::suite::ids::shared`]'s rule, less the `description` and, for the section's own
/// cases, the `schema` and any object, which the page shows apart).
pub(super) fn shared_of<'v>(section: &Section<'v>, g: &Group<'_>, only: bool) -> Vec<(&'v str, &'v Value)> {
    // A single-case block is its one case: its members are the case's fields.
    if g.single || !(g.sub.is_some() || !only || section.block.is_object()) {
        return Vec::new();
    }
    let shared = crate::suite::ids::shared(section.block, g.sub).into_iter().filter(|(k, _)| *k != "description");
    match g.sub {
        None => shared.filter(|(k, v)| *k != "schema" && !v.is_object()).collect(),
        Some(_) => shared.collect(),
    }
}

/// What a case field means, from the section's runner contract.
pub(super) fn meaning<'c>(contract: &'c Contract, field: &str) -> Option<&'c str> {
    contract.fields.iter().find(|f| f.name == field).map(|f| f.meaning)
}

/// What a section's "What an SDK must do" is made of.
pub(super) enum MustDo<'t> {
    /// The section's `description`.
    Description(&'t str),
    /// The `cases` array has no description: the README's "The envelope cases" (Markdown).
    Envelope(&'t str),
    Nothing,
}

/// The source of a section's "What an SDK must do": its `description`, else `envelope_rules`.
pub(super) fn must_do<'t>(section: &Section<'t>, envelope_rules: Option<&'t str>) -> MustDo<'t> {
    match (section.block.get("description").and_then(Value::as_str), envelope_rules) {
        (Some(d), _) => MustDo::Description(d),
        (None, Some(text)) => MustDo::Envelope(text),
        (None, None) => MustDo::Nothing,
    }
}

/// The skip policy's rules that select a case of `section`, in rule order.
pub(super) fn section_rules<'p>(policy: &'p skip_policy::SkipPolicy, section: &str) -> Vec<&'p skip_policy::Rule> {
    policy.rules.iter().filter(|r| r.selectors.iter().any(|s| s.section == section)).collect()
}

/// What `r` selects of `section`, in words (Markdown): "the case `x`", "every case of the
/// block `y`".
pub(super) fn rule_selects(r: &skip_policy::Rule, section: &str) -> Vec<String> {
    r.selectors
        .iter()
        .filter(|s| s.section == section)
        .map(|s| match &s.target {
            skip_policy::Target::Case(id) => format!("the case {}", code(id)),
            skip_policy::Target::Block(b) => format!("every case of the block {}", code(b)),
        })
        .collect()
}

fn group(
    out: &mut String,
    cx: &Context<'_>,
    page: &str,
    section: &Section<'_>,
    read: &Read<'_>,
    g: &Group<'_>,
    only: bool,
) {
    let n = g.cases.len();
    let first = &read.cases[g.cases[0]];
    let _ = writeln!(out, "## {}\n", group_heading(g));
    if let Some(d) = block_description(section, g) {
        describe(out, d, &BTreeSet::new());
    }
    let contract = crate::sections::find(section.name).map(|d| d.contract());
    if g.single {
        let sub = g.sub.unwrap_or_default();
        let _ = writeln!(out, "One case, id `{}`, at `manifest.json` → `{}.{sub}`:\n", first.id, section.name);
        let fields: Vec<Vec<String>> = first
            .value
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| k.as_str() != "description")
            .map(|(k, v)| {
                let mut row = vec![code(k), role(read, g.cases[0], k).word().to_owned(), value_cell(cx, page, v)];
                if let Some(c) = contract {
                    row.push(meaning(c, k).unwrap_or_default().to_owned());
                }
                row
            })
            .collect();
        let head: &[&str] =
            if contract.is_some() { &["field", "role", "value", "meaning"] } else { &["field", "role", "value"] };
        out.push_str(&table(head, &fields));
        out.push('\n');
        // The description is the prose above the table; a contract still says what it is.
        if let Some(d) = contract.and_then(|c| c.fields.iter().find(|f| f.name == "description"))
            && first.value.get("description").is_some()
        {
            let _ = writeln!(out, "`description` (the text above the table): {}\n", d.meaning);
        }
        let maps: Vec<(&String, &Value)> = first
            .value
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, v)| v.is_object() && role(read, g.cases[0], k) == Role::Expectation)
            .collect();
        for (k, v) in maps {
            let _ = writeln!(
                out,
                "`{k}` in full:\n\n```json\n{}\n```\n",
                serde_json::to_string_pretty(v).unwrap_or_default()
            );
        }
        if read.needs[g.cases[0]] == Some(Needs::Redis) {
            let _ = writeln!(out, "It needs a live Redis.\n");
        }
        return;
    }
    let at = match g.sub {
        None if section.block.is_array() => format!("`{}`", section.name),
        None => format!("`{}.cases`", section.name),
        Some(sub) => format!("`{}.{sub}.cases`", section.name),
    };
    let named = g.cases.iter().all(|&i| read.cases[i].value.get("name").is_some_and(Value::is_string));
    let id_rule = match (g.sub, named) {
        (None, true) => "the case's `name`".to_owned(),
        (None, false) => format!("`{}#<index>` for a case without a name, else its `name`", section.name),
        (Some(sub), true) => format!("`{sub}/<name>`"),
        (Some(sub), false) => format!("`{sub}/<index>` (0-based; the rows are unnamed and keep their positions)"),
    };
    let _ = writeln!(out, "{n} case{} at `manifest.json` → {at}; case id {id_rule}.\n", if n == 1 { "" } else { "s" });
    let shared = shared_of(section, g, only);
    if !shared.is_empty() {
        let list: Vec<String> =
            shared.iter().map(|(k, v)| format!("{} = {}", code(k), value_cell(cx, page, v))).collect();
        let _ = writeln!(out, "Shared by these cases: {}.\n", list.join("; "));
    }
    if g.cases.iter().all(|&i| read.needs[i] == Some(Needs::Redis)) {
        let _ = writeln!(out, "These cases need a live Redis (see the skip policy below).\n");
    }
    out.push_str(&fields_table(read, g, &id_rule, contract));
    out.push('\n');
    out.push_str(&cases_table(cx, page, read, g));
    out.push('\n');
}

/// The sections of `scope`, in manifest order.
fn of_scope<'s>(cx: &Context<'s>, scope: Scope) -> Vec<Section<'s>> {
    cx.suite.sections().into_iter().filter(|s| s.scope == Some(scope)).collect()
}

/// The table of sections by scope, with links relative to `from`.
pub fn scope_tables(cx: &Context<'_>, from: &str, heading: &str) -> String {
    let mut out = String::new();
    for scope in Scope::ALL {
        let sections = of_scope(cx, scope);
        if sections.is_empty() {
            continue;
        }
        let title = if scope == Scope::Core {
            "`core`: every SDK".to_owned()
        } else {
            format!("`{}`: {}", scope.as_str(), scope_label(scope))
        };
        let _ = writeln!(out, "{heading} {title}\n");
        if scope != Scope::Core {
            let _ = writeln!(out, "Required of a package whose results list `{}` in `bindings`.\n", scope.as_str());
        }
        let rows: Vec<Vec<String>> = sections
            .iter()
            .map(|s| {
                let cases = s.cases().len();
                let pins =
                    s.block.get("description").and_then(Value::as_str).map(first_sentence).unwrap_or_else(|| {
                        "The envelope cases: decode each fixture, accept or reject it, check what the consumer derives."
                            .into()
                    });
                vec![
                    format!("[`{}`]({})", s.name, relative(from, &path(s.name))),
                    cases.to_string(),
                    added_in(cx.changelog, s.name).unwrap_or_default(),
                    prose(&pins),
                ]
            })
            .collect();
        out.push_str(&table(&["section", "cases", "added in", "what it pins"], &rows));
        out.push('\n');
    }
    out
}

/// What limits a rule beyond its condition, as sentences to append to it (empty: nothing):
/// the families it is for, and whether one case it covers that ran refutes it for the run.
pub(super) fn rule_limits(r: &skip_policy::Rule) -> String {
    let mut t = String::new();
    if !r.families.is_empty() {
        let fams: Vec<String> = r.families.iter().map(|f| code(f)).collect();
        let _ = write!(t, " Only for SDKs of the family {}.", fams.join(" or "));
    }
    if r.all_or_none {
        t.push_str(
            " All or none: the condition is a fact about the whole run or SDK, so when any case the rule covers ran \
             (pass or fail), it allows no skip in that results file.",
        );
    }
    t
}

/// The rules of the skip policy as a table, with links relative to `from`: which cases each
/// selects, when it applies, the ADRs a skip under it cites.
pub fn skip_policy_table(cx: &Context<'_>, from: &str) -> String {
    let policy = cx.suite.skip_policy();
    let rows: Vec<Vec<String>> = policy
        .rules
        .iter()
        .map(|r| {
            let mut by_section: Vec<(String, Vec<String>)> = Vec::new();
            for sel in &r.selectors {
                let what = match &sel.target {
                    skip_policy::Target::Case(id) => code(id),
                    skip_policy::Target::Block(b) => format!("every case of the block {}", code(b)),
                };
                match by_section.iter_mut().find(|(s, _)| *s == sel.section) {
                    Some((_, list)) => list.push(what),
                    None => by_section.push((sel.section.clone(), vec![what])),
                }
            }
            let cases: Vec<String> = by_section
                .iter()
                .map(|(s, list)| {
                    let whole =
                        if skip_policy::SkipPolicy::whole_section(r, s) { " (may be skipped whole)" } else { "" };
                    format!("[`{s}`]({}): {}{whole}", relative(from, &path(s)), list.join(", "))
                })
                .collect();
            vec![
                code(&r.name),
                cases.join("; "),
                format!("{}{}", prose(&r.condition), rule_limits(r)),
                r.adrs.join(", "),
            ]
        })
        .collect();
    let mut out = table(&["rule", "cases it may skip", "when", "a skip cites"], &rows);
    // The policy's own rulings (its description's `Rulings …:` part), as the manifest states them.
    let (_, rulings) = split_rulings(&policy.description);
    for (lead, items) in rulings {
        let _ = writeln!(out, "\n{} (from the policy's `description`):\n", prose(&lead));
        for item in items {
            let _ = writeln!(out, "- {}", prose(&item));
        }
    }
    out
}

/// The index of sections by scope.
pub fn index(cx: &Context<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{GENERATED_NOTE}\n");
    let _ = writeln!(out, "# The sections of the suite, by scope\n");
    let total: usize = cx.suite.sections().iter().map(|s| s.cases().len()).sum();
    let _ = writeln!(
        out,
        "Suite {}: {} sections, {total} cases. Every section has exactly one scope (`manifest.json` → `sections`). A package runs every `core` section and the sections of each binding it carries, and lists those bindings, completely, in its results file's `bindings`; a section whose scope it does not carry is left out of its results (not skipped). Each page below says what an SDK must do for that section, with its cases.\n",
        cx.suite.version().unwrap_or("?"),
        cx.suite.sections().len()
    );
    out.push_str(&scope_tables(cx, super::SECTIONS_INDEX, "##"));
    let exceptions = cx.suite.exceptions();
    if !exceptions.is_empty() {
        let _ = writeln!(out, "## Exceptions\n");
        let _ = writeln!(
            out,
            "A family-level, ADR-backed non-support (`manifest.json` → `exceptions`): an SDK of the family does not list the binding in `bindings`, and its sections are absent from its results. That is not a skip.\n"
        );
        let rows: Vec<Vec<String>> =
            exceptions.iter().map(|e| vec![code(&e.family), code(&e.binding), e.adr.clone()]).collect();
        out.push_str(&table(&["family", "binding", "ADR"], &rows));
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "The SDK's family is the first token of its results file's `sdk` that names one (`php-sdk` is `php`, `babelqueue-java-sqs` is `java`)."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_added_in_link_is_the_anchor_of_the_entry_s_heading_as_written() {
        let changelog = "# Changelog\n\n## 1.7.0-rc.1\n\n- New section `extra`.\n- Adds the sections `more` and `most`.\n\n## 1.6.0 — 2026-12-06\n\n- New section `later`.\n- Adds three cases to `cases`.\n\n## 1.0.0\n\nThe first suite.\n";
        assert_eq!(added_in_entry(changelog, "extra"), Some(("1.7.0".into(), Some("170-rc1".into()))));
        assert_eq!(added_in_entry(changelog, "later"), Some(("1.6.0".into(), Some("160--2026-12-06".into()))));
        assert_eq!(added_in_entry(changelog, "cases"), Some(("1.0.0".into(), Some("100".into()))));
        assert_eq!(added_in_entry(changelog, "most").map(|(v, _)| v), Some("1.7.0".into()));
    }

    /// Helper 61, adding a 1.7.0 section: its CHANGELOG item "New section `payload_schema_types`
    /// …" also named `` `payload_schema` ``, and the docs dated that one 1.7.0 too. A section of
    /// the registry is dated by its `SINCE`; the CHANGELOG gives the anchor (that version's
    /// entry, else the oldest).
    #[test]
    fn a_registered_section_is_dated_by_the_registry_not_by_a_later_mention() {
        let changelog = "# Changelog\n\n## 1.7.0\n\n- New section `payload_schema_types`, with the shape of `payload_schema`.\n\n## 1.5.0\n\n- New section `delay`.\n\n## 1.0.0\n\nThe first suite.\n";
        assert_eq!(added_in_entry(changelog, "payload_schema"), Some(("1.0.0".into(), Some("100".into()))));
        assert_eq!(added_in_entry(changelog, "payload_schema_types"), Some(("1.7.0".into(), Some("170".into()))));
        assert_eq!(added_in_entry(changelog, "delay"), Some(("1.5.0".into(), Some("150".into()))));
        // No entry of its version: the registry's version, and no link to another entry.
        assert_eq!(added_in_entry(changelog, "kafka_poison"), Some(("1.6.0".into(), None)));
    }

    #[test]
    fn rulings_are_split_from_the_contract() {
        let (text, rulings) = split_rulings("Do A. Do B (x; y). Suite rulings: one; two (a; b); three.");
        assert_eq!(text, "Do A. Do B (x; y).");
        assert_eq!(
            rulings,
            vec![("Suite rulings".to_owned(), vec!["one".to_owned(), "two (a; b)".into(), "three.".into()])]
        );
        let (text, rulings) =
            split_rulings("Pins X. Ruling (the spec is silent): d <= 0 is no delay. Ruling: and more.");
        assert_eq!(text, "Pins X.");
        assert_eq!(rulings[0].0, "Ruling (the spec is silent)");
        assert_eq!(rulings[1], ("Ruling".to_owned(), vec!["and more.".to_owned()]));
        assert_eq!(split_rulings("No rulings here.").1, vec![]);
    }

    #[test]
    fn the_changelog_names_the_version_that_added_a_section() {
        let log = "# Changelog\n\n## 1.6.0\n\n- New sections: `kafka_poison` (kafka).\n- `sqs` gains x.\n\n## 1.1.0\n\n- `sqs` tables.\n\n## 1.0.0\n\n- The first tagged suite: the envelope `cases`.\n";
        assert_eq!(added_in(log, "kafka_poison").as_deref(), Some("1.6.0"));
        assert_eq!(added_in(log, "sqs").as_deref(), Some("1.0.0"), "gaining tables is not being added");
        assert_eq!(added_in(log, "cases").as_deref(), Some("1.0.0"));
        let candidate =
            "## 1.7.0\n\n- Final.\n\n## 1.7.0-rc.1\n\n- New section: `redis_x` (redis).\n\n## 1.6.0\n\n- Start.\n";
        assert_eq!(added_in(candidate, "redis_x").as_deref(), Some("1.7.0"), "the release, not its candidate");
    }

    #[test]
    fn sentences_defining_a_verdict_become_items() {
        let verdicts: BTreeSet<&str> = ["ok", "poison"].into();
        let parts =
            split_verdicts("Classify it. poison: not JSON (a. b). ok: an object. Whitespace is allowed.", &verdicts);
        assert_eq!(
            parts,
            vec![
                (None, "Classify it."),
                (Some("poison"), "not JSON (a. b)."),
                (Some("ok"), "an object."),
                (None, "Whitespace is allowed.")
            ]
        );
        assert_eq!(split_verdicts("No verdict here: ok.", &verdicts), vec![(None, "No verdict here: ok.")]);
    }

    #[test]
    fn first_sentences_skip_abbreviations_of_lowercase() {
        assert_eq!(first_sentence("Pins a (e.g. b). Then c."), "Pins a (e.g. b).");
    }
}
