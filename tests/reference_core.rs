//! Properties of the reference core that no section pins: what it stamps on its output, and
//! that its poison writer splices the suite's hardest bodies at byte level.

mod support;

use bqsuite::core::{envelope, poison};
use bqsuite::suite::Suite;
use serde_json::{Map, Value};

/// Decisions R7: the producer schema's `lang` enum keeps the six SDK families, so a message the
/// reference core makes deviates from it at `/meta/lang` ("rust") and nowhere else.
#[test]
fn reference_output_deviates_from_the_producer_schema_only_at_meta_lang() {
    const EXPECTED_DEVIATION: &str = "/meta/lang";
    let suite = Suite::load(support::repo()).unwrap();
    let schema = bqsuite::schema::draft7(suite.json("schema/message-envelope.schema.json").unwrap()).unwrap();
    for case in suite.section("extension_write").unwrap().cases() {
        let c = case.value;
        let meta = c["meta"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let data: Map<String, Value> = c["data"].as_object().unwrap().clone();
        let env = envelope::make(c["urn"].as_str().unwrap(), data, c["queue"].as_str().unwrap(), None, meta).unwrap();
        let out: Value = serde_json::from_str(&envelope::encode(&env).unwrap()).unwrap();
        let paths: Vec<String> = schema.iter_errors(&out).map(|e| e.instance_path().to_string()).collect();
        assert_eq!(paths, [EXPECTED_DEVIATION], "{}: {out}", case.id);
        assert_eq!(out["meta"]["lang"], "rust");
    }
}

/// The writer splices the suite's own splice_or_wrapper bodies (depth 600, 1e400, …) at byte
/// level: the record is the body with exactly the dead_letter member inserted, nothing else.
#[test]
fn the_poison_writer_never_rewrites_a_byte_of_the_hard_bodies() {
    let suite = Suite::load(support::repo()).unwrap();
    let cases = suite.section("poison_dlq").unwrap().cases();
    let hard: Vec<_> = cases.iter().filter(|c| c.value["expect"]["shape"] == "splice_or_wrapper").collect();
    assert!(hard.iter().any(|c| c.id == "nesting-depth-600") && hard.iter().any(|c| c.id == "exponent-overflow"));
    let p = poison::Poison { original_queue: "q", failed_at_ms: 1, error: Some("e") };
    for case in hard {
        let body = case.value["body"].as_str().unwrap();
        let record = poison::record(body.as_bytes(), &p);
        assert_eq!(record.shape, poison::Shape::Splice, "{}", case.id);
        let close = body.rfind('}').unwrap();
        let (head, tail) = record.text.split_at(close);
        assert_eq!(head, &body[..close], "{}: bytes before the insertion changed", case.id);
        let inserted = tail.strip_suffix(&body[close..]).expect("the body's end is kept");
        let block = inserted.strip_prefix(",\"dead_letter\":").expect("exactly the dead_letter member is inserted");
        let block: Value = serde_json::from_str(block).unwrap();
        assert_eq!(block["reason"], "poison", "{}", case.id);
    }
}
