//! Section `retry_backoff` (scope core): the core retry delay formula (broker-bindings §6.5,
//! ADR-0034 §9, decisions R14).
//!
//! Case: `{name, retry_backoff, multiplier?, max?, jitter: none | full, n, expect_delay_ms |
//! expect_delay_range_ms}` — integers in milliseconds, `multiplier` a number ≥ 1 that is a
//! binary fraction (at most 8 fractional bits, so that every language's double arithmetic gives
//! the same product; BQ308 otherwise), `n` ≥ 1 (the first retry), `jitter: none` with
//! `expect_delay_ms`, `jitter: full` with `expect_delay_range_ms: [0, d(n)]`. Every integer of
//! milliseconds (`retry_backoff`, `max`, `expect_delay_ms`, both ends of
//! `expect_delay_range_ms`) is at most [`MAX_MS`] = 2^53 − 1 (BQ308): the largest integer every
//! SDK language holds exactly (a JavaScript number, an int64, a PHP int), as the section's
//! description rules, so no SDK overflows or rounds a case.
//!
//! Runner: ask the SDK for the delay of retry `n` under the case's policy. `jitter: none` — one
//! draw equals `expect_delay_ms`. `jitter: full` — [`DRAWS`] draws, every one within
//! `expect_delay_range_ms` (inclusive); nothing else about the distribution is asserted.
//!
//! Cross-checks: `expect_delay_ms` / the upper bound of `expect_delay_range_ms` equal `d(n) =
//! floor(min(max, retry_backoff × multiplier^(n−1)))` computed in exact rational arithmetic
//! (BQ830).

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Jitter, RetryDelay};
use crate::sdk::reference::Broken;
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Reader, RunCx, Version, catch, ensure};
use crate::suite::{MANIFEST, Scope, pointer};

/// The largest number of milliseconds a case may hold: 2^53 − 1, JavaScript's
/// `Number.MAX_SAFE_INTEGER` (about 285,000 years), exact in a double and in an int64.
pub const MAX_MS: u64 = (1 << 53) - 1;

/// A millisecond value within [`MAX_MS`], or a problem at `at/key` (BQ308).
fn within_max(r: &mut Reader<'_>, at: &str, key: &str, ms: Option<u64>) -> Option<u64> {
    match ms {
        Some(ms) if ms > MAX_MS => {
            r.bad_value(
                pointer::join(at, key),
                format!(
                    "{ms} ms is more than 2^53 − 1 ({MAX_MS}), the largest integer every SDK holds exactly (a \
                     JavaScript number rounds above it, an int64 overflows above 2^63 − 1): the section's description \
                     bounds every millisecond value of a case by it"
                ),
            );
            None
        }
        ms => ms,
    }
}

/// Draws asked for a full-jitter case.
pub const DRAWS: u32 = 4000;

/// The `retry_backoff` section.
pub struct RetryBackoff;

/// What a case expects.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    Exactly(u64),
    Within(u64, u64),
}

/// A retry_backoff case.
pub struct Case {
    retry_backoff: u64,
    multiplier: Option<f64>,
    /// `multiplier` as `p / 2^k`.
    fraction: (u128, u32),
    max: Option<u64>,
    n: u32,
    expect: Expect,
}

