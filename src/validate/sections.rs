//! Sections, scopes and exceptions (ADR-0032).
//!
//! Rules: every block has an entry in `sections` and every entry names a block; every scope is
//! one of the nine; a block is an object (or an array, when its definition says so: `cases`)
//! with a non-empty `description`;
//! case ids are unique within a section, also when ASCII letter case is ignored (BQ206; a
//! case name is kebab-case ASCII, BQ514, and sub-keys are the registry's block names, so no
//! Unicode normalisation or folding is needed to compare ids); `exceptions` entries are `{family, binding, adr}` strings with `adr` of the form
//! `ADR-NNNN`, `family` only ASCII letters and digits (the pieces results check derives a family
//! from; any other family matches no SDK) and `binding` a binding scope that some section of the
//! suite has; no two entries name the same family (letter case aside, as results check matches
//! it) and binding, since one exemption backed by two ADRs leaves open which decision grants it.

use foldhash::{HashSet, HashSetExt};

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::suite::{MANIFEST, Scope, is_adr, pointer};

use super::Ctx;

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(m) = cx.suite.manifest() else {
        return out;
    };
    let at = |code, msg: String, ptr: String| Finding::error(code, msg).in_file(MANIFEST).at(ptr);
    let sections = cx.suite.sections();
    let map = m.get("sections").and_then(Value::as_object);

    for s in &sections {
        let ptr = pointer::join("", s.name);
        match map.and_then(|map| map.get(s.name)) {
            None => out.push(at(
                Code::SECTION_WITHOUT_SCOPE,
                format!("block {:?} has no scope: add it to the top-level \"sections\" map", s.name),
                ptr.clone(),
            )),
            Some(v) if v.as_str().and_then(Scope::parse).is_none() => out.push(at(
                Code::UNKNOWN_SCOPE,
                format!("scope {v} of {:?} is not one of {}", s.name, scope_list()),
                pointer::join("/sections", s.name),
            )),
            Some(_) => {}
        }
        let array = crate::sections::find(s.name).is_some_and(|d| d.is_array());
        let shape_ok = if array { s.block.is_array() } else { s.block.is_object() };
        if !shape_ok {
            let want = if array { "an array" } else { "an object" };
            out.push(at(Code::SECTION_SHAPE, format!("section {:?} must be {want}", s.name), ptr.clone()));
        } else if let Some(obj) = s.block.as_object() {
            // What a runner does with the cases, and every ruling the spec leaves to the suite.
            if obj.get("description").and_then(Value::as_str).is_none_or(|d| d.trim().is_empty()) {
                out.push(at(
                    Code::SECTION_SHAPE,
                    format!("section {:?} needs a non-empty \"description\" string saying what a runner does with its cases", s.name),
                    ptr.clone(),
                ));
            }
        }
        let mut seen = HashSet::new();
        for case in cx.cases(s.name) {
            if !seen.insert(case.id.as_str()) {
                out.push(at(
                    Code::DUPLICATE_CASE_ID,
                    format!("case id {:?} appears more than once in section {:?}", case.id, s.name),
                    case.pointer.clone(),
                ));
            }
        }
        // Ids equal but for ASCII letter case. Only an id with an upper-case letter can equal
        // another so (an all-lower-case one is its own folding), so only those are folded.
        let mut folded: foldhash::HashMap<String, &str> = foldhash::HashMap::default();
        for case in cx.cases(s.name).iter().filter(|c| c.id.bytes().any(|b| b.is_ascii_uppercase())) {
            let fold = case.id.to_ascii_lowercase();
            let other = seen.get(fold.as_str()).copied().or_else(|| folded.get(&fold).copied());
            match other {
                Some(other) if other != case.id => out.push(at(
                    Code::DUPLICATE_CASE_ID,
                    format!(
                        "case id {:?} equals {other:?} of section {:?} but for letter case: a results file or a lookup \
                         that ignores case takes one for the other",
                        case.id, s.name
                    ),
                    case.pointer.clone(),
                )),
                Some(_) => {}
                None => drop(folded.insert(fold, case.id.as_str())),
            }
        }
    }

    if let Some(map) = map {
        for name in map.keys() {
            if !sections.iter().any(|s| s.name == name) {
                out.push(at(
                    Code::SCOPE_WITHOUT_SECTION,
                    format!("\"sections\" gives {name:?} a scope but the manifest has no such block"),
                    pointer::join("/sections", name),
                ));
            }
        }
    }

    let carried: HashSet<Scope> = sections.iter().filter_map(|s| s.scope).collect();
    if let Some(list) = m.get("exceptions").and_then(Value::as_array) {
        let mut first: Vec<(String, &str, usize)> = Vec::new();
        for (i, e) in list.iter().enumerate() {
            let ptr = format!("/exceptions/{i}");
            let field = |k: &str| e.get(k).and_then(Value::as_str);
            let keys_ok = e.as_object().is_some_and(|o| o.len() == 3);
            match (field("family"), field("binding"), field("adr")) {
                (Some(family), Some(binding), Some(adr)) if keys_ok && !family.is_empty() && is_adr(adr) => {
                    if crate::suite::name_pieces(family).ne([family]) {
                        out.push(at(
                            Code::BAD_EXCEPTION,
                            format!(
                                "exception family {family:?} is matched by no SDK: results check derives a family as \
                                 one piece of ASCII letters and digits of the results file's sdk (php-sdk is php), so \
                                 a family is such a piece (php, go, python, java, dotnet, node)"
                            ),
                            format!("{ptr}/family"),
                        ));
                    }
                    let family_key = family.to_ascii_lowercase();
                    match first.iter().find(|(f, b, _)| *f == family_key && *b == binding) {
                        Some((_, _, j)) => out.push(at(
                            Code::BAD_EXCEPTION,
                            format!(
                                "exception {family}/{binding} repeats /exceptions/{j}: one family and binding is one \
                                 exemption, backed by one ADR; remove one of the two"
                            ),
                            ptr.clone(),
                        )),
                        None => first.push((family_key, binding, i)),
                    }
                    match Scope::parse(binding) {
                        Some(b) if b.is_binding() && carried.contains(&b) => {}
                        _ => out.push(at(
                            Code::EXCEPTION_UNKNOWN_BINDING,
                            format!("exception names binding {binding:?}, which no section of this suite has as its scope"),
                            format!("{ptr}/binding"),
                        )),
                    }
                }
                _ => out.push(at(
                    Code::BAD_EXCEPTION,
                    "an exception is exactly {\"family\", \"binding\", \"adr\"}: non-empty strings, adr of the form ADR-NNNN".into(),
                    ptr,
                )),
            }
        }
    }
    out
}

fn scope_list() -> String {
    Scope::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}
