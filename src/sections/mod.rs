//! One home per section: the registry of section definitions, and the judging side of the
//! suite.
//!
//! A section definition ([`Definition`]) owns everything about one manifest section: its name
//! and scope, the typed reading of its cases (one [`read::Reader`] per case, collecting every
//! problem with its pointer), its `validate` cross-checks, its run against the SDK interface
//! ([`crate::sdk`]), and the broken variants of the reference core it must catch with the case
//! ids that must fail ([`Catch`]). [`registry`] lists every definition once, as data (in the
//! manner of ripgrep's flag definitions); `run`, `validate`, the kill matrix and the tests
//! iterate it, and [`find`] is the one place a section is looked up by name.
//!
//! Invariants: a definition's run calls only the SDK interface and the judging helpers
//! ([`judge`]), never the reference core; every expected value comes from the case (or a file
//! it names), never from a definition's code; a case that does not read cleanly is never run
//! or cross-checked; a case that needs an external service says so ([`Needs`]), so `validate`
//! can run every other case through the reference offline; a case is read only when it lives in
//! a block its definition declares, and every field it carries that the definition's contract
//! does not name is a lint (it still reads and runs, as in a runner that ignores the field).

/// Declare a kind's section modules, each with the definitions it holds, and list those
/// definitions as the kind's `SECTIONS`: one line per section file, the only place a section
/// is registered.
macro_rules! sections {
    ($($module:ident: $($def:ident),+;)*) => {
        $(pub mod $module;)*
        /// This kind's section definitions (see [`crate::sections::registry`]).
        pub static SECTIONS: &[&dyn $crate::sections::Section] = &[$($(&$module::$def),+),*];
    };
}

pub mod bindings;
pub mod envelope;
pub mod helpers;
pub mod judge;
pub mod power;
pub mod read;
pub mod redis;

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::diag::{Code, Finding};
use crate::results::Outcome;
use crate::sdk::Sdk;
use crate::sdk::reference::Broken;
use crate::suite::{self, CaseRef, Scope, Suite, pointer};

pub use read::{Fixture, Place, Problem, Reader, Slot};
pub use redis::link::{RedisLink, Required as RedisRequired};

/// A suite version as the spec's version history names it: (major, minor, patch). A
/// pre-release of a version counts as that version (a 1.6.0-rc.1 suite holds 1.6.0's sections).
pub type Version = (u64, u64, u64);

/// The version of `v` as [`Version`] compares it (its pre-release and build ignored).
pub fn version_of(v: &semver::Version) -> Version {
    (v.major, v.minor, v.patch)
}

/// One block of a section made of blocks: a sub-key that holds cases (a `cases` array of rows,
/// or one case object), or `cases`, the section's own array of cases; with the suite version
/// that added it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub name: &'static str,
    pub since: Version,
}

impl Block {
    pub const fn new(name: &'static str, since: Version) -> Self {
        Self { name, since }
    }
}

/// What a runner's check gives: `Err` carries the failure reason.
pub type Check = Result<(), String>;

/// Fail with `msg` unless `cond` holds.
pub fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Check {
    if cond { Ok(()) } else { Err(msg()) }
}

/// A string as a failure reason quotes it: between double quotes, a quote or a backslash in it
/// written with a backslash before it (so an SDK's value can neither end the quotation early
/// nor pass for an escape), every other character as it is. [`Outcome::fail`] then writes each
/// one a reader cannot see as `\u{XXXX}`, the one notation of the section pages; Rust's `{:?}`
/// would write some of them its own way first (`\u{b}`, `\n`), so a reason never formats an
/// SDK's string with it.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// An optional string as a reason shows it: [`quoted`], or `none` when there is none (say
/// `null` where the protocol's value is null, `absent` where a member or header is missing).
pub fn quoted_or(s: Option<&str>, none: &str) -> String {
    s.map_or_else(|| none.to_owned(), quoted)
}

/// An optional number (or other plain value) as a reason shows it: the value, or `none`.
pub fn shown_or<T: std::fmt::Display>(v: Option<T>, none: &str) -> String {
    v.map_or_else(|| none.to_owned(), |v| v.to_string())
}

/// Strings as a reason lists them: `["a", "b"]`, each [`quoted`].
pub fn quoted_list<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let items: Vec<String> = items.into_iter().map(|s| quoted(s.as_ref())).collect();
    format!("[{}]", items.join(", "))
}