impl Definition for RetryBackoff {
    const NAME: &'static str = "retry_backoff";
    const SINCE: Version = (1, 6, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 6, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] =
        &[catch(Broken::RetryNFromZero, &["first-retry-ignores-multiplier", "doubling-third-retry"])];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field { name: "name", ty: "string", meaning: "The case id." },
            Field {
                name: "retry_backoff",
                ty: "integer 0 … 2^53 − 1, milliseconds",
                meaning: "The policy's first-retry delay.",
            },
            Field {
                name: "multiplier",
                ty: "number ≥ 1 (optional; 1 when absent)",
                meaning: "The policy's growth factor, always a binary fraction (1.5, 2, 2.5), so that double arithmetic gives the exact product.",
            },
            Field {
                name: "max",
                ty: "integer 0 … 2^53 − 1, milliseconds (optional; 0 when absent)",
                meaning: "The policy's cap; 0 means uncapped.",
            },
            Field {
                name: "jitter",
                ty: "string: `none` or `full`",
                meaning: "The policy's jitter; always given (this section pins no default).",
            },
            Field { name: "n", ty: "integer ≥ 1", meaning: "The retry number: the first retry is 1." },
            Field {
                name: "expect_delay_ms",
                ty: "integer 0 … 2^53 − 1, milliseconds (with `jitter: none`)",
                meaning: "The delay the SDK must compute: d(n) = floor(min(max, retry_backoff × multiplier^(n−1))), max 0 being no cap.",
            },
            Field {
                name: "expect_delay_range_ms",
                ty: "array of two integers `[low, high]`, milliseconds (with `jitter: full`)",
                meaning: "Every delay drawn must be a whole number of milliseconds within it, both ends included (always `[0, d(n)]`).",
            },
        ],
        steps: &[
            "Configure the SDK's core retry policy with `retry_backoff`, `multiplier`, `max` and `jitter` (the defaults above for an absent field) and ask it for the delay of retry `n`.",
            "`jitter: none`: the delay must equal `expect_delay_ms` exactly.",
            "`jitter: full`: draw the delay many times (bqsuite's runner draws thousands of times), with a seeded and with an unseeded random source where the SDK takes one; every draw must be within `expect_delay_range_ms`. Nothing about the distribution is asserted.",
            "Report `pass`, or `fail` with the delay that differs (and which draw) as `reason`.",
        ],
        operations: &["retry_delay"],
    };
    type Case<'s> = Case;

    fn read(r: &mut Reader<'_>) -> Option<Case> {
        let at = r.root();
        r.object(&at)?;
        let retry_backoff = r.u64(&at, "retry_backoff");
        let retry_backoff = within_max(r, &at.pointer, "retry_backoff", retry_backoff);
        let multiplier = r.opt_typed(&at, "multiplier", "a number", false, Value::as_f64).ok()?;
        let fraction = match multiplier {
            None => Some((1, 0)),
            Some(m) if m < 1.0 => {
                r.bad_value(pointer::join(&at.pointer, "multiplier"), "multiplier must be a number >= 1");
                None
            }
            Some(m) => binary_fraction(m).or_else(|| {
                r.bad_value(
                    pointer::join(&at.pointer, "multiplier"),
                    "multiplier must be a binary fraction (at most 8 fractional bits) so double arithmetic is exact",
                );
                None
            }),
        };
        let max = r.opt_typed(&at, "max", "a non-negative integer (ms)", false, Value::as_u64).ok()?;
        let max = match max {
            Some(ms) => Some(within_max(r, &at.pointer, "max", Some(ms))?),
            None => None,
        };
        let n = r.u64(&at, "n").and_then(|n| match u32::try_from(n) {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                r.bad_value(
                    pointer::join(&at.pointer, "n"),
                    "n must be an integer from 1 (the first retry) that fits 32 bits",
                );
                None
            }
        });
        let expect = match r.one_of(&at, "jitter", &[("none", Jitter::None), ("full", Jitter::Full)])? {
            Jitter::None => {
                r.expects(&at, "expect_delay_ms");
                let ms = r.u64(&at, "expect_delay_ms");
                within_max(r, &at.pointer, "expect_delay_ms", ms).map(Expect::Exactly)
            }
            Jitter::Full => {
                let range = r.u64_list(&at, "expect_delay_range_ms");
                let p = r.opt(&at, "expect_delay_range_ms");
                match range.as_deref() {
                    Some(&[0, hi]) if hi > MAX_MS => {
                        let at_range = pointer::join(&at.pointer, "expect_delay_range_ms");
                        let _ = within_max(r, &at_range, "1", Some(hi));
                        None
                    }
                    Some(&[0, hi]) => {
                        match p {
                            // A bound below d(n): thousands of draws over [0, d(n)] cross it.
                            Some(p) if hi > 0 => r.slot(&p, || serde_json::json!([0, hi / 2])),
                            // d(n) = 0 has no lower bound to claim: claim a delay instead.
                            _ => r.slot_case(&at, || serde_json::json!({"jitter": "none", "expect_delay_ms": 1})),
                        }
                        Some(Expect::Within(0, hi))
                    }
                    Some(_) => {
                        r.bad_value(
                            pointer::join(&at.pointer, "expect_delay_range_ms"),
                            "jitter full needs expect_delay_range_ms [0, d(n)]",
                        );
                        None
                    }
                    None => None,
                }
            }
        };
        Some(Case { retry_backoff: retry_backoff?, multiplier, fraction: fraction?, max, n: n?, expect: expect? })
    }

    fn check(_cx: &mut CheckCx<'_>, cases: &[Entry<'_, Case>], out: &mut Vec<Finding>) {
        for e in cases {
            let Some(c) = &e.typed else { continue };
            let (got, at) = match c.expect {
                Expect::Exactly(d) => (d, pointer::join(&e.case.pointer, "expect_delay_ms")),
                Expect::Within(_, hi) => (hi, format!("{}/1", pointer::join(&e.case.pointer, "expect_delay_range_ms"))),
            };
            if let Some(d) = exact_delay(c.retry_backoff, c.fraction, c.max.unwrap_or(0), u64::from(c.n))
                && d != u128::from(got)
            {
                out.push(
                    Finding::error(
                        Code::RETRY_BACKOFF_EXPECTATION,
                        format!("case {:?}: d({}) is {d} ms, the case says {got}", e.case.id, c.n),
                    )
                    .in_file(MANIFEST)
                    .at(at),
                );
            }
        }
    }

    fn run(cx: &mut RunCx<'_>, case: &Case) -> Outcome {
        check(cx, case).into()
    }
}

