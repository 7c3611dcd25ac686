//! Section `redis_layout` (scope redis, broker-bindings §1.1, §1.6, §1.7; ADR-0033).
//!
//! Cases: the section's own `cases` array holds key-name cases `{name, layout, queue, keys:
//! {<role>: <key name>}}`; every other block holds behavioural cases in the case language of
//! [`super::dsl`] (also stated in the section's description in the manifest).
//!
//! Runner: a key-name case must equal the SDK's key names for that layout and queue exactly
//! (no Redis needed). A behavioural case is a program: the judge writes `state` under a fresh
//! key prefix, then the SDK runs the steps in order with the clock set to each step's `now` (a
//! step's `retry_after` makes it a different consumer of the same queue); the judge checks each
//! step's `expect` right after the step and the case's `expect` at the end, reading the keys
//! itself. Lists are compared in order and sorted sets in any order; `body`, `raw` and `token`
//! items compare exact bytes, `like` and `json` items compare parsed JSON under the "same value"
//! rule (for members that went through cjson or the SDK's re-encoding), and `record_of` items
//! check a dead-letter record. Needs a live Redis ([`super::link::RedisLink`]).
//!
//! Cross-checks: everything the case language refuses (BQ860–BQ867, BQ305), plus every
//! expectation key and step field it does not know (a lint: the runner ignores them).

use std::collections::{HashMap, HashSet};
use std::ops::RangeInclusive;

use redis::ConnectionLike;
use serde_json::Value;

use crate::diag::Code;
use crate::results::Outcome;
use crate::sdk::ops::{
    RedisAck, RedisDeadLetter, RedisKeyNames, RedisPush, RedisPushDelayed, RedisQueueOp, RedisRelease, RedisReserved,
};
use crate::sdk::reference::Broken;
use crate::sdk::wire::{Bytes, DeadLetterReason, RedisRole as Role, RedisTarget};
use crate::sdk::{Calls, Sdk};
use crate::sections::helpers::poison_dlq::{Shape, body_shape};
use crate::sections::judge::{self, dead_letter_for, encoded_text, same_value};
use crate::sections::{Block, Catch, Check, Contract, Definition, Field, Needs, Problem, Reader, RunCx, Version, catch, ensure, quoted, quoted_list};
use crate::suite::Scope;

use super::dsl::{
    DslError, Expect, Item, KeyNamesCase, LayoutCase, Op, Problem as DslProblem, Step, lint_layout_case,
    parse_key_names_case, parse_layout_case,
};
use super::link::Keyspace;
use super::{is_sorted_set, key, roles, watch};

/// The `redis_layout` section.
pub struct RedisLayout;

/// A redis_layout case.
pub enum Case {
    KeyNames(KeyNamesCase),
    Behaviour(Box<LayoutCase>),
}

/// The code of a case-language problem.
fn code(p: DslProblem) -> Code {
    match p {
        DslProblem::UnknownLayout => Code::REDIS_UNKNOWN_LAYOUT,
        DslProblem::UnknownOp => Code::REDIS_UNKNOWN_OP,
        DslProblem::StepWithoutNow => Code::REDIS_STEP_WITHOUT_NOW,
        DslProblem::NotInLayout => Code::REDIS_NOT_IN_LAYOUT,
        DslProblem::UnknownBody => Code::REDIS_UNKNOWN_BODY,
        DslProblem::UnknownReservation => Code::REDIS_UNKNOWN_RESERVATION,
        DslProblem::ExpectShape => Code::REDIS_EXPECT_SHAPE,
        DslProblem::BadRetryAfter => Code::REDIS_BAD_RETRY_AFTER,
        DslProblem::CaseShape => Code::CASE_SHAPE,
    }
}

/// Record a case-language result as the reader's problems (relative pointers made absolute).
pub(super) fn report<T>(r: &mut Reader<'_>, result: Result<T, Vec<DslError>>) -> Option<T> {
    match result {
        Ok(v) => Some(v),
        Err(errors) => {
            lints(r, errors, false);
            None
        }
    }
}

fn lints(r: &mut Reader<'_>, errors: Vec<DslError>, lint: bool) {
    let base = r.root().pointer;
    for e in errors {
        r.problems.push(Problem {
            code: code(e.problem),
            pointer: format!("{base}{}", e.pointer),
            message: e.message,
            shown: true,
            lint,
        });
    }
}

