//! The messages of the adapter protocol, version [`PROTOCOL`], and its JSON Schema.
//!
//! One JSON object per line in each direction (`docs/adapter-protocol.md`). bqsuite writes
//! [`Command`]s to the adapter's stdin, the adapter writes [`Reply`]s to its stdout. The
//! operations inside a call are the SDK interface's own serde types ([`crate::sdk::Request`],
//! [`crate::sdk::Response`]), so the wire and the in-process interface cannot drift apart; the
//! schema is generated from these very types ([`schema`]) and committed as
//! `docs/adapter-protocol.schema.json` (a test keeps the two equal).
//!
//! Invariants: every message names its kind in its first member (`cmd` / `reply`); every call
//! carries a `seq` that the one reply to it repeats; a line from the adapter is at most
//! [`MAX_LINE`] bytes; unknown members are ignored in both directions (a later minor addition
//! never breaks an adapter), but the protocol version in the hello is exact; a JSON number
//! carries no type, so where a member is an integer any number whose value is an integer of at
//! most 2^53 in magnitude stands for it (`1`, `1.0`, `1e3`: [`integral_numbers`]).

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use crate::sdk::{Identity, Request, Response};

/// The protocol version this bqsuite speaks.
pub const PROTOCOL: u32 = 1;

/// The longest line bqsuite reads from an adapter, in bytes (the newline not counted).
pub const MAX_LINE: usize = 8 << 20;

/// What bqsuite writes to the adapter's stdin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Command {
    /// The first line: the protocol version bqsuite speaks. The adapter answers with a `hello`
    /// reply.
    Hello {
        /// The protocol version bqsuite speaks.
        protocol: u32,
        /// bqsuite's own version (informative).
        bqsuite: String,
        /// The suite version being run (informative).
        conformance_version: String,
    },
    /// Perform one operation. Answered by exactly one reply with the same `seq`.
    Call {
        /// 1, 2, 3, … per adapter process, in the order the calls are written.
        seq: u64,
        /// The section of the case this call belongs to (for the adapter's log only).
        section: String,
        /// The case id (for the adapter's log only: an adapter must not behave differently
        /// by case).
        case: String,
        /// The operation and its input.
        request: Box<Request>,
    },
    /// The last line: the adapter exits with status 0, writing nothing more. bqsuite then
    /// closes the adapter's stdin.
    Shutdown,
}

/// What the adapter writes to its stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// The answer to bqsuite's hello: the protocol version the adapter speaks and who the SDK
    /// under test is.
    Hello(Hello),
    /// The operation's result: what the SDK did, including the outcomes a case may expect (a
    /// rejected decode, a refused encode, a raise, a gate rejection).
    Result {
        seq: u64,
        /// The operation's result, tagged by the same operation name as the request.
        response: Response,
    },
    /// The SDK failed unexpectedly (an exception, a broker error): the case fails with the
    /// message.
    Error { seq: u64, message: String },
    /// The SDK does not implement the operation: the case fails with "not implemented".
    NotImplemented { seq: u64 },
    /// The SDK cannot perform the operation for a reason the suite's skip policy allows for
    /// this case; the reason cites the policy's ADR (`ADR-NNNN`). Anywhere else it fails the
    /// case.
    Skip { seq: u64, reason: String },
}

/// The longest `sdk`, `version` or `language` a hello may give, in characters: a name, printed
/// in every summary and verdict line, not a document.
pub const MAX_NAME: usize = 200;

