//! The case languages of the Redis sections, parsed once into types: the `redis_layout` key-name
//! cases, its behavioural blocks, and the `redis_delay` cases. The runner executes what this
//! module parses and `validate` reports what it refuses, so both read the manifest the same way.
//!
//! The layouts and key roles are the SDK interface's vocabulary
//! ([`crate::sdk::wire::RedisLayout`], [`crate::sdk::wire::RedisRole`]), with the judge's own
//! reading of them in [`super`] (which roles a layout has, which keys are sorted sets).
//!
//! Invariants: parsing never panics and reports every problem it finds (not just the first),
//! each with an RFC 6901 pointer relative to the case and a [`Problem`] kind; a case that parses
//! is internally consistent (every body, reservation and token it names is defined before it is
//! used, every op and key exists in its layout, every expectation fits its op); unknown fields
//! are ignored by [`parse_layout_case`] (runners ignore fields they do not know) and reported
//! only by [`lint_layout_case`], which `validate` runs so the suite itself carries no typos.
//!
//! The behavioural case language (also stated in the manifest's `redis_layout` description):
//!
//! ```text
//! case   = {name, layout: "zset"|"processing", queue?: string (default "orders"),
//!           retry_after?: int ≥ 0 | null (default 60), bodies: {<name>: <exact body text>},
//!           state?: {<key>: [item]}, steps: [step], expect?: expect}
//! step   = {now: number, op, retry_after?, expect?: expect, …op fields}
//! op     = push {body} | push_delayed {body, delay} | migrate | sweep | reserve {as?}
//!        | release {reservation, delay?} | ack {reservation}
//!        | dead_letter {reservation, reason?: "failed"|"unknown_urn", error?: string}
//! expect = {<key>_count: int, <key>: [item], handed: body-name|null, poison: body-name,
//!           moved: int, orphaned: int, malformed: int, applied: bool}
//! item   = body-name | {body, score?} | {raw, score?} | {token, body, score?}
//!        | {like: body-name, attempts, score?} | {json, score?} | {record_of: body-name, reason}
//!        | {series: prefix, count, score?}   (state only)
//! score  = integer | "+inf"
//! ```

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use serde_json::{Map, Value};

use super::{is_sorted_set, parse_layout, parse_role, roles};
use crate::sdk::wire::{RedisLayout as LayoutKind, RedisRole as Role};
use crate::suite::pointer;

/// What is wrong with a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Problem {
    /// `layout` is not `zset` or `processing`.
    UnknownLayout,
    /// `op` is not one of the DSL's ops.
    UnknownOp,
    /// A step has no numeric `now`.
    StepWithoutNow,
    /// An op, a key or a field that the case's layout does not have.
    NotInLayout,
    /// A body name that `bodies` does not define.
    UnknownBody,
    /// A reservation or token no earlier step or state binds.
    UnknownReservation,
    /// An expectation or state entry of the wrong shape (or an unknown expectation key).
    ExpectShape,
    /// `retry_after` is neither a non-negative integer nor null.
    BadRetryAfter,
    /// The case itself has the wrong shape (a missing or mistyped field).
    CaseShape,
}

/// One problem, where it is (pointer relative to the case), and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DslError {
    pub problem: Problem,
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for DslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

/// All problems in one line, for a failure reason.
pub fn describe(errors: &[DslError]) -> String {
    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// The ops of the DSL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    Push,
    PushDelayed,
    Migrate,
    Sweep,
    Reserve,
    Release,
    Ack,
    DeadLetter,
}

impl OpKind {
    const ALL: [OpKind; 8] = [
        OpKind::Push,
        OpKind::PushDelayed,
        OpKind::Migrate,
        OpKind::Sweep,
        OpKind::Reserve,
        OpKind::Release,
        OpKind::Ack,
        OpKind::DeadLetter,
    ];

