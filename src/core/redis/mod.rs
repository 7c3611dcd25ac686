//! The reference Redis transport (broker-bindings §1), both layouts, over the `redis` crate's
//! synchronous API with the Lua scripts in `lua/` (included at build time).
//!
//! Invariants every operation keeps:
//!
//! * **The body is the list element.** Push stores the envelope bytes unchanged, with no
//!   wrapper and no added field; a reserve hands the handler the ready-list element byte for
//!   byte ([`Delivery::body`]) in both layouts.
//! * **Zset layout** (§1.1, R11; [`LayoutKind::Zset`]): push appends to `queues:<q>` and one
//!   wake-up token to `:notify`; a delayed push writes `:delayed` at `floor(now) + ceil(delay)`
//!   with no token (a delay ≤ 0 is a plain push, as in every binding); migrate moves due
//!   `:delayed` members (score ≤ floor(now)) and then expired `:reserved` members to the tail of
//!   the ready list in chunks of 100 with one token each; reserve migrates, pops, and stores
//!   the cjson re-encoding with attempts + 1 in `:reserved` at `floor(now) + retry_after`, or
//!   `+inf` for `retry_after: null` (the A1 guard stores a body it cannot decode, that is not an
//!   object, whose attempts is not a number, or that it cannot encode again, raw, and the core
//!   reports it as poison); a consumer with `retry_after: null` migrates only `:delayed`
//!   (Laravel's order, wire facts §3.1: expired reservations are left to a consumer with a
//!   finite retry_after, unlike the legacy layout's sweep, §1.7); release
//!   removes the reservation and writes the *core's* re-encoding of the raw body with
//!   attempts = raw attempts + 1 to `:delayed` at `floor(now) + ceil(delay)` (never the cjson
//!   member, which loses `[]`, number precision and key order); ack removes the reservation.
//! * **Legacy layout** (§1.7, R12; [`LayoutKind::Processing`]): reserve first sweeps, then moves
//!   the head of `<q>` to the tail of `<q>:processing` and adds `<token>:<raw>` (a fresh random
//!   128-bit token, 32 lowercase hex) to `<q>:processing:deadlines` at `floor(now) +
//!   retry_after`, or `+inf` for `retry_after: null`, which still sweeps foreign expired
//!   members before every reserve. The sweep moves one copy (LREM count 1) of each expired raw
//!   to the tail of the ready list byte for byte with attempts unchanged, only removes a member
//!   that is not `<32 lowercase hex>:<raw>`, and only removes the member of an orphan (LREM
//!   returned 0). Ack, release and dead-letter are gated: ZREM of the member first, and only
//!   when it removed something do LREM and the rest run, in the same script; a stale token
//!   touches nothing. The layout has no delayed set: release re-queues at once (at the tail,
//!   attempts + 1) and refuses a positive delay rather than dropping it.
//! * **Gates in both layouts.** Release and dead-letter move a message only while its
//!   reservation still exists, so a late worker can never duplicate a message a migrate or
//!   sweep already recovered; they report whether they did.
//! * **Dead letters** go to the `dlq` list of the layout ([`dlq`] states the record format).
//! * **Time** comes from the injected [`Clock`]; [`Queue::migrate`] and [`Queue::sweep`] also
//!   run on their own.

mod clock;
pub mod dlq;
mod keys;
mod lua;
mod processing;
mod zset;

use std::fmt;
use std::sync::Arc;

use redis::ConnectionLike;

pub use clock::{Clock, ManualClock, RetryAfter, Score, SystemClock, TimeError, available_at, deadline, now_second};
pub use keys::{Keys, LayoutKind, Role};

use crate::core::dead_letter::{Cause, Reason};
use crate::core::envelope::{self, EncodeError, Envelope};

/// Why a transport operation failed.
#[derive(Debug)]
pub enum Error {
    /// Redis refused or the connection failed.
    Redis(redis::RedisError),
    /// A time or delay that has no score.
    Time(TimeError),
    /// The core could not encode the record or the retry body.
    Encode(EncodeError),
    /// The operation does not exist in this layout (a delayed push in the legacy layout, a
    /// sweep in the zset layout).
    NotInLayout { op: &'static str, layout: LayoutKind },
    /// The legacy layout has no delayed set: a release with a positive delay is refused.
    DelayNotSupported(f64),
    /// A delivery made by a queue of the other layout.
    ForeignDelivery,
    /// The body's attempts cannot be counted up.
    AttemptsOverflow,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Redis(e) => write!(f, "redis: {e}"),
            Error::Time(e) => e.fmt(f),
            Error::Encode(e) => e.fmt(f),
            Error::NotInLayout { op, layout } => write!(f, "{op} does not exist in the {layout:?} layout"),
            Error::DelayNotSupported(d) => {
                write!(f, "the :processing layout has no delayed set: cannot release with a delay of {d} s")
            }
            Error::ForeignDelivery => f.write_str("the delivery was made by a queue of the other layout"),
            Error::AttemptsOverflow => f.write_str("attempts cannot be counted up any further"),
        }
    }
}

