//! The catalogue of broken variants of the reference core, for the suite's own mutation tests.
//!
//! The suite proves that its cases catch real bugs by running the reference core with one
//! behaviour deliberately broken and asserting that cases fail (the kill matrix, derived from
//! the section registry). Those broken variants are built from the real code: each [`Fault`]
//! is a switch consulted at exactly one place in the core, so a variant differs from the
//! reference in that one behaviour only.
//!
//! Invariants: every variant is listed once in [`Fault::ALL`] with a unique kebab-case name
//! ([`Fault::name`], parsed back by [`Fault::parse`], so a variant can be switched on by name at
//! runtime) and one line saying what it breaks ([`Fault::breaks`]); no fault is ever active
//! unless a caller switched it on with [`with`]; the switch is thread-local and scoped, so it
//! cannot leak into another test or another thread; the reference behaviour is the `false`
//! branch everywhere.
//!
//! It sits beside the core, not in it (the core uses it, it uses nothing): the catalogue, its
//! names and its switch are the tooling's (the kill matrix, `adapter --broken NAME`), and no
//! SDK operation reads them. What stays in the core is each variant's one guarded branch; a
//! helper that such a branch needs and no SDK operation reaches ([`first_key_wins`]) lives here,
//! so the core holds only SDK behaviour (issue 21's mutation figure counts `src/core` only).

use std::cell::RefCell;
use std::fmt;

macro_rules! catalogue {
    ($($variant:ident = $name:literal: $breaks:literal;)*) => {
        /// One deliberately broken behaviour of the reference core.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Fault {
            $(#[doc = $breaks] $variant,)*
        }

        impl Fault {
            /// Every variant, in catalogue order.
            pub const ALL: &'static [Fault] = &[$(Fault::$variant),*];

            /// The variant's kebab-case name.
            pub fn name(self) -> &'static str {
                match self {
                    $(Fault::$variant => $name,)*
                }
            }

            /// What the variant breaks, in one line.
            pub fn breaks(self) -> &'static str {
                match self {
                    $(Fault::$variant => $breaks,)*
                }
            }
        }
    };
}

