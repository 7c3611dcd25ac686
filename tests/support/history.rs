//! The suite's real history for tests: 1.6.0, and 1.5.0 rebuilt from it by the spec's "Suite
//! version history" paragraph. These are about those two releases' content, so their versions
//! stay literal: when the canonical suite has moved past 1.6.0, 1.6.0 is rebuilt from it too
//! (labelled 1.6.0, without what the registry says a later version added).

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

/// The 1.6.0 suite with its CHANGELOG.md: the canonical suite, or, when that is a later version,
/// the canonical suite labelled 1.6.0 ([`super::set_version`]) without the sections and blocks
/// whose registry version is later and without the CHANGELOG entries above `## 1.6.0`.
pub fn suite_1_6_0() -> SuiteCopy {
    let s = SuiteCopy::new();
    s.write("CHANGELOG.md", std::fs::read(repo().join("CHANGELOG.md")).unwrap());
    if super::version() != "1.6.0" {
        back_to(&s, (1, 6, 0));
    }
    s
}

/// Turn the canonical suite copied in `s` into the suite at `version`, as far as the registry
/// tells: the sections and blocks it says a later version added are removed, the version is
/// stated as `version`, and the CHANGELOG starts at that version's entry (its preamble kept).
fn back_to(s: &SuiteCopy, version: bqsuite::sections::Version) {
    let (major, minor, patch) = version;
    let v = format!("{major}.{minor}.{patch}");
    // The manifest is rewritten only when something goes (rewriting it changes its bytes, which
    // the tests of a released version's bytes would see).
    let later =
        bqsuite::sections::registry().any(|d| d.since() > version || d.blocks().iter().any(|b| b.since > version));
    if later {
        s.edit_manifest(|m| {
            let top = m.as_object_mut().unwrap();
            for section in bqsuite::sections::registry() {
                if section.since() > version {
                    top.shift_remove(section.name());
                    if let Some(map) = top.get_mut("sections").and_then(|x| x.as_object_mut()) {
                        map.shift_remove(section.name());
                    }
                } else if let Some(body) = top.get_mut(section.name()).and_then(|x| x.as_object_mut()) {
                    for block in section.blocks().iter().filter(|b| b.since > version) {
                        body.shift_remove(block.name);
                    }
                }
            }
        });
    }
    super::set_version(s.path(), &v);
    let changelog = s.read("CHANGELOG.md");
    let heading = format!("\n## {v}\n");
    let (first, at) = (changelog.find("\n## "), changelog.find(&heading));
    if let (Some(first), Some(at)) = (first, at) {
        s.write("CHANGELOG.md", format!("{}{}", &changelog[..=first], &changelog[at + 1..]));
    }
}

/// The 1.5.0 suite, built from 1.6.0 as the spec's history describes it: without the sections
/// and blocks 1.6.0 added (the four `encode-fails-*` cases live in the added block
/// `redis_layout.pcall_poison`), and with the 1.5.0 expectation of `backoff.retry_republish`:
/// a `release_delay_ms` field holding the formula-based release delay (1000 ms doubled per
/// earlier attempt) where 1.6.0 expects the §6.5 tier's delay in `expect_headers."bq-delay"`
/// (the spec: "the key stays; the earlier release_delay_ms expectation contradicted §6.5").
/// Its cases and inputs are otherwise the same.
pub fn suite_1_5_0() -> SuiteCopy {
    let s = suite_1_6_0();
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
