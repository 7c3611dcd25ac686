//! The core helper sections: `payload_schema`, `payload_schema_unicode`, `idempotency`,
//! `retry_backoff`, `poison_dlq` (scope core) and `traceparent` (scope otel).

sections! {
    idempotency: Idempotency;
    payload_schema: PayloadSchema, PayloadSchemaUnicode;
    poison_dlq: PoisonDlq;
    retry_backoff: RetryBackoff;
    traceparent: Traceparent;
}
