//! The family exceptions (manifest.json → `exceptions`): the one reader, used by validate (which
//! reports its problems as BQ204 / BQ205) and by results check (which refuses a suite that has
//! any, rather than apply what is left of the list).
//!
//! Rules: `exceptions` is an array (absent: none; not an array: a problem, reported by validate
//! as the manifest's shape, BQ104); every entry is exactly `{family, binding, adr}`, strings,
//! `adr` of the form `ADR-NNNN`, `family` only ASCII letters and digits (the pieces results
//! check derives a family from; any other family matches no SDK) and `binding` a binding scope
//! that some section of the suite has; no two entries name the same family (letter case aside,
//! as results check matches it) and binding, since one exemption backed by two ADRs leaves open
//! which decision grants it. An entry with a problem other than a repeat is not among the
//! exceptions read.
//!
//! The contract's exceptions are also held to their registry, [`REGISTERED`] (decisions R5):
//! an exception is contract as much as a section's scope is, and it lives in bqsuite as the
//! section definitions do, so neither an edit to a suite nor an edit to a vendored copy can
//! excuse a family from a binding. On a suite with a SemVer version, an entry the registry does
//! not record for its family (letter case aside) and binding, with its ADR, at the suite's
//! version or earlier is a problem ([`ProblemKind::Unregistered`]; it is still read, its shape
//! being clean), and so is a registered exception of the suite's version that the list lacks
//! ([`ProblemKind::Missing`]). An entry for a registered family and binding counts as that
//! exception however wrong it is, an entry with a problem of its own is not judged against
//! the registry, and a registered exception whose binding no section of the suite has is not
//! missing (the sections are: validate reports them), so one problem gives one finding. A
//! suite without `exceptions` (an older version, or a manifest validate reports the shape of)
//! is not held to the registry.

use serde_json::Value;

use super::{Exception, Scope, Suite, is_adr, is_family_piece};

/// A family exception the contract records: every SDK of `family` may leave out `binding`
/// whole (its sections are absent from results, not skipped), by the decision `adr`, from suite
/// version `since` (major, minor, patch) on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registered {
    pub family: &'static str,
    pub binding: &'static str,
    pub adr: &'static str,
    pub since: (u64, u64, u64),
}

/// Every family exception of the contract, oldest first. A new one is a contract change: it
/// comes with its ADR, a CHANGELOG entry and a bqsuite release that records it here.
pub static REGISTERED: &[Registered] = &[
    // PHP has no conformant Azure Service Bus path; the exceptions key itself is 1.5.0's.
    Registered { family: "php", binding: "asb", adr: "ADR-0021", since: (1, 5, 0) },
];

/// What is wrong with `exceptions` or one of its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// `exceptions` is present but not an array.
    NotArray,
    /// An entry is not `{family, binding, adr}` as it must be, or repeats another.
    Bad,
    /// An entry names a binding no section of the suite has as its scope.
    UnknownBinding,
    /// An entry is not an exception [`REGISTERED`] records for the suite's version.
    Unregistered,
    /// An exception [`REGISTERED`] records for the suite's version is not listed.
    Missing,
}

/// One problem, with its pointer in manifest.json.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub pointer: String,
    pub message: String,
}

/// The exceptions as read, with every problem found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    /// The entries that read cleanly (the first of two repeats included).
    pub exceptions: Vec<Exception>,
    pub problems: Vec<Problem>,
}

