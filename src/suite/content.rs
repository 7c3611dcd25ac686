//! The content of a case, as a fingerprint: what the recorded power pins of each case, so that
//! an edit to a case of the recorded suite cannot pass `validate` unseen (BQ318).
//!
//! A case's content is everything a runner feeds the SDK or compares with for it, and nothing
//! else:
//!
//! - the case object without its own prose members ([`PROSE`]: `description`, `reason`, …;
//!   deeper members of those names are data, as `diff` reads them);
//! - its shared fields: the members of its block beside `cases` (a case of a block's `cases`
//!   array) and the section's own members that are neither cases nor blocks (`schema`, an
//!   `envelope_file` beside its cases), each without prose ([`ids::shared`], the rule `diff`
//!   reads shared fields by);
//! - every fixture those name ([`FILE_REF_KEYS`]), by path and bytes (a missing one by its
//!   absence).
//!
//! Invariants: the manifest's part depends on the JSON it writes and on nothing else, under
//! `diff`'s equality ([`super::exact`]): numbers by their exact value and literal type (`1.0` =
//! `1e0`, `1` ≠ `1.0`, `-0.0` ≠ `0.0`, no `f64` in between); members of an object with unique
//! keys in any order, repeated keys in their order; white space, escapes and prose never count (a runner
//! reads the manifest as JSON). So whatever `diff` calls editorial in the manifest leaves it
//! unchanged, and whatever it calls a change of the case (additive inside a case, correction,
//! breaking) changes it. Fixtures count by their bytes, stricter than `diff` (which calls a
//! fixture whose JSON did not change editorial): a fixture is the bytes an SDK decodes, and the
//! same JSON written with `\u` escapes instead of UTF-8, or another layout, tests a decoder on
//! other input. Each value is written with its kind and length, so no two different contents
//! write the same bytes. The fingerprint is the first 16 hex digits (64 bits) of the SHA-256 of
//! that writing: it guards against an unseen edit, it is no signature (the recording is
//! reviewed in its diff).
//!
//! The skip policy's rules are pinned the same way ([`rules`], BQ319): each rule without its
//! prose members (at any depth, as `diff` reads the policy), keyed by its name. Which cases a run
//! may skip, citing what, for whom, is as much the contract as what a case expects. And the two
//! schema files by their bytes ([`schemas`], BQ320), as fixtures are.
//!
//! Cost: one walk over the manifest text to find the sections and the skip policy, one walk
//! over each section's text for the cases asked for, then each case's own text parsed once
//! (cases not asked for are skipped, so a suite multiplied a hundred times parses what its
//! recorded cases hold), and each fixture hashed once.

use sha2::{Digest, Sha256};

use super::exact::{Node, Number};
use super::ids::{self, FILE_REF_KEYS, PROSE};
use super::skip_policy::KEY as SKIP_POLICY;
use super::{CaseRef, MANIFEST, Section, Suite, pointer, span};

/// The content of one case: its fingerprint, and where it lies (so that a caller can tell
/// whether another finding is about it already).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// 16 lower-case hex digits.
    pub print: String,
    /// The pointers in the manifest of the case and of its shared fields.
    pub pointers: Vec<String>,
    /// The pointers of the objects that hold its shared fields (its block, and its section when
    /// that has shared fields): a finding there, such as a shared field missing, is about the
    /// case too, though one under them may be about another case.
    pub holders: Vec<String>,
    /// The fixtures they name, sorted.
    pub fixtures: Vec<String>,
}

/// Where each section lies in the manifest's text, found in one walk over it, so that each
/// section's cases are then looked for in that section's text only (a walk per section over the
/// whole manifest cost as much as validating a suite multiplied a hundred times).
#[derive(Debug)]
pub struct Texts<'s> {
    suite: &'s Suite,
    text: &'s str,
    /// Section name → byte range of its value (of a repeated key, the last, as the parser keeps).
    sections: std::collections::HashMap<&'s str, (usize, usize)>,
    /// The byte range of the manifest's `skip_policy` (of a repeated key, the last).
    policy: Option<(usize, usize)>,
    /// Fixture path → digest of its content ([`Texts::fixture`]).
    fixtures: std::sync::Mutex<std::collections::HashMap<String, [u8; 32]>>,
}

