//! Kafka retry tiers (broker-bindings §6.3–§6.5, ADR-0034 §9, decisions R9): two separate rules
//! over one tier list.
//!
//! * **Tiers** are delays in milliseconds. The configured list is sorted ascending and tier `n`
//!   (from 1) is the `n`-th smallest; its topic is `<topic>.retry.<n>`. The dead-letter topic is
//!   `<topic>.dlq`. The RECOMMENDED tiers are [`DEFAULT_TIERS_MS`]. A tier of 0 ms or a delay
//!   listed twice is a configuration error: two tiers with one delay have no order, and a zero
//!   tier is no delay at all. No tiers at all is a valid configuration in which nothing can be
//!   delayed.
//! * **Retry / release (§6.5)**: a failed record whose attempts before the failure are
//!   `attempts_before` goes to tier `n = min(attempts_before, N − 1) + 1` — the last tier repeats
//!   once the tiers run out. The retry record carries the body with `attempts_before + 1`, the
//!   header `bq-attempts` equal to it, `bq-delay` = that tier's delay, and `bq-original-topic` =
//!   the work topic: taken from the consumed record's own `bq-original-topic` header when it has a
//!   non-blank UTF-8 one (a record consumed from a retry topic), else the record's topic. The other
//!   BabelQueue headers are re-projected from the new body; any other header of the consumed
//!   record is carried over. With no tiers the retry is refused. Kafka does not use the core
//!   `retry_backoff` formula.
//! * **Requested delay (§6.4)**: publishing with a delay `d` ms goes to the smallest tier whose
//!   delay is ≥ `d`, with `bq-delay` = `d` itself (the consumer of the tier waits exactly the
//!   requested time) and `bq-original-topic` = the work topic; attempts are unchanged. A delay
//!   above the largest tier, or any positive delay with no tiers, is refused (never clamped or
//!   dropped). `d ≤ 0` publishes to the work topic as a normal record, with no `bq-delay` and no
//!   `bq-original-topic`, tiers or not.
//!
//! A delayed or retry record's timestamp is the time it re-enters Kafka (`now`): the tier
//! consumer waits until timestamp + `bq-delay`.

use std::fmt;

use super::{ATTEMPTS, ConsumerRecord, Header, ProducerRecord, header_text, headers, record};
use crate::core::envelope::{self, EncodeError, Envelope};
use crate::core::text::is_blank;
use crate::fault::{self, Fault};

/// The RECOMMENDED retry tiers, in milliseconds.
pub const DEFAULT_TIERS_MS: [u64; 4] = [5_000, 30_000, 300_000, 1_800_000];
/// The delay header (decimal milliseconds).
pub const DELAY: &str = "bq-delay";
/// The header naming the work topic a delayed record returns to.
pub const ORIGINAL_TOPIC: &str = "bq-original-topic";

/// A configured tier list is unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TierError {
    /// A tier of 0 ms.
    Zero,
    /// The same delay listed twice.
    Repeated(u64),
}

impl fmt::Display for TierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Zero => f.write_str("a retry tier must be a positive delay, found 0 ms"),
            Self::Repeated(ms) => write!(f, "the retry tier {ms} ms is listed more than once"),
        }
    }
}

impl std::error::Error for TierError {}

/// A retry or delayed publish was refused: this core's `BabelQueueException` for Kafka.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryError {
    /// No tiers are configured.
    NoTiers,
    /// The requested delay is above the largest tier.
    AboveLargestTier { requested_ms: u64, largest_ms: u64 },
    /// The envelope could not be encoded.
    Encode(EncodeError),
}

impl fmt::Display for RetryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoTiers => f.write_str("no retry tiers are configured, so nothing can be delayed"),
            Self::AboveLargestTier { requested_ms, largest_ms } => {
                write!(f, "a delay of {requested_ms} ms is above the largest retry tier ({largest_ms} ms)")
            }
            Self::Encode(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RetryError {}

/// One tier: its number (from 1) and delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tier {
    pub n: usize,
    pub delay_ms: u64,
}

impl Tier {
    /// The tier's topic for work topic `topic`.
    pub fn topic(&self, topic: &str) -> String {
        format!("{topic}.retry.{}", self.n)
    }
}

/// A validated tier list, ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryTiers(Vec<u64>);

