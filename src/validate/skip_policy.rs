//! The skip policy (manifest.json → `skip_policy`): every problem the one reader
//! ([`crate::suite::skip_policy`]) finds, as findings in manifest.json.
//!
//! Rules: the policy exists (BQ208) and has its shape (BQ209); every ADR it names is `ADR-` and
//! four digits (BQ210); every section it names exists (BQ211), every case id it names is a case
//! id of that section under the one case-id rule (BQ212), every block it names is a sub-key with
//! a `cases` array (BQ213); rule names are unique (BQ214); a section a rule may skip whole is one
//! it selects in full (BQ215); no core section can be skipped whole, by a `whole_sections` entry
//! or by the rules together selecting all of its cases (BQ216); `all_or_none` is a boolean and
//! `families` a non-empty list of families of ASCII letters and digits (BQ209), each one results
//! check can derive (BQ217). A selector naming a section or block that the suite's version holds
//! but that is missing or emptied is left to that section's or block's finding (BQ312, BQ313,
//! BQ314): one problem, one finding.

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::suite::skip_policy::{ProblemKind, SkipPolicy};
use crate::suite::{MANIFEST, pointer};

use super::Ctx;

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let Some(manifest) = cx.suite.json(MANIFEST).filter(|m| m.is_object()) else {
        return Vec::new();
    };
    // The same reader as the suite's, over the case ids this run derived already.
    let cases_of = |name: &str| cx.suite.section(name).map(|_| cx.cases(name));
    SkipPolicy::read_with(cx.suite, &cases_of)
        .problems
        .iter()
        .filter(|p| !left_to_the_version_history(cx, manifest, p.kind, &p.pointer))
        .map(|p| {
            let code = match p.kind {
                ProblemKind::Missing => Code::SKIP_POLICY_MISSING,
                ProblemKind::Shape => Code::SKIP_POLICY_SHAPE,
                ProblemKind::Adr => Code::SKIP_POLICY_ADR,
                ProblemKind::UnknownSection => Code::SKIP_POLICY_UNKNOWN_SECTION,
                ProblemKind::UnknownCase => Code::SKIP_POLICY_UNKNOWN_CASE,
                ProblemKind::UnknownBlock => Code::SKIP_POLICY_UNKNOWN_BLOCK,
                ProblemKind::DuplicateRule => Code::SKIP_POLICY_DUPLICATE_RULE,
                ProblemKind::NotWhole => Code::SKIP_POLICY_NOT_WHOLE,
                ProblemKind::CoreSection => Code::SKIP_POLICY_CORE_SECTION,
                ProblemKind::UnknownFamily => Code::SKIP_POLICY_UNKNOWN_FAMILY,
            };
            Finding::error(code, p.message.clone()).in_file(MANIFEST).at(p.pointer.clone())
        })
        .collect()
}

/// A selector that names a section or block the suite's version holds but that is gone
/// ([`super::registry::gone_but_held`]): the registry family says so, once.
fn left_to_the_version_history(cx: &Ctx<'_>, manifest: &Value, kind: ProblemKind, at: &str) -> bool {
    let name = |ptr: &str| pointer::get(manifest, ptr).and_then(Value::as_str);
    match kind {
        ProblemKind::UnknownSection => name(at).is_some_and(|s| super::registry::gone_but_held(cx.suite, s, None)),
        ProblemKind::UnknownBlock => {
            let section = at.strip_suffix("/block").and_then(|sel| name(&format!("{sel}/section")));
            section.zip(name(at)).is_some_and(|(s, b)| super::registry::gone_but_held(cx.suite, s, Some(b)))
        }
        _ => false,
    }
}
