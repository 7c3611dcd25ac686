//! The skip policy in manifest.json: what the canonical one allows (each skip the spec names,
//! nothing else), that it is invisible to the runners, and that validate reports every way to
//! break it (BQ208–BQ215).

mod support;

use bqsuite::suite::{Suite, skip_policy::SkipVerdict};
use serde_json::{Value, json};
use support::{SuiteCopy, assert_finding, repo};

fn suite() -> Suite {
    Suite::load(repo()).expect("the canonical suite loads")
}

/// Every (section, case id) the policy allows to skip, with the ADRs.
fn skippable(s: &Suite) -> Vec<(String, String, Vec<String>)> {
    let p = s.skip_policy();
    let mut out = Vec::new();
    for sec in s.sections() {
        for c in sec.cases() {
            let adrs = p.allowed_adrs(sec.name, &c.id);
            if !adrs.is_empty() {
                out.push((sec.name.to_owned(), c.id.clone(), adrs.into_iter().map(str::to_owned).collect()));
            }
        }
    }
    out
}

#[test]
fn the_canonical_policy_allows_exactly_the_skips_the_spec_names() {
    let s = suite();
    assert!(s.skip_policy_read().problems.is_empty(), "{:#?}", s.skip_policy_read().problems);
    let m = s.manifest().unwrap();
    let allowed = skippable(&s);
    let case = |section: &str, id: &str| {
        s.section(section).unwrap().cases().into_iter().find(|c| c.id == id).unwrap().value.clone()
    };
    for (section, id, adrs) in &allowed {
        let v = case(section, id);
        let why = match section.as_str() {
            // Runner contract (ADR-0033): every behavioural block, and redis.payload_identity.
            "redis_layout" => {
                assert!(s.section("redis_layout").unwrap().cases().iter().any(|c| &c.id == id && c.sub.is_some()));
                "ADR-0033"
            }
            "redis" => {
                assert_eq!(id, "payload_identity");
                "ADR-0033"
            }
            // The single-number-type row is the float row; the null rows hold null.
            "asb" | "kafka" | "artemis" if v.get("value_type").is_some() => {
                assert_eq!((section.as_str(), &v["value_type"]), ("asb", &json!("float")));
                "ADR-0032"
            }
            "asb" | "kafka" | "artemis" => {
                assert_eq!(v.get("value"), Some(&Value::Null), "{section} {id}");
                "ADR-0032"
            }
            "encode_reject" => {
                assert!(v.get("meta_entries").is_some(), "{id}");
                "ADR-0031"
            }
            "sqs" => {
                assert!(id.starts_with("attempts_reconciliation/"), "{id}");
                "ADR-0032"
            }
            other => panic!("the policy allows a skip in {other}: {id}"),
        };
        assert_eq!(adrs, &[why.to_owned()], "{section} / {id}");
    }
    // Nothing the spec names is left out.
    let has = |section: &str, id: &str| allowed.iter().any(|(s, i, _)| s == section && i == id);
    for (section, block) in [("asb", 22), ("asb", 23), ("kafka", 18), ("artemis", 18)] {
        assert!(has(section, &format!("schema_version_gate/{block}")), "{section} {block}");
    }
    for c in m["encode_reject"]["cases"].as_array().unwrap().iter().filter(|c| c.get("meta_entries").is_some()) {
        assert!(has("encode_reject", c["name"].as_str().unwrap()));
    }
    for c in s.section("redis_layout").unwrap().cases() {
        assert_eq!(has("redis_layout", &c.id), c.sub.is_some(), "{}: behavioural blocks only", c.id);
    }
    for c in s.section("redis_delay").unwrap().cases() {
        assert!(!has("redis_delay", &c.id), "redis_delay needs no Redis");
    }
    // No core section other than encode_reject's one case, none of cases / trim / job_type ….
    let core: Vec<_> =
        allowed.iter().filter(|(sec, ..)| s.scope_of(sec).is_some_and(|x| x.as_str() == "core")).collect();
    assert_eq!(core.len(), 1, "{core:?}");
}

