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
    RedisSweepToFront = "redis-sweep-to-front": "the legacy sweep pushes recovered bodies to the front of the ready list";
    RedisAckWithoutGate = "redis-ack-without-gate": "the legacy ack removes the body from :processing without the ZREM gate";
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
