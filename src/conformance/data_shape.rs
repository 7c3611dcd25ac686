//! Section `data_shape`: `data` is always a JSON object (message-envelope §3, GR-3).
//!
//! Runner: mode `encode` builds an envelope with the producer API from `urn`, `queue` and `data`
//! and compares the raw JSON text of the emitted `data` member, insignificant whitespace removed
//! from both sides, with `expect_encoded_data_json` (an empty map must be `{}`, never `[]`); mode
//! `decode` decodes `file` and compares the verdict with `valid`.

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::core::envelope;
use crate::suite::CaseRef;

use super::envelope_checks::decode_case;
use super::{Check, RunCx, SectionRunner, ensure, fields};

/// The `data_shape` runner.
pub struct DataShape;

impl SectionRunner for DataShape {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> super::Outcome {
        check(cx, case.value).into()
    }
}

fn check(cx: &RunCx<'_>, case: &Value) -> Check {
    match fields::str(case, "mode")? {
        "encode" => encode_case(case),
        "decode" => decode_case(cx, case),
        other => Err(format!("unknown mode {other:?}")),
    }
}

fn encode_case(case: &Value) -> Check {
    let data = fields::object(case, "data")?.clone();
    let env = envelope::make(fields::str(case, "urn")?, data, fields::str(case, "queue")?, None, Vec::new())
        .map_err(|e| format!("make failed: {e}"))?;
    let text = envelope::encode(&env).map_err(|e| format!("encode failed: {e}"))?;
    let members: BTreeMap<String, &RawValue> = serde_json::from_str(&text)
        .map_err(|e| format!("encode wrote text that is not a JSON object ({e}): {text}"))?;
    let raw = members.get("data").ok_or_else(|| format!("the output has no data member: {text}"))?;
    let got = without_whitespace(raw.get());
    let want = without_whitespace(fields::str(case, "expect_encoded_data_json")?);
    ensure(got == want, || format!("data is emitted as {got}, expected {want}"))
}

/// JSON text without insignificant whitespace (space, tab, LF, CR outside strings).
fn without_whitespace(json: &str) -> String {
    let (mut out, mut in_str, mut esc) = (String::with_capacity(json.len()), false, false);
    for c in json.chars() {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, '\\') => esc = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        } else if c == '"' {
            in_str = true;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_removed_only_outside_strings() {
        assert_eq!(without_whitespace("{ \"a b\" :\t[ 1 ,\r\n{} ] }"), "{\"a b\":[1,{}]}");
        assert_eq!(without_whitespace(r#"{"q\" x": " "}"#), r#"{"q\" x":" "}"#);
        assert_eq!(without_whitespace(" [ ] "), "[]");
    }
}
