//! Section `data_shape` (scope core): `data` is always a JSON object (message-envelope §3,
//! GR-3).
//!
//! Case: `{name, mode: "encode", urn, queue, data, expect_encoded_data_json}` or `{name, mode:
//! "decode", file, valid, reason?}` (the shared decode-verdict case).
//!
//! Runner: mode `encode` builds an envelope with the producer API from `urn`, `queue` and
//! `data` and compares the raw JSON text of the emitted `data` member, insignificant whitespace
//! removed from both sides, with `expect_encoded_data_json` (an empty map must be `{}`, never
//! `[]`); mode `decode` decodes `file` and compares the verdict with `valid`.
//!
//! Cross-checks: a decode case with `valid: false` (data-array-rejected) has a fixture that
//! fails the producer schema (BQ803).

use std::collections::BTreeMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::diag::{Code, Finding};
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Make, MakeOutcome};
use crate::sdk::reference::Broken;
use crate::sections::judge::encoded_text;
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Reader, RunCx, Version, catch, ensure};
use crate::suite::{MANIFEST, Scope, pointer};

use super::shared::fields::{FILE, NAME, QUEUE, REASON, URN, VALID};
use super::shared::{DecodeCase, parsed, per_message_fields};

/// The `data_shape` section.
pub struct DataShape;

/// A data_shape case.
pub enum Case<'s> {
    Encode { urn: &'s str, queue: &'s str, data: &'s Map<String, Value>, want: &'s str },
    Decode(DecodeCase<'s>),
}

#[derive(Clone, Copy)]
enum Mode {
    Encode,
    Decode,
}

impl Definition for DataShape {
    const NAME: &'static str = "data_shape";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 0, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[
        catch(Broken::EmptyDataAsArray, &["empty-data"]),
        catch(Broken::MakeCreatedAtInSeconds, &["empty-data"]),
        catch(Broken::MakeWithoutMetaId, &["empty-data"]),
        catch(Broken::EncodeWithoutCreatedAt, &["empty-data"]),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            NAME,
            Field {
                name: "mode",
                ty: "string: `encode` or `decode`",
                meaning: "Which of the two kinds of case this is: `encode` builds a message with the producer, `decode` feeds a fixture to the consumer.",
            },
            URN,
            QUEUE,
            Field {
                name: "data",
                ty: "object (`encode`)",
                meaning: "The payload handed to the producer API, as the language's map or dictionary type (here an empty one, the case where PHP's `json_encode` writes `[]`).",
            },
            Field {
                name: "expect_encoded_data_json",
                ty: "string: JSON text (`encode`)",
                meaning: "The exact JSON text the emitted envelope's `data` member must have, compared as text after removing insignificant whitespace (space, tab, line feed, carriage return outside strings) from both sides: `{}` is right, `[]` is wrong.",
            },
            Field { name: "file", ty: FILE.ty, meaning: "(`decode`) The fixture: the message body, exactly the bytes of that file." },
            VALID,
            REASON,
        ],
        steps: &[
            "`encode`: build an envelope with the SDK's producer API from `urn`, `queue` and `data` (the same call an application makes; an SDK that refuses it fails the case), and take its output text.",
            "`encode`: cut out the raw JSON text of the output's top-level `data` member, before any parsing into the language's types (parsing would hide `[]` versus `{}`), remove insignificant whitespace from it and from `expect_encoded_data_json`, and compare the two texts; equal passes.",
            "`decode`: read the fixture's bytes; the SDK's `accepts` must give `valid` and its decode must agree (`valid: false`: `accepts` is false and decode rejects the body; here, because `data` is an array).",
            super::shared::fields::PER_MESSAGE_MADE,
            super::shared::fields::PER_MESSAGE_REENCODED,
            "Report `pass`, or `fail` with what differed as `reason` (for example \"data is emitted as [], expected {}\").",
        ],
        operations: &["decode", "accepts", "make"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        match r.one_of(&at, "mode", &[("encode", Mode::Encode), ("decode", Mode::Decode)])? {
            Mode::Encode => {
                let (urn, queue, data) = (r.str(&at, "urn"), r.str(&at, "queue"), r.map(&at, "data"));
                let want = r.str(&at, "expect_encoded_data_json");
                r.expects(&at, "expect_encoded_data_json");
                Some(Case::Encode { urn: urn?, queue: queue?, data: data?, want: want? })
            }
            Mode::Decode => DecodeCase::read(r, &at).map(Case::Decode),
        }
    }

    fn check<'s>(cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        for e in cases {
            let Some(Case::Decode(d)) = &e.typed else { continue };
            if !d.valid && cx.envelope_schema.is_some_and(|s| s.is_valid(d.fixture.json)) {
                out.push(
                    Finding::error(
                        Code::REJECTED_FIXTURE_PASSES_SCHEMA,
                        format!(
                            "case {:?} must be rejected, but {} passes the producer schema",
                            e.case.id, d.fixture.rel
                        ),
                    )
                    .in_file(MANIFEST)
                    .at(pointer::join(&e.case.pointer, "valid")),
                );
            }
        }
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        match case {
            Case::Encode { urn, queue, data, want } => encode(cx, urn, queue, data, want).into(),
            Case::Decode(d) => d.run(cx.sdk).into(),
        }
    }
}

fn encode(cx: &mut RunCx<'_>, urn: &str, queue: &str, data: &Map<String, Value>, want: &str) -> Check {
    let made = cx.sdk.make(Make::new(urn, queue, data.clone())).map_err(|e| e.to_string())?;
    let text = match made {
        MakeOutcome::Made { json } => json,
        MakeOutcome::Refused { message, .. } => return Err(format!("make refused: {message}")),
    };
    let members: BTreeMap<String, &RawValue> = serde_json::from_str(&text)
        .map_err(|e| format!("encode wrote text that is not a JSON object ({e}): {text}"))?;
    encoded_text(&text, &[], None)?;
    per_message_fields(&parsed(&text)?, None)?;
    let raw = members.get("data").ok_or_else(|| format!("the output has no data member: {text}"))?;
    let got = without_whitespace(raw.get());
    let want = without_whitespace(want);
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
