//! The results schema holds the spec's results format: it rejects a built-in corpus of malformed
//! results files (BQ406).
//!
//! `schema/results.schema.json` is not pinned by hash, as the producer schema is (BQ404): it may
//! evolve in a MINOR release (an optional member, a new binding). What it may not do is accept
//! a results file the spec's results format ("Results format", ADR-0032) forbids: SDKs validate
//! their results.json with it, and `results check` leaves to it what no verdict reads
//! (`generated_at`, members the format does not name; the rest it also judges itself, BQ619,
//! BQ620 and the skip policy). A weakened schema kept `validate` clean: reduced to its
//! `$schema`, `required` emptied, the skip reason's ADR pattern or `additionalProperties`
//! removed.
//!
//! So the schema is run against [`CORPUS`]: malformed results files, each one change to the
//! suite's own `schema/results.example.json` (which the schema must accept, BQ401), and each
//! one it accepts is a finding that names the malformation, at the place in the schema that
//! governs the member (as far as `properties`, `additionalProperties`, `items` and local `$ref`s
//! lead; for a missing member, that place's `required`). Where the example lacks what a change
//! needs (a section, a case), the change makes it. The corpus is judged only when the schema is
//! a valid schema that compiles and accepts the example; otherwise BQ402 or BQ401 says what to
//! fix first.
//!
//! Each change leaves the rest of the file as the format wants it, so that a schema rejects it
//! for that change alone (the outcome without a status has a reason that cites an ADR: a schema
//! that no longer requires a status, but requires a skip's reason whenever status is not
//! present to say otherwise, would reject `{}` for the reason it lacks).
//!
//! The corpus holds what the spec forbids, and nothing a legitimate MINOR may allow:
//! - the file not one object; any of `sdk`, `version`, `conformance_version`, `generated_at`,
//!   `bindings`, `sections` missing (only an outcome's `reason` is optional);
//! - `sdk` or `version` not a non-empty string (the package that ran, its version);
//! - `conformance_version` not a SemVer version (it is the suite's CONFORMANCE_VERSION);
//! - `generated_at` not an RFC 3339 date-time (a word, no UTC offset, a number);
//! - `bindings` not an array, or listing what is no binding: a section name (`rabbitmq`, whose
//!   scope is `amqp`), a binding in another letter case (`Redis`); bindings are bqsuite's scopes
//!   other than `core`, so a schema that adds one bqsuite knows is not refused;
//! - `sections`, a section or an outcome not an object; an outcome without `status`, or whose
//!   status is none of pass, fail and skip; a skip without a reason, or with one that cites no
//!   ADR; a reason that is not a string;
//! - beside `bindings`, or beside an outcome's `status`, a member that differs from it only in
//!   letter case: a case-insensitive decoder (Go's encoding/json) reads it into that member, so
//!   the file says two things. A new member a MINOR declares is never such a twin, so an
//!   optional member added to the format is not refused, while a schema that accepts any
//!   member is.
//!
//! Not in the corpus, because the spec does not forbid them: a `fail` without a reason, a
//! repeated `bindings` entry (the 1.6.0 schema's `uniqueItems` is its own choice), other forms of
//! RFC 3339 (a fraction, an offset), section names and case ids (whether they are the
//! manifest's is `results check`'s, BQ607 and BQ609).

use serde_json::{Map, Value, json};

use crate::diag::{Code, Finding};
use crate::suite::{self, pointer};

/// The spec's words each malformation breaks.
const MEMBERS: &str = "a results file is one object with sdk, version, conformance_version, generated_at, bindings \
                       and sections; only an outcome's reason is optional";
const IDENTITY: &str = "sdk names the package that ran the suite and version its version";
const SUITE_VERSION: &str = "conformance_version is the suite version the run used, its CONFORMANCE_VERSION (SemVer)";
const GENERATED_AT: &str = "generated_at is an RFC 3339 date-time (UTC recommended)";
const BINDINGS: &str = "bindings is every binding the package carries, each one of redis, amqp, sqs, asb, pulsar, \
                        kafka, artemis, otel";
const SECTIONS: &str = "sections is section → case id → {\"status\": \"pass\" | \"fail\" | \"skip\", \"reason\"?}";
const SKIP: &str = "a skip MUST carry a reason that cites the ADR which makes the case not applicable (ADR-NNNN)";
const TWIN: &str = "a member that differs from a member of the format only in letter case makes the file say two \
                    things: a case-insensitive decoder (Go's encoding/json) reads it into that member";