impl std::error::Error for Error {}

impl From<redis::RedisError> for Error {
    fn from(e: redis::RedisError) -> Self {
        Error::Redis(e)
    }
}

impl From<TimeError> for Error {
    fn from(e: TimeError) -> Self {
        Error::Time(e)
    }
}

impl From<EncodeError> for Error {
    fn from(e: EncodeError) -> Self {
        Error::Encode(e)
    }
}

/// How a reservation is addressed in Redis.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Handle {
    /// Zset layout: the `:reserved` member the reserve script stored.
    Member(Vec<u8>),
    /// Legacy layout: the token of the `<token>:<raw>` deadline member.
    Token(String),
}

/// A reserved message the core decoded: hand it to the handler, then ack, release or
/// dead-letter it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reservation {
    body: Vec<u8>,
    envelope: Box<Envelope>,
    handle: Handle,
}

impl Reservation {
    /// The decoded message.
    pub fn envelope(&self) -> &Envelope {
        &self.envelope
    }
}

/// A reserved body that is poison: no handler sees it; ack or dead-letter it.
#[derive(Debug, Clone, PartialEq)]
pub struct PoisonReservation {
    body: Vec<u8>,
    error: String,
    handle: Handle,
}

impl PoisonReservation {
    /// Why the body is poison.
    pub fn error(&self) -> &str {
        &self.error
    }
}

/// What a reserve got.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    Message(Reservation),
    Poison(PoisonReservation),
}

impl Delivery {
    /// The body as it was in the ready list, byte for byte.
    pub fn body(&self) -> &[u8] {
        match self {
            Delivery::Message(r) => &r.body,
            Delivery::Poison(p) => &p.body,
        }
    }

    fn handle(&self) -> &Handle {
        match self {
            Delivery::Message(r) => &r.handle,
            Delivery::Poison(p) => &p.handle,
        }
    }

    /// Legacy layout: the 32-hex token of this reservation's deadline member.
    pub fn token(&self) -> Option<&str> {
        match self.handle() {
            Handle::Token(t) => Some(t),
            Handle::Member(_) => None,
        }
    }

    /// Is this a poison body?
    pub fn is_poison(&self) -> bool {
        matches!(self, Delivery::Poison(_))
    }
}

/// What a legacy sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Expired reservations whose body went back to the ready list.
    pub moved: u64,
    /// Expired members whose body was no longer in `:processing` (only the member was removed).
    pub orphaned: u64,
    /// Members that are not `<32 lowercase hex>:<raw>` (only removed).
    pub malformed: u64,
}

/// One queue of the reference Redis transport.
#[derive(Clone)]
pub struct Queue {
    keys: Keys,
    retry_after: RetryAfter,
    clock: Arc<dyn Clock>,
}

impl fmt::Debug for Queue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Queue").field("keys", &self.keys).field("retry_after", &self.retry_after).finish()
    }
}

impl Queue {
    /// A queue with these keys, reservation timeout and clock.
    pub fn new(keys: Keys, retry_after: RetryAfter, clock: Arc<dyn Clock>) -> Self {
        Self { keys, retry_after, clock }
    }

    /// The keys.
    pub fn keys(&self) -> &Keys {
        &self.keys
    }

    fn now(&self) -> f64 {
        self.clock.now()
    }

    fn not_in_layout<T>(&self, op: &'static str) -> Result<T, Error> {
        Err(Error::NotInLayout { op, layout: self.keys.kind() })
    }

    /// Produce: append the body to the ready list unchanged.
    pub fn push(&self, con: &mut dyn ConnectionLike, body: &[u8]) -> Result<(), Error> {
        match self.keys.kind() {
            LayoutKind::Zset => zset::push(self, con, body),
            LayoutKind::Processing => processing::push(self, con, body),
        }
    }

