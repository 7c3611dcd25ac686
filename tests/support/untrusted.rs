//! What must hold for the readers of untrusted input whatever they are given: the one home of
//! those checks, called by the property tests (`tests/properties.rs`, at proptest scale on every
//! change) and by the fuzz targets (`fuzz/fuzz_targets/`, coverage-guided, weekly), which
//! include this file by path. Each function panics when something does not hold.
// Each includer calls only the functions of its readers.
#![allow(dead_code)]

use bqsuite::diag::{self, Format, Summary};
use bqsuite::results::{self, Checker, Matrix, Source};
use bqsuite::suite::Suite;
use serde_json::Value;

/// `results check` of `bytes` as a results file: a verdict, every located finding inside the
/// file, every renderer (the JSON one writes JSON), the report's Markdown and HTML.
pub fn results_file(suite: &Suite, checker: &Checker<'_>, bytes: &[u8]) {
    let fc = checker.check(&Source { file: "results.json".into(), bytes: bytes.to_vec() });
    let lines = String::from_utf8_lossy(bytes).lines().count().max(1);
    for f in &fc.findings {
        if let Some(span) = f.span {
            assert!(span.line >= 1 && span.line <= lines + 1 && span.column >= 1, "{f:?}");
        }
    }
    let _ = results::verdict_line(&fc);
    let summary = Summary::new("results check", "suite");
    let _ = diag::render(&fc.findings, Format::Human, false, &summary);
    let _ = diag::render(&fc.findings, Format::Github, false, &summary);
    let json = diag::render(&fc.findings, Format::Json, false, &summary);
    assert!(serde_json::from_str::<Value>(&json).is_ok(), "the JSON renderer writes JSON: {json}");
    let matrix = Matrix::build(suite, std::slice::from_ref(&fc));
    let _ = (matrix.markdown(), matrix.html());
}

/// The suite's JSON reader (which notes repeated keys) reads exactly what serde_json reads, as
/// the same value; the exact-number reader reads each literal back as the same number; the
/// adapter-reply number rewrite and departure walk take whatever serde_json reads.
pub fn json_text(data: &[u8]) {
    use bqsuite::adapter::{departure, protocol};
    use bqsuite::suite::{exact, json};
    let _ = exact::Node::parse(data);
    let _ = exact::floats_or_repeats(data);
    let _ = exact::every_number(data);
    if let Some(numbers) = exact::Numbers::of(data) {
        for (_, (number, literal)) in numbers.iter() {
            let again = exact::Number::parse(literal);
            assert!(again.same_value(number) && number.same_value(&again), "{literal}");
        }
    }
    let _ = protocol::quick_reply(data);
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = json::lone_surrogate(text);
    let theirs = serde_json::from_str::<Value>(text);
    match (json::parse(text), &theirs) {
        (Ok(ours), Ok(theirs)) => assert_eq!(&ours.value, theirs, "{text:?}"),
        (Err(_), Err(_)) => {}
        (ours, theirs) => panic!("{text:?}: ours {:?}, serde_json {:?}", ours.err(), theirs.as_ref().err()),
    }
    if let Ok(mut value) = theirs {
        protocol::integral_numbers(&mut value, data);
        let _ = departure::departure(&value);
    }
}

/// A `MONITOR` line of any shape is read or refused (never a panic: a line whose `]` came
/// before its `[` once did), and what is read has a command.
pub fn monitor_line(line: &str) {
    if let Some(seen) = bqsuite::sections::redis::watch::parse_line(line) {
        assert!(!seen.args.is_empty(), "{line:?}");
    }
}

/// The suite's files other than its manifest, read once from the repository: what an edited
/// manifest ([`manifest_text`]) is validated beside.
pub fn canonical_files() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = if root.join("manifest.json").is_file() { root.to_path_buf() } else { root.join("..") };
    let suite = Suite::load(&root).expect("the canonical suite loads");
    let mut files: Vec<_> =
        suite.files().filter(|f| f.rel != "manifest.json").map(|f| (f.rel.clone(), f.bytes().to_vec())).collect();
    if let Some(c) = suite.changelog() {
        files.push((c.rel.clone(), c.bytes().to_vec()));
    }
    files
}

