//! JSON Schema compilation, the way every part of bqsuite uses it.
//!
//! Invariants: formats are never asserted (the suite's reference validator is Python
//! `jsonschema` without a FormatChecker, and Draft 2020-12 makes format an annotation by
//! default); a schema that does not compile is an `Err` naming why, never a panic. `validate`
//! (the producer schema cross-checks, the results example) and `results check` (the results
//! schema) compile through here, so they judge with the same options.

use serde_json::Value;

/// Compile a Draft-07 schema (no format assertion).
pub fn draft7(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::draft7::options().should_validate_formats(false).build(schema).map_err(|e| e.to_string())
}

/// Compile a Draft 2020-12 schema (no format assertion, the draft's default).
pub fn draft202012(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::draft202012::options().should_validate_formats(false).build(schema).map_err(|e| e.to_string())
}