impl<'s> Texts<'s> {
    /// The sections' places in `suite`'s manifest (none when it has no text).
    pub fn of(suite: &'s Suite) -> Texts<'s> {
        let text = suite.file(MANIFEST).and_then(|f| f.text()).unwrap_or_default();
        let names: Vec<&'s str> = suite.sections().into_iter().map(|s| s.name).collect();
        let mut pointers: Vec<String> = names.iter().map(|n| pointer::join("", n)).collect();
        // The skip policy is found in the same walk (its rules are pinned too).
        pointers.push(pointer::join("", SKIP_POLICY));
        let at: Vec<&str> = pointers.iter().map(String::as_str).collect();
        let bytes = text.as_bytes();
        let mut offsets = span::offsets_of(text, &at);
        let range = |start: Option<usize>| Some((start?, span::value_end(bytes, start?)?));
        let policy = offsets.pop().and_then(range);
        let sections = names.into_iter().zip(offsets).filter_map(|(name, start)| Some((name, range(start)?))).collect();
        Texts { suite, text, sections, policy, fixtures: Default::default() }
    }
}

/// The content of each of `cases` (cases of `section` of the suite `texts` has read), in
/// order; `None` for a case whose text cannot be found in the manifest.
pub fn fingerprints(texts: &Texts<'_>, section: &Section<'_>, cases: &[&CaseRef<'_>]) -> Vec<Option<Content>> {
    let Some(&(from, to)) = texts.sections.get(section.name) else {
        return vec![None; cases.len()];
    };
    let base = pointer::join("", section.name);
    // The section's own members that are data and neither cases nor blocks (`schema`, an
    // `envelope_file` beside its cases), shared by all its cases.
    fn data<'v>(shared: Vec<(&'v str, &serde_json::Value)>, at: &str) -> Vec<(&'v str, String)> {
        shared.into_iter().filter(|(k, _)| !PROSE.contains(k)).map(|(k, _)| (k, pointer::join(at, k))).collect()
    }
    let mut section_shared = data(ids::shared(section.block, None), &base);
    // By name, as an object's members with unique keys count in any order.
    section_shared.sort_unstable();
    // Each case's parts, each a label (never a position: a case moved in its array is the same
    // case) and a pointer: the case first, then its block's shared fields, then the section's,
    // each group by name.
    let mut wanted: Vec<Vec<(&str, String)>> = Vec::with_capacity(cases.len());
    let mut holders: Vec<Vec<String>> = Vec::with_capacity(cases.len());
    for case in cases {
        let mut parts = vec![("", case.pointer.clone())];
        let mut held = Vec::new();
        if let (Some(sub), Some(_)) = (case.sub, case.index) {
            let at = pointer::join(&base, sub);
            let mut shared = data(ids::shared(section.block, Some(sub)), &at);
            shared.sort_unstable();
            parts.extend(shared);
            held.push(at);
        }
        if !section_shared.is_empty() {
            held.push(base.clone());
        }
        parts.extend(section_shared.iter().map(|(k, p)| (*k, p.clone())));
        wanted.push(parts);
        holders.push(held);
    }
    // The walk is over the section's text only, so each pointer loses the section's own token
    // (every one was built under it; one that were not would simply not be found).
    let flat: Vec<&str> = wanted.iter().flatten().map(|(_, p)| p.strip_prefix(base.as_str()).unwrap_or(p)).collect();
    let text = &texts.text[from..to];
    let offsets = span::offsets_of(text, &flat);
    let bytes = text.as_bytes();
    let node_at = |offset: Option<usize>| -> Option<Node> {
        let start = offset?;
        let end = span::value_end(bytes, start)?;
        Node::parse(&bytes[start..end])
    };
    let mut next = 0;
    wanted
        .iter()
        .zip(holders)
        .map(|(parts, holders)| {
            let offsets = &offsets[next..next + parts.len()];
            next += parts.len();
            let mut h: Vec<u8> = Vec::with_capacity(256);
            let mut files = Vec::new();
            for (i, ((label, _), offset)) in parts.iter().zip(offsets).enumerate() {
                let mut node = node_at(*offset);
                if i == 0 {
                    match &mut node {
                        Some(Node::Obj(members)) => members.retain(|(k, _)| !PROSE.contains(&k.as_str())),
                        Some(_) => {}
                        // The case itself cannot be read: there is nothing to pin.
                        None => return None,
                    }
                }
                h.update(b"@");
                write_str(&mut h, label);
                match &node {
                    Some(n) => {
                        // A shared field may itself name a fixture (a block's `fixture`).
                        match n {
                            Node::Str(rel) if FILE_REF_KEYS.contains(label) => files.push(rel.clone()),
                            _ => refs(n, &mut files),
                        }
                        write(&mut h, n);
                    }
                    None => h.update(b"?"),
                }
            }
            files.sort_unstable();
            files.dedup();
            let print = finish(h, &files, texts);
            Some(Content { print, pointers: parts.iter().map(|(_, p)| p.clone()).collect(), holders, fixtures: files })
        })
        .collect()
}

