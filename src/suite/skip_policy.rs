//! The skip policy: which cases a run may report as `skip`, under which condition, citing
//! which ADR (manifest.json → `skip_policy`, a metadata key, not a section).
//!
//! Shape: `{description, rules: [{name, condition, adrs: [ADR-NNNN, …], cases: [selector, …],
//! whole_sections?: [section, …], all_or_none?: bool, families?: [family, …]}]}`; a selector is
//! `{section, case}` (one case, by its exact id under the one case-id rule) or `{section, block}`
//! (every case of that sub-key's `cases` array). `whole_sections` names the sections the rule
//! selects in full and may therefore skip entirely (without it, a section whose every case is
//! skipped counts as not run). `all_or_none: true` says the condition is a fact about the whole
//! run or the whole SDK (no live Redis, an SQS consumer that surfaces the native count), so a
//! run in which any case the rule covers ran (pass or fail) refutes it: the rule then allows
//! none of that run's skips. `families` limits the rule to SDKs of those families (as results
//! check derives a family from `sdk`, [`crate::suite::Suite::families`]); without it the rule
//! is open to every SDK.
//!
//! A rule may not make a core section skippable: no `whole_sections` entry names a core section,
//! and the rules together leave at least one case of every core section that no rule selects
//! (skip is never a way to leave a section out, and every core section is required).
//!
//! Invariants: the policy is read once per loaded suite ([`crate::suite::Suite::skip_policy`])
//! by one reader that reports every problem with its pointer (validate turns them into
//! findings) and keeps every well-formed part; selectors are resolved against the manifest's
//! case ids when read, so a lookup is exact (no prefix matching at lookup time) and costs a hash
//! lookup; a suite without the key has an empty policy, under which no case may be skipped.
//! A skip is allowed exactly when its case is selected by a rule and its reason cites one of
//! that rule's ADRs ([`SkipPolicy::judge`]). The same lookup serves `results check` and any
//! runner or adapter deciding whether it may skip an operation.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{CaseRef, Scope, Suite, adr_citations, is_adr, pointer};

/// The manifest key.
pub const KEY: &str = "skip_policy";

/// One rule: a condition, the ADRs a skip under it cites, and the cases it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub name: String,
    /// When the rule applies, in words (the runner or the SDK decides that it does).
    pub condition: String,
    /// The ADRs a skip under this rule may cite (each `ADR-NNNN`).
    pub adrs: Vec<String>,
    pub selectors: Vec<Selector>,
    /// Sections this rule selects in full and may skip entirely.
    pub whole_sections: Vec<String>,
    /// The condition is a fact about the whole run or SDK: one case it covers that ran refutes
    /// it for the whole run.
    pub all_or_none: bool,
    /// The SDK families the rule is for (lowercase); empty: every SDK.
    pub families: Vec<String>,
    /// The rule's pointer in manifest.json.
    pub pointer: String,
}

/// What a selector picks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One case, by exact id.
    Case(String),
    /// Every case of a sub-key's `cases` array.
    Block(String),
}

/// One selector of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    pub section: String,
    pub target: Target,
    pub pointer: String,
}

/// What is wrong with a part of the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// The manifest has no `skip_policy`.
    Missing,
    /// A member is missing, of the wrong type, empty or unknown.
    Shape,
    /// An `adrs` entry is not `ADR-` and four digits.
    Adr,
    /// A selector or `whole_sections` names a section the manifest does not have.
    UnknownSection,
    /// A case selector names no case id of its section.
    UnknownCase,
    /// A block selector names no sub-key of its section with a `cases` array.
    UnknownBlock,
    /// Two rules have the same name.
    DuplicateRule,
    /// A `whole_sections` entry names a section the rule does not select in full.
    NotWhole,
    /// A `families` entry names no SDK family results check can derive.
    UnknownFamily,
    /// A rule (or the rules together) make every case of a core section skippable.
    CoreSection,
}

/// One problem, with its pointer in manifest.json.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub pointer: String,
    pub message: String,
}

/// The verdict on one reported skip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipVerdict<'p> {
    /// Allowed under this rule.
    Allowed(&'p Rule),
    /// No rule selects the case: it may not be skipped.
    NotSkippable,
    /// The reason cites no ADR at all.
    NoAdr,
    /// The reason cites ADRs, but none a rule for this case allows.
    WrongAdr,
}

