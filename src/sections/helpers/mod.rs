//! The core helper sections: `payload_schema`, `payload_schema_unicode`, `idempotency`,
//! `retry_backoff`, `poison_dlq` (scope core) and `traceparent` (scope otel).

pub mod idempotency;
pub mod payload_schema;
pub mod poison_dlq;
pub mod retry_backoff;
pub mod traceparent;