/// Each of `cases` (cases of `section`) that the recording pins (`recorded`: case id → its
/// recorded fingerprint, as [`super::pins::Pins::content_of`] gives them), with that fingerprint
/// and the content the case has now (`None`: its text cannot be found), in order. Only the
/// pinned cases are fingerprinted. What `validate` (BQ318) and `results check` (a copy of the
/// recorded version) both compare.
pub fn against_recorded<'c, 'a: 'c, 'r>(
    texts: &Texts<'_>,
    section: &Section<'_>,
    cases: impl IntoIterator<Item = &'c CaseRef<'a>>,
    recorded: &std::collections::HashMap<&str, &'r str>,
) -> Vec<(&'c CaseRef<'a>, &'r str, Option<Content>)> {
    let pinned: Vec<(&'c CaseRef<'a>, &'r str)> =
        cases.into_iter().filter_map(|c| recorded.get(c.id.as_str()).map(|was| (c, *was))).collect();
    if pinned.is_empty() {
        return Vec::new();
    }
    let refs: Vec<&CaseRef<'_>> = pinned.iter().map(|(c, _)| *c).collect();
    let now = fingerprints(texts, section, &refs);
    pinned.into_iter().zip(now).map(|((case, was), now)| (case, was, now)).collect()
}

/// The fingerprint of every case of `texts`' suite, by (section, id) (a case whose text cannot be
/// found is left out; of two cases with one id, the later one).
pub fn every(texts: &Texts<'_>) -> std::collections::BTreeMap<(String, String), String> {
    let mut out = std::collections::BTreeMap::new();
    for section in texts.suite.sections() {
        let cases = section.cases();
        let refs: Vec<&CaseRef<'_>> = cases.iter().collect();
        for (case, print) in cases.iter().zip(fingerprints(texts, &section, &refs)) {
            if let Some(content) = print {
                out.insert((section.name.to_owned(), case.id.clone()), content.print);
            }
        }
    }
    out
}

/// One rule of the manifest's skip policy, as a fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Its `name`, when that is a string (of a repeated one, the last, as the reader keeps).
    pub name: Option<String>,
    /// Its fingerprint and where it lies: `pointers` is the rule, `holders` the policy and its
    /// `rules` array (a finding at either, such as `rules` not an array, is about every rule).
    pub content: Content,
}

