//! `bqsuite validate`: every check of the canonical suite, reported all at once.
//!
//! Invariants: each rule family lives in its own file and only *returns* findings; no rule stops
//! another from running (a broken manifest still gets its fixtures checked); every finding names
//! a file and, where one exists, a JSON pointer, and this module fills in line:column from the
//! loaded text once at the end; findings come out in a stable order, without duplicates. Schemas
//! are compiled once per run ([`Ctx`]), never per case; every section is read once, by its
//! definition in the registry ([`crate::sections`]), for the generic family, its cross-checks
//! and the reference agreement alike. Both cores share the work task by task (sections are read
//! in parallel, one task each), and the findings do not depend on which thread ran what.
//!
//! Offline by default: the cases that need a live Redis are read and checked but not run
//! through the reference core, and [`Validation::redis`] counts them so that the caller can say
//! so. Given a Redis ([`Options::redis`]), they run against it too, each case in a key space of
//! its own (as `run` does), and a case the reference does not pass is a finding like any other;
//! a case the Redis was lost for is counted as not run, never reported as a disagreement.

mod cases;
mod compat;
mod files;
mod manifest;
mod names;
mod registry;
mod results_format;
mod schemas;
mod sections;
mod skip_policy;
pub mod sync_targets;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::diag::Finding;
use crate::schema::draft7;
use crate::suite::{self, Suite};

/// Everything a rule may read: the suite, plus compiled schemas shared across rules.
pub struct Ctx<'a> {
    pub suite: &'a Suite,
    envelope: OnceLock<Option<jsonschema::Validator>>,
    file_refs: OnceLock<Vec<(String, &'a str)>>,
    cases: OnceLock<std::collections::HashMap<&'a str, Vec<suite::CaseRef<'a>>>>,
}

impl<'a> Ctx<'a> {
    /// A context over a loaded suite.
    pub fn new(suite: &'a Suite) -> Self {
        Self { suite, envelope: OnceLock::new(), file_refs: OnceLock::new(), cases: OnceLock::new() }
    }

    /// The cases of section `name` under the case-id rule (empty for no such section); the
    /// ids of every section are derived once per run and shared by the rules.
    pub fn cases(&self, name: &str) -> &[suite::CaseRef<'a>] {
        let all = self.cases.get_or_init(|| {
            let suite: &'a Suite = self.suite;
            suite.sections().into_iter().map(|s| (s.name, s.cases())).collect()
        });
        all.get(name).map_or(&[], Vec::as_slice)
    }

    /// Every `file` / `envelope_file` / `fixture` reference in the manifest with its pointer,
    /// sorted (empty when the manifest does not parse); collected once, shared by the rules.
    pub fn file_refs(&self) -> &[(String, &'a str)] {
        self.file_refs.get_or_init(|| {
            let suite: &'a Suite = self.suite;
            suite.json(suite::MANIFEST).map(|m| string_refs(m, &FILE_REF_KEYS)).unwrap_or_default()
        })
    }

    /// The producer envelope schema (Draft-07, formats not asserted, as the spec's reference
    /// validator, Python `jsonschema` without a FormatChecker, does), compiled once.
    pub fn envelope_schema(&self) -> Option<&jsonschema::Validator> {
        self.envelope.get_or_init(|| self.suite.json(suite::ENVELOPE_SCHEMA).and_then(|s| draft7(s).ok())).as_ref()
    }
}

/// A rule family.
type Rule = fn(&Ctx<'_>) -> Vec<Finding>;

/// Every rule family, in the order their findings are produced.
const RULES: &[Rule] = &[
    files::check,
    manifest::check,
    sections::check,
    cases::check,
    schemas::check,
    compat::check,
    names::check,
    skip_policy::check,
    sync_targets::check,
];

/// What `validate` may use besides the suite.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A live Redis (its URL, and the connect and reply timeout) for the cases that need one;
    /// `None`: they are read and checked, not run.
    pub redis: Option<(String, std::time::Duration)>,
    /// Run every recorded power pair again (BQ316), also those of the cases whose content is
    /// the recorded one, which `validate` otherwise takes from the recording. The findings are
    /// the same either way; the tests and the fuzz targets compare the two.
    pub every_pair: bool,
}

/// The cases that need a live Redis: how many read cleanly (so the agreement could run them),
/// how many of those ran through the reference core against it, and how many recorded
/// (broken variant, case) pairs of such cases had to run but did not (no Redis was given, or the
/// connection failed), so their catch (BQ316) was not checked. A pair of a case whose content is
/// the recorded one never has to run ([`Options::every_pair`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RedisCoverage {
    pub cases: usize,
    pub run: usize,
    pub pairs_missed: usize,
}