/// The policy of one suite, selectors resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkipPolicy {
    pub description: String,
    pub rules: Vec<Rule>,
    /// section → case id → indices of the rules selecting it, in rule order.
    by_case: HashMap<String, HashMap<String, Vec<usize>>>,
}

/// The policy as read, with every problem found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    pub policy: SkipPolicy,
    pub problems: Vec<Problem>,
}

impl SkipPolicy {
    /// Read the policy of `suite` (see the module invariants), deriving the case ids of the
    /// sections it names.
    pub fn read(suite: &Suite) -> Loaded {
        let mut r = Reader { suite, problems: Vec::new() };
        let mut policy = r.policy();
        let named: HashMap<&str, Vec<CaseRef<'_>>> = policy
            .rules
            .iter()
            .flat_map(|rule| {
                rule.selectors.iter().map(|s| s.section.as_str()).chain(rule.whole_sections.iter().map(String::as_str))
            })
            .filter_map(|n| suite.section(n))
            .map(|s| (s.name, s.cases()))
            .collect();
        r.resolve(&mut policy, &|n| named.get(n).map(Vec::as_slice));
        Loaded { policy, problems: r.problems }
    }

    /// Read the policy of `suite` with the case ids `cases_of` gives for a section (`None` for
    /// a section the manifest does not have): for a caller that derived them already.
    pub fn read_with<'c>(suite: &Suite, cases_of: &dyn Fn(&str) -> Option<&'c [CaseRef<'c>]>) -> Loaded {
        let mut r = Reader { suite, problems: Vec::new() };
        let mut policy = r.policy();
        r.resolve(&mut policy, cases_of);
        Loaded { policy, problems: r.problems }
    }

    /// The rules that select case `id` of `section`, in rule order (none: it may not be skipped).
    pub fn rules_for(&self, section: &str, id: &str) -> Vec<&Rule> {
        self.by_case
            .get(section)
            .and_then(|m| m.get(id))
            .map(|ix| ix.iter().map(|&i| &self.rules[i]).collect())
            .unwrap_or_default()
    }

    /// May case `id` of `section` be skipped, and citing which ADRs (sorted, each once)?
    pub fn allowed_adrs(&self, section: &str, id: &str) -> Vec<&str> {
        self.allowed_adrs_by(section, id, |_| true)
    }

    /// [`Self::allowed_adrs`] under only the rules `keep` accepts.
    pub fn allowed_adrs_by(&self, section: &str, id: &str, keep: impl Fn(&Rule) -> bool) -> Vec<&str> {
        let mut adrs: Vec<&str> = self
            .rules_for(section, id)
            .into_iter()
            .filter(|r| keep(r))
            .flat_map(|r| r.adrs.iter().map(String::as_str))
            .collect();
        adrs.sort_unstable();
        adrs.dedup();
        adrs
    }

    /// Judge a skip of case `id` of `section` whose reason is `reason`.
    pub fn judge(&self, section: &str, id: &str, reason: Option<&str>) -> SkipVerdict<'_> {
        self.judge_by(section, id, reason, |_| true)
    }

    /// [`Self::judge`] under only the rules `keep` accepts (an adapter's skips are judged
    /// without the runner contract's rule, which bqsuite applies itself).
    pub fn judge_by(
        &self,
        section: &str,
        id: &str,
        reason: Option<&str>,
        keep: impl Fn(&Rule) -> bool,
    ) -> SkipVerdict<'_> {
        let rules: Vec<&Rule> = self.rules_for(section, id).into_iter().filter(|r| keep(r)).collect();
        if rules.is_empty() {
            return SkipVerdict::NotSkippable;
        }
        let cited = reason.map(adr_citations).unwrap_or_default();
        if cited.is_empty() {
            return SkipVerdict::NoAdr;
        }
        rules
            .into_iter()
            .find(|r| r.adrs.iter().any(|a| cited.contains(&a.as_str())))
            .map_or(SkipVerdict::WrongAdr, SkipVerdict::Allowed)
    }

    /// Is `rule` open to an SDK of `family` (`None`: the SDK's name gives no family)? A rule
    /// without `families` is open to every SDK.
    pub fn for_family(rule: &Rule, family: Option<&str>) -> bool {
        rule.families.is_empty() || family.is_some_and(|f| rule.families.iter().any(|r| r.eq_ignore_ascii_case(f)))
    }

    /// The `all_or_none` rules a run refutes: for each rule (by name) that covers a case of
    /// `ran` (the cases that ran, pass or fail, as `(section, id)` in the order given), how many
    /// of them it covers and the first, as `section / id`. Such a rule's condition is a fact
    /// about the whole run or SDK, so once a case it covers ran it allows no skip in that run.
    /// The one rule `results check` and `run --sdk` both judge by.
    pub fn refuted_all_or_none<'a>(
        &self,
        ran: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> HashMap<&str, (usize, String)> {
        let mut refuted: HashMap<&str, (usize, String)> = HashMap::new();
        if !self.rules.iter().any(|r| r.all_or_none) {
            return refuted;
        }
        for (section, id) in ran {
            for rule in self.rules_for(section, id).into_iter().filter(|r| r.all_or_none) {
                let e = refuted.entry(rule.name.as_str()).or_insert_with(|| (0, format!("{section} / {id}")));
                e.0 += 1;
            }
        }
        refuted
    }

    /// Does `rule` allow skipping `section` entirely?
    pub fn whole_section(rule: &Rule, section: &str) -> bool {
        rule.whole_sections.iter().any(|s| s == section)
    }
}

