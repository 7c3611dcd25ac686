//! What the broker-binding sections share: the block a case lives in, exact comparison of
//! golden maps, AMQP-typed comparison, and the schema-version gate tables (one reader, runner
//! and set of cross-checks for the five tables).
//!
//! Gate table (spec "schema_version_gate"): the block names the native `property` and the
//! `fixture` that is always the body. For each row the binding builds one or more received
//! messages that carry the row's value under `property` — a JSON number stands for every
//! integer width the binding can carry (at least 32-bit and 64-bit), a `value_type: "float"` row
//! or a non-integral number for a real 32-bit and 64-bit float, `null` for the key present with
//! a null value, `absent: true` for no key — and the SDK consumes each. `decode` passes when
//! every message gets through the gate and the body decodes; `reject` passes when the gate
//! refuses every message (a body rejection does not count: the body is always valid).
//!
//! Gate cross-checks: the fixture is a valid envelope, so a reject can only come from the gate
//! (BQ841); `value_type` sits only on a row whose value is a number, and a number written as a
//! float literal with an integral value (`1.0`, `2e0`) carries `value_type: "float"` (BQ844: R4
//! makes `1.0` the same value as `1`, while Java, .NET and Python runners parse it as a double
//! and hand the SDK a float, so without the marker the row means two things; a non-integral
//! `1.5` is a float in every language and needs no marker); a row's value has a
//! type the binding's property can carry (BQ845: only ASB carries numbers, and integral ones
//! must fit 32 bits to be handed over at both widths; SQS and Pulsar carry no null).

use serde_json::{Map, Value};

use crate::diag::{Code, Finding};
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Accepts, ConsumeOutcome};
use crate::sdk::wire::{Amqp, Bytes};
use crate::sections::judge::{encoded_text, same_value};
use crate::sections::{Check, CheckCx, Fixture, Place, Reader, RunCx, ensure, quoted};
use crate::suite::{MANIFEST, pointer};

/// A golden map is closed: exactly the expected keys, each with the same value (R4).
pub(crate) fn exact_map(what: &str, expected: &Map<String, Value>, actual: &Map<String, Value>) -> Check {
    for (k, want) in expected {
        match actual.get(k) {
            None => return Err(format!("{what}: {} is missing (expected {want})", quoted(k))),
            Some(got) => ensure(same_value(want, got), || format!("{what}: {} is {got}, expected {want}", quoted(k)))?,
        }
    }
    match actual.keys().find(|k| !expected.contains_key(*k)) {
        Some(extra) => Err(format!("{what}: unexpected key {} = {}", quoted(extra), actual[extra])),
        None => Ok(()),
    }
}

/// The fields of a native message that are set, as a JSON map of strings.
pub(crate) fn set_strings<'a>(fields: impl IntoIterator<Item = (&'a str, &'a Option<String>)>) -> Map<String, Value> {
    fields.into_iter().filter_map(|(k, v)| v.as_deref().map(|v| (k.to_owned(), Value::from(v)))).collect()
}

/// A golden map of AMQP-typed values: exactly the expected keys, each matching by
/// [`amqp_matches`].
pub(crate) fn exact_amqp_map<'a>(
    what: &str,
    expected: &Map<String, Value>,
    actual: impl IntoIterator<Item = (&'a String, &'a Amqp)>,
) -> Check {
    let actual: Vec<_> = actual.into_iter().collect();
    for (k, want) in expected {
        let got = actual.iter().find(|(a, _)| *a == k).map(|(_, v)| *v);
        match got {
            None => return Err(format!("{what}: {} is missing (expected {want})", quoted(k))),
            Some(v) => ensure(amqp_matches(want, v), || format!("{what}: {} is {v}, expected {want}", quoted(k)))?,
        }
    }
    match actual.iter().find(|(k, _)| !expected.contains_key(k.as_str())) {
        Some((k, v)) => Err(format!("{what}: unexpected key {} = {v}", quoted(k))),
        None => Ok(()),
    }
}

