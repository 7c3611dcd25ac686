//! Repeated keys and repeated case ids of the manifest: what a last-wins comparison cannot see.
//!
//! serde_json keeps the last of an object's repeated keys, and [`super::manifest`] compares the
//! `Value`s it reads, so a key repeated with another value first (`"expect_delay_ms": 2000,
//! "expect_delay_ms": 1000`) was no change of any case there. A parser that keeps the first
//! value, or refuses repeated keys (validate's BQ007), reads another manifest. A repeated key
//! in a schema is breaking already ([`super::files`]); this module gives the manifest the same
//! rule.
//!
//! Invariants:
//! - The manifest texts are read with every member of every object ([`Node`], numbers
//!   by their literals). Wherever either side's text repeats a key, the values of that key on
//!   the two sides (every occurrence, in order) are compared; a repeated key added, removed, or
//!   with a value of it changed, is a difference. Keys inside a repeated key's values are
//!   compared with them, not again on their own.
//! - A case id that occurs more than once in one block (two cases of one `cases` array with the
//!   same `name`, or a single-case sub-key repeated) is the same kind of difference: the cases
//!   with that id on the two sides, in order, are compared.
//! - A difference is placed where the manifest comparison places changes, matched the same
//!   way on both sides (never by position in the file): in the case that holds it (by section,
//!   block and id), else in its section's or block's shared fields (a repeated section or
//!   `cases` key included), else in `skip_policy`, else in manifest.json as a whole. A case,
//!   shared fields or a whole that only one side has is left to the change that adds or
//!   removes it.
//! - Each place with a difference becomes breaking, whatever its edits, with a note naming the
//!   repeated keys or ids: its change when the comparison found one, else a new one of the
//!   same kind (a `case-changed`, `fields-changed`, `skip-policy-changed`, or a `file-changed`
//!   of manifest.json). Never editorial: the manifest's bytes did not merely move.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::exact::Node;
use super::manifest::is_section_key;
use super::{Change, Class, Kind, SKIP_POLICY};
use crate::suite::{MANIFEST, Suite, case_ids, pointer};

/// Where a difference lies, matched on both sides.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// A case: section, block, id.
    Case(String, Option<String>, String),
    /// The shared fields of a section (block `None`) or of one of its blocks.
    Fields(String, Option<String>),
    /// Suite metadata: the top-level key (`skip_policy`, `sections`, …).
    Top(String),
}

/// One side: its manifest as read, and as the comparison reads it.
struct Side<'a> {
    /// The manifest's bytes, read with every member of every object only when asked
    /// ([`Side::text`]): a manifest without a repeated key or case id (every released one) is
    /// never parsed a second time, so a release gate over a large suite pays nothing here.
    bytes: &'a [u8],
    text: std::cell::OnceCell<Node>,
    value: &'a Map<String, Value>,
    /// Does the text repeat a key anywhere (the loader's finding)?
    repeats_keys: bool,
}

