//! The manifest half of `diff`: suite metadata, sections, blocks, cases and their fields.
//!
//! Invariants:
//! - Sections are the top-level members other than the metadata keys ([`crate::suite::METADATA_KEYS`]
//!   and [`super::SKIP_POLICY`]); a section's scope is the string its `sections` entry holds,
//!   compared as written (an unknown scope is still a scope). Cases come only from
//!   [`crate::suite::case_ids`] and are matched by id within their section.
//! - A block added or removed as a whole is one change listing its case ids, not one per case; a
//!   section likewise. Cases added to or removed from a block both sides have are one change
//!   each. A case is matched by its id and its block (`None`: the section's own `cases`), so
//!   a case moved out of `cases` into a single-case sub-key of the same name is removed from
//!   `cases` (breaking: runners iterating `cases` lose it) and its block added. A case in both is compared as JSON ([`super::json`], arrays by position, except the lists
//!   whose order the spec says carries no meaning, [`SETS`], compared as multisets), its prose
//!   members set apart; members added to it that no old case of its block carries are one
//!   [`Kind::FieldAdded`] change per block and member, listing the cases; what remains
//!   (members the old cases of its block carry included: a correction, see [`Known`]) is one
//!   [`Kind::CaseChanged`] whose class is its worst edit's.
//! - A section's or block's shared fields (everything of the object that is not a case: a
//!   section's `description`, `schema` and non-object members, a block's members beside
//!   `cases`) are one [`Kind::FieldsChanged`] per section or block. A section that turned from
//!   an object into an array of cases or back is one breaking [`Kind::FieldsChanged`] as well,
//!   whatever its cases: runners read it in its old shape.
//! - Changes come out in the new manifest's order: suite metadata, then each section (removed
//!   sections where they were), within a section its scope, shared fields, then blocks and
//!   cases in id order of the new side, removals last.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::exact::Numbers;
use super::json::{Arrays, Compare, Edit, Op};
use super::{Change, Class, Kind, SKIP_POLICY};
use crate::suite::ids::{is_block, shared};
use crate::suite::skip_policy::{Rule, SkipPolicy};
use crate::suite::{CaseRef, METADATA_KEYS, Suite, case_ids, pointer};

pub use crate::suite::ids::PROSE;

/// Case lists whose order carries no meaning, by section and pointer inside the case (a token
/// `*` is any token, `a|b` either), each from where the spec or the section's description says
/// so; they compare as multisets ([`Compare::sets`]: an element added, removed or repeated is
/// an edit, a new order is none). Every other list of a case is ordered (by position).
pub const SETS: [(&[&str], &[&str]); 7] = [
    // "none of its pointers may exist" (roundtrip, forbidden_keys; trim's mode decode, whose
    // fields job_type shares).
    (&["roundtrip", "forbidden_keys", "trim", "job_type"], &["expect_absent_after_reencode"]),
    // "lists pointers each named by at least one decode warning" (an empty list: no warning).
    (&["trim", "job_type"], &["expect_warnings"]),
    // "carries none of expect_absent_headers".
    (&["backoff"], &["expect_absent_headers"]),
    // "the record text contains every splice_literals entry"; splice_keys "as a set".
    (&["poison_dlq"], &["expect", "splice_literals|splice_keys"]),
    // "contents <key>: [item] (lists in order, sorted sets in any order)": the sorted sets of
    // both layouts (:delayed, :reserved, the legacy deadlines), in a case's state (ZADD with
    // its scores), its final expect and a step's expect.
    (&["redis_layout"], &["state", "delayed|reserved|deadlines"]),
    (&["redis_layout"], &["expect", "delayed|reserved|deadlines"]),
    (&["redis_layout"], &["steps", "*", "expect", "delayed|reserved|deadlines"]),
];

/// Is the array at `at` (a pointer relative to a case of `section`) one of the [`SETS`]?
pub fn is_set(section: &str, at: &str) -> bool {
    let tokens = pointer::parse(at).unwrap_or_default();
    SETS.iter().filter(|(sections, _)| sections.contains(&section)).any(|(_, pattern)| {
        tokens.len() == pattern.len()
            && tokens.iter().zip(pattern.iter()).all(|(t, p)| *p == "*" || p.split('|').any(|x| x == t))
    })
}

/// Is `key` a top-level key that holds a section?
pub fn is_section_key(key: &str) -> bool {
    !METADATA_KEYS.contains(&key) && key != SKIP_POLICY
}

/// Is the edit (relative to a case or block object) inside one of its prose members?
fn is_prose(e: &Edit) -> bool {
    e.top().is_some_and(|k| PROSE.contains(&k.as_str()))
}

/// The class of one non-prose edit of shared fields (a section's or block's own members).
fn class_of(e: &Edit) -> Class {
    match e.op {
        Op::Retyped => Class::Breaking,
        Op::Removed if e.is_top_level() => Class::Breaking,
        Op::Added if e.is_top_level() => Class::Additive,
        _ => Class::Correction,
    }
}

/// The class of one non-prose edit of an existing case. As for shared fields, except that a
/// member of the case removed is a correction: the case now expects something else (an
/// expectation field replaced by another, as 1.6.0 replaced `backoff.retry_republish`'s
/// `release_delay_ms` by the §6.5 tier), which a MINOR may do only when its CHANGELOG entry
/// names the case with its ADR. So is a member added that runners of the old version already
/// evaluate ([`Known`]; the caller keeps only those among the edits): the spec's "unknown case
/// fields are ignored" covers fields a runner does not know, and "a runner evaluates an
/// optional field only when the case carries it" makes such a field change what the case
/// tests. A retype stays breaking (R20.3: one retyped field aborts a whole runner, not only
/// the case).
fn class_of_case(e: &Edit) -> Class {
    match e.op {
        Op::Removed | Op::Added if e.is_top_level() => Class::Correction,
        _ => class_of(e),
    }
}