/// Does a native AMQP value match a JSON expectation? A JSON string is an AMQP string, a JSON
/// integer literal an AMQP integer of any width with that value (never a float: a float 1.0 is
/// not integral 1, the gate rejects it), a JSON literal with a fraction or exponent a float or
/// double of that value, `true`/`false` a boolean, `null` null.
pub(crate) fn amqp_matches(expected: &Value, actual: &Amqp) -> bool {
    match (expected, actual) {
        (Value::Null, Amqp::Null) => true,
        (Value::Bool(a), Amqp::Boolean(b)) => a == b,
        (Value::String(a), Amqp::String(b)) => a == b,
        (Value::Number(n), v) if n.is_f64() => match v {
            Amqp::Float(x) => n.as_f64() == Some(f64::from(*x)),
            Amqp::Double(x) => n.as_f64() == Some(*x),
            _ => false,
        },
        (Value::Number(n), v) => {
            let want = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
            want.is_some() && v.integral() == want
        }
        _ => false,
    }
}

/// `n` as every AMQP integer type that holds it exactly, signed widths first (byte, short,
/// int, long, then ubyte, ushort, uint, ulong).
pub(crate) fn integer_forms(n: i128) -> Vec<Amqp> {
    [
        i8::try_from(n).ok().map(Amqp::Byte),
        i16::try_from(n).ok().map(Amqp::Short),
        i32::try_from(n).ok().map(Amqp::Int),
        i64::try_from(n).ok().map(Amqp::Long),
        u8::try_from(n).ok().map(Amqp::Ubyte),
        u16::try_from(n).ok().map(Amqp::Ushort),
        u32::try_from(n).ok().map(Amqp::Uint),
        u64::try_from(n).ok().map(Amqp::Ulong),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The envelope fixture a projection block names (`envelope_file`), and the block itself.
pub(crate) fn projection_fixture<'s>(r: &mut Reader<'s>) -> Option<(Place<'s>, Fixture<'s>)> {
    let at = r.root();
    r.object(&at)?;
    let fixture = r.file(&at, "envelope_file")?;
    Some((at, fixture))
}

/// A golden map field of a projection block, recorded as an expectation.
pub(crate) fn golden<'s>(r: &mut Reader<'s>, at: &Place<'s>, key: &str) -> Option<&'s Map<String, Value>> {
    r.expects_map_entry(at, key);
    r.map(at, key)
}

/// The body a binding sent is the envelope it was given, unchanged in value (the fixture).
pub(crate) fn body_is_envelope(what: &str, fixture: &Fixture<'_>, body: &[u8]) -> Check {
    let sent: Value = serde_json::from_slice(body)
        .map_err(|e| format!("the {what} is not JSON ({e}): {}", String::from_utf8_lossy(body)))?;
    ensure(same_value(&sent, fixture.json), || format!("the {what} is not the envelope {}: {sent}", fixture.rel))?;
    // A producer that passes the envelope through byte for byte writes nothing of its own.
    if body == fixture.bytes {
        return Ok(());
    }
    let text = std::str::from_utf8(body).map_err(|e| format!("the {what} is not UTF-8: {e}"))?;
    encoded_text(text, &[("", fixture.json)], Some(fixture.bytes)).map_err(|e| format!("the {what}: {e}"))
}

/// An `attempts_reconciliation` case: `body_attempts`, the binding's native count field (read
/// by `count`, its published type), `expected_attempts`.
pub struct Reconciliation<C> {
    pub body_attempts: u64,
    pub count: C,
    pub expected: u64,
}

impl<C> Reconciliation<C> {
    /// Read `{name, body_attempts, <count field>, expected_attempts}`.
    pub fn read<'s>(r: &mut Reader<'s>, count: impl FnOnce(&mut Reader<'s>, &Place<'s>) -> Option<C>) -> Option<Self> {
        r.row()?;
        let at = r.root();
        r.object(&at)?;
        let name = r.str(&at, "name");
        let body_attempts = r.u64(&at, "body_attempts");
        let count = count(r, &at);
        let expected = r.u64(&at, "expected_attempts");
        r.expects(&at, "expected_attempts");
        name?;
        Some(Self { body_attempts: body_attempts?, count: count?, expected: expected? })
    }

    /// The reconciled attempts must be the expected ones.
    pub fn verdict(&self, got: Result<u64, crate::sdk::SdkError>) -> Outcome {
        let check = || -> Check {
            let got = got.map_err(|e| e.to_string())?;
            ensure(got == self.expected, || format!("attempts {got}, expected {}", self.expected))
        };
        check().into()
    }
}

