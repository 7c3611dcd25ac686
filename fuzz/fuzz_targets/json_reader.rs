#![no_main]
//! The suite's JSON reader against serde_json, the exact-number reader, the adapter-reply
//! number rewrite and departure walk, on any bytes: what must hold is
//! `tests/support/untrusted.rs`'s `json_text`. Seed it with `fixtures/*.json`.
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/untrusted.rs"]
mod untrusted;

fuzz_target!(|data: &[u8]| untrusted::json_text(data));