impl Definition for RedisLayout {
    const NAME: &'static str = "redis_layout";
    const SINCE: Version = (1, 5, 0);
    const BLOCKS: &'static [Block] = &[
        Block::new("cases", (1, 5, 0)),
        Block::new("delayed_score", (1, 6, 0)),
        Block::new("migrate", (1, 6, 0)),
        Block::new("reserve", (1, 6, 0)),
        Block::new("pcall_poison", (1, 6, 0)),
        Block::new("release", (1, 6, 0)),
        Block::new("processing_sweep", (1, 6, 0)),
        Block::new("processing_token", (1, 6, 0)),
        Block::new("late_ack", (1, 6, 0)),
        Block::new("identical_copies", (1, 6, 0)),
        Block::new("retry_after_null", (1, 6, 0)),
        Block::new("lrem_count", (1, 6, 0)),
        Block::new("malformed_member", (1, 6, 0)),
        Block::new("orphan", (1, 6, 0)),
        Block::new("legacy_release_gate", (1, 6, 0)),
        Block::new("legacy_dlq_gate", (1, 6, 0)),
    ];
    const SCOPE: Scope = Scope::Redis;
    const CATCHES: &'static [Catch] = &[
        catch(Broken::RedisReserveHandsMember, &["reserve/handler-gets-the-raw-element-byte-for-byte"]),
        catch(
            Broken::RedisNullMigratesReserved,
            &["retry_after_null/zset-null-reserves-with-an-infinite-deadline-and-leaves-expired-reservations"],
        ),
        catch(
            Broken::LuaProcessingSweepPushesToHead,
            &[
                "processing_sweep/expired-item-moves-to-the-ready-tail",
                "retry_after_null/null-consumer-still-sweeps-foreign-expired-member",
            ],
        ),
        catch(Broken::RedisAckWithoutGate, &["late_ack/late-ack-leaves-the-new-reservation-alone"]),
        catch(Broken::RedisReleaseWritesMember, &["release/release-writes-the-core-encoding-with-attempts-plus-one"]),
        catch(Broken::RedisFloorOfSum, &["delayed_score/score-where-floor-of-sum-differs"]),
        // {} versus [], unknown keys and exact integers through every re-emit a layout makes: the
        // zset release, the legacy release and the dead-letter record of each layout.
        catch(
            Broken::EmptyDataAsArray,
            &[
                "release/release-keeps-empty-objects-and-arrays",
                "legacy_release_gate/release-keeps-empty-objects-and-arrays",
                "legacy_dlq_gate/record-keeps-empty-objects-and-arrays",
                "release/dead-letter-record-keeps-empty-objects-and-arrays",
            ],
        ),
        catch(
            Broken::DropUnknownKeys,
            &[
                "release/release-keeps-empty-objects-and-arrays",
                "legacy_release_gate/release-keeps-empty-objects-and-arrays",
                "legacy_dlq_gate/record-keeps-empty-objects-and-arrays",
                "release/dead-letter-record-keeps-empty-objects-and-arrays",
            ],
        ),
        catch(
            Broken::DeadLetterDropsExtras,
            &[
                "legacy_dlq_gate/record-keeps-empty-objects-and-arrays",
                "release/dead-letter-record-keeps-empty-objects-and-arrays",
            ],
        ),
        // The Lua scripts: one variant per branch and per key / argument use.
        catch(Broken::LuaZsetMigrateExclusiveNow, &["migrate/due-delayed-item-moves-to-the-ready-tail"]),
        catch(Broken::LuaZsetMigrateIgnoresNow, &["migrate/future-delayed-item-stays"]),
        catch(Broken::LuaZsetMigrateOneChunk, &["migrate/more-than-one-chunk-moves-completely"]),
        catch(Broken::LuaZsetMigrateRemovesFirstOnly, &["migrate/lowest-score-first"]),
        catch(Broken::LuaZsetMigratePushesToHead, &["migrate/due-delayed-item-moves-to-the-ready-tail"]),
        catch(Broken::LuaZsetMigrateOneTokenPerChunk, &["migrate/more-than-one-chunk-moves-completely"]),
        catch(Broken::LuaZsetMigrateReportsNone, &["migrate/due-delayed-item-moves-to-the-ready-tail"]),
        catch(Broken::LuaZsetReservePopsTail, &["reserve/first-in-first-out-one-token-per-reserve"]),
        catch(Broken::LuaZsetReserveEmptyGivesBody, &["reserve/empty-queue-reserves-nothing"]),
        catch(Broken::LuaZsetReserveKeepsToken, &["reserve/first-in-first-out-one-token-per-reserve"]),
        catch(Broken::LuaZsetReserveUnguardedDecode, &["pcall_poison/undecodable-body"]),
        catch(Broken::LuaZsetReserveSkipsObjectCheck, &["pcall_poison/json-number-is-not-an-object"]),
        catch(Broken::LuaZsetReserveSkipsAttemptsCheck, &["pcall_poison/attempts-is-a-string"]),
        catch(Broken::LuaZsetReserveUnguardedEncode, &["pcall_poison/encode-fails-1e400"]),
        catch(Broken::LuaZsetReserveAttemptsUnchanged, &["reserve/deadline-is-floor-now-plus-retry-after"]),
        catch(Broken::LuaZsetReserveEverythingPoison, &["reserve/handler-gets-the-raw-element-byte-for-byte"]),
        catch(Broken::LuaZsetReserveIgnoresDeadline, &["reserve/deadline-is-floor-now-plus-retry-after"]),
        catch(Broken::LuaZsetReserveStoresRaw, &["reserve/reserved-member-is-the-cjson-reencoding"]),
        catch(Broken::LuaZsetSettleUngated, &["release/release-after-recovery-touches-nothing"]),
        catch(
            Broken::LuaZsetSettleKeepsReservation,
            &["release/release-writes-the-core-encoding-with-attempts-plus-one"],
        ),
        catch(Broken::LuaZsetSettleScoreZero, &["release/release-score-is-floor-now-plus-ceil-delay"]),
        catch(
            Broken::LuaZsetSettleDeadLetterWritesMember,
            &["release/dead-letter-moves-the-message", "release/dead-letter-record-keeps-empty-objects-and-arrays"],
        ),
        catch(Broken::LuaZsetSettleSwapsTargets, &["release/release-writes-the-core-encoding-with-attempts-plus-one"]),
        catch(Broken::LuaZsetSettleReleaseToReserved, &["release/release-score-is-floor-now-plus-ceil-delay"]),
        catch(Broken::LuaZsetSettleReportsNotApplied, &["release/dead-letter-moves-the-message"]),
        catch(Broken::LuaProcessingReserveTakesTail, &["processing_token/every-reservation-has-its-own-token"]),
        catch(Broken::LuaProcessingReserveEmptyGivesBody, &["processing_token/empty-queue-reserves-nothing"]),
        catch(Broken::LuaProcessingReserveNoDeadline, &["processing_token/deadline-member-is-token-colon-raw"]),
        catch(
            Broken::LuaProcessingReserveIgnoresDeadline,
            &["processing_token/deadline-is-floor-now-plus-retry-after"],
        ),
        catch(Broken::LuaProcessingReserveMemberWithoutToken, &["processing_token/deadline-member-is-token-colon-raw"]),
        catch(Broken::LuaProcessingReserveStaysInReady, &["processing_token/deadline-member-is-token-colon-raw"]),
        catch(Broken::LuaProcessingReserveHandsMember, &["processing_token/deadline-member-is-token-colon-raw"]),
        catch(Broken::LuaProcessingSettleUngated, &["legacy_release_gate/stale-token-touches-nothing"]),
        catch(Broken::LuaProcessingSettleKeepsMember, &["late_ack/timely-ack-removes-member-and-body"]),
        catch(
            Broken::LuaProcessingSettleLremAll,
            &["lrem_count/ack-removes-one-copy", "lrem_count/release-removes-one-copy"],
        ),
        catch(Broken::LuaProcessingSettleLremMember, &["late_ack/timely-ack-removes-member-and-body"]),
        catch(Broken::LuaProcessingSettleWritesNothing, &["legacy_release_gate/valid-token-releases"]),
        catch(Broken::LuaProcessingSettleWritesRaw, &["legacy_dlq_gate/valid-token-dead-letters"]),
        catch(
            Broken::LuaProcessingSettlePushesToHead,
            &[
                "legacy_release_gate/release-appends-the-retry-to-the-ready-tail",
                "legacy_dlq_gate/records-are-appended-in-order",
                "legacy_dlq_gate/dotted-queue-name-keeps-its-keys",
            ],
        ),
        catch(Broken::LuaProcessingSettleReportsNotApplied, &["legacy_release_gate/valid-token-releases"]),
        catch(Broken::LuaProcessingSweepExclusiveNow, &["processing_sweep/expired-item-moves-to-the-ready-tail"]),
        catch(Broken::LuaProcessingSweepIgnoresNow, &["processing_sweep/only-the-expired-item-moves"]),
        catch(Broken::LuaProcessingSweepOneChunk, &["processing_sweep/more-than-one-chunk-sweeps-completely"]),
        catch(Broken::LuaProcessingSweepRemovesFirstOnly, &["malformed_member/malformed-and-valid-in-one-sweep"]),
        catch(Broken::LuaProcessingSweepSkipsFormatCheck, &["malformed_member/member-without-a-token-is-only-removed"]),
        catch(Broken::LuaProcessingSweepTokenAnyCase, &["malformed_member/uppercase-token-is-malformed"]),
        catch(Broken::LuaProcessingSweepToken31Hex, &["malformed_member/short-token-is-malformed"]),
        catch(Broken::LuaProcessingSweepTokenUnanchored, &["malformed_member/token-after-a-prefix-is-malformed"]),
        catch(Broken::LuaProcessingSweepAnySeparator, &["malformed_member/token-without-the-colon-is-malformed"]),
        catch(Broken::LuaProcessingSweepRawWithColon, &["processing_sweep/expired-item-moves-to-the-ready-tail"]),
        catch(Broken::LuaProcessingSweepLremAll, &["lrem_count/sweep-removes-one-copy"]),
        catch(
            Broken::LuaProcessingSweepOrphanCountedMoved,
            &["orphan/expired-member-without-its-body-is-only-removed"],
        ),
        catch(
            Broken::LuaProcessingSweepMalformedCountedOrphan,
            &["malformed_member/member-without-a-token-is-only-removed"],
        ),
        catch(Broken::LuaProcessingSweepRequeuesOrphans, &["orphan/expired-member-without-its-body-is-only-removed"]),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field {
                name: "name",
                ty: "string",
                meaning: "Names the case: the case's `name` in the section's own `cases`, `<block>/<name>` in a behavioural block.",
            },
            Field {
                name: "description",
                ty: "string",
                meaning: "What the case pins, for people; not compared.",
            },
            Field {
                name: "layout",
                ty: "string: `zset` or `processing`",
                meaning: "The Redis layout: the Laravel-compatible zset layout (§1.1) or the legacy `:processing` layout (§1.7).",
            },
            Field {
                name: "queue",
                ty: "string (key-name cases; optional elsewhere, default `orders`)",
                meaning: "The logical queue name the keys are derived from.",
            },
            Field {
                name: "keys",
                ty: "object: role → key name (key-name cases)",
                meaning: "Every key the layout uses for that queue, by role (zset: `ready`, `delayed`, `reserved`, `notify`, `dlq`; processing: `ready`, `processing`, `deadlines`, `dlq`), without a prefix: the SDK's key names must be exactly these roles with exactly these names.",
            },
            Field {
                name: "retry_after",
                ty: "integer ≥ 0 or null (optional, default 60)",
                meaning: "The consumer's retry_after in seconds (how long a reservation lasts); null: reservations never expire (the zset layout scores them `+inf`). A step may give its own, making it another consumer of the same queue.",
            },
            Field {
                name: "bodies",
                ty: "object: body name → string",
                meaning: "The message bodies the case uses, each the exact text as a JSON string (its UTF-8 bytes are what is pushed or stored); steps and items name them.",
            },
            Field {
                name: "state",
                ty: "object: key role → array of items (optional)",
                meaning: "What the judge writes into the keys before the first step (with scores for sorted sets; tokens are minted fresh and bound to their symbols), using the items of the case language.",
            },
            Field {
                name: "steps",
                ty: "array of steps",
                meaning: "The operations the SDK runs in order, each `{now, op, retry_after?, expect?, …}` with the clock injected at `now` (epoch seconds, may be fractional): `push {body}`, `push_delayed {body, delay}`, `migrate` (zset), `sweep` (processing), `reserve {as?}`, `release {reservation, delay?}`, `ack {reservation}`, `dead_letter {reservation, reason?, error?}`; a step's `expect` is checked right after it.",
            },
            Field {
                name: "expect",
                ty: "object (optional)",
                meaning: "What the judge reads from Redis at the end (or, inside a step, right after that step): `<role>_count` counts, `<role>` contents as items (lists in order, sorted sets in any order), and step results `handed`, `poison`, `moved`, `orphaned`, `malformed`, `applied` (the case language in the section's description).",
            },
        ],
        steps: &[
            "Key-name cases (the section's own `cases`): ask the SDK's Redis transport for its key names for `layout` and `queue` with no prefix; they must equal `keys` exactly, no role more or less. No Redis is needed.",
            "Behavioural blocks need a live Redis 7 at `BQ_REDIS_URL`. Without one, and with `BQ_REQUIRE_REDIS` unset, every case of these blocks may be skipped (skip rule `no-live-redis`, citing ADR-0033) and the run logs it; with `BQ_REQUIRE_REDIS` set, an unreachable Redis is a `fail`.",
            "Each behavioural case gets a key prefix of its own (nothing else in the database is read or written). The runner writes `state` into the layout's keys for the queue, then runs `steps` in order through the SDK's Redis transport, with the SDK's clock set to each step's `now` and its consumer's retry_after set to the step's `retry_after`, else the case's, else 60. A `reserve` runs the layout's migrate or sweep first, as a production reserve does, and binds what it reserved to the name in `as`; `release`, `ack` and `dead_letter` act on a reservation so bound.",
            "After a step with an `expect`, and after the last step for the case's `expect`, the runner reads the keys itself and compares: each count; each listed key's contents, where a body name or `{body}` is the exact bytes, `{raw}` the exact text, `{token, body}` the member `<32 lowercase hex>:<body>` (the token bound to that symbol), `{like, attempts}` and `{json}` parsed JSON under the same-value rule, `{record_of, reason}` a dead-letter record (the body as delivered with a `dead_letter` block of that reason whose `original_queue` is the queue and whose members have the producer schema's types, or for poison the ADR-0035 wrapper, which a strict JSON object a re-encoding writer can carry never gets: it is spliced), each with its score when given; a token a reserve reports, or of a deadline member the SDK wrote, with a run of 12 or more equal characters is not random (R12) and fails; and the step results (`handed`: the body the handler got, null for nothing; `poison`: the body reported as poison; `moved`, `orphaned`, `malformed`: counts; `applied`: whether the reservation still existed).",
            "Every step but a push is watched as it runs (`MONITOR` on a connection of the runner's own, between two `ECHO` marks), its writes to the keys that hold messages (all but `:notify`) sorted into units: a command sent on its own, a Lua script, or a `MULTI`/`EXEC` with the scripts it runs. No unit that only takes messages out (`LPOP`, `ZREM`, `LREM`, …) may sit beside one that only puts them in (`RPUSH`, `ZADD`, …), and in the processing layout's ack, release and dead-letter the `ZREM` of the deadline member and the `LREM` from `:processing` are one unit, so a message is never half-moved (one `ZREM` alone is fine, and so is `BLMOVE` then the deadline member; `LPOP` then `ZADD`, or the gate's `ZREM` then `LREM`, fails). The Redis a run uses is Redis 7 and allows `MONITOR`.",
            "The rulings of the section's description decide what the spec leaves open (due means score ≤ floor(now); the dead-letter list's name; release and dead-letter are gated by the reservation; the processing layout refuses a positive release delay; …). Report `pass`, or `fail` naming the step (or the final state) and the first difference.",
        ],
        operations: &["redis_key_names", "redis_push", "redis_push_delayed", "redis_migrate", "redis_sweep", "redis_reserve", "redis_ack", "redis_release", "redis_dead_letter"],
    };
    type Case<'s> = Case;

    fn read(r: &mut Reader<'_>) -> Option<Case> {
        let at = r.root();
        if r.block_name() == "cases" {
            r.expects_map_entry(&at, "keys");
            return report(r, parse_key_names_case(at.value)).map(Case::KeyNames);
        }
        let lint = lint_layout_case(at.value);
        lints(r, lint, true);
        report(r, parse_layout_case(at.value)).map(|c| Case::Behaviour(Box::new(c)))
    }

    fn needs(case: &Case) -> Needs {
        match case {
            Case::KeyNames(_) => Needs::Nothing,
            Case::Behaviour(_) => Needs::Redis,
        }
    }

    fn run(cx: &mut RunCx<'_>, case: &Case) -> Outcome {
        match case {
            Case::KeyNames(c) => key_names(cx.sdk, c).into(),
            Case::Behaviour(c) => {
                let RunCx { sdk, redis } = cx;
                redis.run(|space| Program::new(c, space).run(&mut **sdk))
            }
        }
    }
}

