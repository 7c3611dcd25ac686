#![no_main]
//! The suite's JSON reader against serde_json (the same texts accepted, as the same values),
//! and the exact-number reader, the integral-number rewrite and the departure walk of adapter
//! replies on the same bytes, never a panic. Seed it with `fixtures/*.json`.
use bqsuite::adapter::{departure, protocol};
use bqsuite::suite::{exact, json};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
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
        (Ok(ours), Ok(theirs)) => assert_eq!(&ours.value, theirs),
        (Err(_), Err(_)) => {}
        (ours, theirs) => panic!("{text:?}: ours {:?}, serde_json {:?}", ours.err(), theirs.as_ref().err()),
    }
    if let Ok(mut value) = theirs {
        protocol::integral_numbers(&mut value, data);
        let _ = departure::departure(&value);
    }
});
