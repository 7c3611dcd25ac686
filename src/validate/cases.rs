//! Cases and fixtures.
//!
//! Rules: every `file`, `envelope_file` and `fixture` reference anywhere in the manifest names a
//! loaded suite file; every file under `fixtures/` is referenced by some case (no orphans); a
//! top-level case has a string `name`, a string `file` and a boolean `valid`, a valid one an
//! `expect` object and an invalid one a `reason` string; any other case that names a `file` and
//! says `valid: false` carries a `reason` too.

use std::collections::HashSet;

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::suite::MANIFEST;

use super::Ctx;

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    if cx.suite.json(MANIFEST).is_none() {
        return out;
    }
    let at = |code, msg: String, ptr: &str| Finding::error(code, msg).in_file(MANIFEST).at(ptr);

    let refs = cx.file_refs();
    let referenced: HashSet<&str> = refs.iter().map(|(_, f)| *f).collect();
    for (ptr, file) in refs {
        if cx.suite.file(file).is_none() {
            out.push(at(Code::MISSING_FIXTURE, format!("{file} does not exist in the suite"), ptr));
        }
    }
    for f in cx.suite.files() {
        if f.rel.starts_with("fixtures/") && f.rel.ends_with(".json") && !referenced.contains(f.rel.as_str()) {
            out.push(
                Finding::error(Code::ORPHAN_FIXTURE, "no case references this fixture; reference it or delete it")
                    .in_file(f.rel.clone()),
            );
        }
    }

    for s in cx.suite.sections() {
        for case in cx.cases(s.name) {
            let c = case.value;
            let Some(obj) = c.as_object() else {
                if s.name == "cases" {
                    out.push(at(Code::CASE_SHAPE, "a case must be a JSON object".into(), &case.pointer));
                }
                continue;
            };
            let valid = obj.get("valid").and_then(Value::as_bool);
            let has_reason = obj.get("reason").is_some_and(Value::is_string);
            if s.name == "cases" {
                for (key, ok) in [
                    ("name", obj.get("name").is_some_and(Value::is_string)),
                    ("file", obj.get("file").is_some_and(Value::is_string)),
                    ("valid", valid.is_some()),
                ] {
                    if !ok {
                        out.push(at(
                            Code::CASE_SHAPE,
                            format!(
                                "case {:?} needs {key:?} ({})",
                                case.id,
                                if key == "valid" { "a boolean" } else { "a string" }
                            ),
                            &case.pointer,
                        ));
                    }
                }
                if valid == Some(true) && !obj.get("expect").is_some_and(Value::is_object) {
                    out.push(at(
                        Code::VALID_WITHOUT_EXPECT,
                        format!("valid case {:?} has no \"expect\" object", case.id),
                        &case.pointer,
                    ));
                }
            }
            if valid == Some(false) && (s.name == "cases" || obj.contains_key("file")) && !has_reason {
                out.push(at(
                    Code::INVALID_WITHOUT_REASON,
                    format!("invalid case {:?} has no \"reason\" string", case.id),
                    &case.pointer,
                ));
            }
        }
    }
    out
}
