//! The proposed `payload_schema_types` section (bench/proposals/payload_schema_types.json, issue
//! 21's proposal for the next MINOR) is data a validator can be held to: every verdict in it is
//! the reference core's, and jsonschema's Draft-07 validator, an independent implementation,
//! reaches the same one. A block marked `"usable": false` is refused by the reference core and
//! is not a valid schema of Draft-07's meta-schema.
//!
//! The proposal is not part of the 1.6.0 suite (R20 keeps `payload_schema` at its one schema and
//! seven cases, and the version history enumerates 1.6.0's sections); this test keeps it true
//! until a MINOR adopts it.

use bqsuite::core::payload_schema::Schema;
use serde_json::Value;

fn proposal() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/proposals/payload_schema_types.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("the proposal is readable")).expect("it is JSON")
}

#[test]
fn every_verdict_is_the_reference_cores_and_an_independent_validators() {
    let p = proposal();
    let blocks = p["blocks"].as_array().expect("blocks");
    let mut checked = 0;
    for block in blocks {
        let name = block["name"].as_str().expect("a block name");
        let schema = &block["schema"];
        if block.get("usable") == Some(&Value::Bool(false)) {
            assert!(Schema::compile(schema).is_err(), "{name}: the reference core uses the schema");
            assert!(!jsonschema::draft7::meta::is_valid(schema), "{name}: Draft-07's meta-schema accepts it");
            checked += 1;
            continue;
        }
        let reference = Schema::compile(schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        let independent = jsonschema::draft7::new(schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        for case in block["cases"].as_array().expect("cases") {
            let id = format!("{name}/{}", case["name"].as_str().expect("a case name"));
            let want = case["valid"].as_bool().expect("valid");
            let data = &case["data"];
            assert_eq!(reference.violations(data).is_empty(), want, "{id}: the reference core");
            assert_eq!(independent.is_valid(data), want, "{id}: jsonschema's Draft-07 validator");
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} verdicts");
}

#[test]
fn case_names_are_unique_within_the_proposal() {
    let p = proposal();
    let mut seen = std::collections::BTreeSet::new();
    for block in p["blocks"].as_array().unwrap() {
        for case in block["cases"].as_array().into_iter().flatten() {
            assert!(seen.insert(case["name"].as_str().unwrap().to_owned()), "{} twice", case["name"]);
        }
    }
}
