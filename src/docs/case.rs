//! What the suite's contract says about one case, for `bqsuite explain SECTION/ID`: the part
//! of its section's page (`docs/sections/<section>.md`) that concerns that case, read offline
//! from the suite itself, so that a vendored copy (manifest.json, fixtures/, schema/,
//! CONFORMANCE_VERSION, no docs) is enough.
//!
//! Invariants:
//! - One home: every part comes from the functions the section page is rendered with
//!   ([`super::section`]): who runs the section, its "What an SDK must do" and rulings, the
//!   groups (a block's heading, rule and shared members), the role of each field (from the
//!   registry's reader), the meaning of each field (the runner contract), the skip rules, and
//!   the anchor of the case's heading, read from the page rendered in memory. Nothing here
//!   decides anew what the contract says.
//! - Values are shown in full, in the notation of the pages (strings as their text, hidden
//!   characters as `\u{XXXX}`, the empty string as the words "(empty text)", anything else as
//!   JSON); a field whose value names a suite file is that fixture, shown by its path.
//! - The `cases` array has no description: its "What an SDK must do" is the README's "The
//!   envelope cases", as on its page. A copy without README.md gets the README built into
//!   bqsuite when its suite version is the copy's, else nothing but the page's address.
//! - Every text taken from the suite reaches the terminal escaped (`diag::terminal_safe`,
//!   `diag::visible`).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::section::{self, MustDo, Role};
use super::{Context, ENVELOPE_HEADING, html, markdown};
use crate::diag::explain::wrap;
use crate::diag::style::{EMPHASIS, paint};
use crate::diag::{terminal_safe, visible};
use crate::suite::{Suite, skip_policy};

/// The suite's repository, whose tags hold the pages of each version.
pub const REPOSITORY: &str = "https://github.com/BabelQueue/conformance";
/// The README of the suite bqsuite was built from: the `cases` contract for a copy without one.
const BUILT_README: &str = include_str!("../../README.md");
/// The width human output is wrapped at.
const WIDTH: usize = 96;

/// What the words given to `explain` name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// One case: `(section, id)`.
    Found(String, String),
    /// A bare id several sections hold: each `(section, id)`.
    Ambiguous(Vec<(String, String)>),
    /// No case: the nearest ids, `(section, id)`, nearest first (at most five).
    Unknown(Vec<(String, String)>),
}

/// The case `words` name, in any form bqsuite prints one: `SECTION/ID`, `SECTION / ID`,
/// `SECTION<TAB>ID` (a line of `bqsuite ids`), `SECTION ID` (two words), or a bare `ID` that
/// exactly one section holds. A case id may hold `/` itself (`attempts_reconciliation/x`), so
/// `A/B` is read both as section `A`'s case `B` and as the bare id `A/B`: one match is the case,
/// more are ambiguous.
pub fn lookup(suite: &Suite, words: &[String]) -> Lookup {
    let all: Vec<(String, String)> =
        suite.sections().iter().flat_map(|s| s.cases().into_iter().map(|c| (s.name.to_owned(), c.id))).collect();
    let has = |section: &str, id: &str| all.iter().any(|(s, i)| s == section && i == id);
    let pair = |section: &str, id: &str| (section.trim().to_owned(), id.trim().to_owned());
    let asked: Vec<(String, String)> = match words {
        [section, id] => vec![pair(section, id)],
        [one] => {
            let one = one.trim();
            if let Some((section, id)) = one.split_once('\t').or_else(|| one.split_once(" / ")) {
                vec![pair(section, id)]
            } else {
                let mut found: Vec<(String, String)> = Vec::new();
                if let Some((section, id)) = one.split_once('/')
                    && has(section, id)
                {
                    found.push(pair(section, id));
                }
                found.extend(all.iter().filter(|(_, i)| i == one).cloned());
                found.dedup();
                return match found.len() {
                    0 => Lookup::Unknown(nearest(&all, one)),
                    1 => Lookup::Found(found[0].0.clone(), found[0].1.clone()),
                    _ => Lookup::Ambiguous(found),
                };
            }
        }
        _ => return Lookup::Unknown(Vec::new()),
    };
    let (section, id) = &asked[0];
    if has(section, id) {
        Lookup::Found(section.clone(), id.clone())
    } else {
        Lookup::Unknown(nearest(&all, &format!("{section}/{id}")))
    }
}