impl From<Check> for Outcome {
    fn from(c: Check) -> Self {
        match c {
            Ok(()) => Outcome::pass(),
            Err(reason) => Outcome::fail(reason),
        }
    }
}

/// What a case needs besides the SDK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    /// A live Redis (the runner contract of ADR-0033 applies).
    Redis,
}

/// A broken variant of the reference core that a section must catch, and the case ids of the
/// section that must fail under it.
#[derive(Debug, Clone, Copy)]
pub struct Catch {
    pub broken: Broken,
    pub fails: &'static [&'static str],
    /// The declared ids are exactly the section's failing cases under the variant.
    pub only: bool,
}

/// The section must catch `broken`: at least the cases `fails` fail.
pub const fn catch(broken: Broken, fails: &'static [&'static str]) -> Catch {
    Catch { broken, fails, only: false }
}

/// The section must catch `broken` with exactly the cases `fails`.
pub const fn catch_only(broken: Broken, fails: &'static [&'static str]) -> Catch {
    Catch { broken, fails, only: true }
}

/// What running a case sees.
pub struct RunCx<'a> {
    pub sdk: &'a mut dyn Sdk,
    /// The judge's Redis (the run's one connection and the runner contract).
    pub redis: &'a RedisLink,
}

/// What a cross-check sees.
pub struct CheckCx<'a> {
    pub suite: &'a Suite,
    /// The producer envelope schema, when it compiles (Draft-07, formats not asserted).
    pub envelope_schema: Option<&'a jsonschema::Validator>,
    /// The reference core, for the cross-checks that ask it (a fixture must be an envelope).
    pub sdk: &'a mut dyn Sdk,
}

/// One case as read: its place, its typed form when it read cleanly, its problems and the
/// expectations the reader took.
pub struct Entry<'s, C> {
    pub case: CaseRef<'s>,
    pub typed: Option<C>,
    pub problems: Vec<Problem>,
    /// Empty unless the section was read [`Section::read_with_slots`].
    pub slots: Vec<Slot>,
}

/// A section definition: the typed, static side (each section is a unit struct).
pub trait Definition: Sync + 'static {
    /// The manifest name.
    const NAME: &'static str;
    /// The scope the `sections` map must give it.
    const SCOPE: Scope;
    /// Real SDK runners read this early section by name (decisions R20.2).
    const EARLY: bool = false;
    /// The suite version whose entry in the spec's version history added the section (1.0.0,
    /// the initial suite, for a section no entry names): a suite of that version or later must
    /// hold it (BQ312), so a section cannot drop out of a release unnoticed. A MAJOR that
    /// removes a section removes its definition with it (the registry is the suite's own).
    const SINCE: Version;
    /// Every block of the section, with the version that added each. Empty exactly when the
    /// section is one array of cases (only `cases`; every other section is an object): a case in any other sub-key is not read (BQ306; runners skip a block
    /// they do not know, so its cases would pin nothing), and a suite of a block's version or
    /// later must hold it (BQ313).
    const BLOCKS: &'static [Block];
    /// The broken variants it must catch.
    const CATCHES: &'static [Catch] = &[];
    /// What a runner of this section does, for people (its page in `docs/`): required, so a
    /// new section cannot land without the text a newcomer writes a runner from.
    const CONTRACT: &'static Contract;
    /// A case, read.
    type Case<'s>: Send + Sync;
    /// Read one case; `None` when the reader recorded a problem.
    fn read<'s>(r: &mut Reader<'s>) -> Option<Self::Case<'s>>;
    /// What the case needs besides the SDK.
    fn needs(_case: &Self::Case<'_>) -> Needs {
        Needs::Nothing
    }
    /// The cross-checks of `validate` over the cases that read cleanly.
    fn check<'s>(_cx: &mut CheckCx<'_>, _cases: &[Entry<'s, Self::Case<'s>>], _out: &mut Vec<Finding>) {}
    /// Run one case against the SDK under test.
    fn run(cx: &mut RunCx<'_>, case: &Self::Case<'_>) -> Outcome;
}

/// What a runner of a section does, in words, written beside the reader that reads those fields
/// (the manifest's `description` says what the SDK must do; this says how a runner feeds it a
/// case and judges the answer). `bqsuite docs` renders it on the section's page, and
/// `tests/docs.rs` requires that `fields` names exactly the fields its cases hold.
#[derive(Debug)]
pub struct Contract {
    /// Every field of a case.
    pub fields: &'static [Field],
    /// The steps of running one case, in order.
    pub steps: &'static [&'static str],
    /// The operations of the adapter protocol its cases call, in the protocol's order of
    /// operations (`tests/section_operations.rs` holds this to what a reference run calls).
    pub operations: &'static [&'static str],
}