    /// The manifest spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Push => "push",
            OpKind::PushDelayed => "push_delayed",
            OpKind::Migrate => "migrate",
            OpKind::Sweep => "sweep",
            OpKind::Reserve => "reserve",
            OpKind::Release => "release",
            OpKind::Ack => "ack",
            OpKind::DeadLetter => "dead_letter",
        }
    }

    fn parse(s: &str) -> Option<OpKind> {
        Self::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// Does `layout` have this op?
    pub fn exists_in(self, layout: LayoutKind) -> bool {
        match self {
            OpKind::PushDelayed | OpKind::Migrate => layout == LayoutKind::Zset,
            OpKind::Sweep => layout == LayoutKind::Processing,
            _ => true,
        }
    }

    /// The step fields this op reads (besides `now`, `op`, `retry_after`, `expect`).
    fn fields(self) -> &'static [&'static str] {
        match self {
            OpKind::Push => &["body"],
            OpKind::PushDelayed => &["body", "delay"],
            OpKind::Migrate | OpKind::Sweep => &[],
            OpKind::Reserve => &["as"],
            OpKind::Release => &["reservation", "delay"],
            OpKind::Ack => &["reservation"],
            OpKind::DeadLetter => &["reservation", "reason", "error"],
        }
    }

    /// The result expectations a step of this op may carry.
    fn results(self) -> &'static [&'static str] {
        match self {
            OpKind::Reserve => &["handed", "poison"],
            OpKind::Migrate => &["moved"],
            OpKind::Sweep => &["moved", "orphaned", "malformed"],
            OpKind::Release | OpKind::Ack | OpKind::DeadLetter => &["applied"],
            OpKind::Push | OpKind::PushDelayed => &[],
        }
    }
}

/// A zset score: integer seconds or `+inf`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreSpec {
    At(i64),
    Inf,
}

impl ScoreSpec {
    /// The score as a float, as Redis reports it.
    pub fn as_f64(self) -> f64 {
        match self {
            ScoreSpec::At(s) => s as f64,
            ScoreSpec::Inf => f64::INFINITY,
        }
    }
}

impl fmt::Display for ScoreSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScoreSpec::At(s) => write!(f, "{s}"),
            ScoreSpec::Inf => f.write_str("+inf"),
        }
    }
}

/// One element of a list or member of a sorted set, as state to write or as an expectation.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// Exactly the bytes of a named body.
    Body { body: String, score: Option<ScoreSpec> },
    /// Exactly this text.
    Raw { raw: String, score: Option<ScoreSpec> },
    /// `<token>:<body bytes>` where the token is 32 lowercase hex (and, for a bound symbol, the
    /// one bound to it).
    Token { token: String, body: String, score: Option<ScoreSpec> },
    /// As parsed JSON: the named body with `/attempts` set to `attempts` (a body that went
    /// through cjson or the core's re-encoding).
    Like { like: String, attempts: u64, score: Option<ScoreSpec> },
    /// As parsed JSON: this value.
    Json { json: Value, score: Option<ScoreSpec> },
    /// A dead-letter record of the named body with this `dead_letter.reason`.
    RecordOf { record_of: String, reason: String },
    /// State only: `count` generated members `<series>0` … `<series><count-1>` (in
    /// `deadlines`, each behind a fresh token), for cases that need more than one chunk.
    Series { series: String, count: u64, score: Option<ScoreSpec> },
}

impl Item {
    /// The item's score, if it names one.
    pub fn score(&self) -> Option<ScoreSpec> {
        match self {
            Item::Body { score, .. }
            | Item::Raw { score, .. }
            | Item::Token { score, .. }
            | Item::Like { score, .. }
            | Item::Json { score, .. }
            | Item::Series { score, .. } => *score,
            Item::RecordOf { .. } => None,
        }
    }
}

/// What a step or the whole case expects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expect {
    /// reserve: the body handed to the handler (`Some(None)`: nothing was reserved).
    pub handed: Option<Option<String>>,
    /// reserve: the body reported as poison.
    pub poison: Option<String>,
    /// migrate / sweep: items moved back to the ready list.
    pub moved: Option<u64>,
    /// sweep: orphaned members removed.
    pub orphaned: Option<u64>,
    /// sweep: malformed members removed.
    pub malformed: Option<u64>,
    /// release / ack / dead_letter: did the gate open?
    pub applied: Option<bool>,
    /// `<key>_count` expectations.
    pub counts: Vec<(Role, u64)>,
    /// `<key>` content expectations (lists in order; sorted sets in any order).
    pub contents: Vec<(Role, Vec<Item>)>,
}

/// What to reserve-address in a release, ack or dead-letter.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Push { body: String },
    PushDelayed { body: String, delay: f64 },
    Migrate,
    Sweep,
    Reserve { bind: Option<String> },
    Release { reservation: String, delay: f64 },
    Ack { reservation: String },
    DeadLetter { reservation: String, reason: String, error: Option<String> },
}

/// One step.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub now: f64,
    pub op: Op,
    /// This step's consumer overrides the case's `retry_after` (`Some(None)` = null).
    pub retry_after: Option<Option<u64>>,
    pub expect: Expect,
}

/// A behavioural case of `redis_layout`.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutCase {
    pub layout: LayoutKind,
    pub queue: String,
    /// The consumer's reservation timeout (`None` = null = never).
    pub retry_after: Option<u64>,
    pub bodies: BTreeMap<String, String>,
    pub state: Vec<(Role, Vec<Item>)>,
    pub steps: Vec<Step>,
    pub expect: Expect,
}