impl<'a> Side<'a> {
    fn of(suite: &'a Suite) -> Option<Side<'a>> {
        let file = suite.file(MANIFEST)?;
        let bytes = file.bytes();
        Some(Side {
            bytes,
            text: std::cell::OnceCell::new(),
            value: suite.manifest()?,
            repeats_keys: !file.duplicates().is_empty(),
        })
    }

    /// The manifest read with every member of every object (`null` for text that does not
    /// parse, which a loaded manifest never is).
    fn text(&self) -> &Node {
        self.text.get_or_init(|| Node::parse(self.bytes).unwrap_or(Node::Null))
    }

    /// Every case of section `name`: (block, id) → its pointers, in manifest order.
    fn cases(&self, name: &str) -> BTreeMap<(Option<String>, String), Vec<String>> {
        let mut out: BTreeMap<_, Vec<String>> = BTreeMap::new();
        for c in self.value.get(name).map(|v| case_ids(name, v)).unwrap_or_default() {
            out.entry((c.sub.map(str::to_owned), c.id)).or_default().push(c.pointer);
        }
        out
    }

    /// Where `at` (a pointer in this side's manifest) lies, and the pointer relative to it.
    fn place(&self, at: &str) -> (Place, String) {
        let tokens = pointer::parse(at).unwrap_or_default();
        let Some(first) = tokens.first() else { return (Place::Top(String::new()), at.to_owned()) };
        let rest = |base: &str| at[base.len()..].to_owned();
        if !is_section_key(first) {
            return (Place::Top(first.clone()), rest(&pointer::join("", first)));
        }
        for ((block, id), pointers) in self.cases(first) {
            // The case's last occurrence is the one serde_json keeps.
            if let Some(p) = pointers.iter().find(|p| pointer::at_or_under(at, p)) {
                return (Place::Case(first.clone(), block, id), rest(p));
            }
        }
        let section = pointer::join("", first);
        let block = tokens.get(1).filter(|b| {
            let sub = self.value.get(first.as_str()).and_then(|s| s.get(b.as_str()));
            sub.is_some_and(|sub| crate::suite::ids::is_block(b, sub))
        });
        match block {
            Some(b) => (Place::Fields(first.clone(), Some(b.clone())), rest(&pointer::join(&section, b))),
            None => (Place::Fields(first.clone(), None), rest(&section)),
        }
    }

    /// The pointer of `place` in this side's manifest, if it has it.
    fn base(&self, place: &Place) -> Option<String> {
        match place {
            Place::Case(section, block, id) => self.cases(section).remove(&(block.clone(), id.clone()))?.pop(),
            Place::Fields(section, block) => {
                let s = self.value.get(section)?;
                let at = pointer::join("", section);
                match block {
                    None => Some(at),
                    Some(b) => s.get(b).map(|_| pointer::join(&at, b)),
                }
            }
            Place::Top(key) if key.is_empty() => Some(String::new()),
            Place::Top(key) => self.value.contains_key(key).then(|| pointer::join("", key)),
        }
    }
}

/// The pointers of the keys an object of `root` repeats (one per key), not looking inside the
/// values of a repeated key (they are compared whole).
fn repeated_keys(root: &Node) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), root)];
    while let Some((at, n)) = stack.pop() {
        match n {
            Node::Arr(items) => stack.extend(items.iter().enumerate().map(|(i, v)| (pointer::join_index(&at, i), v))),
            Node::Obj(members) => {
                for (i, (k, v)) in members.iter().enumerate() {
                    let repeated = members.iter().filter(|(l, _)| l == k).count() > 1;
                    if !repeated {
                        stack.push((pointer::join(&at, k), v));
                    } else if !members[..i].iter().any(|(l, _)| l == k) {
                        out.push(pointer::join(&at, k));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every value at `at` of `root`: all occurrences of a repeated key, in order; one value, or
/// none. Objects on the way are read as serde_json reads them (the last occurrence).
fn occurrences<'n>(root: &'n Node, at: &str) -> Vec<&'n Node> {
    let tokens = pointer::parse(at).unwrap_or_default();
    let Some((last, path)) = tokens.split_last() else { return vec![root] };
    let step = |n: &'n Node, t: &str| -> Option<&'n Node> {
        match n {
            Node::Obj(m) => m.iter().rev().find(|(k, _)| k == t).map(|(_, v)| v),
            Node::Arr(items) => items.get(t.parse::<usize>().ok()?),
            _ => None,
        }
    };
    let Some(parent) = path.iter().try_fold(root, |n, t| step(n, t)) else { return Vec::new() };
    match parent {
        Node::Obj(m) => m.iter().filter(|(k, _)| k == last).map(|(_, v)| v).collect(),
        _ => step(parent, last).into_iter().collect(),
    }
}

/// What differs at one place.
#[derive(Debug, Default)]
struct Found {
    /// (pointer relative to the place, occurrences on the old side, on the new side).
    keys: Vec<(String, usize, usize)>,
    /// (the case id, how often it occurs on the old side, on the new side).
    ids: Option<(String, usize, usize)>,
}

/// Every place at which the repeated keys or case ids differ between the two manifests.
fn differences(a: &Side<'_>, b: &Side<'_>) -> BTreeMap<Place, Found> {
    let mut out: BTreeMap<Place, Found> = BTreeMap::new();
    let mut seen = Vec::new();
    for side in [a, b] {
        // Without a repeated key on either side there is nothing to look for (the loader found
        // every one), and the texts are not parsed again.
        if !(a.repeats_keys || b.repeats_keys) {
            break;
        }
        for at in repeated_keys(side.text()) {
            let (place, rel) = side.place(&at);
            if seen.contains(&(place.clone(), rel.clone())) {
                continue;
            }
            seen.push((place.clone(), rel.clone()));
            let (Some(x), Some(y)) = (a.base(&place), b.base(&place)) else { continue };
            let (old, new) = (occurrences(a.text(), &format!("{x}{rel}")), occurrences(b.text(), &format!("{y}{rel}")));
            if old != new {
                // Shown as the edits of its place are: suite metadata from the root, else
                // relative to the case or shared fields (the repeated key itself, when it is
                // the place's own key).
                let shown = match &place {
                    Place::Top(key) => format!("{}{rel}", pointer::join("", key)),
                    _ if rel.is_empty() => at.rsplit('/').next().map(|k| format!("/{k}")).unwrap_or_default(),
                    _ => rel,
                };
                out.entry(place).or_default().keys.push((shown, old.len(), new.len()));
            }
        }
    }
    // Case ids repeated within a block, in sections both sides have.
    for (name, _) in b.value.iter().filter(|(k, _)| is_section_key(k) && a.value.contains_key(*k)) {
        let (old, new) = (a.cases(name), b.cases(name));
        for (key, pointers) in &new {
            let Some(was) = old.get(key) else { continue };
            if pointers.len() < 2 && was.len() < 2 {
                continue;
            }
            let nodes = |side: &Side<'_>, ps: &[String]| -> Vec<Node> {
                ps.iter().flat_map(|p| occurrences(side.text(), p)).cloned().collect()
            };
            if nodes(a, was) != nodes(b, pointers) {
                let place = Place::Case(name.clone(), key.0.clone(), key.1.clone());
                out.entry(place).or_default().ids = Some((key.1.clone(), was.len(), pointers.len()));
            }
        }
    }
    out
}

fn times(n: usize) -> String {
    format!("{n} {}", if n == 1 { "time" } else { "times" })
}

/// The note of a place whose repeated keys or ids differ; `what` names the place.
fn note(found: &Found, what: &str) -> String {
    let mut parts = Vec::new();
    if !found.keys.is_empty() {
        let keys: Vec<String> = found
            .keys
            .iter()
            .map(|(at, old, new)| match (old, new) {
                (o, n) if o == n => format!("`{at}` written {} on both sides, with other values", times(*n)),
                (o, n) => format!("`{at}` written {} (was {})", times(*n), times(*o)),
            })
            .collect();
        parts.push(format!(
            "a key repeated in manifest.json changed: {}. The comparison reads the last value, as serde_json does; \
             a parser that keeps the first, or refuses repeated keys (validate: BQ007), reads another {what}",
            keys.join(", ")
        ));
    }
    if let Some((id, old, new)) = &found.ids {
        let count = match (old, new) {
            (o, n) if o == n => format!("{} on both sides, as other cases", times(*n)),
            (o, n) => format!("{} (was {})", times(*n), times(*o)),
        };
        parts.push(format!(
            "the case id `{id}` occurs {count} in its block: a runner runs each, but a results file holds one \
             outcome per id, so which case it reports is the runner's choice (validate: BQ206)"
        ));
    }
    format!("{}; a repeated key or case id added, removed or changed is breaking", parts.join("; "))
}

/// Make every place whose repeated keys or case ids differ between `old` and `new` breaking,
/// with a note: its change, or a new one (the module doc's rules).
pub(super) fn classify(changes: &mut Vec<Change>, old: &Suite, new: &Suite) {
    let (Some(a), Some(b)) = (Side::of(old), Side::of(new)) else { return };
    for (place, found) in differences(&a, &b) {
        let scope_of = |section: &str| {
            let scope = |m: &Map<String, Value>| m.get("sections")?.get(section)?.as_str().map(str::to_owned);
            scope(b.value).or_else(|| scope(a.value))
        };
        let (kind, section, block, ids, what) = match &place {
            Place::Case(s, bk, id) => (Kind::CaseChanged, Some(s), bk.clone(), vec![id.clone()], "case"),
            Place::Fields(s, bk) => (Kind::FieldsChanged, Some(s), bk.clone(), Vec::new(), "section"),
            Place::Top(key) if key == SKIP_POLICY => (Kind::SkipPolicyChanged, None, None, Vec::new(), "skip policy"),
            Place::Top(_) => (Kind::FileChanged, None, None, Vec::new(), "manifest"),
        };
        let existing = changes.iter_mut().position(|c| {
            c.kind == kind
                && c.section.as_ref() == section
                && c.block == block
                && c.ids == ids
                && (kind != Kind::FileChanged || c.file.as_deref() == Some(MANIFEST))
        });
        let c = match existing {
            Some(i) => &mut changes[i],
            None => {
                let mut c = Change::new(kind, Class::Breaking);
                c.section = section.cloned();
                c.scope = section.and_then(|s| scope_of(s));
                c.block = block;
                c.ids = ids;
                c.pointer = b.base(&place);
                if kind == Kind::FileChanged {
                    c.file = Some(MANIFEST.to_owned());
                    c.pointer = None;
                }
                changes.push(c);
                changes.last_mut().expect("just pushed")
            }
        };
        c.class = Class::Breaking;
        let note = note(&found, what);
        c.note = Some(match c.note.take() {
            Some(n) => format!("{n}; {note}"),
            None => note,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(text: &str) -> Node {
        Node::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn repeated_keys_are_found_once_and_not_inside_a_repeated_value() {
        let n = node(r#"{"a": [{"x": 1, "x": 2, "y": {"z": 1, "z": 1}}], "b": {"q": 1, "q": {"r": 1, "r": 2}}}"#);
        let mut got = repeated_keys(&n);
        got.sort();
        assert_eq!(got, ["/a/0/x", "/a/0/y/z", "/b/q"]);
        assert_eq!(occurrences(&n, "/a/0/x").len(), 2);
        assert_eq!(occurrences(&n, "/b/q/r").len(), 2, "on the way, the last occurrence");
        assert!(occurrences(&n, "/a/1").is_empty());
        assert_eq!(occurrences(&n, "").len(), 1);
    }
}