/// One case field: its name, its JSON type in words, what it means to a runner.
#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: &'static str,
    pub meaning: &'static str,
}

/// The read cases of one section, whatever its case type.
pub trait Cases<'s>: Send + Sync {
    /// How many cases.
    fn len(&self) -> usize;
    /// No cases.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Case `i`.
    fn case(&self, i: usize) -> &CaseRef<'s>;
    /// The problems of case `i` (none: it read cleanly, apart from lints).
    fn problems(&self, i: usize) -> &[Problem];
    /// The expectations case `i` carries (none unless read [`Section::read_with_slots`]).
    fn slots(&self, i: usize) -> &[Slot];
    /// What case `i` needs, when it read cleanly.
    fn needs(&self, i: usize) -> Option<Needs>;
    /// Run case `i` (a case that did not read is a failure saying so; a panic fails the case).
    fn run(&self, i: usize, cx: &mut RunCx<'_>) -> Outcome;
    /// The cross-checks over the cases that read cleanly.
    fn check(&self, cx: &mut CheckCx<'_>) -> Vec<Finding>;
}

/// A section definition as data (every [`Definition`] is one).
pub trait Section: Sync {
    fn name(&self) -> &'static str;
    fn scope(&self) -> Scope;
    fn is_array(&self) -> bool;
    fn is_early(&self) -> bool;
    fn since(&self) -> Version;
    fn blocks(&self) -> &'static [Block];
    fn catches(&self) -> &'static [Catch];
    fn contract(&self) -> &'static Contract;
    /// Read every case of `section` (a section of `suite` with this definition's name).
    fn read<'s>(&self, suite: &'s Suite, section: &suite::Section<'s>) -> Box<dyn Cases<'s> + 's>;
    /// [`Section::read`], also collecting every case's expectation slots, each with a wrong
    /// value (for the tests that make each expectation wrong in turn).
    fn read_with_slots<'s>(&self, suite: &'s Suite, section: &suite::Section<'s>) -> Box<dyn Cases<'s> + 's>;
}

struct Typed<'s, D: Definition> {
    entries: Vec<Entry<'s, D::Case<'s>>>,
}

impl<'s, D: Definition> Cases<'s> for Typed<'s, D> {
    fn len(&self) -> usize {
        self.entries.len()
    }

    fn case(&self, i: usize) -> &CaseRef<'s> {
        &self.entries[i].case
    }

    fn problems(&self, i: usize) -> &[Problem] {
        &self.entries[i].problems
    }

    fn slots(&self, i: usize) -> &[Slot] {
        &self.entries[i].slots
    }

    fn needs(&self, i: usize) -> Option<Needs> {
        self.entries[i].typed.as_ref().map(D::needs)
    }

    fn run(&self, i: usize, cx: &mut RunCx<'_>) -> Outcome {
        let e = &self.entries[i];
        let Some(typed) = &e.typed else {
            return Outcome::fail(invalid_reason(&e.problems));
        };
        catch_unwind(AssertUnwindSafe(|| D::run(cx, typed)))
            .unwrap_or_else(|p| Outcome::fail(format!("runner panicked: {}", panic_text(&p))))
    }

    fn check(&self, cx: &mut CheckCx<'_>) -> Vec<Finding> {
        let mut out = Vec::new();
        D::check(cx, &self.entries, &mut out);
        out
    }
}

impl<D: Definition> Section for D {
    fn name(&self) -> &'static str {
        D::NAME
    }

    fn scope(&self) -> Scope {
        D::SCOPE
    }

    fn is_array(&self) -> bool {
        D::BLOCKS.is_empty()
    }

    fn is_early(&self) -> bool {
        D::EARLY
    }

    fn since(&self) -> Version {
        D::SINCE
    }

    fn blocks(&self) -> &'static [Block] {
        D::BLOCKS
    }

    fn catches(&self) -> &'static [Catch] {
        D::CATCHES
    }

    fn contract(&self) -> &'static Contract {
        D::CONTRACT
    }

    fn read<'s>(&self, suite: &'s Suite, section: &suite::Section<'s>) -> Box<dyn Cases<'s> + 's> {
        read_typed::<D>(suite, section, false)
    }

    fn read_with_slots<'s>(&self, suite: &'s Suite, section: &suite::Section<'s>) -> Box<dyn Cases<'s> + 's> {
        read_typed::<D>(suite, section, true)
    }
}