catalogue! {
    UnicodeWhitespace = "unicode-whitespace": "blank and trim use Unicode whitespace (char::is_whitespace) instead of the ASCII six";
    WhitespaceWithoutSpace = "whitespace-without-space": "the contract whitespace set lacks the space";
    WhitespaceWithoutTab = "whitespace-without-tab": "the contract whitespace set lacks \\t";
    WhitespaceWithoutLf = "whitespace-without-lf": "the contract whitespace set lacks \\n";
    WhitespaceWithoutVt = "whitespace-without-vt": "the contract whitespace set lacks \\v";
    WhitespaceWithoutFf = "whitespace-without-ff": "the contract whitespace set lacks \\f";
    WhitespaceWithoutCr = "whitespace-without-cr": "the contract whitespace set lacks \\r";
    WhitespaceWithNbsp = "whitespace-with-nbsp": "the contract whitespace set includes U+00A0";
    WhitespaceWithEmSpace = "whitespace-with-em-space": "the contract whitespace set includes U+2003";
    WhitespaceWithIdeographicSpace = "whitespace-with-ideographic-space": "the contract whitespace set includes U+3000";
    MakeCreatedAtInSeconds = "make-created-at-in-seconds": "make stamps meta.created_at in epoch seconds instead of milliseconds";
    MakeWithoutMetaId = "make-without-meta-id": "make leaves meta.id out";
    EncodeWithoutCreatedAt = "encode-without-created-at": "encode leaves meta.created_at out (make and every re-encode)";
    DecodeFirstKeyWins = "decode-first-key-wins": "decode keeps the first of a repeated top-level key instead of the last";
    DecodeKeysIgnoreCase = "decode-keys-ignore-case": "decode matches top-level keys case-insensitively (JOB is taken as job)";
    DecodeBytesAsLatin1 = "decode-bytes-as-latin1": "decode reads the body's bytes as Latin-1 instead of UTF-8 (multi-byte characters become mojibake)";
    DropUnknownKeys = "decode-drops-unknown-keys": "decode drops unknown keys instead of preserving them";
    NoUrnAlias = "decode-ignores-urn-alias": "decode ignores urn as the inbound alias of job";
    IgnoreSchemaVersion = "accepts-ignores-schema-version": "decode and accepts do not check meta.schema_version";
    EmptyDataAsArray = "encode-empty-data-as-array": "encode writes an empty data map as [] (the PHP pitfall)";
    EmitForbiddenKeys = "decode-keeps-forbidden-keys": "decode keeps forbidden keys with the unknown keys (still warning), so a re-encode carries them to the encode gate";
    SilentForbiddenKeys = "decode-silent-about-forbidden-keys": "decode drops forbidden keys (a urn beside job included) without a warning";
    DropRejectedKeys = "encode-drops-rejected-keys": "encode silently drops a colliding or forbidden extension key instead of failing";
    StringifyNonStringJob = "decode-stringifies-non-string-job": "decode stringifies a non-string job and uses it instead of ignoring it";
    EncodeWritesForbiddenKeys = "encode-writes-forbidden-keys": "encode writes a forbidden extension key instead of refusing it";
    ReemitTrims = "reemit-trims": "encode trims the ASCII six from job and trace_id instead of writing them byte for byte";
    DeadLetterDropsExtras = "dead-letter-drops-extras": "the dead-letter helper drops unknown keys";
    PayloadSchemaByteLength = "payload-schema-byte-length": "minLength counts UTF-8 bytes instead of code points";
    PayloadSchemaIgnoreAdditional = "payload-schema-ignore-additional-properties": "additionalProperties: false is ignored";
    IdempotencyTraceIdKey = "idempotency-trace-id-key": "the idempotency helper keys its seen-set on trace_id instead of meta.id";
    RetryNFromZero = "retry-n-from-zero": "the retry delay counts retries from 0 (d(n) = base × multiplier^n)";
    PoisonReEncode = "poison-re-encode": "the poison writer splices by parsing and re-encoding the body (rounds numbers, collapses repeated names)";
    TraceparentAccepts31Hex = "traceparent-accepts-31-hex": "the traceparent parser takes a trace id of 31 hex digits";
    TraceparentFallbackSpanId = "traceparent-fallback-span-id": "a valid traceparent header gives its trace id but the parent span id is the fallback's";
    TraceparentFlagsAlwaysSampled = "traceparent-flags-always-sampled": "a valid traceparent header's flags are replaced by 01 (sampled)";
    GateTrims = "gate-trims": "the schema-version gate trims the value before comparing";
    GateUnicodeBlank = "gate-unicode-blank": "the schema-version gate's blank check is Unicode-aware";
    AsbFloatOneIsIntegral = "asb-float-one-is-integral": "the ASB gate takes a float or double 1.0 as integral 1";
    KafkaHeaderNullStringified = "kafka-header-null-stringified": "the Kafka header writer stringifies a null value as the text null";
    KafkaAttemptsMax = "kafka-attempts-max": "Kafka reconciles attempts as max(body, header) instead of the header";
    KafkaRequestedDelayUsesTier = "kafka-requested-delay-uses-tier": "a Kafka publish with a requested delay writes the tier's delay as bq-delay";
    SqsDelayClamps = "sqs-delay-clamps": "an SQS delay above 900 s is clamped instead of raising";
    SqsAttemptsNoMinusOne = "sqs-attempts-no-minus-one": "SQS reconciliation uses ApproximateReceiveCount without the −1";
    RedisFloorOfSum = "redis-score-floor-of-sum": "the Redis delayed score is floor(now + delay) (Laravel's) instead of floor(now) + ceil(delay)";
    RedisReserveHandsMember = "redis-reserve-hands-member": "a zset reserve hands the handler the cjson-re-encoded member instead of the raw body";
    RedisReleaseWritesMember = "redis-release-writes-member": "a zset release writes the cjson member to :delayed instead of the core's encoding";
    RedisAckWithoutGate = "redis-ack-without-gate": "the legacy ack removes the body from :processing without the ZREM gate";
    RedisNullMigratesReserved = "redis-null-migrates-reserved": "a zset consumer with retry_after null migrates expired reservations too (the legacy sweep's rule, not Laravel's order)";
    // The Redis Lua scripts (src/core/redis/lua/): one variant per branch and per key /
    // argument use, each the real script with one textual edit (core::redis::lua states them).
    LuaZsetMigrateExclusiveNow = "lua-zset-migrate-exclusive-now": "zset migrate moves only members scored before the current second (an item due exactly now stays)";
    LuaZsetMigrateIgnoresNow = "lua-zset-migrate-ignores-now": "zset migrate moves every member, due or not";
    LuaZsetMigrateOneChunk = "lua-zset-migrate-one-chunk": "zset migrate stops after the first chunk of 100";
    LuaZsetMigrateRemovesFirstOnly = "lua-zset-migrate-removes-first-only": "zset migrate removes only the first member of a chunk from its set (the others are moved again)";
    LuaZsetMigratePushesToHead = "lua-zset-migrate-pushes-to-head": "zset migrate puts moved members at the head of the ready list";
    LuaZsetMigrateOneTokenPerChunk = "lua-zset-migrate-one-token-per-chunk": "zset migrate writes one wake-up token per chunk instead of one per moved member";
    LuaZsetMigrateReportsNone = "lua-zset-migrate-reports-none": "zset migrate reports 0 moved after it moved members";
    LuaZsetReservePopsTail = "lua-zset-reserve-pops-tail": "zset reserve pops the tail of the ready list (LIFO)";
    LuaZsetReserveEmptyGivesBody = "lua-zset-reserve-empty-gives-body": "zset reserve on an empty ready list hands an empty body instead of nothing";
    LuaZsetReserveKeepsToken = "lua-zset-reserve-keeps-token": "zset reserve takes no wake-up token";
    LuaZsetReserveUnguardedDecode = "lua-zset-reserve-unguarded-decode": "zset reserve decodes without pcall (a body cjson cannot decode fails the script)";
    LuaZsetReserveSkipsObjectCheck = "lua-zset-reserve-skips-object-check": "zset reserve does not check that the decoded body is a table";
    LuaZsetReserveSkipsAttemptsCheck = "lua-zset-reserve-skips-attempts-check": "zset reserve does not check that attempts is a number";
    LuaZsetReserveUnguardedEncode = "lua-zset-reserve-unguarded-encode": "zset reserve encodes without pcall (a body cjson cannot encode again fails the script)";
    LuaZsetReserveAttemptsUnchanged = "lua-zset-reserve-attempts-unchanged": "zset reserve stores the re-encoding without adding 1 to attempts";
    LuaZsetReserveEverythingPoison = "lua-zset-reserve-everything-poison": "zset reserve reports every body as poison";
    LuaZsetReserveIgnoresDeadline = "lua-zset-reserve-ignores-deadline": "zset reserve stores the reservation at +inf instead of its deadline";
    LuaZsetReserveStoresRaw = "lua-zset-reserve-stores-raw": "zset reserve stores the raw body in :reserved instead of the re-encoding";
    LuaZsetSettleUngated = "lua-zset-settle-ungated": "zset release and dead-letter write even when the reservation is gone";
    LuaZsetSettleKeepsReservation = "lua-zset-settle-keeps-reservation": "zset release and dead-letter check the reservation but do not remove it";
    LuaZsetSettleScoreZero = "lua-zset-settle-score-zero": "zset release writes the retry at score 0 instead of its available-at second";
    LuaZsetSettleDeadLetterWritesMember = "lua-zset-settle-dead-letter-writes-member": "zset dead-letter writes the :reserved member to the list instead of the record";
    LuaZsetSettleSwapsTargets = "lua-zset-settle-swaps-targets": "zset settle takes the dead-letter branch for a release and the release branch for a dead-letter";
    LuaZsetSettleReleaseToReserved = "lua-zset-settle-release-to-reserved": "zset release writes the retry back into :reserved instead of :delayed";
    LuaZsetSettleReportsNotApplied = "lua-zset-settle-reports-not-applied": "zset release and dead-letter report 0 after they moved the message";
    LuaProcessingReserveTakesTail = "lua-processing-reserve-takes-tail": "legacy reserve takes the tail of the ready list (LIFO)";
    LuaProcessingReserveEmptyGivesBody = "lua-processing-reserve-empty-gives-body": "legacy reserve on an empty ready list hands an empty body instead of nothing";
    LuaProcessingReserveNoDeadline = "lua-processing-reserve-no-deadline": "legacy reserve records no deadline member";
    LuaProcessingReserveIgnoresDeadline = "lua-processing-reserve-ignores-deadline": "legacy reserve records the deadline member at +inf instead of its deadline";
    LuaProcessingReserveMemberWithoutToken = "lua-processing-reserve-member-without-token": "legacy reserve records the raw body as the deadline member, without <token>:";
    LuaProcessingReserveStaysInReady = "lua-processing-reserve-stays-in-ready": "legacy reserve moves the body within the ready list instead of to :processing";
    LuaProcessingReserveHandsMember = "lua-processing-reserve-hands-member": "legacy reserve hands the handler the deadline member instead of the raw body";
    LuaProcessingSettleUngated = "lua-processing-settle-ungated": "legacy ack, release and dead-letter run without the ZREM gate";
    LuaProcessingSettleKeepsMember = "lua-processing-settle-keeps-member": "legacy ack, release and dead-letter check the deadline member but do not remove it";
    LuaProcessingSettleLremAll = "lua-processing-settle-lrem-all": "legacy ack, release and dead-letter remove every copy of the body from :processing (LREM count 0)";
    LuaProcessingSettleLremMember = "lua-processing-settle-lrem-member": "legacy ack, release and dead-letter LREM the member text instead of the raw body";
    LuaProcessingSettleWritesNothing = "lua-processing-settle-writes-nothing": "legacy release and dead-letter write nothing to their target list";
    LuaProcessingSettleWritesRaw = "lua-processing-settle-writes-raw": "legacy release and dead-letter write the raw body instead of the retry or the record";
    LuaProcessingSettlePushesToHead = "lua-processing-settle-pushes-to-head": "legacy release and dead-letter put the payload at the head of their target list";
    LuaProcessingSettleReportsNotApplied = "lua-processing-settle-reports-not-applied": "legacy ack, release and dead-letter report 0 after the gate opened";
    LuaProcessingSweepExclusiveNow = "lua-processing-sweep-exclusive-now": "the legacy sweep takes only members with a deadline before the current second";
    LuaProcessingSweepIgnoresNow = "lua-processing-sweep-ignores-now": "the legacy sweep takes every member, expired or not";
    LuaProcessingSweepOneChunk = "lua-processing-sweep-one-chunk": "the legacy sweep stops after the first chunk of 100";
    LuaProcessingSweepRemovesFirstOnly = "lua-processing-sweep-removes-first-only": "the legacy sweep removes only the first member of a chunk (the others are seen again)";
    LuaProcessingSweepSkipsFormatCheck = "lua-processing-sweep-skips-format-check": "the legacy sweep treats every member as <token>:<raw>";
    LuaProcessingSweepTokenAnyCase = "lua-processing-sweep-token-any-case": "the legacy sweep takes an uppercase hex token as well formed";
    LuaProcessingSweepToken31Hex = "lua-processing-sweep-token-31-hex": "the legacy sweep's member format has a 31-hex token";
    LuaProcessingSweepTokenUnanchored = "lua-processing-sweep-token-unanchored": "the legacy sweep finds the token anywhere in the member, not at its start";
    LuaProcessingSweepAnySeparator = "lua-processing-sweep-any-separator": "the legacy sweep takes any character after the token as the separator";
    LuaProcessingSweepRawWithColon = "lua-processing-sweep-raw-with-colon": "the legacy sweep reads the raw body one byte early (with the colon)";
    LuaProcessingSweepLremAll = "lua-processing-sweep-lrem-all": "the legacy sweep removes every copy of an expired body from :processing (LREM count 0)";
    LuaProcessingSweepOrphanCountedMoved = "lua-processing-sweep-orphan-counted-moved": "the legacy sweep counts an orphan as moved";
    LuaProcessingSweepMalformedCountedOrphan = "lua-processing-sweep-malformed-counted-orphan": "the legacy sweep counts a malformed member as an orphan";
    LuaProcessingSweepRequeuesOrphans = "lua-processing-sweep-requeues-orphans": "the legacy sweep puts an orphan's body on the ready list although no copy was in :processing";
    LuaProcessingSweepPushesToHead = "lua-processing-sweep-pushes-to-head": "the legacy sweep pushes recovered bodies to the head of the ready list";
}