struct Reader<'s> {
    suite: &'s Suite,
    problems: Vec<Problem>,
}

const RULE_KEYS: [&str; 7] = ["name", "condition", "adrs", "cases", "whole_sections", "all_or_none", "families"];

impl Reader<'_> {
    fn problem(&mut self, kind: ProblemKind, pointer: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem { kind, pointer: pointer.into(), message: message.into() });
    }

    /// A non-empty string member, or a shape problem.
    fn text(&mut self, obj: &Map<String, Value>, at: &str, key: &str) -> Option<String> {
        match obj.get(key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            Some(_) => {
                self.problem(ProblemKind::Shape, pointer::join(at, key), format!("{key} must be a non-empty string"));
                None
            }
            None => {
                self.problem(ProblemKind::Shape, at, format!("{key} is missing (a non-empty string)"));
                None
            }
        }
    }

    fn policy(&mut self) -> SkipPolicy {
        let at = pointer::join("", KEY);
        let Some(manifest) = self.suite.manifest() else { return SkipPolicy::default() };
        let Some(v) = manifest.get(KEY) else {
            self.problem(
                ProblemKind::Missing,
                "",
                format!("the manifest has no {KEY}: it must say which cases a run may skip (none may, without it)"),
            );
            return SkipPolicy::default();
        };
        let Some(obj) = v.as_object() else {
            self.problem(ProblemKind::Shape, at, format!("{KEY} must be an object {{description, rules}}"));
            return SkipPolicy::default();
        };
        for k in obj.keys().filter(|k| !["description", "rules"].contains(&k.as_str())) {
            self.problem(ProblemKind::Shape, pointer::join(&at, k), format!("unknown member {k:?} of {KEY}"));
        }
        let description = self.text(obj, &at, "description").unwrap_or_default();
        let rules_at = pointer::join(&at, "rules");
        let rules = match obj.get("rules") {
            Some(Value::Array(a)) => a.as_slice(),
            _ => {
                self.problem(ProblemKind::Shape, &at, "rules must be an array of rules");
                &[]
            }
        };
        let mut policy = SkipPolicy { description, ..SkipPolicy::default() };
        let mut names: HashMap<String, String> = HashMap::new();
        for (i, rule) in rules.iter().enumerate() {
            let at = format!("{rules_at}/{i}");
            let Some(rule) = self.rule(rule, &at) else { continue };
            if let Some(first) = names.insert(rule.name.clone(), at.clone()) {
                self.problem(
                    ProblemKind::DuplicateRule,
                    pointer::join(&at, "name"),
                    format!("rule name {:?} is already the name of the rule at {first}", rule.name),
                );
            }
            policy.rules.push(rule);
        }
        policy
    }

    fn rule(&mut self, v: &Value, at: &str) -> Option<Rule> {
        let Some(obj) = v.as_object() else {
            self.problem(ProblemKind::Shape, at, "a rule must be an object {name, condition, adrs, cases}");
            return None;
        };
        for k in obj.keys().filter(|k| !RULE_KEYS.contains(&k.as_str())) {
            self.problem(ProblemKind::Shape, pointer::join(at, k), format!("unknown member {k:?} of a rule"));
        }
        let name = self.text(obj, at, "name");
        let condition = self.text(obj, at, "condition");
        let adrs = self.strings(obj, at, "adrs", true);
        for (i, a) in adrs.iter().enumerate() {
            if !is_adr(a) {
                self.problem(
                    ProblemKind::Adr,
                    format!("{at}/adrs/{i}"),
                    format!("{a:?} is not an ADR reference (ADR- and four digits, e.g. ADR-0033)"),
                );
            }
        }
        let whole_sections = self.strings(obj, at, "whole_sections", false);
        let all_or_none = match obj.get("all_or_none") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                self.problem(ProblemKind::Shape, pointer::join(at, "all_or_none"), "all_or_none must be true or false");
                false
            }
        };
        let families = self.families(obj, at);
        let selectors = match obj.get("cases") {
            Some(Value::Array(a)) if !a.is_empty() => {
                a.iter().enumerate().filter_map(|(i, s)| self.selector(s, &format!("{at}/cases/{i}"))).collect()
            }
            _ => {
                self.problem(ProblemKind::Shape, at, "cases must be a non-empty array of selectors");
                Vec::new()
            }
        };
        Some(Rule {
            name: name?,
            condition: condition?,
            adrs: adrs.into_iter().filter(|a| is_adr(a)).collect(),
            selectors,
            whole_sections,
            all_or_none,
            families,
            pointer: at.to_owned(),
        })
    }

    /// An array of strings (non-empty when `required`; absent is empty when not).
    fn strings(&mut self, obj: &Map<String, Value>, at: &str, key: &str, required: bool) -> Vec<String> {
        match obj.get(key) {
            None if !required => Vec::new(),
            Some(Value::Array(a)) if a.iter().all(Value::is_string) && !(required && a.is_empty()) => {
                a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()
            }
            _ => {
                let what = if required { "a non-empty array of strings" } else { "an array of strings" };
                self.problem(ProblemKind::Shape, pointer::join(at, key), format!("{key} must be {what}"));
                Vec::new()
            }
        }
    }

    /// `families`: absent (every SDK), or a non-empty array of families, each one piece of ASCII
    /// letters and digits (as an SDK's family is read from its name) that names a family results
    /// check can derive. Kept lowercase.
    fn families(&mut self, obj: &Map<String, Value>, at: &str) -> Vec<String> {
        let Some(v) = obj.get("families") else { return Vec::new() };
        let key = pointer::join(at, "families");
        let list = match v.as_array() {
            Some(a) if !a.is_empty() && a.iter().all(|f| f.as_str().is_some_and(super::is_family_piece)) => a,
            _ => {
                self.problem(
                    ProblemKind::Shape,
                    key,
                    "families must be a non-empty array of SDK families, each only ASCII letters and digits \
                     (node, not @babelqueue/node)",
                );
                return Vec::new();
            }
        };
        let known = self.suite.families();
        // Most families come from the producer schema's meta.lang; where that cannot be read (the
        // schema missing, not JSON, or reshaped: its own findings, BQ003, BQ001, BQ404), no family
        // is called unknown for it.
        let judged = self
            .suite
            .json(super::ENVELOPE_SCHEMA)
            .and_then(|s| pointer::get(s, super::LANG_ENUM))
            .is_some_and(Value::is_array);
        let mut out = Vec::new();
        for (i, f) in list.iter().filter_map(Value::as_str).enumerate() {
            if judged && !known.iter().any(|k| k.eq_ignore_ascii_case(f)) {
                self.problem(
                    ProblemKind::UnknownFamily,
                    format!("{key}/{i}"),
                    format!(
                        "family {f:?} is no SDK family results check derives ({}: the producer schema's meta.lang \
                         and the exceptions' families), so the rule would allow no SDK",
                        known.join(", ")
                    ),
                );
            }
            out.push(f.to_ascii_lowercase());
        }
        out
    }

    fn selector(&mut self, v: &Value, at: &str) -> Option<Selector> {
        let shape = "a selector is {section, case} (one case id) or {section, block} (every case of a sub-key)";
        let obj = v.as_object().filter(|o| {
            o.keys().all(|k| ["section", "case", "block"].contains(&k.as_str()))
                && o.get("section").is_some_and(Value::is_string)
                && (o.get("case").is_some_and(Value::is_string) != o.get("block").is_some_and(Value::is_string))
                && (o.len() == 2)
        });
        let Some(obj) = obj else {
            self.problem(ProblemKind::Shape, at, shape);
            return None;
        };
        let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_owned);
        let target = match (s("case"), s("block")) {
            (Some(c), None) => Target::Case(c),
            (None, Some(b)) => Target::Block(b),
            _ => unreachable!("checked above"),
        };
        Some(Selector { section: s("section")?, target, pointer: at.to_owned() })
    }

    /// Resolve every selector to case ids, and check `whole_sections`.
    fn resolve<'c>(&mut self, policy: &mut SkipPolicy, cases_of: &dyn Fn(&str) -> Option<&'c [CaseRef<'c>]>) {
        let mut whole_core: Vec<String> = Vec::new();
        for (ri, rule) in policy.rules.iter().enumerate() {
            let mut selected: HashMap<&str, usize> = HashMap::new();
            for sel in &rule.selectors {
                let Some(refs) = cases_of(&sel.section) else {
                    self.problem(
                        ProblemKind::UnknownSection,
                        pointer::join(&sel.pointer, "section"),
                        format!("the manifest has no section {:?}", sel.section),
                    );
                    continue;
                };
                let ids: Vec<String> = match &sel.target {
                    Target::Case(id) => refs.iter().any(|c| &c.id == id).then(|| id.clone()).into_iter().collect(),
                    Target::Block(b) => refs
                        .iter()
                        .filter(|c| c.sub == Some(b.as_str()) && c.index.is_some())
                        .map(|c| c.id.clone())
                        .collect(),
                };
                if ids.is_empty() {
                    let (kind, key, what) = match &sel.target {
                        Target::Case(id) => (ProblemKind::UnknownCase, "case", format!("no case id {id:?}")),
                        Target::Block(b) => {
                            (ProblemKind::UnknownBlock, "block", format!("no sub-key {b:?} with a cases array"))
                        }
                    };
                    self.problem(
                        kind,
                        pointer::join(&sel.pointer, key),
                        format!("section {:?} has {what}", sel.section),
                    );
                }
                let entry = policy.by_case.entry(sel.section.clone()).or_default();
                for id in ids {
                    let rules = entry.entry(id).or_default();
                    if !rules.contains(&ri) {
                        rules.push(ri);
                        *selected.entry(sel.section.as_str()).or_default() += 1;
                    }
                }
            }
            for (i, name) in rule.whole_sections.iter().enumerate() {
                let at = format!("{}/whole_sections/{i}", rule.pointer);
                match cases_of(name) {
                    None => {
                        self.problem(ProblemKind::UnknownSection, at, format!("the manifest has no section {name:?}"))
                    }
                    Some(refs) => {
                        if self.suite.scope_of(name) == Some(Scope::Core) {
                            whole_core.push(name.clone());
                            self.problem(
                                ProblemKind::CoreSection,
                                at.clone(),
                                format!(
                                    "rule {:?} lists core section {name:?} in whole_sections: every core section is \
                                     required of every SDK, and skip is never a way to leave a section out",
                                    rule.name
                                ),
                            );
                        }
                        if selected.get(name.as_str()).copied().unwrap_or(0) != refs.len() {
                            self.problem(
                                ProblemKind::NotWhole,
                                at,
                                format!("rule {:?} does not select every case of section {name:?}, so it cannot skip it whole", rule.name),
                            );
                        }
                    }
                }
            }
        }
        self.core_sections(policy, cases_of, &whole_core);
    }

    /// Every core section keeps a case no rule selects (CoreSection otherwise, at the selector
    /// of the last rule that selects one of its cases), unless a whole_sections entry already
    /// said so for it.
    fn core_sections<'c>(
        &mut self,
        policy: &SkipPolicy,
        cases_of: &dyn Fn(&str) -> Option<&'c [CaseRef<'c>]>,
        reported: &[String],
    ) {
        let mut sections: Vec<&String> = policy.by_case.keys().collect();
        sections.sort_unstable();
        for section in sections {
            if reported.contains(section) || self.suite.scope_of(section) != Some(Scope::Core) {
                continue;
            }
            let Some(refs) = cases_of(section) else { continue };
            let selected = &policy.by_case[section];
            if refs.is_empty() || !refs.iter().all(|c| selected.contains_key(&c.id)) {
                continue;
            }
            let mut names: Vec<&str> = Vec::new();
            let mut last = None;
            for rule in &policy.rules {
                if let Some(sel) = rule.selectors.iter().find(|s| &s.section == section) {
                    names.push(&rule.name);
                    last = Some(sel.pointer.clone());
                }
            }
            let Some(at) = last else { continue };
            self.problem(
                ProblemKind::CoreSection,
                at,
                format!(
                    "the skip policy selects every case of core section {section:?} (rules {}): every core section \
                     is required of every SDK, and skip is never a way to leave a section out, so at least one of \
                     its cases must be one no rule selects",
                    names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
                ),
            );
        }
    }
}
