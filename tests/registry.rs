//! The section registry against the canonical suite: it and the manifest's `sections` map agree
//! both ways; every expectation of every case that needs no service is checked by the reference
//! agreement (generated from what the readers take as expectations, never listed by hand); a
//! malformed case is a finding of `validate`, a refusal of `release` and exit 2 of `run`; and
//! broken input is reported once, by its root cause.

#[macro_use]
mod support;

use std::collections::BTreeMap;

use bqsuite::sections::{Needs, find, registry};
use bqsuite::suite::Suite;
use serde_json::{Value, json};
use support::{SuiteCopy, bqsuite, repo, transcript};

#[test]
fn the_registry_and_the_sections_map_agree_both_ways() {
    let suite = Suite::load(repo()).unwrap();
    let map = suite.manifest().unwrap()["sections"].as_object().unwrap();
    for (name, scope) in map {
        let def = find(name).unwrap_or_else(|| panic!("the manifest's section {name:?} has no definition"));
        assert_eq!(scope.as_str(), Some(def.scope().as_str()), "{name}");
    }
    for def in registry() {
        assert!(map.contains_key(def.name()), "the registry defines {:?}, which the manifest lacks", def.name());
    }
    let mut names: Vec<&str> = registry().map(|d| d.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), registry().count(), "a section is defined twice");
}

/// One expectation: the case's pointer, the expectation's pointer and a wrong value for it.
type Mutation = (String, String, Value);

/// Every expectation the readers take, by round (round r holds the r-th expectation of each
/// case), and the cases that need no service but carry no expectation.
fn expectation_rounds(suite: &Suite) -> (Vec<Vec<Mutation>>, Vec<String>) {
    let mut rounds: Vec<Vec<Mutation>> = Vec::new();
    let mut without = Vec::new();
    for section in suite.sections() {
        let cases = find(section.name).expect("registered").read_with_slots(suite, &section);
        for i in 0..cases.len() {
            assert!(cases.problems(i).is_empty(), "{}/{} does not read", section.name, cases.case(i).id);
            if cases.needs(i) != Some(Needs::Nothing) {
                continue;
            }
            let case = cases.case(i);
            if cases.slots(i).is_empty() {
                without.push(format!("{}/{}", section.name, case.id));
            }
            for (r, slot) in cases.slots(i).iter().enumerate() {
                if rounds.len() <= r {
                    rounds.push(Vec::new());
                }
                rounds[r].push((case.pointer.clone(), slot.pointer.clone(), slot.wrong.clone()));
            }
        }
    }
    (rounds, without)
}

#[test]
fn a_wrong_expectation_of_any_case_that_needs_no_service_is_a_reference_disagreement() {
    let suite = Suite::load(repo()).unwrap();
    let (rounds, without) = expectation_rounds(&suite);
    assert!(without.is_empty(), "cases whose expectations no reader takes: {without:#?}");
    assert!(!rounds.is_empty());
    for (r, round) in rounds.iter().enumerate() {
        let s = SuiteCopy::new();
        s.edit_manifest(|m| {
            for (_, at, wrong) in round {
                *m.pointer_mut(at).unwrap_or_else(|| panic!("{at} is not in the manifest")) = wrong.clone();
            }
        });
        let findings = s.validate();
        let disagreements: BTreeMap<&str, usize> = findings
            .iter()
            .filter(|f| f.code.id == "BQ311")
            .filter_map(|f| f.pointer.as_deref())
            .fold(BTreeMap::new(), |mut m, p| {
                *m.entry(p).or_default() += 1;
                m
            });
        let missed: Vec<_> = round
            .iter()
            .filter(|(case, _, _)| !disagreements.contains_key(case.as_str()))
            .map(|(_, at, wrong)| format!("{at} = {wrong}"))
            .collect();
        assert!(missed.is_empty(), "round {r}: the reference agreement misses {missed:#?}");
        let unreadable: Vec<_> =
            findings.iter().filter(|f| ["BQ305", "BQ306", "BQ307", "BQ308", "BQ804"].contains(&f.code.id)).collect();
        assert!(unreadable.is_empty(), "round {r}: a wrong value must still read: {unreadable:#?}");
    }
}

/// The malformed cases of the issue: each one makes validate exit 1 with a finding at the
/// case's pointer in manifest.json, release refuse to build, and run exit 2.
/// `validate` exits 1 on the copy, and `release` refuses it without writing anything.
fn validate_fails_and_release_refuses(s: &SuiteCopy, what: &str) {
    let o = bqsuite(s.path(), &["validate"]);
    assert_eq!(o.status.code(), Some(1), "{what}: {}", transcript(&o));
    let out = tempfile::tempdir().unwrap();
    let o = bqsuite(s.path(), &["release", "--out", out.path().to_str().unwrap()]);
    assert_ne!(o.status.code(), Some(0), "{what}: release builds a broken suite: {}", transcript(&o));
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none(), "{what}: release wrote something");
}

