//! Property tests: arbitrary bytes (and arbitrary JSON-shaped text) into the envelope decoder,
//! the poison writer, the strict-object check, the archive reader and the suite loader, and the
//! canonical suite with arbitrary nodes of its manifest replaced into validate and run. None
//! may panic; the poison writer's every record must parse as JSON and carry the original bytes
//! (a byte-level splice, or the `raw` wrapper) per ADR-0035. Adapter replies with one node
//! changed: whenever serde refuses one, the departure walk names a real place in it. A
//! `MONITOR` line of any shape, the suite's JSON reader against serde_json, and `results check`
//! over any results file (the reference's with nodes replaced, or JSON-ish bytes): the
//! properties behind the `fuzz/` targets, so CI keeps what a fuzzing campaign found.

#[path = "support/untrusted.rs"]
mod untrusted;

use base64::Engine as _;
use proptest::prelude::*;
use serde_json::Value;

use bqsuite::core::poison::{self, Poison, Shape};
use bqsuite::core::{envelope, strict};
use bqsuite::fetch::{Limits, archive};
use bqsuite::release::{self, ustar};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// JSON values with the keys an envelope has (and a few it must not), nested a little.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        "[ -~\u{a0}\u{2028}\u{ffff}]{0,12}".prop_map(Value::String),
    ];
    let key = prop_oneof![
        Just("job"),
        Just("urn"),
        Just("data"),
        Just("meta"),
        Just("attempts"),
        Just("trace_id"),
        Just("dead_letter"),
        Just("schema_version"),
        Just("id"),
        Just("JOB"),
        Just("x"),
    ]
    .prop_map(str::to_owned);
    leaf.prop_recursive(4, 32, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Text that is often almost JSON: tokens of JSON, envelope keys and troublesome literals.
fn jsonish() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just("{"),
        Just("}"),
        Just("["),
        Just("]"),
        Just(","),
        Just(":"),
        Just("\"job\""),
        Just("\"urn:a\""),
        Just("\"meta\""),
        Just("\"dead_letter\""),
        Just("1e400"),
        Just("NaN"),
        Just("\"\\ud800\""),
        Just("\u{feff}"),
        Just(" "),
        Just("null"),
        Just("-0"),
        Just("\"\\u0000\""),
    ];
    prop::collection::vec(token, 0..40).prop_map(|t| t.concat().into_bytes())
}

