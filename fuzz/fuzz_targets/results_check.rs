#![no_main]
//! `results check` on any bytes, against the canonical suite: what must hold is
//! `tests/support/untrusted.rs`'s `results_file`. Seed it with `schema/results.example.json`
//! and a `bqsuite run --out` file.
use std::sync::OnceLock;

use bqsuite::results::Checker;
use bqsuite::suite::Suite;
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/untrusted.rs"]
mod untrusted;

fn suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| Suite::load(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).expect("the canonical suite loads"))
}

fn checker() -> &'static Checker<'static> {
    static CHECKER: OnceLock<Checker<'static>> = OnceLock::new();
    CHECKER.get_or_init(|| Checker::new(suite()).expect("the canonical suite checks results"))
}

fuzz_target!(|data: &[u8]| untrusted::results_file(suite(), checker(), data));