/// A gate row's value, as the runner must hand it to a binding.
#[derive(Debug, Clone, PartialEq)]
pub enum RowValue {
    /// `absent: true`: no key.
    Absent,
    /// `value: null`: the key present with a null value.
    Null,
    Text(String),
    /// A JSON number with an integral value and no `value_type`.
    Integer(i128),
    /// `value_type: "float"`, or a number with a fraction: a real floating-point value.
    Float(f64),
    /// A value no binding can carry (a boolean, an array, an object): fails the row.
    Other(Value),
}

impl RowValue {
    /// The value as a reason shows it after how it was carried (`string property "1\u{00a0}"`):
    /// a string [`quoted`], so a hidden character shows; a number as written (a float with its
    /// fraction: `AMQP double 1.0`), any other JSON value as JSON; `None` for an absent property
    /// or a null one, which how it was carried already says ("no property", "AMQP null").
    pub fn shown(&self) -> Option<String> {
        match self {
            RowValue::Absent | RowValue::Null => None,
            RowValue::Text(s) => Some(quoted(s)),
            RowValue::Integer(i) => Some(i.to_string()),
            RowValue::Float(f) => Some(format!("{f:?}")),
            RowValue::Other(v) => Some(v.to_string()),
        }
    }

    /// The value named in words, for a reason that says a binding cannot carry it (`the integer
    /// 1`, `null`, `the JSON value true`): never Rust's own spelling of the type.
    pub fn described(&self) -> String {
        let kind = match self {
            RowValue::Absent => return "an absent value".into(),
            RowValue::Null => return "null".into(),
            RowValue::Text(_) => "the string",
            RowValue::Integer(_) => "the integer",
            RowValue::Float(_) => "the float",
            RowValue::Other(_) => "the JSON value",
        };
        format!("{kind} {}", self.shown().unwrap_or_default())
    }
}

/// Which row values a binding's schema-version property can carry.
#[derive(Debug, Clone, Copy)]
pub struct Carries {
    pub null: bool,
    pub numbers: bool,
}

/// One schema_version_gate row, with its table's property and fixture.
pub struct GateRow<'s> {
    pub property: &'s str,
    pub fixture: Fixture<'s>,
    pub value: RowValue,
    /// The raw `value` (`None` for `absent`), with `value_type` present, for the cross-checks.
    raw: Option<&'s Value>,
    typed: bool,
    pub decode: bool,
}

impl<'s> GateRow<'s> {
    /// Read a row of the table the case lives in.
    pub fn read(r: &mut Reader<'s>) -> Option<Self> {
        let table = r.block_place();
        r.row()?;
        r.object(&table)?;
        let property = r.str(&table, "property");
        if property == Some("") {
            r.bad_value(pointer::join(&table.pointer, "property"), "the table must name its native property");
        }
        let fixture = r.file(&table, "fixture");
        let at = r.root();
        r.object(&at)?;
        let which = r.exactly_one(&at, &["value", "absent"]);
        let (value, raw) = match which {
            Some("absent") => match r.opt(&at, "absent").map(|p| p.value) {
                Some(Value::Bool(true)) => (Some(RowValue::Absent), None),
                other => {
                    let p = pointer::join(&at.pointer, "absent");
                    r.bad_value(p, format!("\"absent\" must be true, found {}", other.unwrap_or(&Value::Null)));
                    (None, None)
                }
            },
            Some(_) => {
                let v = at.value.get("value");
                let float = match r.opt(&at, "value_type") {
                    None => Some(false),
                    Some(_) => r.one_of(&at, "value_type", &[("float", true)]),
                };
                (float.zip(v).map(|(float, v)| row_value(v, float)), v)
            }
            None => (None, None),
        };
        let decode = r.one_of(&at, "expect", &[("decode", true), ("reject", false)]);
        r.expects_other(&at, "expect", &["decode", "reject"]);
        let typed = at.value.get("value_type").is_some();
        Some(Self { property: property?, fixture: fixture?, value: value?, raw, typed, decode: decode? })
    }

