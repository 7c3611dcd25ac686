//! Section `redis` (scope redis, broker-bindings §1): `payload_identity`.
//!
//! Runner: in each layout of the reference transport, producing the fixture stores exactly its
//! bytes as the only ready-list element (no wrapper, no added field), and a reserve hands back
//! exactly those bytes. Needs a live Redis ([`super::RedisLink`] applies the runner contract).

use std::sync::Arc;

use crate::core::redis::{Keys, LayoutKind, Queue, RetryAfter, Role, SystemClock};
use crate::suite::CaseRef;

use super::{Check, Outcome, RunCx, SectionRunner, ensure};

/// The `redis` runner.
pub struct Redis;

impl SectionRunner for Redis {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        if case.id != "payload_identity" {
            return Outcome::fail(format!("case {:?} is not implemented by the reference core", case.id));
        }
        let Some(file) = case.value.get("envelope_file").and_then(|v| v.as_str()) else {
            return Outcome::fail("case has no \"envelope_file\" string");
        };
        let body = match cx.bytes(file) {
            Ok(b) => b,
            Err(e) => return Outcome::fail(e),
        };
        cx.redis.run(|con, prefix| LayoutKind::ALL.into_iter().try_for_each(|kind| identity(con, prefix, kind, body)))
    }
}

fn identity(con: &mut dyn redis::ConnectionLike, prefix: &str, kind: LayoutKind, body: &[u8]) -> Check {
    let queue = Queue::new(Keys::new(kind, prefix, "orders"), RetryAfter::DEFAULT, Arc::new(SystemClock));
    let fail = |e: crate::core::redis::Error| format!("{kind:?} layout: {e}");
    queue.push(con, body).map_err(fail)?;
    let ready = queue.keys().get(Role::Ready).unwrap_or_default();
    let stored: Vec<Vec<u8>> =
        redis::cmd("LRANGE").arg(&ready).arg(0).arg(-1).query(con).map_err(|e| format!("LRANGE {ready}: {e}"))?;
    ensure(stored.len() == 1 && stored[0] == body, || {
        format!("{kind:?} layout: the ready list holds {:?}, not exactly the fixture's bytes", lossy(&stored))
    })?;
    let got = queue.reserve(con).map_err(fail)?.ok_or_else(|| format!("{kind:?} layout: reserve got nothing"))?;
    ensure(got.body() == body, || {
        format!("{kind:?} layout: reserve handed {:?}, not the fixture's bytes", String::from_utf8_lossy(got.body()))
    })?;
    queue.ack(con, &got).map_err(fail)?;
    Ok(())
}

fn lossy(items: &[Vec<u8>]) -> Vec<String> {
    items.iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect()
}