#[test]
fn the_policy_is_invisible_to_the_runners() {
    let s = suite();
    assert!(s.section("skip_policy").is_none(), "a metadata key, not a section");
    assert!(s.manifest().unwrap()["sections"].get("skip_policy").is_none());
    let ids = support::bqsuite(&repo(), &["ids", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&ids.stdout).unwrap();
    assert!(doc["sections"].get("skip_policy").is_none());
    assert_eq!(
        doc["sections"].as_object().unwrap().len(),
        s.manifest().unwrap()["sections"].as_object().unwrap().len()
    );
    let text = std::fs::read_to_string(repo().join("manifest.json")).unwrap();
    assert!(text.contains("description, sections, exceptions and skip_policy is a section"), "the description says so");
}

#[test]
fn without_the_policy_the_manifest_is_the_same_to_a_runner() {
    // R20: the policy touches no section, case, id or field. `diff` from a copy without it (and
    // with the description as it was) finds the policy and the description's sentence naming
    // it, nothing else.
    let old = SuiteCopy::new();
    old.edit_manifest(|m| {
        m.as_object_mut().unwrap().shift_remove("skip_policy");
        let d = m["description"].as_str().unwrap().replace(", exceptions and skip_policy is", " and exceptions is");
        m["description"] = json!(d);
    });
    let o = support::bqsuite(
        old.path(),
        &["diff", old.path().to_str().unwrap(), repo().to_str().unwrap(), "--format", "json"],
    );
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", support::transcript(&o)));
    let changes: Vec<(&str, &str, &str)> = doc["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["class"].as_str().unwrap(), c["pointer"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(
        changes,
        [("description-changed", "editorial", "/description"), ("skip-policy-changed", "additive", "/skip_policy")]
    );
}

#[test]
fn judging_a_skip() {
    let s = suite();
    let p = s.skip_policy();
    let gate = "schema_version_gate/22";
    assert!(
        matches!(p.judge("asb", gate, Some("JS: ADR-0032")), SkipVerdict::Allowed(r) if r.name == "single-number-type")
    );
    assert_eq!(p.judge("asb", gate, Some("ADR-0033")), SkipVerdict::WrongAdr);
    assert_eq!(p.judge("asb", gate, Some("no ADR")), SkipVerdict::NoAdr);
    assert_eq!(p.judge("asb", gate, None), SkipVerdict::NoAdr);
    assert_eq!(p.judge("asb", "schema_version_gate/0", Some("ADR-0032")), SkipVerdict::NotSkippable);
    assert_eq!(p.judge("nope", "x", Some("ADR-0032")), SkipVerdict::NotSkippable);
    assert_eq!(p.allowed_adrs("redis", "payload_identity"), ["ADR-0033"]);
}

/// The judging rules beyond the canonical policy's shape: a rule of several ADRs is satisfied by
/// citing any one of them; families compare without letter case; only an `all_or_none` rule is
/// refuted by a case it covers that ran; a rule's `whole_sections` lets skip only those.
#[test]
fn judging_by_a_policy_of_several_adrs_families_and_whole_sections() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["skip_policy"] = json!({"description": "d", "rules": [
            {"name": "two-adrs", "condition": "c", "adrs": ["ADR-0031", "ADR-0032"],
             "cases": [{"section": "encode_reject", "case": "reject-repeated-key"}]},
            {"name": "per-case", "condition": "c", "adrs": ["ADR-0032"], "families": ["Node"],
             "cases": [{"section": "asb", "case": "schema_version_gate/22"}, {"section": "asb", "case": "schema_version_gate/23"}]},
            {"name": "run-level", "condition": "c", "adrs": ["ADR-0033"], "all_or_none": true,
             "whole_sections": ["redis"], "cases": [{"section": "redis", "case": "payload_identity"}]}
        ]});
    });
    let suite = Suite::load(s.path()).unwrap();
    let p = suite.skip_policy();
    for cited in ["ADR-0031", "ADR-0032", "ADR-0032 and ADR-0031"] {
        assert!(
            matches!(p.judge("encode_reject", "reject-repeated-key", Some(cited)), SkipVerdict::Allowed(r) if r.name == "two-adrs"),
            "{cited}"
        );
    }
    let rule = |name: &str| p.rules.iter().find(|r| r.name == name).unwrap();
    let per_case = rule("per-case");
    for family in ["node", "NODE", "Node"] {
        assert!(bqsuite::suite::skip_policy::SkipPolicy::for_family(per_case, Some(family)), "{family}");
    }
    assert!(!bqsuite::suite::skip_policy::SkipPolicy::for_family(per_case, Some("php")));
    assert!(!bqsuite::suite::skip_policy::SkipPolicy::for_family(per_case, None));
    // One case of a per-case rule ran: the rule still allows the other's skip. A case of the
    // run-level rule ran: that rule is refuted for the run.
    let ran = [("asb", "schema_version_gate/22"), ("redis", "payload_identity")];
    let refuted = p.refuted_all_or_none(ran);
    assert_eq!(refuted.keys().copied().collect::<Vec<_>>(), ["run-level"], "{refuted:?}");
    assert_eq!(refuted["run-level"], (1, "redis / payload_identity".to_owned()));
    let whole = |section: &str| bqsuite::suite::skip_policy::SkipPolicy::whole_section(rule("run-level"), section);
    assert!(whole("redis") && !whole("sqs") && !whole("redis_layout"));
}