/// What the runners of the old version evaluate in a case, by (block, member): the members the
/// cases of each block carry on the old side (the group is the block a case lies in, `None`
/// for the section's own `cases` array or a section that is one array, so a single-case block
/// knows only its own members), and every field of the section's contract in bqsuite's
/// registry, in any block. A runner may read a field for every case of its section with a
/// default where a case has none (redis_layout's `queue`, `retry_after` and `state`), so a
/// block whose old cases all lack such a field still evaluates it once a case carries it. The
/// registry is this tool's version's, not the compared versions': a field it names that the
/// old version's runners did not know yet is taken as known too, which asks the CHANGELOG to
/// name a change a MINOR could have made unnamed, never the other way round.
struct Known<'a> {
    carried: BTreeSet<(Option<&'a str>, &'a str)>,
    contract: BTreeSet<&'static str>,
}

impl<'a> Known<'a> {
    fn of(section: &str, side: &Side<'a>) -> Self {
        let mut carried = BTreeSet::new();
        for c in &side.cases {
            for k in c.value.as_object().into_iter().flat_map(|m| m.keys()) {
                carried.insert((c.sub, k.as_str()));
            }
        }
        let contract = crate::sections::find(section)
            .map(|d| d.contract().fields.iter().map(|f| f.name).collect())
            .unwrap_or_default();
        Known { carried, contract }
    }

    /// Do the old version's runners evaluate `member` in a case of `block`?
    fn has(&self, block: Option<&str>, member: &str) -> bool {
        self.contract.contains(member) || self.carried.iter().any(|(b, m)| *b == block && *m == member)
    }
}

/// The note of a case change that adds members the old version's runners evaluate.
fn known_note(members: &[String]) -> String {
    let list: Vec<String> = members.iter().map(|m| format!("`{m}`")).collect();
    let one = members.len() == 1;
    format!(
        "{} {} by the old version's runners (carried by other cases of its block, or a field of its section's \
         contract): adding {} changes this case's expectation (a correction, not a new optional field)",
        list.join(", "),
        if one { "is evaluated" } else { "are evaluated" },
        if one { "it" } else { "them" },
    )
}

/// Split edits into (data, prose).
fn split(edits: Vec<Edit>, prose: impl Fn(&Edit) -> bool) -> (Vec<Edit>, Vec<Edit>) {
    edits.into_iter().partition(|e| !prose(e))
}

/// The class of a change made of `data` and `prose` edits, by `class` of each data edit.
fn worst(data: &[Edit], class: impl Fn(&Edit) -> Class) -> Class {
    data.iter().map(class).max().unwrap_or(Class::Editorial)
}

/// The exact numbers of the two manifests' texts ([`super::exact`]), where they parse.
#[derive(Clone, Copy, Default)]
pub struct Texts<'a> {
    pub old: Option<&'a Numbers>,
    pub new: Option<&'a Numbers>,
}

impl<'a> Texts<'a> {
    /// A comparison of a value at `old_at` of the old manifest with one at `new_at` of the new.
    fn compare(&self, arrays: Arrays, old_at: &'a str, new_at: &'a str) -> Compare<'a> {
        Compare::new(arrays).numbers(self.old, old_at, self.new, new_at)
    }
}

/// Every change of the manifest from `old` to `new`, numbers as the values hold them.
pub fn compare(old: &Map<String, Value>, new: &Map<String, Value>) -> Vec<Change> {
    compare_texts(old, new, Texts::default())
}

/// Every change of the manifest from `old` to `new`, numbers exactly as `texts` has them.
pub fn compare_texts(old: &Map<String, Value>, new: &Map<String, Value>, texts: Texts<'_>) -> Vec<Change> {
    let mut out = Vec::new();
    let t = &texts;
    let version = member_edits(old, new, "schema_version", t);
    if !version.is_empty() {
        let mut c = Change::new(Kind::SchemaVersionChanged, Class::Breaking);
        c.pointer = Some("/schema_version".into());
        c.edits = version;
        out.push(c);
    }
    let description = member_edits(old, new, "description", t);
    if !description.is_empty() {
        let mut c = Change::new(Kind::DescriptionChanged, Class::Editorial);
        c.pointer = Some("/description".into());
        c.prose = description;
        out.push(c);
    }
    exceptions(old, new, t, &mut out);
    skip_policy(old, new, t, &mut out);
    sections(old, new, t, &mut out);
    out
}

/// The edits of one top-level member, with pointers from the document root.
fn member_edits(old: &Map<String, Value>, new: &Map<String, Value>, key: &str, t: &Texts<'_>) -> Vec<Edit> {
    let wrap =
        |m: &Map<String, Value>| Value::Object(m.get(key).map(|v| (key.to_owned(), v.clone())).into_iter().collect());
    t.compare(Arrays::Keyed, "", "").edits(&wrap(old), &wrap(new))
}

