//! Sections, scopes and exceptions (ADR-0032).
//!
//! Rules: every block has an entry in `sections` and every entry names a block; every scope is
//! one of the nine; a block is an object (or an array, when its definition says so: `cases`)
//! with a non-empty `description`;
//! case ids are unique within a section, also when ASCII letter case is ignored (BQ206; a
//! case name is kebab-case ASCII, BQ514, and sub-keys are the registry's block names, so no
//! Unicode normalisation or folding is needed to compare ids); every problem the one reader of
//! `exceptions` ([`crate::suite::exceptions`]) finds is BQ204 (an entry that is not `{family,
//! binding, adr}` with an `ADR-NNNN`, a family that is not one piece of ASCII letters and
//! digits, a repeat), BQ205 (a binding no section has as its scope), BQ218 (not an exception
//! the contract's registry records for the suite's version) or BQ219 (a registered exception
//! of the version missing).

use foldhash::{HashSet, HashSetExt};

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::suite::exceptions::ProblemKind as ExceptionProblem;
use crate::suite::{MANIFEST, Scope, pointer};

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
            // No `sections` map at all is the manifest's shape (BQ104), not one finding per section.
            None if map.is_none() => {}
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

    // The one reader's problems (results check refuses a suite that has any). A non-array
    // `exceptions` is the manifest's shape (BQ104, manifest.rs).
    for p in cx.suite.exceptions_read().problems {
        let code = match p.kind {
            ExceptionProblem::NotArray => continue,
            ExceptionProblem::Bad => Code::BAD_EXCEPTION,
            // The bindings are the scopes of the `sections` map: without one (BQ104) none is known.
            ExceptionProblem::UnknownBinding if map.is_none() => continue,
            ExceptionProblem::UnknownBinding => Code::EXCEPTION_UNKNOWN_BINDING,
            ExceptionProblem::Unregistered => Code::EXCEPTION_UNREGISTERED,
            ExceptionProblem::Missing => Code::EXCEPTION_MISSING,
        };
        out.push(at(code, p.message, p.pointer));
    }
    out
}

fn scope_list() -> String {
    Scope::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}