/// How one malformed file is made from the example.
#[derive(Clone, Copy)]
enum Change {
    /// The whole file, made from the example.
    Whole(fn(Value) -> Value),
    /// A top-level member removed.
    Remove(&'static str),
    /// A top-level member set (added when absent).
    Set(&'static str, fn() -> Value),
    /// An entry appended to `bindings`.
    Binding(&'static str),
    /// The first section replaced by what is made from it.
    Section(fn(&Value) -> Value),
    /// The first outcome replaced; the pointer names its member when given.
    Outcome(fn() -> Value, Option<&'static str>),
}

/// One malformation: what it is, as the finding says it; the spec's words it breaks; the change.
struct Malformed {
    what: &'static str,
    rule: &'static str,
    change: Change,
}

const fn m(what: &'static str, rule: &'static str, change: Change) -> Malformed {
    Malformed { what, rule, change }
}

/// Every malformation the results schema must reject.
const CORPUS: &[Malformed] = &[
    m("that is not an object", MEMBERS, Change::Whole(|v| json!([v]))),
    m("without sdk", MEMBERS, Change::Remove("sdk")),
    m("without version", MEMBERS, Change::Remove("version")),
    m("without conformance_version", MEMBERS, Change::Remove("conformance_version")),
    m("without generated_at", MEMBERS, Change::Remove("generated_at")),
    m("without bindings", MEMBERS, Change::Remove("bindings")),
    m("without sections", MEMBERS, Change::Remove("sections")),
    m("whose sdk is a number", IDENTITY, Change::Set("sdk", || json!(7))),
    m("whose sdk is empty", IDENTITY, Change::Set("sdk", || json!(""))),
    m("whose version is a number", IDENTITY, Change::Set("version", || json!(1.9))),
    m("whose version is empty", IDENTITY, Change::Set("version", || json!(""))),
    m("whose conformance_version is not SemVer", SUITE_VERSION, Change::Set("conformance_version", || json!("1.6"))),
    m("whose conformance_version is a number", SUITE_VERSION, Change::Set("conformance_version", || json!(1.6))),
    m("whose generated_at is no date-time", GENERATED_AT, Change::Set("generated_at", || json!("yesterday"))),
    m(
        "whose generated_at has no UTC offset",
        GENERATED_AT,
        Change::Set("generated_at", || json!("2026-11-30T09:15:00")),
    ),
    m("whose generated_at is a number", GENERATED_AT, Change::Set("generated_at", || json!(1_764_494_100))),
    m("whose bindings is a string", BINDINGS, Change::Set("bindings", || json!("redis sqs"))),
    m("whose bindings lists rabbitmq, a section of scope amqp", BINDINGS, Change::Binding("rabbitmq")),
    m("whose bindings lists Redis, a binding in another letter case", BINDINGS, Change::Binding("Redis")),
    m("with a member Bindings beside bindings", TWIN, Change::Set("Bindings", || json!([]))),
    m("whose sections is an array", SECTIONS, Change::Set("sections", || json!([]))),
    m("with a section that is an array of case ids", SECTIONS, Change::Section(case_ids)),
    m("with an outcome that is a string", SECTIONS, Change::Outcome(|| json!("pass"), None)),
    m("with an outcome without status", SECTIONS, Change::Outcome(|| json!({"reason": "ran (ADR-0032)"}), None)),
    m(
        "with status passed, none of pass, fail and skip",
        SECTIONS,
        Change::Outcome(|| json!({"status": "passed"}), Some("status")),
    ),
    m(
        "with a reason that is not a string",
        SECTIONS,
        Change::Outcome(|| json!({"status": "fail", "reason": 7}), Some("reason")),
    ),
    m("with a skip without a reason", SKIP, Change::Outcome(|| json!({"status": "skip"}), Some("reason"))),
    m(
        "with a skip whose reason cites no ADR",
        SKIP,
        Change::Outcome(|| json!({"status": "skip", "reason": "not applicable here"}), Some("reason")),
    ),
    m(
        "with an outcome whose member Status says fail beside status pass",
        TWIN,
        Change::Outcome(|| json!({"status": "pass", "Status": "fail"}), None),
    ),
];

/// A section's case ids, as an array.
fn case_ids(section: &Value) -> Value {
    Value::Array(section.as_object().map(|m| m.keys().map(|k| json!(k)).collect()).unwrap_or_default())
}

/// The document's top-level object (made one when it is not).
fn root(doc: &mut Value) -> &mut Map<String, Value> {
    if !doc.is_object() {
        *doc = json!({});
    }
    doc.as_object_mut().expect("made an object above")
}

/// The first section that holds a case (else the first object, else a new `cases`), made an
/// object, with its name.
fn first_section(doc: &mut Value) -> (String, &mut Value) {
    let sections = root(doc).entry("sections").or_insert_with(|| json!({}));
    if !sections.is_object() {
        *sections = json!({});
    }
    let m = sections.as_object_mut().expect("made an object above");
    let name = m
        .iter()
        .find(|(_, c)| c.as_object().is_some_and(|c| !c.is_empty()))
        .or_else(|| m.iter().find(|(_, c)| c.is_object()))
        .map_or_else(|| "cases".to_owned(), |(k, _)| k.clone());
    let section = m.entry(name.clone()).or_insert_with(|| json!({}));
    if !section.is_object() {
        *section = json!({});
    }
    (name, section)
}

/// Where a change was made: the member's pointer, and whether the change removed it.
struct Site {
    pointer: String,
    removed: bool,
    /// The change in words, after the example's name: `with /sdk removed`.
    described: String,
}

/// `value` as compact JSON, cut short when long.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// Apply `change` to a copy of the example.
fn apply(change: Change, example: &Value) -> (Value, Site) {
    let mut doc = example.clone();
    let set = |pointer: String, value: &Value| Site {
        described: format!("with {pointer} set to {}", shown(value)),
        pointer,
        removed: false,
    };
    let site = match change {
        Change::Whole(make) => {
            doc = make(doc);
            Site { pointer: String::new(), removed: false, described: "as the one element of an array".into() }
        }
        Change::Remove(key) => {
            root(&mut doc).shift_remove(key);
            let pointer = pointer::join("", key);
            Site { described: format!("with {pointer} removed"), pointer, removed: true }
        }
        Change::Set(key, make) => {
            let value = make();
            root(&mut doc).insert(key.to_owned(), value.clone());
            set(pointer::join("", key), &value)
        }
        Change::Binding(entry) => {
            let bindings = root(&mut doc).entry("bindings").or_insert_with(|| json!([]));
            if !bindings.is_array() {
                *bindings = json!([]);
            }
            let list = bindings.as_array_mut().expect("made an array above");
            list.push(json!(entry));
            set(pointer::join_index("/bindings", list.len() - 1), &json!(entry))
        }
        Change::Section(make) => {
            let (name, section) = first_section(&mut doc);
            *section = make(section);
            let shown_value = section.clone();
            set(pointer::join("/sections", &name), &shown_value)
        }
        Change::Outcome(make, member) => {
            let (name, section) = first_section(&mut doc);
            let cases = section.as_object_mut().expect("first_section makes an object");
            let id = cases.keys().next().cloned().unwrap_or_else(|| "a-case".to_owned());
            let value = make();
            cases.insert(id.clone(), value.clone());
            let at = pointer::join(&pointer::join("/sections", &name), &id);
            let mut site = set(at.clone(), &value);
            if let Some(member) = member {
                site.pointer = pointer::join(&at, member);
            }
            site
        }
    };
    (doc, site)
}

/// `at` with every local `$ref` followed (a few steps at most), and its pointer in `schema`.
fn followed<'s>(schema: &'s Value, mut at: &'s Value, mut ptr: String) -> (&'s Value, String) {
    for _ in 0..8 {
        let Some(target) = at.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) else { break };
        let Some(next) = schema.pointer(target) else { break };
        at = next;
        ptr = target.to_owned();
    }
    (at, ptr)
}

/// The place in `schema` that governs the member at `site` (for a removed member, its parent's
/// `required` when there is one).
fn place(schema: &Value, site: &Site) -> String {
    let tokens = pointer::parse(&site.pointer).unwrap_or_default();
    let walk = if site.removed { &tokens[..tokens.len().saturating_sub(1)] } else { &tokens[..] };
    let (mut at, mut ptr) = followed(schema, schema, String::new());
    for t in walk {
        let next = if let Some(p) = at.get("properties").and_then(|p| p.get(t)) {
            (p, pointer::join(&pointer::join(&ptr, "properties"), t))
        } else if let Some(a) = at.get("additionalProperties").filter(|a| a.is_object()) {
            (a, pointer::join(&ptr, "additionalProperties"))
        } else if let (Ok(_), Some(i)) = (t.parse::<usize>(), at.get("items").filter(|i| i.is_object())) {
            (i, pointer::join(&ptr, "items"))
        } else {
            break;
        };
        (at, ptr) = followed(schema, next.0, next.1);
    }
    if site.removed && at.get("required").is_some() { pointer::join(&ptr, "required") } else { ptr }
}

/// BQ406 for every malformation of [`CORPUS`] that `validator` (the compiled `schema`) accepts.
/// The caller has checked that the schema is valid and accepts `example`.
pub(super) fn check(schema: &Value, validator: &jsonschema::Validator, example: &Value) -> Vec<Finding> {
    CORPUS
        .iter()
        .filter_map(|m| {
            let (doc, site) = apply(m.change, example);
            validator.is_valid(&doc).then(|| {
                Finding::error(
                    Code::RESULTS_SCHEMA_WEAKENED,
                    format!(
                        "accepts a results file {} ({} {}), which the results format forbids (ADR-0032): {}",
                        m.what,
                        suite::RESULTS_EXAMPLE,
                        site.described,
                        m.rule
                    ),
                )
                .in_file(suite::RESULTS_SCHEMA)
                .at(place(schema, &site))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Value {
        json!({"sdk": "s", "version": "1", "conformance_version": "1.6.0", "generated_at": "2026-11-30T09:15:00Z",
            "bindings": ["redis"], "sections": {"empty": {}, "cases": {"order-created": {"status": "pass"}}}})
    }

    #[test]
    fn every_change_is_one_change_of_the_example() {
        let ex = example();
        for m in CORPUS {
            let (doc, site) = apply(m.change, &ex);
            assert_ne!(doc, ex, "{}", m.what);
            if let Some(obj) = doc.as_object() {
                let changed: std::collections::BTreeSet<&String> = ex
                    .as_object()
                    .unwrap()
                    .keys()
                    .chain(obj.keys())
                    .filter(|k| ex.get(k.as_str()) != obj.get(k.as_str()))
                    .collect();
                assert_eq!(changed.len(), 1, "{}: {changed:?}", m.what);
                let key = changed.into_iter().next().unwrap();
                assert!(site.pointer.starts_with(&format!("/{key}")), "{}: {}", m.what, site.pointer);
            }
        }
    }

    #[test]
    fn outcomes_change_the_first_reported_case() {
        let (doc, site) = apply(Change::Outcome(|| json!({"status": "passed"}), Some("status")), &example());
        assert_eq!(site.pointer, "/sections/cases/order-created/status");
        assert_eq!(doc["sections"]["cases"]["order-created"], json!({"status": "passed"}));
        assert_eq!(doc["sections"]["empty"], json!({}));
        // An example without sections gets the one the change needs.
        let (doc, site) = apply(Change::Section(case_ids), &json!({"sdk": "s"}));
        assert_eq!(site.pointer, "/sections/cases");
        assert_eq!(doc["sections"]["cases"], json!([]));
    }

    #[test]
    fn the_place_follows_properties_additional_properties_and_refs() {
        let schema = json!({
            "required": ["sdk"],
            "properties": {
                "sdk": {"type": "string"},
                "bindings": {"type": "array", "items": {"enum": ["redis"]}},
                "sections": {"additionalProperties": {"additionalProperties": {"$ref": "#/$defs/outcome"}}}
            },
            "$defs": {"outcome": {"required": ["status"], "properties": {"status": {"enum": ["pass"]}}}}
        });
        let site = |pointer: &str, removed: bool| Site { pointer: pointer.into(), removed, described: String::new() };
        assert_eq!(place(&schema, &site("/sdk", true)), "/required");
        assert_eq!(place(&schema, &site("/sdk", false)), "/properties/sdk");
        assert_eq!(place(&schema, &site("/bindings/3", false)), "/properties/bindings/items");
        assert_eq!(place(&schema, &site("/sections/cases/x/status", false)), "/$defs/outcome/properties/status");
        assert_eq!(place(&schema, &site("/sections/cases/x", false)), "/$defs/outcome");
        assert_eq!(place(&schema, &site("/Bindings", false)), "");
        assert_eq!(place(&json!({}), &site("/sdk", true)), "");
    }
}