/// The ids nearest `typed` (as a bare id or as `SECTION/ID`), by edit distance (Damerau–
/// Levenshtein, as the "did you mean" of an unknown case field), within a third of its length
/// (at least 2 edits), at most five, nearest first.
fn nearest(all: &[(String, String)], typed: &str) -> Vec<(String, String)> {
    let limit = (typed.chars().count() / 3).max(2);
    // Text that starts with a section's name and `/` is a SECTION/ID: compared as one.
    let qualified = typed.split_once('/').is_some_and(|(head, _)| all.iter().any(|(s, _)| s == head));
    let mut near: Vec<(usize, usize, &(String, String))> = all
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let whole = strsim::damerau_levenshtein(typed, &format!("{}/{}", c.0, c.1));
            let d = if qualified { whole } else { whole.min(strsim::damerau_levenshtein(typed, &c.1)) };
            (d, n, c)
        })
        .filter(|(d, _, _)| *d <= limit)
        .collect();
    near.sort();
    near.into_iter().take(5).map(|(_, _, c)| c.clone()).collect()
}

/// One field of a case or a block.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub role: Role,
    pub value: Value,
    /// The suite file the value names.
    pub fixture: Option<String>,
    /// What the field means, from the section's runner contract.
    pub meaning: Option<&'static str>,
}

/// A text and its rulings, as a page shows them.
#[derive(Debug, Clone)]
pub struct Said {
    /// `(None, paragraph)` or `(Some(verdict), its definition)`.
    pub parts: Vec<(Option<String>, String)>,
    /// `(lead, [ruling])`.
    pub rulings: Vec<(String, Vec<String>)>,
}

/// A rule of the skip policy that selects cases of the section.
#[derive(Debug, Clone)]
pub struct SkipRule {
    pub rule: skip_policy::Rule,
    /// It selects this case.
    pub applies: bool,
    /// What it selects of the section, in words (Markdown code spans).
    pub selects: Vec<String>,
    /// The section may be skipped whole under it.
    pub whole_section: bool,
}

/// What the contract says about one case.
#[derive(Debug, Clone)]
pub struct Explained {
    pub version: Option<String>,
    pub section: String,
    pub id: String,
    /// The scope: its name and what it is.
    pub scope: Option<(&'static str, &'static str)>,
    /// Who runs the section (Markdown).
    pub who_runs: Option<String>,
    /// Where "What an SDK must do" comes from, and what it says.
    pub must_do: Option<(String, Said)>,
    /// The block the case sits in: its name, its rule (a single-case block: the case's own
    /// `description`) and the members its cases share.
    pub block: Option<(String, Option<Said>, Vec<Field>)>,
    /// The case is a block of its own (`description` is its block's rule).
    pub single: bool,
    /// The case's JSON pointer in manifest.json.
    pub pointer: String,
    pub fields: Vec<Field>,
    /// The rulings of the case's own `description`, if it states any.
    pub case_rulings: Vec<(String, Vec<String>)>,
    pub needs_redis: bool,
    pub skip_rules: Vec<SkipRule>,
    /// The page: its path in the suite's repository, its URL at the version's tag and the
    /// anchor of the case's heading there.
    pub page: String,
    pub url: Option<String>,
    pub anchor: Option<String>,
}

