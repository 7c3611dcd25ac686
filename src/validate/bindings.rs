//! Broker-binding sections: the gate tables, the reconciliation tables, `delay`, `backoff` and
//! `kafka_poison`.
//!
//! Rules:
//!
//! * Every `schema_version_gate` table names a non-empty `property` and a `fixture`, and has a
//!   `cases` array of objects (BQ840); its fixture is a valid envelope by the reference core, so
//!   a reject can only come from the gate (BQ841; a missing file is BQ301's). Every row has
//!   exactly one of `value` and `absent: true` (BQ842) and `expect` `decode` or `reject`
//!   (BQ843); `value_type` appears only on a numeric row and is `"float"` (BQ844); a row's value
//!   is one the binding's property can carry — strings everywhere, `null` only on ASB, Kafka and
//!   Artemis, numbers only on ASB, and an ASB integer must fit a 32-bit integer because the
//!   runner hands it over at both 32-bit and 64-bit width (BQ845).
//! * Every `attempts_reconciliation` case has `name`, `body_attempts`, `expected_attempts` and
//!   the binding's native count field with its published JSON type, nullable ones written as
//!   `null`, never left out (BQ846; R20.3, R20.6).
//! * `delay`, `backoff` and `kafka_poison` blocks and cases have the fields their runners read,
//!   with the right types and known `expect` values (BQ847, BQ848, BQ849).

use base64::Engine as _;
use serde_json::Value;

use crate::core::envelope;
use crate::diag::{Code, Finding};
use crate::suite::{CaseRef, MANIFEST, Scope, pointer};

use super::Ctx;

/// What a field must hold.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Str,
    /// A non-negative integer.
    Count,
    Int,
    Number,
    StrOrNull,
    CountOrNull,
    /// An array of non-negative integers.
    Counts,
    Array,
    /// An object whose values are strings.
    StrMap,
    OneOf(&'static [&'static str]),
}

impl Kind {
    fn holds(self, v: &Value) -> bool {
        match self {
            Kind::Str => v.is_string(),
            Kind::Count => v.is_u64(),
            Kind::Int => v.is_i64() || v.is_u64(),
            Kind::Number => v.is_number(),
            Kind::StrOrNull => v.is_string() || v.is_null(),
            Kind::CountOrNull => v.is_u64() || v.is_null(),
            Kind::Counts => v.as_array().is_some_and(|a| a.iter().all(Value::is_u64)),
            Kind::Array => v.is_array(),
            Kind::StrMap => v.as_object().is_some_and(|m| m.values().all(Value::is_string)),
            Kind::OneOf(options) => v.as_str().is_some_and(|s| options.contains(&s)),
        }
    }

    fn describe(self) -> String {
        match self {
            Kind::Str => "a string".into(),
            Kind::Count => "a non-negative integer".into(),
            Kind::Int => "an integer".into(),
            Kind::Number => "a number".into(),
            Kind::StrOrNull => "a string or null".into(),
            Kind::CountOrNull => "a non-negative integer or null".into(),
            Kind::Counts => "an array of non-negative integers".into(),
            Kind::Array => "an array".into(),
            Kind::StrMap => "an object of strings".into(),
            Kind::OneOf(options) => format!("one of {options:?}"),
        }
    }
}

type Fields = &'static [(&'static str, Kind)];

/// The shape of one block's cases: fields every case has, and fields a case has for a given
/// `expect` value.
struct Shape {
    section: &'static str,
    /// The sub-key (`None`: the section's own `cases`).
    block: Option<&'static str>,
    code: Code,
    /// Fields of the block object itself.
    block_fields: Fields,
    always: Fields,
    when: &'static [(&'static str, Fields)],
}

const NAME: (&str, Kind) = ("name", Kind::Str);
const TIERS: (&str, Kind) = ("tiers_ms", Kind::Counts);
const OK_OR_REJECT: (&str, Kind) = ("expect", Kind::OneOf(&["ok", "reject"]));
const ENVELOPE_FILE: Fields = &[("envelope_file", Kind::Str)];