impl RedisCoverage {
    /// Did everything that needs a Redis run against the one given?
    pub fn complete(&self) -> bool {
        self.run == self.cases && self.pairs_missed == 0
    }
}

/// What one validation found, and how much of the reference agreement it could run.
#[derive(Debug)]
pub struct Validation {
    /// Every finding, located and sorted.
    pub findings: Vec<Finding>,
    pub redis: RedisCoverage,
}

/// The manifest pointers of the cases an error of `findings` lies at or under: cases that do not
/// validate, whose changes the release gate leaves to these findings (a case whose expectation
/// the reference core refutes, BQ311, is a mistake to mend before it is a correction to name).
pub fn broken_cases(suite: &Suite, findings: &[Finding]) -> std::collections::BTreeSet<String> {
    let manifest = suite.display_path(crate::suite::MANIFEST);
    let at: Vec<&str> = findings
        .iter()
        .filter(|f| f.severity == crate::diag::Severity::Error && f.file.as_deref() == Some(manifest.as_str()))
        .filter_map(|f| f.pointer.as_deref())
        .collect();
    if at.is_empty() {
        return Default::default();
    }
    suite
        .sections()
        .iter()
        .flat_map(|s| s.cases())
        .map(|c| c.pointer)
        .filter(|case| at.iter().any(|p| crate::suite::pointer::at_or_under(p, case)))
        .collect()
}

/// Validate a loaded suite offline: all findings, located and sorted.
pub fn validate(suite: &Suite) -> Vec<Finding> {
    validate_with(suite, &Options::default()).findings
}

/// Validate a loaded suite with `options`: all findings, located and sorted.
///
/// Two threads share the work, taking tasks from one counter: first reading each registered
/// section (once, for every family; the largest first), then the suite-wide families, then the
/// sections' cross-checks, the suite's power (one task per section,
/// [`registry::Agreement::power`]) and the reference agreement in chunks of cases
/// ([`registry::Agreement::chunk`]), which wait for any section the other thread is still reading.
/// Which thread runs a task does not change its findings, and they are sorted at the end.
pub fn validate_with(suite: &Suite, options: &Options) -> Validation {
    let cx = Ctx::new(suite);
    let agreement = registry::Agreement::new(options.redis.as_ref(), options.every_pair);
    let unread = registry::registered(suite);
    let mut order: Vec<usize> = (0..unread.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(unread[i].weight()));
    let reads: Vec<OnceLock<registry::Read<'_>>> = unread.iter().map(|_| OnceLock::new()).collect();
    // Where each section lies in the manifest, for the recorded content (BQ318): found once.
    let texts = OnceLock::new();
    let next = AtomicUsize::new(0);
    // Blocks while the other thread reads section `i`; reads it itself should that one have
    // panicked.
    let read = |i: usize| reads[i].get_or_init(|| unread[i].read(suite));
    let work = || {
        let mut findings = Vec::new();
        loop {
            let task = next.fetch_add(1, Ordering::Relaxed);
            if let Some(&i) = order.get(task) {
                read(i);
                continue;
            }
            let task = task - order.len();
            if let Some(rule) = RULES.get(task) {
                findings.extend(rule(&cx));
                continue;
            }
            let all: Vec<&registry::Read<'_>> = (0..reads.len()).map(read).collect();
            if task == RULES.len() {
                findings.extend(registry::check(&cx, &all));
                agreement.pinned(suite, &texts);
            } else if let Some(r) = all.get(task - RULES.len() - 1) {
                agreement.power(suite, &texts, r, &mut findings);
            } else if !agreement.chunk(&all, task - RULES.len() - 1 - all.len(), &mut findings) {
                return findings;
            }
        }
    };
    let mut findings: Vec<Finding> = std::thread::scope(|s| {
        let helper = s.spawn(work);
        let mut findings = work();
        findings.extend(helper.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        findings
    });
    let changes = agreement.changes(&findings);
    findings.extend(changes);
    let findings = std::thread::scope(|s| {
        // What the families shared is freed beside the sorting, not before it.
        s.spawn(move || drop((reads, cx)));
        locate(suite, &mut findings);
        for f in &mut findings {
            if let Some(file) = &mut f.file {
                *file = suite.display_path(file);
            }
        }
        Finding::sort(&mut findings);
        findings.dedup();
        findings
    });
    Validation { findings, redis: agreement.coverage() }
}

/// Fill in line:column for every finding with a file and a pointer but no span: one walk per
/// file, however many findings it has.
fn locate(suite: &Suite, findings: &mut [Finding]) {
    let mut by_file: std::collections::BTreeMap<&str, Vec<usize>> = std::collections::BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if let (None, Some(file), Some(_)) = (f.span, &f.file, &f.pointer) {
            by_file.entry(file.as_str()).or_default().push(i);
        }
    }
    let spans: Vec<(usize, Option<crate::diag::Span>)> = by_file
        .into_iter()
        .filter_map(|(file, ix)| {
            let text = suite.file(file)?.text()?;
            let pointers: Vec<&str> = ix.iter().map(|&i| findings[i].pointer.as_deref().unwrap_or_default()).collect();
            Some(ix.iter().copied().zip(suite::span::locate_all(text, &pointers)).collect::<Vec<_>>())
        })
        .flatten()
        .collect();
    for (i, span) in spans {
        findings[i].span = span;
    }
}

