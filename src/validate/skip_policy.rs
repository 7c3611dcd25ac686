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
use crate::sections;
use crate::suite::skip_policy::{ProblemKind, SkipPolicy};
use crate::suite::{MANIFEST, Suite, pointer};

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
        .filter(|p| !held_by_version(cx.suite, manifest, p.kind, &p.pointer))
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

/// Does a selector that names no section (or no block with cases) name one the suite's version
/// holds by the spec's version history, gone or emptied? That is the registry family's finding
/// (BQ312, BQ313, BQ314), not one more per rule that names it.
fn held_by_version(suite: &Suite, manifest: &Value, kind: ProblemKind, at: &str) -> bool {
    let Some(version) = suite.version().and_then(|v| semver::Version::parse(v).ok()) else {
        return false;
    };
    let v = sections::version_of(&version);
    let name = |ptr: &str| pointer::get(manifest, ptr).and_then(Value::as_str);
    match kind {
        ProblemKind::UnknownSection => name(at).and_then(sections::find).is_some_and(|d| d.since() <= v),
        ProblemKind::UnknownBlock => {
            let section = at.strip_suffix("/block").map(|sel| format!("{sel}/section"));
            let Some((def, block)) = section.as_deref().and_then(name).and_then(sections::find).zip(name(at)) else {
                return false;
            };
            let due = def.since() <= v && def.blocks().iter().any(|b| b.name == block && b.since <= v);
            // Missing (BQ313), its cases emptied (BQ314), or the whole section of another shape
            // (BQ207); a block that is there with no cases array (a single case) is the rule's.
            let gone = match manifest.get(def.name()).and_then(Value::as_object).map(|s| s.get(block)) {
                None | Some(None) => true,
                Some(Some(b)) => b.get("cases").and_then(Value::as_array).is_some_and(Vec::is_empty),
            };
            due && gone
        }
        _ => false,
    }
}