/// The content of every rule of the skip policy (manifest.json → `skip_policy/rules`), in
/// order; `None` when the manifest has no skip policy or its `rules` is not an array (other
/// findings say so).
///
/// A rule's content is the rule without its prose members ([`PROSE`], at any depth, as `diff`
/// reads the policy): its name, condition, ADRs, the cases it selects, `whole_sections`,
/// `all_or_none` and `families`, compared as exact JSON like a case. So which cases a run may
/// skip, why and for whom is pinned on the recorded version, as the cases are.
pub fn rules(texts: &Texts<'_>) -> Option<Vec<Rule>> {
    let (from, to) = texts.policy?;
    let Node::Obj(members) = Node::parse(&texts.text.as_bytes()[from..to])? else {
        return None;
    };
    // Of a repeated key the last, as the reader keeps.
    let (_, Node::Arr(rules)) = members.into_iter().rev().find(|(k, _)| k == "rules")? else {
        return None;
    };
    let base = pointer::join(&pointer::join("", SKIP_POLICY), "rules");
    let holders = vec![pointer::join("", SKIP_POLICY), base.clone()];
    Some(
        rules
            .into_iter()
            .enumerate()
            .map(|(i, mut rule)| {
                let name = match &rule {
                    Node::Obj(m) => m.iter().rev().find(|(k, _)| k == "name").and_then(|(_, v)| match v {
                        Node::Str(s) => Some(s.clone()),
                        _ => None,
                    }),
                    _ => None,
                };
                without_prose(&mut rule);
                let mut h: Vec<u8> = Vec::with_capacity(256);
                h.update(b"R");
                write(&mut h, &rule);
                let content = Content {
                    print: finish(h, &[], texts),
                    pointers: vec![pointer::join(&base, &i.to_string())],
                    holders: holders.clone(),
                    fixtures: Vec::new(),
                };
                Rule { name, content }
            })
            .collect(),
    )
}

/// The schema files the recording pins by their bytes (BQ320): what every SDK compiles and
/// validates with.
pub const PINNED_SCHEMAS: [&str; 2] = [super::ENVELOPE_SCHEMA, super::RESULTS_SCHEMA];

/// The fingerprint of each of [`PINNED_SCHEMAS`] that `texts`' suite has, by path: of the
/// file's bytes, as a fixture's (a schema reworded or laid out otherwise is another file in
/// every vendored copy).
pub fn schemas(texts: &Texts<'_>) -> std::collections::BTreeMap<String, String> {
    PINNED_SCHEMAS
        .iter()
        .filter(|rel| texts.suite.file(rel).is_some())
        .map(|rel| ((*rel).to_owned(), finish(b"S".to_vec(), &[(*rel).to_owned()], texts)))
        .collect()
}

/// Drop every member named as prose, at any depth (an explicit stack: no recursion on input).
fn without_prose(node: &mut Node) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n {
            Node::Obj(members) => {
                members.retain(|(k, _)| !PROSE.contains(&k.as_str()));
                stack.extend(members.iter_mut().map(|(_, v)| v));
            }
            Node::Arr(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// The hash so far, then each fixture in `files`, as the fingerprint.
fn finish(mut h: Vec<u8>, files: &[String], texts: &Texts<'_>) -> String {
    for rel in files {
        h.update(b"F");
        write_str(&mut h, rel);
        h.update(texts.fixture(rel));
    }
    Sha256::digest(&h)[..8].iter().map(|b| format!("{b:02x}")).collect()
}

impl Texts<'_> {
    /// The digest of fixture `rel`'s bytes (a fixed value when it is missing), computed once:
    /// one fixture is read by many cases (the valid envelope of the seven gate tables by 170).
    fn fixture(&self, rel: &str) -> [u8; 32] {
        let mut cache = self.fixtures.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(d) = cache.get(rel) {
            return *d;
        }
        let d: [u8; 32] = match self.suite.file(rel) {
            None => Sha256::digest(b"-").into(),
            Some(f) => {
                let mut h = Sha256::new();
                h.update(b"B");
                h.update(f.bytes());
                h.finalize().into()
            }
        };
        cache.insert(rel.to_owned(), d);
        d
    }
}

/// The fixture paths `node` names, anywhere inside it.
fn refs(node: &Node, out: &mut Vec<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n {
            Node::Arr(items) => stack.extend(items),
            Node::Obj(members) => {
                for (k, v) in members {
                    match v {
                        Node::Str(s) if FILE_REF_KEYS.contains(&k.as_str()) => out.push(s.clone()),
                        _ => stack.push(v),
                    }
                }
            }
            _ => {}
        }
    }
}

/// The writing of a content: each value with its kind and length, lengths and exponents as
/// LEB128 (zigzag for a signed exponent), so that no two contents write the same bytes.
trait Writing {
    fn update(&mut self, bytes: impl AsRef<[u8]>);
    fn varint(&mut self, n: u128) {
        let mut n = n;
        loop {
            let low = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.update([low]);
                return;
            }
            self.update([low | 0x80]);
        }
    }
}

