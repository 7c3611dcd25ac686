//! `bqsuite results check`: one results file against a loaded suite.
//!
//! Rules (spec "Sections, scopes and exceptions", "Results format"; codes BQ601–BQ612):
//! - the file is UTF-8 JSON (BQ601) and validates against `schema/results.schema.json` (BQ602);
//! - `conformance_version` is the suite's version (BQ603); when it is another version the
//!   section and case-id rules are not applied, because they would compare the file with a
//!   manifest it never ran;
//! - the SDK's family is derived from `sdk` (see [`family_of`]); a binding that an `exceptions`
//!   entry excludes for that family is not listed in `bindings` (BQ604) and its sections are
//!   treated as out of scope;
//! - the carried scopes are `core` plus every binding listed (less the excepted ones); every
//!   section of a carried scope is present (BQ605), no section of another scope is (BQ606), and
//!   no section the suite does not have is (BQ607);
//! - a present in-scope section lists every case id of the one case-id rule (BQ608) and no other
//!   id (BQ609); every skip in it has a reason citing `ADR-NNNN` (BQ610), and a skip anywhere else
//!   is itself a finding (BQ611);
//! - every `fail` is a finding (BQ612) carrying the file's reason.
//!
//! Every finding names the results file and a pointer inside it (the missing thing's parent for
//! an absence), with line:column located on the file's text. A BQ610 finding supersedes the
//! schema's own report of the same skip (the schema also requires an ADR-citing reason), so one
//! problem gives one finding. The verdict is Compatible exactly when a file has no error finding.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::model::Status;
use crate::diag::{Code, Finding, Severity};
use crate::suite::{self, Exception, Scope, Suite, pointer, span};

use super::view::{Results, SECTIONS};
use super::{Source, Verdict};

/// The producer schema's list of SDK families (`meta.lang`).
const LANG_ENUM: &str = "/properties/meta/properties/lang/enum";

/// The SDK family of a results file: the first token of `sdk` that names a family, where the
/// tokens are `sdk` split at every character that is not an ASCII letter or digit, compared
/// case-insensitively. `babelqueue-python` is `python`, `php-sdk` is `php`,
/// `babelqueue-java-sqs` is `java`, `bqsuite-reference` has none.
pub fn family_of(sdk: &str, families: &[String]) -> Option<String> {
    sdk.split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .find(|t| families.iter().any(|f| f.eq_ignore_ascii_case(t)))
}

pub use crate::suite::cites_adr;

/// What checking one results file gave.
#[derive(Debug, Clone)]
pub struct FileCheck {
    /// The file as the user named it.
    pub file: String,
    /// The file's content, when it is JSON.
    pub results: Option<Results>,
    /// The SDK family derived from `sdk`.
    pub family: Option<String>,
    /// The scopes the SDK carries: `core` plus its listed bindings, less the excepted ones.
    pub carried: BTreeSet<Scope>,
    /// The exceptions that apply to the family.
    pub excepted: Vec<Exception>,
    /// Whether `conformance_version` is the suite's version (or absent).
    pub same_version: bool,
    /// Per present in-scope section, the case ids it leaves out (BQ608), in manifest order.
    pub missing_cases: BTreeMap<String, Vec<String>>,
    /// Every finding, located and sorted.
    pub findings: Vec<Finding>,
}

impl FileCheck {
    /// Compatible exactly when there is no error finding.
    pub fn verdict(&self) -> Verdict {
        if crate::diag::has_errors(&self.findings) { Verdict::NotCompatible } else { Verdict::Compatible }
    }

    /// The reasons of a Not compatible verdict: each error code with its count, in code order.
    pub fn reasons(&self) -> Vec<String> {
        let mut tally: BTreeMap<Code, usize> = BTreeMap::new();
        for f in self.findings.iter().filter(|f| f.severity == Severity::Error) {
            *tally.entry(f.code).or_default() += 1;
        }
        tally.into_iter().map(|(code, n)| format!("{code} ×{n}")).collect()
    }

