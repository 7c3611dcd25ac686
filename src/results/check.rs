//! `bqsuite results check`: one results file against a loaded suite.
//!
//! Rules (spec "Sections, scopes and exceptions", "Results format"; codes BQ601–BQ620, BQ622):
//! - the file is UTF-8 JSON (BQ601), nested no deeper than the parser's limit (BQ618), with no
//!   key repeated in one object (BQ617: a case reported twice, `fail` then `pass`, would
//!   otherwise pass silently), and validates against `schema/results.schema.json` (BQ602);
//! - whatever that schema allows, the members the verdict reads have the results format's shape
//!   ([`super::floor`], BQ620): `sdk` and `version` non-empty strings, `conformance_version` a
//!   string, `bindings` an array of bindings, `sections` an object of objects; when `sections`
//!   is not an object no section is called missing (BQ605), and when `bindings` is not an array
//!   no section is called out of scope (BQ606, BQ611): they would repeat that one finding once
//!   per section;
//! - `conformance_version` is the suite's version (BQ603); when it is another version the
//!   section, case-id and skip rules are not applied, because they would compare the file with a
//!   manifest it never ran;
//! - the SDK's family is derived from `sdk` (see [`family_of`]); a binding that an `exceptions`
//!   entry excludes for that family is not listed in `bindings` (BQ604) and its sections are
//!   treated as out of scope;
//! - the carried scopes are `core` plus every binding listed (less the excepted ones); every
//!   section of a carried scope is present (BQ605), no section of another scope is (BQ606), and
//!   no section the suite does not have is (BQ607);
//! - a present in-scope section lists every case id of the one case-id rule (BQ608) and no other
//!   id (BQ609); a skip anywhere else than an in-scope section is a finding (BQ611);
//! - every skip of a known case is judged by the suite's skip policy
//!   ([`crate::suite::skip_policy`]): a case no rule selects may not be skipped (BQ613); a reason
//!   that cites no ADR is BQ610; a reason that cites none of the ADRs its rules allow is BQ614;
//!   only the rules open to the file are counted: a rule with `families` is open only to an SDK
//!   of one of them, and an `all_or_none` rule is refuted for the whole file when any case it
//!   covers, in a carried section the file reports, ran (pass or fail), so one rule's condition
//!   cannot be claimed for a handful of cases of a run that contradicts it; the finding says
//!   which rule was set aside and why;
//! - a suite whose `exceptions` or `skip_policy` do not read cleanly is refused (the command
//!   cannot run, [`unread_policy`]) rather than applied in part; that includes exceptions that
//!   are not the ones bqsuite's registry records for the suite's version (an exception added to
//!   or dropped from a copy), since an exception excuses a whole family from a binding; and so
//!   is a suite of the recorded version whose skip-policy rules or results schema are not the
//!   recorded ones ([`crate::suite::pins::unpinned`]), since they decide which skips and shapes
//!   pass;
//! - a required section whose every reported case is a skip was not run (BQ615), unless every
//!   one of those skips is allowed by one rule that lists the section in `whole_sections`;
//! - with `--max-skips N`, more than N skips in the file is BQ616;
//! - with `--sdk NAME`, a file whose `sdk` is a string other than NAME is BQ622 (at `/sdk`): a
//!   file is judged for the SDK it names, so the reference core's results or another SDK's are
//!   no evidence for NAME (an `sdk` that is no string is BQ620's alone);
//! - every `fail` is a finding (BQ612) carrying the file's reason, and every reported case whose
//!   status is none of pass, fail and skip is one (BQ619), judged here whatever the suite's
//!   results schema allows (a widened schema cannot excuse a case it counts nowhere).
//!
//! Findings are in the file's order (by line:column), except that the failures of an adapter
//! run are ordered as `run`'s digest orders them, so that what a contributor must look at comes
//! first (and within GitHub's 10 annotations): every BQ612 whose reason says an incident of the
//! adapter hit the case (a crash, a hang, a reply out of the protocol) comes before every other
//! finding, and every BQ612 whose reason says the case was not run after the adapter failed
//! before it (its restarts used up, an operation retired) comes after them all; the file's order
//! holds within each of the three. A results file has no member for either (the format is
//! frozen): the reason's words, as `bqsuite run --sdk` writes them, are the only mark
//! ([`super::model::failure_kind`]), and they change no verdict.
//!
//! Every finding names the results file and a pointer inside it (the missing thing's parent for
//! an absence), with line:column located on the file's text; its message writes every hidden
//! character it quotes from the file (a zero-width or no-break space, a control) as
//! `\u{XXXX}` ([`crate::diag::visible`]). A skip finding (BQ610, BQ613,
//! BQ614) supersedes the schema's own report of the same skip (the schema also requires an
//! ADR-citing reason), BQ619 the schema's report of the same status, and BQ620 the schema's
//! report of the same member (a schema violation is about the member at its pointer, or, for an
//! absent required member, about that member), so one problem gives one finding. The verdict is
//! Compatible exactly when
//! a file has no error finding; every verdict carries the file's pass / fail / skip counts and
//! how many of its skips the policy allows.
//!
//! Cost: linear in the size of the file and the number of findings (ids are compared through
//! hash sets, and every span is found in one walk over the text, [`span::locate_all`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::Value;

