//! Section `redis` (scope redis, broker-bindings §1): `payload_identity`.
//!
//! Case: `payload_identity` `{description, envelope_file}`.
//!
//! Runner: in each layout, producing the fixture stores exactly its bytes as the only
//! ready-list element (no wrapper, no added field), and a reserve hands back exactly those
//! bytes. Needs a live Redis ([`super::link::RedisLink`] applies the runner contract).

use crate::results::Outcome;
use crate::sdk::ops::{RedisAck, RedisPush, RedisQueueOp};
use crate::sdk::reference::Broken;
use crate::sdk::wire::{Bytes, RedisLayout, RedisRole, RedisTarget};
use crate::sdk::{Calls, Sdk};
use crate::sections::{Block, Catch, Check, Contract, Definition, Field, Fixture, Needs, Reader, RunCx, Version, catch, ensure, quoted, quoted_list};
use crate::suite::Scope;

use super::link::Keyspace;

/// The `redis` section.
pub struct Redis;

const QUEUE: &str = "orders";

impl Definition for Redis {
    const NAME: &'static str = "redis";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[
        Block::new("payload_identity", (1, 0, 0)),
    ];
    const SCOPE: Scope = Scope::Redis;
    const CATCHES: &'static [Catch] = &[catch(Broken::RedisReserveHandsMember, &["payload_identity"])];
    const EARLY: bool = true;
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field { name: "description", ty: "string", meaning: "What the case pins, for people; not compared." },
            Field {
                name: "envelope_file",
                ty: "string: a suite-relative path, `fixtures/…`",
                meaning: "The envelope pushed: exactly the bytes of that file, which must be the list element and come back from reserve byte for byte.",
            },
        ],
        steps: &[
            "The case needs a live Redis (`BQ_REDIS_URL`); without one, and with `BQ_REQUIRE_REDIS` unset, it may be skipped whole (skip rule `no-live-redis`, citing ADR-0033); with `BQ_REQUIRE_REDIS` set an unreachable Redis is a `fail`. Use a key prefix of the run's own, so nothing else in the database is touched.",
            "In each of the two layouts, the Laravel-compatible zset layout (ready list `<prefix>queues:orders`) and the legacy `:processing` layout (ready list `<prefix>orders`), with the queue `orders` and an empty ready list: push `envelope_file` with the SDK's producer.",
            "Read the ready list with LRANGE: it must hold exactly one element, exactly the fixture's bytes (no wrapper, no field added, no re-encoding).",
            "Reserve with the SDK's consumer: it must hand back exactly those bytes (not the stored member in some other form); then acknowledge it, leaving the keys clean.",
            "Report `pass`, or `fail` naming the layout and what differed.",
        ],
        operations: &["redis_push", "redis_reserve", "redis_ack"],
    };
    type Case<'s> = Fixture<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Fixture<'s>> {
        let at = r.root();
        r.object(&at)?;
        r.file(&at, "envelope_file")
    }

    fn needs(_: &Fixture<'_>) -> Needs {
        Needs::Redis
    }

    fn run(cx: &mut RunCx<'_>, fixture: &Fixture<'_>) -> Outcome {
        let RunCx { sdk, redis } = cx;
        redis.run(|space| {
            RedisLayout::ALL.into_iter().try_for_each(|layout| identity(&mut **sdk, space, layout, fixture.bytes))
        })
    }
}

fn identity(sdk: &mut dyn Sdk, space: &Keyspace<'_>, layout: RedisLayout, body: &[u8]) -> Check {
    let target = RedisTarget {
        url: space.url().to_owned(),
        prefix: space.prefix.clone(),
        queue: QUEUE.to_owned(),
        layout,
        retry_after: Some(60),
        now: None,
    };
    let name = layout.as_str();
    let fail = |e: crate::sdk::SdkError| format!("{name} layout: {e}");
    sdk.redis_push(RedisPush { target: target.clone(), body: Bytes::from(body) }).map_err(fail)?;
    let ready = super::key(layout, &space.prefix, QUEUE, RedisRole::Ready).unwrap_or_default();
    let stored: Vec<Vec<u8>> = space.with(|con| redis::cmd("LRANGE").arg(&ready).arg(0).arg(-1).query(con))?;
    ensure(stored.len() == 1 && stored[0] == body, || {
        format!("{name} layout: the ready list holds {}, not exactly the fixture's bytes", quoted_list(lossy(&stored)))
    })?;
    let got = sdk
        .redis_reserve(RedisQueueOp { target: target.clone() })
        .map_err(fail)?
        .ok_or_else(|| format!("{name} layout: reserve got nothing"))?;
    ensure(got.body.as_slice() == body, || {
        format!(
            "{name} layout: reserve handed {}, not the fixture's bytes",
            quoted(&String::from_utf8_lossy(got.body.as_slice()))
        )
    })?;
    sdk.redis_ack(RedisAck { target, reservation: got.reservation }).map_err(fail)?;
    Ok(())
}

fn lossy(items: &[Vec<u8>]) -> Vec<String> {
    items.iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect()
}
