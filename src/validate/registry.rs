//! The rule families over the section registry: every case reads cleanly, the cross-checks of
//! each section hold, and the reference core agrees with every case that needs no service.
//!
//! Rules:
//!
//! * every manifest section has a definition in the registry (BQ309) and the scope the
//!   `sections` map gives it is the definition's (BQ310);
//! * every case of every registered section reads cleanly into its section's typed form: each
//!   problem the reader finds is a finding at its pointer (the generic family: BQ305–BQ308,
//!   BQ804, BQ301, and the Redis case language's BQ860–BQ867); a problem whose root cause
//!   another rule reports (a fixture that does not parse) is not repeated, and the case is
//!   neither cross-checked nor run;
//! * the suite holds what its version has: every registered section whose `SINCE` is that
//!   version or earlier (BQ312) and each such block of every section (BQ313), none of them
//!   with an empty `cases` array (BQ314); a section of `cases` is checked by BQ509 instead;
//!   and nothing newer: no section or block whose `SINCE` is a later version (BQ315);
//! * every case lives in a block its definition declares (BQ306) and has only the fields its
//!   section's contract names (BQ305, a lint: the case still reads and runs);
//! * each section's cross-checks over the cases that read cleanly;
//! * the reference agreement (BQ311): every case that read cleanly and needs no external service
//!   runs through the reference core over the SDK interface; a case it does not pass is a finding
//!   at the case's pointer with what the reference computed against what the case expects. The
//!   cases that need a live Redis (the behavioural blocks of redis_layout, redis.payload_identity)
//!   run too when validate is given a Redis, each in a key space of its own that is deleted
//!   afterwards, as `run` runs them; without one they are read and checked, never executed, and
//!   counted, so `validate` stays offline unless asked. Either way the agreement is
//!   deterministic (the reference draws its random delays from a fixed seed here, every Redis
//!   case pins its clock, and which thread runs a case does not change its outcome): the same
//!   findings at the same places, though a disagreement's message may quote an envelope the
//!   reference made, whose per-message values (meta.id, trace_id, created_at) are new each run. A Redis case
//!   that could not run because the Redis went away is counted as not run, never reported as a
//!   disagreement.
//! * the suite's power (BQ316): on a suite of the recorded power's version or later, every
//!   (variant, case) pair of [`sections::power`] (the kill matrix of the canonical suite) runs
//!   again: the case must still exist and must not pass with that broken variant switched on.
//!   So an edit that empties or loosens the expectation that caught a bug (an
//!   `expect_preserved` emptied, a row rewritten so it no longer tests its point, a published
//!   case removed) is a finding even though the reference core still passes the case. The
//!   Redis cases among them run only with a Redis, as the agreement's do; a section's pairs
//!   share one reference core, as a chunk of the agreement does. On a suite of the recording's
//!   own version a case whose content is its recorded one (BQ318's fingerprint) runs none of
//!   its pairs: how they come out on that content is what the recording says, and
//!   `tests/kill_matrix.rs` holds the recording to this reference core's matrix, and holds every
//!   rewrite the fingerprint does not see (prose, the order of named cases and of members,
//!   escapes, number spelling, layout) to the same catches; the untrusted-manifest check of the
//!   properties and the fuzz targets compares the two ways ([`super::Options::every_pair`]). So
//!   an edit costs the pairs of the cases it touches, and the canonical suite runs none. Offline,
//!   the pairs of Redis cases that had to run are counted, and the caller says how many catches
//!   went unchecked. A case the reference does not pass either is left to the agreement (BQ311),
//!   a case with an emptied expectation field to BQ308 (the cases family), and a case gone with
//!   its whole block (missing, malformed or emptied) to the block's finding (BQ313, BQ305,
//!   BQ314), so one problem gives one finding. A suite older than the recording never had some
//!   of its cases and is not held to it.
//! * published cases stay (BQ317, decisions R1): on the same suites, every case the recording
//!   lists as failed by no variant still exists (BQ316 holds the others), so a case no variant
//!   catches cannot be deleted or renamed away; gone with its whole block is the block's
//!   finding.
//! * recorded cases keep their content (BQ318): on a suite of the recorded version itself (the
//!   version being prepared, before its tag), every case the recording pins
//!   ([`crate::suite::content`]) has the fingerprint it was recorded with. The changed ones are
//!   judged after every other finding is in ([`Agreement::changes`]): a case another finding is
//!   about already (at or under its pointer or its shared fields', at the block that holds them,
//!   in a fixture it names) is not reported again.
//! * the recorded skip policy stays (BQ319): on the same suites, every rule of the skip policy
//!   has the fingerprint the recording gives its name ([`crate::suite::content::rules`]), no
//!   rule is added and none dropped; judged at the end like BQ318 (a rule a skip-policy finding
//!   is about already, or a policy that is missing or malformed, is not reported again).
//! * the recorded schemas stay (BQ320): on the same suites, each of the two schema files has the
//!   bytes the recording pins; judged at the end too (a schema another finding is about
//!   already, BQ402–BQ406 or a read finding, is not reported again).