use super::model::{Counts, FailureKind, Status, failure_kind};
use crate::diag::{Code, Finding, Severity};
use crate::suite::skip_policy::{ProblemKind, Rule, SkipPolicy, SkipVerdict};
use crate::suite::{self, Exception, JsonErrorKind, Scope, Suite, json, pointer, span};

use super::view::{Results, SECTIONS};
use super::{Source, Verdict};
use super::{diags, floor};

/// The SDK family of a results file: the first token of `sdk` that names a family, where the
/// tokens are `sdk` split at every character that is not an ASCII letter or digit, compared
/// case-insensitively. `babelqueue-python` is `python`, `php-sdk` is `php`,
/// `babelqueue-java-sqs` is `java`, `bqsuite-reference` has none.
pub fn family_of(sdk: &str, families: &[String]) -> Option<String> {
    crate::suite::name_pieces(sdk)
        .map(str::to_ascii_lowercase)
        .find(|t| families.iter().any(|f| f.eq_ignore_ascii_case(t)))
}

pub use crate::suite::cites_adr;

/// What a check may be asked beyond the suite's own rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// At most this many skips in one file (`None`: no limit beyond the skip policy).
    pub max_skips: Option<usize>,
    /// The SDK every file must name as `sdk` (`None`: any SDK's file is judged for it).
    pub sdk: Option<String>,
}

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
    /// Per present in-scope section, the case ids it leaves out (BQ608; every id when the
    /// section is not an object), in manifest order.
    pub missing_cases: BTreeMap<String, Vec<String>>,
    /// Per present in-scope section, the ids it reports that it does not have (BQ609), in the
    /// file's order.
    pub unknown_cases: BTreeMap<String, Vec<String>>,
    /// Every reported case counted by status, over all sections.
    pub counts: Counts,
    /// Per section, how many of its skips the skip policy allows.
    pub policy_skips: BTreeMap<String, usize>,
    /// Every finding, located and sorted.
    pub findings: Vec<Finding>,
    /// Whether `sections` and `bindings` could be read: where they could not, no section was
    /// judged missing or out of scope (the floor's one finding, BQ620, says why).
    pub readable: Readable,
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

    /// How many skips of the whole file the skip policy allows.
    pub fn policy_skip_total(&self) -> usize {
        self.policy_skips.values().sum()
    }

    /// `N pass, N fail, N skip` plus, when there are skips, how many the policy allows (or that
    /// it was not applied, for a file of another suite version), and how many of the counted
    /// cases are under ids the suite does not have.
    pub fn counts_text(&self) -> String {
        let mut text = self.counts.text(self.same_version.then(|| self.policy_skip_total()));
        // The counts are the file's own; an id the suite lacks is among them, so say how many
        // (a misspelt id's `pass` read as one more case passed).
        let unknown: usize = self.unknown_cases.values().map(Vec::len).sum();
        if unknown > 0 {
            text.push_str(&format!(", {unknown} of them under case ids the suite does not have"));
        }
        text
    }

    /// The exception excluding `scope` for this file's family, if any.
    pub fn exception_for(&self, scope: Scope) -> Option<&Exception> {
        self.excepted.iter().find(|e| e.binding == scope.as_str())
    }

    /// `sdk version` as the file names them (`?` for what it leaves out), each with anything
    /// outside printable ASCII written `\uXXXX` and cut to 100 characters: the file's words,
    /// shown in a verdict line.
    pub fn label(&self) -> String {
        let r = self.results.as_ref();
        let cut = |s: &str| match s.chars().nth(100) {
            None => s.to_owned(),
            Some(_) => s.chars().take(100).chain("…".chars()).collect(),
        };
        // Each is printable ASCII when well-formed (BQ620 otherwise), so anything else is shown
        // escaped: a zero-width space in `sdk` is visible in the verdict line as well as in the
        // finding about it.
        let token = |s: Option<&str>| cut(&crate::diag::token_safe(s.unwrap_or("?")));
        format!("{} {}", token(r.and_then(|r| r.sdk.as_deref())), token(r.and_then(|r| r.version.as_deref())))
    }
}

