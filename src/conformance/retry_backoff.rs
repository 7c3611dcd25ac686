//! Section `retry_backoff`: the core retry delay formula (broker-bindings §6.5, ADR-0034 §9).
//!
//! Runner: build the policy from the case (`retry_backoff`, optional `multiplier` and `max`,
//! `jitter`) and ask it for the delay of retry `n`. `jitter: none` — the delay equals
//! `expect_delay_ms`. `jitter: full` — the delay is drawn [`DRAWS`] times with a generator of a
//! fixed seed and [`DRAWS`] times with one seeded from OS entropy, and every draw must lie within
//! `expect_delay_range_ms` (inclusive); nothing else about the distribution is asserted.

use serde_json::Value;

use crate::core::retry::{Backoff, Jitter, SplitMix64};
use crate::suite::CaseRef;

use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// Draws per random source for a full-jitter case.
pub const DRAWS: usize = 2000;
/// The fixed seed of the reproducible source.
const SEED: u64 = 0x0062_7173_7569_7465; // "bqsuite" in ASCII

/// The `retry_backoff` runner.
pub struct RetryBackoff;

impl SectionRunner for RetryBackoff {
    fn run_case(&mut self, _: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        check(case.value).into()
    }
}

fn check(case: &Value) -> Check {
    let mut policy = Backoff::new(fields::u64(case, "retry_backoff")?);
    if case.get("multiplier").is_some() {
        let m = fields::req(case, "multiplier")?.as_f64().ok_or("\"multiplier\" is not a number")?;
        policy = policy.multiplier(m).map_err(|e| e.to_string())?;
    }
    if case.get("max").is_some() {
        policy = policy.max(fields::u64(case, "max")?);
    }
    let jitter = fields::str(case, "jitter")?;
    let jitter = Jitter::parse(jitter).ok_or_else(|| format!("unknown jitter {jitter:?}"))?;
    let policy = policy.jitter(jitter);
    let n = u32::try_from(fields::u64(case, "n")?).map_err(|_| "\"n\" does not fit a retry counter")?;
    match jitter {
        Jitter::None => {
            let want = fields::u64(case, "expect_delay_ms")?;
            let got = policy.delay(n, &mut SplitMix64::seeded(SEED)).map_err(|e| e.to_string())?;
            ensure(got == want, || format!("delay {got} ms, expected {want} ms"))
        }
        Jitter::Full => {
            let range = fields::array(case, "expect_delay_range_ms")?;
            let [lo, hi] = range else { return Err("\"expect_delay_range_ms\" is not [min, max]".into()) };
            let (Some(lo), Some(hi)) = (lo.as_u64(), hi.as_u64()) else {
                return Err("\"expect_delay_range_ms\" bounds are not non-negative integers".into());
            };
            for (source, mut rng) in [("seeded", SplitMix64::seeded(SEED)), ("unseeded", SplitMix64::from_entropy())] {
                for i in 0..DRAWS {
                    let got = policy.delay(n, &mut rng).map_err(|e| e.to_string())?;
                    ensure((lo..=hi).contains(&got), || {
                        format!("{source} draw {i}: delay {got} ms is outside [{lo}, {hi}]")
                    })?;
                }
            }
            Ok(())
        }
    }
}