/// `exceptions`, entry by entry (keyed by family and binding where the entries allow it).
fn exceptions(old: &Map<String, Value>, new: &Map<String, Value>, t: &Texts<'_>, out: &mut Vec<Change>) {
    let list = |m: &Map<String, Value>| m.get("exceptions").cloned().unwrap_or(Value::Array(Vec::new()));
    let (a, b) = (list(old), list(new));
    // Keyed by its index and by whether it removes a whole entry: a removed entry's pointer
    // uses its old index, every other edit the new one, so an entry removed and another added
    // at the same index (a re-targeted entry, matched by family + binding) are two changes,
    // never one that keeps only the first (which would hide the breaking addition).
    let mut by_entry: BTreeMap<(String, bool), Vec<Edit>> = BTreeMap::new();
    for e in t.compare(Arrays::Keyed, "/exceptions", "/exceptions").edits(&a, &b) {
        let entry = e.top().unwrap_or_default();
        let kept = !(e.is_top_level() && e.op == Op::Removed);
        by_entry.entry((entry, kept)).or_default().push(e);
    }
    for ((entry, _), edits) in by_entry {
        let whole = edits.iter().find(|e| e.is_top_level()).map(|e| e.op);
        let side = |e: &Edit| e.new.as_ref().or(e.old.as_ref()).cloned();
        let (kind, class) = match whole {
            Some(Op::Added) => (Kind::ExceptionAdded, Class::Breaking),
            Some(Op::Removed) => (Kind::ExceptionRemoved, Class::Additive),
            _ if edits.iter().any(|e| matches!(e.tokens().get(1).map(String::as_str), Some("family" | "binding"))) => {
                (Kind::ExceptionChanged, Class::Breaking)
            }
            _ if edits.iter().all(|e| e.tokens().get(1).is_some_and(|k| k == "adr" || PROSE.contains(&k.as_str()))) => {
                (Kind::ExceptionChanged, Class::Editorial)
            }
            _ => (Kind::ExceptionChanged, Class::Breaking),
        };
        let mut c = Change::new(kind, class);
        let index: usize = entry.parse().unwrap_or(0);
        let value = edits.iter().find(|e| e.is_top_level()).and_then(side).or_else(|| {
            let from = if kind == Kind::ExceptionRemoved { &a } else { &b };
            from.get(index).cloned()
        });
        c.scope = value.as_ref().and_then(|v| v.get("binding")).and_then(Value::as_str).map(str::to_owned);
        c.pointer = Some(format!("/exceptions/{index}"));
        let (data, prose) = split(edits, |e| class == Class::Editorial && e.tokens().len() > 1);
        c.edits = data;
        c.prose = prose;
        out.push(c);
    }
}

/// `skip_policy`, whatever its shape: the whole policy or an element of one of its arrays added
/// is additive (a new rule, or a case, ADR, family or whole section a rule allows more of),
/// except a case added to the `cases` of a rule with `all_or_none: true`, which is breaking
/// (once any case such a rule covers ran, it allows none of its skips: a case every run runs
/// takes them all away);
/// a member added to an existing object of it is breaking, as removed or changed ones are (a
/// rule that gains `families` or `all_or_none: true` allows fewer skips, and the tool does not
/// guess which new members widen); prose members editorial.
fn skip_policy(old: &Map<String, Value>, new: &Map<String, Value>, t: &Texts<'_>, out: &mut Vec<Change>) {
    let edits = member_edits(old, new, SKIP_POLICY, t);
    if edits.is_empty() {
        return;
    }
    let (data, prose) = split(edits, |e| e.tokens().last().is_some_and(|k| PROSE.contains(&k.as_str())));
    // The edit adds an element to an array (its parent, on the new side, is one).
    let element = |e: &Edit| {
        let tokens = e.tokens();
        let parent =
            tokens[1..tokens.len().saturating_sub(1).max(1)].iter().fold(String::new(), |p, t| pointer::join(&p, t));
        tokens.len() >= 2 && new.get(SKIP_POLICY).and_then(|v| v.pointer(&parent)).is_some_and(Value::is_array)
    };
    // An all-or-none rule allows none of its skips once any case it covers ran, so a case added
    // to what it covers can take all of them away (a case every run runs): not additive.
    let all_or_none_widened = |e: &Edit| {
        let t = e.tokens();
        t.len() == 5
            && t[1] == "rules"
            && t[3] == "cases"
            && new
                .get(SKIP_POLICY)
                .and_then(|p| p.get("rules"))
                .and_then(|r| r.get(t[2].parse::<usize>().ok()?))
                .and_then(|r| r.get("all_or_none"))
                .and_then(Value::as_bool)
                == Some(true)
    };
    let class = worst(&data, |e| match e.op {
        Op::Added if all_or_none_widened(e) => Class::Breaking,
        Op::Added if e.is_top_level() || element(e) => Class::Additive,
        _ => Class::Breaking,
    });
    let mut c = Change::new(Kind::SkipPolicyChanged, class);
    c.pointer = Some(pointer::join("", SKIP_POLICY));
    c.edits = data;
    c.prose = prose;
    out.push(c);
}

/// A skip policy that only grew is additive for the cases it did not know; one that lets a case
/// of the old side be skipped ([`widened_skips`]) changes what that case asks of every SDK, so
/// its change is a correction the entry names as `skip_policy`, listing them (red team F1,
/// stop 49: a new rule covering 147 core cases was a MINOR nobody had to name).
pub(super) fn classify_widened_skips(changes: &mut [Change], old: &Suite, new: &Suite) {
    let Some(c) = changes.iter_mut().find(|c| c.kind == Kind::SkipPolicyChanged && c.class == Class::Additive) else {
        return;
    };
    let Widened { sections, cases } = widened_skips(old, new);
    if sections.is_empty() && cases.is_empty() {
        return;
    }
    let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let what = match (cases.len(), sections.len()) {
        (n, 0) => count(n, "case", "cases"),
        (0, n) => count(n, "whole section", "whole sections"),
        (c, s) => format!("{} and {}", count(c, "case", "cases"), count(s, "whole section", "whole sections")),
    };
    c.class = Class::Correction;
    c.note = Some(format!(
        "lets {what} of the previous version be skipped (by a new rule, or a rule widened to them): no longer \
         required of every SDK, a correction the entry names as `{SKIP_POLICY}`"
    ));
    c.ids = sections.into_iter().chain(cases).collect();
}

