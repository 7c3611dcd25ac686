//! The suite's real history for tests: 1.6.0 as it is, and 1.5.0 rebuilt from it by the spec's
//! "Suite version history" paragraph.

use serde_json::json;

use super::{SuiteCopy, repo};

/// What the spec's "Suite version history" paragraph for 1.6.0 says 1.6.0 added.
pub const NEW_SECTIONS: [&str; 4] = ["redis_delay", "kafka_poison", "retry_backoff", "poison_dlq"];
pub const NEW_BACKOFF_BLOCKS: [&str; 3] = ["topic_names", "retry_attempt_tier", "default_tiers"];
pub const NEW_REDIS_LAYOUT_BLOCKS: [&str; 15] = [
    "delayed_score",
    "migrate",
    "reserve",
    "pcall_poison",
    "release",
    "processing_sweep",
    "processing_token",
    "late_ack",
    "identical_copies",
    "retry_after_null",
    "lrem_count",
    "malformed_member",
    "orphan",
    "legacy_release_gate",
    "legacy_dlq_gate",
];

/// The canonical 1.6.0 suite with its CHANGELOG.md.
pub fn suite_1_6_0() -> SuiteCopy {
    let s = SuiteCopy::new();
    s.write("CHANGELOG.md", std::fs::read(repo().join("CHANGELOG.md")).unwrap());
    s
}

/// The 1.5.0 suite, built from 1.6.0 as the spec's history describes it: without the sections
/// and blocks 1.6.0 added (the four `encode-fails-*` cases live in the added block
/// `redis_layout.pcall_poison`), and with the 1.5.0 expectation of `backoff.retry_republish`:
/// a `release_delay_ms` field holding the formula-based release delay (1000 ms doubled per
/// earlier attempt) where 1.6.0 expects the §6.5 tier's delay in `expect_headers."bq-delay"`
/// (the spec: "the key stays; the earlier release_delay_ms expectation contradicted §6.5").
/// Its cases and inputs are otherwise the same.
pub fn suite_1_5_0() -> SuiteCopy {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        let top = m.as_object_mut().unwrap();
        for name in NEW_SECTIONS {
            top.shift_remove(name);
            top["sections"].as_object_mut().unwrap().shift_remove(name);
        }
        for block in NEW_BACKOFF_BLOCKS {
            top["backoff"].as_object_mut().unwrap().shift_remove(block);
        }
        for block in NEW_REDIS_LAYOUT_BLOCKS {
            top["redis_layout"].as_object_mut().unwrap().shift_remove(block);
        }
        top.insert("conformance_version".into(), json!("1.5.0"));
        let republish = &mut top["backoff"]["retry_republish"];
        republish["description"] = json!(
            "The record a failed record is republished as: the retry record carries bq-delay = release_delay_ms, \
             the release delay of the retry (1000 ms, doubled per earlier attempt)."
        );
        for case in republish["cases"].as_array_mut().unwrap() {
            if case["expect"] == "ok" {
                let attempts = case["attempts_before"].as_u64().unwrap();
                case["expect_headers"].as_object_mut().unwrap().shift_remove("bq-delay");
                case["release_delay_ms"] = json!(1000u64 << attempts);
            }
        }
    });
    s.write("CONFORMANCE_VERSION", "1.5.0\n");
    s
}

/// The 1.6.0 CHANGELOG text without the item that names the `backoff.retry_republish` correction.
pub fn without_correction_line(changelog: &str) -> String {
    let start = changelog.find("- Correction (ADR-0034").expect("the 1.6.0 correction item");
    let end = start + changelog[start..].find("\n- ").expect("an item after it") + 1;
    format!("{}{}", &changelog[..start], &changelog[end..])
}