/// `validate`'s findings on the canonical suite with `policy` instead of its own, but for
/// BQ319: any policy other than the recorded one is that on a suite of the recorded version
/// (tests/power.rs), and these tests are about the policy's own rules.
fn with_policy(policy: Value) -> Vec<bqsuite::diag::Finding> {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["skip_policy"] = policy;
    });
    let mut findings = s.validate();
    findings.retain(|f| f.code.id != "BQ319");
    findings
}

fn rule(extra: Value) -> Value {
    let mut r = json!({"name": "r", "condition": "c", "adrs": ["ADR-0031"], "cases": [{"section": "encode_reject", "case": "reject-repeated-key"}]});
    for (k, v) in extra.as_object().unwrap() {
        r[k] = v.clone();
    }
    json!({"description": "d", "rules": [r]})
}

#[test]
fn validate_reports_every_broken_policy() {
    let f = with_policy(rule(json!({})));
    assert!(f.is_empty(), "a minimal valid policy: {f:#?}");

    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m.as_object_mut().unwrap().shift_remove("skip_policy");
    });
    assert_finding(&s.validate(), "BQ208", "manifest.json", Some(""));

    assert_finding(&with_policy(json!([])), "BQ209", "manifest.json", Some("/skip_policy"));
    assert_finding(
        &with_policy(rule(json!({"adr": "ADR-0031"}))),
        "BQ209",
        "manifest.json",
        Some("/skip_policy/rules/0/adr"),
    );
    assert_finding(
        &with_policy(rule(json!({"condition": ""}))),
        "BQ209",
        "manifest.json",
        Some("/skip_policy/rules/0/condition"),
    );
    assert_finding(
        &with_policy(rule(json!({"cases": [{"section": "asb", "case": "x", "block": "y"}]}))),
        "BQ209",
        "manifest.json",
        Some("/skip_policy/rules/0/cases/0"),
    );
    assert_finding(
        &with_policy(rule(json!({"adrs": ["ADR-31"]}))),
        "BQ210",
        "manifest.json",
        Some("/skip_policy/rules/0/adrs/0"),
    );
    assert_finding(
        &with_policy(rule(json!({"cases": [{"section": "nope", "case": "x"}]}))),
        "BQ211",
        "manifest.json",
        Some("/skip_policy/rules/0/cases/0/section"),
    );
    assert_finding(
        &with_policy(rule(json!({"whole_sections": ["nope"]}))),
        "BQ211",
        "manifest.json",
        Some("/skip_policy/rules/0/whole_sections/0"),
    );
    assert_finding(
        &with_policy(rule(json!({"cases": [{"section": "asb", "case": "schema_version_gate/999"}]}))),
        "BQ212",
        "manifest.json",
        Some("/skip_policy/rules/0/cases/0/case"),
    );
    assert_finding(
        &with_policy(rule(json!({"cases": [{"section": "asb", "block": "property_projection"}]}))),
        "BQ213",
        "manifest.json",
        Some("/skip_policy/rules/0/cases/0/block"),
    );
    // A block no definition of the section has is the selector's own fault, not a block the
    // version history says is gone (that one is BQ313's, told once).
    assert_finding(
        &with_policy(rule(json!({"cases": [{"section": "asb", "block": "no_such_block"}]}))),
        "BQ213",
        "manifest.json",
        Some("/skip_policy/rules/0/cases/0/block"),
    );
    let mut two = rule(json!({}));
    let r = two["rules"][0].clone();
    two["rules"].as_array_mut().unwrap().push(r);
    assert_finding(&with_policy(two), "BQ214", "manifest.json", Some("/skip_policy/rules/1/name"));
    assert_finding(
        &with_policy(rule(json!({"whole_sections": ["encode_reject"]}))),
        "BQ215",
        "manifest.json",
        Some("/skip_policy/rules/0/whole_sections/0"),
    );
    let f = with_policy(rule(json!({"adrs": ["adr-0031"]})));
    let located = assert_finding(&f, "BQ210", "manifest.json", Some("/skip_policy/rules/0/adrs/0"));
    assert!(located.span.is_some(), "located: {located:?}");
}

