//! Consumer-side idempotency (ADR-0022): a handler wrapper that collapses redeliveries.
//!
//! Rules it keeps:
//!
//! * The dedupe key is `meta.id` verbatim — never `trace_id` (messages that share a trace_id are
//!   distinct messages), never trimmed or case-folded.
//! * A message without a usable key (no `meta.id`, a non-string one, or the empty string) cannot
//!   be deduplicated, so it always runs: fail open, never silently dropped.
//! * For a keyed message: already `seen` → skip (the handler is not invoked; the caller acks);
//!   otherwise the handler runs. On success the key is remembered; a failure to remember is
//!   reported but does not fail the delivery (the effect already happened; at worst a
//!   redelivery runs again). On a handler error the key is left unmarked and the error
//!   propagates, so retry and dead-lettering still apply.
//! * A store error on `seen` propagates: the helper never guesses that a message is new or old.
//! * This is a post-success seen-set, not exactly-once delivery and not an in-flight lock: two
//!   concurrent deliveries of one id may both run.
//!
//! The [`Store`] trait is the three-method interface every SDK shares (`seen` / `remember` /
//! `forget`); [`MemoryStore`] is the process-local reference store.

use std::collections::HashSet;
use std::convert::Infallible;
use std::fmt;
use std::sync::Mutex;

use super::envelope::Envelope;
use crate::fault::{self, Fault};

/// A seen-set of message ids. Implementations may be shared (Redis, a database), so the methods
/// take `&self`.
pub trait Store {
    type Error;
    /// Has `id` been remembered?
    fn seen(&self, id: &str) -> Result<bool, Self::Error>;
    /// Remember `id` as handled.
    fn remember(&self, id: &str) -> Result<(), Self::Error>;
    /// Forget `id`, so a later delivery runs again.
    fn forget(&self, id: &str) -> Result<(), Self::Error>;
}

impl<S: Store + ?Sized> Store for &S {
    type Error = S::Error;
    fn seen(&self, id: &str) -> Result<bool, Self::Error> {
        (**self).seen(id)
    }
    fn remember(&self, id: &str) -> Result<(), Self::Error> {
        (**self).remember(id)
    }
    fn forget(&self, id: &str) -> Result<(), Self::Error> {
        (**self).forget(id)
    }
}

/// The process-local reference store.
#[derive(Debug, Default)]
pub struct MemoryStore {
    ids: Mutex<HashSet<String>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The remembered ids, sorted.
    pub fn ids(&self) -> Vec<String> {
        let mut v: Vec<_> = self.lock().iter().cloned().collect();
        v.sort();
        v
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        // A panic while holding the lock cannot leave the set half-updated.
        self.ids.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Store for MemoryStore {
    /// The in-memory store cannot fail.
    type Error = Infallible;
    fn seen(&self, id: &str) -> Result<bool, Infallible> {
        Ok(self.lock().contains(id))
    }
    fn remember(&self, id: &str) -> Result<(), Infallible> {
        self.lock().insert(id.to_owned());
        Ok(())
    }
    fn forget(&self, id: &str) -> Result<(), Infallible> {
        self.lock().remove(id);
        Ok(())
    }
}

/// The dedupe key of a message: `meta.id` verbatim, or `None` when it has no usable one.
pub fn key(env: &Envelope) -> Option<&str> {
    let k = if fault::active(Fault::IdempotencyTraceIdKey) { Some(env.trace_id.as_str()) } else { env.meta.id() };
    k.filter(|k| !k.is_empty())
}

/// What the helper did with one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect<SE> {
    /// The handler ran and succeeded. `remember` holds the store error when the key could not be
    /// remembered (best effort); it is `Ok` also for an unkeyed message, which is never stored.
    Run { remember: Result<(), SE> },
    /// The id was already remembered: the handler did not run; ack the delivery.
    Skip,
}

/// Why a delivery failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error<HE, SE> {
    /// The handler failed; the id is left unmarked.
    Handler(HE),
    /// The store could not say whether the id was seen; the handler did not run.
    Store(SE),
}

impl<HE: fmt::Display, SE: fmt::Display> fmt::Display for Error<HE, SE> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Handler(e) => write!(f, "handler failed: {e}"),
            Self::Store(e) => write!(f, "idempotency store failed: {e}"),
        }
    }
}

/// A handler wrapped by the helper.
#[derive(Debug)]
pub struct Idempotent<H, S> {
    handler: H,
    store: S,
}

/// Wrap `handler` so that each message id runs it at most once after a success.
pub fn wrap<H, S>(handler: H, store: S) -> Idempotent<H, S> {
    Idempotent { handler, store }
}