use std::rc::Rc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::diag::{Code, Finding};
use crate::results::Status;
use crate::sdk::reference::{ReferenceSdk, with_broken};
use crate::sections::{self, CheckCx, Needs, RedisLink, RedisRequired as Required, RunCx};
use crate::suite::{self, MANIFEST, Suite, pointer};

use super::Ctx;

/// One manifest section read by its definition.
pub(super) struct Read<'s> {
    pub section: suite::Section<'s>,
    pub cases: Box<dyn sections::Cases<'s> + 's>,
}

/// A manifest section that has a definition in the registry, not read yet.
pub(super) struct Unread<'s> {
    section: suite::Section<'s>,
    def: &'static dyn sections::Section,
}

impl<'s> Unread<'s> {
    /// Read its cases (each section is read on its own, so two threads can share the sections).
    pub fn read(&self, suite: &'s Suite) -> Read<'s> {
        Read { section: self.section, cases: self.def.read(suite, &self.section) }
    }

    /// A cheap guess at how long reading it takes: how many cases its block holds (so the
    /// largest sections are started first).
    pub fn weight(&self) -> usize {
        use serde_json::Value;
        let cases = |v: &Value| match v {
            Value::Array(a) => a.len(),
            Value::Object(o) => o.get("cases").and_then(Value::as_array).map_or(1, Vec::len),
            _ => 0,
        };
        match self.section.block {
            Value::Array(a) => a.len(),
            Value::Object(m) => m.values().map(cases).sum(),
            _ => 0,
        }
    }
}

/// Every registered section of the suite, in manifest order.
pub(super) fn registered(suite: &Suite) -> Vec<Unread<'_>> {
    suite
        .sections()
        .into_iter()
        .filter_map(|section| Some(Unread { section, def: sections::find(section.name)? }))
        .collect()
}

fn at(code: Code, msg: String, ptr: impl Into<String>) -> Finding {
    Finding::error(code, msg).in_file(MANIFEST).at(ptr)
}

/// The registry and generic families, and the sections' cross-checks.
pub(super) fn check(cx: &Ctx<'_>, reads: &[&Read<'_>]) -> Vec<Finding> {
    let mut out = Vec::new();
    for s in cx.suite.sections() {
        match sections::find(s.name) {
            None => out.push(at(
                Code::SECTION_UNREGISTERED,
                format!(
                    "bqsuite has no definition of section {:?}, so its cases cannot be read, checked or run",
                    s.name
                ),
                pointer::join("", s.name),
            )),
            Some(def) => {
                if let Some(scope) = s.scope.filter(|sc| *sc != def.scope()) {
                    out.push(at(
                        Code::SECTION_SCOPE_DIFFERS,
                        format!(
                            "\"sections\" gives {:?} the scope {scope}, its definition says {}",
                            s.name,
                            def.scope()
                        ),
                        pointer::join("/sections", s.name),
                    ));
                }
            }
        }
    }
    out.extend(held_by_version(cx.suite));
    let mut sdk = ReferenceSdk::new().deterministic();
    let mut ccx = CheckCx { suite: cx.suite, envelope_schema: cx.envelope_schema(), sdk: &mut sdk };
    for r in reads {
        for i in 0..r.cases.len() {
            for p in r.cases.problems(i).iter().filter(|p| p.shown) {
                out.push(at(p.code, p.message.clone(), p.pointer.clone()));
            }
        }
        out.extend(r.cases.check(&mut ccx));
    }
    out
}