const BODY_ATTEMPTS: (&str, Kind) = ("body_attempts", Kind::Count);
const EXPECTED_ATTEMPTS: (&str, Kind) = ("expected_attempts", Kind::Count);

/// A binding's `attempts_reconciliation` cases: the published fields in their published types.
const fn reconciliation(section: &'static str, always: Fields) -> Shape {
    Shape {
        section,
        block: Some("attempts_reconciliation"),
        code: Code::RECONCILIATION_CASE_SHAPE,
        block_fields: &[],
        always,
        when: &[],
    }
}

const SHAPES: &[Shape] = &[
    reconciliation("sqs", &[NAME, BODY_ATTEMPTS, ("approximate_receive_count", Kind::StrOrNull), EXPECTED_ATTEMPTS]),
    reconciliation("asb", &[NAME, BODY_ATTEMPTS, ("delivery_count", Kind::Count), EXPECTED_ATTEMPTS]),
    reconciliation("pulsar", &[NAME, BODY_ATTEMPTS, ("redelivery_count", Kind::Count), EXPECTED_ATTEMPTS]),
    reconciliation("kafka", &[NAME, BODY_ATTEMPTS, ("header_attempts", Kind::CountOrNull), EXPECTED_ATTEMPTS]),
    reconciliation("artemis", &[NAME, BODY_ATTEMPTS, ("delivery_count", Kind::Count), EXPECTED_ATTEMPTS]),
    Shape {
        section: "delay",
        block: Some("send"),
        code: Code::DELAY_CASE_SHAPE,
        block_fields: ENVELOPE_FILE,
        always: &[
            NAME,
            ("queue", Kind::OneOf(&["standard", "fifo"])),
            ("delay_seconds", Kind::Number),
            ("expect", Kind::OneOf(&["send", "raise"])),
        ],
        when: &[("send", &[("expect_delay_seconds", Kind::CountOrNull)])],
    },
    Shape {
        section: "delay",
        block: Some("release"),
        code: Code::DELAY_CASE_SHAPE,
        block_fields: ENVELOPE_FILE,
        always: &[
            NAME,
            ("queue", Kind::OneOf(&["standard", "fifo"])),
            ("delay_seconds", Kind::Number),
            ("expect", Kind::OneOf(&["release", "raise"])),
        ],
        when: &[("release", &[("expect_visibility_timeout", Kind::Count)])],
    },
    Shape {
        section: "backoff",
        block: Some("topic_names"),
        code: Code::BACKOFF_CASE_SHAPE,
        block_fields: &[],
        always: &[NAME, ("topic", Kind::Str), TIERS, OK_OR_REJECT],
        when: &[("ok", &[("expect_retry_topics", Kind::Array), ("expect_dlq_topic", Kind::Str)])],
    },
    Shape {
        section: "backoff",
        block: Some("retry_attempt_tier"),
        code: Code::BACKOFF_CASE_SHAPE,
        block_fields: &[],
        always: &[NAME, TIERS, ("attempts_before", Kind::Count), OK_OR_REJECT],
        when: &[("ok", &[("expect_tier", Kind::Count), ("expect_delay_ms", Kind::Count)])],
    },
    Shape {
        section: "backoff",
        block: Some("retry_republish"),
        code: Code::BACKOFF_CASE_SHAPE,
        block_fields: ENVELOPE_FILE,
        always: &[
            NAME,
            ("topic", Kind::Str),
            ("original_topic_header", Kind::StrOrNull),
            ("attempts_before", Kind::Count),
            TIERS,
            OK_OR_REJECT,
        ],
        when: &[(
            "ok",
            &[("expect_topic", Kind::Str), ("expect_headers", Kind::StrMap), ("expect_body_attempts", Kind::Count)],
        )],
    },
    Shape {
        section: "backoff",
        block: Some("requested_delay"),
        code: Code::BACKOFF_CASE_SHAPE,
        block_fields: ENVELOPE_FILE,
        always: &[NAME, ("topic", Kind::Str), TIERS, ("delay_ms", Kind::Int), OK_OR_REJECT],
        when: &[("ok", &[("expect_topic", Kind::Str), ("expect_body_attempts", Kind::Count)])],
    },
    Shape {
        section: "kafka_poison",
        block: None,
        code: Code::KAFKA_POISON_CASE_SHAPE,
        block_fields: &[],
        always: &[NAME, ("expect", Kind::OneOf(&["ok", "no_identity", "poison"]))],
        when: &[],
    },
];