/// Checks results files against one suite; the results schema is compiled once.
pub struct Checker<'s> {
    suite: &'s Suite,
    version: &'s str,
    schema: jsonschema::Validator,
    families: Vec<String>,
    options: CheckOptions,
}

impl<'s> Checker<'s> {
    /// A checker for `suite`. Fails (the command cannot run) when the suite has no parsable
    /// manifest, no version or no usable results schema, when its `exceptions` or its
    /// `skip_policy` do not read cleanly (see [`unread_policy`]), or when it is of the recorded
    /// version and its skip-policy rules or results schema are not the recorded ones
    /// ([`crate::suite::pins::unpinned`]).
    pub fn new(suite: &'s Suite) -> Result<Self, String> {
        suite.manifest_or_why()?;
        let validate = suite.validate_command();
        let version =
            suite.version().ok_or_else(|| format!("the suite has no {}; run {validate}", suite::VERSION_FILE))?;
        let schema = suite
            .json(suite::RESULTS_SCHEMA)
            .ok_or_else(|| format!("the suite has no parsable {}; run {validate}", suite::RESULTS_SCHEMA))
            .and_then(|s| {
                crate::schema::draft202012(s).map_err(|e| format!("{} does not compile: {e}", suite::RESULTS_SCHEMA))
            })?;
        unread_policy(suite)?;
        crate::suite::pins::unpinned(suite)?;
        let families = suite.families();
        Ok(Self { suite, version, schema, families, options: CheckOptions::default() })
    }