    /// Run the row: `carry` builds and consumes the messages for the row value, one per native
    /// form (or says the binding cannot carry it).
    pub fn run(
        &self,
        cx: &mut RunCx<'_>,
        carry: impl FnOnce(&mut RunCx<'_>, &str, &RowValue, &[u8]) -> Result<Vec<(String, ConsumeOutcome)>, String>,
    ) -> Outcome {
        let run = || -> Check {
            let attempts = carry(cx, self.property, &self.value, self.fixture.bytes)?;
            ensure(!attempts.is_empty(), || "the runner built no message for this row".into())?;
            // The value judged, beside how it was carried: a reason without it hid the very
            // character a row is about (a no-break space, shown `\u{00a0}` by Outcome::fail).
            let value = self.value.shown().map_or_else(String::new, |v| format!(" {v}"));
            for (how, result) in attempts {
                match (self.decode, result) {
                    (true, ConsumeOutcome::Delivered { .. }) | (false, ConsumeOutcome::GateRejected { .. }) => {}
                    (true, ConsumeOutcome::GateRejected { message } | ConsumeOutcome::BodyRejected { message }) => {
                        return Err(format!("{how}{value}: expected decode, got {message}"));
                    }
                    (false, ConsumeOutcome::Delivered { .. }) => {
                        return Err(format!("{how}{value}: expected the gate to reject, but it decoded"));
                    }
                    (false, ConsumeOutcome::BodyRejected { message }) => {
                        return Err(format!(
                            "{how}{value}: expected the gate to reject, but it let the message through: {message}"
                        ));
                    }
                }
            }
            Ok(())
        };
        run().into()
    }
}

fn row_value(value: &Value, float: bool) -> RowValue {
    match value {
        Value::Null => RowValue::Null,
        Value::String(s) => RowValue::Text(s.clone()),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            let int = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
            match int {
                Some(i) if !float => RowValue::Integer(i),
                // An integral value written as 2.0 without a marker reads as the integer 2 (R4);
                // validate reports the row as ambiguous (BQ844).
                None if !float && f.fract() == 0.0 && f.abs() < 1e18 => RowValue::Integer(f as i128),
                _ => RowValue::Float(f),
            }
        }
        other => RowValue::Other(other.clone()),
    }
}

/// The row value of a binding whose property is a string (SQS, Pulsar): only text or absent.
pub(crate) fn text_only<'r>(binding: &str, value: &'r RowValue) -> Result<Option<&'r str>, String> {
    match value {
        RowValue::Absent => Ok(None),
        RowValue::Text(s) => Ok(Some(s)),
        other => Err(format!("{binding} cannot carry {} in a string property", other.described())),
    }
}

fn finding(code: Code, msg: String, ptr: &str) -> Finding {
    Finding::error(code, msg).in_file(MANIFEST).at(ptr)
}

/// The gate cross-checks of one row (see the module doc); `fixture_checked` keeps BQ841 to one
/// finding per table.
pub(crate) fn check_gate_row(
    cx: &mut CheckCx<'_>,
    binding: &str,
    carries: Carries,
    row_pointer: &str,
    row: &GateRow<'_>,
    fixture_checked: &mut bool,
    out: &mut Vec<Finding>,
) {
    if !*fixture_checked {
        *fixture_checked = true;
        let accepted = cx.sdk.accepts(Accepts { body: Bytes::from(row.fixture.bytes) });
        if accepted != Ok(true) {
            let table = row_pointer.rsplitn(3, '/').nth(2).unwrap_or_default();
            out.push(finding(
                Code::GATE_FIXTURE_INVALID,
                format!("{} is not a valid envelope, so a reject could come from the body", row.fixture.rel),
                &pointer::join(table, "fixture"),
            ));
        }
    }
    let Some(v) = row.raw else { return };
    if row.typed && !v.is_number() {
        out.push(finding(
            Code::GATE_ROW_VALUE_TYPE,
            "value_type is only for rows whose value is a number".into(),
            &pointer::join(row_pointer, "value_type"),
        ));
    }
    // A float literal (serde_json keeps a number written with a fraction or an exponent as a
    // float) whose value is integral: integral 1 to some runners, float 1.0 to others.
    if let Value::Number(n) = v
        && carries.numbers
        && !row.typed
        && n.is_f64()
        && n.as_f64().is_some_and(|f| f.fract() == 0.0)
    {
        out.push(finding(
            Code::GATE_ROW_VALUE_TYPE,
            format!(
                "{v} is written as a floating-point literal with an integral value, without value_type: runners that \
                 parse it as a double hand the SDK a float (which rejects), others the integer {} (which may decode); \
                 write the integer {} for an integral row, or add \"value_type\": \"float\" for a float one",
                n.as_f64().unwrap_or_default() as i128,
                n.as_f64().unwrap_or_default() as i128
            ),
            &pointer::join(row_pointer, "value"),
        ));
    }
    let problem = match v {
        Value::String(_) => None,
        Value::Bool(_) | Value::Array(_) | Value::Object(_) => {
            Some(format!("a gate row's value must be a string, a number or null, found {v}"))
        }
        Value::Null if !carries.null => Some(format!("{binding} cannot carry a property with a null value")),
        Value::Number(_) if !carries.numbers => Some(format!("{binding}'s property is a string; it cannot carry {v}")),
        Value::Number(n) if !row.typed && n.as_f64().is_some_and(|f| f.fract() == 0.0) => {
            // An integral value (`2` or `2.0`, R4) must fit both widths the runner uses.
            let fits = n.as_f64().is_some_and(|f| (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&f));
            (!fits).then(|| format!("{v} does not fit a 32-bit integer, so it cannot be handed over at both widths"))
        }
        _ => None,
    };
    if let Some(msg) = problem {
        out.push(finding(Code::GATE_ROW_NOT_CARRIED, msg, &pointer::join(row_pointer, "value")));
    }
}