impl LayoutCase {
    /// The exact text of a named body (parsing guarantees it exists).
    pub fn body(&self, name: &str) -> &str {
        self.bodies.get(name).map_or("", String::as_str)
    }
}

/// A key-name case of `redis_layout.cases`.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyNamesCase {
    pub layout: LayoutKind,
    pub queue: String,
    pub keys: Vec<(Role, String)>,
}

/// A `redis_delay` case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DelayCase {
    pub now: f64,
    pub delay: f64,
    pub expected_score: i64,
}

/// The default queue name of a behavioural case.
pub const DEFAULT_QUEUE: &str = "orders";
/// The default `retry_after` of a behavioural case (Laravel's).
pub const DEFAULT_RETRY_AFTER: u64 = 60;

#[derive(Default)]
struct Errors(Vec<DslError>);

impl Errors {
    fn add(&mut self, problem: Problem, pointer: impl Into<String>, message: impl Into<String>) {
        self.0.push(DslError { problem, pointer: pointer.into(), message: message.into() });
    }

    fn finish<T>(self, value: Option<T>) -> Result<T, Vec<DslError>> {
        match value {
            Some(v) if self.0.is_empty() => Ok(v),
            _ => Err(self.0),
        }
    }
}

fn key_ptr(at: &str, key: &str) -> String {
    pointer::join(at, key)
}

fn finite_number(v: &Value) -> Option<f64> {
    v.as_f64().filter(|f| f.is_finite())
}

fn non_negative_integer(v: &Value) -> Option<u64> {
    v.as_u64()
}

fn string_field<'v>(
    o: &'v Map<String, Value>,
    at: &str,
    key: &str,
    problem: Problem,
    errs: &mut Errors,
) -> Option<&'v str> {
    match o.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        Some(_) => {
            errs.add(problem, key_ptr(at, key), format!("{key:?} must be a non-empty string"));
            None
        }
        None => {
            errs.add(problem, at.to_owned(), format!("missing {key:?}"));
            None
        }
    }
}

fn retry_after(v: &Value, at: &str, errs: &mut Errors) -> Option<Option<u64>> {
    match v {
        Value::Null => Some(None),
        v => match non_negative_integer(v) {
            Some(n) => Some(Some(n)),
            None => {
                errs.add(Problem::BadRetryAfter, at, "retry_after must be a non-negative integer (seconds) or null");
                None
            }
        },
    }
}

fn layout_field(o: &Map<String, Value>, errs: &mut Errors) -> Option<LayoutKind> {
    let name = string_field(o, "", "layout", Problem::CaseShape, errs)?;
    let layout = parse_layout(name);
    if layout.is_none() {
        errs.add(Problem::UnknownLayout, "/layout", format!("unknown layout {name:?} (zset or processing)"));
    }
    layout
}

/// What the parser knows while it walks a case in order.
struct Scope<'a> {
    layout: Option<LayoutKind>,
    bodies: &'a BTreeMap<String, String>,
    /// Reservation names bound so far.
    reservations: HashSet<String>,
    /// Token symbols bound so far (seeded deadline tokens, and reservations in `processing`).
    tokens: HashSet<String>,
}

impl Scope<'_> {
    fn body(&self, name: &str, at: String, errs: &mut Errors) {
        if !self.bodies.contains_key(name) {
            errs.add(Problem::UnknownBody, at, format!("no body named {name:?} in \"bodies\""));
        }
    }

    fn key(&self, key: Role, at: String, errs: &mut Errors) -> bool {
        match self.layout {
            Some(l) if !roles(l).contains(&key) => {
                errs.add(Problem::NotInLayout, at, format!("the {} layout has no {:?} key", l.as_str(), key.as_str()));
                false
            }
            _ => true,
        }
    }
}

fn score(v: Option<&Value>, at: &str, errs: &mut Errors) -> Option<ScoreSpec> {
    match v? {
        Value::String(s) if s == "+inf" => Some(ScoreSpec::Inf),
        v => match v.as_i64() {
            Some(n) => Some(ScoreSpec::At(n)),
            None => {
                errs.add(Problem::ExpectShape, key_ptr(at, "score"), "score must be an integer or \"+inf\"");
                None
            }
        },
    }
}

/// Which item forms a place accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    State,
    Expect,
}