fn key_names(sdk: &mut dyn Sdk, c: &KeyNamesCase) -> Check {
    let got = sdk
        .redis_key_names(RedisKeyNames { layout: c.layout, queue: c.queue.clone(), prefix: String::new() })
        .map_err(|e| e.to_string())?;
    let mut expected: Vec<(Role, &str)> = c.keys.iter().map(|(k, n)| (*k, n.as_str())).collect();
    expected.sort();
    let actual: Vec<(Role, &str)> = got.iter().map(|(r, n)| (*r, n.as_str())).collect();
    let listed = |names: &[(Role, &str)]| {
        names.iter().map(|(r, n)| format!("{} {}", r.as_str(), quoted(n))).collect::<Vec<_>>().join(", ")
    };
    ensure(expected == actual, || {
        format!("key names: expected {}; the SDK uses {}", listed(&expected), listed(&actual))
    })
}

/// Text of a stored element for a failure message.
fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() > 160 { format!("{}…", text.chars().take(160).collect::<String>()) } else { text.into() }
}

/// The contents of one key as read back.
struct Stored {
    members: Vec<Vec<u8>>,
    /// One score per member for a sorted set.
    scores: Option<Vec<f64>>,
}

/// One behavioural case being executed.
struct Program<'c, 'k> {
    case: &'c LayoutCase,
    space: &'k Keyspace<'k>,
    /// Reservation name → what the reserve that bound it got.
    deliveries: HashMap<String, RedisReserved>,
    /// Token symbol → the 32-hex token it stands for.
    tokens: HashMap<String, String>,
    /// The tokens the judge minted for the state (random by construction: not the SDK's).
    minted: HashSet<String>,
}