/// What the suite's version must hold, and may hold (the spec's version history, as each
/// definition's `SINCE` and `BLOCKS` state it): every registered section of that version or
/// earlier (BQ312), and in each section every block of that version or earlier (BQ313); no
/// section or block of a later version (BQ315: the suite's version is too low for what it
/// holds; a pre-release counts as its release, so 1.7.0-pre may hold what 1.7.0 adds); a
/// block's `cases` array holds at least one case (BQ314). Nothing is said when `CONFORMANCE_VERSION`
/// is not SemVer (BQ102 says that), when the manifest is missing, does not parse or is no object
/// (BQ003, BQ001, BQ104 say that: no section can be read) or a section has another shape than
/// its definition's (BQ207).
fn held_by_version(suite: &Suite) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(version) = suite.version().and_then(|v| semver::Version::parse(v).ok()) else {
        return out;
    };
    if suite.manifest().is_none() {
        return out;
    }
    let v = sections::version_of(&version);
    let held = suite.sections();
    let since = |(a, b, c): sections::Version| format!("{a}.{b}.{c}");
    let due: Vec<_> = sections::registry().filter(|d| d.since() <= v).collect();
    if !due.is_empty() && !due.iter().any(|d| held.iter().any(|s| s.name == d.name())) {
        // Not a section dropped, but no suite of this version at all: one finding, not one per section.
        let names: Vec<&str> = due.iter().map(|d| d.name()).collect();
        out.push(at(
            Code::SECTION_MISSING,
            format!(
                "the suite is {version}, and it holds none of that version's {} sections ({})",
                due.len(),
                names.join(", ")
            ),
            "",
        ));
        return out;
    }
    for def in sections::registry() {
        let Some(section) = held.iter().find(|s| s.name == def.name()) else {
            if def.since() <= v {
                out.push(at(
                    Code::SECTION_MISSING,
                    format!(
                        "the suite is {version}, and section {:?} (scope {}, since {}) is missing: every release from {} on holds it",
                        def.name(),
                        def.scope(),
                        since(def.since()),
                        since(def.since())
                    ),
                    "",
                ));
            }
            continue;
        };
        let ptr = pointer::join("", def.name());
        if def.since() > v {
            out.push(at(
                Code::NEWER_THAN_VERSION,
                format!(
                    "the suite is {version}, and it holds section {:?}, which {} added: a {version} runner does not \
                     know it, and the version history says no {version} suite has it; the suite's version is {} or later",
                    def.name(),
                    since(def.since()),
                    since(def.since())
                ),
                ptr,
            ));
            continue;
        }
        let Some(obj) = section.block.as_object() else { continue };
        for b in def.blocks() {
            match obj.get(b.name) {
                Some(_) if b.since > v => out.push(at(
                    Code::NEWER_THAN_VERSION,
                    format!(
                        "the suite is {version}, and section {:?} holds block {:?}, which {} added: the suite's version \
                         is {} or later",
                        def.name(),
                        b.name,
                        since(b.since),
                        since(b.since)
                    ),
                    pointer::join(&ptr, b.name),
                )),
                None if b.since <= v => out.push(at(
                    Code::BLOCK_MISSING,
                    format!(
                        "the suite is {version}, and section {:?} has no block {:?} (since {})",
                        def.name(),
                        b.name,
                        since(b.since)
                    ),
                    ptr.clone(),
                )),
                Some(_) => {
                    let at_ptr = if b.name == "cases" {
                        pointer::join(&ptr, "cases")
                    } else {
                        pointer::join(&pointer::join(&ptr, b.name), "cases")
                    };
                    if block_state(section.block, b.name) == BlockState::Emptied {
                        out.push(at(
                            Code::EMPTY_BLOCK,
                            format!("{}/{} has an empty cases array: it pins nothing", def.name(), b.name),
                            at_ptr,
                        ));
                    }
                }
                None => {}
            }
        }
    }
    out
}

