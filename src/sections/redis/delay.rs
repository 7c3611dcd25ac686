//! Section `redis_delay` (scope redis, broker-bindings §1.6): the available-at score of a
//! delayed item with the clock pinned by the case.
//!
//! Case: `{name, now, delay, expected_score}` ([`super::dsl::parse_delay_case`]).
//!
//! Runner: for `{now, delay}` the SDK's score rule must give exactly `expected_score`. The
//! rule is pure arithmetic, so no Redis is needed (runner contract).

use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::RedisDelayedScore;
use crate::sdk::reference::Broken;
use crate::sections::{Catch, Definition, Reader, RunCx, catch, ensure};
use crate::suite::Scope;

use super::dsl::{DelayCase, parse_delay_case};
use super::layout::report;

/// The `redis_delay` section.
pub struct RedisDelay;

impl Definition for RedisDelay {
    const NAME: &'static str = "redis_delay";
    const SCOPE: Scope = Scope::Redis;
    const CATCHES: &'static [Catch] = &[catch(Broken::RedisFloorOfSum, &["floor-of-sum-would-differ"])];
    type Case<'s> = DelayCase;

    fn read(r: &mut Reader<'_>) -> Option<DelayCase> {
        let at = r.root();
        r.object(&at)?;
        r.expects(&at, "expected_score");
        report(r, parse_delay_case(at.value))
    }

    fn run(cx: &mut RunCx<'_>, c: &DelayCase) -> Outcome {
        let check = match cx.sdk.redis_delayed_score(RedisDelayedScore { now: c.now, delay: c.delay }) {
            Ok(score) => ensure(score == c.expected_score, || {
                format!("now {} with delay {} scored {score}, expected {}", c.now, c.delay, c.expected_score)
            }),
            Err(e) => Err(format!("now {} with delay {}: {e}", c.now, c.delay)),
        };
        check.into()
    }
}