    /// The exception excluding `scope` for this file's family, if any.
    pub fn exception_for(&self, scope: Scope) -> Option<&Exception> {
        self.excepted.iter().find(|e| e.binding == scope.as_str())
    }

    /// `sdk version` as the file names them (`?` for what it leaves out).
    pub fn label(&self) -> String {
        let r = self.results.as_ref();
        format!(
            "{} {}",
            r.and_then(|r| r.sdk.as_deref()).unwrap_or("?"),
            r.and_then(|r| r.version.as_deref()).unwrap_or("?")
        )
    }
}

/// Checks results files against one suite; the results schema is compiled once.
pub struct Checker<'s> {
    suite: &'s Suite,
    version: &'s str,
    schema: jsonschema::Validator,
    families: Vec<String>,
}

impl<'s> Checker<'s> {
    /// A checker for `suite`. Fails (the command cannot run) when the suite has no parsable
    /// manifest, no version or no usable results schema.
    pub fn new(suite: &'s Suite) -> Result<Self, String> {
        if suite.manifest().is_none() {
            return Err("the manifest is missing or does not parse; run `bqsuite validate`".into());
        }
        let version = suite.version().ok_or("the suite has no CONFORMANCE_VERSION; run `bqsuite validate`")?;
        let schema = suite
            .json(suite::RESULTS_SCHEMA)
            .ok_or_else(|| format!("the suite has no parsable {}; run `bqsuite validate`", suite::RESULTS_SCHEMA))
            .and_then(|s| {
                crate::schema::draft202012(s).map_err(|e| format!("{} does not compile: {e}", suite::RESULTS_SCHEMA))
            })?;
        let mut families: Vec<String> = suite
            .json(suite::ENVELOPE_SCHEMA)
            .and_then(|s| pointer::get(s, LANG_ENUM))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|f| f.as_str().map(str::to_owned))
            .collect();
        for e in suite.exceptions() {
            if !families.contains(&e.family) {
                families.push(e.family);
            }
        }
        Ok(Self { suite, version, schema, families })
    }

    /// The SDK families a family can be derived as.
    pub fn families(&self) -> &[String] {
        &self.families
    }

    /// Check one results file.
    pub fn check(&self, src: &Source) -> FileCheck {
        let mut fc = FileCheck {
            file: src.file.clone(),
            results: None,
            family: None,
            carried: BTreeSet::from([Scope::Core]),
            excepted: Vec::new(),
            same_version: true,
            missing_cases: BTreeMap::new(),
            findings: Vec::new(),
        };
        let text = match std::str::from_utf8(&src.bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.valid_up_to();
                fc.findings.push(
                    Finding::error(Code::RESULTS_NOT_JSON, format!("not UTF-8 (invalid byte at offset {at})"))
                        .in_file(&fc.file)
                        .with_span(Some(span::span_at(&String::from_utf8_lossy(&src.bytes[..at]), at))),
                );
                return fc;
            }
        };
        let value = match suite::parse_json(text) {
            Ok(v) => v,
            Err(e) => {
                fc.findings.push(
                    Finding::error(Code::RESULTS_NOT_JSON, format!("not JSON: {}", e.message))
                        .in_file(&fc.file)
                        .with_span(e.span),
                );
                return fc;
            }
        };
        let results = Results::from_value(&value);
        let mut out: Vec<Finding> = self
            .schema
            .iter_errors(&value)
            .map(|e| {
                Finding::error(Code::RESULTS_SCHEMA, format!("violates the results schema: {e}"))
                    .at(e.instance_path().as_str())
            })
            .collect();
        fc.family = results.sdk.as_deref().and_then(|s| family_of(s, &self.families));
        fc.excepted =
            self.suite.exceptions().into_iter().filter(|e| fc.family.as_deref() == Some(e.family.as_str())).collect();
        for (i, b) in &results.bindings {
            let Some(scope) = Scope::parse(b).filter(|s| s.is_binding()) else { continue };
            match fc.exception_for(scope) {
                Some(x) => out.push(
                    Finding::error(
                        Code::RESULTS_BINDING_UNDER_EXCEPTION,
                        format!(
                            "binding {b:?} is under exception {} for family {:?}: a binding under an exception is not \
                             listed in bindings and its sections are absent (ADR-0032). {}",
                            x.adr,
                            x.family,
                            self.family_rule(results.sdk.as_deref().unwrap_or_default())
                        ),
                    )
                    .at(format!("/bindings/{i}")),
                ),
                None => {
                    fc.carried.insert(scope);
                }
            }
        }
        if let Some(v) = results.conformance_version.as_deref().filter(|v| *v != self.version) {
            fc.same_version = false;
            out.push(
                Finding::error(
                    Code::RESULTS_VERSION_MISMATCH,
                    format!(
                        "the file ran suite {v}, but is checked against suite {} at {}; its sections and case ids \
                         were not checked (check it against a {v} copy of the suite with --suite)",
                        self.version,
                        self.suite.root.display()
                    ),
                )
                .at("/conformance_version"),
            );
        } else {
            fc.missing_cases = self.scopes_and_ids(&results, &fc, &mut out);
        }
        for s in &results.sections {
            for c in s.cases().iter().filter(|c| c.status == Some(Status::Fail)) {
                out.push(
                    Finding::error(
                        Code::RESULTS_CASE_FAILED,
                        format!("{} / {} failed: {}", s.name, c.id, c.reason.as_deref().unwrap_or("(no reason given)")),
                    )
                    .at(pointer::join(&s.pointer(), &c.id)),
                );
            }
        }
        supersede_schema_findings(&mut out);
        for f in &mut out {
            f.span = f.pointer.as_deref().and_then(|p| span::locate(text, p));
            f.file = Some(fc.file.clone());
        }
        Finding::sort(&mut out);
        fc.findings = out;
        fc.results = Some(results);
        fc
    }

    /// How the family was derived, for messages.
    fn family_rule(&self, sdk: &str) -> String {
        format!(
            "The family is the first token of sdk {sdk:?} (split at every character that is not an ASCII letter or \
             digit, case-insensitive) that names an SDK family ({}).",
            self.families.join(", ")
        )
    }

    /// The scope and case-id rules; returns the missing case ids per section.
    fn scopes_and_ids(
        &self,
        results: &Results,
        fc: &FileCheck,
        out: &mut Vec<Finding>,
    ) -> BTreeMap<String, Vec<String>> {
        let mut missing = BTreeMap::new();
        let sections: Vec<_> = self.suite.sections().into_iter().filter_map(|s| Some((s, s.scope?))).collect();
        for (section, scope) in &sections {
            let reported = results.section(section.name);
            let in_scope = fc.carried.contains(scope);
            match (in_scope, reported) {
                (false, None) => {}
                (true, None) => out.push(
                    Finding::error(
                        Code::RESULTS_MISSING_SECTION,
                        format!(
                            "required section {:?} (scope {scope}) is missing: the required sections are every core \
                             section plus the sections of every binding in bindings, and every one must be run and \
                             reported",
                            section.name
                        ),
                    )
                    .at(SECTIONS),
                ),
                (false, Some(r)) => {
                    let why = match fc.exception_for(*scope) {
                        Some(x) => format!("binding {scope} is under exception {} for family {:?}", x.adr, x.family),
                        None => format!("{scope} is not in bindings"),
                    };
                    out.push(
                        Finding::error(
                            Code::RESULTS_OUT_OF_SCOPE_SECTION,
                            format!(
                                "section {:?} is scoped {scope}, which this SDK does not carry ({why}): a section \
                                 whose scope is not carried is absent from the results",
                                section.name
                            ),
                        )
                        .at(r.pointer()),
                    );
                    for c in r.cases().iter().filter(|c| c.status == Some(Status::Skip)) {
                        out.push(
                            Finding::error(
                                Code::RESULTS_SKIP_OUT_OF_SCOPE,
                                format!(
                                    "{} / {} is a skip in a section out of the SDK's scope: a skip is only for an \
                                     individual case of an in-scope section",
                                    r.name, c.id
                                ),
                            )
                            .at(pointer::join(&r.pointer(), &c.id)),
                        );
                    }
                }
                (true, Some(r)) => {
                    let Some(reported_cases) = r.cases.as_deref() else { continue };
                    let ids: Vec<String> = section.cases().into_iter().map(|c| c.id).collect();
                    let absent: Vec<String> =
                        ids.iter().filter(|id| !reported_cases.iter().any(|c| &c.id == *id)).cloned().collect();
                    for id in &absent {
                        out.push(
                            Finding::error(
                                Code::RESULTS_MISSING_CASE,
                                format!(
                                    "{} / {id} is missing: a results file lists every case of every in-scope section",
                                    r.name
                                ),
                            )
                            .at(r.pointer()),
                        );
                    }
                    for c in reported_cases {
                        let at = pointer::join(&r.pointer(), &c.id);
                        if !ids.contains(&c.id) {
                            out.push(
                                Finding::error(
                                    Code::RESULTS_UNKNOWN_CASE,
                                    format!(
                                        "{} / {} is not a case id of section {:?} in suite {}",
                                        r.name, c.id, r.name, self.version
                                    ),
                                )
                                .at(&at),
                            );
                        }
                        if c.status == Some(Status::Skip) && !c.reason.as_deref().is_some_and(cites_adr) {
                            out.push(
                                Finding::error(
                                    Code::RESULTS_SKIP_WITHOUT_ADR,
                                    format!(
                                        "{} / {} is a skip whose reason does not cite the ADR that makes the case not \
                                         applicable (ADR-NNNN): {}",
                                        r.name,
                                        c.id,
                                        c.reason
                                            .as_deref()
                                            .map_or_else(|| "no reason".to_owned(), |x| format!("{x:?}"))
                                    ),
                                )
                                .at(at),
                            );
                        }
                    }
                    if !absent.is_empty() {
                        missing.insert(r.name.clone(), absent);
                    }
                }
            }
        }
        for r in results.sections.iter().filter(|r| !sections.iter().any(|(s, _)| s.name == r.name)) {
            out.push(
                Finding::error(
                    Code::RESULTS_UNKNOWN_SECTION,
                    format!("section {:?} is not a section of suite {}", r.name, self.version),
                )
                .at(r.pointer()),
            );
        }
        missing
    }
}