fn item(v: &Value, key: Role, place: Place, at: &str, scope: &Scope<'_>, errs: &mut Errors) -> Option<Item> {
    let shape = |errs: &mut Errors, msg: String| {
        errs.add(Problem::ExpectShape, at.to_owned(), msg);
        None
    };
    let obj = match v {
        Value::String(name) => {
            scope.body(name, at.to_owned(), errs);
            if place == Place::State && is_sorted_set(key) {
                return shape(errs, format!("a {} state item needs a score", key.as_str()));
            }
            return Some(Item::Body { body: name.clone(), score: None });
        }
        Value::Object(o) => o,
        _ => return shape(errs, "an item is a body name or an object".into()),
    };
    let score = score(obj.get("score"), at, errs);
    if obj.contains_key("score") && !is_sorted_set(key) {
        return shape(errs, format!("{} is a list: its items have no score", key.as_str()));
    }
    if place == Place::State && is_sorted_set(key) && score.is_none() {
        return shape(errs, format!("a {} state item needs a score", key.as_str()));
    }
    let name = |field: &str, errs: &mut Errors| -> Option<String> {
        match obj.get(field) {
            Some(Value::String(n)) => {
                scope.body(n, key_ptr(at, field), errs);
                Some(n.clone())
            }
            _ => {
                errs.add(Problem::ExpectShape, key_ptr(at, field), format!("{field:?} must name a body"));
                None
            }
        }
    };
    let concrete = place == Place::State;
    if obj.contains_key("token") {
        if key != Role::Deadlines {
            return shape(errs, "only deadlines members carry a token".into());
        }
        let Some(Value::String(token)) = obj.get("token") else {
            return shape(errs, "\"token\" must be a string".into());
        };
        if place == Place::Expect && !scope.tokens.contains(token) {
            errs.add(Problem::UnknownReservation, key_ptr(at, "token"), format!("token {token:?} is not bound yet"));
        }
        return Some(Item::Token { token: token.clone(), body: name("body", errs)?, score });
    }
    if let Some(series) = obj.get("series") {
        let (Some(series), Some(count)) = (series.as_str(), obj.get("count").and_then(non_negative_integer)) else {
            return shape(errs, "a series item is {series: prefix, count: 1..=10000}".into());
        };
        if !concrete || !(1..=10_000).contains(&count) {
            return shape(errs, "a series item (state only) has a count of 1..=10000".into());
        }
        return Some(Item::Series { series: series.to_owned(), count, score });
    }
    if obj.contains_key("record_of") {
        if key != Role::Dlq || concrete {
            return shape(errs, "record_of is a dlq expectation".into());
        }
        let reason = match obj.get("reason") {
            Some(Value::String(r)) if ["failed", "unknown_urn", "poison"].contains(&r.as_str()) => r.clone(),
            _ => return shape(errs, "a record_of item needs reason failed, unknown_urn or poison".into()),
        };
        return Some(Item::RecordOf { record_of: name("record_of", errs)?, reason });
    }
    if obj.contains_key("like") {
        if concrete {
            return shape(errs, "state items are exact: body, raw or token".into());
        }
        let Some(attempts) = obj.get("attempts").and_then(non_negative_integer) else {
            return shape(errs, "a like item needs a non-negative integer attempts".into());
        };
        return Some(Item::Like { like: name("like", errs)?, attempts, score });
    }
    if let Some(json) = obj.get("json") {
        if concrete {
            return shape(errs, "state items are exact: body, raw or token".into());
        }
        return Some(Item::Json { json: json.clone(), score });
    }
    if let Some(raw) = obj.get("raw") {
        let Some(raw) = raw.as_str() else {
            return shape(errs, "\"raw\" must be a string".into());
        };
        return Some(Item::Raw { raw: raw.to_owned(), score });
    }
    if obj.contains_key("body") {
        return Some(Item::Body { body: name("body", errs)?, score });
    }
    shape(errs, "an item object needs one of body, raw, token, like, json, record_of, series".into())
}

fn items(v: &Value, key: Role, place: Place, at: &str, scope: &Scope<'_>, errs: &mut Errors) -> Option<Vec<Item>> {
    let Some(arr) = v.as_array() else {
        errs.add(Problem::ExpectShape, at, format!("{} must be an array of items", key.as_str()));
        return None;
    };
    let parsed: Vec<_> =
        arr.iter().enumerate().map(|(i, v)| item(v, key, place, &pointer::join_index(at, i), scope, errs)).collect();
    parsed.into_iter().collect()
}

/// Split an expectation key into a layout key and whether it is a count.
fn expect_key(k: &str) -> Option<(Role, bool)> {
    match k.strip_suffix("_count") {
        Some(base) => parse_role(base).map(|key| (key, true)),
        None => parse_role(k).filter(|key| *key != Role::Notify).map(|key| (key, false)),
    }
}

