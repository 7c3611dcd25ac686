//! The legacy SDK-owned `:processing` layout (broker-bindings §1.7, decisions R12). The
//! invariants are stated on [`super`]; this file only carries them out.

use redis::ConnectionLike;

use super::lua::Lua;
use super::{Delivery, Error, Handle, Queue, Role, SweepReport};
use super::{TimeError, deadline, now_second};
use crate::fault::{self, Fault};

/// A fresh reservation token: 128 random bits as 32 lowercase hex digits.
pub(super) fn new_token() -> String {
    // A v4 UUID has fixed version and variant bits in bytes 6 and 8; every other byte is
    // random, so eight random bytes from each of two UUIDs make 128 random bits.
    let random_bytes = |u: uuid::Uuid| {
        let b = *u.as_bytes();
        [b[0], b[1], b[2], b[3], b[4], b[5], b[7], b[9]]
    };
    let bytes: Vec<u8> =
        random_bytes(uuid::Uuid::new_v4()).into_iter().chain(random_bytes(uuid::Uuid::new_v4())).collect();
    crate::core::lower_hex(&bytes)
}

fn member(token: &str, raw: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(token.len() + 1 + raw.len());
    m.extend_from_slice(token.as_bytes());
    m.push(b':');
    m.extend_from_slice(raw);
    m
}

pub(super) fn push(q: &Queue, con: &mut dyn ConnectionLike, body: &[u8]) -> Result<(), Error> {
    redis::cmd("RPUSH").arg(q.keys.key(Role::Ready)).arg(body).exec(con)?;
    Ok(())
}

pub(super) fn sweep(q: &Queue, con: &mut dyn ConnectionLike) -> Result<SweepReport, Error> {
    let now = now_second(q.now())?;
    let (moved, orphaned, malformed): (u64, u64, u64) = Lua::ProcessingSweep
        .script()
        .key(q.keys.key(Role::Deadlines))
        .key(q.keys.key(Role::Processing))
        .key(q.keys.key(Role::Ready))
        .arg(now)
        .invoke(con)?;
    Ok(SweepReport { moved, orphaned, malformed })
}

pub(super) fn reserve(q: &Queue, con: &mut dyn ConnectionLike) -> Result<Option<Delivery>, Error> {
    // Not a kill switch: a consumer whose own reservations never expire still recovers other
    // consumers' expired ones before every reserve.
    sweep(q, con)?;
    let until = deadline(q.now(), q.retry_after)?;
    let token = new_token();
    let raw: Option<Vec<u8>> = Lua::ProcessingReserve
        .script()
        .key(q.keys.key(Role::Ready))
        .key(q.keys.key(Role::Processing))
        .key(q.keys.key(Role::Deadlines))
        .arg(&token)
        .arg(until.to_arg())
        .invoke(con)?;
    Ok(raw.map(|raw| Queue::deliver(raw, Handle::Token(token))))
}

fn settle(
    q: &Queue,
    con: &mut dyn ConnectionLike,
    token: &str,
    raw: &[u8],
    then: Option<(Role, &[u8])>,
) -> Result<bool, Error> {
    let script = Lua::ProcessingSettle.script();
    let mut call = script.key(q.keys.key(Role::Deadlines));
    call.key(q.keys.key(Role::Processing)).arg(member(token, raw)).arg(raw);
    if let Some((target, payload)) = then {
        call.key(q.keys.key(target)).arg(payload);
    }
    let opened: u64 = call.invoke(con)?;
    Ok(opened == 1)
}

pub(super) fn ack(q: &Queue, con: &mut dyn ConnectionLike, token: &str, raw: &[u8]) -> Result<bool, Error> {
    if fault::active(Fault::RedisAckWithoutGate) {
        redis::pipe()
            .atomic()
            .lrem(q.keys.key(Role::Processing), 1, raw)
            .ignore()
            .zrem(q.keys.key(Role::Deadlines), member(token, raw))
            .ignore()
            .exec(con)?;
        return Ok(true);
    }
    settle(q, con, token, raw, None)
}

pub(super) fn release(
    q: &Queue,
    con: &mut dyn ConnectionLike,
    token: &str,
    raw: &[u8],
    retry_body: &[u8],
    delay: f64,
) -> Result<bool, Error> {
    if !delay.is_finite() {
        return Err(TimeError::NotFinite(delay).into());
    }
    if delay > 0.0 {
        return Err(Error::DelayNotSupported(delay));
    }
    settle(q, con, token, raw, Some((Role::Ready, retry_body)))
}

pub(super) fn dead_letter(
    q: &Queue,
    con: &mut dyn ConnectionLike,
    token: &str,
    raw: &[u8],
    record: &[u8],
) -> Result<bool, Error> {
    settle(q, con, token, raw, Some((Role::Dlq, record)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_32_lowercase_hex_and_differ() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')), "{a}");
        assert_ne!(a, b);
    }
}