/// The contract of case `id` of `section` (`None`: no such case). `built_version` is the suite
/// version bqsuite was built from, whose README it carries.
pub fn explain(suite: &Suite, section: &str, id: &str, built_version: &str) -> Option<Explained> {
    let s = suite.section(section)?;
    let read = section::read(suite, &s);
    let index = read.cases.iter().position(|c| c.id == id)?;
    let groups = section::groups(&read);
    let g = groups.iter().find(|g| g.cases.contains(&index))?;
    let case = &read.cases[index];
    let contract = crate::sections::find(section).map(|d| d.contract());
    let field = |name: &str, value: &Value, role: Role| Field {
        name: name.to_owned(),
        role,
        value: value.clone(),
        fixture: section::suite_file(suite, value).map(str::to_owned),
        meaning: contract.and_then(|c| section::meaning(c, name)),
    };

    let envelope = envelope_rules(suite, built_version);
    let must_do = match section::must_do(&s, envelope.as_ref().map(|(_, text)| text.as_str())) {
        MustDo::Description(d) => {
            Some((format!("manifest.json → {section}.description"), said(d, &section::verdicts(&read))))
        }
        MustDo::Envelope(text) => {
            let parts = text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).map(|p| (None, p.to_owned()));
            let from = envelope.as_ref().map(|(from, _)| from.clone()).unwrap_or_default();
            Some((from, Said { parts: parts.collect(), rulings: Vec::new() }))
        }
        MustDo::Nothing => None,
    };
    let block = g.sub.map(|sub| {
        let rule = section::block_description(&s, g).map(|d| said(d, &BTreeSet::new()));
        let shared =
            section::shared_of(&s, g, groups.len() == 1).into_iter().map(|(k, v)| field(k, v, Role::Input)).collect();
        (sub.to_owned(), rule, shared)
    });
    let fields: Vec<Field> = case
        .value
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !(g.single && k.as_str() == "description"))
        .map(|(k, v)| field(k, v, section::role(&read, index, k)))
        .collect();
    let case_rulings = match case.value.get("description").and_then(Value::as_str) {
        Some(d) if !g.single => section::split_rulings(d).1,
        _ => Vec::new(),
    };
    let policy = suite.skip_policy();
    let applying: Vec<&skip_policy::Rule> = policy.rules_for(section, id);
    let skip_rules = section::section_rules(policy, section)
        .into_iter()
        .map(|r| SkipRule {
            rule: r.clone(),
            applies: applying.iter().any(|a| a.name == r.name),
            selects: section::rule_selects(r, section),
            whole_section: skip_policy::SkipPolicy::whole_section(r, section),
        })
        .collect();

    // The anchor the page gives the heading the case sits under (no row has one of its own).
    let cli = clap::Command::new("bqsuite");
    let cx = Context { suite, changelog: "", envelope_rules: envelope.as_ref().map(|(_, t)| t.as_str()), cli: &cli };
    let heading = format!("## {}", section::group_heading(g));
    let anchor =
        html::anchors(&section::page(&cx, &s)).into_iter().find(|(line, _)| *line == heading).map(|(_, id)| id);
    let version = suite.version().map(str::to_owned);
    let page = section::path(section);
    let url = version.as_deref().filter(|v| semver::Version::parse(v).is_ok()).map(|v| {
        let fragment = anchor.as_deref().map(|a| format!("#{a}")).unwrap_or_default();
        format!("{REPOSITORY}/blob/v{v}/{page}{fragment}")
    });
    Some(Explained {
        version,
        section: section.to_owned(),
        id: id.to_owned(),
        scope: s.scope.map(|sc| (sc.as_str(), section::scope_label(sc))),
        who_runs: s.scope.map(|sc| section::who_runs(suite, sc)),
        must_do,
        block,
        single: g.single,
        pointer: case.pointer.clone(),
        fields,
        case_rulings,
        needs_redis: read.needs[index] == Some(crate::sections::Needs::Redis),
        skip_rules,
        page,
        url,
        anchor,
    })
}