fn expect(v: &Value, op: Option<OpKind>, at: &str, scope: &Scope<'_>, errs: &mut Errors) -> Expect {
    let mut e = Expect::default();
    let Some(o) = v.as_object() else {
        errs.add(Problem::ExpectShape, at, "expect must be an object");
        return e;
    };
    let results = op.map_or(&[][..], OpKind::results);
    for (k, v) in o {
        let ptr = key_ptr(at, k);
        if let Some((key, count)) = expect_key(k) {
            if !scope.key(key, ptr.clone(), errs) {
                continue;
            }
            if count {
                match non_negative_integer(v) {
                    Some(n) => e.counts.push((key, n)),
                    None => errs.add(Problem::ExpectShape, ptr, format!("{k} must be a non-negative integer")),
                }
            } else if let Some(list) = items(v, key, Place::Expect, &ptr, scope, errs) {
                e.contents.push((key, list));
            }
            continue;
        }
        if !results.contains(&k.as_str()) {
            continue; // unknown keys: lint reports them, the runner ignores them
        }
        let bad =
            |errs: &mut Errors, what: &str| errs.add(Problem::ExpectShape, ptr.clone(), format!("{k} must be {what}"));
        match k.as_str() {
            "handed" => match v {
                Value::Null => e.handed = Some(None),
                Value::String(n) => {
                    scope.body(n, ptr.clone(), errs);
                    e.handed = Some(Some(n.clone()));
                }
                _ => bad(errs, "a body name or null"),
            },
            "poison" => match v {
                Value::String(n) => {
                    scope.body(n, ptr.clone(), errs);
                    e.poison = Some(n.clone());
                }
                _ => bad(errs, "a body name"),
            },
            "applied" => match v.as_bool() {
                Some(b) => e.applied = Some(b),
                None => bad(errs, "a boolean"),
            },
            count => match non_negative_integer(v) {
                Some(n) if count == "moved" => e.moved = Some(n),
                Some(n) if count == "orphaned" => e.orphaned = Some(n),
                Some(n) => e.malformed = Some(n),
                None => bad(errs, "a non-negative integer"),
            },
        }
    }
    if e.handed.is_some() && e.poison.is_some() {
        errs.add(Problem::ExpectShape, at, "a reserve hands out a message or reports poison, not both");
    }
    e
}

fn reservation(o: &Map<String, Value>, at: &str, scope: &Scope<'_>, errs: &mut Errors) -> Option<String> {
    let name = string_field(o, at, "reservation", Problem::CaseShape, errs)?;
    if !scope.reservations.contains(name) {
        errs.add(
            Problem::UnknownReservation,
            key_ptr(at, "reservation"),
            format!("no earlier reserve step binds {name:?} (\"as\")"),
        );
    }
    Some(name.to_owned())
}