/// `backoff.default_tiers` is a single-case block.
const DEFAULT_TIERS: Fields = &[("expect_tiers_ms", Kind::Counts)];

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for s in cx.suite.sections() {
        if let Some(table) = s.block.get("schema_version_gate") {
            gate_table(cx, s.scope, &pointer::join(&pointer::join("", s.name), "schema_version_gate"), table, &mut out);
        }
        for shape in SHAPES.iter().filter(|sh| sh.section == s.name) {
            let cases = cx.cases(s.name);
            let mine: Vec<&CaseRef<'_>> = cases.iter().filter(|c| c.sub == shape.block && c.index.is_some()).collect();
            if let Some(b) = shape.block.and_then(|b| s.block.get(b)) {
                let at = pointer::join(&pointer::join("", s.name), shape.block.unwrap_or_default());
                fields(shape.code, &at, b, shape.block_fields, &mut out);
            }
            for case in mine {
                fields(shape.code, &case.pointer, case.value, shape.always, &mut out);
                let expect = case.value.get("expect").and_then(Value::as_str);
                for (when, extra) in shape.when {
                    if expect == Some(*when) {
                        fields(shape.code, &case.pointer, case.value, extra, &mut out);
                    }
                }
                if shape.section == "kafka_poison" {
                    poison_body(&case.pointer, case.value, &mut out);
                }
            }
        }
        if s.name == "backoff"
            && let Some(b) = s.block.get("default_tiers")
        {
            fields(Code::BACKOFF_CASE_SHAPE, "/backoff/default_tiers", b, DEFAULT_TIERS, &mut out);
        }
    }
    out
}

fn finding(code: Code, msg: String, ptr: &str) -> Finding {
    Finding::error(code, msg).in_file(MANIFEST).at(ptr)
}

/// Report every field of `required` that `obj` lacks or holds with the wrong type.
fn fields(code: Code, at: &str, obj: &Value, required: Fields, out: &mut Vec<Finding>) {
    for (key, kind) in required {
        match obj.get(key) {
            None => out.push(finding(code, format!("{key:?} is missing (must be {})", kind.describe()), at)),
            Some(v) if !kind.holds(v) => out.push(finding(
                code,
                format!("{key:?} is {v}, but must be {}", kind.describe()),
                &pointer::join(at, key),
            )),
            Some(_) => {}
        }
    }
}

fn poison_body(at: &str, case: &Value, out: &mut Vec<Finding>) {
    let code = Code::KAFKA_POISON_CASE_SHAPE;
    match (case.get("body"), case.get("body_base64")) {
        (Some(Value::String(_)), None) => {}
        (None, Some(Value::String(b))) => {
            if let Err(e) = base64::engine::general_purpose::STANDARD.decode(b) {
                out.push(finding(
                    code,
                    format!("body_base64 is not standard padded base64: {e}"),
                    &pointer::join(at, "body_base64"),
                ));
            }
        }
        _ => out.push(finding(
            code,
            "a case needs exactly one of \"body\" and \"body_base64\", each a string".into(),
            at,
        )),
    }
}

/// Which row values a binding's schema-version property can carry: (null, numbers).
fn carries(scope: Option<Scope>) -> Option<(bool, bool)> {
    match scope? {
        Scope::Sqs | Scope::Pulsar => Some((false, false)),
        Scope::Kafka | Scope::Artemis => Some((true, false)),
        Scope::Asb => Some((true, true)),
        _ => None,
    }
}