#[test]
fn malformed_cases_are_findings_refusals_and_exit_2() {
    let index = |m: &Value, section: &str, name: &str| {
        m[section]["cases"].as_array().unwrap().iter().position(|c| c["name"] == name).unwrap()
    };
    type Edit = fn(&mut Value, usize);
    let examples: [(&str, &str, Edit, &str); 6] = [
        ("encode_reject", "reject-meta-ts", |m, i| m["encode_reject"]["cases"][i] = json!([[]]), ""),
        (
            "trim",
            "trim-make-urn-space-padded",
            |m, i| drop(m["trim"]["cases"][i].as_object_mut().unwrap().shift_remove("mode")),
            "",
        ),
        ("trim", "trim-make-urn-space-padded", |m, i| m["trim"]["cases"][i]["mode"] = json!("mak"), "/mode"),
        (
            "job_type",
            "job-type-null-job-falls-back-to-urn",
            |m, i| drop(m["job_type"]["cases"][i].as_object_mut().unwrap().shift_remove("valid")),
            "",
        ),
        (
            "traceparent",
            "valid-header-wins",
            |m, i| drop(m["traceparent"]["cases"][i]["expect"].as_object_mut().unwrap().shift_remove("source")),
            "/expect",
        ),
        ("encode_reject", "reject-meta-ts", |m, i| m["encode_reject"]["cases"][i]["expect"] = json!(0), "/expect"),
    ];
    for (section, name, edit, below) in examples {
        let s = SuiteCopy::new();
        let mut at = String::new();
        s.edit_manifest(|m| {
            let i = index(m, section, name);
            at = format!("/{section}/cases/{i}");
            edit(m, i);
        });
        let findings = s.validate();
        let want = format!("{at}{below}");
        assert!(
            findings.iter().any(|f| f.file.as_deref() == Some("manifest.json") && f.pointer.as_deref() == Some(&want)),
            "{section}/{name}: no finding at {want}: {findings:#?}"
        );
        validate_fails_and_release_refuses(&s, &format!("{section}/{name}"));
        let o = bqsuite(s.path(), &["run", "--section", section]);
        assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&at), "run names the case's pointer: {err}");
        let results: Value = serde_json::from_slice(&o.stdout).unwrap();
        let id = results["sections"][section].as_object().unwrap().iter().find(|(_, o)| o["status"] == "fail");
        let (_, outcome) = id.expect("the case is reported");
        assert!(outcome["reason"].as_str().unwrap().starts_with("invalid case: "), "{outcome}");
    }
}

/// Broken input (issue 15): a fixture that is not what its cases need is the suite's fault —
/// `run` exits 2 naming the file instead of failing every case that uses it, and `validate`
/// reports the root cause once, without follow-on findings from the same file.
#[test]
fn a_broken_fixture_is_reported_once_and_run_exits_2_naming_it() {
    let fixture = "fixtures/order-created.json";
    let bom = SuiteCopy::new();
    bom.write(fixture, [&b"\xEF\xBB\xBF"[..], bom.read(fixture).as_bytes()].concat());
    let codes: Vec<&str> = findings!(bom).iter().map(|f| f.code.id).collect();
    assert_eq!(codes, ["BQ503", "BQ001"], "the root cause only");

    let o = bqsuite(bom.path(), &["run"]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(fixture) && err.contains("do not read cleanly"), "{err}");
    let results: Value = serde_json::from_slice(&o.stdout).unwrap();
    let reasons: Vec<&str> = results["sections"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|c| c.as_object().unwrap().values())
        .filter(|o| o["status"] == "fail")
        .map(|o| o["reason"].as_str().unwrap())
        .collect();
    assert!(
        !reasons.is_empty() && reasons.iter().all(|r| r.starts_with("invalid case: ") && r.contains(fixture)),
        "{reasons:#?}"
    );
}

#[cfg(unix)]
#[test]
fn an_unreadable_fixture_is_reported_once_and_run_exits_2_naming_it() {
    use std::os::unix::fs::PermissionsExt;
    let fixture = "fixtures/order-created.json";
    let s = SuiteCopy::new();
    let path = s.path().join(fixture);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&path).is_ok() {
        eprintln!("skipping: this user reads files of mode 000 (root)");
        return;
    }
    let codes: Vec<&str> = s.validate().iter().map(|f| f.code.id).collect();
    assert_eq!(codes, ["BQ004"], "the root cause only");
    let o = bqsuite(s.path(), &["run"]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains(fixture), "{}", transcript(&o));
}