impl Writing for Vec<u8> {
    fn update(&mut self, bytes: impl AsRef<[u8]>) {
        self.extend_from_slice(bytes.as_ref());
    }
}

fn write_str(h: &mut Vec<u8>, s: &str) {
    h.varint(s.len() as u128);
    h.update(s.as_bytes());
}

/// Write `node` into `h`, every value with its kind and length (an explicit stack: the depth of
/// a case is the manifest's, which serde_json bounds, but this need not rely on it).
fn write(h: &mut Vec<u8>, node: &Node) {
    enum Item<'n> {
        Node(&'n Node),
        Key(&'n str),
        Close(u8),
    }
    let mut stack = vec![Item::Node(node)];
    while let Some(item) = stack.pop() {
        let n = match item {
            Item::Node(n) => n,
            Item::Key(k) => {
                h.update(b"K");
                write_str(h, k);
                continue;
            }
            Item::Close(c) => {
                h.update([c]);
                continue;
            }
        };
        match n {
            Node::Null => h.update(b"n"),
            Node::Bool(b) => h.update(if *b { b"t" } else { b"f" }),
            Node::Num(Number::Exact { int, negative, digits, exp }) => {
                h.update([b'N', u8::from(*int), u8::from(*negative)]);
                write_str(h, digits);
                // Zigzag, wrapping: a bijection of every i128, the largest included.
                h.varint((exp.wrapping_shl(1) ^ (exp >> 127)) as u128);
            }
            Node::Num(Number::Text(t)) => {
                h.update(b"T");
                write_str(h, t);
            }
            Node::Str(s) => {
                h.update(b"S");
                write_str(h, s);
            }
            Node::Arr(items) => {
                h.update(b"[");
                h.varint(items.len() as u128);
                stack.push(Item::Close(b']'));
                stack.extend(items.iter().rev().map(Item::Node));
            }
            Node::Obj(members) => {
                h.update(b"{");
                h.varint(members.len() as u128);
                stack.push(Item::Close(b'}'));
                // Unique keys: any order is the same object (sorted here); repeated keys: their
                // order decides which one a reader keeps, so it counts (as `Node`'s equality).
                let mut order: Vec<&(String, Node)> = members.iter().collect();
                order.sort_by(|a, b| a.0.cmp(&b.0));
                if order.windows(2).any(|w| w[0].0 == w[1].0) {
                    order = members.iter().collect();
                }
                for (k, v) in order.into_iter().rev() {
                    stack.push(Item::Node(v));
                    stack.push(Item::Key(k));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(manifest: &str, fixtures: &[(&str, &str)]) -> Suite {
        let mut files: Vec<(String, Vec<u8>)> = vec![(MANIFEST.to_owned(), manifest.as_bytes().to_vec())];
        files.extend(fixtures.iter().map(|(p, t)| ((*p).to_owned(), t.as_bytes().to_vec())));
        Suite::from_files("mem", files, Vec::new())
    }

    /// The fingerprints of every case of section `s`, by id.
    fn prints(su: &Suite, s: &str) -> Vec<(String, Option<String>)> {
        let section = su.section(s).unwrap();
        let cases = section.cases();
        let refs: Vec<&CaseRef<'_>> = cases.iter().collect();
        cases
            .iter()
            .map(|c| c.id.clone())
            .zip(fingerprints(&Texts::of(su), &section, &refs).into_iter().map(|c| c.map(|c| c.print)))
            .collect()
    }

    #[test]
    fn a_content_says_where_the_case_lies() {
        let su = suite(BASE, &[]);
        let section = su.section("s").unwrap();
        let cases = section.cases();
        let c2 = fingerprints(&Texts::of(&su), &section, &[&cases[1]]).pop().flatten().unwrap();
        assert_eq!(c2.pointers, ["/s/b/cases/1", "/s/b/fixture", "/s/schema"]);
        assert_eq!(c2.holders, ["/s/b", "/s"]);
        assert_eq!(c2.fixtures, ["fixtures/a.json"]);
        let single = fingerprints(&Texts::of(&su), &section, &[&cases[2]]).pop().flatten().unwrap();
        assert_eq!(single.pointers, ["/s/single", "/s/schema"]);
        assert_eq!(single.holders, ["/s"]);
        assert!(single.fixtures.is_empty());
    }

    const BASE: &str = r#"{"conformance_version": "1.6.0",
        "s": {"description": "S", "schema": {"type": "object"},
              "b": {"description": "B", "fixture": "fixtures/a.json",
                    "cases": [{"name": "c1", "description": "one", "x": 1.0, "list": [1, 2]},
                              {"name": "c2", "x": 2, "expect": {"reason": "kept"}}]},
              "single": {"description": "a single case", "y": true}}}"#;

    /// A block's shared fields count in any order, as the members of any object with unique keys
    /// do: before, they were hashed in the order written, so the gate blocks' `property` and
    /// `fixture` swapped made every row of the recorded suite a BQ318.
    #[test]
    fn shared_fields_count_in_any_order() {
        let fx = [("fixtures/a.json", r#"{"job": "a"}"#)];
        let written = r#"{"conformance_version": "1.6.0",
            "s": {"schema": {"type": "object"},
                  "b": {"property": "p", "fixture": "fixtures/a.json", "cases": [{"value": "1"}]}}}"#;
        let swapped = r#"{"conformance_version": "1.6.0",
            "s": {"schema": {"type": "object"},
                  "b": {"cases": [{"value": "1"}], "fixture": "fixtures/a.json", "property": "p"}}}"#;
        let base = prints(&suite(written, &fx), "s");
        assert!(base[0].1.is_some(), "{base:?}");
        assert_eq!(prints(&suite(swapped, &fx), "s"), base);
        // Their values still count.
        assert_ne!(prints(&suite(&written.replace(r#""p""#, r#""q""#), &fx), "s"), base);
    }

    #[test]
    fn prose_white_space_key_order_and_literal_spelling_do_not_count() {
        let fx = [("fixtures/a.json", r#"{"job": "a", "n": 1.5}"#)];
        let base = prints(&suite(BASE, &fx), "s");
        assert!(base.iter().all(|(_, p)| p.as_deref().is_some_and(|p| p.len() == 16)), "{base:?}");
        for edited in [
            BASE.replace(r#""description": "one""#, r#""description": "changed""#),
            BASE.replace(r#""description": "B""#, r#""note": "added prose""#),
            BASE.replace(r#""x": 1.0"#, r#""x": 1e0"#),
            BASE.replace(r#""x": 1.0, "list": [1, 2]"#, r#""list": [1, 2],   "x": 10e-1"#),
            BASE.replace(r#""description": "S""#, r#""description": "other""#),
        ] {
            assert_eq!(prints(&suite(&edited, &fx), "s"), base, "{edited}");
        }
        // The cases of a block in another order: each is the same case.
        let c1 = r#"{"name": "c1", "description": "one", "x": 1.0, "list": [1, 2]}"#;
        let c2 = r#"{"name": "c2", "x": 2, "expect": {"reason": "kept"}}"#;
        let swapped = BASE.replace(&format!("{c1},\n                              {c2}"), &format!("{c2}, {c1}"));
        assert_ne!(swapped, BASE);
        let mut moved = prints(&suite(&swapped, &fx), "s");
        moved.sort();
        assert_eq!(moved, base);
        // A fixture is bytes: the same JSON laid out or escaped otherwise is other input.
        for other in ["{\"n\": 15e-1, \"job\": \"a\"}", r#"{"job": "\u0061", "n": 1.5}"#] {
            let now = prints(&suite(BASE, &[("fixtures/a.json", other)]), "s");
            assert_ne!(now[0], base[0], "{other}");
            assert_eq!(now[2], base[2], "the single case reads no fixture");
        }
    }

    #[test]
    fn data_in_the_case_its_shared_fields_and_its_fixtures_counts() {
        let fx = [("fixtures/a.json", r#"{"job": "a"}"#), ("fixtures/b.json", r#"{"job": "b"}"#)];
        let base = prints(&suite(BASE, &fx), "s");
        let changed = |edited: &str, fx: &[(&str, &str)]| -> Vec<String> {
            let now = prints(&suite(edited, fx), "s");
            base.iter().zip(&now).filter(|(a, b)| a != b).map(|(a, _)| a.0.clone()).collect()
        };
        // The case's own data, exactly: a retype, the sign of zero, a deeper prose-named member.
        assert_eq!(changed(&BASE.replace(r#""x": 1.0"#, r#""x": 1"#), &fx), ["b/c1"]);
        assert_eq!(changed(&BASE.replace(r#""x": 1.0"#, r#""x": 1.00000000000000000001"#), &fx), ["b/c1"]);
        assert_eq!(changed(&BASE.replace(r#""x": 2"#, r#""x": -0"#), &fx), ["b/c2"]);
        assert_eq!(changed(&BASE.replace(r#""reason": "kept""#, r#""reason": "gone""#), &fx), ["b/c2"]);
        assert_eq!(changed(&BASE.replace("[1, 2]", "[2, 1]"), &fx), ["b/c1"]);
        // A single case's data.
        assert_eq!(changed(&BASE.replace(r#""y": true"#, r#""y": false"#), &fx), ["single"]);
        // The block's shared fixture: its cases, not the single case beside the block.
        assert_eq!(changed(&BASE.replace("fixtures/a.json", "fixtures/b.json"), &fx), ["b/c1", "b/c2"]);
        let edited_fixture = [("fixtures/a.json", r#"{"job": "a", "extra": 1}"#), fx[1]];
        assert_eq!(changed(BASE, &edited_fixture), ["b/c1", "b/c2"]);
        assert_eq!(changed(BASE, &fx[1..]), ["b/c1", "b/c2"], "a fixture gone");
        // The section's schema: every case.
        assert_eq!(
            changed(&BASE.replace(r#"{"type": "object"}"#, r#"{"type": "array"}"#), &fx),
            ["b/c1", "b/c2", "single"]
        );
        // A number's sign and its magnitude (the exponent of its exact form) count.
        assert_eq!(changed(&BASE.replace(r#""x": 2"#, r#""x": -2"#), &fx), ["b/c2"]);
        assert_eq!(changed(&BASE.replace(r#""x": 2"#, r#""x": 2e1"#), &fx), ["b/c2"]);
        assert_eq!(changed(&BASE.replace(r#""x": 2"#, r#""x": 20"#), &fx), ["b/c2"]);
        // A fixture the case names itself (the top-level cases' `file`) counts by its bytes too.
        let own = BASE.replace(r#""y": true"#, r#""y": true, "file": "fixtures/b.json""#);
        let base_own = prints(&suite(&own, &fx), "s");
        let edited_b = [fx[0], ("fixtures/b.json", r#"{"job": "b", "extra": 1}"#)];
        let now = prints(&suite(&own, &edited_b), "s");
        let moved: Vec<&String> = base_own.iter().zip(&now).filter(|(a, b)| a != b).map(|(a, _)| &a.0).collect();
        assert_eq!(moved, ["single"]);
    }

    /// A section's member beside its cases and blocks that is data (a fixture it names, a
    /// value) is shared by every case of the section, as `diff` reads it: before, only the
    /// section's `schema` and `description` were taken, so an edit of such a member passed
    /// BQ318 unseen.
    #[test]
    fn a_section_member_that_is_data_counts_for_every_case() {
        let fx = [("fixtures/a.json", r#"{"job": "a"}"#), ("fixtures/b.json", r#"{"job": "b"}"#)];
        let with = |member: &str| BASE.replace(r#""description": "S","#, &format!(r#""description": "S", {member},"#));
        let base = with(r#""envelope_file": "fixtures/b.json", "limit": 3, "note": "n""#);
        let before = prints(&suite(&base, &fx), "s");
        let all = ["b/c1", "b/c2", "single"];
        let changed = |edited: &str, fx: &[(&str, &str)]| -> Vec<String> {
            let now = prints(&suite(edited, fx), "s");
            before.iter().zip(&now).filter(|(a, b)| a != b).map(|(a, _)| a.0.clone()).collect()
        };
        assert_eq!(changed(&base.replace(r#""limit": 3"#, r#""limit": 4"#), &fx), all);
        assert_eq!(changed(&base.replace("fixtures/b.json", "fixtures/a.json"), &fx), all);
        assert_eq!(changed(&base, &[fx[0], ("fixtures/b.json", r#"{"job": "c"}"#)]), all, "its fixture's bytes");
        assert!(changed(&base.replace(r#""note": "n""#, r#""note": "other""#), &fx).is_empty(), "prose");
    }

    #[test]
    fn a_rule_is_pinned_without_its_prose_and_whatever_its_key_order() {
        let policy = |rules: &str| {
            let m = format!(
                r#"{{"conformance_version": "1.6.0", "skip_policy": {{"description": "d", "rules": {rules}}}}}"#
            );
            rules_of(&suite(&m, &[]))
        };
        let base =
            policy(r#"[{"name": "r", "adrs": ["ADR-0031"], "cases": [{"section": "s", "case": "c"}]}, {"name": 7}]"#);
        assert_eq!(base[0].0.as_deref(), Some("r"));
        assert_eq!(base[1].0, None, "a name that is no string");
        assert_eq!(base[0].1.pointers, ["/skip_policy/rules/0"]);
        assert_eq!(base[0].1.holders, ["/skip_policy", "/skip_policy/rules"]);
        let same = policy(
            r#"[{"cases": [{"case": "c", "note": "why", "section": "s"}], "description": "x", "adrs": ["ADR-0031"], "name": "r"}, {"name": 7}]"#,
        );
        assert_eq!(same[0].1.print, base[0].1.print);
        for other in [
            r#"[{"name": "r", "adrs": ["ADR-0032"], "cases": [{"section": "s", "case": "c"}]}]"#,
            r#"[{"name": "r", "adrs": ["ADR-0031"], "cases": [{"section": "s", "case": "c"}], "all_or_none": false}]"#,
            r#"[{"name": "r", "adrs": ["ADR-0031"], "cases": [{"section": "s", "block": "c"}]}]"#,
        ] {
            assert_ne!(policy(other)[0].1.print, base[0].1.print, "{other}");
        }
        assert!(rules(&Texts::of(&suite(r#"{"skip_policy": {"rules": {}}}"#, &[]))).is_none());
        assert!(rules(&Texts::of(&suite(r#"{"cases": []}"#, &[]))).is_none());
    }

    /// Each rule of `su`'s policy: its name and content.
    fn rules_of(su: &Suite) -> Vec<(Option<String>, Content)> {
        rules(&Texts::of(su)).unwrap().into_iter().map(|r| (r.name, r.content)).collect()
    }

    #[test]
    fn the_schemas_are_pinned_by_their_bytes() {
        let m = r#"{"conformance_version": "1.6.0"}"#;
        let of = |text: &str| schemas(&Texts::of(&suite(m, &[(crate::suite::RESULTS_SCHEMA, text)])));
        let base = of(r#"{"type": "object"}"#);
        assert_eq!(base.keys().collect::<Vec<_>>(), [crate::suite::RESULTS_SCHEMA], "only the files there are");
        assert_ne!(of(r#"{"type":"object"}"#), base, "layout counts");
        assert_eq!(of(r#"{"type": "object"}"#), base);
    }

    #[test]
    fn repeated_keys_count_in_their_order() {
        let a = BASE.replace(r#""x": 2,"#, r#""x": 2, "x": 3,"#);
        let b = BASE.replace(r#""x": 2,"#, r#""x": 3, "x": 2,"#);
        let (pa, pb) = (prints(&suite(&a, &[]), "s"), prints(&suite(&b, &[]), "s"));
        assert_eq!(pa[0], pb[0]);
        assert_ne!(pa[1], pb[1]);
    }

    #[test]
    fn kinds_and_lengths_keep_contents_apart() {
        let print = |v: &str| {
            let mut h = Vec::new();
            write(&mut h, &Node::parse(v.as_bytes()).unwrap());
            h
        };
        let all = [
            r#"[1e-170141183460469231731687303715884105727]"#,
            r#"["ab"]"#,
            r#"["a", "b"]"#,
            r#"[["a"], "b"]"#,
            r#"{"a": "b"}"#,
            r#"["1"]"#,
            "[1]",
            "[1.0]",
            "[]",
            "{}",
            "[null]",
            r#"[""]"#,
            "[true]",
            "[false]",
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(print(a), print(b), "{a} vs {b}");
            }
        }
    }
}
