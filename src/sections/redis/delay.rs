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
use crate::sections::{Block, Catch, Contract, Definition, Field, Reader, RunCx, Version, catch, ensure};
use crate::suite::Scope;

use super::dsl::{DelayCase, parse_delay_case};
use super::layout::report;

/// The `redis_delay` section.
pub struct RedisDelay;

impl Definition for RedisDelay {
    const NAME: &'static str = "redis_delay";
    const SINCE: Version = (1, 6, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 6, 0))];
    const SCOPE: Scope = Scope::Redis;
    const CATCHES: &'static [Catch] = &[catch(Broken::RedisFloorOfSum, &["floor-of-sum-would-differ"])];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field { name: "name", ty: "string", meaning: "The case id." },
            Field { name: "description", ty: "string (optional)", meaning: "What the case pins, for people; not compared." },
            Field {
                name: "now",
                ty: "number: epoch seconds (fractional allowed)",
                meaning: "The clock the score is computed at, pinned by the case instead of read from the system.",
            },
            Field {
                name: "delay",
                ty: "number: seconds (fractional allowed, ≥ 0)",
                meaning: "The delay the item is pushed or released with.",
            },
            Field {
                name: "expected_score",
                ty: "integer: epoch seconds",
                meaning: "The available-at score of the delayed item: floor(`now`) + ceil(`delay`).",
            },
        ],
        steps: &[
            "Call the SDK's rule for the score of a delayed Redis item (the one its push with a delay and its release write to the `:delayed` zset) with the clock set to `now` and the delay `delay`. It is arithmetic: no Redis is needed, and nothing is skipped for want of one.",
            "The case passes when the score equals `expected_score` exactly, an integer: floor(now) + ceil(delay), never Laravel's floor(now + delay), which differs when the delay has a fraction and the two fractions add up to less than a second (now 1000.2, delay 1.5: 1002, not 1001; at now 1000.7 both give 1002). A delay of 0 scores floor(now), already due.",
            "Report `pass`, or `fail` with the score it got (for example \"now 1000.2 with delay 1.5 scored 1001, expected 1002\"); an error is a `fail` with its text.",
        ],
        operations: &["redis_delayed_score"],
    };
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