/// Any body: raw bytes, JSON-ish text, or a serialised JSON value (often an object).
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        jsonish(),
        json_value().prop_map(|v| v.to_string().into_bytes()),
        json_value().prop_map(|v| serde_json::to_string_pretty(&v).unwrap().into_bytes()),
    ]
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn the_envelope_decoder_never_panics(b in body()) {
        let _ = envelope::decode(&b);
        let _ = envelope::accepts(&b);
    }

    #[test]
    fn the_strict_object_check_never_panics_and_agrees_with_a_strict_parser(b in body()) {
        if strict::strict_object(&b).is_ok() {
            let text = std::str::from_utf8(&b).unwrap();
            prop_assert!(serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok());
            let starts_with_brace = text.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('{');
            prop_assert!(starts_with_brace, "not an object: {:?}", text);
        }
    }

    #[test]
    fn every_poison_record_parses_and_carries_the_original_bytes(b in body()) {
        let rec = poison::record(&b, &Poison { original_queue: "orders", failed_at_ms: 1, error: None });
        prop_assert!(serde_json::from_str::<serde::de::IgnoredAny>(&rec.text).is_ok(), "not JSON: {}", rec.text);
        let members = bqsuite::sections::judge::top_level_members(&rec.text).expect("a record is one object");
        let dl: Vec<_> = members.iter().filter(|(k, _)| k == poison::DEAD_LETTER).collect();
        prop_assert_eq!(dl.len(), 1);
        let block: Value = serde_json::from_str(dl[0].1.get()).unwrap();
        prop_assert_eq!(&block["reason"], "poison");
        prop_assert_eq!(&block["original_queue"], "orders");
        match rec.shape {
            Shape::Splice => {
                // The body's bytes, with `,"dead_letter":{…}` inserted before its final `}`.
                let text = std::str::from_utf8(&b).expect("a spliced body is UTF-8");
                let close = text.trim_end_matches([' ', '\t', '\n', '\r']).len() - 1;
                prop_assert!(rec.text.starts_with(&text[..close]));
                prop_assert!(rec.text.ends_with(&text[close..]));
                let inserted = &rec.text[close..rec.text.len() - (text.len() - close)];
                let inserted = inserted.strip_prefix(',').unwrap_or(inserted);
                let value = inserted.strip_prefix("\"dead_letter\":").expect("the insert is the dead_letter member");
                prop_assert_eq!(serde_json::from_str::<Value>(value).unwrap(), block);
            }
            Shape::Wrapper => {
                let v: Value = serde_json::from_str(&rec.text).unwrap();
                let raw = v["raw"].as_str().expect("raw is a string");
                match std::str::from_utf8(&b) {
                    Ok(text) => {
                        prop_assert_eq!(raw, text);
                        prop_assert!(v.get("raw_encoding").is_none());
                    }
                    Err(_) => {
                        prop_assert_eq!(&v["raw_encoding"], "base64");
                        prop_assert_eq!(base64::engine::general_purpose::STANDARD.decode(raw).unwrap(), b.clone());
                    }
                }
                prop_assert_eq!(v.as_object().unwrap().len(), 2 + usize::from(v.get("raw_encoding").is_some()));
            }
        }
    }

    #[test]
    fn the_archive_reader_never_panics_on_any_bytes(b in prop::collection::vec(any::<u8>(), 0..2048)) {
        let limits = Limits::default();
        let _ = archive::read(&b, "1.6.0", &limits);
        let _ = archive::read(&release::gzip(&b), "1.6.0", &limits);
        let _ = ustar::read(&b, 1 << 20);
    }
}

/// A small release's tar stream, the base of the mutations below.
fn small_tar() -> Vec<u8> {
    let files: [(&str, &[u8]); 4] = [
        ("CONFORMANCE_VERSION", b"1.6.0\n"),
        ("LICENSE", b"MIT\n"),
        ("fixtures/a.json", b"{}"),
        ("manifest.json", b"{\"conformance_version\": \"1.6.0\"}\n"),
    ];
    release::tar_stream("1.6.0", &files).unwrap()
}

#[test]
fn the_undamaged_small_release_is_accepted() {
    assert!(
        archive::read(&release::gzip(&small_tar()), "1.6.0", &Limits::default()).is_ok(),
        "else the property below is vacuous"
    );
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn a_damaged_release_is_refused_or_read_the_same_never_a_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let good = small_tar();
        let mut tar = good.clone();
        for (at, byte) in &edits {
            let i = at.index(tar.len());
            tar[i] = *byte;
        }
        if truncate {
            tar.truncate(cut.index(tar.len()));
        }
        let read = archive::read(&release::gzip(&tar), "1.6.0", &Limits::default());
        let _ = ustar::first_difference(&tar, &good);
        // Only what release itself would write is accepted, up to the files' own bytes: a tar
        // has no checksum of its data, which SHA256SUMS guards (fetch checks it before it reads),
        // so an edit there (LICENSE's "MIT" made "XIT") is read as written, not refused.
        if read.is_ok() {
            let data = data_ranges(&good);
            let outside: Vec<usize> = (0..good.len().min(tar.len()))
                .filter(|&i| tar[i] != good[i] && !data.iter().any(|r| r.contains(&i)))
                .collect();
            prop_assert!(tar.len() == good.len() && outside.is_empty(), "bytes changed outside the files' data: {outside:?}");
        }
    }
}