/// The adapter's hello: its protocol version and the SDK under test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hello {
    /// The protocol version the adapter speaks; bqsuite runs only its own.
    pub protocol: u32,
    /// The results file's `sdk`: the SDK package's name (`babelqueue-python`, `php-sdk`); not
    /// blank, at most 200 characters.
    #[schemars(length(max = MAX_NAME))]
    pub sdk: String,
    /// The results file's `version`: the SDK package's version; not blank, at most 200
    /// characters.
    #[schemars(length(max = MAX_NAME))]
    pub version: String,
    /// The language the SDK is written in (`php`, `go`, `python`, `java`, `dotnet`, `node`,
    /// `rust`, …), informative only; not blank, at most 200 characters.
    #[schemars(length(max = MAX_NAME))]
    pub language: String,
    /// The results file's `bindings`: every binding the package carries (`redis`, `amqp`,
    /// `sqs`, `asb`, `pulsar`, `kafka`, `artemis`, and `otel` when it carries the traceparent
    /// code). It decides which sections run, and it must be complete; only those eight
    /// names, each at most once.
    pub bindings: Vec<String>,
    /// The operations the adapter implements; bqsuite never calls any other.
    pub operations: Vec<String>,
    /// The adapter reads its calls one after the other from a buffered stdin, so bqsuite may
    /// write calls ahead, before the earlier ones are answered (they are still answered one by
    /// one, in the order written). Absent means `false`: exactly one call in flight.
    #[serde(default)]
    pub pipeline: bool,
}

impl Hello {
    /// The hello of `identity`, speaking [`PROTOCOL`].
    pub fn of(identity: Identity) -> Self {
        let Identity { sdk, version, language, bindings, operations } = identity;
        Self { protocol: PROTOCOL, sdk, version, language, bindings, operations, pipeline: false }
    }

    /// The SDK under test it describes.
    pub fn identity(&self) -> Identity {
        Identity {
            sdk: self.sdk.clone(),
            version: self.version.clone(),
            language: self.language.clone(),
            bindings: self.bindings.clone(),
            operations: self.operations.clone(),
        }
    }
}

/// A call as written: [`Command::Call`]'s members, borrowed (the same line, without copying
/// the request).
#[derive(Serialize)]
#[serde(tag = "cmd", rename = "call")]
pub struct CallLine<'a> {
    pub seq: u64,
    pub section: &'a str,
    pub case: &'a str,
    pub request: &'a Request,
}

impl CallLine<'_> {
    /// The line, its newline included.
    pub fn to_line(&self, out: &mut Vec<u8>) {
        serde_json::to_writer(&mut *out, self).expect("a call always serialises");
        out.push(b'\n');
    }
}

/// The members of any reply, read in one pass without buffering the whole reply first (serde
/// buffers an internally tagged enum such as [`Reply`] before it picks the variant; this
/// struct does not, and [`Response`] is read straight when its `op` comes first). A line it
/// reads gives the same [`Reply`] as reading [`Reply`] would; one it does not read (a member
/// twice, a `response` on a reply that has none, …) is left to [`Reply`]'s own reading.
#[derive(Deserialize)]
struct AnyReply {
    reply: String,
    seq: Option<u64>,
    response: Option<Response>,
    message: Option<String>,
    reason: Option<String>,
}

/// Numbers of an adapter's line (`value`, parsed from `line`) whose value is an integer, written
/// with a fraction or an exponent (`1.0`, `1e3`), as integers, so that a member the protocol
/// types as an integer takes them. A library that holds every number as a double (Gson's
/// default, a JavaScript number) writes `1000.0` for the integer 1000, and the protocol's own
/// schema (JSON Schema 2020-12: an integer is a number without a fraction) accepts it. The
/// value is read from the literal, not from the double it rounds to, so `1.0000000000000001`
/// stays a fraction. Left as they are too: numbers beyond 2^53 in magnitude (a double there no
/// longer names one integer), and `-0.0`. A member the protocol types as a number takes an
/// integer all the same.
pub fn integral_numbers(value: &mut serde_json::Value, line: &[u8]) {
    use serde_json::Value;
    if !value_has_float(value) {
        return;
    }
    // By pointer, the literal serde_json kept (the last of a repeated key, as it keeps it).
    let Some(numbers) = crate::suite::exact::Numbers::of(line) else { return };
    for (at, (exact, _)) in numbers.iter() {
        if let Some(i) = exact.small_integer().filter(|_| !exact.is_integer_literal())
            && let Some(v) = value.pointer_mut(at)
            && v.as_f64().is_some_and(|f| !(f == 0.0 && f.is_sign_negative()))
        {
            *v = Value::from(i);
        }
    }
}