/// The runner-contract fields and steps the five binding sections with a projection block,
/// `attempts_reconciliation` and `schema_version_gate` share (each adds its own projection
/// fields, its count field and its reconciliation rule).
pub mod contract {
    use super::Carries;
    use crate::sections::Field;

    pub const DESCRIPTION: Field =
        Field { name: "description", ty: "string", meaning: "What the block pins, for people; not compared." };
    pub const ENVELOPE_FILE: Field = Field {
        name: "envelope_file",
        ty: "string: a suite-relative path, `fixtures/…` (the projection block)",
        meaning: "The envelope the SDK's producer is given: exactly the bytes of that file (every expected value of the block comes from it).",
    };
    pub const NAME: Field = Field {
        name: "name",
        ty: "string (`attempts_reconciliation`)",
        meaning: "Names the row: its case id is `attempts_reconciliation/<name>`.",
    };
    pub const BODY_ATTEMPTS: Field = Field {
        name: "body_attempts",
        ty: "integer (`attempts_reconciliation`)",
        meaning: "The `attempts` in the body of the consumed message.",
    };
    pub const EXPECTED_ATTEMPTS: Field = Field {
        name: "expected_attempts",
        ty: "integer (`attempts_reconciliation`)",
        meaning: "The attempts the consumer must report for that message after reconciling the body's count with the broker's.",
    };
    /// The gate row's `value`, typed by what the binding's property can carry, so a binding's
    /// page never offers a type none of its rows may hold (the row check refuses the others).
    pub const fn value(carries: Carries) -> Field {
        let ty = match (carries.null, carries.numbers) {
            (false, false) => "string (`schema_version_gate`; present unless `absent` is)",
            (true, false) => "string or null (`schema_version_gate`; present unless `absent` is)",
            (false, true) => "string or number (`schema_version_gate`; present unless `absent` is)",
            (true, true) => "string, number or null (`schema_version_gate`; present unless `absent` is)",
        };
        let meaning = if carries.null {
            "The value of the block's `property` on the received message, exactly as given (never trimmed); null: the key is present with a null value, which is not the same as leaving it out."
        } else {
            "The value of the block's `property` on the received message, exactly as given (never trimmed)."
        };
        Field { name: "value", ty, meaning }
    }
    pub const ABSENT: Field = Field {
        name: "absent",
        ty: "`true` (`schema_version_gate`; present unless `value` is)",
        meaning: "The received message carries no such property at all.",
    };
    pub const EXPECT: Field = Field {
        name: "expect",
        ty: "string: `decode` or `reject` (`schema_version_gate`)",
        meaning: "`decode`: the gate lets the message through and the body decodes; `reject`: the gate refuses it before the body is decoded (the poison / dead-letter path).",
    };