/// Where the files' data lie in a ustar stream: after each header, `size` bytes (the octal at
/// offset 124 of the header).
fn data_ranges(tar: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 512 <= tar.len() && tar[at..at + 512].iter().any(|b| *b != 0) {
        let field = String::from_utf8_lossy(&tar[at + 124..at + 136]);
        let size = usize::from_str_radix(field.trim_matches(|c: char| c == '\0' || c == ' '), 8).unwrap_or(0);
        out.push(at + 512..at + 512 + size);
        at += 512 + size.div_ceil(512) * 512;
    }
    out
}

/// The property's own premise: an edit to a file's data is read as written, and one to a header
/// or a padding is refused (the proptest above found LICENSE's first byte read as written, which
/// it had asserted was refused).
#[test]
fn data_edits_are_read_as_written_and_header_edits_are_refused() {
    let good = small_tar();
    let data = data_ranges(&good);
    assert!(data.iter().any(|r| r.len() == 4), "LICENSE's 4 bytes are a data range: {data:?}");
    let license = data.iter().find(|r| r.len() == 4).unwrap().start;
    let mut tar = good.clone();
    tar[license] = b'X';
    assert!(archive::read(&release::gzip(&tar), "1.6.0", &Limits::default()).is_ok());
    let mut tar = good.clone();
    tar[license + 4] = b'X';
    assert!(archive::read(&release::gzip(&tar), "1.6.0", &Limits::default()).is_err(), "the padding after the data");
    let mut tar = good.clone();
    tar[license - 512] = b'X';
    assert!(archive::read(&release::gzip(&tar), "1.6.0", &Limits::default()).is_err(), "the header's name");
}

/// A minimal suite directory: the files the loader reads, with `manifest` and `fixture` given.
fn tiny_suite(manifest: &[u8], version: &[u8], fixture: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("manifest.json"), manifest).unwrap();
    std::fs::write(dir.path().join("CONFORMANCE_VERSION"), version).unwrap();
    std::fs::write(dir.path().join("LICENSE"), "MIT\n").unwrap();
    std::fs::create_dir_all(dir.path().join("fixtures")).unwrap();
    std::fs::create_dir_all(dir.path().join("schema")).unwrap();
    std::fs::write(dir.path().join("fixtures/a.json"), fixture).unwrap();
    for schema in ["message-envelope.schema.json", "results.schema.json", "results.example.json"] {
        let canonical = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema").join(schema));
        std::fs::write(dir.path().join("schema").join(schema), canonical.unwrap()).unwrap();
    }
    dir
}

/// Manifests that look like the suite's: its top-level keys with arbitrary values.
fn manifestish() -> impl Strategy<Value = Vec<u8>> {
    let key = prop_oneof![
        Just("schema_version"),
        Just("conformance_version"),
        Just("sections"),
        Just("exceptions"),
        Just("cases"),
        Just("roundtrip"),
        Just("redis_layout"),
        Just("poison_dlq"),
        Just("sqs"),
        Just("description"),
    ]
    .prop_map(str::to_owned);
    prop_oneof![
        body(),
        prop::collection::vec((key, json_value()), 0..8)
            .prop_map(|kv| Value::Object(kv.into_iter().collect()).to_string().into_bytes()),
    ]
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn the_suite_loader_and_validate_never_panic(
        manifest in manifestish(),
        version in prop_oneof![Just(b"1.6.0\n".to_vec()), prop::collection::vec(any::<u8>(), 0..12)],
        fixture in body(),
    ) {
        let dir = tiny_suite(&manifest, &version, &fixture);
        if let Ok(suite) = bqsuite::suite::Suite::load(dir.path()) {
            let _ = bqsuite::validate::validate(&suite);
            for section in suite.sections() {
                let _ = section.cases();
            }
            let _ = bqsuite::conformance::run(&suite, &bqsuite::conformance::RunOptions::default());
        }
    }
}

/// The canonical suite's files other than its manifest, by suite-relative path.
type Files = Vec<(String, Vec<u8>)>;

