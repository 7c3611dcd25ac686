//! Section scopes (ADR-0032): `core`, a binding, or `otel`.

use std::fmt;

/// The scope of a section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Core,
    Redis,
    Amqp,
    Sqs,
    Asb,
    Pulsar,
    Kafka,
    Artemis,
    Otel,
}

impl Scope {
    /// Every scope, in the spec's order.
    pub const ALL: [Scope; 9] = [
        Scope::Core,
        Scope::Redis,
        Scope::Amqp,
        Scope::Sqs,
        Scope::Asb,
        Scope::Pulsar,
        Scope::Kafka,
        Scope::Artemis,
        Scope::Otel,
    ];

    /// The manifest spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Core => "core",
            Scope::Redis => "redis",
            Scope::Amqp => "amqp",
            Scope::Sqs => "sqs",
            Scope::Asb => "asb",
            Scope::Pulsar => "pulsar",
            Scope::Kafka => "kafka",
            Scope::Artemis => "artemis",
            Scope::Otel => "otel",
        }
    }

    /// Parse the manifest spelling (exact, case-sensitive).
    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|x| x.as_str() == s)
    }

    /// Bindings are every scope but `core`; a results file's `bindings` lists these.
    pub fn is_binding(self) -> bool {
        self != Scope::Core
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