impl<'c, 'k> Program<'c, 'k> {
    fn new(case: &'c LayoutCase, space: &'k Keyspace<'k>) -> Self {
        Self { case, space, deliveries: HashMap::new(), tokens: HashMap::new(), minted: HashSet::new() }
    }

    fn key(&self, k: Role) -> String {
        key(self.case.layout, &self.space.prefix, &self.case.queue, k).unwrap_or_default()
    }

    fn body(&self, name: &str) -> &'c [u8] {
        self.case.body(name).as_bytes()
    }

    fn target(&self, step: &Step) -> RedisTarget {
        RedisTarget {
            url: self.space.url().to_owned(),
            prefix: self.space.prefix.clone(),
            queue: self.case.queue.clone(),
            layout: self.case.layout,
            retry_after: step.retry_after.unwrap_or(self.case.retry_after),
            now: Some(step.now),
        }
    }

    fn run(mut self, sdk: &mut dyn Sdk) -> Check {
        self.seed().map_err(|e| format!("writing the state: {e}"))?;
        let mut monitor = self.space.monitor()?;
        let keys = self.message_keys();
        for (i, step) in self.case.steps.iter().enumerate() {
            let at = || format!("step {i} ({} at {})", op_name(&step.op), step.now);
            // Pushes are one write each and are not watched; every other operation moves a
            // message between keys, so its commands are read between two marks (the start mark
            // also skips whatever came before, the pushes' commands included).
            if matches!(step.op, Op::Push { .. } | Op::PushDelayed { .. }) {
                self.step(sdk, step).map_err(|e| format!("{}: {e}", at()))?;
                continue;
            }
            let start = monitor.next_mark();
            self.space.mark(&start).and_then(|()| monitor.until(&start).map(drop)).map_err(|e| format!("{}: {e}", at()))?;
            self.step(sdk, step).map_err(|e| format!("{}: {e}", at()))?;
            let end = monitor.next_mark();
            let seen = self.space.mark(&end).and_then(|()| monitor.until(&end)).map_err(|e| format!("{}: {e}", at()))?;
            watch::judge(&watch::units(&seen, &keys), op_name(&step.op), self.case.layout)
                .map_err(|e| format!("{}: {e}", at()))?;
        }
        self.check_state(&self.case.expect).map_err(|e| format!("final state: {e}"))
    }

    /// The moments of the case's injected clock in epoch milliseconds, a second either side of
    /// its steps' `now`s: a stamp the SDK reads from that clock (a record's `failed_at`).
    fn clock_ms(&self) -> RangeInclusive<u64> {
        let nows = self.case.steps.iter().map(|s| s.now);
        let (lo, hi) = nows.fold((f64::INFINITY, 0.0_f64), |(lo, hi), n| (lo.min(n), hi.max(n)));
        let ms = |s: f64| (s.max(0.0) * 1000.0) as u64;
        ms(lo).saturating_sub(1000)..=ms(hi).saturating_add(1000)
    }

    /// The keys of the layout that hold messages (all but the wake-up list), by name, each
    /// with its name without the case's prefix for messages.
    fn message_keys(&self) -> watch::Keys {
        roles(self.case.layout)
            .iter()
            .filter(|r| **r != Role::Notify)
            .map(|r| {
                let name = self.key(*r);
                let shown = name.strip_prefix(self.space.prefix.as_str()).unwrap_or(&name).to_owned();
                (name.into_bytes(), (shown, *r))
            })
            .collect()
    }

    fn seed(&mut self) -> Result<(), String> {
        let fresh_token = || uuid::Uuid::new_v4().simple().to_string();
        for (key, items) in &self.case.state {
            let name = self.key(*key);
            for item in items {
                let members: Vec<Vec<u8>> = match item {
                    Item::Body { body, .. } => vec![self.body(body).to_vec()],
                    Item::Raw { raw, .. } => vec![raw.as_bytes().to_vec()],
                    Item::Token { token, body, .. } => {
                        let raw = self.body(body);
                        let t = self.tokens.entry(token.clone()).or_insert_with(fresh_token);
                        self.minted.insert(t.clone());
                        vec![[t.as_bytes(), b":", raw].concat()]
                    }
                    Item::Series { series, count, .. } => (0..*count)
                        .map(|i| {
                            let raw = format!("{series}{i}");
                            if *key == Role::Deadlines { format!("{}:{raw}", fresh_token()) } else { raw }.into_bytes()
                        })
                        .collect(),
                    Item::Like { .. } | Item::Json { .. } | Item::RecordOf { .. } => {
                        unreachable!("the parser allows only exact items in state")
                    }
                };
                self.space.with(|con: &mut dyn ConnectionLike| match item.score() {
                    Some(s) => {
                        let mut zadd = redis::cmd("ZADD");
                        zadd.arg(&name);
                        for m in &members {
                            zadd.arg(s.to_string()).arg(m);
                        }
                        zadd.exec(con)
                    }
                    None => redis::cmd("RPUSH").arg(&name).arg(&members).exec(con),
                })?;
            }
        }
        Ok(())
    }

    fn delivery(&self, name: &str) -> Result<&RedisReserved, String> {
        self.deliveries
            .get(name)
            .ok_or_else(|| format!("reservation {} was never made (its reserve got nothing)", quoted(name)))
    }

    fn step(&mut self, sdk: &mut dyn Sdk, step: &Step) -> Check {
        let target = self.target(step);
        let e = &step.expect;
        let err = |e: crate::sdk::SdkError| e.to_string();
        match &step.op {
            Op::Push { body } => {
                sdk.redis_push(RedisPush { target, body: Bytes::from(self.body(body)) }).map_err(err)?
            }
            Op::PushDelayed { body, delay } => sdk
                .redis_push_delayed(RedisPushDelayed { target, body: Bytes::from(self.body(body)), delay: *delay })
                .map_err(err)?,
            Op::Migrate => {
                let moved = sdk.redis_migrate(RedisQueueOp { target }).map_err(err)?;
                same("moved", e.moved, moved)?;
            }
            Op::Sweep => {
                let report = sdk.redis_sweep(RedisQueueOp { target }).map_err(err)?;
                same("moved", e.moved, report.moved)?;
                same("orphaned", e.orphaned, report.orphaned)?;
                same("malformed", e.malformed, report.malformed)?;
            }
            Op::Reserve { bind } => {
                let got = sdk.redis_reserve(RedisQueueOp { target }).map_err(err)?;
                if let Some(t) = got.as_ref().and_then(|d| d.token.as_deref()) {
                    random_token(t).map_err(|m| format!("reserve reported the token {t}: {m}"))?;
                }
                self.check_reserve(e, got.as_ref())?;
                if let (Some(name), Some(d)) = (bind, got) {
                    if let Some(t) = &d.token {
                        self.tokens.insert(name.clone(), t.clone());
                    }
                    self.deliveries.insert(name.clone(), d);
                }
            }
            Op::Release { reservation, delay } => {
                let d = self.delivery(reservation)?;
                if d.poison {
                    return Err(format!(
                        "reservation {} is poison: it can only be acked or dead-lettered",
                        quoted(reservation)
                    ));
                }
                let request = RedisRelease { target, reservation: d.reservation.clone(), delay: *delay };
                let applied = sdk.redis_release(request).map_err(err)?;
                same("applied", e.applied, applied)?;
            }
            Op::Ack { reservation } => {
                let request = RedisAck { target, reservation: self.delivery(reservation)?.reservation.clone() };
                let applied = sdk.redis_ack(request).map_err(err)?;
                same("applied", e.applied, applied)?;
            }
            Op::DeadLetter { reservation, reason, error } => {
                let reason = match reason.as_str() {
                    "failed" => DeadLetterReason::Failed,
                    "unknown_urn" => DeadLetterReason::UnknownUrn,
                    other => return Err(format!("unknown reason {}", quoted(other))),
                };
                let request = RedisDeadLetter {
                    target,
                    reservation: self.delivery(reservation)?.reservation.clone(),
                    reason,
                    error: error.clone(),
                };
                let applied = sdk.redis_dead_letter(request).map_err(err)?;
                same("applied", e.applied, applied)?;
            }
        }
        self.check_state(e)
    }

    fn check_reserve(&self, e: &Expect, got: Option<&RedisReserved>) -> Check {
        let what = |d: Option<&RedisReserved>| match d {
            None => "nothing".to_owned(),
            Some(d) => format!("{} {}", if d.poison { "poison" } else { "message" }, shown(d.body.as_slice())),
        };
        if let Some(handed) = &e.handed {
            let ok = match (handed, got) {
                (None, None) => true,
                (Some(name), Some(d)) => !d.poison && d.body.as_slice() == self.body(name),
                _ => false,
            };
            ensure(ok, || format!("reserve got {}, expected {}", what(got), handed.as_deref().unwrap_or("nothing")))?;
        }
        if let Some(name) = &e.poison {
            let ok = got.is_some_and(|d| d.poison && d.body.as_slice() == self.body(name));
            ensure(ok, || format!("reserve got {}, expected body {} reported as poison", what(got), quoted(name)))?;
        }
        Ok(())
    }

    fn read(&self, key: Role) -> Result<Stored, String> {
        let name = self.key(key);
        self.space.with(|con: &mut dyn ConnectionLike| {
            if is_sorted_set(key) {
                let pairs: Vec<(Vec<u8>, f64)> =
                    redis::cmd("ZRANGE").arg(&name).arg(0).arg(-1).arg("WITHSCORES").query(con)?;
                let (members, scores) = pairs.into_iter().unzip();
                Ok(Stored { members, scores: Some(scores) })
            } else {
                let members: Vec<Vec<u8>> = redis::cmd("LRANGE").arg(&name).arg(0).arg(-1).query(con)?;
                Ok(Stored { members, scores: None })
            }
        })
    }

    fn check_state(&self, e: &Expect) -> Check {
        for (key, want) in &e.counts {
            let len = self.read(*key)?.members.len() as u64;
            ensure(len == *want, || format!("{}_count is {len}, expected {want}", key.as_str()))?;
        }
        for (key, items) in &e.contents {
            let stored = self.read(*key)?;
            self.contents(*key, items, &stored).map_err(|m| {
                let all: Vec<String> = stored.members.iter().map(|b| shown(b)).collect();
                format!("{}: {m} (it holds {})", key.as_str(), quoted_list(&all))
            })?;
        }
        Ok(())
    }

    fn contents(&self, key: Role, items: &[Item], stored: &Stored) -> Check {
        ensure(items.len() == stored.members.len(), || {
            format!("{} elements, expected {}", stored.members.len(), items.len())
        })?;
        let fits =
            |i: usize, j: usize| self.matches(&items[i], &stored.members[j], stored.scores.as_ref().map(|s| s[j]));
        if !is_sorted_set(key) {
            return (0..items.len()).try_for_each(|i| fits(i, i).map_err(|m| format!("element {i}: {m}")));
        }
        // A sorted set has no order the case can rely on (equal scores order by bytes, and
        // tokens are random): find a one-to-one assignment of members to items.
        let ok: Vec<Vec<bool>> =
            (0..items.len()).map(|i| (0..items.len()).map(|j| fits(i, j).is_ok()).collect()).collect();
        match assignment(&ok) {
            Some(()) => Ok(()),
            None => {
                let unmatched = (0..items.len()).find(|&i| !ok[i].iter().any(|b| *b)).unwrap_or(0);
                let why = (0..items.len()).filter_map(|j| fits(unmatched, j).err()).collect::<Vec<_>>().join(" / ");
                Err(format!("no member fits item {unmatched} ({why})"))
            }
        }
    }

    fn matches(&self, item: &Item, member: &[u8], score: Option<f64>) -> Check {
        if let (Some(want), Some(got)) = (item.score(), score) {
            ensure(want.as_f64() == got, || format!("score {got}, expected {want}"))?;
        }
        let exact = |want: &[u8]| ensure(member == want, || format!("{} is not {}", shown(member), shown(want)));
        match item {
            Item::Body { body, .. } => exact(self.body(body)),
            Item::Raw { raw, .. } => exact(raw.as_bytes()),
            Item::Token { token, body, .. } => self.token_member(member, token, self.body(body)),
            Item::Like { like, attempts, .. } => {
                let mut want = parse(self.body(like)).map_err(|e| format!("body {}: {e}", quoted(like)))?;
                let obj = want.as_object_mut().ok_or_else(|| format!("body {} is not an object", quoted(like)))?;
                obj.insert("attempts".into(), Value::from(*attempts));
                // The SDK's re-encoding (a Json item may be cjson's, which writes what it likes).
                same_json(member, &want).and_then(|()| {
                    encoded_text(&String::from_utf8_lossy(member), &[("", &want)], Some(self.body(like)))
                })
            }
            Item::Json { json, .. } => same_json(member, json),
            Item::RecordOf { record_of, reason } => {
                record(member, self.body(record_of), reason, &self.case.queue, Some(self.clock_ms()))
            }
            Item::Series { .. } => unreachable!("the parser allows series items only in state"),
        }
    }

    fn token_member(&self, member: &[u8], symbol: &str, body: &[u8]) -> Check {
        let text = shown(member);
        let colon = member.iter().position(|&b| b == b':').ok_or_else(|| format!("{text} has no ':'"))?;
        let (token, raw) = (&member[..colon], &member[colon + 1..]);
        ensure(token.len() == 32 && token.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')), || {
            format!("{text}: the token is not 32 lowercase hex digits")
        })?;
        // A token the SDK wrote (not one the judge minted for the state) is random.
        let token_text = String::from_utf8_lossy(token);
        if !self.minted.contains(token_text.as_ref()) {
            random_token(&token_text).map_err(|m| format!("{text}: its token is {m}"))?;
        }
        if let Some(bound) = self.tokens.get(symbol) {
            ensure(token == bound.as_bytes(), || {
                // A token the SDK reported is said to be the SDK's, so the message points at the
                // reply, not only at the key's contents.
                match self.deliveries.get(symbol).and_then(|d| d.token.as_deref()) {
                    Some(reported) if reported == bound => {
                        format!(
                            "{text}: its token is not {bound}, the token the SDK reported when it reserved {}",
                            quoted(symbol)
                        )
                    }
                    _ => format!("{text}: not the token of {}", quoted(symbol)),
                }
            })?;
        }
        ensure(raw == body, || format!("{text}: the body after the token is not {}", shown(body)))
    }
}