    /// The same checker with `options`.
    pub fn with_options(mut self, options: CheckOptions) -> Self {
        self.options = options;
        self
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
            unknown_cases: BTreeMap::new(),
            counts: Counts::default(),
            policy_skips: BTreeMap::new(),
            findings: Vec::new(),
            readable: Readable::default(),
        };
        if let Some(f) = diags::wrong_encoding(&src.bytes) {
            fc.findings.push(f.in_file(&fc.file));
            return fc;
        }
        let text = match std::str::from_utf8(&src.bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.valid_up_to();
                let lossy = String::from_utf8_lossy(&src.bytes[..at]);
                fc.findings.push(diags::not_utf8(at, span::span_at(&lossy, at)).in_file(&fc.file));
                return fc;
            }
        };
        let parsed = match json::parse(text) {
            Ok(p) => p,
            Err(e) => {
                // A lone surrogate escape at or before where the parser stopped is why it stopped.
                let surrogate = crate::suite::json::lone_surrogate(text)
                    .map(|at| (at, span::span_at(text, at)))
                    .filter(|(_, s)| e.span.is_none_or(|stop| (s.line, s.column) <= (stop.line, stop.column)));
                let f = match (e.kind, surrogate) {
                    (JsonErrorKind::TooDeep, _) => diags::too_deep(&e.message, e.span),
                    (_, Some((at, s))) => diags::lone_surrogate(text.get(at..at + 6).unwrap_or("\\u"), s),
                    _ => diags::not_json(&e.message, e.span),
                };
                fc.findings.push(f.in_file(&fc.file));
                return fc;
            }
        };
        let value = parsed.value;
        let results = Results::from_value(&value);
        let mut out: Vec<Finding> = parsed.duplicates.iter().map(diags::duplicate_key).collect();
        // The schema's findings wait, each with the member it is about, for the checker's own
        // judgements of the same members to supersede them.
        let mut schema: Vec<(String, Finding)> =
            self.schema.iter_errors(&value).map(|e| (diags::schema_subject(&e), diags::schema(&e))).collect();
        // The schema's one `format`, asserted here (2020-12 leaves it an annotation): a
        // `generated_at` of the right shape must name a real instant.
        const GENERATED_AT: &str = "/generated_at";
        if let Some(at) = value.get("generated_at").and_then(Value::as_str)
            && !schema.iter().any(|(s, _)| s == GENERATED_AT)
            && let Err(why) = super::date_time::check(at)
        {
            schema.push((GENERATED_AT.to_owned(), diags::not_a_date_time(at, &why, GENERATED_AT)));
        }
        // What each failed case's reason says of the adapter run (by the case's pointer), to
        // order its finding by.
        let mut kinds: HashMap<String, FailureKind> = HashMap::new();
        let mut judged: HashSet<String> = HashSet::new();
        for j in floor::check(&value) {
            judged.insert(j.subject);
            out.push(j.finding);
        }
        // What the scope rules rest on; when `sections` or `bindings` cannot be read (BQ620),
        // the sections they would call missing or out of scope only repeat that finding.
        let read = Readable {
            sections: value.get("sections").is_some_and(Value::is_object),
            bindings: value.get("bindings").is_some_and(Value::is_array),
        };
        fc.readable = read;
        // Everything later reads the view; the parsed tree (the largest thing held) goes now.
        drop(value);
        fc.family = results.sdk.as_deref().and_then(|s| family_of(s, &self.families));
        // `Exception::is_for` ignores letter case, so an entry spelled `PHP` is never silently dead.
        fc.excepted =
            self.suite.exceptions().into_iter().filter(|e| fc.family.as_deref().is_some_and(|f| e.is_for(f))).collect();
        for (i, b) in &results.bindings {
            let Some(scope) = Scope::parse(b).filter(|s| s.is_binding()) else { continue };
            match fc.exception_for(scope) {
                Some(x) => {
                    let rule = self.family_rule(results.sdk.as_deref().unwrap_or_default());
                    out.push(diags::binding_under_exception(b, x, &rule, format!("/bindings/{i}")));
                }
                None => {
                    fc.carried.insert(scope);
                }
            }
        }
        if let Some(v) = results.conformance_version.as_deref().filter(|v| *v != self.version) {
            fc.same_version = false;
            out.push(diags::version_mismatch(v, self.version, &self.suite.root));
        } else {
            self.scopes_and_ids(&results, read, &mut fc, &mut out);
        }
        for s in &results.sections {
            for c in s.cases() {
                match c.status {
                    Some(status) => fc.counts.add(status),
                    // Judged here, not left to the suite's results schema: a weakened schema
                    // must not let a case that is neither pass, fail nor skip through.
                    None => out.push(diags::no_status(&s.name, &c.id, pointer::join(&s.pointer(), &c.id))),
                }
                if c.status == Some(Status::Fail) {
                    let at = pointer::join(&s.pointer(), &c.id);
                    match failure_kind(c.reason.as_deref()) {
                        FailureKind::Own => {}
                        kind => {
                            kinds.insert(at.clone(), kind);
                        }
                    }
                    out.push(diags::case_failed(&s.name, &c.id, c.reason.as_deref(), c.reason_type, at));
                }
            }
        }
        // A file is judged for the SDK it names: with --sdk, that must be the one expected.
        if let (Some(want), Some(sdk)) = (self.options.sdk.as_deref(), results.sdk.as_deref())
            && sdk != want
        {
            out.push(diags::other_sdk(sdk, want));
        }
        if let Some(max) = self.options.max_skips.filter(|m| fc.counts.skip > *m) {
            out.push(diags::too_many_skips(fc.counts.skip, max, SECTIONS));
        }
        judged.extend(out.iter().filter(|f| OUTCOME_CODES.contains(&f.code)).filter_map(|f| f.pointer.clone()));
        out.extend(schema.into_iter().filter(|(subject, _)| !within(subject, &judged)).map(|(_, f)| f));
        locate(text, &mut out);
        Finding::sort(&mut out);
        // What to look at first first (a stable sort: the file's order within each kind).
        out.sort_by_key(|f| match (f.code, f.pointer.as_ref().and_then(|p| kinds.get(p))) {
            (Code::RESULTS_CASE_FAILED, Some(kind)) => *kind,
            _ => FailureKind::Own,
        });
        for f in &mut out {
            f.file = Some(fc.file.clone());
            // Whatever a message quotes from the file (an id, a key, a reason, a value the
            // schema or the floor names) shows its hidden characters: the one place they are
            // made visible for results check.
            if let std::borrow::Cow::Owned(shown) = crate::diag::visible(&f.message) {
                f.message = shown;
            }
        }
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

    /// The scope, case-id and skip rules; fills in the missing case ids and the policy skips.
    fn scopes_and_ids(&self, results: &Results, read: Readable, fc: &mut FileCheck, out: &mut Vec<Finding>) {
        let policy = self.suite.skip_policy();
        let sections: Vec<_> = self.suite.sections().into_iter().filter_map(|s| Some((s, s.scope?))).collect();
        let known: HashSet<&str> = sections.iter().map(|(s, _)| s.name).collect();
        let ran = ran_under_all_or_none(policy, results, &sections, &fc.carried);
        let family = fc.family.clone();
        // Why a rule that covers a case allows no skip in this file (`None`: it may).
        let excluded = |rule: &Rule| -> Option<String> {
            if !SkipPolicy::for_family(rule, family.as_deref()) {
                let sdk = results.sdk.as_deref().unwrap_or_default();
                let is = family.as_deref().map_or_else(
                    || format!("names no SDK family ({})", self.families.join(", ")),
                    |f| format!("is of family {f}"),
                );
                return Some(format!(
                    "rule {} covers this case, but only for SDKs of family {}, and sdk {sdk:?} {is}",
                    rule.name,
                    rule.families.join(" or ")
                ));
            }
            let (n, first) = ran.get(rule.name.as_str())?;
            Some(format!(
                "rule {} covers this case, but {n} case{} it covers ran (first: {first}), and its condition is a fact \
                 about the whole run or SDK (all_or_none), so it does not hold for this file",
                rule.name,
                if *n == 1 { "" } else { "s" }
            ))
        };
        for (section, scope) in &sections {
            let reported = results.section(section.name);
            let in_scope = fc.carried.contains(scope);
            match (in_scope, reported) {
                (false, None) => {}
                (true, None) if read.sections => out.push(diags::missing_section(section.name, *scope, SECTIONS)),
                (true, None) => {}
                (false, Some(_)) if !read.bindings => {}
                (false, Some(r)) => {
                    let why = match fc.exception_for(*scope) {
                        Some(x) => format!("binding {scope} is under exception {} for family {:?}", x.adr, x.family),
                        None => format!("{scope} is not in bindings"),
                    };
                    out.push(diags::out_of_scope_section(&r.name, *scope, &why, r.pointer()));
                    for c in r.cases().iter().filter(|c| c.status == Some(Status::Skip)) {
                        out.push(diags::skip_out_of_scope(&r.name, &c.id, pointer::join(&r.pointer(), &c.id)));
                    }
                }
                (true, Some(r)) => {
                    let ids: Vec<String> = section.cases().into_iter().map(|c| c.id).collect();
                    // Not an object (the floor's finding, BQ620): none of its cases is reported.
                    let Some(reported_cases) = r.cases.as_deref() else {
                        fc.missing_cases.insert(r.name.clone(), ids);
                        continue;
                    };
                    let id_set: HashSet<&str> = ids.iter().map(String::as_str).collect();
                    let reported_set: HashSet<&str> = reported_cases.iter().map(|c| c.id.as_str()).collect();
                    let absent: Vec<String> =
                        ids.iter().filter(|id| !reported_set.contains(id.as_str())).cloned().collect();
                    for id in &absent {
                        out.push(diags::missing_case(&r.name, id, r.pointer()));
                    }
                    let mut skips = 0usize;
                    let mut whole: HashMap<&str, usize> = HashMap::new();
                    let mut allowed = 0usize;
                    for c in reported_cases {
                        let at = pointer::join(&r.pointer(), &c.id);
                        if !id_set.contains(c.id.as_str()) {
                            out.push(diags::unknown_case(&r.name, &c.id, self.version, at));
                            fc.unknown_cases.entry(r.name.clone()).or_default().push(c.id.clone());
                            continue;
                        }
                        if c.status != Some(Status::Skip) {
                            continue;
                        }
                        skips += 1;
                        let reason = c.reason.as_deref();
                        let verdict = policy.judge_by(&r.name, &c.id, reason, |rule| excluded(rule).is_none());
                        let quoted = || diags::reason_text(reason, c.reason_type);
                        let notes = || -> Vec<String> {
                            policy.rules_for(&r.name, &c.id).into_iter().filter_map(&excluded).collect()
                        };
                        let adrs = || policy.allowed_adrs_by(&r.name, &c.id, |rule| excluded(rule).is_none());
                        match verdict {
                            SkipVerdict::Allowed(rule) => {
                                allowed += 1;
                                if SkipPolicy::whole_section(rule, &r.name) {
                                    *whole.entry(rule.name.as_str()).or_default() += 1;
                                }
                            }
                            SkipVerdict::NotSkippable => {
                                out.push(diags::skip_not_allowed(&r.name, &c.id, &quoted(), &notes(), at))
                            }
                            SkipVerdict::NoAdr => {
                                out.push(diags::skip_without_adr(&r.name, &c.id, &quoted(), &adrs(), &notes(), at))
                            }
                            SkipVerdict::WrongAdr => {
                                out.push(diags::skip_wrong_adr(&r.name, &c.id, &quoted(), &adrs(), &notes(), at))
                            }
                        }
                    }
                    let known_reported = reported_cases.iter().filter(|c| id_set.contains(c.id.as_str())).count();
                    let skipped_whole_by_one_rule = whole.values().any(|&n| n == skips);
                    if skips > 0 && skips == known_reported && !skipped_whole_by_one_rule {
                        let whole: Vec<&str> = policy
                            .rules
                            .iter()
                            .filter(|rule| SkipPolicy::whole_section(rule, &r.name))
                            .map(|rule| rule.name.as_str())
                            .collect();
                        out.push(diags::section_not_run(&r.name, skips, skips - allowed, &whole, r.pointer()));
                    }
                    if allowed > 0 {
                        fc.policy_skips.insert(r.name.clone(), allowed);
                    }
                    if !absent.is_empty() {
                        fc.missing_cases.insert(r.name.clone(), absent);
                    }
                }
            }
        }
        for r in results.sections.iter().filter(|r| !known.contains(r.name.as_str())) {
            out.push(diags::unknown_section(&r.name, self.version, r.pointer()));
        }
    }
}