#[test]
fn the_canonical_policy_marks_the_run_level_rules_and_the_javascript_row() {
    // Red team F1–F3: no-live-redis (the run) and native-receive-count (the SQS consumer) are
    // facts about the whole run or SDK; single-number-type is JavaScript's alone. The SQS
    // exemption is not limited to a family: the spec states its condition generally.
    let s = suite();
    let p = s.skip_policy();
    let flags: Vec<(&str, bool, Vec<&str>)> = p
        .rules
        .iter()
        .map(|r| (r.name.as_str(), r.all_or_none, r.families.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        flags,
        [
            ("no-live-redis", true, vec![]),
            ("single-number-type", false, vec!["node"]),
            ("no-null-property", false, vec![]),
            ("one-map-per-call", false, vec![]),
            ("native-receive-count", true, vec![]),
        ]
    );
    let d = &p.description;
    assert!(d.contains("all_or_none: true") && d.contains("A rule with families"), "the description rules on both");
    assert!(d.contains("No rule, alone or together with others, may let every case of a core section be skipped"));
}

#[test]
fn validate_checks_all_or_none_and_families() {
    for bad in [json!("yes"), json!(1), json!(null)] {
        assert_finding(
            &with_policy(rule(json!({"all_or_none": bad}))),
            "BQ209",
            "manifest.json",
            Some("/skip_policy/rules/0/all_or_none"),
        );
    }
    assert!(with_policy(rule(json!({"all_or_none": false}))).is_empty());
    for bad in [json!("node"), json!([]), json!([""]), json!(["no-de"]), json!([" node"]), json!([1]), json!({})] {
        assert_finding(
            &with_policy(rule(json!({"families": bad}))),
            "BQ209",
            "manifest.json",
            Some("/skip_policy/rules/0/families"),
        );
    }
    assert!(with_policy(rule(json!({"families": ["node", "Go"]}))).is_empty(), "letter case aside");
    let f = with_policy(rule(json!({"families": ["node", "javascript"]})));
    let one = assert_finding(&f, "BQ217", "manifest.json", Some("/skip_policy/rules/0/families/1"));
    assert!(one.message.contains("php, go, python, java, dotnet, node"), "{}", one.message);
    assert_eq!(f.len(), 1, "{f:#?}");
    // A family an exceptions entry names is one results check derives: not BQ217 (the entry
    // itself is not a registered exception, BQ218, which is all validate says).
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["exceptions"].as_array_mut().unwrap().push(json!({"family": "rust", "binding": "asb", "adr": "ADR-0021"}));
        m["skip_policy"] = rule(json!({"families": ["rust"]}));
    });
    let f = s.validate();
    let codes: Vec<_> = f.iter().map(|f| f.code.id).filter(|c| *c != "BQ319").collect();
    assert_eq!(codes, ["BQ218"], "{f:#?}");
}