fn step(v: &Value, at: &str, scope: &mut Scope<'_>, errs: &mut Errors) -> Option<Step> {
    let Some(o) = v.as_object() else {
        errs.add(Problem::CaseShape, at, "a step must be an object");
        return None;
    };
    let now = o.get("now").and_then(finite_number);
    if now.is_none() {
        errs.add(Problem::StepWithoutNow, at, "every step needs \"now\" (epoch seconds, a finite number)");
    }
    let kind = match o.get("op") {
        Some(Value::String(s)) => {
            let k = OpKind::parse(s);
            if k.is_none() {
                errs.add(Problem::UnknownOp, key_ptr(at, "op"), format!("unknown op {s:?}"));
            }
            k
        }
        _ => {
            errs.add(Problem::UnknownOp, at, "a step needs an \"op\" string");
            None
        }
    };
    let kind = kind?;
    if let Some(l) = scope.layout.filter(|l| !kind.exists_in(*l)) {
        errs.add(
            Problem::NotInLayout,
            key_ptr(at, "op"),
            format!("the {} layout has no {} op", l.as_str(), kind.as_str()),
        );
    }
    let retry_override = match o.get("retry_after") {
        None => None,
        Some(v) => retry_after(v, &key_ptr(at, "retry_after"), errs),
    };
    let body = |errs: &mut Errors| -> Option<String> {
        let name = string_field(o, at, "body", Problem::CaseShape, errs)?;
        scope.body(name, key_ptr(at, "body"), errs);
        Some(name.to_owned())
    };
    let delay = |required: bool, errs: &mut Errors| -> Option<f64> {
        match o.get("delay") {
            Some(v) => finite_number(v).or_else(|| {
                errs.add(Problem::CaseShape, key_ptr(at, "delay"), "delay must be a finite number of seconds");
                None
            }),
            None if required => {
                errs.add(Problem::CaseShape, at, "missing \"delay\"");
                None
            }
            None => Some(0.0),
        }
    };
    let op = match kind {
        OpKind::Push => Op::Push { body: body(errs)? },
        OpKind::PushDelayed => {
            let b = body(errs);
            Op::PushDelayed { body: b?, delay: delay(true, errs)? }
        }
        OpKind::Migrate => Op::Migrate,
        OpKind::Sweep => Op::Sweep,
        OpKind::Reserve => {
            let bind = match o.get("as") {
                None => None,
                Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                Some(_) => {
                    errs.add(Problem::CaseShape, key_ptr(at, "as"), "\"as\" must be a non-empty string");
                    None
                }
            };
            Op::Reserve { bind }
        }
        OpKind::Release => {
            let r = reservation(o, at, scope, errs);
            let d = delay(false, errs)?;
            if scope.layout == Some(LayoutKind::Processing) && d > 0.0 {
                errs.add(Problem::NotInLayout, key_ptr(at, "delay"), "the processing layout has no delayed set");
            }
            Op::Release { reservation: r?, delay: d }
        }
        OpKind::Ack => Op::Ack { reservation: reservation(o, at, scope, errs)? },
        OpKind::DeadLetter => {
            let r = reservation(o, at, scope, errs);
            let reason = match o.get("reason") {
                None => "failed".to_owned(),
                Some(Value::String(s)) if s == "failed" || s == "unknown_urn" => s.clone(),
                Some(_) => {
                    errs.add(Problem::CaseShape, key_ptr(at, "reason"), "reason must be failed or unknown_urn");
                    return None;
                }
            };
            let error = match o.get("error") {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => {
                    errs.add(Problem::CaseShape, key_ptr(at, "error"), "error must be a string");
                    return None;
                }
            };
            Op::DeadLetter { reservation: r?, reason, error }
        }
    };
    if let Op::Reserve { bind: Some(name) } = &op {
        scope.reservations.insert(name.clone());
        if scope.layout == Some(LayoutKind::Processing) {
            scope.tokens.insert(name.clone());
        }
    }
    let expect =
        o.get("expect").map(|v| expect(v, Some(kind), &key_ptr(at, "expect"), scope, errs)).unwrap_or_default();
    Some(Step { now: now?, op, retry_after: retry_override, expect })
}

/// Parse a behavioural case of `redis_layout`.
pub fn parse_layout_case(v: &Value) -> Result<LayoutCase, Vec<DslError>> {
    let mut errs = Errors::default();
    let Some(o) = v.as_object() else {
        errs.add(Problem::CaseShape, "", "a case must be an object");
        return Err(errs.0);
    };
    let layout = layout_field(o, &mut errs);
    let queue = match o.get("queue") {
        None => Some(DEFAULT_QUEUE.to_owned()),
        Some(_) => string_field(o, "", "queue", Problem::CaseShape, &mut errs).map(str::to_owned),
    };
    let retry = match o.get("retry_after") {
        None => Some(Some(DEFAULT_RETRY_AFTER)),
        Some(v) => retry_after(v, "/retry_after", &mut errs),
    };
    let mut bodies = BTreeMap::new();
    match o.get("bodies") {
        Some(Value::Object(m)) => {
            for (name, text) in m {
                match text.as_str() {
                    Some(t) => {
                        bodies.insert(name.clone(), t.to_owned());
                    }
                    None => errs.add(
                        Problem::CaseShape,
                        key_ptr("/bodies", name),
                        "a body is the exact text as a JSON string",
                    ),
                }
            }
        }
        None => {}
        Some(_) => errs.add(Problem::CaseShape, "/bodies", "bodies must be an object of name → body text"),
    }
    let mut scope = Scope { layout, bodies: &bodies, reservations: HashSet::new(), tokens: HashSet::new() };

    let mut state = Vec::new();
    match o.get("state") {
        None => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                let at = key_ptr("/state", k);
                let Some(key) = parse_role(k).filter(|k| *k != Role::Notify) else {
                    errs.add(Problem::ExpectShape, at, format!("{k:?} is not a key whose contents can be set"));
                    continue;
                };
                if !scope.key(key, at.clone(), &mut errs) {
                    continue;
                }
                if let Some(list) = items(v, key, Place::State, &at, &scope, &mut errs) {
                    for it in &list {
                        if let Item::Token { token, .. } = it {
                            scope.tokens.insert(token.clone());
                        }
                    }
                    state.push((key, list));
                }
            }
        }
        Some(_) => errs.add(Problem::CaseShape, "/state", "state must be an object of key → items"),
    }

    let mut steps = Vec::new();
    match o.get("steps") {
        Some(Value::Array(arr)) if !arr.is_empty() => {
            for (i, s) in arr.iter().enumerate() {
                if let Some(s) = step(s, &format!("/steps/{i}"), &mut scope, &mut errs) {
                    steps.push(s);
                }
            }
        }
        _ => errs.add(Problem::CaseShape, "", "a behavioural case needs a non-empty \"steps\" array"),
    }
    let expect = o.get("expect").map(|v| expect(v, None, "/expect", &scope, &mut errs)).unwrap_or_default();
    let case = match (layout, queue, retry) {
        (Some(layout), Some(queue), Some(retry_after)) => {
            Some(LayoutCase { layout, queue, retry_after, bodies: bodies.clone(), state, steps, expect })
        }
        _ => None,
    };
    errs.finish(case)
}