    /// The last step of every projection: the body is the envelope.
    pub const PROJECTION_BODY: &str = "The map comparisons are closed: exactly the expected keys, no more, each with the same value (the block's description says which native fields are compared and how numbers travel). The body the producer sends must be the fixture's envelope, the same JSON value: a binding adds native fields beside the body and never rewrites it.";
    /// How a reconciliation row runs.
    pub const RECONCILE: &str = "`attempts_reconciliation/<name>`: hand the SDK's consumer a received message whose body is a valid envelope with `attempts` = `body_attempts` (the projection block's fixture with `attempts` replaced will do: only `attempts` counts) and whose broker count is the row's count field (below), and take the attempts it reports, without a broker; the row passes when they equal `expected_attempts`.";
    /// How a gate row runs.
    pub const GATE: &str = "`schema_version_gate/<index>` (rows unnamed, ids by position): build a received message whose body is the block's `fixture` (always a valid envelope) and that carries the row's `value` under the block's `property` (no such key for `absent: true`, the key with a null value for null), and let the SDK's consumer take it. `decode` passes when the message gets through the gate and the body decodes; `reject` passes only when the gate itself refuses it (a body rejection does not count).";
    /// The gate rule every binding states the same way.
    pub const GATE_RULE: &str = "The gate: exactly `1`, an absent property or a blank one (empty, or only the six ASCII whitespace characters) lets the message through; any other present value is compared as it is, never trimmed, and rejects, so ` 1`, `01`, `2` and values of non-ASCII spaces or a BOM reject. A gate that trims, or uses a Unicode-aware whitespace test, fails rows.";
    /// The last step.
    pub const REPORT: &str = "Report every case `pass`, or `fail` with the first difference as `reason`; an error or exception the SDK raises is a `fail` with its text.";
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_become_typed_values() {
        assert_eq!(row_value(&json!(null), false), RowValue::Null);
        assert_eq!(row_value(&json!(1), false), RowValue::Integer(1));
        assert_eq!(row_value(&json!(2.0), false), RowValue::Integer(2));
        assert_eq!(row_value(&json!(1.0), true), RowValue::Float(1.0));
        assert_eq!(row_value(&json!(1), true), RowValue::Float(1.0));
        assert_eq!(row_value(&json!(1.5), false), RowValue::Float(1.5));
        assert_eq!(row_value(&json!(true), false), RowValue::Other(json!(true)));
    }

    #[test]
    fn amqp_values_match_by_type() {
        assert!(amqp_matches(&json!(1), &Amqp::Int(1)));
        assert!(amqp_matches(&json!(1), &Amqp::Ulong(1)));
        assert!(!amqp_matches(&json!(1), &Amqp::Double(1.0)));
        assert!(!amqp_matches(&json!(1), &Amqp::String("1".into())));
        assert!(amqp_matches(&json!(1.5), &Amqp::Float(1.5)));
        assert!(!amqp_matches(&json!(1.0), &Amqp::Int(1)));
        assert!(amqp_matches(&json!("php"), &Amqp::String("php".into())));
        assert!(!amqp_matches(&json!("php"), &Amqp::Symbol("php".into())));
        assert!(amqp_matches(&json!(null), &Amqp::Null));
    }

    #[test]
    fn integers_go_out_at_every_width_that_holds_them() {
        let names = |n| integer_forms(n).iter().map(Amqp::type_name).collect::<Vec<_>>();
        assert_eq!(names(1), ["byte", "short", "int", "long", "ubyte", "ushort", "uint", "ulong"]);
        assert_eq!(names(-1), ["byte", "short", "int", "long"]);
        assert_eq!(names(-300), ["short", "int", "long"]);
    }

    #[test]
    fn a_gate_value_is_documented_with_only_the_types_its_binding_carries() {
        let types = |null, numbers| {
            let field = contract::value(Carries { null, numbers });
            let listed = field.ty.split(" (").next().unwrap().replace(',', "").replace(" or ", " ");
            (listed.split(' ').map(str::to_owned).collect::<Vec<_>>(), field.meaning.contains("null"))
        };
        assert_eq!(types(false, false), (vec!["string".to_owned()], false));
        assert_eq!(types(true, false), (vec!["string".to_owned(), "null".to_owned()], true));
        assert_eq!(types(false, true), (vec!["string".to_owned(), "number".to_owned()], false));
        assert_eq!(types(true, true), (vec!["string".to_owned(), "number".to_owned(), "null".to_owned()], true));
    }

    #[test]
    fn golden_maps_are_closed() {
        let want = json!({"a": 1, "b": "x"});
        let want = want.as_object().unwrap();
        assert!(exact_map("m", want, json!({"a": 1.0, "b": "x"}).as_object().unwrap()).is_ok());
        assert!(exact_map("m", want, json!({"a": 1}).as_object().unwrap()).is_err());
        assert!(exact_map("m", want, json!({"a": 1, "b": "x", "c": 0}).as_object().unwrap()).is_err());
        assert!(exact_map("m", want, json!({"a": "1", "b": "x"}).as_object().unwrap()).is_err());
    }
}