/// A description as the page splits it.
fn said(description: &str, verdicts: &BTreeSet<&str>) -> Said {
    let section::Described { parts, rulings } = section::described(description, verdicts);
    Said { parts, rulings }
}

/// The README's "The envelope cases" and where it was read: the suite's README.md, else the
/// one built into bqsuite when its suite version is the suite's.
fn envelope_rules(suite: &Suite, built_version: &str) -> Option<(String, String)> {
    let own = crate::fsutil::read_bounded(&suite.root.join("README.md"), crate::suite::FILE_CAP)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|readme| super::section_of(&readme, ENVELOPE_HEADING).map(str::to_owned));
    if let Some(text) = own {
        return Some((format!("README.md → {ENVELOPE_HEADING}"), text));
    }
    (suite.version() == Some(built_version)).then(|| super::section_of(BUILT_README, ENVELOPE_HEADING)).flatten().map(
        |text| {
            (
                format!("the suite's README → {ENVELOPE_HEADING} (suite {built_version}, built into bqsuite)"),
                text.to_owned(),
            )
        },
    )
}

/// A value in full, in the pages' notation: the empty string as words, a string as its text,
/// anything else as compact JSON; hidden characters as `\u{XXXX}`.
pub fn shown(v: &Value) -> String {
    if v.as_str() == Some("") {
        return "(empty text)".to_owned();
    }
    visible(&markdown::full(v)).into_owned()
}

/// The rulings that apply to the case, each with where it is stated: the section's, its
/// block's, the case's own.
fn rulings(e: &Explained) -> Vec<(&'static str, &(String, Vec<String>))> {
    let mut out = Vec::new();
    if let Some((_, said)) = &e.must_do {
        out.extend(said.rulings.iter().map(|r| ("section", r)));
    }
    if let Some((_, Some(rule), _)) = &e.block {
        out.extend(rule.rulings.iter().map(|r| ("block", r)));
    }
    out.extend(e.case_rulings.iter().map(|r| ("case", r)));
    out
}

/// `text` wrapped at the width, each line after `indent` spaces, escaped for the terminal.
fn para(out: &mut String, text: &str, indent: usize) {
    for line in wrap(&terminal_safe(text), WIDTH - indent) {
        let _ = writeln!(out, "{}{line}", " ".repeat(indent));
    }
}

/// `text` as a list item: `- ` after `indent` spaces, wrapped with a hanging indent, escaped
/// for the terminal.
fn item(out: &mut String, text: &str, indent: usize) {
    for (i, line) in wrap(&terminal_safe(text), WIDTH - indent - 2).iter().enumerate() {
        let _ = writeln!(out, "{}{}{line}", " ".repeat(indent), if i == 0 { "- " } else { "  " });
    }
}

/// A field as lines: its name in a column of `width`, its value, its meaning below.
fn field_lines(out: &mut String, f: &Field, width: usize) {
    let pad = " ".repeat(4 + width + 2);
    let name = visible(&f.name);
    let value = match (&f.fixture, &f.value) {
        // Prose is read, not compared: wrapped text below the name.
        (None, Value::String(text)) if f.role == Role::Prose && !text.is_empty() => {
            for (i, line) in wrap(&visible(text), WIDTH - pad.len()).iter().enumerate() {
                match i {
                    0 => writeln!(out, "    {name:<width$}  {line}"),
                    _ => writeln!(out, "{pad}{line}"),
                }
                .unwrap_or_default();
            }
            String::new()
        }
        (Some(path), _) => format!("{} (a fixture: the bytes of that file)", visible(path)),
        (None, v @ (Value::Object(_) | Value::Array(_)))
            if markdown::compact(v).chars().count() > WIDTH - pad.len() =>
        {
            let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
            let _ = writeln!(out, "    {name}");
            for line in pretty.lines() {
                let _ = writeln!(out, "{pad}{}", visible(line));
            }
            String::new()
        }
        (None, v) if v.as_str() == Some("") => shown(v),
        (None, v) => crate::diag::explain::code_span(&shown(v)),
    };
    if !value.is_empty() {
        let _ = writeln!(out, "    {name:<width$}  {value}");
    }
    if let Some(m) = f.meaning {
        para(out, m, pad.len());
    }
}