/// A manifest that is missing, does not parse or is no object is one finding, its own: before,
/// BQ312 said the suite held none of its version's 26 sections beside it, and a manifest of `[]`
/// or `"x"` made every one of the 45 fixtures an orphan (BQ304) too.
#[test]
fn a_manifest_or_producer_schema_that_cannot_be_read_is_its_own_finding() {
    for (text, code) in [
        (Some("{\"conformance_version\": \"1.6.0\","), "BQ001"),
        (Some("[]"), "BQ104"),
        (Some("\"x\""), "BQ104"),
        (Some("null"), "BQ104"),
        (None, "BQ003"),
    ] {
        let s = SuiteCopy::new();
        match text {
            Some(t) => s.write("manifest.json", t),
            None => s.remove("manifest.json"),
        }
        let codes: Vec<&str> = s.validate().iter().map(|f| f.code.id).collect();
        assert_eq!(codes, [code], "{text:?}");
    }
    // Likewise the producer schema, whose meta.lang gives the skip policy's families: unread, it
    // made every family of the policy unknown (BQ217). Its bytes are frozen, so a schema that
    // does not parse also differs from them (BQ404, which says what to restore).
    let s = SuiteCopy::new();
    s.remove("schema/message-envelope.schema.json");
    let codes: Vec<&str> = s.validate().iter().map(|f| f.code.id).collect();
    assert_eq!(codes, ["BQ003"]);
    s.write("schema/message-envelope.schema.json", "{");
    let mut codes: Vec<&str> = s.validate().iter().map(|f| f.code.id).collect();
    codes.sort_unstable();
    assert_eq!(codes, ["BQ001", "BQ404"]);
    // And the `sections` map, which gives every section its scope and the exceptions their
    // bindings: missing or not an object, it drew a BQ201 per section and a BQ205 beside BQ104.
    for sections in [None, Some(json!([]))] {
        let s = SuiteCopy::new();
        s.edit_manifest(|m| match &sections {
            None => drop(m.as_object_mut().unwrap().shift_remove("sections")),
            Some(v) => m["sections"] = v.clone(),
        });
        let codes: Vec<&str> = s.validate().iter().map(|f| f.code.id).collect();
        assert_eq!(codes, ["BQ104"], "sections: {sections:?}");
    }
}

/// A manifest that is an object but holds no section of its version is no suite of that version
/// at all: one BQ312 at the root that names them, never one per section (26 findings saying the
/// same thing), whether it holds nothing or only sections no definition knows.
#[test]
fn a_manifest_holding_none_of_its_versions_sections_is_one_finding() {
    for unknown in [None, Some("mystery")] {
        let s = SuiteCopy::new();
        s.edit_manifest(|m| {
            let keep = ["conformance_version", "description", "sections"];
            m.as_object_mut().unwrap().retain(|k, _| keep.contains(&k.as_str()));
            m["sections"] = json!({});
            if let Some(name) = unknown {
                m[name] = json!({"description": "no definition knows it", "cases": [{"name": "one"}]});
                m["sections"][name] = json!("core");
            }
        });
        let f: Vec<_> = s.validate().into_iter().filter(|f| f.code.id == "BQ312").collect();
        assert_eq!(f.len(), 1, "{unknown:?}: {f:#?}");
        assert_eq!(f[0].pointer.as_deref(), Some(""));
        let n = bqsuite::sections::registry().count();
        assert!(f[0].message.contains(&format!("holds none of that version's {n} sections (")), "{}", f[0].message);
        assert!(f[0].message.contains("traceparent") && f[0].message.contains("redis_delay"), "{}", f[0].message);
    }
}