/// Does `value` hold a number serde_json read as a float?
fn value_has_float(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::Number(n) => n.is_f64(),
        Value::Array(items) => items.iter().any(value_has_float),
        Value::Object(members) => members.values().any(value_has_float),
        _ => false,
    }
}

/// A reply to a call (not a hello), read the quick way, or `None` to read it as [`Reply`].
pub fn quick_reply(line: &[u8]) -> Option<Reply> {
    let r: AnyReply = serde_json::from_slice(line).ok()?;
    let seq = r.seq?;
    match (r.reply.as_str(), r.response, r.message, r.reason) {
        ("result", Some(response), None, None) => Some(Reply::Result { seq, response }),
        ("error", None, Some(message), None) => Some(Reply::Error { seq, message }),
        ("not_implemented", None, None, None) => Some(Reply::NotImplemented { seq }),
        ("skip", None, None, Some(reason)) => Some(Reply::Skip { seq, reason }),
        _ => None,
    }
}

impl Reply {
    /// The `seq` the reply answers (none for a hello).
    pub fn seq(&self) -> Option<u64> {
        match self {
            Reply::Hello(_) => None,
            Reply::Result { seq, .. }
            | Reply::Error { seq, .. }
            | Reply::NotImplemented { seq }
            | Reply::Skip { seq, .. } => Some(*seq),
        }
    }
}

/// Both directions of the protocol, for the schema's root.
#[derive(JsonSchema)]
#[allow(dead_code)]
#[schemars(
    title = "bqsuite adapter protocol",
    description = "One JSON object per line. A line bqsuite writes to the adapter's stdin is a Command; a line the adapter writes to its stdout is a Reply. See docs/adapter-protocol.md."
)]
#[serde(untagged)]
enum Message {
    Command(Command),
    Reply(Reply),
}

/// The JSON Schema (draft 2020-12) of every message of protocol [`PROTOCOL`], generated from
/// the serde types, as the committed `docs/adapter-protocol.schema.json` holds it.
pub fn schema() -> Schema {
    let mut schema = SchemaGenerator::default().into_root_schema_for::<Message>();
    schema
        .insert("$id".into(), format!("https://babelqueue.com/bqsuite/adapter-protocol-{PROTOCOL}.schema.json").into());
    schema
}