/// Drop the schema findings at or under a skip that BQ610 already reports.
fn supersede_schema_findings(out: &mut Vec<Finding>) {
    let skips: Vec<String> =
        out.iter().filter(|f| f.code == Code::RESULTS_SKIP_WITHOUT_ADR).filter_map(|f| f.pointer.clone()).collect();
    out.retain(|f| {
        f.code != Code::RESULTS_SCHEMA
            || !f.pointer.as_deref().is_some_and(|p| {
                skips.iter().any(|s| p == s || p.strip_prefix(s.as_str()).is_some_and(|rest| rest.starts_with('/')))
            })
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fams() -> Vec<String> {
        ["php", "go", "python", "java", "dotnet", "node"].map(str::to_owned).to_vec()
    }

    #[test]
    fn family_is_the_first_family_token_of_sdk() {
        assert_eq!(family_of("babelqueue-python", &fams()).as_deref(), Some("python"));
        assert_eq!(family_of("php-sdk", &fams()).as_deref(), Some("php"));
        assert_eq!(family_of("babelqueue-java-sqs", &fams()).as_deref(), Some("java"));
        assert_eq!(family_of("@BabelQueue/Node-adapters", &fams()).as_deref(), Some("node"));
        assert_eq!(family_of("babelqueue-node-go-bridge", &fams()).as_deref(), Some("node"));
        assert_eq!(family_of("bqsuite-reference", &fams()), None);
        assert_eq!(family_of("phpunit-runner", &fams()), None, "a token, never a substring");
    }

    #[test]
    fn adr_citations() {
        assert!(cites_adr("not applicable (ADR-0031)"));
        assert!(cites_adr("ADR-1234"));
        assert!(!cites_adr("ADR-12"));
        assert!(!cites_adr("adr-0031"));
        assert!(!cites_adr("see the ADR"));
        assert!(!cites_adr("ADR-"));
    }
}