#[test]
fn validate_refuses_a_policy_that_makes_a_core_section_skippable() {
    // Red team P01: a rule selecting every case of `cases` (with or without whole_sections), or
    // rules that do so together, turned a required section into an optional one.
    let s = suite();
    let ids = |section: &str| -> Vec<Value> {
        s.section(section).unwrap().cases().into_iter().map(|c| json!({"section": section, "case": c.id})).collect()
    };
    let all = ids("cases");
    let f = with_policy(rule(json!({"cases": all, "whole_sections": ["cases"]})));
    let one = assert_finding(&f, "BQ216", "manifest.json", Some("/skip_policy/rules/0/whole_sections/0"));
    assert!(one.message.contains("core section \"cases\""), "{}", one.message);
    assert_eq!(f.iter().filter(|f| f.code.id == "BQ216").count(), 1, "one finding per section: {f:#?}");
    // Without whole_sections: the selectors alone.
    let f = with_policy(rule(json!({"cases": all})));
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_finding(&f, "BQ216", "manifest.json", Some("/skip_policy/rules/0/cases/0"));
    // Split over two rules: still every case, found at the last rule that selects one.
    let (a, b) = all.split_at(3);
    let mut two = rule(json!({"cases": a}));
    let mut second = two["rules"][0].clone();
    second["name"] = json!("r2");
    second["cases"] = json!(b);
    two["rules"].as_array_mut().unwrap().push(second);
    let f = with_policy(two);
    let one = assert_finding(&f, "BQ216", "manifest.json", Some("/skip_policy/rules/1/cases/0"));
    assert!(one.message.contains("(rules \"r\", \"r2\")"), "{}", one.message);
    // whole_sections naming a core section is refused even when it does not select it all.
    let f = with_policy(rule(json!({"whole_sections": ["encode_reject"]})));
    assert_finding(&f, "BQ216", "manifest.json", Some("/skip_policy/rules/0/whole_sections/0"));
    assert_finding(&f, "BQ215", "manifest.json", Some("/skip_policy/rules/0/whole_sections/0"));
    // All but one case of a core section is not the whole section; a whole binding section is
    // allowed (redis, under no-live-redis).
    assert!(with_policy(rule(json!({"cases": all[1..]}))).is_empty());
    let kafka = ids("kafka_poison");
    assert!(with_policy(rule(json!({"cases": kafka, "whole_sections": ["kafka_poison"]}))).is_empty());
    // results check refuses such a suite rather than judge with it.
    let copy = SuiteCopy::new();
    copy.edit_manifest(|m| m["skip_policy"] = rule(json!({"cases": ids("cases")})));
    let cs = Suite::load(copy.path()).unwrap();
    let err = bqsuite::results::Checker::new(&cs).err().expect("refused");
    assert!(err.contains("core section"), "{err}");
}

/// A section or block the suite's version holds, removed or emptied, is its own finding (BQ312,
/// BQ313, BQ314) and no more: the rules that name it drew one BQ211 or BQ213 each beside it (15
/// for redis_layout). A section the version does not hold, named by a rule, is still BQ211.
#[test]
fn a_section_or_block_gone_is_its_finding_not_one_per_rule_that_names_it() {
    type Edit = fn(&mut Value);
    let gone: [(&str, Edit, &str); 4] = [
        (
            "redis_layout removed with its scope",
            |m| {
                m.as_object_mut().unwrap().shift_remove("redis_layout");
                m["sections"].as_object_mut().unwrap().shift_remove("redis_layout");
            },
            "BQ312",
        ),
        (
            "redis_layout's release block removed",
            |m| drop(m["redis_layout"].as_object_mut().unwrap().shift_remove("release")),
            "BQ313",
        ),
        ("redis_layout's release block emptied", |m| m["redis_layout"]["release"]["cases"] = json!([]), "BQ314"),
        (
            "a section misspelt in no-live-redis",
            |m| m["skip_policy"]["rules"][0]["cases"][1]["section"] = json!("redis_layuot"),
            "BQ211",
        ),
    ];
    for (what, edit, code) in gone {
        let s = SuiteCopy::new();
        s.edit_manifest(edit);
        let codes: Vec<&str> = s.validate().iter().map(|f| f.code.id).collect();
        assert_eq!(codes, [code], "{what}");
    }
}
