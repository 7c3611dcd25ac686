//! Names that become case ids: section names, case names and sub-keys.
//!
//! Rules: none holds a control character (BQ511: [`crate::diag::is_unsafe_char`], the set the
//! terminal escaping uses — C0, DEL, C1, the line and paragraph separators and the bidi
//! controls), because ids are printed one `section<TAB>id` per line and shown in terminals; no
//! section name or sub-key is empty (BQ512), because an id would then have an empty part; none
//! starts or ends with whitespace (BQ513, Unicode White_Space), because ids are compared
//! exactly and an edge space is invisible. An empty or non-string case `name` is BQ507
//! (R20.10), not repeated here.
//!
//! Case names (decisions R2, BQ514): every case of a `cases` array has a `name`, so that its id
//! never depends on its position, except the rows of a `schema_version_gate` table, published
//! unnamed (ids `schema_version_gate/<index>`, new rows appended); and every name is kebab-case
//! ASCII, `^[a-z0-9]+(-[a-z0-9]+)*$` (every name the published 1.6.0 manifest holds is), so no
//! two names can look alike (NFC and NFD spellings, a Cyrillic letter, a zero-width space,
//! letter case) and ids compare byte for byte. A name BQ507, BQ511 or BQ513 already reports is
//! not reported again.

use crate::diag::{Code, Finding, is_unsafe_char};
use crate::suite::{MANIFEST, pointer};

use super::Ctx;

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let at = |code, msg: String, ptr: String| Finding::error(code, msg).in_file(MANIFEST).at(ptr);
    for s in cx.suite.sections() {
        let section_ptr = pointer::join("", s.name);
        if s.name.is_empty() {
            out.push(at(Code::ID_EMPTY_PART, "a section name is empty".into(), section_ptr.clone()));
        }
        if s.name.chars().any(is_unsafe_char) {
            out.push(at(
                Code::ID_CONTROL_CHARACTER,
                format!("section name {:?} holds a control character", s.name),
                section_ptr.clone(),
            ));
        }
        if edge_space(s.name) {
            out.push(at(Code::ID_WHITESPACE, whitespace("section name", s.name), section_ptr.clone()));
        }
        let mut seen_subs: Vec<&str> = Vec::new();
        for case in cx.cases(s.name) {
            if let Some(f) = name_form(case) {
                out.push(f);
            }
            // A case id holds its sub-key and its name: when the id holds neither an unsafe
            // character nor whitespace and the sub-key is not empty, they are clean (the common
            // case costs one scan of the id, and no look-up of the name).
            if case.sub != Some("") && !case.id.chars().any(|c| is_unsafe_char(c) || c.is_whitespace()) {
                continue;
            }
            let name = case.index.and(case.value.get("name")).and_then(|n| n.as_str());
            if let Some(sub) = case.sub.filter(|sub| !seen_subs.contains(sub)) {
                seen_subs.push(sub);
                let sub_ptr = pointer::join(&section_ptr, sub);
                if sub.is_empty() {
                    out.push(at(Code::ID_EMPTY_PART, format!("section {:?} has an empty sub-key", s.name), sub_ptr));
                } else if sub.chars().any(is_unsafe_char) {
                    out.push(at(
                        Code::ID_CONTROL_CHARACTER,
                        format!("sub-key {sub:?} of section {:?} holds a control character", s.name),
                        sub_ptr,
                    ));
                } else if edge_space(sub) {
                    out.push(at(
                        Code::ID_WHITESPACE,
                        whitespace(&format!("sub-key of section {:?}", s.name), sub),
                        sub_ptr,
                    ));
                }
            }
            if let Some(name) = name.filter(|n| n.chars().any(is_unsafe_char)) {
                out.push(at(
                    Code::ID_CONTROL_CHARACTER,
                    format!("case name {name:?} holds a control character"),
                    pointer::join(&case.pointer, "name"),
                ));
            } else if let Some(name) = name.filter(|n| edge_space(n)) {
                out.push(at(Code::ID_WHITESPACE, whitespace("case name", name), pointer::join(&case.pointer, "name")));
            }
        }
    }
    out
}

/// The block whose rows are published unnamed (decisions R2).
const UNNAMED_ROWS: &str = "schema_version_gate";

/// Is `name` kebab-case ASCII: `^[a-z0-9]+(-[a-z0-9]+)*$`?
fn is_kebab(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && name.bytes().all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-'))
}

/// BQ514 for a case of a `cases` array: it has no name (outside the gate tables), or a name
/// that is not kebab-case (one that BQ507, BQ511 or BQ513 reports is left to them).
fn name_form(case: &crate::suite::CaseRef<'_>) -> Option<Finding> {
    case.index?;
    let obj = case.value.as_object()?;
    let at = |msg: String, ptr: String| Finding::error(Code::CASE_NAME_FORM, msg).in_file(MANIFEST).at(ptr);
    match obj.get("name") {
        None if case.sub == Some(UNNAMED_ROWS) => None,
        None => Some(at(
            format!(
                "the case has no name, so its id {:?} depends on its position: every case but a schema_version_gate \
                 row is named (decisions R2)",
                case.id
            ),
            case.pointer.clone(),
        )),
        Some(serde_json::Value::String(name))
            if !is_kebab(name)
                && !name.is_empty()
                && !name.contains('/')
                && !name.chars().any(is_unsafe_char)
                && !edge_space(name) =>
        {
            let ascii = if name.is_ascii() {
                String::new()
            } else {
                format!(" ({} as escapes)", crate::diag::token_safe(name))
            };
            Some(at(
                format!(
                    "case name {name:?}{ascii} is not kebab-case ASCII (lower-case letters and digits in words joined \
                     by single hyphens): ids are compared byte for byte, and a look-alike, another Unicode spelling \
                     or another letter case would be another id"
                ),
                pointer::join(&case.pointer, "name"),
            ))
        }
        Some(_) => None,
    }
}

/// Does `name` start or end with whitespace?
fn edge_space(name: &str) -> bool {
    name.starts_with(char::is_whitespace) || name.ends_with(char::is_whitespace)
}

fn whitespace(what: &str, name: &str) -> String {
    format!("{what} {name:?} starts or ends with whitespace; ids are compared exactly, so write it {:?}", name.trim())
}
