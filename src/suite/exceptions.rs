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

use serde_json::Value;

use super::{Exception, Scope, Suite, is_adr, is_family_piece};

/// What is wrong with `exceptions` or one of its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// `exceptions` is present but not an array.
    NotArray,
    /// An entry is not `{family, binding, adr}` as it must be, or repeats another.
    Bad,
    /// An entry names a binding no section of the suite has as its scope.
    UnknownBinding,
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
    out.exceptions = read;
    out
}

const SHAPE: &str =
    "an exception is exactly {\"family\", \"binding\", \"adr\"}: non-empty strings, adr of the form ADR-NNNN";
