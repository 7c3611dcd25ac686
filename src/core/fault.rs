//! Fault injection for the suite's own mutation tests.
//!
//! The suite proves that its cases catch real bugs by running the reference core with one
//! behaviour deliberately broken and asserting that at least one case fails. Those broken
//! variants are built from the real code: each [`Fault`] is a switch consulted at exactly one
//! place in the core, so a variant differs from the reference in that one behaviour only.
//!
//! Invariants: no fault is ever active unless a caller switched it on with [`with`]; the switch
//! is thread-local and scoped, so it cannot leak into another test or another thread; the
//! reference behaviour is the `false` branch everywhere.

use std::cell::RefCell;

/// One deliberately broken behaviour of the reference core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fault {
    /// Blank/trim use Unicode whitespace (`char::is_whitespace`) instead of the ASCII six.
    UnicodeWhitespace,
    /// Decode drops unknown keys instead of preserving them.
    DropUnknownKeys,
    /// Decode ignores `urn` as an identity alias.
    NoUrnAlias,
    /// `accepts` does not check `meta.schema_version`.
    IgnoreSchemaVersion,
    /// Encode writes an empty `data` map as `[]` (the PHP pitfall).
    EmptyDataAsArray,
    /// Decode keeps forbidden keys with the unknown keys (still warning), so a re-encode
    /// carries them to the encode gate.
    EmitForbiddenKeys,
    /// Decode stays silent about the forbidden keys it drops (`/urn` beside `job` included).
    SilentForbiddenKeys,
    /// Encode silently drops a colliding or forbidden extension key instead of failing.
    DropRejectedKeys,
    /// A non-string `job` is stringified and used instead of ignored.
    StringifyNonStringJob,
    /// The dead-letter helper drops unknown keys.
    DeadLetterDropsExtras,
    /// A named fault owned by a later module (kept open so modules can add their own).
    Named(&'static str),
}

thread_local! {
    static ACTIVE: RefCell<Vec<Fault>> = const { RefCell::new(Vec::new()) };
}

/// Is `fault` switched on for the current thread?
pub fn active(fault: Fault) -> bool {
    ACTIVE.with(|a| a.borrow().contains(&fault))
}

/// Is the named fault switched on for the current thread?
pub fn named(name: &str) -> bool {
    ACTIVE.with(|a| a.borrow().iter().any(|f| matches!(f, Fault::Named(n) if *n == name)))
}

/// Run `f` with `fault` switched on, then switch it off again (also on panic).
pub fn with<R>(fault: Fault, f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            ACTIVE.with(|a| {
                a.borrow_mut().pop();
            });
        }
    }
    ACTIVE.with(|a| a.borrow_mut().push(fault));
    let _reset = Reset;
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_scoped() {
        assert!(!active(Fault::DropUnknownKeys));
        with(Fault::DropUnknownKeys, || {
            assert!(active(Fault::DropUnknownKeys));
            assert!(!active(Fault::NoUrnAlias));
        });
        assert!(!active(Fault::DropUnknownKeys));
        with(Fault::Named("x"), || assert!(named("x") && !named("y")));
        assert!(!named("x"));
    }
}