/// `Err` (results check cannot run) when the suite's `exceptions` or `skip_policy` do not read
/// cleanly: judging with what is left of them would drop an exemption or a rule silently (a
/// broken exceptions entry would let a PHP SDK list asb; a broken rule would allow or refuse
/// skips it was not written for), so the suite is refused and validate named. A manifest
/// without `skip_policy` is not refused: its policy is the empty one, under which no case may
/// be skipped (BQ208 says so), and one without `exceptions` has none.
pub fn unread_policy(suite: &Suite) -> Result<(), String> {
    let mut problems: Vec<(String, String)> =
        suite.exceptions_read().problems.into_iter().map(|p| (p.pointer, p.message)).collect();
    problems.extend(
        suite
            .skip_policy_read()
            .problems
            .iter()
            .filter(|p| p.kind != ProblemKind::Missing)
            .map(|p| (p.pointer.clone(), p.message.clone())),
    );
    let Some((at, message)) = problems.first() else { return Ok(()) };
    let manifest = suite.display_path(suite::MANIFEST);
    Err(format!(
        "{manifest}: its exceptions or skip_policy do not read cleanly ({} problem{}, the first at {}: {}), and \
         results check does not judge a results file with part of them; run `bqsuite validate --suite {}` and fix \
         the manifest",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        if at.is_empty() { "the document root" } else { at },
        message,
        suite.root.display()
    ))
}