/// A dead-letter record of `body` consumed from `queue`: `dead_letter.reason` and
/// `original_queue` as expected, and the rest the body itself (parsed), or for poison the
/// wrapper `{raw: body}` where ADR-0035 allows it ([`wrapper_allowed`]).
fn record(member: &[u8], body: &[u8], reason: &str, queue: &str, clock: Option<RangeInclusive<u64>>) -> Check {
    if reason == "poison" {
        return poison_record(member, body, queue, clock);
    }
    let mut rec = parse(member)?;
    let obj = rec.as_object_mut().ok_or("the record is not a JSON object")?;
    let block = obj.shift_remove("dead_letter").ok_or("the record has no dead_letter block")?;
    dead_letter_for(&block, reason, queue, clock)?;
    // The SDK's re-encoding of the body, block and all.
    let body_value = parse(body).ok();
    let as_body = body_value.as_ref().is_some_and(|b| same_value(b, &rec));
    if let (Some(b), true) = (&body_value, as_body) {
        encoded_text(&String::from_utf8_lossy(member), &[("", b)], Some(body)).map_err(|e| format!("the record: {e}"))?;
    }
    ensure(as_body, || format!("the record without dead_letter is {rec}, not the body {}", shown(body)))
}

/// A poison record, read as `poison_dlq` reads one ([`judge::poison_record`]: the tolerant
/// scanner, so the splice of a body a value parser cannot hold, `1e400` or depth 600, is judged
/// like any other). Only its `dead_letter` block is the SDK's writing: the rest is the body's
/// bytes spliced (the byte-level check proves the rest is the body), or the `{raw: body}`
/// wrapper where ADR-0035 allows one.
fn poison_record(member: &[u8], body: &[u8], queue: &str, clock: Option<RangeInclusive<u64>>) -> Check {
    let (_, members) = judge::poison_record(member, body, queue, clock)?;
    if !members.iter().any(|(k, _)| k == "raw") {
        // A byte-level splice of the body: nothing else to compare.
        return Ok(());
    }
    let rest: serde_json::Map<String, Value> = members
        .iter()
        .filter(|(k, _)| k != "dead_letter")
        .map(|(k, raw)| serde_json::from_str(raw.get()).map(|v| (k.clone(), v)))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("the record's members besides dead_letter do not parse: {e}"))?;
    let rest = Value::Object(rest);
    let as_wrapper = std::str::from_utf8(body).is_ok_and(|t| same_value(&rest, &serde_json::json!({ "raw": t })));
    ensure(as_wrapper, || format!("the record without dead_letter is {rest}, not the wrapper {{raw}} of the body {}", shown(body)))?;
    wrapper_allowed(body)
}