/// What a section object holds of one of its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockState {
    /// No such member (BQ313 when the version holds it).
    Missing,
    /// Its `cases` array (the section's own array for the block `cases`) is empty (BQ314).
    Emptied,
    /// Anything else: cases, or a single case.
    Held,
}

/// What section object `section` holds of block `block`.
fn block_state(section: &serde_json::Value, block: &str) -> BlockState {
    let Some(value) = section.get(block) else { return BlockState::Missing };
    let cases = if block == "cases" { Some(value) } else { value.get("cases") };
    match cases.and_then(serde_json::Value::as_array) {
        Some(a) if a.is_empty() => BlockState::Emptied,
        _ => BlockState::Held,
    }
}

/// Is section `section`, or its block `block`, one the suite's version holds by the version
/// history ([`held_by_version`]) but gone: the section missing or of another shape, the block
/// missing or its cases emptied? Then BQ312, BQ207, BQ313 or BQ314 says so, and a reference to
/// it elsewhere (a skip-policy selector) is not a finding of its own.
pub(super) fn gone_but_held(suite: &Suite, section: &str, block: Option<&str>) -> bool {
    let Some(v) = suite.version().and_then(|v| semver::Version::parse(v).ok()).map(|v| sections::version_of(&v)) else {
        return false;
    };
    let Some(def) = sections::find(section).filter(|d| d.since() <= v) else { return false };
    let value = suite.manifest().and_then(|m| m.get(section));
    match block {
        None => value.is_none(),
        Some(block) => {
            def.blocks().iter().any(|b| b.name == block && b.since <= v)
                && value.is_none_or(|s| !s.is_object() || block_state(s, block) != BlockState::Held)
        }
    }
}

/// Is the array that held case `id` (the section's own `cases`, or the `cases` of the block the
/// id names before its `/`) still there and not empty, so that the case's absence is the case's
/// own and not its block's (BQ313, BQ305, BQ314)?
fn container_intact(block: &serde_json::Value, id: &str) -> bool {
    use serde_json::Value;
    let held = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(|a| !a.is_empty());
    match id.split_once('/') {
        Some((sub, _)) => held(block.get(sub).and_then(|b| b.get("cases"))),
        None => held(Some(block)) || held(block.get("cases")),
    }
}

/// How many cases one task of the agreement runs.
const CHUNK: usize = 64;

/// The reference agreement family: its Redis (if any) and what it could run of the cases that
/// need one.
pub(super) struct Agreement<'o> {
    redis: Option<&'o (String, std::time::Duration)>,
    /// Run the power pairs of the cases with their recorded content too ([`super::Options`]).
    every_pair: bool,
    redis_cases: AtomicUsize,
    redis_run: AtomicUsize,
    /// Recorded (variant, case) pairs of a Redis case that had to run (the case's content is not
    /// the recorded one, or the suite is of a later version) but did not: no Redis was given, or
    /// the connection failed. Their catch was not checked.
    redis_pairs_missed: AtomicUsize,
    /// BQ318, BQ319 and BQ320 findings, each with where its case, rule or schema lies, judged
    /// once every other finding is in ([`Agreement::changes`]).
    changed: std::sync::Mutex<Vec<(Finding, suite::content::Content)>>,
}