/// Expectation keys that [`parse_layout_case`] does not know (typos in the suite).
pub fn lint_layout_case(v: &Value) -> Vec<DslError> {
    let mut out = Vec::new();
    let check = |out: &mut Vec<DslError>, e: &Value, op: Option<OpKind>, at: &str| {
        let results = op.map_or(&[][..], OpKind::results);
        for k in e.as_object().into_iter().flat_map(|o| o.keys()) {
            if expect_key(k).is_none() && !results.contains(&k.as_str()) {
                let what = op.map_or("the final expect".to_owned(), |o| format!("a {} step", o.as_str()));
                out.push(DslError {
                    problem: Problem::ExpectShape,
                    pointer: key_ptr(at, k),
                    message: format!("{k:?} is not an expectation of {what}"),
                });
            }
        }
    };
    if let Some(e) = v.get("expect") {
        check(&mut out, e, None, "/expect");
    }
    for (i, s) in v.get("steps").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let op = s.get("op").and_then(Value::as_str).and_then(OpKind::parse);
        if let (Some(e), Some(op)) = (s.get("expect"), op) {
            check(&mut out, e, Some(op), &format!("/steps/{i}/expect"));
        }
        if let (Some(o), Some(op)) = (s.as_object(), op) {
            for k in o.keys() {
                if !["now", "op", "retry_after", "expect"].contains(&k.as_str()) && !op.fields().contains(&k.as_str()) {
                    out.push(DslError {
                        problem: Problem::CaseShape,
                        pointer: key_ptr(&format!("/steps/{i}"), k),
                        message: format!("a {} step has no field {k:?}", op.as_str()),
                    });
                }
            }
        }
    }
    out
}

/// Parse a key-name case of `redis_layout.cases`.
pub fn parse_key_names_case(v: &Value) -> Result<KeyNamesCase, Vec<DslError>> {
    let mut errs = Errors::default();
    let Some(o) = v.as_object() else {
        errs.add(Problem::CaseShape, "", "a case must be an object");
        return Err(errs.0);
    };
    let layout = layout_field(o, &mut errs);
    let queue = string_field(o, "", "queue", Problem::CaseShape, &mut errs).map(str::to_owned);
    let mut keys = Vec::new();
    match o.get("keys") {
        Some(Value::Object(m)) => {
            for (k, v) in m {
                let at = key_ptr("/keys", k);
                match (parse_role(k), v.as_str()) {
                    (Some(key), Some(name)) => {
                        if layout.is_some_and(|l| !roles(l).contains(&key)) {
                            errs.add(Problem::NotInLayout, at, format!("the layout has no {k:?} key"));
                        }
                        keys.push((key, name.to_owned()));
                    }
                    (None, _) => errs.add(Problem::NotInLayout, at, format!("{k:?} is not a key role")),
                    (_, None) => errs.add(Problem::CaseShape, at, "a key name is a string"),
                }
            }
        }
        _ => errs.add(Problem::CaseShape, "", "a key-name case needs a \"keys\" object (role → key name)"),
    }
    let case = layout.zip(queue).map(|(layout, queue)| KeyNamesCase { layout, queue, keys });
    errs.finish(case)
}

