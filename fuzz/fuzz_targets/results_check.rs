#![no_main]
//! `results check` on any bytes, against the canonical suite: a verdict, every renderer (the
//! JSON one writes JSON), every located finding inside the file, and the report's Markdown and
//! HTML, never a panic. Seed it with `schema/results.example.json` and a `bqsuite run --out`.
use std::sync::OnceLock;

use bqsuite::diag::{self, Format, Summary};
use bqsuite::results::{self, Checker, Matrix, Source};
use bqsuite::suite::Suite;
use libfuzzer_sys::fuzz_target;

fn suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| Suite::load(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).expect("the canonical suite loads"))
}

fn checker() -> &'static Checker<'static> {
    static CHECKER: OnceLock<Checker<'static>> = OnceLock::new();
    CHECKER.get_or_init(|| Checker::new(suite()).expect("the canonical suite checks results"))
}

fuzz_target!(|data: &[u8]| {
    let fc = checker().check(&Source { file: "results.json".into(), bytes: data.to_vec() });
    let lines = String::from_utf8_lossy(data).lines().count().max(1);
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
    serde_json::from_str::<serde_json::Value>(&json).expect("the JSON renderer writes JSON");
    let matrix = Matrix::build(suite(), std::slice::from_ref(&fc));
    let _ = (matrix.markdown(), matrix.html());
});