/// A poison body may be dead-lettered as the `{raw}` wrapper only when ADR-0035 allows it: a
/// valid-UTF-8 strict JSON object (without a top-level `dead_letter`) is spliced, never wrapped,
/// unless a re-encoding writer cannot carry it losslessly, where poison_dlq accepts either
/// (its `splice_or_wrapper`); the wrapper is for anything else. One classification for both
/// sections: [`body_shape`].
fn wrapper_allowed(body: &[u8]) -> Check {
    ensure(body_shape(body).0 != Shape::Splice, || {
        "the record is the {raw} wrapper, but the body is a strict JSON object: a poison body that is one is spliced (the body's bytes with the dead_letter member inserted before its final }), never wrapped (R13, ADR-0035)".to_owned()
    })
}

/// The longest run of one character a token may hold. Tokens are random, 128 bits (R12): a
/// per-process counter (`000…001`) or a zero-padded clock is not, and two consumers that
/// start alike mint the same tokens, so one's ack removes the other's deadline member. Of 32
/// uniformly random hex digits, a run of 12 equal ones starts at the first digit with
/// probability 16^-11 and at each of the 20 later places, after a different digit, with
/// 15/16 · 16^-11: (1 + 20 · 15/16) · 16^-11 = 19.75 / 16^11 ≈ 1.12 × 10^-12 in all (an exact
/// count of the 16^32 tokens gives the same to three digits), so a random token fails about
/// once in 10^12 reserves, while a counter below 2^80 or a millisecond or nanosecond clock,
/// zero-padded to 32 digits, has at least 12 zeros in a row. What it cannot see: a
/// deterministic generator whose output has no long run (a counter times a constant, a fixed
/// seed), which repeats its tokens only across processes, beyond one run's view (proposal 10
/// of `bench/proposals/next-minor.md`).
const MAX_EQUAL_RUN: usize = 11;

