//! Sections `payload_schema` and `payload_schema_unicode`: the SDK-side payload validator.
//!
//! Runner (spec "payload_schema_unicode — Same shape and runner as payload_schema"): compile the
//! section's `schema` once with the reference validator ([`crate::core::payload_schema`]), then
//! validate each case's `data`; the verdict must equal the case's `valid`. A schema the
//! validator cannot compile fails every case of the section, naming the keyword.

use serde_json::Value;

use crate::core::payload_schema::Schema;
use crate::suite::CaseRef;

use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The runner for both payload-schema sections; the schema is compiled on the first case.
#[derive(Default)]
pub struct PayloadSchema {
    schema: Option<Result<Schema, String>>,
}

impl SectionRunner for PayloadSchema {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        let schema = self.schema.get_or_insert_with(|| {
            let s = cx.section.block.get("schema").ok_or("the section has no \"schema\"")?;
            Schema::compile(s).map_err(|e| e.to_string())
        });
        match schema {
            Ok(s) => check(s, case.value).into(),
            Err(e) => Outcome::fail(format!("the section schema does not compile: {e}")),
        }
    }
}

fn check(schema: &Schema, case: &Value) -> Check {
    let data = fields::req(case, "data")?;
    let valid = fields::bool(case, "valid")?;
    let violations = schema.violations(data);
    ensure(violations.is_empty() == valid, || {
        if valid {
            let list: Vec<_> = violations.iter().map(ToString::to_string).collect();
            format!("expected valid, the validator rejected it: {}", list.join("; "))
        } else {
            "expected invalid, the validator accepted it".into()
        }
    })
}