/// Per `all_or_none` rule (by name), how many of the cases it covers ran (pass or fail) in the
/// carried sections the file reports, and the first of them (`section / id`, in manifest
/// order of sections and file order of cases). A rule listed here is refuted for the file.
fn ran_under_all_or_none<'p>(
    policy: &'p SkipPolicy,
    results: &Results,
    sections: &[(suite::Section<'_>, Scope)],
    carried: &BTreeSet<Scope>,
) -> HashMap<&'p str, (usize, String)> {
    let reported: Vec<_> = sections
        .iter()
        .filter(|(_, scope)| carried.contains(scope))
        .filter_map(|(section, _)| Some((section.name, results.section(section.name)?)))
        .collect();
    policy.refuted_all_or_none(reported.iter().flat_map(|(name, r)| {
        r.cases()
            .iter()
            .filter(|c| matches!(c.status, Some(Status::Pass | Status::Fail)))
            .map(move |c| (*name, c.id.as_str()))
            .collect::<Vec<_>>()
    }))
}

/// Whether the members the scope rules rest on can be read: without `sections` no section is
/// reported, and without `bindings` none but `core` is carried, so the rules would only repeat
/// the floor's finding (BQ620) once per section. Neither, for a file that is not JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Readable {
    pub sections: bool,
    pub bindings: bool,
}