/// Read `exceptions` of `suite` (see the module rules).
pub fn read(suite: &Suite) -> Loaded {
    let mut out = Loaded::default();
    let Some(m) = suite.manifest() else { return out };
    let list = match m.get("exceptions") {
        None => return out,
        Some(Value::Array(list)) => list,
        Some(_) => {
            out.problems.push(Problem {
                kind: ProblemKind::NotArray,
                pointer: "/exceptions".into(),
                message: "exceptions must be an array of {family, binding, adr}".into(),
            });
            return out;
        }
    };
    let carried: Vec<Scope> = suite.sections().iter().filter_map(|s| s.scope).collect();
    let mut problem = |kind, pointer: String, message: String| out.problems.push(Problem { kind, pointer, message });
    let mut first: Vec<(String, &str, usize)> = Vec::new();
    let mut read = Vec::new();
    for (i, e) in list.iter().enumerate() {
        let ptr = format!("/exceptions/{i}");
        let field = |k: &str| e.get(k).and_then(Value::as_str);
        let keys_ok = e.as_object().is_some_and(|o| o.len() == 3);
        let (Some(family), Some(binding), Some(adr)) = (field("family"), field("binding"), field("adr")) else {
            problem(ProblemKind::Bad, ptr, SHAPE.into());
            continue;
        };
        if !keys_ok || family.is_empty() || !is_adr(adr) {
            problem(ProblemKind::Bad, ptr, SHAPE.into());
            continue;
        }
        let mut clean = true;
        if !is_family_piece(family) {
            clean = false;
            problem(
                ProblemKind::Bad,
                format!("{ptr}/family"),
                format!(
                    "exception family {family:?} is matched by no SDK: results check derives a family as one piece \
                     of ASCII letters and digits of the results file's sdk (php-sdk is php), so a family is such a \
                     piece (php, go, python, java, dotnet, node)"
                ),
            );
        }
        let family_key = family.to_ascii_lowercase();
        match first.iter().find(|(f, b, _)| *f == family_key && *b == binding) {
            Some((_, _, j)) => problem(
                ProblemKind::Bad,
                ptr.clone(),
                format!(
                    "exception {family}/{binding} repeats /exceptions/{j}: one family and binding is one exemption, \
                     backed by one ADR; remove one of the two"
                ),
            ),
            None => first.push((family_key, binding, i)),
        }
        match Scope::parse(binding) {
            Some(b) if b.is_binding() && carried.contains(&b) => {}
            _ => {
                clean = false;
                problem(
                    ProblemKind::UnknownBinding,
                    format!("{ptr}/binding"),
                    format!("exception names binding {binding:?}, which no section of this suite has as its scope"),
                );
            }
        }
        if clean {
            read.push(Exception { family: family.to_owned(), binding: binding.to_owned(), adr: adr.to_owned() });
        }
    }
    let judged: Vec<(usize, &str, &str, &str)> = list
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let field = |k: &str| e.get(k).and_then(Value::as_str);
            Some((i, field("family")?, field("binding")?, field("adr").unwrap_or_default()))
        })
        .collect();
    out.exceptions = read;
    registry(suite, &judged, &mut out.problems);
    out
}

/// Hold the entries `(index, family, binding, adr)` to [`REGISTERED`] (see the module rules).
fn registry(suite: &Suite, entries: &[(usize, &str, &str, &str)], problems: &mut Vec<Problem>) {
    let Some(version) = suite.version().and_then(|v| semver::Version::parse(v).ok()) else {
        return;
    };
    let v = (version.major, version.minor, version.patch);
    let since = |(a, b, c): (u64, u64, u64)| format!("{a}.{b}.{c}");
    let known: Vec<String> = REGISTERED
        .iter()
        .map(|r| format!("{}/{} ({}, since {})", r.family, r.binding, r.adr, since(r.since)))
        .collect();
    let mut seen = vec![false; REGISTERED.len()];
    let mut found = Vec::new();
    for &(i, family, binding, adr) in entries {
        let at = format!("/exceptions/{i}");
        let registered = REGISTERED.iter().position(|r| r.family.eq_ignore_ascii_case(family) && r.binding == binding);
        if let Some(j) = registered {
            seen[j] = true;
        }
        if problems.iter().any(|p| p.pointer == at || p.pointer.starts_with(&format!("{at}/"))) {
            continue;
        }
        let why = match registered.map(|j| &REGISTERED[j]) {
            Some(r) if r.adr != adr => format!("the contract grants it by {}, not {adr}", r.adr),
            Some(r) if r.since > v => {
                format!("the contract records it from {} on, after this suite's {version}", since(r.since))
            }
            Some(_) => continue,
            None => "the contract records no such exception".to_owned(),
        };
        found.push(Problem {
            kind: ProblemKind::Unregistered,
            pointer: at,
            message: format!(
                "exception {family}/{binding} ({adr}): {why}. The family exceptions bqsuite records are {}; a new \
                 one is a contract change that comes with its ADR, a CHANGELOG entry and a bqsuite release that \
                 records it",
                known.join(", ")
            ),
        });
    }
    // A suite without the binding's sections (a partial suite, which validate reports as such)
    // cannot list the exception (it would be BQ205's unknown binding).
    let carried: Vec<&str> = suite.sections().iter().filter_map(|s| s.scope).map(|s| s.as_str()).collect();
    for (r, seen) in REGISTERED.iter().zip(seen) {
        if !seen && r.since <= v && carried.contains(&r.binding) {
            found.push(Problem {
                kind: ProblemKind::Missing,
                pointer: "/exceptions".into(),
                message: format!(
                    "the suite is {version}, and it does not list the family exception {}/{} ({}, since {}): every \
                     release from {} on grants it",
                    r.family,
                    r.binding,
                    r.adr,
                    since(r.since),
                    since(r.since)
                ),
            });
        }
    }
    problems.extend(found);
}

const SHAPE: &str =
    "an exception is exactly {\"family\", \"binding\", \"adr\"}: non-empty strings, adr of the form ADR-NNNN";