/// Every string value under a key in `keys`, anywhere in `value`, with its pointer, sorted.
pub(crate) fn string_refs<'v>(value: &'v Value, keys: &[&str]) -> Vec<(String, &'v str)> {
    let mut out = Vec::new();
    walk_objects(value, &|_| false, &mut |at, m| {
        for (k, child) in m {
            if let (Value::String(s), true) = (child, keys.contains(&k.as_str())) {
                out.push((at.join(k), s.as_str()));
            }
        }
    });
    out.sort();
    out
}

/// One step of the path from the root to an object [`walk_objects`] visits.
#[derive(Clone, Copy)]
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// Where [`walk_objects`] is: the steps from the root, turned into a JSON pointer only when a
/// caller asks (for a finding or a reference), so a walk formats no pointer it does not need.
pub(crate) struct At<'p, 'v>(&'p [Step<'v>]);

impl At<'_, '_> {
    /// The object's RFC 6901 pointer.
    pub(crate) fn pointer(&self) -> String {
        let mut p = String::new();
        for step in self.0 {
            match step {
                Step::Key(k) => suite::pointer::push(&mut p, k),
                Step::Index(i) => suite::pointer::push_index(&mut p, *i),
            }
        }
        p
    }

    /// The pointer of the object's member `key`.
    pub(crate) fn join(&self, key: &str) -> String {
        let mut p = self.pointer();
        suite::pointer::push(&mut p, key);
        p
    }
}

/// Call `f` with every object in `value` (the root included) and where it is, depth first,
/// not descending into the value of any key for which `skip` holds. The path is kept as a stack
/// of borrowed steps, so a walk allocates no pointers ([`At::pointer`] builds one on demand);
/// `serde_json` bounds the nesting of a parsed value, so the recursion is bounded too.
pub(crate) fn walk_objects<'v>(
    value: &'v Value,
    skip: &dyn Fn(&str) -> bool,
    f: &mut dyn FnMut(&At<'_, 'v>, &'v serde_json::Map<String, Value>),
) {
    fn walk<'v>(
        value: &'v Value,
        path: &mut Vec<Step<'v>>,
        skip: &dyn Fn(&str) -> bool,
        f: &mut dyn FnMut(&At<'_, 'v>, &'v serde_json::Map<String, Value>),
    ) {
        match value {
            Value::Object(m) => {
                f(&At(path), m);
                for (k, child) in m {
                    if matches!(child, Value::Object(_) | Value::Array(_)) && !skip(k) {
                        path.push(Step::Key(k));
                        walk(child, path, skip, f);
                        path.pop();
                    }
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    if matches!(child, Value::Object(_) | Value::Array(_)) {
                        path.push(Step::Index(i));
                        walk(child, path, skip, f);
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }
    walk(value, &mut Vec::new(), skip, f);
}

pub(crate) use crate::suite::ids::FILE_REF_KEYS;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_refs_finds_keyed_strings_anywhere_with_escaped_pointers_sorted() {
        let doc = serde_json::json!({
            "b": [{"file": "two"}, [{"fixture": "three"}]],
            "a~/": {"file": "one", "other": "no", "envelope_file": {"file": "nested"}},
            "file": 7
        });
        let refs = string_refs(&doc, &FILE_REF_KEYS);
        assert_eq!(
            refs,
            [
                ("/a~0~1/envelope_file/file".to_owned(), "nested"),
                ("/a~0~1/file".to_owned(), "one"),
                ("/b/0/file".to_owned(), "two"),
                ("/b/1/0/fixture".to_owned(), "three"),
            ]
        );
    }

    #[test]
    fn walk_objects_skips_the_values_of_skipped_keys() {
        let doc = serde_json::json!({"keep": {"x": {}}, "skip": {"y": {}}, "arr": [{}, 1, [{}]]});
        let mut seen = Vec::new();
        walk_objects(&doc, &|k| k == "skip", &mut |at, _| seen.push(at.pointer()));
        assert_eq!(seen, ["", "/keep", "/keep/x", "/arr/0", "/arr/2/0"]);
    }
}