/// What a new skip policy lets be skipped that the old one did not.
#[derive(Debug, Default)]
struct Widened {
    /// Sections now skippable whole, by name.
    sections: Vec<String>,
    /// Cases, as `section.id`.
    cases: Vec<String>,
}

/// The cases of the old side that the new side's skip policy lets be skipped where the old one
/// did not: for an SDK of some family (or of none), a rule of the new policy selects the case
/// and cites an ADR no rule of the old one allowed it, or lets its section be skipped whole.
/// In the old manifest's order. Cases the old side did not have are not among them: a rule for
/// a new case is additive. Nor are any when the old side has no policy at all: its runs were
/// judged by the spec's rule alone (any skip that cites an ADR), which a policy can only narrow.
fn widened_skips(old: &Suite, new: &Suite) -> Widened {
    let mut out = Widened::default();
    if old.manifest().is_none_or(|m| !m.contains_key(SKIP_POLICY)) {
        return out;
    }
    let (was, now) = (old.skip_policy(), new.skip_policy());
    let mut families: Vec<Option<&str>> = vec![None];
    families.extend(was.rules.iter().chain(&now.rules).flat_map(|r| r.families.iter().map(|f| Some(f.as_str()))));
    families.sort_unstable();
    families.dedup();
    let whole = |p: &SkipPolicy, section: &str, f: Option<&str>| {
        p.rules.iter().any(|r| SkipPolicy::for_family(r, f) && SkipPolicy::whole_section(r, section))
    };
    for section in old.sections().into_iter().filter(|s| new.section(s.name).is_some()) {
        if families.iter().any(|&f| whole(now, section.name, f) && !whole(was, section.name, f)) {
            out.sections.push(section.name.to_owned());
        }
        for case in section.cases() {
            let wider = families.iter().any(|&f| {
                let keep = |r: &Rule| SkipPolicy::for_family(r, f);
                let before = was.allowed_adrs_by(section.name, &case.id, keep);
                now.allowed_adrs_by(section.name, &case.id, keep).iter().any(|a| !before.contains(a))
            });
            if wider {
                out.cases.push(format!("{}.{}", section.name, case.id));
            }
        }
    }
    out
}

/// A section as both sides see it.
struct Side<'a> {
    block: &'a Value,
    scope: Option<String>,
    cases: Vec<CaseRef<'a>>,
}

impl<'a> Side<'a> {
    fn of(m: &'a Map<String, Value>, name: &str) -> Option<Side<'a>> {
        let block = m.get(name)?;
        let scope = m.get("sections").and_then(|s| s.get(name)).and_then(Value::as_str).map(str::to_owned);
        Some(Side { block, scope, cases: case_ids(name, block) })
    }

    /// The sub-keys that hold cases (a `cases` block or a single case), in manifest order.
    fn blocks(&self) -> Vec<&'a str> {
        let mut seen = Vec::new();
        for c in &self.cases {
            if let Some(b) = c.sub.filter(|b| !seen.contains(b)) {
                seen.push(b);
            }
        }
        if let Value::Object(m) = self.block {
            for (k, v) in m {
                if is_block(k, v) && !seen.contains(&k.as_str()) {
                    seen.push(k);
                }
            }
        }
        seen
    }

    fn ids_in(&self, block: Option<&str>) -> Vec<String> {
        self.cases.iter().filter(|c| c.sub == block).map(|c| c.id.clone()).collect()
    }

    /// The shared fields of the section (`block` `None`) or of one of its `cases` blocks
    /// ([`crate::suite::ids::shared`]'s rule).
    fn shared(&self, block: Option<&str>) -> Value {
        Value::Object(shared(self.block, block).into_iter().map(|(k, v)| (k.to_owned(), v.clone())).collect())
    }
}

fn section_change(kind: Kind, class: Class, name: &str, scope: &Option<String>) -> Change {
    let mut c = Change::new(kind, class);
    c.section = Some(name.to_owned());
    c.scope = scope.clone();
    c.pointer = Some(pointer::join("", name));
    c
}

fn sections(old: &Map<String, Value>, new: &Map<String, Value>, t: &Texts<'_>, out: &mut Vec<Change>) {
    let names = |m: &Map<String, Value>| m.keys().filter(|k| is_section_key(k)).cloned().collect::<Vec<_>>();
    let (old_names, new_names) = (names(old), names(new));
    let mut order: Vec<&String> = new_names.iter().collect();
    for (i, name) in old_names.iter().enumerate().filter(|(_, n)| !new_names.contains(n)) {
        // A removed section goes after the section that preceded it in the old manifest.
        let after = old_names[..i].iter().rev().find_map(|p| order.iter().position(|o| *o == p));
        order.insert(after.map_or(0, |p| p + 1), name);
    }
    for name in order {
        match (Side::of(old, name), Side::of(new, name)) {
            (None, Some(b)) => {
                let mut c = section_change(Kind::SectionAdded, Class::Additive, name, &b.scope);
                c.ids = b.cases.iter().map(|c| c.id.clone()).collect();
                out.push(c);
            }
            (Some(a), None) => {
                let mut c = section_change(Kind::SectionRemoved, Class::Breaking, name, &a.scope);
                c.ids = a.cases.iter().map(|c| c.id.clone()).collect();
                out.push(c);
            }
            (Some(a), Some(b)) => section(name, &a, &b, t, out),
            (None, None) => {}
        }
    }
}

