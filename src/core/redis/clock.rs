//! Time for the Redis transport: the injected clock and the score rules.
//!
//! Invariants: every time the transport reads comes from its [`Clock`], never from the system
//! directly, so a caller can pin it; scores are integer epoch seconds; an available-at score is
//! `floor(now) + ceil(delay)` (broker-bindings §1.6, `redis_delay`: now 1000.7 and delay 1.5
//! give 1002, where Laravel's own `floor(now + delay)` would give 1002 too but now 1000.2 gives
//! 1002 against Laravel's 1001); a reservation deadline is `floor(now) + retry_after`, or
//! `+inf` when `retry_after` is null (the item is never recovered by anyone's sweep or
//! migrate). A non-finite time or delay, or a score beyond ±2^53 (where seconds stop being
//! exact in a double, Lua's only number type), is an error, never a silently wrong score.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::fault::{self, Fault};

/// The largest magnitude a score may have: integers up to 2^53 are exact in a double.
const MAX_SCORE: f64 = 9_007_199_254_740_992.0;

/// Where the transport reads the current time from: Unix epoch seconds, fractional.
pub trait Clock: Send + Sync {
    /// Now, in seconds since the Unix epoch.
    fn now(&self) -> f64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> f64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
    }
}

/// A clock that says whatever it was last set to (for runners and tests).
#[derive(Debug, Default)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    /// A clock showing `now`.
    pub fn new(now: f64) -> Self {
        Self(AtomicU64::new(now.to_bits()))
    }
}

impl Clock for ManualClock {
    fn now(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::SeqCst))
    }
}

/// A zset score the transport writes: integer epoch seconds, or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    At(i64),
    /// `+inf`: no finite time ever reaches it.
    Never,
}

impl Score {
    /// The score as Redis reads it in ZADD.
    pub fn to_arg(self) -> String {
        match self {
            Score::At(s) => s.to_string(),
            Score::Never => "+inf".to_owned(),
        }
    }
}

/// How long a reservation may stay unacknowledged before a migrate or sweep recovers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfter {
    Seconds(u64),
    /// `retry_after: null`: this consumer's own reservations never expire.
    Never,
}

impl RetryAfter {
    /// Laravel's default, 60 seconds.
    pub const DEFAULT: RetryAfter = RetryAfter::Seconds(60);
}

/// A time or delay the transport cannot turn into a score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeError {
    /// `now` or `delay` is NaN or infinite.
    NotFinite(f64),
    /// The score would not be exact in a double.
    OutOfRange(f64),
}

impl std::fmt::Display for TimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeError::NotFinite(x) => write!(f, "time {x} is not a finite number of seconds"),
            TimeError::OutOfRange(x) => write!(f, "score {x} is beyond ±2^53 seconds"),
        }
    }
}

impl std::error::Error for TimeError {}

fn finite(x: f64) -> Result<f64, TimeError> {
    if x.is_finite() { Ok(x) } else { Err(TimeError::NotFinite(x)) }
}

fn exact(score: f64) -> Result<i64, TimeError> {
    if score.abs() <= MAX_SCORE { Ok(score as i64) } else { Err(TimeError::OutOfRange(score)) }
}

/// `floor(now)` as integer epoch seconds: the "current second" due checks compare against.
pub fn now_second(now: f64) -> Result<i64, TimeError> {
    exact(finite(now)?.floor())
}

/// The available-at score of an item delayed by `delay` seconds at `now`:
/// `floor(now) + ceil(delay)`.
pub fn available_at(now: f64, delay: f64) -> Result<i64, TimeError> {
    let (now, delay) = (finite(now)?, finite(delay)?);
    if fault::active(Fault::RedisFloorOfSum) {
        return exact((now + delay).floor());
    }
    exact(now.floor() + delay.ceil())
}

/// The deadline of a reservation made at `now`: `floor(now) + retry_after`, or never.
pub fn deadline(now: f64, retry_after: RetryAfter) -> Result<Score, TimeError> {
    match retry_after {
        RetryAfter::Never => Ok(Score::Never),
        RetryAfter::Seconds(s) => exact(finite(now)?.floor() + s as f64).map(Score::At),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{self, Fault};

    #[test]
    fn available_at_is_floor_now_plus_ceil_delay() {
        assert_eq!(available_at(1000.7, 1.5), Ok(1002));
        assert_eq!(available_at(1000.2, 1.5), Ok(1002));
        assert_eq!(available_at(1000.0, 0.0), Ok(1000));
        assert_eq!(available_at(1000.9, 0.1), Ok(1001));
        assert_eq!(available_at(1000.0, -1.5), Ok(999));
        assert!(matches!(available_at(f64::NAN, 1.0), Err(TimeError::NotFinite(_))));
        assert!(matches!(available_at(1.0, f64::INFINITY), Err(TimeError::NotFinite(_))));
        assert!(matches!(available_at(1e300, 1.0), Err(TimeError::OutOfRange(_))));
    }

    #[test]
    fn the_laravel_fault_floors_the_sum() {
        fault::with(Fault::RedisFloorOfSum, || {
            assert_eq!(available_at(1000.2, 1.5), Ok(1001));
        });
        assert_eq!(available_at(1000.2, 1.5), Ok(1002));
    }

    #[test]
    fn deadlines() {
        assert_eq!(deadline(1000.9, RetryAfter::Seconds(60)), Ok(Score::At(1060)));
        assert_eq!(deadline(1000.9, RetryAfter::Never), Ok(Score::Never));
        assert_eq!(Score::Never.to_arg(), "+inf");
        assert_eq!(Score::At(-3).to_arg(), "-3");
        assert_eq!(now_second(1000.99), Ok(1000));
    }

    #[test]
    fn a_manual_clock_shows_its_time() {
        let c = ManualClock::new(5.5);
        assert_eq!(c.now(), 5.5);
        assert!(SystemClock.now() > 1.7e9);
    }
}