    /// Produce with a delay in seconds (zset layout only; a delay ≤ 0 is a plain push).
    pub fn push_delayed(&self, con: &mut dyn ConnectionLike, body: &[u8], delay: f64) -> Result<(), Error> {
        match self.keys.kind() {
            LayoutKind::Zset => zset::push_delayed(self, con, body, delay),
            LayoutKind::Processing => self.not_in_layout("push_delayed"),
        }
    }

    /// Zset layout: move due delayed items, then expired reservations, to the ready list.
    /// Returns how many items moved.
    pub fn migrate(&self, con: &mut dyn ConnectionLike) -> Result<u64, Error> {
        match self.keys.kind() {
            LayoutKind::Zset => zset::migrate(self, con),
            LayoutKind::Processing => self.not_in_layout("migrate"),
        }
    }

    /// Legacy layout: recover expired reservations.
    pub fn sweep(&self, con: &mut dyn ConnectionLike) -> Result<SweepReport, Error> {
        match self.keys.kind() {
            LayoutKind::Processing => processing::sweep(self, con),
            LayoutKind::Zset => self.not_in_layout("sweep"),
        }
    }

    /// Reserve the next message (after the layout's migrate or sweep). `None` when the ready
    /// list is empty. Does not block.
    pub fn reserve(&self, con: &mut dyn ConnectionLike) -> Result<Option<Delivery>, Error> {
        match self.keys.kind() {
            LayoutKind::Zset => zset::reserve(self, con),
            LayoutKind::Processing => processing::reserve(self, con),
        }
    }

    /// Acknowledge: the message is done. Returns whether the reservation still existed.
    pub fn ack(&self, con: &mut dyn ConnectionLike, delivery: &Delivery) -> Result<bool, Error> {
        match (self.keys.kind(), delivery.handle()) {
            (LayoutKind::Zset, Handle::Member(m)) => zset::ack(self, con, m),
            (LayoutKind::Processing, Handle::Token(t)) => processing::ack(self, con, t, delivery.body()),
            _ => Err(Error::ForeignDelivery),
        }
    }

    /// Retry later: the core's re-encoding with attempts + 1 goes back to the queue (zset:
    /// `:delayed` at `floor(now) + ceil(delay)`; legacy: the tail of the ready list, delay ≤ 0
    /// only). Returns whether the reservation still existed (nothing is written otherwise).
    pub fn release(&self, con: &mut dyn ConnectionLike, r: &Reservation, delay: f64) -> Result<bool, Error> {
        let mut retry = (*r.envelope).clone();
        retry.attempts = retry.attempts.checked_add(1).ok_or(Error::AttemptsOverflow)?;
        let body = envelope::encode(&retry)?;
        match (self.keys.kind(), &r.handle) {
            (LayoutKind::Zset, Handle::Member(m)) => zset::release(self, con, m, body.as_bytes(), delay),
            (LayoutKind::Processing, Handle::Token(t)) => {
                processing::release(self, con, t, &r.body, body.as_bytes(), delay)
            }
            _ => Err(Error::ForeignDelivery),
        }
    }

    /// Move to the dead-letter list (a poison body always with reason `poison`). Returns
    /// whether the reservation still existed (nothing is written otherwise).
    pub fn dead_letter(
        &self,
        con: &mut dyn ConnectionLike,
        delivery: &Delivery,
        reason: Reason,
        error: Option<&str>,
    ) -> Result<bool, Error> {
        let failed_at_ms = (self.now() * 1000.0).floor().max(0.0) as u64;
        let record = match delivery {
            Delivery::Message(r) => {
                let cause = Cause { reason, error, exception: None, original_queue: self.keys.queue(), failed_at_ms };
                dlq::message_record(&r.envelope, &cause)?.into_bytes()
            }
            Delivery::Poison(p) => dlq::poison_record(&p.body, &p.error, self.keys.queue(), failed_at_ms),
        };
        match (self.keys.kind(), delivery.handle()) {
            (LayoutKind::Zset, Handle::Member(m)) => zset::dead_letter(self, con, m, &record),
            (LayoutKind::Processing, Handle::Token(t)) => {
                processing::dead_letter(self, con, t, delivery.body(), &record)
            }
            _ => Err(Error::ForeignDelivery),
        }
    }

    /// Decode a reserved body: a message, or poison the core reports.
    fn deliver(body: Vec<u8>, handle: Handle) -> Delivery {
        match envelope::decode(&body) {
            Ok(d) => Delivery::Message(Reservation { body, envelope: Box::new(d.envelope), handle }),
            Err(e) => Delivery::Poison(PoisonReservation { body, error: e.to_string(), handle }),
        }
    }
}