impl RetryTiers {
    /// Validate and sort a configured tier list.
    pub fn new(delays_ms: impl IntoIterator<Item = u64>) -> Result<Self, TierError> {
        let mut v: Vec<u64> = delays_ms.into_iter().collect();
        v.sort_unstable();
        if v.first() == Some(&0) {
            return Err(TierError::Zero);
        }
        if let Some(w) = v.windows(2).find(|w| w[0] == w[1]) {
            return Err(TierError::Repeated(w[0]));
        }
        Ok(Self(v))
    }

    /// The RECOMMENDED tiers.
    pub fn recommended() -> Self {
        Self(DEFAULT_TIERS_MS.to_vec())
    }

    /// No tiers.
    pub fn none() -> Self {
        Self(Vec::new())
    }

    /// Every tier, in order.
    pub fn tiers(&self) -> impl Iterator<Item = Tier> + '_ {
        self.0.iter().enumerate().map(|(i, &delay_ms)| Tier { n: i + 1, delay_ms })
    }

    /// The tier of a retry after `attempts_before` attempts (§6.5); `None` with no tiers.
    pub fn for_retry(&self, attempts_before: u64) -> Option<Tier> {
        let last = self.0.len().checked_sub(1)?;
        let i = usize::try_from(attempts_before).unwrap_or(usize::MAX).min(last);
        Some(Tier { n: i + 1, delay_ms: self.0[i] })
    }

    /// The tier for a requested delay of `requested_ms` > 0 (§6.4).
    pub fn for_delay(&self, requested_ms: u64) -> Result<Tier, RetryError> {
        let largest_ms = *self.0.last().ok_or(RetryError::NoTiers)?;
        self.tiers()
            .find(|t| t.delay_ms >= requested_ms)
            .ok_or(RetryError::AboveLargestTier { requested_ms, largest_ms })
    }
}

/// The dead-letter topic of work topic `topic`.
pub fn dlq_topic(topic: &str) -> String {
    format!("{topic}.dlq")
}

/// The work topic a consumed record belongs to.
pub fn original_topic(rec: &ConsumerRecord) -> &str {
    header_text(&rec.headers, ORIGINAL_TOPIC).filter(|t| !is_blank(t)).unwrap_or(&rec.topic)
}

/// The retry record for a consumed record that failed; `env` is its decoded envelope, whose
/// attempts are the reconciled attempts before this failure.
pub fn retry_record(
    rec: &ConsumerRecord,
    env: &Envelope,
    tiers: &RetryTiers,
    now_ms: i64,
) -> Result<ProducerRecord, RetryError> {
    let tier = tiers.for_retry(env.attempts).ok_or(RetryError::NoTiers)?;
    let work = original_topic(rec).to_owned();
    let mut next = env.clone();
    next.attempts = env.attempts.saturating_add(1);
    let mut out = delayed(&next, &work, tier, tier.delay_ms, now_ms)?;
    let ours: Vec<String> = out.headers.iter().map(|h| h.key.clone()).collect();
    for Header { key, value } in rec.headers.iter() {
        if !ours.contains(key) {
            out.headers.add(key.clone(), value.as_deref());
        }
    }
    debug_assert_eq!(header_text(&out.headers, ATTEMPTS), Some(next.attempts.to_string().as_str()));
    Ok(out)
}

/// The record that publishes `env` on work topic `topic` after a requested delay of
/// `delay_ms` (§6.4).
pub fn delayed_record(
    env: &Envelope,
    topic: &str,
    delay_ms: i64,
    tiers: &RetryTiers,
    now_ms: i64,
) -> Result<ProducerRecord, RetryError> {
    let Ok(requested @ 1..) = u64::try_from(delay_ms) else {
        return record(env, topic).map_err(RetryError::Encode);
    };
    let tier = tiers.for_delay(requested)?;
    let header_ms = if fault::active(Fault::KafkaRequestedDelayUsesTier) { tier.delay_ms } else { requested };
    delayed(env, topic, tier, header_ms, now_ms)
}

fn delayed(env: &Envelope, work: &str, tier: Tier, delay_ms: u64, now_ms: i64) -> Result<ProducerRecord, RetryError> {
    let mut h = headers(env);
    h.add_str(DELAY, &delay_ms.to_string());
    h.add_str(ORIGINAL_TOPIC, work);
    Ok(ProducerRecord {
        topic: tier.topic(work),
        value: envelope::encode(env).map_err(RetryError::Encode)?.into_bytes(),
        headers: h,
        timestamp: Some(now_ms),
    })
}