/// The explanation as terminal text.
pub fn render_text(e: &Explained, color: bool) -> String {
    let mut out = String::new();
    let version = e.version.as_deref().map(|v| format!(" (suite {})", crate::diag::token_safe(v))).unwrap_or_default();
    let title = format!("{} / {}", visible(&e.section), visible(&e.id));
    let _ = writeln!(out, "{}{version}", paint(EMPHASIS, &title, color));

    let _ = writeln!(out, "\n{}", paint(EMPHASIS, &format!("Section {}", visible(&e.section)), color));
    if let Some(who) = &e.who_runs {
        para(&mut out, &format!("Scope: {who}"), 2);
    }
    match &e.must_do {
        Some((from, said)) => {
            let _ = writeln!(out, "  What an SDK must do ({}):", terminal_safe(from));
            for (i, (verdict, text)) in said.parts.iter().enumerate() {
                // A blank line between parts, none between two verdicts (one list).
                if i > 0 && !(verdict.is_some() && said.parts[i - 1].0.is_some()) {
                    out.push('\n');
                }
                match verdict {
                    Some(v) => item(&mut out, &format!("{}: {text}", crate::diag::explain::code_span(&visible(v))), 4),
                    // A part of the README is Markdown already laid out in lines.
                    None if text.contains('\n') => {
                        for line in text.lines() {
                            let _ = writeln!(out, "    {}", terminal_safe(line.trim_end()));
                        }
                    }
                    None => para(&mut out, text, 4),
                }
            }
        }
        None => {
            let _ = writeln!(
                out,
                "  What an SDK must do: the README's \"{ENVELOPE_HEADING}\", which this copy does not carry (see the page)."
            );
        }
    }

    if let Some((name, rule, shared)) = &e.block {
        let _ = writeln!(out, "\n{}", paint(EMPHASIS, &format!("Block {}", visible(name)), color));
        if let Some(rule) = rule {
            for (verdict, text) in &rule.parts {
                let text = match verdict {
                    Some(v) => format!("{v}: {text}"),
                    None => text.clone(),
                };
                para(&mut out, &text, 2);
            }
        }
        if !shared.is_empty() {
            let _ = writeln!(out, "  Shared by its cases:");
            let width = shared.iter().map(|f| f.name.chars().count()).max().unwrap_or(0);
            for f in shared {
                field_lines(&mut out, f, width);
            }
        }
    }

    let _ = writeln!(
        out,
        "\n{} (manifest.json → {})",
        paint(EMPHASIS, &format!("Case {}", visible(&e.id)), color),
        visible(&e.pointer)
    );
    if e.single {
        let _ = writeln!(out, "  The block is this one case: its description is the block's rule, above.");
    }
    if e.needs_redis {
        let _ = writeln!(out, "  It needs a live Redis.");
    }
    let width = e.fields.iter().map(|f| f.name.chars().count()).max().unwrap_or(0);
    // What the case pins (its prose) first, then what it is given, then what it must give.
    for role in [Role::Prose, Role::Input, Role::Expectation] {
        let fields: Vec<&Field> = e.fields.iter().filter(|f| f.role == role).collect();
        if fields.is_empty() {
            continue;
        }
        let _ = writeln!(out, "  {}:", role.word());
        for f in fields {
            field_lines(&mut out, f, width);
        }
    }

    let rulings = rulings(e);
    if !rulings.is_empty() {
        let _ = writeln!(out, "\n{}", paint(EMPHASIS, "Rulings that apply", color));
        for (from, (lead, items)) in rulings {
            let _ = writeln!(out, "  {}, in the {from}'s description:", terminal_safe(lead));
            for ruling in items {
                item(&mut out, ruling, 4);
            }
        }
    }

    let _ = writeln!(out, "\n{}", paint(EMPHASIS, "Skipping", color));
    if e.skip_rules.is_empty() {
        let _ = writeln!(out, "  No case of this section may be skipped.");
    } else {
        if !e.skip_rules.iter().any(|r| r.applies) {
            let _ = writeln!(out, "  This case may not be skipped. The section's skip rules:");
        }
        for r in &e.skip_rules {
            let whom = if r.applies { "this case may be skipped under it" } else { "not this case" };
            let mut text = format!(
                "{} ({whom}; a skip cites {}): {}{}",
                crate::diag::explain::code_span(&visible(&r.rule.name)),
                r.rule.adrs.join(" or "),
                r.rule.condition,
                section::rule_limits(&r.rule)
            );
            if !r.applies {
                let _ = write!(text, " Applies to {}.", r.selects.join(", "));
            }
            if r.whole_section {
                text.push_str(" The whole section may be skipped.");
            }
            item(&mut out, &text, 2);
        }
    }

    let _ = writeln!(out, "\n{}", paint(EMPHASIS, "The whole page", color));
    let _ = writeln!(out, "  {} in the suite's repository (a vendored copy carries no docs)", visible(&e.page));
    if let Some(url) = &e.url {
        let _ = writeln!(out, "  {}", terminal_safe(url));
    }
    out
}

