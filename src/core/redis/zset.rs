//! The Laravel-compatible zset layout (broker-bindings §1.1, decisions R11). The invariants are
//! stated on [`super`]; this file only carries them out.

use redis::ConnectionLike;

use super::lua::Lua;
use super::{Delivery, Error, Handle, PoisonReservation, Queue, RetryAfter, Role};
use super::{available_at, deadline, now_second};
use crate::fault::{self, Fault};

/// What the poison branch of the reserve script means, for the dead-letter record.
const A1_POISON: &str = "the reserve script could not decode the body as an object with a numeric attempts, \
                         or could not encode it again (A1 guard)";

pub(super) fn push(q: &Queue, con: &mut dyn ConnectionLike, body: &[u8]) -> Result<(), Error> {
    redis::pipe()
        .atomic()
        .rpush(q.keys.key(Role::Ready), body)
        .ignore()
        .rpush(q.keys.key(Role::Notify), "1")
        .ignore()
        .exec(con)?;
    Ok(())
}

pub(super) fn push_delayed(q: &Queue, con: &mut dyn ConnectionLike, body: &[u8], delay: f64) -> Result<(), Error> {
    let now = q.now();
    let score = available_at(now, delay)?;
    if delay <= 0.0 {
        return push(q, con, body);
    }
    redis::cmd("ZADD").arg(q.keys.key(Role::Delayed)).arg(score).arg(body).exec(con)?;
    Ok(())
}

pub(super) fn migrate(q: &Queue, con: &mut dyn ConnectionLike) -> Result<u64, Error> {
    let now = now_second(q.now())?;
    let mut moved = 0;
    // Due delayed items first, then expired reservations: a retry released earlier is not
    // overtaken by a reservation that merely timed out. A consumer with `retry_after: null`
    // migrates only the delayed set (Laravel's order, wire facts §3.1): expired reservations are
    // left to a consumer with a finite retry_after.
    let from: &[Role] = match q.retry_after {
        RetryAfter::Never if !fault::active(Fault::RedisNullMigratesReserved) => &[Role::Delayed],
        _ => &[Role::Delayed, Role::Reserved],
    };
    for &from in from {
        let n: u64 = Lua::ZsetMigrate
            .script()
            .key(q.keys.key(from))
            .key(q.keys.key(Role::Ready))
            .key(q.keys.key(Role::Notify))
            .arg(now)
            .invoke(con)?;
        moved += n;
    }
    Ok(moved)
}

pub(super) fn reserve(q: &Queue, con: &mut dyn ConnectionLike) -> Result<Option<Delivery>, Error> {
    migrate(q, con)?;
    let until = deadline(q.now(), q.retry_after)?;
    let got: Option<(Vec<u8>, Vec<u8>, i64)> = Lua::ZsetReserve
        .script()
        .key(q.keys.key(Role::Ready))
        .key(q.keys.key(Role::Reserved))
        .key(q.keys.key(Role::Notify))
        .arg(until.to_arg())
        .invoke(con)?;
    let Some((raw, member, poison)) = got else {
        return Ok(None);
    };
    let handed = if fault::active(Fault::RedisReserveHandsMember) { member.clone() } else { raw };
    if poison != 0 {
        let handle = Handle::Member(member);
        return Ok(Some(Delivery::Poison(PoisonReservation { body: handed, error: A1_POISON.to_owned(), handle })));
    }
    Ok(Some(Queue::deliver(handed, Handle::Member(member))))
}

pub(super) fn ack(q: &Queue, con: &mut dyn ConnectionLike, member: &[u8]) -> Result<bool, Error> {
    let removed: u64 = redis::cmd("ZREM").arg(q.keys.key(Role::Reserved)).arg(member).query(con)?;
    Ok(removed == 1)
}

pub(super) fn release(
    q: &Queue,
    con: &mut dyn ConnectionLike,
    member: &[u8],
    retry_body: &[u8],
    delay: f64,
) -> Result<bool, Error> {
    let score = available_at(q.now(), delay)?;
    let written = if fault::active(Fault::RedisReleaseWritesMember) { member } else { retry_body };
    settle(q, con, member, Role::Delayed, written, Some(score))
}

pub(super) fn dead_letter(
    q: &Queue,
    con: &mut dyn ConnectionLike,
    member: &[u8],
    record: &[u8],
) -> Result<bool, Error> {
    settle(q, con, member, Role::Dlq, record, None)
}

/// While the reservation `member` exists, remove it and write `payload` to `target`: at
/// `score` into a sorted set, else to the tail of a list. Returns whether it did.
fn settle(
    q: &Queue,
    con: &mut dyn ConnectionLike,
    member: &[u8],
    target: Role,
    payload: &[u8],
    score: Option<i64>,
) -> Result<bool, Error> {
    let script = Lua::ZsetSettle.script();
    let mut call = script.key(q.keys.key(Role::Reserved));
    call.key(q.keys.key(target)).arg(member);
    match score {
        Some(s) => call.arg("zadd").arg(payload).arg(s),
        None => call.arg("rpush").arg(payload),
    };
    let moved: u64 = call.invoke(con)?;
    Ok(moved == 1)
}
