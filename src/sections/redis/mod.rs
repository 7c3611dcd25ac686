//! The Redis sections: `redis` (payload identity), `redis_layout` (key names and the
//! behavioural case language) and `redis_delay` (the delayed score), all scope redis; the case
//! language ([`dsl`]), the judge's connection and runner contract ([`link`]), its watch over the
//! commands an operation sends ([`watch`]), and the judge's own reading of the layouts (below).
//!
//! Invariants: the judge knows the key names of both layouts from the contract (broker-bindings
//! §1.1 / §1.7, decisions R11 / R12: `queues:<q>`, `:delayed`, `:reserved`, `:notify`,
//! `:dlq`; `<q>`, `<q>:processing`, `<q>:processing:deadlines`, `<q>:dlq`, each behind the
//! case's prefix) and reads them itself; it never asks the SDK where to look, so an SDK that
//! writes elsewhere fails.

sections! {
    delay: RedisDelay;
    layout: RedisLayout;
    payload: Redis;
}

pub mod dsl;
pub mod link;
pub mod watch;

use crate::sdk::wire::{RedisLayout, RedisRole};

/// The roles a layout has keys for, in a fixed order.
pub fn roles(layout: RedisLayout) -> &'static [RedisRole] {
    match layout {
        RedisLayout::Zset => {
            &[RedisRole::Ready, RedisRole::Delayed, RedisRole::Reserved, RedisRole::Notify, RedisRole::Dlq]
        }
        RedisLayout::Processing => &[RedisRole::Ready, RedisRole::Processing, RedisRole::Deadlines, RedisRole::Dlq],
    }
}

/// The layout spelled `s`.
pub fn parse_layout(s: &str) -> Option<RedisLayout> {
    RedisLayout::ALL.into_iter().find(|l| l.as_str() == s)
}

/// The role spelled `s`.
pub fn parse_role(s: &str) -> Option<RedisRole> {
    RedisRole::ALL.into_iter().find(|r| r.as_str() == s)
}

/// Is the key of `role` a sorted set (its members carry scores)? Otherwise it is a list.
pub fn is_sorted_set(role: RedisRole) -> bool {
    matches!(role, RedisRole::Delayed | RedisRole::Reserved | RedisRole::Deadlines)
}

/// The key of `role` for `queue` in `layout`, behind `prefix` (`None`: the layout has none).
pub fn key(layout: RedisLayout, prefix: &str, queue: &str, role: RedisRole) -> Option<String> {
    if !roles(layout).contains(&role) {
        return None;
    }
    let base = match layout {
        RedisLayout::Zset => format!("{prefix}queues:{queue}"),
        RedisLayout::Processing => format!("{prefix}{queue}"),
    };
    let suffix = match role {
        RedisRole::Ready => "",
        RedisRole::Delayed => ":delayed",
        RedisRole::Reserved => ":reserved",
        RedisRole::Notify => ":notify",
        RedisRole::Processing => ":processing",
        RedisRole::Deadlines => ":processing:deadlines",
        RedisRole::Dlq => ":dlq",
    };
    Some(format!("{base}{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judge_knows_the_key_names() {
        assert_eq!(key(RedisLayout::Zset, "p:", "q", RedisRole::Ready).as_deref(), Some("p:queues:q"));
        assert_eq!(key(RedisLayout::Zset, "", "q", RedisRole::Dlq).as_deref(), Some("queues:q:dlq"));
        assert_eq!(
            key(RedisLayout::Processing, "", "q", RedisRole::Deadlines).as_deref(),
            Some("q:processing:deadlines")
        );
        assert_eq!(key(RedisLayout::Processing, "", "q", RedisRole::Delayed), None);
        for r in RedisRole::ALL {
            assert_eq!(parse_role(r.as_str()), Some(r));
        }
        assert_eq!(parse_layout("Zset"), None);
    }
}