fn check(cx: &mut RunCx<'_>, case: &Case) -> Check {
    let (jitter, draws) = match case.expect {
        Expect::Exactly(_) => (Jitter::None, 1),
        Expect::Within(..) => (Jitter::Full, DRAWS),
    };
    let request = RetryDelay {
        retry_backoff: case.retry_backoff,
        multiplier: case.multiplier,
        max: case.max,
        jitter,
        n: case.n,
        draws,
    };
    let delays = cx.sdk.retry_delay(request).map_err(|e| e.to_string())?;
    ensure(delays.len() == draws as usize, || format!("{} delays for {draws} draws", delays.len()))?;
    match case.expect {
        Expect::Exactly(want) => ensure(delays[0] == want, || format!("delay {} ms, expected {want} ms", delays[0])),
        Expect::Within(lo, hi) => delays.iter().enumerate().try_for_each(|(i, got)| {
            ensure((lo..=hi).contains(got), || format!("draw {i}: delay {got} ms is outside [{lo}, {hi}]"))
        }),
    }
}

/// A multiplier as `p / 2^k` with at most 8 fractional bits.
fn binary_fraction(m: f64) -> Option<(u128, u32)> {
    (0..=8).find_map(|k| {
        let scaled = m * f64::from(1u32 << k);
        (scaled.fract() == 0.0 && scaled < 1e18).then_some((scaled as u128, k))
    })
}

/// `floor(min(max, base × (p/2^k)^(n−1)))` exactly; `None` when it outgrows 128 bits.
fn exact_delay(base: u64, (p, k): (u128, u32), max: u64, n: u64) -> Option<u128> {
    let cap = |x: u128| if max > 0 { x.min(u128::from(max)) } else { x };
    let (mut num, mut shift) = (u128::from(base), 0u32);
    for _ in 1..n {
        if max > 0 && (num >> shift) >= u128::from(max) {
            break; // the factor is >= 1: the cap is reached for good
        }
        num = num.checked_mul(p)?;
        shift += k;
        if shift > 100 {
            return None;
        }
    }
    Some(cap(num >> shift))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_delays() {
        assert_eq!(exact_delay(1000, (2, 0), 0, 3), Some(4000));
        assert_eq!(exact_delay(1000, (3, 1), 2000, 5), Some(2000));
        assert_eq!(exact_delay(100, (3, 1), 0, 2), Some(150));
        assert_eq!(binary_fraction(1.5), Some((3, 1)));
        assert_eq!(binary_fraction(1.1), None);
    }
}