/// The codes of the findings that judge one case's outcome (a skip, or a status that is none of
/// the three).
const OUTCOME_CODES: [Code; 4] = [
    Code::RESULTS_SKIP_WITHOUT_ADR,
    Code::RESULTS_SKIP_NOT_ALLOWED,
    Code::RESULTS_SKIP_WRONG_ADR,
    Code::RESULTS_NO_STATUS,
];

/// Whether `subject` is one of the `judged` pointers or lies under one.
fn within(subject: &str, judged: &HashSet<String>) -> bool {
    let mut p = subject;
    loop {
        if judged.contains(p) {
            return true;
        }
        match p.rfind('/') {
            Some(i) => p = &p[..i],
            None => return false,
        }
    }
}

/// Line:column of every finding with a pointer and no span, in one walk over `text`.
fn locate(text: &str, out: &mut [Finding]) {
    let ix: Vec<usize> = (0..out.len()).filter(|&i| out[i].span.is_none() && out[i].pointer.is_some()).collect();
    let pointers: Vec<&str> = ix.iter().map(|&i| out[i].pointer.as_deref().unwrap_or_default()).collect();
    let spans = span::locate_all(text, &pointers);
    for (i, s) in ix.into_iter().zip(spans) {
        out[i].span = s;
    }
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
        assert!(!cites_adr("ADR-00331"), "four digits exactly");
        assert!(!cites_adr("XADR-0033"));
        assert!(!cites_adr("ADR-0033x"), "a word of its own on both sides");
        for runs_on in ["ADR-0032é", "éADR-0032", "ADR-0032\u{663}", "ADR-0032\u{200b}1", "\u{feff}ADR-0032"] {
            assert!(!cites_adr(runs_on), "{runs_on:?}: a letter or digit of any script, or a zero-width character");
        }
        assert!(cites_adr("ADR-0032—see") && cites_adr("«ADR-0032»"), "punctuation of any script ends the word");
        assert!(
            !cites_adr("ADR-003…") && !cites_adr("ADR-é0032") && !cites_adr("ADR-00é"),
            "no panic inside a character"
        );
        assert!(cites_adr("ADR-0033's rule") && cites_adr("ADR-0033§5") && cites_adr("(ADR-0033)"));
        assert_eq!(crate::suite::adr_citations("ADR-0033: see ADR-0031, not ADR-12345"), ["ADR-0033", "ADR-0031"]);
    }
}