fn gate_table(cx: &Ctx<'_>, scope: Option<Scope>, at: &str, table: &Value, out: &mut Vec<Finding>) {
    let shape = |msg: &str, ptr: &str| finding(Code::GATE_TABLE_SHAPE, msg.to_owned(), ptr);
    if table.get("property").and_then(Value::as_str).is_none_or(str::is_empty) {
        out.push(shape("the table must name its native property (\"property\": a non-empty string)", at));
    }
    match table.get("fixture").and_then(Value::as_str) {
        None => out.push(shape("the table must name its body (\"fixture\": a suite file)", at)),
        Some(rel) => {
            if let Some(file) = cx.suite.file(rel)
                && let Err(e) = envelope::decode(&file.bytes)
            {
                out.push(finding(
                    Code::GATE_FIXTURE_INVALID,
                    format!("{rel} is not a valid envelope ({e}), so a reject could come from the body"),
                    &pointer::join(at, "fixture"),
                ));
            }
        }
    }
    let Some(rows) = table.get("cases").and_then(Value::as_array) else {
        out.push(shape("the table must have a \"cases\" array", at));
        return;
    };
    for (i, row) in rows.iter().enumerate() {
        let rp = format!("{at}/cases/{i}");
        let Some(obj) = row.as_object() else {
            out.push(shape("a gate row must be an object", &rp));
            continue;
        };
        let value = obj.get("value");
        match (value, obj.get("absent")) {
            (Some(_), None) | (None, Some(Value::Bool(true))) => {}
            (Some(_), Some(_)) => {
                out.push(finding(Code::GATE_ROW_VALUE_OR_ABSENT, "a row has both \"value\" and \"absent\"".into(), &rp))
            }
            (None, Some(v)) => out.push(finding(
                Code::GATE_ROW_VALUE_OR_ABSENT,
                format!("\"absent\" must be true, found {v}"),
                &pointer::join(&rp, "absent"),
            )),
            (None, None) => out.push(finding(
                Code::GATE_ROW_VALUE_OR_ABSENT,
                "a row needs \"value\" or \"absent\": true".into(),
                &rp,
            )),
        }
        if !obj.get("expect").and_then(Value::as_str).is_some_and(|e| e == "decode" || e == "reject") {
            out.push(finding(
                Code::GATE_ROW_EXPECT,
                format!("expect must be \"decode\" or \"reject\", found {}", obj.get("expect").unwrap_or(&Value::Null)),
                &rp,
            ));
        }
        if let Some(t) = obj.get("value_type") {
            if !value.is_some_and(Value::is_number) {
                out.push(finding(
                    Code::GATE_ROW_VALUE_TYPE,
                    "value_type is only for rows whose value is a number".into(),
                    &pointer::join(&rp, "value_type"),
                ));
            } else if t != "float" {
                out.push(finding(
                    Code::GATE_ROW_VALUE_TYPE,
                    format!("value_type {t} is not known (only \"float\")"),
                    &pointer::join(&rp, "value_type"),
                ));
            }
        }
        if let Some(v) = value {
            not_carried(scope, v, obj.contains_key("value_type"), &pointer::join(&rp, "value"), out);
        }
    }
}

fn not_carried(scope: Option<Scope>, v: &Value, float: bool, ptr: &str, out: &mut Vec<Finding>) {
    let binding = scope.map_or("this binding", Scope::as_str);
    let problem = match (v, carries(scope)) {
        (Value::String(_), _) => None,
        (Value::Bool(_) | Value::Array(_) | Value::Object(_), _) => {
            Some(format!("a gate row's value must be a string, a number or null, found {v}"))
        }
        (_, None) => None,
        (Value::Null, Some((false, _))) => Some(format!("{binding} cannot carry a property with a null value")),
        (Value::Number(_), Some((_, false))) => Some(format!("{binding}'s property is a string; it cannot carry {v}")),
        (Value::Number(n), Some((_, true))) if !float && n.as_f64().is_some_and(|f| f.fract() == 0.0) => {
            // An integral value (`2` or `2.0`, R4) must fit both widths the runner uses.
            let fits = n.as_f64().is_some_and(|f| (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&f));
            (!fits).then(|| format!("{v} does not fit a 32-bit integer, so it cannot be handed over at both widths"))
        }
        _ => None,
    };
    if let Some(msg) = problem {
        out.push(finding(Code::GATE_ROW_NOT_CARRIED, msg, ptr));
    }
}
