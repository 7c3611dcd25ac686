//! The core retry delay policy (broker-bindings §6.5, ADR-0034 §9; decisions R14).
//!
//! Rules it keeps:
//!
//! * Inputs are integer milliseconds — `retry_backoff` (the first delay) and `max` (the cap,
//!   `0` = uncapped) — plus a `multiplier` ≥ 1 and a `jitter` mode. Defaults: `multiplier` 1,
//!   `max` 0.
//! * `n` is the retry number: the first retry is `n = 1`. `n = 0` is refused, never mapped.
//! * `d(n) = floor(min(max, retry_backoff × multiplier^(n−1)))` ms, in double arithmetic; the
//!   first retry waits exactly `retry_backoff` whatever the multiplier. Growth past what a `u64`
//!   of milliseconds holds saturates (only reachable when uncapped).
//! * `jitter: none` waits exactly `d(n)`; `jitter: full` waits a uniformly drawn whole number of
//!   milliseconds in `0..=d(n)`. The random source is a parameter ([`Rng`]): the contract pins
//!   the bound, never the distribution, so the generator is the SDK's choice and not the core's
//!   (the reference SDK draws with `fastrand`, seeded for reproducible runs).
//!
//! Kafka does not use this policy for its retry republish (its tiers decide, §6.5).

use std::fmt;

use crate::fault::{self, Fault};

/// How the delay is spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jitter {
    /// Exactly `d(n)`.
    None,
    /// Uniform in `0..=d(n)`.
    Full,
}

/// A retry delay policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    retry_backoff_ms: u64,
    multiplier: f64,
    max_ms: u64,
    jitter: Jitter,
}

/// A policy or retry number the formula does not define.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BackoffError {
    /// The multiplier is below 1 or not a finite number.
    Multiplier(f64),
    /// `n` is 0: retries are numbered from 1.
    RetryZero,
}

impl fmt::Display for BackoffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Multiplier(m) => write!(f, "multiplier {m} is not a finite number >= 1"),
            Self::RetryZero => f.write_str("retry number 0: the first retry is n = 1"),
        }
    }
}

impl std::error::Error for BackoffError {}

impl Backoff {
    /// A policy with the defaults: multiplier 1, uncapped, no jitter.
    pub fn new(retry_backoff_ms: u64) -> Self {
        Self { retry_backoff_ms, multiplier: 1.0, max_ms: 0, jitter: Jitter::None }
    }

    /// Set the multiplier (finite, ≥ 1).
    pub fn multiplier(mut self, m: f64) -> Result<Self, BackoffError> {
        if !(m.is_finite() && m >= 1.0) {
            return Err(BackoffError::Multiplier(m));
        }
        self.multiplier = m;
        Ok(self)
    }

    /// Set the cap in ms (`0` = uncapped).
    pub fn max(mut self, max_ms: u64) -> Self {
        self.max_ms = max_ms;
        self
    }

    /// Set the jitter mode.
    pub fn jitter(mut self, jitter: Jitter) -> Self {
        self.jitter = jitter;
        self
    }

    /// `d(n)`: the un-jittered delay of retry `n` in ms.
    pub fn ceiling(&self, n: u32) -> Result<u64, BackoffError> {
        if n == 0 {
            return Err(BackoffError::RetryZero);
        }
        let exponent = if fault::active(Fault::RetryNFromZero) { n } else { n - 1 };
        let grown = if exponent == 0 || self.multiplier == 1.0 {
            None // exactly retry_backoff, no float rounding
        } else {
            let e = i32::try_from(exponent).unwrap_or(i32::MAX);
            Some(self.retry_backoff_ms as f64 * self.multiplier.powi(e))
        };
        let capped = |ms: u64| if self.max_ms > 0 { ms.min(self.max_ms) } else { ms };
        Ok(match grown {
            None => capped(self.retry_backoff_ms),
            // `as` floors a non-negative double and saturates at u64::MAX (and +inf), so a
            // product past the cap is capped like any other.
            Some(x) => capped(x.floor() as u64),
        })
    }