/// A manifest of any text beside the canonical suite's other files, read in memory as `fetch`
/// and `diff` read a suite: `validate` gives the same findings twice, by code and place (the
/// agreement's threads cannot change an outcome), locates every finding inside the manifest's text and renders
/// them in every format; every section's cases are read; and `run` of the reference core
/// writes a results file that serialises, with no failing case and no invalid one when
/// `validate` found no error (the agreement and the run judge the same core on the same
/// cases).
pub fn manifest_text(files: &[(String, Vec<u8>)], manifest: &[u8]) {
    use bqsuite::conformance::{self, RunOptions};
    let all = files.iter().cloned().chain(std::iter::once(("manifest.json".to_owned(), manifest.to_vec())));
    let suite = Suite::from_files("suite", all, Vec::new());
    let findings = bqsuite::validate::validate(&suite);
    // The same findings, by code, severity and place: a disagreement's message may quote an
    // envelope the reference made, whose per-message values (meta.id, trace_id, created_at) are
    // new on every run (the first manifest_edits campaign, stop 49).
    let places = |f: &[diag::Finding]| -> Vec<_> {
        f.iter().map(|f| (f.code, f.severity, f.file.clone(), f.pointer.clone(), f.span)).collect()
    };
    // The second time every recorded power pair runs again, also those of the cases whose
    // content is the recorded one, which validate otherwise takes from the recording (BQ316):
    // no edit may make the two differ.
    let every_pair = bqsuite::validate::Options { every_pair: true, ..Default::default() };
    assert_eq!(
        places(&findings),
        places(&bqsuite::validate::validate_with(&suite, &every_pair).findings),
        "validate is deterministic, and taking the unchanged cases' pairs from the recording changes nothing"
    );
    let lines = String::from_utf8_lossy(manifest).lines().count().max(1);
    for f in findings.iter().filter(|f| f.file.as_deref() == Some("manifest.json")) {
        if let Some(span) = f.span {
            assert!(span.line >= 1 && span.line <= lines + 1 && span.column >= 1, "{f:?}");
        }
    }
    let summary = Summary::new("validate", "suite");
    let _ = diag::render(&findings, Format::Human, false, &summary);
    let _ = diag::render(&findings, Format::Github, false, &summary);
    let json = diag::render(&findings, Format::Json, false, &summary);
    assert!(serde_json::from_str::<Value>(&json).is_ok(), "the JSON renderer writes JSON: {json}");
    for section in suite.sections() {
        let _ = section.cases();
    }
    let run = conformance::run(&suite, &RunOptions::default());
    assert!(serde_json::from_str::<Value>(&run.results.to_json()).is_ok(), "results serialise");
    if !diag::has_errors(&findings) {
        let failing: Vec<_> = run
            .results
            .sections
            .iter()
            .flat_map(|(s, cases)| cases.as_object().into_iter().flatten().map(move |(id, o)| (s, id, o)))
            .filter(|(_, _, o)| o.get("status").and_then(Value::as_str) == Some("fail"))
            .collect();
        assert!(
            failing.is_empty() && run.invalid.is_empty(),
            "validate is clean, yet run fails {failing:?} {:?}",
            run.invalid
        );
    }
}

/// Every node of a JSON tree, as the path of keys and indexes that reaches it, in document
/// order: what the properties and the fuzz targets pick a node to edit from.
pub fn node_paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            at.push(k.clone());
            node_paths(x, at, out);
            at.pop();
        }),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| {
            at.push(i.to_string());
            node_paths(x, at, out);
            at.pop();
        }),
        _ => {}
    }
}

/// The node at `path` of `v` (a path [`node_paths`] gave), to edit.
pub fn node_mut<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match v {
        Value::Array(a) => &mut a[step.parse::<usize>().unwrap()],
        other => &mut other[step.as_str()],
    })
}
