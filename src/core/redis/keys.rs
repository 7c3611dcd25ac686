//! The Redis key names of both layouts.
//!
//! Invariants: the Laravel-compatible zset layout (broker-bindings §1.1, decisions R11) uses
//! `queues:<q>` (ready list), `queues:<q>:delayed` (zset, score = available-at),
//! `queues:<q>:reserved` (zset, score = reservation deadline) and `queues:<q>:notify` (list of
//! wake-up tokens); the legacy layout (§1.7, R12) uses `<q>` (ready list), `<q>:processing`
//! (in-flight list) and `<q>:processing:deadlines` (zset of `<token>:<raw>` members). The
//! dead-letter list, which the suite chooses (R11), is `queues:<q>:dlq` and `<q>:dlq`. An
//! optional key prefix (Laravel's connection prefix) goes in front of every key and nowhere
//! else; the logical queue name a message names as `original_queue` never carries it.

use std::fmt;

/// Which of the two layouts a queue uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayoutKind {
    /// The Laravel-compatible zset layout (§1.1), normative.
    Zset,
    /// The legacy SDK-owned `:processing` layout (§1.7).
    Processing,
}

impl LayoutKind {
    /// Both layouts.
    pub const ALL: [LayoutKind; 2] = [LayoutKind::Zset, LayoutKind::Processing];

    /// The layout's name (as the suite's cases spell it).
    pub fn as_str(self) -> &'static str {
        match self {
            LayoutKind::Zset => "zset",
            LayoutKind::Processing => "processing",
        }
    }

    /// The roles this layout has keys for, in a fixed order.
    pub fn roles(self) -> &'static [Role] {
        match self {
            LayoutKind::Zset => &[Role::Ready, Role::Delayed, Role::Reserved, Role::Notify, Role::Dlq],
            LayoutKind::Processing => &[Role::Ready, Role::Processing, Role::Deadlines, Role::Dlq],
        }
    }
}

/// What a key is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// The list consumers pop from.
    Ready,
    /// Zset of items waiting for their available-at second (zset layout).
    Delayed,
    /// Zset of reserved members by deadline (zset layout).
    Reserved,
    /// List of wake-up tokens, one per ready item (zset layout).
    Notify,
    /// List of in-flight bodies (legacy layout).
    Processing,
    /// Zset of `<token>:<raw>` members by deadline (legacy layout).
    Deadlines,
    /// The dead-letter list.
    Dlq,
}

impl Role {
    /// Every role.
    pub const ALL: [Role; 7] =
        [Role::Ready, Role::Delayed, Role::Reserved, Role::Notify, Role::Processing, Role::Deadlines, Role::Dlq];

    /// The role's name (as the suite's cases spell it).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Ready => "ready",
            Role::Delayed => "delayed",
            Role::Reserved => "reserved",
            Role::Notify => "notify",
            Role::Processing => "processing",
            Role::Deadlines => "deadlines",
            Role::Dlq => "dlq",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The keys of one queue in one layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    kind: LayoutKind,
    /// The logical queue name (no prefix).
    queue: String,
    base: String,
}

impl Keys {
    /// The keys of `queue` in `kind`, each behind `prefix` (empty for none).
    pub fn new(kind: LayoutKind, prefix: &str, queue: &str) -> Self {
        let base = match kind {
            LayoutKind::Zset => format!("{prefix}queues:{queue}"),
            LayoutKind::Processing => format!("{prefix}{queue}"),
        };
        Self { kind, queue: queue.to_owned(), base }
    }

    /// The layout.
    pub fn kind(&self) -> LayoutKind {
        self.kind
    }

    /// The logical queue name.
    pub fn queue(&self) -> &str {
        &self.queue
    }

    /// The key of `role`, if this layout has one.
    pub fn get(&self, role: Role) -> Option<String> {
        if !self.kind.roles().contains(&role) {
            return None;
        }
        Some(match role {
            Role::Ready => self.base.clone(),
            Role::Delayed => format!("{}:delayed", self.base),
            Role::Reserved => format!("{}:reserved", self.base),
            Role::Notify => format!("{}:notify", self.base),
            Role::Processing => format!("{}:processing", self.base),
            Role::Deadlines => format!("{}:processing:deadlines", self.base),
            Role::Dlq => format!("{}:dlq", self.base),
        })
    }

    /// The key of a role this layout is known to have.
    pub(super) fn key(&self, role: Role) -> String {
        self.get(role).unwrap_or_else(|| unreachable!("layout {:?} has no {role} key", self.kind))
    }

    /// Every (role, key) of the layout.
    pub fn all(&self) -> Vec<(Role, String)> {
        self.kind.roles().iter().map(|&r| (r, self.key(r))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zset_layout_names() {
        let k = Keys::new(LayoutKind::Zset, "", "orders");
        let all: Vec<_> = k.all().into_iter().map(|(r, n)| format!("{r}={n}")).collect();
        assert_eq!(
            all,
            [
                "ready=queues:orders",
                "delayed=queues:orders:delayed",
                "reserved=queues:orders:reserved",
                "notify=queues:orders:notify",
                "dlq=queues:orders:dlq"
            ]
        );
        assert_eq!(k.get(Role::Processing), None);
    }

    #[test]
    fn processing_layout_names_with_prefix() {
        let k = Keys::new(LayoutKind::Processing, "p:", "orders");
        assert_eq!(k.get(Role::Ready).as_deref(), Some("p:orders"));
        assert_eq!(k.get(Role::Processing).as_deref(), Some("p:orders:processing"));
        assert_eq!(k.get(Role::Deadlines).as_deref(), Some("p:orders:processing:deadlines"));
        assert_eq!(k.get(Role::Dlq).as_deref(), Some("p:orders:dlq"));
        assert_eq!(k.get(Role::Delayed), None);
        assert_eq!(k.queue(), "orders");
    }
}