/// `Err` (what the token looks like) when `token` holds a run of more than [`MAX_EQUAL_RUN`]
/// equal characters.
fn random_token(token: &str) -> Result<(), String> {
    let (mut longest, mut run, mut prev) = (0, 0, None);
    for c in token.chars() {
        run = if prev == Some(c) { run + 1 } else { 1 };
        prev = Some(c);
        longest = longest.max(run);
    }
    ensure(longest <= MAX_EQUAL_RUN, || {
        format!("not random: {longest} equal digits in a row (R12: tokens are random, 128 bits)")
    })
}

fn parse(bytes: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("{} is not JSON: {e}", shown(bytes)))
}

fn same_json(member: &[u8], want: &Value) -> Check {
    let got = parse(member)?;
    ensure(same_value(&got, want), || format!("{got} is not the same value as {want}"))
}

fn same<T: PartialEq + std::fmt::Display>(what: &str, want: Option<T>, got: T) -> Check {
    match want {
        Some(w) => ensure(w == got, || format!("{what} is {got}, expected {w}")),
        None => Ok(()),
    }
}

fn op_name(op: &Op) -> &'static str {
    match op {
        Op::Push { .. } => "push",
        Op::PushDelayed { .. } => "push_delayed",
        Op::Migrate => "migrate",
        Op::Sweep => "sweep",
        Op::Reserve { .. } => "reserve",
        Op::Release { .. } => "release",
        Op::Ack { .. } => "ack",
        Op::DeadLetter { .. } => "dead_letter",
    }
}