fn section(name: &str, a: &Side<'_>, b: &Side<'_>, t: &Texts<'_>, out: &mut Vec<Change>) {
    let scope = b.scope.clone().or_else(|| a.scope.clone());
    if a.scope != b.scope {
        let mut c = section_change(Kind::SectionRescoped, Class::Breaking, name, &scope);
        // It concerns the SDKs of both scopes: the old one's stop reporting the section.
        c.scopes = [&a.scope, &b.scope].into_iter().flatten().cloned().collect();
        c.scopes.dedup();
        let value = |s: &Option<String>| Some(s.clone().map_or(Value::Null, Value::String));
        let at = pointer::join("/sections", name);
        c.edits = vec![Edit {
            pointer: at,
            op: Op::Changed,
            old: value(&a.scope),
            new: value(&b.scope),
            old_literal: None,
            new_literal: None,
        }];
        out.push(c);
    }
    let at = |block: Option<&str>| {
        block.map_or_else(|| pointer::join("", name), |bk| pointer::join(&pointer::join("", name), bk))
    };
    // A section that is an array on one side and an object on the other, even with the same
    // cases: a runner reads a section in the shape the spec gives it (`cases` an array, every
    // other section an object of blocks), so every runner of it stops reading it.
    if a.block.is_array() != b.block.is_array() {
        let shape = |v: &Value| if v.is_array() { "an array of cases" } else { "an object" };
        let mut c = section_change(Kind::FieldsChanged, Class::Breaking, name, &scope);
        c.pointer = Some(at(None));
        c.note = Some(format!(
            "the section is {} where it was {}: runners read it in the shape the old version gives it",
            shape(b.block),
            shape(a.block)
        ));
        out.push(c);
    }
    shared_fields(name, &scope, None, (&a.shared(None), &b.shared(None)), (at(None), t), out);
    let (old_blocks, new_blocks) = (a.blocks(), b.blocks());
    // A case is matched by its id and where it lies: a case of the section's own `cases` and a
    // single-case sub-key can share an id, but runners look for them in different places, so
    // a case moved from one to the other is removed from where it was.
    let old_cases: BTreeMap<(Option<&str>, &str), &CaseRef<'_>> =
        a.cases.iter().map(|c| ((c.sub, c.id.as_str()), c)).collect();
    let known = Known::of(name, a);
    let mut fields: BTreeMap<(Option<&str>, String), Vec<String>> = BTreeMap::new();
    let mut field_order: Vec<(Option<&str>, String)> = Vec::new();
    let mut done_blocks = BTreeSet::new();
    // A case id repeated within a block is compared once, at its last occurrence (the one a
    // last-wins reader keeps; [`super::repeats`] tells the repetition itself).
    let last_new: BTreeMap<(Option<&str>, &str), &str> =
        b.cases.iter().map(|c| ((c.sub, c.id.as_str()), c.pointer.as_str())).collect();
    for case in &b.cases {
        let block = case.sub;
        if last_new.get(&(block, case.id.as_str())) != Some(&case.pointer.as_str()) {
            continue;
        }
        if let Some(bk) = block.filter(|bk| !old_blocks.contains(bk)) {
            if done_blocks.insert(bk) {
                let mut c = section_change(Kind::BlockAdded, Class::Additive, name, &scope);
                c.block = Some(bk.to_owned());
                c.ids = b.ids_in(Some(bk));
                c.pointer = Some(at(Some(bk)));
                out.push(c);
            }
            continue;
        }
        if let Some(bk) = block.filter(|bk| done_blocks.insert(bk)) {
            shared_fields(name, &scope, Some(bk), (&a.shared(Some(bk)), &b.shared(Some(bk))), (at(Some(bk)), t), out);
        }
        let Some(old_case) = old_cases.get(&(block, case.id.as_str())) else {
            let mut c = section_change(Kind::CaseAdded, Class::Additive, name, &scope);
            c.block = block.map(str::to_owned);
            c.ids = vec![case.id.clone()];
            c.pointer = Some(case.pointer.clone());
            out.push(c);
            continue;
        };
        let sets = |at: &str| is_set(name, at);
        let cmp = t.compare(Arrays::Ordered, &old_case.pointer, &case.pointer).sets(&sets);
        let (data, prose) = split(cmp.edits(old_case.value, case.value), is_prose);
        // A member no old case of the block carries is a new optional field (additive, one
        // change per block and member); one they carry stays with the case, as a correction.
        let (added, rest): (Vec<Edit>, Vec<Edit>) = data
            .into_iter()
            .partition(|e| e.op == Op::Added && e.is_top_level() && !known.has(block, &e.top().unwrap_or_default()));
        let known_added: Vec<String> =
            rest.iter().filter(|e| e.op == Op::Added && e.is_top_level()).filter_map(Edit::top).collect();
        for e in added {
            let key = (block, e.top().unwrap_or_default());
            if !fields.contains_key(&key) {
                field_order.push(key.clone());
            }
            fields.entry(key).or_default().push(case.id.clone());
        }
        if rest.is_empty() && prose.is_empty() {
            continue;
        }
        let mut c = section_change(Kind::CaseChanged, worst(&rest, class_of_case), name, &scope);
        c.block = block.map(str::to_owned);
        c.ids = vec![case.id.clone()];
        c.pointer = Some(case.pointer.clone());
        c.edits = rest;
        c.prose = prose;
        c.note = (!known_added.is_empty()).then(|| known_note(&known_added));
        out.push(c);
    }
    // Blocks without cases: shared fields of one both sides have, or a new empty block.
    for bk in new_blocks.iter().filter(|bk| !done_blocks.contains(*bk)) {
        if old_blocks.contains(bk) {
            shared_fields(name, &scope, Some(bk), (&a.shared(Some(bk)), &b.shared(Some(bk))), (at(Some(bk)), t), out);
        } else {
            let mut c = section_change(Kind::BlockAdded, Class::Additive, name, &scope);
            c.block = Some((*bk).to_owned());
            c.pointer = Some(at(Some(bk)));
            out.push(c);
        }
    }
    for key in field_order {
        let mut c = section_change(Kind::FieldAdded, Class::Additive, name, &scope);
        c.block = key.0.map(str::to_owned);
        c.ids = fields.remove(&key).unwrap_or_default();
        c.field = Some(key.1);
        out.push(c);
    }
    let new_ids: BTreeSet<(Option<&str>, &str)> = b.cases.iter().map(|c| (c.sub, c.id.as_str())).collect();
    for bk in old_blocks.iter().filter(|bk| !new_blocks.contains(bk)) {
        let mut c = section_change(Kind::BlockRemoved, Class::Breaking, name, &scope);
        c.block = Some((*bk).to_owned());
        c.ids = a.ids_in(Some(bk));
        c.pointer = Some(at(Some(bk)));
        out.push(c);
    }
    for case in a.cases.iter().filter(|c| !new_ids.contains(&(c.sub, c.id.as_str()))) {
        if case.sub.is_some_and(|bk| !new_blocks.contains(&bk)) {
            continue;
        }
        let mut c = section_change(Kind::CaseRemoved, Class::Breaking, name, &scope);
        c.block = case.sub.map(str::to_owned);
        c.ids = vec![case.id.clone()];
        c.pointer = Some(case.pointer.clone());
        out.push(c);
    }
}