fn read_typed<'s, D: Definition>(
    suite: &'s Suite,
    section: &suite::Section<'s>,
    slots: bool,
) -> Box<dyn Cases<'s> + 's> {
    let mut unknown_blocks: Vec<&str> = Vec::new();
    let entries = section
        .cases()
        .into_iter()
        .map(|case| {
            let mut r = Reader::new(suite, &case, section.name, section.block);
            if slots {
                r = r.with_slots();
            }
            let block = case.sub.unwrap_or("cases");
            let typed = if D::BLOCKS.is_empty() || D::BLOCKS.iter().any(|b| b.name == block) {
                let typed = D::read(&mut r);
                unknown_fields(&mut r, section.name, &case, D::CONTRACT);
                typed
            } else {
                // Said once per block, at its first case; every case of it fails to read.
                let names: Vec<&str> = D::BLOCKS.iter().map(|b| b.name).collect();
                let first = !unknown_blocks.contains(&block);
                unknown_blocks.push(block);
                r.problems.push(Problem {
                    code: Code::CASE_UNKNOWN_VALUE,
                    pointer: r.root().pointer,
                    message: format!("{} has no block {block:?} (it has {})", section.name, names.join(", ")),
                    shown: first,
                    lint: false,
                });
                None
            };
            let typed = if r.failed() { None } else { typed };
            Entry { case, typed, problems: r.problems, slots: r.slots.unwrap_or_default() }
        })
        .collect();
    Box::new(Typed::<D> { entries })
}

/// A lint (BQ305) for every member of the case that its section's contract does not name: a
/// runner ignores an unknown case field, so a misspelt optional field (`multipler`) would leave
/// the case testing less than it says, with nothing failing. The case still reads and runs.
/// Fields are checked against the section's whole contract, not per block.
fn unknown_fields(r: &mut Reader<'_>, section: &str, case: &CaseRef<'_>, contract: &Contract) {
    // A block that stands as one case because its `cases` is not an array is reported as a
    // block (BQ305); its members are the block's, not a case's.
    let Some(obj) = case.value.as_object().filter(|o| !o.contains_key("cases")) else { return };
    for key in obj.keys().filter(|k| !contract.fields.iter().any(|f| f.name == k.as_str())) {
        let hint = did_you_mean(key, contract.fields.iter().map(|f| f.name));
        let message = format!(
            "{key:?} is not a case field of section {section:?}: runners ignore it, so nothing it says is checked{hint}"
        );
        r.lint(Code::CASE_SHAPE, pointer::join(&case.pointer, key), message);
    }
}

/// "; did you mean \"x\"?" for the known name within two edits of `key`, else nothing.
pub(crate) fn did_you_mean<'a>(key: &str, known: impl Iterator<Item = &'a str>) -> String {
    let near = known.map(|name| (strsim::damerau_levenshtein(key, name), name)).filter(|(d, _)| *d <= 2).min();
    near.map_or(String::new(), |(_, name)| format!("; did you mean {name:?}?"))
}

/// The failure reason of a case that does not read cleanly.
pub fn invalid_reason(problems: &[Problem]) -> String {
    let list: Vec<String> = problems.iter().filter(|p| !p.lint).map(ToString::to_string).collect();
    format!("invalid case: {}", list.join("; "))
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// The section definitions of each kind; each kind's `SECTIONS` is declared beside its modules.
static KINDS: &[&[&dyn Section]] = &[envelope::SECTIONS, helpers::SECTIONS, bindings::SECTIONS, redis::SECTIONS];

/// Every section definition, kind by kind.
pub fn registry() -> impl Iterator<Item = &'static dyn Section> {
    KINDS.iter().flat_map(|kind| kind.iter().copied())
}

/// The definition of the section named `name`.
pub fn find(name: &str) -> Option<&'static dyn Section> {
    registry().find(|s| s.name() == name)
}

/// The ids of the cases of section `name` of `suite` that read cleanly and need a live Redis:
/// what the reference core runs only when it is given one (none for a section without a
/// definition, or that the suite does not have).
pub fn redis_cases(suite: &Suite, name: &str) -> Vec<String> {
    let (Some(definition), Some(section)) = (find(name), suite.section(name)) else { return Vec::new() };
    let cases = definition.read(suite, &section);
    (0..cases.len()).filter(|&i| cases.needs(i) == Some(Needs::Redis)).map(|i| cases.case(i).id.clone()).collect()
}