/// Is there a perfect matching in the square compatibility matrix `ok` (item × member)?
fn assignment(ok: &[Vec<bool>]) -> Option<()> {
    fn augment(i: usize, ok: &[Vec<bool>], seen: &mut [bool], owner: &mut [Option<usize>]) -> bool {
        for j in 0..ok.len() {
            if ok[i][j] && !seen[j] {
                seen[j] = true;
                if owner[j].is_none_or(|k| augment(k, ok, seen, owner)) {
                    owner[j] = Some(i);
                    return true;
                }
            }
        }
        false
    }
    let mut owner = vec![None; ok.len()];
    (0..ok.len()).all(|i| augment(i, ok, &mut vec![false; ok.len()], &mut owner)).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignment_finds_a_perfect_matching_when_greedy_would_not() {
        assert!(assignment(&[vec![true, true], vec![true, false]]).is_some());
        assert!(assignment(&[vec![true, false], vec![true, false]]).is_none());
        assert!(assignment(&[]).is_some());
    }

    #[test]
    fn a_counter_or_a_padded_clock_is_not_a_random_token() {
        assert_eq!(
            random_token("00000000000000000000000000000001"),
            Err("not random: 31 equal digits in a row (R12: tokens are random, 128 bits)".into())
        );
        // A zero-padded millisecond clock, and the longest run allowed.
        assert!(random_token(&format!("{:032x}", 1_749_132_727_000_u64)).is_err());
        assert!(random_token("00000000000a1b2c3d4e5f60718293a4").is_ok());
        assert!(random_token("000000000000a1b2c3d4e5f60718293a").is_err());
        assert!(random_token("9f86d081884c7d659a2feaa0c55ad015").is_ok());
        for _ in 0..1000 {
            let t = uuid::Uuid::new_v4().simple().to_string();
            assert_eq!(random_token(&t), Ok(()), "{t}");
        }
    }

    #[test]
    fn a_strict_object_poison_body_is_spliced_never_wrapped() {
        let block = r#""dead_letter":{"reason":"poison","error":"e","exception":null,"failed_at":1749132727000,"original_queue":"orders","attempts":0,"lang":"rust"}"#;
        let wrapped = |body: &str| {
            let raw = serde_json::to_string(body).unwrap();
            format!("{{\"raw\":{raw},{block}}}")
        };
        let record = |member: &str, body: &str| record(member.as_bytes(), body.as_bytes(), "poison", "orders", None);
        // A strict object: its splice passes, its wrapper does not.
        let object = r#"{"job":"urn:babel:orders:created","attempts":"0"}"#;
        assert_eq!(record(&format!("{}, {block}}}", &object[..object.len() - 1]), object), Ok(()));
        let e = record(&wrapped(object), object).unwrap_err();
        assert!(e.contains("is a strict JSON object") && e.contains("never wrapped"), "{e}");
        // Not an object, or an object a re-encoding writer cannot carry: the wrapper passes.
        assert_eq!(record(&wrapped("not json at all"), "not json at all"), Ok(()));
        assert_eq!(record(&wrapped("[1,2]"), "[1,2]"), Ok(()));
        let big = r#"{"job":"urn:babel:orders:created","data":{"v":1e400}}"#;
        assert_eq!(record(&wrapped(big), big), Ok(()));
    }

    /// Stop 47: a poison record was parsed with serde_json first, so the splice of a body it
    /// cannot hold (`1e400`, depth 600) failed as "not JSON", and the cases that dead-letter
    /// such a body asserted only a count.
    #[test]
    fn a_splice_a_value_parser_cannot_hold_is_judged_byte_for_byte() {
        let block = r#""dead_letter":{"reason":"poison","error":"e","exception":null,"failed_at":1749132727000,"original_queue":"orders","attempts":0,"lang":"rust"}"#;
        let record = |member: &str, body: &str| record(member.as_bytes(), body.as_bytes(), "poison", "orders", None);
        let splice = |body: &str| format!("{},{block}}}", &body[..body.len() - 1]);
        let deep = format!("{{\"job\":\"urn:babel:orders:created\",\"d\":{}1{}}}", "[".repeat(600), "]".repeat(600));
        for body in [
            r#"{"job":"urn:babel:orders:created","data":{"v":1e400}}"#,
            r#"{"job":"urn:babel:orders:created","data":{"v":-1e400}}"#,
            r#"{"job":"urn:babel:orders:created","job":"urn:babel:orders:created"}"#,
            deep.as_str(),
        ] {
            assert_eq!(record(&splice(body), body), Ok(()), "{body}");
            // A re-encode that lost the number, or a splice with one more member, is not the body.
            let rounded = splice(&body.replace("1e400", "1.7976931348623157e308"));
            if rounded != splice(body) {
                assert!(record(&rounded, body).unwrap_err().contains("byte for byte"), "{body}");
            }
            let extra = splice(&body.replacen('{', "{\"x\":1,", 1));
            assert!(record(&extra, body).is_err(), "{body}");
        }
        // A record that is not one strict object, or has two blocks, fails before anything else.
        let body = r#"{"v":1e400}"#;
        assert!(record(&format!("{} x", splice(body)), body).unwrap_err().contains("strict JSON object"));
        let twice = format!("{{\"v\":1e400,{block},{block}}}");
        assert!(record(&twice, body).unwrap_err().contains("2 top-level dead_letter"));
        // The block is judged whatever the body: a wrong queue fails.
        let other = splice(body).replace("\"orders\"", "\"elsewhere\"");
        assert!(record(&other, body).is_err());
    }

    /// Helper 34's left-alone of stop 46, closed by reading a poison record byte for byte: a
    /// body ADR-0035 wraps is never accepted spliced, even where the splice parses. Every
    /// wrapper body of poison_dlq with a `}` to splice before is tried.
    #[test]
    fn a_body_that_must_be_wrapped_is_never_accepted_spliced() {
        let block = r#""dead_letter":{"reason":"poison","error":"e","exception":null,"failed_at":1749132727000,"original_queue":"orders","attempts":0,"lang":"rust"}"#;
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/manifest.json")).unwrap())
                .unwrap();
        let mut tried = 0;
        for case in manifest["poison_dlq"]["cases"].as_array().unwrap() {
            let (Some(body), "wrapper") = (case["body"].as_str(), case["expect"]["shape"].as_str().unwrap()) else {
                continue;
            };
            let Some(close) = body.rfind('}') else { continue };
            let (head, tail) = body.split_at(close);
            let comma = if head.trim_end().ends_with('{') { "" } else { "," };
            let spliced = format!("{head}{comma}{block}{tail}");
            let got = record(spliced.as_bytes(), body.as_bytes(), "poison", "orders", None);
            assert!(got.is_err(), "{}: the splice {spliced} was accepted", case["name"]);
            tried += 1;
        }
        // Plus bodies that are JSON but not objects, whose splice parses.
        for (body, comma) in [("[{}]", ""), (" [{\"a\":1}] ", ",")] {
            let close = body.rfind('}').unwrap();
            let spliced = format!("{}{comma}{block}{}", &body[..close], &body[close..]);
            assert!(serde_json::from_str::<Value>(&spliced).is_ok(), "{spliced}");
            assert!(record(spliced.as_bytes(), body.as_bytes(), "poison", "orders", None).is_err(), "{body}");
        }
        assert!(tried >= 10, "only {tried} wrapper bodies tried");
    }

    #[test]
    fn key_names_are_compared_exactly() {
        let ok = serde_json::json!({"layout": "processing", "queue": "q",
            "keys": {"ready": "q", "processing": "q:processing", "deadlines": "q:processing:deadlines", "dlq": "q:dlq"}});
        let mut sdk = crate::sdk::reference::ReferenceSdk::new();
        assert_eq!(key_names(&mut sdk, &parse_key_names_case(&ok).unwrap()), Ok(()));
        let missing = serde_json::json!({"layout": "processing", "queue": "q", "keys": {"ready": "q"}});
        assert!(key_names(&mut sdk, &parse_key_names_case(&missing).unwrap()).is_err());
    }
}