#[cfg(test)]
mod tests {
    use super::super::Headers;
    use super::super::tests::ORDER;
    use super::*;

    fn order(attempts: u64) -> Envelope {
        let mut env = envelope::decode(ORDER.as_bytes()).unwrap().envelope;
        env.attempts = attempts;
        env
    }

    #[test]
    fn tiers_are_sorted_and_validated() {
        let t = RetryTiers::new([30_000, 5_000]).unwrap();
        assert_eq!(t.tiers().map(|t| (t.n, t.delay_ms)).collect::<Vec<_>>(), [(1, 5_000), (2, 30_000)]);
        assert_eq!(RetryTiers::new([5, 0]), Err(TierError::Zero));
        assert_eq!(RetryTiers::new([5, 7, 5]), Err(TierError::Repeated(5)));
        assert_eq!(RetryTiers::new([]), Ok(RetryTiers::none()));
        assert_eq!(RetryTiers::recommended(), RetryTiers::new(DEFAULT_TIERS_MS).unwrap());
        assert_eq!(dlq_topic("orders"), "orders.dlq");
    }

    #[test]
    fn the_retry_tier_keeps_the_last_one() {
        let t = RetryTiers::recommended();
        let n = |a| t.for_retry(a).unwrap().n;
        assert_eq!([n(0), n(1), n(2), n(3), n(4), n(u64::MAX)], [1, 2, 3, 4, 4, 4]);
        assert_eq!(RetryTiers::none().for_retry(0), None);
    }

    #[test]
    fn a_retry_record_follows_section_6_5() {
        let mut h = headers(&order(2));
        h.add_str(ORIGINAL_TOPIC, "orders");
        h.add_str("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        let rec = ConsumerRecord { topic: "orders.retry.2".into(), value: None, headers: h, timestamp: 0 };
        let out = retry_record(&rec, &order(2), &RetryTiers::recommended(), 42).unwrap();
        assert_eq!(out.topic, "orders.retry.3");
        assert_eq!(header_text(&out.headers, DELAY), Some("300000"));
        assert_eq!(header_text(&out.headers, ATTEMPTS), Some("3"));
        assert_eq!(header_text(&out.headers, ORIGINAL_TOPIC), Some("orders"));
        assert!(header_text(&out.headers, "traceparent").is_some());
        assert_eq!(out.headers.iter().filter(|h| h.key == ATTEMPTS).count(), 1);
        assert_eq!(envelope::decode(&out.value).unwrap().envelope.attempts, 3);
        assert_eq!(out.timestamp, Some(42));
        let none = retry_record(&rec, &order(2), &RetryTiers::none(), 0);
        assert_eq!(none, Err(RetryError::NoTiers));
    }

    #[test]
    fn a_requested_delay_keeps_its_own_value() {
        let t = RetryTiers::recommended();
        let out = delayed_record(&order(0), "orders", 12_000, &t, 7).unwrap();
        assert_eq!(out.topic, "orders.retry.2");
        assert_eq!(header_text(&out.headers, DELAY), Some("12000"));
        assert_eq!(header_text(&out.headers, ORIGINAL_TOPIC), Some("orders"));
        assert_eq!(header_text(&out.headers, ATTEMPTS), Some("0"));
        for now in [0, -5] {
            let out = delayed_record(&order(0), "orders", now, &RetryTiers::none(), 7).unwrap();
            assert_eq!((out.topic.as_str(), out.headers.last(DELAY)), ("orders", None));
        }
        assert_eq!(
            delayed_record(&order(0), "orders", 1_800_001, &t, 0),
            Err(RetryError::AboveLargestTier { requested_ms: 1_800_001, largest_ms: 1_800_000 })
        );
        assert_eq!(delayed_record(&order(0), "orders", 1, &RetryTiers::none(), 0), Err(RetryError::NoTiers));
    }

    #[test]
    fn a_blank_or_null_original_topic_header_is_ignored() {
        for value in [None, Some(&b""[..]), Some(&b" "[..]), Some(&b"\xff"[..])] {
            let mut h = Headers::new();
            h.add(ORIGINAL_TOPIC, value);
            let rec = ConsumerRecord { topic: "orders".into(), value: None, headers: h, timestamp: 0 };
            assert_eq!(original_topic(&rec), "orders");
        }
    }
}