    /// The delay to wait for a retry whose un-jittered delay is `ceiling` ([`Backoff::ceiling`]),
    /// in ms (the ceiling is computed once for the many draws of one retry).
    pub fn jittered(&self, ceiling: u64, rng: &mut impl Rng) -> u64 {
        match self.jitter {
            Jitter::None => ceiling,
            Jitter::Full => rng.up_to(ceiling),
        }
    }
}

/// A source of uniform draws: the generator behind full jitter, chosen by the SDK.
pub trait Rng {
    /// A whole number drawn uniformly from `0..=max`.
    fn up_to(&mut self, max: u64) -> u64;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Fault, with};

    fn d(base: u64, m: f64, max: u64, n: u32) -> u64 {
        Backoff::new(base).multiplier(m).unwrap().max(max).ceiling(n).unwrap()
    }

    #[test]
    fn the_formula() {
        assert_eq!(d(1000, 1.0, 0, 1), 1000);
        assert_eq!(d(1000, 1.0, 0, 9), 1000);
        assert_eq!(d(500, 3.0, 0, 1), 500, "the first retry ignores the multiplier");
        assert_eq!(d(1000, 2.0, 0, 3), 4000);
        assert_eq!(d(1000, 2.0, 5000, 4), 5000);
        assert_eq!(d(1000, 2.0, 4000, 3), 4000);
        assert_eq!(d(1000, 2.0, 300, 1), 300, "the cap applies from the first retry");
        assert_eq!(d(1000, 2.0, 0, 11), 1_024_000);
        assert_eq!(d(1000, 1.5, 0, 5), 5062, "5062.5 floors");
        assert_eq!(d(3, 1.5, 0, 2), 4);
        assert_eq!(d(0, 2.0, 0, 7), 0);
        assert_eq!(d(1000, 2.0, 0, 5000), u64::MAX, "uncapped growth saturates");
        assert_eq!(d(1000, 2.0, 60_000, u32::MAX), 60_000);
    }

    #[test]
    fn undefined_inputs_are_refused() {
        assert_eq!(Backoff::new(1).ceiling(0), Err(BackoffError::RetryZero));
        for m in [0.5, 0.0, -2.0, f64::NAN, f64::INFINITY] {
            assert!(Backoff::new(1).multiplier(m).is_err(), "{m}");
        }
    }

    #[test]
    fn full_jitter_stays_within_bounds_and_spreads() {
        let b = Backoff::new(1000).multiplier(2.0).unwrap().max(5000).jitter(Jitter::Full);
        let mut rng = fastrand::Rng::with_seed(7);
        let draws: Vec<u64> = (0..2000).map(|_| b.jittered(b.ceiling(3).unwrap(), &mut rng)).collect();
        assert!(draws.iter().all(|&x| x <= 4000));
        assert!(draws.iter().any(|&x| x < 1000) && draws.iter().any(|&x| x > 3000), "uniform over 0..=4000");
        let mut again = fastrand::Rng::with_seed(7);
        assert_eq!(b.jittered(b.ceiling(3).unwrap(), &mut again), draws[0], "seeded runs repeat");
        let zero = Backoff::new(0).jitter(Jitter::Full);
        assert_eq!(zero.jittered(zero.ceiling(1).unwrap(), &mut fastrand::Rng::new()), 0);
        let huge = Backoff::new(1).multiplier(2.0).unwrap().jitter(Jitter::Full);
        assert_eq!(huge.ceiling(200).unwrap(), u64::MAX);
        huge.jittered(u64::MAX, &mut rng); // the whole range, no overflow
    }

    #[test]
    fn a_product_past_the_cap_is_the_cap() {
        assert_eq!(d(1000, 2.0, 60_000, 7), 60_000, "64,000 capped");
        assert_eq!(d(1000, 2.0, 64_000, 7), 64_000, "exactly the cap");
        assert_eq!(d(1000, 2.0, 64_001, 7), 64_000, "below the cap");
        assert_eq!(d(1000, 1e300, 5, 3), 5, "an infinite product");
        assert_eq!(d(0, 1e300, 5, 3), 0, "zero times an infinite product (NaN) is zero");
    }

    #[test]
    fn the_broken_variant_multiplies_the_first_retry() {
        with(Fault::RetryNFromZero, || assert_eq!(d(1000, 2.0, 0, 1), 2000));
    }
}
