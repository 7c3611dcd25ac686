//! Section `encode_reject` (scope core): encode refuses forbidden and colliding keys (ADR-0031
//! (b), (c)).
//!
//! Case: `{name, description, urn, queue, data, expect: "reject", offending_key, <one input>}`
//! where the input is `meta` (an object through the producer meta write API), `meta_entries`
//! (the same as an ordered `[key, value]` list), `extras_top` or `extras_meta` (objects placed
//! into the preserved unknown-key container, standing for extras carried over from an inbound
//! message). Exactly one input (BQ307).
//!
//! Runner: build the message from `urn`, `queue`, `data` and the input, then encode: it must be
//! refused, produce no JSON, and the refusal must name `offending_key`. A build (`make`) that
//! already refuses the entry passes too, when its message names the key (the section's
//! ruling).
//!
//! Cross-checks: `offending_key` is one of the input's keys (BQ811).

use serde_json::{Map, Value};

use crate::diag::{Code, Finding};
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Make, MakeOutcome};
use crate::sdk::reference::Broken;
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Reader, RunCx, Version, catch, catch_only, ensure, quoted};
use crate::suite::{MANIFEST, Scope, pointer};

use super::shared::fields::{DATA, DESCRIPTION, NAME, QUEUE, URN};

/// The input fields; a case carries exactly one.
const INPUTS: [&str; 4] = ["meta", "meta_entries", "extras_top", "extras_meta"];

/// The `encode_reject` section.
pub struct EncodeReject;

/// An encode_reject case.
pub struct Case<'s> {
    urn: &'s str,
    queue: &'s str,
    data: &'s Map<String, Value>,
    offending: &'s str,
    input: &'static str,
    entries: Vec<(String, Value)>,
}

impl Definition for EncodeReject {
    const NAME: &'static str = "encode_reject";
    const SINCE: Version = (1, 4, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 4, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[
        catch(
            Broken::EncodeWritesForbiddenKeys,
            &[
                "reject-top-level-timestamp",
                "reject-top-level-urn",
                "reject-meta-max-retries",
                "reject-meta-attempts",
                "reject-meta-source",
                "reject-meta-ts",
                "reject-forbidden-meta-key-in-extras",
            ],
        ),
        catch_only(
            Broken::DropRejectedKeys,
            &[
                "reject-top-level-timestamp",
                "reject-top-level-urn",
                "reject-meta-max-retries",
                "reject-meta-attempts",
                "reject-meta-source",
                "reject-meta-ts",
                "reject-forbidden-meta-key-in-extras",
                "reject-core-meta-id",
                "reject-core-meta-queue",
                "reject-core-meta-lang",
                "reject-core-meta-schema-version",
                "reject-core-meta-created-at",
                "reject-repeated-key",
            ],
        ),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            NAME,
            DESCRIPTION,
            URN,
            QUEUE,
            DATA,
            Field {
                name: "expect",
                ty: "string: always `reject`",
                meaning: "Encode must refuse the message: an error in Go, an exception elsewhere; no envelope JSON is produced and no key is dropped silently.",
            },
            Field {
                name: "offending_key",
                ty: "string: a key as the input spells it (not a pointer)",
                meaning: "The key that makes encode refuse. The section's description calls it informational; `bqsuite run` requires the refusal's error text to contain it, so a runner that checks it judges as the suite's own judge does.",
            },
            Field {
                name: "meta",
                ty: "object: key → value (one of the four inputs)",
                meaning: "Entries passed through the producer's meta write API, in the order listed (as in extension_write).",
            },
            Field {
                name: "meta_entries",
                ty: "array of `[key, value]` pairs (one of the four inputs)",
                meaning: "The same as `meta`, as an ordered list, for a key supplied twice, which a JSON object cannot hold: pass each pair to the meta write API in order. An SDK whose write API takes one map per call may skip these cases (skip rule `one-map-per-call`, citing ADR-0031).",
            },
            Field {
                name: "extras_top",
                ty: "object: key → value (one of the four inputs)",
                meaning: "Entries standing for unknown top-level keys carried over from an inbound message: the runner places them into the decoded message's preserved unknown-key container at the top level, through whatever test access the SDK has (there is no top-level write API).",
            },
            Field {
                name: "extras_meta",
                ty: "object: key → value (one of the four inputs)",
                meaning: "The same as `extras_top`, placed in the preserved unknown keys under `meta`.",
            },
        ],
        steps: &[
            "Each case has exactly one of the inputs `meta`, `meta_entries`, `extras_top` and `extras_meta`.",
            "`meta` / `meta_entries`: build a message with the producer API from `urn`, `queue`, `data` and those entries through the meta write API, then encode it. `extras_top` / `extras_meta`: build the message from `urn`, `queue` and `data`, encode it, decode that output, place the entries into the decoded message's preserved unknown keys (top level or under `meta`), then encode it.",
            "The case passes when the build or the encode refuses the message, with an error whose text contains `offending_key`, and no envelope JSON comes out. A write API that already refuses the entry while the message is built satisfies the case as well (the section's ruling), provided its error names the key.",
            "Encode producing an envelope (the key written, or silently dropped) fails the case, and so does a refusal whose error does not name `offending_key`; report the `reason` (for example \"refused, but the message does not name ts\").",
        ],
        operations: &["make"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        let (urn, queue, data) = (r.str(&at, "urn"), r.str(&at, "queue"), r.map(&at, "data"));
        let expect = r.one_of(&at, "expect", &[("reject", ())]);
        let offending = r.str(&at, "offending_key");
        r.expects(&at, "offending_key");
        let input = r.exactly_one(&at, &INPUTS);
        let entries = input.and_then(|i| r.entries(&at, i, i == "meta_entries"));
        expect?;
        Some(Case { urn: urn?, queue: queue?, data: data?, offending: offending?, input: input?, entries: entries? })
    }

    fn check<'s>(_cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        for e in cases {
            let Some(c) = &e.typed else { continue };
            let keys: Vec<&str> = c.entries.iter().map(|(k, _)| k.as_str()).collect();
            if !keys.contains(&c.offending) {
                out.push(
                    Finding::error(
                        Code::OFFENDING_KEY_NOT_IN_INPUT,
                        format!("offending_key {:?} is not a key of {} ({keys:?})", c.offending, c.input),
                    )
                    .in_file(MANIFEST)
                    .at(pointer::join(&e.case.pointer, "offending_key")),
                );
            }
        }
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        check(cx, case).into()
    }
}

fn check(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let mut make = Make::new(case.urn, case.queue, case.data.clone());
    match case.input {
        "extras_top" => make.carried_top = case.entries.clone(),
        "extras_meta" => make.carried_meta = case.entries.clone(),
        _ => make.meta = case.entries.clone(),
    }
    match cx.sdk.make(make).map_err(|e| e.to_string())? {
        MakeOutcome::Made { json } => {
            Err(format!("encode produced an envelope instead of refusing {}: {json}", quoted(case.offending)))
        }
        MakeOutcome::Refused { message, .. } => ensure(message.contains(case.offending), || {
            format!("refused, but the message does not name {}: {message}", quoted(case.offending))
        }),
    }
}