/// A field as JSON.
fn field_json(f: &Field) -> Value {
    json!({
        "field": f.name,
        "role": f.role.key(),
        "value": f.value,
        "shown": shown(&f.value),
        "fixture": f.fixture,
        "meaning": f.meaning,
    })
}

/// A text's parts (its rulings are in the explanation's `rulings`, with where each is stated).
fn parts_json(s: &Said) -> Value {
    s.parts.iter().map(|(verdict, text)| json!({"verdict": verdict, "text": text})).collect()
}

/// The explanation as JSON: the same parts as the text.
pub fn render_json(e: &Explained) -> Value {
    json!({
        "conformance_version": e.version,
        "section": {
            "name": e.section,
            "scope": e.scope.map(|(name, _)| name),
            "scope_label": e.scope.map(|(_, label)| label),
            "who_runs": e.who_runs,
            "must_do": e.must_do.as_ref().map(|(from, said)| json!({"from": from, "text": parts_json(said)})),
        },
        "block": e.block.as_ref().map(|(name, rule, shared)| json!({
            "name": name,
            "rule": rule.as_ref().map(parts_json),
            "shared": shared.iter().map(field_json).collect::<Vec<_>>(),
        })),
        "case": {
            "id": e.id,
            "pointer": e.pointer,
            "single": e.single,
            "needs_redis": e.needs_redis,
            "fields": e.fields.iter().map(field_json).collect::<Vec<_>>(),
        },
        "rulings": rulings(e).into_iter().map(|(from, (lead, items))| json!({
            "from": from,
            "lead": lead,
            "items": items,
        })).collect::<Vec<_>>(),
        "skip_rules": e.skip_rules.iter().map(|r| json!({
            "rule": r.rule.name,
            "applies_to_case": r.applies,
            "condition": r.rule.condition,
            "adrs": r.rule.adrs,
            "families": r.rule.families,
            "all_or_none": r.rule.all_or_none,
            "whole_section": r.whole_section,
            "selects": r.rule.selectors.iter().filter(|s| s.section == e.section).map(|s| match &s.target {
                skip_policy::Target::Case(id) => json!({"case": id}),
                skip_policy::Target::Block(b) => json!({"block": b}),
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "page": {
            "path": e.page,
            "url": e.url,
            "anchor": e.anchor,
        },
    })
}