/// [`schema`] as the committed file spells it: pretty JSON and a final newline.
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema()).expect("a schema always serialises");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdk::ops::{Accepts, DecodeOutcome};
    use crate::sdk::wire::Bytes;
    use serde_json::json;

    #[test]
    fn integral_numbers_stand_for_integers() {
        let line = r#"{"seq": 3.0, "result": [1000.0, 1e3, 1.5, -2.0, -0.0, 1e300, 9007199254740992.0, 7, 1.0000000000000001, 1.99999999999999999, 9007199254740993.0], "s": "1.0"}"#;
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        integral_numbers(&mut v, line.as_bytes());
        // A literal that only rounds to an integer stays a fraction (red team L1).
        assert_eq!(
            v.to_string(),
            r#"{"seq":3,"result":[1000,1000,1.5,-2,-0.0,1e+300,9007199254740992,7,1.0,2.0,9007199254740992.0],"s":"1.0"}"#
        );
        // What a Gson-based adapter writes: refused as it is, taken once the numbers are integral.
        // A repeated key: serde_json keeps the last, and so does the literal that decides.
        let line = r#"{"seq": 2.0, "seq": 1.5}"#;
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        integral_numbers(&mut v, line.as_bytes());
        assert_eq!(v.to_string(), r#"{"seq":1.5}"#);
        let line = r#"{"reply": "result", "seq": 2.0, "response": {"op": "retry_delay", "result": [1000.0, 2e3]}}"#;
        assert!(quick_reply(line.as_bytes()).is_none());
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        integral_numbers(&mut v, line.as_bytes());
        match Reply::deserialize(&v).unwrap() {
            Reply::Result { seq: 2, response: Response::RetryDelay(delays) } => assert_eq!(delays, [1000, 2000]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_committed_schema_is_the_generated_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/adapter-protocol.schema.json");
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == schema_text(),
            "{} is not the schema the protocol types generate; regenerate it with \
             `cargo run -- adapter --schema > docs/adapter-protocol.schema.json`",
            path.display()
        );
    }

    #[test]
    fn the_schema_is_a_valid_draft_2020_12_schema() {
        let schema = serde_json::to_value(schema()).unwrap();
        assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
        jsonschema::draft202012::new(&schema).expect("the generated schema compiles");
    }

    #[test]
    fn wire_forms() {
        let call = Command::Call {
            seq: 3,
            section: "cases".into(),
            case: "order-created".into(),
            request: Box::new(Request::Accepts(Accepts { body: Bytes::from("{}") })),
        };
        assert_eq!(
            serde_json::to_value(&call).unwrap(),
            json!({"cmd": "call", "seq": 3, "section": "cases", "case": "order-created",
                   "request": {"op": "accepts", "body": "e30="}})
        );
        assert_eq!(serde_json::to_value(Command::Shutdown).unwrap(), json!({"cmd": "shutdown"}));
        let reply: Reply = serde_json::from_value(json!({
            "reply": "result", "seq": 3, "response": {"op": "decode", "result": {"kind": "rejected", "message": "x"}},
            "later_member": true
        }))
        .unwrap();
        assert_eq!(
            reply,
            Reply::Result { seq: 3, response: Response::Decode(DecodeOutcome::Rejected { message: "x".into() }) }
        );
        assert_eq!(reply.seq(), Some(3));
        let skip: Reply = serde_json::from_value(json!({"reply": "skip", "seq": 4, "reason": "ADR-0032"})).unwrap();
        assert_eq!(skip.seq(), Some(4));
        let hello: Reply = serde_json::from_value(json!({"reply": "hello", "protocol": 1, "sdk": "s", "version": "1",
            "language": "python", "bindings": [], "operations": ["decode"]}))
        .unwrap();
        assert!(matches!(hello, Reply::Hello(Hello { protocol: 1, .. })));
    }

    /// Every byte member (base64, often hundreds of characters) comes after the short members
    /// of its object, so that a traced line (`run --trace`) shows the members that tell one
    /// call from another first: a newcomer had to `grep -o` the application properties and the
    /// Redis target out of lines that opened with 800 characters of base64. Member order means
    /// nothing to a JSON parser; this holds what bqsuite writes.
    #[test]
    fn byte_members_come_last() {
        fn is_bytes(v: &serde_json::Value) -> bool {
            v.to_string().contains("#/$defs/Bytes")
        }
        let schema = serde_json::to_value(schema()).unwrap();
        let mut objects = Vec::new();
        fn walk<'v>(
            name: &str,
            v: &'v serde_json::Value,
            out: &mut Vec<(String, &'v serde_json::Map<String, serde_json::Value>)>,
        ) {
            match v {
                serde_json::Value::Object(o) => {
                    if let Some(serde_json::Value::Object(p)) = o.get("properties") {
                        out.push((name.to_owned(), p));
                    }
                    for (k, x) in o {
                        walk(&format!("{name}/{k}"), x, out);
                    }
                }
                serde_json::Value::Array(a) => {
                    a.iter().enumerate().for_each(|(i, x)| walk(&format!("{name}/{i}"), x, out))
                }
                _ => {}
            }
        }
        walk("", &schema, &mut objects);
        let mut checked = 0;
        for (at, props) in objects {
            let flags: Vec<bool> = props.values().map(is_bytes).collect();
            if let Some(first) = flags.iter().position(|b| *b) {
                checked += 1;
                assert!(
                    flags[first..].iter().all(|b| *b),
                    "{at}: a short member after a byte member: {:?}",
                    props.keys().collect::<Vec<_>>()
                );
            }
        }
        assert!(checked > 20, "only {checked} objects with byte members: the walk lost its way");
    }
}
