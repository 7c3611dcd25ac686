//! Section `redis_delay` (scope redis, broker-bindings §1.6): the available-at score of a
//! delayed item with the clock pinned by the case.
//!
//! Runner: for `{now, delay, expected_score}` the core's score rule must give exactly
//! `expected_score`. The rule is pure arithmetic, so no Redis is needed (runner contract).

use crate::core::redis::available_at;
use crate::suite::CaseRef;
use crate::suite::redis_dsl::{describe, parse_delay_case};

use super::{Outcome, RunCx, SectionRunner, ensure};

/// The `redis_delay` runner.
pub struct RedisDelay;

impl SectionRunner for RedisDelay {
    fn run_case(&mut self, _cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        let c = match parse_delay_case(case.value) {
            Ok(c) => c,
            Err(errors) => return Outcome::fail(describe(&errors)),
        };
        let check = match available_at(c.now, c.delay) {
            Ok(score) => ensure(score == c.expected_score, || {
                format!("now {} with delay {} scored {score}, expected {}", c.now, c.delay, c.expected_score)
            }),
            Err(e) => Err(format!("now {} with delay {}: {e}", c.now, c.delay)),
        };
        check.into()
    }
}