/// What a suite's version holds (the spec's version history, as each definition's `SINCE` and
/// `BLOCKS` say): a section or block dropped cleanly, an empty block, a case in a block no
/// definition declares and a misspelt case field are each a finding of `validate` (exit 1) and
/// a refusal of `release` (nothing written), however consistent the rest of the manifest is.
#[test]
fn a_suite_that_lacks_what_its_version_holds_is_a_finding_and_a_refusal() {
    type Edit = fn(&mut Value);
    let examples: [(&str, Edit, &str, &str, &str); 7] = [
        (
            "a section and its scope removed",
            |m| {
                m.as_object_mut().unwrap().shift_remove("traceparent");
                m["sections"].as_object_mut().unwrap().shift_remove("traceparent");
            },
            "BQ312",
            "",
            "section \"traceparent\" (scope otel, since 1.5.0) is missing",
        ),
        (
            "a block of 1.1.0 removed",
            |m| drop(m["sqs"].as_object_mut().unwrap().shift_remove("schema_version_gate")),
            "BQ313",
            "/sqs",
            "has no block \"schema_version_gate\" (since 1.1.0)",
        ),
        ("a section's own cases emptied", |m| m["redis_delay"]["cases"] = json!([]), "BQ314", "/redis_delay/cases", ""),
        (
            "a block's cases emptied",
            |m| m["backoff"]["topic_names"]["cases"] = json!([]),
            "BQ314",
            "/backoff/topic_names/cases",
            "",
        ),
        (
            "a block renamed",
            |m| {
                let b = m["redis_layout"].as_object_mut().unwrap();
                let release = b.shift_remove("release").unwrap();
                b.insert("relese".into(), release);
            },
            "BQ313",
            "/redis_layout",
            "has no block \"release\" (since 1.6.0)",
        ),
        (
            "a block of no definition",
            |m| m["redis_layout"]["relese"] = m["redis_layout"]["release"].clone(),
            "BQ306",
            "/redis_layout/relese/cases/0",
            "redis_layout has no block \"relese\"",
        ),
        (
            "an optional field misspelt",
            |m| {
                let c = m["retry_backoff"]["cases"]
                    .as_array_mut()
                    .unwrap()
                    .iter_mut()
                    .find(|c| c.get("multiplier").is_some());
                let c = c.unwrap().as_object_mut().unwrap();
                let v = c.shift_remove("multiplier").unwrap();
                c.insert("multipler".into(), v);
            },
            "BQ305",
            "/retry_backoff/cases/2/multipler",
            "did you mean \"multiplier\"?",
        ),
    ];
    for (what, edit, code, pointer, says) in examples {
        let s = SuiteCopy::new();
        s.edit_manifest(edit);
        let findings = s.validate();
        let errors: Vec<_> = findings.iter().filter(|f| f.code.id == code).collect();
        // Said once, where it is, and nothing else is wrong with the suite.
        assert_eq!(errors.len(), 1, "{what}: one {code}: {findings:#?}");
        let f = errors[0];
        assert_eq!(f.pointer.as_deref(), Some(pointer), "{what}: {f:#?}");
        assert!(f.message.contains(says), "{what}: {}", f.message);
        if what != "a block renamed" {
            assert_eq!(findings.len(), 1, "{what}: only {code}: {findings:#?}");
        }
        validate_fails_and_release_refuses(&s, what);
    }
}

/// A misspelt case field is a lint: `validate` reports it, but the case still reads and runs
/// (runners ignore unknown fields), so `run` passes it on what it does carry.
#[test]
fn an_unknown_case_field_is_reported_but_the_case_still_runs() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["trim"]["cases"][0]["expect_envelop"] = json!({}));
    let findings = s.validate();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0].code.id, "BQ305");
    assert!(findings[0].message.contains("did you mean \"expect_envelope\"?"), "{}", findings[0].message);
    let o = bqsuite(s.path(), &["run", "--section", "trim"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
}

/// The version decides what must be there: a suite of an earlier version need not hold a later
/// section or block, and every block is no older than its section.
#[test]
fn what_must_be_held_follows_the_suite_version() {
    for def in registry() {
        for b in def.blocks() {
            assert!(b.since >= def.since(), "{}/{} is older than its section", def.name(), b.name);
        }
    }
    let s = SuiteCopy::new();
    s.write("CONFORMANCE_VERSION", "1.4.0\n");
    s.edit_manifest(|m| {
        m["conformance_version"] = json!("1.4.0");
        m.as_object_mut().unwrap().shift_remove("traceparent");
        m["sections"].as_object_mut().unwrap().shift_remove("traceparent");
        m["backoff"].as_object_mut().unwrap().shift_remove("topic_names");
    });
    let findings = s.validate();
    assert!(findings.iter().all(|f| !["BQ312", "BQ313"].contains(&f.code.id)), "{findings:#?}");
    s.edit_manifest(|m| drop(m["sqs"].as_object_mut().unwrap().shift_remove("schema_version_gate")));
    let findings = s.validate();
    let f: Vec<_> = findings.iter().filter(|f| ["BQ312", "BQ313"].contains(&f.code.id)).collect();
    assert_eq!(f.len(), 1, "{findings:#?}");
    assert_eq!(f[0].pointer.as_deref(), Some("/sqs"));
}

/// Each definition's version agrees with the CHANGELOG, which the docs' "Added in" line reads:
/// the two sources of "which release added this section" cannot drift apart.
#[test]
fn every_section_version_is_the_one_the_changelog_gives() {
    let changelog = std::fs::read_to_string(repo().join("CHANGELOG.md")).unwrap();
    for def in registry() {
        let (a, b, c) = def.since();
        let added = bqsuite::docs::section::added_in(&changelog, def.name());
        assert_eq!(added.as_deref(), Some(format!("{a}.{b}.{c}").as_str()), "{}", def.name());
    }
}