impl Fault {
    /// The variant named `name` (exact, kebab-case).
    pub fn parse(name: &str) -> Option<Fault> {
        Fault::ALL.iter().copied().find(|f| f.name() == name)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The `decode-first-key-wins` variant's reading of a body already known to be one JSON
/// object: a repeated top-level key keeps its first value (an empty map if the body is not an
/// object after all).
pub fn first_key_wins(body: &[u8]) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::{Map, Value};
    struct FirstWins;
    impl<'de> serde::de::Visitor<'de> for FirstWins {
        type Value = Map<String, Value>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
            let mut map = Map::new();
            while let Some((key, value)) = access.next_entry::<String, Value>()? {
                map.entry(key).or_insert(value);
            }
            Ok(map)
        }
    }
    serde::Deserializer::deserialize_map(&mut serde_json::Deserializer::from_slice(body), FirstWins).unwrap_or_default()
}

thread_local! {
    static ACTIVE: RefCell<Vec<Fault>> = const { RefCell::new(Vec::new()) };
}

/// Is `fault` switched on for the current thread?
pub fn active(fault: Fault) -> bool {
    ACTIVE.with(|a| a.borrow().contains(&fault))
}

/// Run `f` with `fault` switched on, then switch it off again (also on panic).
pub fn with<R>(fault: Fault, f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            ACTIVE.with(|a| {
                a.borrow_mut().pop();
            });
        }
    }
    ACTIVE.with(|a| a.borrow_mut().push(fault));
    let _reset = Reset;
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_scoped() {
        assert!(!active(Fault::DropUnknownKeys));
        with(Fault::DropUnknownKeys, || {
            assert!(active(Fault::DropUnknownKeys));
            assert!(!active(Fault::NoUrnAlias));
        });
        assert!(!active(Fault::DropUnknownKeys));
    }

    #[test]
    fn first_key_wins_keeps_the_first_of_a_repeated_key() {
        let m = first_key_wins(br#"{"job":"a","data":{"x":1},"job":"b","data":{}}"#);
        assert_eq!(serde_json::Value::Object(m), serde_json::json!({"job": "a", "data": {"x": 1}}));
        assert!(first_key_wins(b"[1]").is_empty());
    }

    #[test]
    fn names_are_unique_kebab_case_and_parse_back() {
        let mut names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
        for (f, n) in Fault::ALL.iter().zip(&names) {
            assert_eq!(Fault::parse(n), Some(*f));
            assert!(n.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{n}");
            assert!(!f.breaks().is_empty());
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Fault::ALL.len(), "a name is used twice");
        assert_eq!(Fault::parse("no-such-variant"), None);
    }
}