fn shared_fields(
    name: &str,
    scope: &Option<String>,
    block: Option<&str>,
    (old, new): (&Value, &Value),
    (at, t): (String, &Texts<'_>),
    out: &mut Vec<Change>,
) {
    // The shared fields are members of the section or block object at `at` on both sides.
    let (data, prose) = split(t.compare(Arrays::Ordered, &at, &at).edits(old, new), is_prose);
    if data.is_empty() && prose.is_empty() {
        return;
    }
    let mut c = section_change(Kind::FieldsChanged, worst(&data, class_of), name, scope);
    c.block = block.map(str::to_owned);
    c.pointer = Some(at);
    c.edits = data;
    c.prose = prose;
    out.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(old: Value, new: Value) -> Vec<Change> {
        compare(old.as_object().unwrap(), new.as_object().unwrap())
    }

    fn kinds(changes: &[Change]) -> Vec<(Kind, Class, Vec<String>)> {
        changes.iter().map(|c| (c.kind, c.class, c.ids.clone())).collect()
    }

    fn suite(sections: Value, blocks: Value) -> Value {
        let mut m = json!({"schema_version": 1, "conformance_version": "1.0.0", "description": "d",
            "sections": sections, "exceptions": []});
        for (k, v) in blocks.as_object().unwrap() {
            m.as_object_mut().unwrap().insert(k.clone(), v.clone());
        }
        m
    }

    fn base() -> Value {
        suite(
            json!({"s": "kafka", "t": "core"}),
            json!({
                "s": {"description": "S", "b": {"description": "B", "envelope_file": "fixtures/a.json",
                        "cases": [{"name": "x", "n": 1, "expect": {"k": "v"}}, {"name": "y", "n": 2}]},
                      "single": {"description": "one", "expect_tiers_ms": [1, 2]}},
                "t": [{"name": "c1", "file": "fixtures/a.json", "valid": true}]
            }),
        )
    }

    fn edit(f: impl FnOnce(&mut Value)) -> Vec<Change> {
        let mut new = base();
        f(&mut new);
        run(base(), new)
    }

    #[test]
    fn order_free_lists_are_named_by_section_and_place() {
        assert!(is_set("trim", "/expect_absent_after_reencode"));
        assert!(is_set("job_type", "/expect_warnings"));
        assert!(!is_set("retry_backoff", "/expect_warnings"), "only where the section says so");
        assert!(is_set("poison_dlq", "/expect/splice_keys") && is_set("poison_dlq", "/expect/splice_literals"));
        assert!(is_set("redis_layout", "/steps/3/expect/reserved") && is_set("redis_layout", "/state/deadlines"));
        assert!(!is_set("redis_layout", "/expect/ready"), "a Redis list is ordered");
        assert!(!is_set("redis_layout", "/steps"));
        assert!(!is_set("backoff", "/tiers_ms") && !is_set("backoff", "/expect_retry_topics"));
        // Reordered: nothing; a repeat or a new element: an edit inside the list (a correction).
        let (mut x, mut y) = (base(), base());
        x["sections"]["trim"] = json!("core");
        x["trim"] = json!([{"name": "c", "expect_absent_after_reencode": ["/a", "/b"], "tiers": [1, 2]}]);
        y["sections"]["trim"] = json!("core");
        y["trim"] = json!([{"name": "c", "expect_absent_after_reencode": ["/b", "/a"], "tiers": [1, 2]}]);
        assert!(run(x.clone(), y.clone()).is_empty());
        y["trim"][0]["expect_absent_after_reencode"] = json!(["/b", "/a", "/a"]);
        let got = run(x.clone(), y.clone());
        assert_eq!(kinds(&got), [(Kind::CaseChanged, Class::Correction, vec!["c".into()])]);
        assert_eq!(
            (got[0].edits[0].pointer.as_str(), got[0].edits[0].op),
            ("/expect_absent_after_reencode/2", Op::Added)
        );
        y["trim"][0]["expect_absent_after_reencode"] = json!(["/b", "/a"]);
        y["trim"][0]["tiers"] = json!([2, 1]);
        assert_eq!(run(x, y).len(), 1, "other lists keep their order");
    }

    #[test]
    fn identical_manifests_have_no_changes() {
        assert!(run(base(), base()).is_empty());
    }

    #[test]
    fn sections_added_removed_and_rescoped() {
        let got = edit(|m| {
            m["sections"]["u"] = json!("redis");
            m["u"] = json!({"cases": [{"name": "a"}, {"name": "b"}]});
            m.as_object_mut().unwrap().shift_remove("t");
            m["sections"].as_object_mut().unwrap().shift_remove("t");
            m["sections"]["s"] = json!("sqs");
        });
        assert_eq!(
            kinds(&got),
            [
                (Kind::SectionRescoped, Class::Breaking, vec![]),
                (Kind::SectionRemoved, Class::Breaking, vec!["c1".into()]),
                (Kind::SectionAdded, Class::Additive, vec!["a".into(), "b".into()]),
            ]
        );
        assert_eq!(
            (got[0].edits[0].old.clone(), got[0].edits[0].new.clone()),
            (Some(json!("kafka")), Some(json!("sqs")))
        );
        assert_eq!(got[0].edits[0].pointer, "/sections/s");
        assert_eq!(got[2].scope.as_deref(), Some("redis"));
        // A re-scope concerns the SDKs of both scopes: those of the old one must stop running
        // and reporting the section (else it is out of scope, BQ606), those of the new one start.
        let only = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<BTreeSet<String>>();
        assert_eq!(got[0].scope.as_deref(), Some("sqs"));
        assert!(got[0].in_scopes(&only(&["sqs"])));
        assert!(got[0].in_scopes(&only(&["core", "kafka"])), "the old scope's SDKs see it");
        assert!(!got[0].in_scopes(&only(&["core", "redis"])));
        assert!(!got[2].in_scopes(&only(&["kafka"])), "an added section only concerns its own scope");
    }

    #[test]
    fn blocks_and_cases_added_and_removed() {
        let got = edit(|m| {
            m["s"]["nb"] = json!({"cases": [{"name": "p"}]});
            m["s"].as_object_mut().unwrap().shift_remove("single");
            m["s"]["b"]["cases"].as_array_mut().unwrap().remove(1);
            m["s"]["b"]["cases"].as_array_mut().unwrap().push(json!({"name": "z"}));
        });
        assert_eq!(
            kinds(&got),
            [
                (Kind::CaseAdded, Class::Additive, vec!["b/z".into()]),
                (Kind::BlockAdded, Class::Additive, vec!["nb/p".into()]),
                (Kind::BlockRemoved, Class::Breaking, vec!["single".into()]),
                (Kind::CaseRemoved, Class::Breaking, vec!["b/y".into()]),
            ]
        );
        assert_eq!(got[1].pointer.as_deref(), Some("/s/nb"));
    }

    #[test]
    fn case_edits_are_classified() {
        // An expectation value: a correction.
        let got = edit(|m| m["s"]["b"]["cases"][0]["expect"]["k"] = json!("w"));
        assert_eq!(kinds(&got), [(Kind::CaseChanged, Class::Correction, vec!["b/x".into()])]);
        assert_eq!(got[0].edits[0].pointer, "/expect/k");
        assert_eq!(got[0].block.as_deref(), Some("b"));
        // Prose only: editorial, set apart.
        let got = edit(|m| m["t"][0]["description"] = json!("new words"));
        assert_eq!(kinds(&got), [(Kind::CaseChanged, Class::Editorial, vec!["c1".into()])]);
        assert!(got[0].edits.is_empty() && got[0].prose.len() == 1);
        // Retyped (integer → float): breaking; a member removed: a correction (the case now
        // expects something else; a MINOR must name it).
        let got = edit(|m| m["s"]["b"]["cases"][0]["n"] = json!(1.0));
        assert_eq!(got[0].class, Class::Breaking);
        let got = edit(|m| {
            m["s"]["b"]["cases"][1].as_object_mut().unwrap().shift_remove("n");
        });
        assert_eq!(got[0].class, Class::Correction);
        // A nested member added to an expectation (golden maps are closed): a correction.
        let got = edit(|m| m["s"]["b"]["cases"][0]["expect"]["extra"] = json!(1));
        assert_eq!(got[0].class, Class::Correction);
        // A single-case block is a case too.
        let got = edit(|m| m["s"]["single"]["expect_tiers_ms"] = json!([1, 3]));
        assert_eq!(kinds(&got), [(Kind::CaseChanged, Class::Correction, vec!["single".into()])]);
    }

    #[test]
    fn new_optional_fields_are_additive_and_grouped_per_block() {
        let got = edit(|m| {
            m["s"]["b"]["cases"][0]["expect_more"] = json!(true);
            m["s"]["b"]["cases"][1]["expect_more"] = json!(false);
            m["s"]["b"]["cases"][1]["n"] = json!(5);
        });
        assert_eq!(
            kinds(&got),
            [
                (Kind::CaseChanged, Class::Correction, vec!["b/y".into()]),
                (Kind::FieldAdded, Class::Additive, vec!["b/x".into(), "b/y".into()]),
            ]
        );
        assert_eq!(got[1].field.as_deref(), Some("expect_more"));
    }

    #[test]
    fn shared_fields_of_sections_and_blocks() {
        let got = edit(|m| {
            m["s"]["description"] = json!("S2");
            m["s"]["b"]["envelope_file"] = json!("fixtures/b.json");
        });
        assert_eq!(
            kinds(&got),
            [(Kind::FieldsChanged, Class::Editorial, vec![]), (Kind::FieldsChanged, Class::Correction, vec![])]
        );
        assert_eq!(got[1].reference(), "s.b");
        assert_eq!(got[0].reference(), "s");
    }

    #[test]
    fn suite_metadata() {
        let got = edit(|m| {
            m["schema_version"] = json!(2);
            m["description"] = json!("other");
            m["exceptions"] = json!([{"family": "go", "binding": "kafka", "adr": "ADR-0099"}]);
        });
        assert_eq!(
            kinds(&got),
            [
                (Kind::SchemaVersionChanged, Class::Breaking, vec![]),
                (Kind::DescriptionChanged, Class::Editorial, vec![]),
                (Kind::ExceptionAdded, Class::Breaking, vec![]),
            ]
        );
        assert_eq!(got[2].scope.as_deref(), Some("kafka"));
        let ex = |adr: &str, binding: &str| json!([{"family": "php", "binding": binding, "adr": adr}]);
        let pair = |a: Value, b: Value| {
            let (mut x, mut y) = (base(), base());
            x["exceptions"] = a;
            y["exceptions"] = b;
            kinds(&run(x, y))
        };
        assert_eq!(pair(ex("ADR-0021", "asb"), json!([])), [(Kind::ExceptionRemoved, Class::Additive, vec![])]);
        assert_eq!(
            pair(ex("ADR-0021", "asb"), ex("ADR-0050", "asb")),
            [(Kind::ExceptionChanged, Class::Editorial, vec![])]
        );
    }

    #[test]
    fn an_exception_re_targeted_in_place_is_a_removal_and_a_breaking_addition() {
        // Keyed by family + binding, a re-targeted entry is the old one removed and a new one
        // added at the same index: the addition must not vanish into the removal.
        let ex = |family: &str, binding: &str| json!([{"family": family, "binding": binding, "adr": "ADR-0021"}]);
        for (a, b) in [(ex("php", "asb"), ex("php", "pulsar")), (ex("php", "asb"), ex("go", "asb"))] {
            let (mut x, mut y) = (base(), base());
            x["exceptions"] = a;
            y["exceptions"] = b.clone();
            let got = run(x, y);
            assert_eq!(
                kinds(&got),
                [(Kind::ExceptionRemoved, Class::Additive, vec![]), (Kind::ExceptionAdded, Class::Breaking, vec![])]
            );
            assert_eq!(got[1].scope.as_deref(), b[0]["binding"].as_str());
            assert_eq!(got[1].edits.len(), 1, "{got:#?}");
            assert_eq!(got[1].edits[0].new.as_ref(), Some(&b[0]));
            assert_eq!(crate::diff::Bump::needed(&got), crate::diff::Bump::Major);
        }
    }

    #[test]
    fn skip_policy_of_any_shape() {
        let with = |p: Value| {
            let mut m = base();
            m[SKIP_POLICY] = p;
            m
        };
        let one = |a: Value, b: Value| {
            let got = run(a, b);
            assert_eq!(got.len(), 1, "{got:#?}");
            assert_eq!(got[0].kind, Kind::SkipPolicyChanged);
            got[0].class
        };
        let p = json!({"description": "d", "rules": [{"id": "r1", "adr": "ADR-0033"}]});
        assert_eq!(one(base(), with(p.clone())), Class::Additive);
        assert_eq!(one(with(p.clone()), base()), Class::Breaking);
        let mut more = p.clone();
        more["rules"].as_array_mut().unwrap().insert(0, json!({"id": "r0", "adr": "ADR-0028"}));
        assert_eq!(one(with(p.clone()), with(more.clone())), Class::Additive, "keyed by id, not position");
        assert_eq!(one(with(more), with(p.clone())), Class::Breaking);
        let mut prose = p.clone();
        prose["description"] = json!("e");
        assert_eq!(one(with(p.clone()), with(prose)), Class::Editorial);
        let mut changed = p.clone();
        changed["rules"][0]["adr"] = json!("ADR-0034");
        assert_eq!(one(with(p.clone()), with(changed)), Class::Breaking);
        // A member added inside an existing rule can narrow it (families, all_or_none: true):
        // breaking; an element added to one of its lists widens it: additive.
        for (member, value) in [("families", json!(["go"])), ("all_or_none", json!(true))] {
            let mut narrowed = p.clone();
            narrowed["rules"][0][member] = value;
            assert_eq!(one(with(p.clone()), with(narrowed)), Class::Breaking, "{member}");
        }
        let mut fam = p.clone();
        fam["rules"][0]["families"] = json!(["go"]);
        let mut wider = fam.clone();
        wider["rules"][0]["families"] = json!(["go", "php"]);
        assert_eq!(one(with(fam), with(wider)), Class::Additive);
        // Red team (release gate) F1: a case added to an all-or-none rule can take every skip
        // away (once a covered case ran, the rule allows none); to another rule it widens it.
        let rule = |all_or_none: bool, cases: Value| {
            json!({"rules": [{"name": "other", "cases": [{"section": "s", "case": "o"}]},
                             {"name": "r", "all_or_none": all_or_none, "cases": cases}]})
        };
        let one_case = json!([{"section": "s", "case": "a"}]);
        let two_cases = json!([{"section": "s", "case": "a"}, {"section": "t", "case": "b"}]);
        assert_eq!(one(with(rule(true, one_case.clone())), with(rule(true, two_cases.clone()))), Class::Breaking);
        assert_eq!(one(with(rule(false, one_case.clone())), with(rule(false, two_cases.clone()))), Class::Additive);
        // Rules are matched by name: a rule inserted ahead does not hide it.
        let mut ahead = rule(true, two_cases);
        ahead["rules"].as_array_mut().unwrap().insert(0, json!({"name": "new", "cases": []}));
        assert_eq!(one(with(rule(true, one_case)), with(ahead)), Class::Breaking);
        let mut member = p.clone();
        member["strict"] = json!(true);
        assert_eq!(one(with(p), with(member)), Class::Breaking, "a new member of the policy itself");
        assert!(run(with(json!([1])), with(json!([1]))).is_empty());
        // It is never mistaken for a section.
        assert!(run(base(), with(json!({"cases": [{"name": "n"}]}))).iter().all(|c| c.kind == Kind::SkipPolicyChanged));
    }
}