/// Parse a `redis_delay` case.
pub fn parse_delay_case(v: &Value) -> Result<DelayCase, Vec<DslError>> {
    let mut errs = Errors::default();
    let num = |key: &str, errs: &mut Errors| {
        let n = v.get(key).and_then(finite_number);
        if n.is_none() {
            errs.add(Problem::CaseShape, key_ptr("", key), format!("{key:?} must be a finite number of seconds"));
        }
        n
    };
    let now = num("now", &mut errs);
    let delay = num("delay", &mut errs);
    let score = v.get("expected_score").and_then(Value::as_i64);
    if score.is_none() {
        errs.add(Problem::CaseShape, "/expected_score", "\"expected_score\" must be an integer (epoch seconds)");
    }
    let case = match (now, delay, score) {
        (Some(now), Some(delay), Some(expected_score)) => Some(DelayCase { now, delay, expected_score }),
        _ => None,
    };
    errs.finish(case)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(v: Value) -> Vec<(Problem, String)> {
        parse_layout_case(&v).unwrap_err().into_iter().map(|e| (e.problem, e.pointer)).collect()
    }

    #[test]
    fn a_full_case_parses() {
        let c = parse_layout_case(&json!({
            "layout": "processing", "retry_after": 30,
            "bodies": {"a": "{}"},
            "state": {"ready": ["a"], "deadlines": [{"token": "t", "body": "a", "score": 5}]},
            "steps": [
                {"now": 1000.5, "op": "reserve", "as": "r", "retry_after": null, "expect": {"handed": "a", "processing_count": 1}},
                {"now": 1001, "op": "ack", "reservation": "r", "expect": {"applied": true}}
            ],
            "expect": {"deadlines": [{"token": "r", "body": "a", "score": "+inf"}], "ready_count": 0}
        }))
        .unwrap();
        assert_eq!(c.layout, LayoutKind::Processing);
        assert_eq!(c.queue, "orders");
        assert_eq!(c.retry_after, Some(30));
        assert_eq!(c.steps[0].retry_after, Some(None));
        assert_eq!(c.steps[1].retry_after, None);
        assert_eq!(c.steps[0].expect.handed, Some(Some("a".into())));
        assert_eq!(c.expect.contents[0].1[0].score(), Some(ScoreSpec::Inf));
    }

    #[test]
    fn every_problem_is_reported_with_its_pointer() {
        let p = problems(json!({
            "layout": "processing", "bodies": {"a": "{}"},
            "steps": [
                {"op": "reserve"},
                {"now": 1, "op": "migrate"},
                {"now": 1, "op": "fly"},
                {"now": 1, "op": "ack", "reservation": "nope"},
                {"now": 1, "op": "push", "body": "zz"},
                {"now": 1, "op": "sweep", "expect": {"moved": "x", "delayed_count": 1}}
            ],
            "retry_after": -1
        }));
        for want in [
            (Problem::StepWithoutNow, "/steps/0"),
            (Problem::NotInLayout, "/steps/1/op"),
            (Problem::UnknownOp, "/steps/2/op"),
            (Problem::UnknownReservation, "/steps/3/reservation"),
            (Problem::UnknownBody, "/steps/4/body"),
            (Problem::ExpectShape, "/steps/5/expect/moved"),
            (Problem::NotInLayout, "/steps/5/expect/delayed_count"),
            (Problem::BadRetryAfter, "/retry_after"),
        ] {
            assert!(p.contains(&(want.0, want.1.to_owned())), "{want:?} not in {p:?}");
        }
        assert_eq!(
            problems(json!({"layout": "list", "steps": [{"now": 1, "op": "push", "body": "a"}]}))[0].0,
            Problem::UnknownLayout
        );
    }

    #[test]
    fn lint_reports_unknown_expectations_and_fields() {
        let v = json!({"layout": "zset", "bodies": {}, "steps": [{"now": 1, "op": "migrate", "bogus": 1, "expect": {"ready_cnt": 1}}], "expect": {"moved": 1}});
        let lint: Vec<_> = lint_layout_case(&v).into_iter().map(|e| e.pointer).collect();
        assert_eq!(lint, ["/expect/moved", "/steps/0/expect/ready_cnt", "/steps/0/bogus"]);
        assert!(parse_layout_case(&v).is_ok(), "the runner ignores what it does not know");
    }

    #[test]
    fn delay_and_key_name_cases() {
        assert_eq!(
            parse_delay_case(&json!({"now": 1000.7, "delay": 1.5, "expected_score": 1002})),
            Ok(DelayCase { now: 1000.7, delay: 1.5, expected_score: 1002 })
        );
        assert!(parse_delay_case(&json!({"now": 1, "delay": 1, "expected_score": 1.5})).is_err());
        let k = parse_key_names_case(&json!({"layout": "zset", "queue": "q", "keys": {"ready": "queues:q"}})).unwrap();
        assert_eq!(k.keys, [(Role::Ready, "queues:q".to_owned())]);
        let e = parse_key_names_case(&json!({"layout": "zset", "queue": "q", "keys": {"processing": "q:p"}}));
        assert_eq!(e.unwrap_err()[0].problem, Problem::NotInLayout);
    }
}