proptest! {
    #![proptest_config(config(24))]

    /// The real suite with one to three nodes of its manifest replaced by arbitrary JSON (a
    /// case field retyped, a block made an array, a section made a number …): every typed
    /// reader behind validate and run meets it, and none may panic.
    #[test]
    fn the_canonical_suite_with_any_node_replaced_never_panics(
        edits in prop::collection::vec((any::<prop::sample::Index>(), json_value()), 1..4),
    ) {
        static FILES: std::sync::OnceLock<(Files, Value)> = std::sync::OnceLock::new();
        let (files, manifest) = FILES.get_or_init(|| {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            let manifest = serde_json::from_slice(&std::fs::read(root.join("manifest.json")).unwrap()).unwrap();
            (untrusted::canonical_files(), manifest)
        });
        let mut manifest = manifest.clone();
        for (at, value) in edits {
            let mut paths = Vec::new();
            untrusted::node_paths(&manifest, &mut Vec::new(), &mut paths);
            let path = &paths[at.index(paths.len())];
            *untrusted::node_mut(&mut manifest, path) = value;
        }
        untrusted::manifest_text(files, &serde_json::to_vec_pretty(&manifest).unwrap());
    }
}

/// Replies of the protocol that serde reads, one per kind of result: the seeds the departure
/// property mutates.
fn valid_replies() -> Vec<Value> {
    let r = |op: &str, result: Value| serde_json::json!({"reply": "result", "seq": 7, "response": {"op": op, "result": result}});
    let replies = vec![
        r(
            "decode",
            serde_json::json!({"kind": "decoded", "envelope": {"urn": "urn:x", "trace_id": "t", "data": {"a": 1},
                "meta": {"queue": "q"}, "attempts": 2}, "warnings": []}),
        ),
        r("reemit", serde_json::json!({"kind": "encoded", "json": "{}", "warnings": []})),
        r("redis_reserve", serde_json::json!({"reservation": "r1", "body": "e30=", "poison": false, "token": null})),
        r("sqs_consume", serde_json::json!({"kind": "delivered", "attempts": 3})),
        r(
            "kafka_retry",
            serde_json::json!({"kind": "published", "record": {"topic": "t.retry.1", "value": "e30=",
                "headers": [{"key": "bq-attempts", "value": "MQ=="}, {"key": "k", "value": null}], "timestamp": 5}}),
        ),
        r("retry_delay", serde_json::json!([1, 2, 3])),
        r("make", serde_json::json!({"kind": "made", "json": "{}"})),
        serde_json::json!({"reply": "error", "seq": 7, "message": "boom"}),
        serde_json::json!({"reply": "skip", "seq": 7, "reason": "ADR-0032"}),
    ];
    for reply in &replies {
        assert!(bqsuite::adapter::protocol::Reply::deserialize(reply).is_ok(), "a seed serde reads: {reply}");
    }
    replies
}

use serde::Deserialize as _;

proptest! {
    #![proptest_config(config(400))]

    /// A reply with one node replaced, removed or given an extra member: whenever serde refuses
    /// it, the walk names where (a node of the reply, or the place of a missing member in an
    /// object of it). So an adapter's author is always told a place, and never one that is not
    /// there.
    #[test]
    fn a_departure_names_a_real_place_exactly_when_serde_refuses(
        seed in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        how in 0usize..9,
    ) {
        let seeds = valid_replies();
        let mut reply = seeds[seed.index(seeds.len())].clone();
        let mut paths = Vec::new();
        untrusted::node_paths(&reply, &mut Vec::new(), &mut paths);
        let path = paths[at.index(paths.len())].clone();
        let replacements =
            [Value::Null, Value::from("x"), Value::from(1.5), Value::from(-1), Value::from(1u64 << 40), serde_json::json!({}), serde_json::json!([])];
        match how {
            7 => {
                // Remove the node from its object (or leave a root alone).
                if let Some((last, parent)) = path.split_last()
                    && let Value::Object(m) = untrusted::node_mut(&mut reply, parent)
                {
                    m.shift_remove(last);
                }
            }
            8 => {
                if let Value::Object(m) = untrusted::node_mut(&mut reply, &path) {
                    m.insert("zz_unknown".into(), Value::from(1));
                }
            }
            k => *untrusted::node_mut(&mut reply, &path) = replacements[k].clone(),
        }
        let read = bqsuite::adapter::protocol::Reply::deserialize(&reply);
        let told = bqsuite::adapter::departure::departure(&reply);
        match (read, told) {
            // The walk is asked only when serde refuses a reply; where the schema is stricter
            // than serde (a null result left out) it need not agree.
            (Ok(_), _) => {}
            (Err(e), None) => prop_assert!(false, "serde refuses {reply} ({e}) but the walk finds nothing"),
            (Err(_), Some(d)) => {
                let there = d.pointer.is_empty() || reply.pointer(&d.pointer).is_some();
                let missing = d.found == "missing"
                    && d.pointer.rsplit_once('/').is_some_and(|(parent, _)| {
                        parent.is_empty() || reply.pointer(parent).is_some_and(Value::is_object)
                    });
                prop_assert!(there || missing, "{d} names no place of {reply}");
            }
        }
    }
}