impl<H, S> Idempotent<H, S> {
    /// The store behind the helper.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Deliver one message.
    pub fn handle<HE>(&mut self, env: &Envelope) -> Result<Effect<S::Error>, Error<HE, S::Error>>
    where
        H: FnMut(&Envelope) -> Result<(), HE>,
        S: Store,
    {
        let Some(id) = key(env) else {
            (self.handler)(env).map_err(Error::Handler)?;
            return Ok(Effect::Run { remember: Ok(()) });
        };
        if self.store.seen(id).map_err(Error::Store)? {
            return Ok(Effect::Skip);
        }
        (self.handler)(env).map_err(Error::Handler)?;
        Ok(Effect::Run { remember: self.store.remember(id) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::envelope::make;
    use crate::fault::{Fault, with};
    use serde_json::{Map, Value};
    use std::cell::Cell;

    fn msg(id: Option<&str>, trace: &str) -> Envelope {
        let mut e = make("urn:babel:orders:created", Map::new(), "orders", Some(trace), vec![]).unwrap();
        e.meta.id = id.map(|s| Value::String(s.into()));
        e
    }

    #[test]
    fn keyed_on_meta_id_verbatim() {
        assert_eq!(key(&msg(Some(" A "), "t")), Some(" A "));
        assert_eq!(key(&msg(Some(""), "t")), None);
        assert_eq!(key(&msg(None, "t")), None);
        let mut e = msg(None, "t");
        e.meta.id = Some(Value::from(5));
        assert_eq!(key(&e), None, "a non-string id is not usable");
        with(Fault::IdempotencyTraceIdKey, || assert_eq!(key(&msg(Some("A"), "t")), Some("t")));
    }

    #[test]
    fn runs_once_then_skips_and_forget_reopens() {
        let calls = Cell::new(0);
        let store = MemoryStore::new();
        let mut h = wrap(
            |_: &Envelope| {
                calls.set(calls.get() + 1);
                Ok::<(), String>(())
            },
            &store,
        );
        assert_eq!(h.handle(&msg(Some("A"), "t")), Ok(Effect::Run { remember: Ok(()) }));
        assert_eq!(h.handle(&msg(Some("A"), "t")), Ok(Effect::Skip));
        assert_eq!(h.handle(&msg(Some("B"), "t")), Ok(Effect::Run { remember: Ok(()) }), "same trace, other id");
        h.store().forget("A").unwrap();
        assert_eq!(h.handle(&msg(Some("A"), "t")), Ok(Effect::Run { remember: Ok(()) }));
        assert_eq!(calls.get(), 3);
        assert_eq!(store.ids(), ["A", "B"]);
    }

    #[test]
    fn a_failure_leaves_the_id_unmarked() {
        let store = MemoryStore::new();
        let fail = Cell::new(true);
        let mut h = wrap(|_: &Envelope| if fail.get() { Err("boom") } else { Ok(()) }, &store);
        assert_eq!(h.handle(&msg(Some("A"), "t")), Err(Error::Handler("boom")));
        assert!(store.ids().is_empty());
        fail.set(false);
        assert!(matches!(h.handle(&msg(Some("A"), "t")), Ok(Effect::Run { .. })));
        assert_eq!(h.handle(&msg(Some("A"), "t")), Ok(Effect::Skip));
    }

    #[test]
    fn missing_id_fails_open_and_is_never_stored() {
        let store = MemoryStore::new();
        let mut h = wrap(|_: &Envelope| Ok::<(), ()>(()), &store);
        for _ in 0..3 {
            assert_eq!(h.handle(&msg(None, "t")), Ok(Effect::Run { remember: Ok(()) }));
            assert_eq!(h.handle(&msg(Some(""), "t")), Ok(Effect::Run { remember: Ok(()) }));
        }
        assert!(store.ids().is_empty());
    }

    struct Broken {
        seen_fails: bool,
    }
    impl Store for Broken {
        type Error = &'static str;
        fn seen(&self, _: &str) -> Result<bool, &'static str> {
            if self.seen_fails { Err("down") } else { Ok(false) }
        }
        fn remember(&self, _: &str) -> Result<(), &'static str> {
            Err("read-only")
        }
        fn forget(&self, _: &str) -> Result<(), &'static str> {
            Ok(())
        }
    }

    #[test]
    fn store_errors() {
        let ran = Cell::new(false);
        let mut h = wrap(
            |_: &Envelope| {
                ran.set(true);
                Ok::<(), ()>(())
            },
            Broken { seen_fails: true },
        );
        assert_eq!(h.handle(&msg(Some("A"), "t")), Err(Error::Store("down")));
        assert!(!ran.get(), "a failed seen never runs the handler");
        let mut h = wrap(|_: &Envelope| Ok::<(), ()>(()), Broken { seen_fails: false });
        assert_eq!(h.handle(&msg(Some("A"), "t")), Ok(Effect::Run { remember: Err("read-only") }));
    }
}