impl<'o> Agreement<'o> {
    pub fn new(redis: Option<&'o (String, std::time::Duration)>, every_pair: bool) -> Self {
        Self {
            redis,
            every_pair,
            redis_cases: AtomicUsize::new(0),
            redis_run: AtomicUsize::new(0),
            redis_pairs_missed: AtomicUsize::new(0),
            changed: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// One task: chunk `n` of the cases (in a fixed order: the sections in manifest order,
    /// each cut into chunks of [`CHUNK`] cases), run through a reference core of its own, its
    /// findings added to `out`. False when there is no chunk `n`.
    pub fn chunk(&self, reads: &[&Read<'_>], n: usize, out: &mut Vec<Finding>) -> bool {
        let mut n = n;
        let Some((read, first)) = reads.iter().find_map(|read| {
            let chunks = read.cases.len().div_ceil(CHUNK);
            if n < chunks {
                Some((read, n * CHUNK))
            } else {
                n -= chunks;
                None
            }
        }) else {
            return false;
        };
        // The chunk's own link connects on its first Redis case, if it has one.
        let link = Rc::new(match self.redis {
            Some((url, timeout)) => RedisLink::with_timeout(Some(url), Required::No, *timeout).quiet(),
            None => RedisLink::new(None, Required::No),
        });
        let redis_runs = self.redis.is_some();
        let mut sdk = ReferenceSdk::with_redis(link.clone()).deterministic();
        let mut cx = RunCx { sdk: &mut sdk, redis: &link };
        for i in first..(first + CHUNK).min(read.cases.len()) {
            let needs_redis = match read.cases.needs(i) {
                Some(Needs::Nothing) => false,
                Some(Needs::Redis) => {
                    self.redis_cases.fetch_add(1, Ordering::Relaxed);
                    if !redis_runs {
                        continue;
                    }
                    true
                }
                None => continue,
            };
            let outcome = read.cases.run(i, &mut cx);
            if needs_redis {
                if outcome.status == Status::Skip {
                    // No Redis after all: not run (the caller says so), not a disagreement.
                    continue;
                }
                self.redis_run.fetch_add(1, Ordering::Relaxed);
            }
            if outcome.status != Status::Pass {
                let case = read.cases.case(i);
                out.push(at(
                    Code::REFERENCE_DISAGREES,
                    format!(
                        "the reference core does not pass {}/{}: {}",
                        read.section.name,
                        case.id,
                        outcome.reason.unwrap_or_default()
                    ),
                    case.pointer.clone(),
                ));
            }
        }
        true
    }

    /// The power task of `read` (BQ316, BQ317, BQ318): each case the recorded power
    /// ([`sections::power::recorded`]) says a broken variant fails runs once with that variant
    /// switched on, and must not pass; on a suite of the recording's version or later, each
    /// such case must exist (BQ316), and so must each case it lists as failed by no variant
    /// (BQ317); on a suite of the recording's version itself, each recorded case's content is
    /// compared with its fingerprint (BQ318, kept for [`Agreement::changes`]). `texts` locates
    /// the sections in the manifest, once for all the tasks.
    pub fn power<'s>(
        &self,
        suite: &'s Suite,
        texts: &OnceLock<suite::content::Texts<'s>>,
        read: &Read<'_>,
        out: &mut Vec<Finding>,
    ) {
        let power = sections::power::recorded();
        let version = suite.version().and_then(|v| semver::Version::parse(v).ok()).map(|v| sections::version_of(&v));
        let recorded = sections::version_of(&power.suite);
        if version.is_none_or(|v| v < recorded) {
            return;
        }
        let ids: std::collections::HashMap<&str, usize> =
            (0..read.cases.len()).map(|i| (read.cases.case(i).id.as_str(), i)).collect();
        // A case no variant fails must exist all the same (BQ317); gone with its block is the
        // block's finding, as for BQ316.
        let gone = power
            .unprotected_of(read.section.name)
            .filter(|id| !ids.contains_key(id) && container_intact(read.section.block, id));
        for id in gone {
            out.push(at(
                Code::RECORDED_CASE_GONE,
                format!(
                    "{}/{id} is gone, and it is a case of the recorded suite {}: published cases stay (decisions R1); \
                     no broken variant fails it, so only its presence holds an SDK to what it tests",
                    read.section.name, power.suite
                ),
                pointer::join("", read.section.name),
            ));
        }
        // On a suite of the recorded version itself, every recorded case keeps its content
        // (BQ318); judged at the end ([`Agreement::changes`]). A case that has it needs none of
        // its pairs run again: see the module doc.
        let recorded_content = if suite.version().is_some_and(|v| power.holds(v)) {
            self.content(texts.get_or_init(|| suite::content::Texts::of(suite)), read)
        } else {
            std::collections::HashSet::new()
        };
        let mut pairs = power.of_section(read.section.name).peekable();
        if pairs.peek().is_none() {
            return;
        }
        let link = Rc::new(match self.redis {
            Some((url, timeout)) => RedisLink::with_timeout(Some(url), Required::No, *timeout).quiet(),
            None => RedisLink::new(None, Required::No),
        });
        // One reference core for the task, as the agreement has one per chunk.
        let mut sdk = ReferenceSdk::with_redis(link.clone()).deterministic();
        let mut cx = RunCx { sdk: &mut sdk, redis: &link };
        let mut gone = std::collections::BTreeMap::<&str, Vec<&str>>::new();
        for pair in pairs {
            let (variant, id) = (pair.variant, pair.id.as_str());
            let Some(&i) = ids.get(id) else {
                // Gone from a block that is itself missing or malformed is that block's finding
                // (BQ313, BQ305), not one per case.
                if container_intact(read.section.block, id) {
                    gone.entry(id).or_default().push(variant.name());
                }
                continue;
            };
            if !self.every_pair && recorded_content.contains(read.cases.case(i).pointer.as_str()) {
                // The recording says how this pair comes out on this content.
                continue;
            }
            let needs_redis = match read.cases.needs(i) {
                Some(Needs::Nothing) => false,
                Some(Needs::Redis) if self.redis.is_some() => true,
                Some(Needs::Redis) => {
                    // Offline: its catch is not checked, and the caller is told how many.
                    self.redis_pairs_missed.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                // Unreadable: another finding says so.
                None => continue,
            };
            if super::cases::vacuous(read.cases.case(i).value).next().is_some() {
                // An emptied expectation is BQ308's, at the field.
                continue;
            }
            let outcome = with_broken(variant, || read.cases.run(i, &mut cx));
            if needs_redis && outcome.status == Status::Skip {
                // The Redis went away: not checked, and the caller is told (never a finding).
                self.redis_pairs_missed.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            // A case the reference does not pass either is the agreement's finding (BQ311).
            if outcome.status == Status::Pass && read.cases.run(i, &mut cx).status == Status::Pass {
                out.push(at(
                    Code::CATCH_LOST,
                    format!(
                        "{}/{id} no longer catches the broken variant {} ({}): the reference core with that fault \
                         passes it, so an SDK with that bug would too",
                        read.section.name,
                        variant.name(),
                        variant.breaks()
                    ),
                    read.cases.case(i).pointer.clone(),
                ));
            }
        }
        for (id, variants) in gone {
            out.push(at(
                Code::CATCH_LOST,
                format!(
                    "{}/{id} is gone, and it caught the broken variant(s) {}: the suite no longer shows it catches them there",
                    read.section.name,
                    variants.join(", ")
                ),
                pointer::join("", read.section.name),
            ));
        }
    }

    /// BQ318 for each case of `read` whose content differs from its recorded fingerprint, kept
    /// for [`Agreement::changes`]; returns the pointers of the cases whose content is the
    /// recorded one.
    fn content<'r>(&self, texts: &suite::content::Texts<'_>, read: &'r Read<'_>) -> std::collections::HashSet<&'r str> {
        let mut same = std::collections::HashSet::new();
        let recorded: std::collections::HashMap<&str, &str> =
            sections::power::recorded().content_of(read.section.name).collect();
        if recorded.is_empty() {
            return same;
        }
        let cases = (0..read.cases.len()).map(|i| read.cases.case(i));
        let mut changed = Vec::new();
        for (case, was, content) in suite::content::against_recorded(texts, &read.section, cases, &recorded) {
            // A case whose text cannot be found is another finding's (the manifest's).
            let Some(content) = content else { continue };
            let print = &content.print;
            if print == was {
                same.insert(case.pointer.as_str());
            } else {
                let finding = at(
                    Code::RECORDED_CASE_CHANGED,
                    format!(
                        "{}/{} differs from the case of the recorded suite {} (content {print}, recorded {was}): its data, \
                         its block's shared fields or a fixture they name changed, and no broken variant shows whether it \
                         still tests what it did; in the suite's own repository an edit to a case before the version's tag \
                         comes with a new recording (bqsuite dev kill-matrix --redis-url URL --record \
                         src/sections/power.json), whose diff shows it; a vendored copy is restored with \
                         bqsuite fetch",
                        read.section.name,
                        case.id,
                        sections::power::recorded().suite
                    ),
                    case.pointer.clone(),
                );
                changed.push((finding, content));
            }
        }
        if !changed.is_empty() {
            self.changed.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend(changed);
        }
        same
    }

    /// On a suite of the recorded version itself, what the recording pins besides the cases,
    /// kept for [`Agreement::changes`] like BQ318: BQ320 for each schema file whose bytes differ
    /// from its recorded fingerprint (a missing one is BQ003's); BQ319 for each rule of the skip
    /// policy whose content differs, that the recording does not have, or that the recording has
    /// and the policy no longer does. A rule without a string name, and a policy that is missing
    /// or has no `rules` array, are the skip-policy family's findings (BQ208, BQ209).
    pub fn pinned<'s>(&self, suite: &'s Suite, texts: &OnceLock<suite::content::Texts<'s>>) {
        let power = sections::power::recorded();
        if !suite.version().is_some_and(|v| power.holds(v)) {
            return;
        }
        let texts = texts.get_or_init(|| suite::content::Texts::of(suite));
        let mut changed = Vec::new();
        for (rel, print) in suite::content::schemas(texts) {
            let Some(was) = power.schemas.get(&rel).filter(|was| **was != print) else { continue };
            let finding = Finding::error(
                Code::RECORDED_SCHEMA_CHANGED,
                format!(
                    "differs from the schema of the recorded suite {} (content {print}, recorded {was}): every SDK \
                     compiles it, and its copies are byte-identical; in the suite's own repository a change to a \
                     schema before the version's tag comes with a new recording (bqsuite dev kill-matrix --redis-url \
                     URL --record src/sections/power.json), whose diff shows it; a vendored copy is restored with \
                     bqsuite fetch",
                    power.suite
                ),
            )
            .in_file(rel.clone());
            let content =
                suite::content::Content { print, pointers: Vec::new(), holders: Vec::new(), fixtures: vec![rel] };
            changed.push((finding, content));
        }
        if let Some(rules) = suite::content::rules(texts) {
            self.policy(power, rules, &mut changed);
        }
        if !changed.is_empty() {
            self.changed.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend(changed);
        }
    }

    /// BQ319 for the skip policy's `rules` ([`Agreement::pinned`]).
    fn policy(
        &self,
        power: &sections::power::Power,
        rules: Vec<suite::content::Rule>,
        changed: &mut Vec<(Finding, suite::content::Content)>,
    ) {
        let again = "in the suite's own repository a change to the skip policy before the version's tag comes with a \
                     new recording (bqsuite dev kill-matrix --redis-url URL --record src/sections/power.json), whose \
                     diff shows it; a vendored copy is restored with bqsuite fetch";
        // A rule without a string name is BQ209's, and may be a recorded rule renamed wrongly:
        // no recorded rule is then called gone. Of two rules with one name (BQ214) the later.
        let nameless = rules.iter().any(|r| r.name.is_none());
        let by_name: std::collections::BTreeMap<String, suite::content::Content> =
            rules.into_iter().filter_map(|r| Some((r.name?, r.content))).collect();
        let now = by_name.iter().map(|(name, c)| (name.clone(), c.print.clone())).collect();
        let rules_at = pointer::join(&pointer::join("", suite::skip_policy::KEY), "rules");
        for name in suite::pins::differing(&now, &power.policy) {
            let (finding, content) = match (by_name.get(name), power.policy.get(name)) {
                (Some(content), Some(was)) => (
                    format!(
                        "skip_policy rule {name} differs from the rule of the recorded suite {} (content {}, recorded \
                         {was}): which cases it lets a run skip, citing which ADRs, under which condition or for \
                         whom changed, and results check judges every skip by it; {again}",
                        power.suite, content.print
                    ),
                    content.clone(),
                ),
                (Some(content), None) => (
                    format!(
                        "skip_policy rule {name} is not a rule of the recorded suite {}: a new rule lets results \
                         files skip cases the recorded policy held them to run, and still be Compatible; {again}",
                        power.suite
                    ),
                    content.clone(),
                ),
                (None, _) if nameless => continue,
                (None, _) => (
                    format!(
                        "skip_policy rule {name} of the recorded suite {} is gone: a published rule no longer lets a \
                         run skip what it did, so results files that were Compatible are not; {again}",
                        power.suite
                    ),
                    suite::content::Content {
                        print: String::new(),
                        pointers: Vec::new(),
                        holders: vec![pointer::join("", suite::skip_policy::KEY), rules_at.clone()],
                        fixtures: Vec::new(),
                    },
                ),
            };
            let at_rule = content.pointers.first().cloned().unwrap_or_else(|| rules_at.clone());
            changed.push((at(Code::RECORDED_POLICY_CHANGED, finding, at_rule), content));
        }
    }

    /// The BQ318, BQ319 and BQ320 findings that no finding of `others` is about already (one problem, one
    /// finding): none in the manifest at or under the case's pointer or one of its shared
    /// fields' (the reference disagrees, a catch is lost, a field does not read), none at the
    /// block or section that holds its shared fields (a shared field missing), and none in a
    /// fixture it names (a fixture that does not parse or breaks a rule).
    pub fn changes(&self, others: &[Finding]) -> Vec<Finding> {
        let changed = std::mem::take(&mut *self.changed.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        if changed.is_empty() {
            return Vec::new();
        }
        let mut pointers = std::collections::BTreeSet::new();
        let mut files = std::collections::BTreeSet::new();
        // A repeated key (BQ007) leaves the content read, as every fingerprint reads it, the last
        // value: not a finding about what the case holds, so the change is still said (a
        // loosened case in the copy a runner keeps was hidden behind it, red team of stop 50).
        for f in others.iter().filter(|f| f.code != Code::DUPLICATE_KEY) {
            match (f.file.as_deref(), f.pointer.as_deref()) {
                (Some(MANIFEST), Some(p)) => {
                    pointers.insert(p);
                }
                (Some(file), _) => {
                    files.insert(file);
                }
                _ => {}
            }
        }
        let about = |p: &str| pointers.range(p..).take_while(|q| q.starts_with(p)).any(|q| pointer::at_or_under(q, p));
        changed
            .into_iter()
            .filter(|(_, c)| {
                !c.pointers.iter().any(|p| about(p))
                    && !c.holders.iter().any(|p| pointers.contains(p.as_str()))
                    && !c.fixtures.iter().any(|f| files.contains(f.as_str()))
            })
            .map(|(f, _)| f)
            .collect()
    }

    /// The cases that need a live Redis, and how many of them ran.
    pub fn coverage(&self) -> super::RedisCoverage {
        super::RedisCoverage {
            cases: self.redis_cases.load(Ordering::Relaxed),
            run: self.redis_run.load(Ordering::Relaxed),
            pairs_missed: self.redis_pairs_missed.load(Ordering::Relaxed),
        }
    }
}