/// Text shaped like a `MONITOR` line, often broken: its brackets, quotes and escapes in any
/// order and number.
fn monitorish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("1796515579.377818"),
        Just(" "),
        Just("["),
        Just("]"),
        Just("0"),
        Just("lua"),
        Just("[::1]:36106"),
        Just("\""),
        Just("\\"),
        Just("\\x"),
        Just("\\x4"),
        Just("\\xff"),
        Just("\\\""),
        Just("\"EVALSHA\""),
        Just("\"p:orders\""),
        Just("é"),
    ];
    prop::collection::vec(token, 0..24).prop_map(|t| t.concat())
}

/// The reference core's results file for the canonical suite, and the suite: made once.
fn reference_results() -> &'static (bqsuite::suite::Suite, Value) {
    static R: std::sync::OnceLock<(bqsuite::suite::Suite, Value)> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        let suite = bqsuite::suite::Suite::load(env!("CARGO_MANIFEST_DIR")).unwrap();
        let run = bqsuite::conformance::run(&suite, &bqsuite::conformance::RunOptions::default());
        let file = serde_json::to_value(&run.results).unwrap();
        (suite, file)
    })
}

proptest! {
    #![proptest_config(config(512))]

    /// A `MONITOR` line of any shape is read or refused, never a panic (a fuzzer found one: a
    /// line whose `]` came before its `[`), and what is read has a command.
    #[test]
    fn a_monitor_line_of_any_shape_never_panics(line in monitorish()) {
        untrusted::monitor_line(&line);
    }

    /// The suite's JSON reader (which notes repeated keys) reads exactly what serde_json reads,
    /// as the same value.
    #[test]
    fn the_suite_json_reader_agrees_with_serde_json(b in body()) {
        untrusted::json_text(&b);
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// A results file of any shape, the reference's own with one to three nodes replaced or
    /// JSON-ish bytes: `results check` gives a verdict, every renderer writes it (the JSON one
    /// valid JSON), every located finding lies inside the file, and the report renders it.
    #[test]
    fn results_check_judges_any_results_file_without_panicking(
        edits in prop::collection::vec((any::<prop::sample::Index>(), json_value()), 1..4),
        raw in prop_oneof![Just(None), jsonish().prop_map(Some), body().prop_map(Some)],
    ) {
        let (suite, reference) = reference_results();
        let bytes = match raw {
            Some(bytes) => bytes,
            None => {
                let mut file = reference.clone();
                for (at, value) in edits {
                    let mut paths = Vec::new();
                    untrusted::node_paths(&file, &mut Vec::new(), &mut paths);
                    let path = &paths[at.index(paths.len())];
                    *untrusted::node_mut(&mut file, path) = value;
                }
                serde_json::to_vec_pretty(&file).unwrap()
            }
        };
        let checker = bqsuite::results::Checker::new(suite).unwrap();
        untrusted::results_file(suite, &checker, &bytes);
    }
}
