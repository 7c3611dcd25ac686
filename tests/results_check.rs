//! `bqsuite results check`: one test per finding code, each from a complete passing results file
//! (built from the canonical suite's own case ids) broken in one way; the verdict; the reference
//! run's output; the command line's exit codes and formats.

mod support;

use bqsuite::conformance::{self, RunOptions};
use bqsuite::diag::Finding;
use bqsuite::results::{CheckOptions, Checker, FileCheck, Source, Verdict};
use bqsuite::sections::RedisRequired;
use bqsuite::suite::Suite;
use serde_json::{Value, json};
use support::{assert_finding, bqsuite, passing, repo, transcript};

const FILE: &str = "results.json";

fn suite() -> Suite {
    Suite::load(repo()).expect("the canonical suite loads")
}

fn check_text(suite: &Suite, text: &[u8]) -> FileCheck {
    Checker::new(suite).expect("the suite can check results").check(&Source { file: FILE.into(), bytes: text.to_vec() })
}

fn check(suite: &Suite, v: &Value) -> FileCheck {
    check_text(suite, serde_json::to_string_pretty(v).unwrap().as_bytes())
}

fn codes(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.code.id).collect()
}

/// Check `v`, assert it is Not compatible with a finding `code` at `pointer`, located.
#[track_caller]
fn broken(v: &Value, code: &str, pointer: &str) -> FileCheck {
    let fc = check(&suite(), v);
    assert_eq!(fc.verdict(), Verdict::NotCompatible, "{:#?}", fc.findings);
    let f = assert_finding(&fc.findings, code, FILE, Some(pointer));
    assert!(f.span.is_some(), "line:column located: {f:?}");
    assert!(fc.reasons().iter().any(|r| r.starts_with(code)), "{:?}", fc.reasons());
    fc
}

#[test]
fn a_complete_passing_file_is_compatible() {
    let s = suite();
    for bindings in [&[][..], &["sqs"], &["redis", "sqs", "otel"]] {
        let fc = check(&s, &passing(&s, "babelqueue-python", bindings));
        assert!(fc.findings.is_empty(), "{bindings:?}: {:#?}", fc.findings);
        assert_eq!(fc.verdict(), Verdict::Compatible);
        assert!(fc.reasons().is_empty());
        assert_eq!(fc.family.as_deref(), Some("python"));
    }
}

/// Red team (report): `"sdk": "node: Compatible \u{202e}"` was Compatible; every rendering
/// then showed the verdict beside a name that reorders it. A package name or version with a
/// control, separator or bidirectional character, or surrounding space, is BQ620.
#[test]
fn a_name_that_is_not_shown_as_it_is_is_malformed() {
    let s = suite();
    for (member, bad) in [("sdk", "node: Compatible \u{202e}"), ("sdk", "php-sdk\n"), ("version", " 2.4.1")] {
        let mut v = passing(&s, "babelqueue-python", &["sqs"]);
        v[member] = json!(bad);
        let fc = broken(&v, "BQ620", &format!("/{member}"));
        assert_eq!(fc.findings.len(), 1, "one problem, one finding: {:#?}", fc.findings);
    }
}

/// Red team F2: invisible characters (zero-width space, byte-order mark, word joiner, the Arabic
/// letter mark, Hangul filler, a blank Braille pattern) and look-alike letters passed, and the
/// family is read from ASCII letters and digits, so `ph\u{200b}p-sdk`, shown as php-sdk, had no
/// family and escaped php's asb exception. A name is printable ASCII without white space.
#[test]
fn a_name_is_printable_ascii_so_it_cannot_hide_or_escape_its_family() {
    let s = suite();
    let bad = [
        ("sdk", "babelqueue-python\u{200b}"),
        ("sdk", "babelqueue-python\u{feff}"),
        ("sdk", "babel\u{2060}queue-python"),
        ("sdk", "babelqueue\u{3164}python"),
        ("sdk", "babelqueue-python\u{2800}"),
        ("sdk", "babelqueue-\u{0440}ython"),
        ("sdk", "babelqueue python"),
        ("version", "1.2.3\u{061c}"),
        ("version", "1.2.3\u{fff9}"),
        ("version", "1.2.3\u{a0}"),
    ];
    for (member, value) in bad {
        let mut v = passing(&s, "babelqueue-python", &["sqs"]);
        v[member] = json!(value);
        let fc = broken(&v, "BQ620", &format!("/{member}"));
        assert_eq!(fc.findings.len(), 1, "{value:?}: {:#?}", fc.findings);
        // Shown escaped: the message says which character it is.
        assert!(fc.findings[0].message.contains("\\u"), "{}", fc.findings[0].message);
    }
    // The exception evasion: a file listing asb is Not compatible whichever way php is spelt.
    for sdk in ["php-sdk", "ph\u{200b}p-sdk", "\u{0440}hp-sdk"] {
        let v = passing(&s, sdk, &["asb"]);
        let fc = check(&s, &v);
        assert!(!fc.findings.is_empty(), "{sdk:?} listing asb is Compatible: {:#?}", fc.findings);
    }
    let v = passing(&s, "babelqueue-python", &["sqs"]);
    assert!(check(&s, &v).findings.is_empty(), "ASCII names stay Compatible");
}

/// Red team F3: `generated_at` of the right shape that names no instant was Compatible (the
/// schema's `format: date-time` is an annotation in 2020-12; its pattern checks only the shape).
#[test]
fn a_generated_at_that_names_no_instant_violates_the_schema() {
    let s = suite();
    for bad in ["2026-13-45T25:61:61Z", "0000-00-00T00:00:00Z", "2099-02-29T00:00:00Z", "2099-01-30T00:00:00+99:99"] {
        let mut v = passing(&s, "babelqueue-python", &["sqs"]);
        v["generated_at"] = json!(bad);
        let fc = broken(&v, "BQ602", "/generated_at");
        assert_eq!(fc.findings.len(), 1, "{bad}: {:#?}", fc.findings);
        assert!(fc.findings[0].message.contains("is no date-time"), "{}", fc.findings[0].message);
    }
    // A shape the pattern refuses is the schema's own finding, once.
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["generated_at"] = json!("yesterday");
    let fc = broken(&v, "BQ602", "/generated_at");
    assert_eq!(fc.findings.len(), 1, "{:#?}", fc.findings);
    // A leap second is 23:59:60 UTC, never another minute's 60th second (user journey).
    for bad in ["2026-12-05T10:00:60Z", "2016-12-31T23:59:60+01:00"] {
        let mut v = passing(&s, "babelqueue-python", &["sqs"]);
        v["generated_at"] = json!(bad);
        let fc = broken(&v, "BQ602", "/generated_at");
        assert!(fc.findings[0].message.contains("a leap second is 23:59:60 UTC"), "{}", fc.findings[0].message);
    }
    for good in ["2024-02-29T23:59:60Z", "2016-12-31T18:59:60-05:00", "2026-12-05t07:54:50.5+05:30"] {
        let mut v = passing(&s, "babelqueue-python", &["sqs"]);
        v["generated_at"] = json!(good);
        assert!(check(&s, &v).findings.is_empty(), "{good}");
    }
}

#[test]
fn skips_the_policy_allows_are_compatible_and_counted() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-node", &["asb", "redis"]);
    let skip = |reason: &str| json!({"status": "skip", "reason": reason});
    v["sections"]["asb"]["schema_version_gate/22"] = skip("JavaScript has one number type (ADR-0032)");
    v["sections"]["encode_reject"]["reject-repeated-key"] = skip("one map per call: ADR-0031");
    // No live Redis: every case that needs one is a skip (all or none, see below).
    let redis = no_live_redis_cases(&s);
    for (section, id) in &redis {
        v["sections"][section][id] = skip("ADR-0033: no live Redis");
    }
    let fc = check(&s, &v);
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
    assert_eq!(fc.counts.skip, 2 + redis.len());
    assert_eq!(fc.policy_skip_total(), 2 + redis.len());
    assert_eq!(fc.policy_skips["asb"], 1);
    let n = 2 + redis.len();
    assert!(
        fc.counts_text().ends_with(&format!(", 0 fail, {n} skip ({n} allowed by the skip policy)")),
        "{}",
        fc.counts_text()
    );
}

/// The (section, case id) pairs the rule `name` of the canonical policy covers, in manifest order.
fn covered_by(s: &Suite, name: &str) -> Vec<(String, String)> {
    let p = s.skip_policy();
    s.sections()
        .iter()
        .flat_map(|sec| {
            sec.cases()
                .into_iter()
                .filter(|c| p.rules_for(sec.name, &c.id).iter().any(|r| r.name == name))
                .map(|c| (sec.name.to_owned(), c.id))
        })
        .collect()
}

fn no_live_redis_cases(s: &Suite) -> Vec<(String, String)> {
    covered_by(s, "no-live-redis")
}

#[test]
fn a_run_level_skip_cannot_be_cherry_picked() {
    // Red team F1: every Redis case passes (the run had a Redis) but one, reported as "no
    // reachable Redis". The rule's condition is about the whole run, so the passes refute it.
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &["redis"]);
    let id = "processing_sweep/expired-item-moves-to-the-ready-tail";
    v["sections"]["redis_layout"][id] =
        json!({"status": "skip", "reason": "no reachable Redis, BQ_REQUIRE_REDIS unset (ADR-0033)"});
    let fc = broken(&v, "BQ613", "/sections/redis_layout/processing_sweep~1expired-item-moves-to-the-ready-tail");
    assert_eq!(codes(&fc.findings), ["BQ613"]);
    let m = &fc.findings[0].message;
    let ran = no_live_redis_cases(&s).len() - 1;
    assert!(
        m.contains(&format!(
            "rule no-live-redis covers this case, but {ran} cases it covers ran (first: redis / payload_identity)"
        )),
        "{m}"
    );
    assert_eq!(fc.policy_skip_total(), 0);
    // A failing Redis case also ran.
    let mut v = passing(&s, "babelqueue-python", &["redis"]);
    for (section, id) in no_live_redis_cases(&s) {
        v["sections"][&section][&id] = json!({"status": "skip", "reason": "ADR-0033"});
    }
    assert!(check(&s, &v).findings.is_empty(), "no Redis at all: every skip allowed");
    v["sections"]["redis"]["payload_identity"] = json!({"status": "fail", "reason": "boom"});
    let fc = check(&s, &v);
    let n = |code| fc.findings.iter().filter(|f| f.code.id == code).count();
    assert_eq!((n("BQ612"), n("BQ613")), (1, no_live_redis_cases(&s).len() - 1), "{:#?}", fc.findings);
    // The redis section skipped while redis_layout's behaviour cases pass: not allowed, and so
    // the section was not run.
    let mut v = passing(&s, "babelqueue-python", &["redis"]);
    v["sections"]["redis"]["payload_identity"] = json!({"status": "skip", "reason": "ADR-0033"});
    let fc = check(&s, &v);
    let mut got = codes(&fc.findings);
    got.sort_unstable();
    assert_eq!(got, ["BQ613", "BQ615"], "{:#?}", fc.findings);
    // A pass in a section the SDK does not carry proves nothing about its run.
    let mut v = passing(&s, "babelqueue-python", &["redis"]);
    for (section, id) in no_live_redis_cases(&s) {
        v["sections"][&section][&id] = json!({"status": "skip", "reason": "ADR-0033"});
    }
    v["sections"]["redis_layout"]["migrate/due-delayed-item-moves-to-the-ready-tail"] = json!({"status": "skip"});
    let fc = check(&s, &v);
    assert_eq!(codes(&fc.findings), ["BQ610"], "not refuted: judged under the rule");
}

#[test]
fn an_sdk_level_skip_cannot_be_cherry_picked() {
    // Red team F3: one SQS reconciliation row skipped under native-receive-count while the
    // other rows pass: a consumer that reconciles five rows reconciles.
    let s = suite();
    let rows = covered_by(&s, "native-receive-count");
    assert_eq!(rows.len(), 6);
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["sections"]["sqs"]["attempts_reconciliation/third-delivery"] = json!({"status": "skip", "reason": "ADR-0032"});
    let fc = broken(&v, "BQ613", "/sections/sqs/attempts_reconciliation~1third-delivery");
    assert_eq!(codes(&fc.findings), ["BQ613"]);
    assert!(fc.findings[0].message.contains("rule native-receive-count covers this case, but 5 cases it covers ran (first: sqs / attempts_reconciliation/"), "{}", fc.findings[0].message);
    // Every row skipped (a produce-only transport, a drop-in driver): allowed, for any family.
    for sdk in ["php-sdk", "babelqueue-python"] {
        let mut v = passing(&s, sdk, &["sqs"]);
        for (_, id) in &rows {
            v["sections"]["sqs"][id] = json!({"status": "skip", "reason": "produce-only (ADR-0032)"});
        }
        let fc = check(&s, &v);
        assert!(fc.findings.is_empty(), "{sdk}: {:#?}", fc.findings);
        assert_eq!(fc.policy_skip_total(), 6);
    }
}

#[test]
fn a_family_limited_skip_is_only_for_that_family() {
    // Red team F2: the JavaScript-only float gate row skipped by a Go SDK.
    let s = suite();
    let at = "/sections/asb/schema_version_gate~122";
    for (sdk, is) in [
        ("babelqueue-go", "is of family go"),
        ("babelqueue-python", "is of family python"),
        ("babelqueue-java-azureservicebus", "is of family java"),
        ("bqsuite-reference", "names no SDK family"),
    ] {
        let mut v = passing(&s, sdk, &["asb"]);
        v["sections"]["asb"]["schema_version_gate/22"] =
            json!({"status": "skip", "reason": "single number type (ADR-0032)"});
        let fc = broken(&v, "BQ613", at);
        assert_eq!(codes(&fc.findings), ["BQ613"], "{sdk}");
        let m = &fc.findings[0].message;
        assert!(m.contains("rule single-number-type covers this case, but only for SDKs of family node"), "{m}");
        assert!(m.contains(is), "{m}");
    }
    let mut v = passing(&s, "@babelqueue/azure-service-bus-node", &["asb"]);
    v["sections"]["asb"]["schema_version_gate/22"] = json!({"status": "skip", "reason": "ADR-0032"});
    let fc = check(&s, &v);
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
    assert_eq!(fc.family.as_deref(), Some("node"));
}

/// A vendored copy of the recorded version whose skip policy or results schema was edited is
/// refused, not judged by: they decide which skips and which shapes pass (red team F1 of this
/// round: a results schema strict only for the example's sdk let a file with status twins and
/// unknown members through `results check --suite COPY`).
#[test]
fn a_copy_whose_skip_policy_or_results_schema_is_not_the_published_one_is_refused() {
    support::assert_recording_current();
    let rule = |m: &mut Value, name: &str| -> usize {
        m["skip_policy"]["rules"].as_array().unwrap().iter().position(|r| r["name"] == name).unwrap()
    };
    let widened = support::SuiteCopy::new();
    widened.edit_manifest(|m| {
        let i = rule(m, "no-live-redis");
        m["skip_policy"]["rules"][i]["all_or_none"] = json!(false);
    });
    let loosened = support::SuiteCopy::new();
    let mut schema: Value = serde_json::from_str(&loosened.read("schema/results.schema.json")).unwrap();
    schema.as_object_mut().unwrap().shift_remove("additionalProperties");
    loosened.write("schema/results.schema.json", serde_json::to_string_pretty(&schema).unwrap());
    for (copy, says) in
        [(&widened, "skip-policy rule no-live-redis (BQ319)"), (&loosened, "results.schema.json (BQ320)")]
    {
        let cs = Suite::load(copy.path()).unwrap();
        let err = Checker::new(&cs).err().unwrap_or_else(|| panic!("{says}: the copy is not refused"));
        assert!(err.contains(says) && err.contains("bqsuite fetch"), "{err}");
        let f = write(copy.path(), "r.json", &passing(&cs, "babelqueue-python", &["redis"]));
        let o = bqsuite(copy.path(), &["results", "check", &f, "--suite", "."]);
        assert_eq!(o.status.code(), Some(2), "{says}: {}", transcript(&o));
    }
    // Third red team F5: a core section re-scoped to otel in the copy let a file without otel
    // leave it out; a case dropped from the copy is no longer asked for either.
    let rescoped = support::SuiteCopy::new();
    rescoped.edit_manifest(|m| m["sections"]["trim"] = json!("otel"));
    let dropped = support::SuiteCopy::new();
    dropped.edit_manifest(|m| {
        m["cases"].as_array_mut().unwrap().retain(|c| c["name"] != "urn-alias");
    });
    for (copy, says) in
        [(&rescoped, "the scope of section trim"), (&dropped, "1 recorded case(s), the first cases/urn-alias")]
    {
        let err =
            Checker::new(&Suite::load(copy.path()).unwrap()).err().unwrap_or_else(|| panic!("{says}: not refused"));
        assert!(err.contains(says), "{err}");
    }
    // Stop 44's newcomer: a copy whose expectations were edited (a failing SDK made to pass by
    // loosening the copy it ran against) was judged by them; so was one with an edited fixture.
    let loosened_case = support::SuiteCopy::new();
    loosened_case.edit_manifest(|m| m["cases"][0]["expect"]["attempts"] = json!(7));
    let edited_fixture = support::SuiteCopy::new();
    let fixture = edited_fixture.read("fixtures/order-created.json").replace("1042", "1043");
    edited_fixture.write("fixtures/order-created.json", fixture);
    for (copy, says) in [
        (&loosened_case, "the content of 1 recorded case(s), the first cases/order-created (BQ318)"),
        (&edited_fixture, "recorded case(s), the first"),
    ] {
        let cs = Suite::load(copy.path()).unwrap();
        let err = Checker::new(&cs).err().unwrap_or_else(|| panic!("{says}: not refused"));
        assert!(err.contains(says), "{err}");
        let v = cs.version().unwrap();
        assert!(err.contains(&format!("bqsuite fetch --check {v}")) && err.contains(&format!("--update {v}")), "{err}");
    }
    // A case's prose is not its content: still judged.
    let described = support::SuiteCopy::new();
    described.edit_manifest(|m| m["cases"][0]["description"] = json!("reworded"));
    assert!(Checker::new(&Suite::load(described.path()).unwrap()).is_ok());
    // A case added is asked for as well: no excuse, so no refusal.
    let added = support::SuiteCopy::new();
    added.edit_manifest(|m| {
        let mut case = m["cases"][0].clone();
        case["name"] = json!("an-added-case");
        m["cases"].as_array_mut().unwrap().push(case);
    });
    assert!(Checker::new(&Suite::load(added.path()).unwrap()).is_ok());
    // Prose and layout of the policy are not its rules: still judged.
    let reworded = support::SuiteCopy::new();
    reworded.edit_manifest(|m| m["skip_policy"]["description"] = json!("reworded"));
    assert!(Checker::new(&Suite::load(reworded.path()).unwrap()).is_ok());
}

#[test]
fn a_suite_whose_exceptions_or_skip_policy_do_not_read_is_refused() {
    // Red team F6: an exceptions entry without its adr was dropped, and a php-sdk file listing
    // asb came out Compatible.
    for (what, edit) in [
        ("no adr", json!([{"family": "php", "binding": "asb"}])),
        ("padded family", json!([{"family": " php", "binding": "asb", "adr": "ADR-0021"}])),
        ("family with a hyphen", json!([{"family": "php-sdk", "binding": "asb", "adr": "ADR-0021"}])),
        ("binding in capitals", json!([{"family": "php", "binding": "ASB", "adr": "ADR-0021"}])),
        ("not an array", json!({"family": "php", "binding": "asb", "adr": "ADR-0021"})),
        // Red team P11: an exception added to a copy excused a whole family from a binding.
        (
            "an exception the contract does not record",
            json!([
                {"family": "php", "binding": "asb", "adr": "ADR-0021"},
                {"family": "go", "binding": "kafka", "adr": "ADR-0021"}
            ]),
        ),
        ("the contract's exception dropped", json!([])),
    ] {
        let copy = support::SuiteCopy::new();
        copy.edit_manifest(|m| m["exceptions"] = edit.clone());
        let cs = Suite::load(copy.path()).unwrap();
        let err = Checker::new(&cs).err().unwrap_or_else(|| panic!("{what}: the suite is not refused"));
        assert!(err.contains("manifest.json") && err.contains("bqsuite validate"), "{what}: {err}");
        let f = write(copy.path(), "r.json", &passing(&cs, "php-sdk", &["asb"]));
        let o = bqsuite(copy.path(), &["results", "check", &f, "--suite", "."]);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", transcript(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("exceptions or skip_policy do not read cleanly"),
            "{}",
            transcript(&o)
        );
    }
    // A broken skip rule is refused too, not dropped.
    let copy = support::SuiteCopy::new();
    copy.edit_manifest(|m| m["skip_policy"]["rules"][1]["families"] = json!("node"));
    let cs = Suite::load(copy.path()).unwrap();
    let err = Checker::new(&cs).err().expect("refused");
    assert!(err.contains("/skip_policy/rules/1/families"), "{err}");
    // A suite without a skip policy is not refused: no case may be skipped under it.
    let copy = support::SuiteCopy::new();
    copy.edit_manifest(|m| {
        m.as_object_mut().unwrap().shift_remove("skip_policy");
    });
    let cs = Suite::load(copy.path()).unwrap();
    let mut v = passing(&cs, "babelqueue-python", &[]);
    assert!(Checker::new(&cs).is_ok());
    v["sections"]["encode_reject"]["reject-repeated-key"] = json!({"status": "skip", "reason": "ADR-0031"});
    assert_eq!(codes(&check(&cs, &v).findings), ["BQ613"]);
}

#[test]
fn a_skip_the_policy_does_not_allow() {
    // "A skip is only for an individual case … and cites the ADR which makes that case not
    // applicable": an ADR citation alone is not enough; the policy must name the case.
    let s = suite();
    let mut v = passing(&s, "babelqueue-go", &["sqs"]);
    v["sections"]["sqs"]["attribute_projection"] =
        json!({"status": "skip", "reason": "not applicable to this transport (ADR-0031)"});
    let fc = broken(&v, "BQ613", "/sections/sqs/attribute_projection");
    assert_eq!(codes(&fc.findings), ["BQ613"]);
    // The same without any reason: one finding, not also BQ610 or the schema's.
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["cases"]["urn-alias"] = json!({"status": "skip"});
    let fc = broken(&v, "BQ613", "/sections/cases/urn-alias");
    assert_eq!(codes(&fc.findings), ["BQ613"]);
}

#[test]
fn a_skip_citing_an_adr_the_policy_does_not_allow_for_the_case() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-node", &["asb"]);
    v["sections"]["asb"]["schema_version_gate/22"] = json!({"status": "skip", "reason": "JavaScript (ADR-0033)"});
    let fc = broken(&v, "BQ614", "/sections/asb/schema_version_gate~122");
    assert_eq!(codes(&fc.findings), ["BQ614"]);
    assert!(fc.findings[0].message.contains("ADR-0032"), "names the allowed ADR: {}", fc.findings[0].message);
    // ADR-00321 is not ADR-0032.
    v["sections"]["asb"]["schema_version_gate/22"] = json!({"status": "skip", "reason": "see ADR-00321"});
    broken(&v, "BQ610", "/sections/asb/schema_version_gate~122");
}

#[test]
fn a_file_skipping_every_case_citing_a_nonexistent_adr_is_not_compatible() {
    // Why, example 1: all cases skipped with reason ADR-9999 was Compatible, exit 0.
    let s = suite();
    let (v, total) = support::all_skipped(&s, "ADR-9999");
    let fc = check(&s, &v);
    assert_eq!(fc.verdict(), Verdict::NotCompatible);
    assert_eq!(fc.counts.skip, total);
    assert_eq!(fc.policy_skip_total(), 0);
    let policy = s.skip_policy();
    // The file is python's: the node-only rule covers none of its cases.
    let skippable: usize = s
        .sections()
        .iter()
        .map(|sec| {
            sec.cases()
                .iter()
                .filter(|c| {
                    policy.rules_for(sec.name, &c.id).iter().any(|r| r.families.is_empty() || r.families == ["python"])
                })
                .count()
        })
        .sum();
    let n = |code| fc.findings.iter().filter(|f| f.code.id == code).count();
    assert_eq!(n("BQ613"), total - skippable);
    assert_eq!(n("BQ614"), skippable);
    assert_eq!(n("BQ615"), s.sections().len(), "every section was not run");
    assert_eq!(fc.findings.len(), total + s.sections().len(), "one finding per skip, one per section");
    assert!(fc.counts_text().starts_with(&format!("0 pass, 0 fail, {total} skip (0 allowed")));
}

#[test]
fn a_file_skipping_every_case_of_one_core_section_is_not_compatible() {
    // Why, example 2: every case of one core section skipped was Compatible.
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    for outcome in v["sections"]["trim"].as_object_mut().unwrap().values_mut() {
        *outcome = json!({"status": "skip", "reason": "not needed here (ADR-0032)"});
    }
    let fc = broken(&v, "BQ615", "/sections/trim");
    assert!(fc.findings.iter().all(|f| ["BQ613", "BQ615"].contains(&f.code.id)), "{:#?}", fc.findings);
}

#[test]
fn a_section_whose_every_case_the_policy_allows_is_still_not_run_unless_whole() {
    let s = suite();
    // kafka_poison has no skippable case; a copy of the suite whose policy selects all of
    // them (without whole_sections) may skip each, but not all at once. (A core section cannot
    // be selected whole at all: validate refuses that policy, BQ216.)
    let copy = support::SuiteCopy::new();
    copy.edit_manifest(|m| {
        let ids: Vec<Value> = m["kafka_poison"]["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| json!({"section": "kafka_poison", "case": c["name"]}))
            .collect();
        m["skip_policy"]["rules"][3]["cases"] = Value::Array(ids);
    });
    // A version the recording does not pin, the canonical one's next PATCH (at the recorded
    // version a copy with another policy is refused).
    support::set_version(copy.path(), &support::bumped("patch"));
    let cs = Suite::load(copy.path()).unwrap();
    // The policy is valid (the one finding: the CHANGELOG has no entry for that version, BQ105).
    let findings = bqsuite::validate::validate(&cs);
    assert!(findings.iter().all(|f| f.code.id == "BQ105"), "the edited policy is valid: {findings:#?}");
    let mut v = passing(&cs, "babelqueue-python", &["kafka"]);
    for outcome in v["sections"]["kafka_poison"].as_object_mut().unwrap().values_mut() {
        *outcome = json!({"status": "skip", "reason": "ADR-0031"});
    }
    let fc = check(&cs, &v);
    assert_eq!(codes(&fc.findings), ["BQ615"], "{:#?}", fc.findings);
    // The same rule naming kafka_poison in whole_sections may skip it whole; two skips citing
    // another ADR are not its, and BQ615 counts them, not the skips it allows (mutation
    // testing: the count was not pinned, since the canonical whole rule's section has one case).
    copy.edit_manifest(|m| m["skip_policy"]["rules"][3]["whole_sections"] = json!(["kafka_poison"]));
    let cs = Suite::load(copy.path()).unwrap();
    let fc = check(&cs, &v);
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
    let ids: Vec<String> = v["sections"]["kafka_poison"].as_object().unwrap().keys().take(2).cloned().collect();
    for id in &ids {
        v["sections"]["kafka_poison"][id] = json!({"status": "skip", "reason": "ADR-0032"});
    }
    let fc = check(&cs, &v);
    assert_eq!(codes(&fc.findings), ["BQ615", "BQ614", "BQ614"], "{:#?}", fc.findings);
    assert!(
        fc.findings[0].message.contains("and 2 of these are not allowed (see their findings)"),
        "{}",
        fc.findings[0].message
    );
    // The redis section is the one a rule may skip whole (no live Redis, ADR-0033), in a run
    // that skips every case needing Redis.
    let mut v = passing(&s, "babelqueue-python", &["redis"]);
    for (section, id) in no_live_redis_cases(&s) {
        v["sections"][&section][&id] = json!({"status": "skip", "reason": "ADR-0033"});
    }
    v["sections"]["redis"]["payload_identity"] = json!({"status": "skip", "reason": "ADR-0033: no Redis"});
    let fc = check(&s, &v);
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
    // … but only under that rule's ADR.
    v["sections"]["redis"]["payload_identity"] = json!({"status": "skip", "reason": "ADR-0032"});
    let fc = check(&s, &v);
    let mut got = codes(&fc.findings);
    got.sort_unstable();
    assert_eq!(got, ["BQ614", "BQ615"], "{:#?}", fc.findings);
    // BQ615 names the rule that may skip the section whole and why it does not here (user
    // journey: it said "only a rule naming the section in whole_sections may skip it whole",
    // which sent the reader to a rule that exists).
    let not_run = fc.findings.iter().find(|f| f.code.id == "BQ615").unwrap();
    assert!(
        not_run.message.contains("rule no-live-redis may skip it whole, but only when every skip is one that rule allows, and 1 of these is not allowed (see their findings)"),
        "{}",
        not_run.message
    );
}

#[test]
fn a_case_reported_twice_is_a_finding_with_both_locations() {
    // Why, example 3: `fail` then `pass` for one case (a repeated key) was Compatible.
    let s = suite();
    let text = serde_json::to_string_pretty(&passing(&s, "babelqueue-python", &[])).unwrap();
    let pass = "\"urn-alias\": {\n        \"status\": \"pass\"\n      }";
    assert!(text.contains(pass));
    let twice =
        text.replacen(pass, &format!("\"urn-alias\": {{\"status\": \"fail\", \"reason\": \"r\"}},\n      {pass}"), 1);
    let fc = check_text(&s, twice.as_bytes());
    assert_eq!(fc.verdict(), Verdict::NotCompatible);
    let f = assert_finding(&fc.findings, "BQ617", FILE, Some("/sections/cases/urn-alias"));
    assert_eq!(codes(&fc.findings), ["BQ617"]);
    let fail_line = twice.lines().position(|l| l.contains("\"status\": \"fail\"")).unwrap() + 1;
    assert_eq!(f.span.map(|s| (s.line, s.column)), Some((fail_line + 1, 7)), "at the repeat");
    assert!(f.message.contains(&format!("first at line {fail_line} column 7")), "{}", f.message);
}

#[test]
fn a_results_file_nested_too_deeply() {
    let s = suite();
    let deep = format!("{{\"sdk\": {}1{}}}", "[".repeat(200), "]".repeat(200));
    let fc = check_text(&s, deep.as_bytes());
    let f = assert_finding(&fc.findings, "BQ618", FILE, None);
    assert!(f.message.starts_with("nested too deeply (limit 127)"), "{}", f.message);
    assert_eq!(codes(&fc.findings), ["BQ618"], "not also reported as not JSON");
}

#[test]
fn max_skips_is_a_stricter_gate() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-node", &["asb"]);
    v["sections"]["asb"]["schema_version_gate/22"] = json!({"status": "skip", "reason": "ADR-0032"});
    v["sections"]["asb"]["schema_version_gate/23"] = json!({"status": "skip", "reason": "ADR-0032"});
    let text = serde_json::to_string_pretty(&v).unwrap();
    let with = |max| {
        Checker::new(&s)
            .unwrap()
            .with_options(CheckOptions { max_skips: max, ..CheckOptions::default() })
            .check(&Source { file: FILE.into(), bytes: text.clone().into_bytes() })
    };
    assert!(with(None).findings.is_empty());
    assert!(with(Some(2)).findings.is_empty());
    let fc = with(Some(1));
    assert_eq!(codes(&fc.findings), ["BQ616"]);
    assert!(fc.findings[0].message.contains("2 cases are skipped, more than --max-skips 1"));
}

#[test]
fn many_findings_are_each_located() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    let cases = v["sections"]["cases"].as_object_mut().unwrap();
    for i in 0..3000 {
        cases.insert(format!("unknown-{i:05}"), json!({"status": "fail", "reason": format!("r{i}")}));
    }
    let text = serde_json::to_string_pretty(&v).unwrap();
    let fc = check_text(&s, text.as_bytes());
    assert_eq!(fc.findings.len(), 6000);
    let lines: std::collections::HashMap<&str, usize> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| Some((l.trim_start().strip_prefix('"')?.split('"').next()?, i + 1)))
        .collect();
    for f in &fc.findings {
        let id = f.pointer.as_deref().unwrap().rsplit('/').next().unwrap();
        assert_eq!(f.span.map(|s| s.line), Some(lines[id]), "{f:?}");
    }
}

#[test]
fn the_reference_run_with_every_outcome_forced_to_pass_is_compatible() {
    let s = suite();
    let mut v = serde_json::to_value(conformance::run(&s, &RunOptions::default()).results).unwrap();
    for cases in v["sections"].as_object_mut().unwrap().values_mut() {
        for outcome in cases.as_object_mut().unwrap().values_mut() {
            *outcome = json!({"status": "pass"});
        }
    }
    let fc = check(&s, &v);
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
    assert_eq!(fc.verdict(), Verdict::Compatible);
}

/// `bqsuite run` output always passes `results check`: no shape, version, scope or id finding.
/// (Sections without a runner yet fail, so only failed-case findings may appear.)
#[test]
fn the_reference_run_output_passes_results_check() {
    let s = suite();
    // With a Redis the behavioural Redis cases run; without one they are skipped citing
    // ADR-0033, which results check accepts: either way the reference is Compatible.
    let options = RunOptions {
        redis_url: support::redis_url(),
        require_redis: if support::redis_required() { RedisRequired::ByEnv } else { RedisRequired::No },
        ..Default::default()
    };
    let results = conformance::run(&s, &options).results;
    assert_eq!(results.counts(None).fail, 0, "the reference core passes every case");
    let fc = check_text(&s, results.to_json().as_bytes());
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
    assert_eq!(fc.verdict(), Verdict::Compatible);
}

#[test]
fn a_failing_case() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["sections"]["sqs"]["attempts_reconciliation/first-delivery"] =
        json!({"status": "fail", "reason": "expected 0, got 1"});
    let fc = broken(&v, "BQ612", "/sections/sqs/attempts_reconciliation~1first-delivery");
    assert_eq!(codes(&fc.findings), ["BQ612"]);
    assert!(fc.findings[0].message.contains("expected 0, got 1"));
}

#[test]
fn a_missing_case() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["cases"].as_object_mut().unwrap().shift_remove("urn-alias");
    let fc = broken(&v, "BQ608", "/sections/cases");
    assert_eq!(codes(&fc.findings), ["BQ608"]);
    assert!(fc.findings[0].message.contains("urn-alias"));
    assert_eq!(fc.missing_cases["cases"], ["urn-alias"]);
    // A section reported as an empty object misses every case, and that is all it is: with no
    // skip in it, it is no section "not run" by skips (mutation testing: `skips > 0` as
    // `skips >= 0` added a BQ615 of "all 0 of its reported cases are skips").
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["trim"] = json!({});
    let fc = broken(&v, "BQ608", "/sections/trim");
    let trim = s.sections().into_iter().find(|sec| sec.name == "trim").unwrap().cases().len();
    assert_eq!(codes(&fc.findings), vec!["BQ608"; trim], "{:#?}", fc.findings);
}

#[test]
fn an_unknown_case_id() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["sections"]["sqs"]["schema_version_gate/999"] = json!({"status": "pass"});
    let fc = broken(&v, "BQ609", "/sections/sqs/schema_version_gate~1999");
    assert_eq!(codes(&fc.findings), ["BQ609"]);
}

#[test]
fn a_skip_without_an_adr() {
    // A case the policy allows to skip (no live Redis, ADR-0033), skipped without citing it.
    let s = suite();
    for outcome in [json!({"status": "skip", "reason": "no Redis here"}), json!({"status": "skip"})] {
        let mut v = passing(&s, "babelqueue-python", &["redis"]);
        for (section, id) in no_live_redis_cases(&s) {
            v["sections"][&section][&id] = json!({"status": "skip", "reason": "ADR-0033"});
        }
        v["sections"]["redis_layout"]["migrate/due-delayed-item-moves-to-the-ready-tail"] = outcome;
        let fc = broken(&v, "BQ610", "/sections/redis_layout/migrate~1due-delayed-item-moves-to-the-ready-tail");
        assert_eq!(codes(&fc.findings), ["BQ610"], "the schema's report of the same skip is superseded");
        assert!(fc.findings[0].message.contains("ADR-0033"), "{}", fc.findings[0].message);
    }
}

#[test]
fn a_skip_in_an_out_of_scope_section() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["kafka"] = passing(&s, "x", &["kafka"])["sections"]["kafka"].clone();
    let first = v["sections"]["kafka"].as_object().unwrap().keys().next().unwrap().clone();
    v["sections"]["kafka"][&first] = json!({"status": "skip", "reason": "no Kafka here (ADR-0032)"});
    let fc = broken(&v, "BQ611", &format!("/sections/kafka/{}", first.replace('/', "~1")));
    assert_finding(&fc.findings, "BQ606", FILE, Some("/sections/kafka"));
}

#[test]
fn a_binding_under_an_exception() {
    let s = suite();
    // PHP has no conformant Azure Service Bus path (exceptions: php / asb / ADR-0021).
    let fc = check(&s, &passing(&s, "php-sdk", &["redis"]));
    assert!(fc.findings.is_empty(), "the exception respected: {:#?}", fc.findings);
    assert_eq!(fc.family.as_deref(), Some("php"));

    let v = passing(&s, "php-sdk", &["redis", "asb"]);
    let fc = broken(&v, "BQ604", "/bindings/1");
    let f = &fc.findings.iter().find(|f| f.code.id == "BQ604").unwrap().message;
    assert!(f.contains("ADR-0021") && f.contains("first token"), "the message states the family rule: {f}");
    // Its sections are out of scope, not required.
    assert_finding(&fc.findings, "BQ606", FILE, Some("/sections/asb"));
    assert_eq!(codes(&fc.findings), ["BQ604", "BQ606"]);
    // Another family may carry asb.
    let fc = check(&s, &passing(&s, "babelqueue-java-asb", &["asb"]));
    assert!(fc.findings.is_empty(), "{:#?}", fc.findings);
}

#[test]
fn an_exception_applies_whatever_the_letter_case_of_its_family() {
    // The family is derived case-insensitively (`PHP-SDK` is php), so an exception spelled
    // `PHP` names the same family: it must apply, never be silently dead.
    let copy = support::SuiteCopy::new();
    copy.edit_manifest(|m| m["exceptions"][0]["family"] = json!("PHP"));
    let s = Suite::load(copy.path()).expect("the copy loads");
    let fc = check(&s, &passing(&s, "php-sdk", &["redis", "asb"]));
    assert_eq!(fc.verdict(), Verdict::NotCompatible, "{:#?}", fc.findings);
    assert_eq!(codes(&fc.findings), ["BQ604", "BQ606"]);
    let fc = check(&s, &passing(&s, "php-sdk", &["redis"]));
    assert!(fc.findings.is_empty(), "the exception respected: {:#?}", fc.findings);
    assert_eq!(fc.family.as_deref(), Some("php"));
    assert_eq!(fc.excepted.len(), 1);
    let checker = Checker::new(&s).unwrap();
    let php: Vec<&String> = checker.families().iter().filter(|f| f.eq_ignore_ascii_case("php")).collect();
    assert_eq!(php.len(), 1, "one family, listed once: {:?}", checker.families());
}

#[test]
fn a_missing_required_section() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["sections"].as_object_mut().unwrap().shift_remove("sqs");
    let fc = broken(&v, "BQ605", "/sections");
    assert_eq!(codes(&fc.findings), ["BQ605"]);
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"].as_object_mut().unwrap().shift_remove("payload_schema");
    broken(&v, "BQ605", "/sections");
}

#[test]
fn an_out_of_scope_section_present() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["sections"]["pulsar"] = passing(&s, "x", &["pulsar"])["sections"]["pulsar"].clone();
    let fc = broken(&v, "BQ606", "/sections/pulsar");
    assert_eq!(codes(&fc.findings), ["BQ606"]);
}

#[test]
fn an_unknown_section() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["warp_drive"] = json!({"engage": {"status": "pass"}});
    let fc = broken(&v, "BQ607", "/sections/warp_drive");
    assert_eq!(codes(&fc.findings), ["BQ607"]);
}

#[test]
fn a_schema_violation() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["generated_at"] = json!("yesterday");
    let fc = broken(&v, "BQ602", "/generated_at");
    assert_eq!(codes(&fc.findings), ["BQ602"]);
}

/// A copy of the suite whose results schema is only its `$schema`: it allows anything.
/// A copy with its results schema reduced to `$schema`, labelled the canonical version's next
/// PATCH: a version the recording does not pin, so results check reads the copy's own schema (at
/// the recorded version it refuses such a copy,
/// `a_copy_whose_skip_policy_or_results_schema_is_not_the_published_one_is_refused`), and what
/// is tested is the checker's own floor beneath it.
fn with_an_empty_results_schema() -> (support::SuiteCopy, Suite) {
    let copy = support::SuiteCopy::new();
    copy.write("schema/results.schema.json", "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"}\n");
    support::set_version(copy.path(), &support::bumped("patch"));
    let weakened = Suite::load(copy.path()).unwrap();
    (copy, weakened)
}

/// Each of these was Compatible against a suite whose results schema had been weakened (to its
/// `$schema` alone, or with `required` emptied, or the bindings enum or a section's type
/// removed): the view reads a member of the wrong shape as absent, and an absent `bindings`
/// requires no binding section, an array `sections` misses no case. The checker judges the
/// members its verdict reads itself (BQ620), whatever the schema allows, and against the
/// canonical schema the schema's report of the same member gives way to it: one finding each.
#[test]
fn the_members_the_verdict_reads_are_judged_whatever_the_schema_allows() {
    let s = suite();
    let (_copy, weakened) = with_an_empty_results_schema();
    type Edit = fn(&mut Value);
    let cases: [(&str, &[&str], Edit, &str); 13] = [
        ("sdk absent", &[], |v| drop(v.as_object_mut().unwrap().shift_remove("sdk")), ""),
        ("sdk a number", &[], |v| v["sdk"] = json!(7), "/sdk"),
        ("version empty", &[], |v| v["version"] = json!(""), "/version"),
        (
            "conformance_version absent",
            &[],
            |v| drop(v.as_object_mut().unwrap().shift_remove("conformance_version")),
            "",
        ),
        ("conformance_version a number", &[], |v| v["conformance_version"] = json!(1.6), "/conformance_version"),
        ("bindings absent", &["sqs"], |v| drop(v.as_object_mut().unwrap().shift_remove("bindings")), ""),
        ("bindings a string", &["sqs", "otel"], |v| v["bindings"] = json!("sqs otel"), "/bindings"),
        ("a section name for a binding", &[], |v| v["bindings"] = json!(["rabbitmq"]), "/bindings/0"),
        ("a binding in the wrong case", &["sqs"], |v| v["bindings"] = json!(["sqs", "Kafka"]), "/bindings/1"),
        ("sections absent", &[], |v| drop(v.as_object_mut().unwrap().shift_remove("sections")), ""),
        ("sections an array", &[], |v| v["sections"] = json!([]), "/sections"),
        ("a section an array of ids", &[], |v| v["sections"]["cases"] = json!(["order-created"]), "/sections/cases"),
        ("the file an array", &[], |v| *v = json!([v.clone()]), ""),
    ];
    for (what, bindings, edit, at) in cases {
        for suite in [&s, &weakened] {
            let mut v = passing(suite, "babelqueue-python", bindings);
            edit(&mut v);
            let fc = check(suite, &v);
            assert_eq!(fc.verdict(), Verdict::NotCompatible, "{what}: {:#?}", fc.findings);
            assert_eq!(codes(&fc.findings), ["BQ620"], "{what}: one problem, one finding: {:#?}", fc.findings);
            let f = assert_finding(&fc.findings, "BQ620", FILE, Some(at));
            assert!(f.span.is_some(), "{what}: located: {f:?}");
        }
    }
    // The schema's report gives way only for the member judged: generated_at is the schema's.
    let mut v = passing(&s, "babelqueue-python", &[]);
    v.as_object_mut().unwrap().shift_remove("sdk");
    v["generated_at"] = json!("yesterday");
    let fc = check(&s, &v);
    assert_eq!(sorted_codes(&fc.findings), ["BQ602", "BQ620"], "{:#?}", fc.findings);
    assert_finding(&fc.findings, "BQ602", FILE, Some("/generated_at"));
    // A binding the floor knows still puts its sections in scope.
    let mut v = passing(&s, "babelqueue-python", &["sqs"]);
    v["bindings"] = json!(["sqs", "mqtt"]);
    v["sections"].as_object_mut().unwrap().shift_remove("delay");
    let fc = check(&s, &v);
    assert_eq!(sorted_codes(&fc.findings), ["BQ605", "BQ620"], "{:#?}", fc.findings);
}

fn sorted_codes(findings: &[Finding]) -> Vec<&str> {
    let mut c = codes(findings);
    c.sort_unstable();
    c
}

/// What the checker leaves to the schema (no verdict reads it) is still the schema's finding
/// against the canonical suite; a weakened schema lets it pass, and `validate` refuses such a
/// schema (BQ406, tests/gates.rs).
#[test]
fn what_no_verdict_reads_is_left_to_the_schema() {
    let s = suite();
    let (_copy, weakened) = with_an_empty_results_schema();
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit, &str); 3] = [
        ("generated_at absent", |v| drop(v.as_object_mut().unwrap().shift_remove("generated_at")), ""),
        ("a member the format does not name", |v| v["Bindings"] = json!([]), ""),
        ("bindings repeated", |v| v["bindings"] = json!(["sqs", "sqs"]), "/bindings"),
    ];
    for (what, edit, at) in cases {
        let mut v = passing(&s, "babelqueue-python", &["sqs"]);
        edit(&mut v);
        let fc = check(&s, &v);
        assert_eq!(codes(&fc.findings), ["BQ602"], "{what}: {:#?}", fc.findings);
        assert_finding(&fc.findings, "BQ602", FILE, Some(at));
        let mut w = passing(&weakened, "babelqueue-python", &["sqs"]);
        edit(&mut w);
        assert_eq!(check(&weakened, &w).verdict(), Verdict::Compatible, "{what}");
    }
}

/// A status that is none of pass, fail and skip (or none at all) is judged by the checker itself
/// (BQ619, which the schema's own finding at the status gives way to), so a suite whose results
/// schema was weakened to allow `ok` still calls such a file Not compatible.
#[test]
fn a_case_without_a_status_of_the_three_is_not_compatible_whatever_the_schema_allows() {
    let s = suite();
    for outcome in [json!({"status": "passed"}), json!({"reason": "ran"})] {
        let mut v = passing(&s, "babelqueue-python", &[]);
        v["sections"]["cases"]["urn-alias"] = outcome;
        let fc = broken(&v, "BQ619", "/sections/cases/urn-alias");
        assert_eq!(codes(&fc.findings), ["BQ619"], "{:#?}", fc.findings);
    }
    let copy = support::SuiteCopy::new();
    let schema = copy.read("schema/results.schema.json");
    let weak = schema.replacen("\"skip\"", "\"skip\", \"ok\"", 1);
    assert_ne!(weak, schema, "the results schema enumerates the statuses");
    copy.write("schema/results.schema.json", weak);
    // A version the recording does not pin (at the recorded version the copy is refused outright).
    support::set_version(copy.path(), &support::bumped("patch"));
    let weakened = Suite::load(copy.path()).unwrap();
    let mut v = passing(&weakened, "babelqueue-python", &[]);
    v["sections"]["cases"]["urn-alias"] = json!({"status": "ok"});
    let fc = check(&weakened, &v);
    assert_eq!(fc.verdict(), Verdict::NotCompatible, "{:#?}", fc.findings);
    assert_eq!(codes(&fc.findings), ["BQ619"], "{:#?}", fc.findings);
}

#[test]
fn a_version_mismatch() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["conformance_version"] = json!("1.5.0");
    v["sections"]["cases"].as_object_mut().unwrap().shift_remove("urn-alias");
    let fc = broken(&v, "BQ603", "/conformance_version");
    assert_eq!(codes(&fc.findings), ["BQ603"], "ids of another version are not checked");
    let m = &fc.findings[0].message;
    assert!(m.contains("ran suite 1.5.0") && m.contains(s.version().unwrap()), "{m}");
    // Red team F8: its skips were not judged, so the counts do not say "0 allowed".
    v["sections"]["encode_reject"]["reject-repeated-key"] = json!({"status": "skip", "reason": "ADR-0031"});
    let fc = check(&s, &v);
    assert_eq!(
        fc.counts_text(),
        format!(
            "{} pass, 0 fail, 1 skip (the skip policy was not applied: the file ran another suite version)",
            fc.counts.pass
        )
    );
    let m = bqsuite::results::Matrix::build(&s, std::slice::from_ref(&fc));
    assert_eq!(m.columns[0].counts_text(), fc.counts_text(), "the report says the same");
    v["conformance_version"] = json!(s.version().unwrap());
    assert!(check(&s, &v).counts_text().ends_with("1 skip (1 allowed by the skip policy)"));
}

#[test]
fn the_github_job_summary_escapes_what_the_file_says() {
    // Red team F4: a failing case's reason with an image and an HTML heading was rendered as a
    // green badge and a heading in the job summary; sdk and version went in raw too.
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let mut v = passing(&s, "babelqueue-python <h1>x</h1>", &[]);
    v["version"] = json!("[1.0](https://evil.invalid)");
    v["sections"]["trim"]["trim-make-urn-space-padded"] = json!({"status": "fail", "reason":
        "![ok](https://img.shields.io/badge/conformance-Compatible-brightgreen) <h2>All results files Compatible</h2> re-run at https://evil.example/login or www.evil.example cc @octocat $\\color{green}\\textsf{Compatible}$"});
    let f = write(dir.path(), "r.json", &v);
    let summary = dir.path().join("summary.md");
    let root = repo();
    let o = support::bqsuite_env(
        dir.path(),
        &["results", "check", &f, "--suite", root.to_str().unwrap(), "--format", "github"],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let md = std::fs::read_to_string(&summary).unwrap();
    let unescaped = |raw: &str| md.match_indices(raw).any(|(i, _)| !md[..i].ends_with('\\'));
    for raw in ["![ok]", "<h2>", "<h1>", "[1.0]"] {
        assert!(!unescaped(raw), "{raw} unescaped in {md}");
    }
    assert!(md.contains("\\<h2\\>All results files Compatible\\</h2\\>"), "{md}");
    // Red team F6: nor a bare link, a mention or a formula.
    assert!(
        md.contains("re-run at https\\://evil.example/login or www\\.evil.example cc \\@octocat \\$\\\\color{green}"),
        "{md}"
    );
    assert!(
        // The space is no part of a well-formed sdk (BQ620), so it shows escaped too.
        md.contains(
            "- r.json: Not compatible (babelqueue-python\\\\u0020\\<h1\\>x\\</h1\\> \\[1.0\\](https\\://evil.invalid)"
        ),
        "{md}"
    );
}

/// User journey: a skip or a failure whose `reason` is there but is no string was said to
/// have "no reason" beside the schema's finding about that very reason; the message now says
/// what it is (and it still counts as none: an array holding "ADR-0033" cites nothing).
#[test]
fn a_reason_that_is_no_string_is_named_as_such() {
    let s = suite();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["trim"]["trim-make-urn-lf-padded"] = json!({"status": "skip", "reason": ["ADR-0032"]});
    v["sections"]["cases"]["order-created"] = json!({"status": "fail", "reason": 31});
    let fc = check(&s, &v);
    let said: Vec<&str> = fc.findings.iter().map(|f| f.message.as_str()).collect();
    assert!(
        said.iter().any(|m| m.contains("trim-make-urn-lf-padded")
            && m.contains("a reason that is an array, not text, so no reason")),
        "{said:#?}"
    );
    assert!(said.iter().any(|m| m.ends_with("order-created failed: (its reason is a number, not text)")), "{said:#?}");
    assert_eq!(fc.verdict(), Verdict::NotCompatible);
}

#[test]
fn a_file_that_is_not_json() {
    let s = suite();
    let fc = check_text(&s, b"{\n  \"sdk\": \"x\",\n  oops\n}\n");
    let f = assert_finding(&fc.findings, "BQ601", FILE, None);
    assert_eq!(f.span.map(|s| (s.line, s.column)), Some((3, 3)));
    assert_eq!(fc.verdict(), Verdict::NotCompatible);
    let fc = check_text(&s, b"{\"sdk\": \"\xff\"}");
    assert_finding(&fc.findings, "BQ601", FILE, None);
    // A lone surrogate escape (Python's json.dumps writes one) is named as such, where it is; a
    // syntax error before it is still the syntax error.
    let fc = check_text(&s, b"{\n  \"sdk\": \"x\",\n  \"reason\": \"a \\ud800 b\"\n}\n");
    let f = assert_finding(&fc.findings, "BQ601", FILE, None);
    assert!(f.message.contains("\\ud800 is a lone surrogate escape"), "{}", f.message);
    assert_eq!(f.span.map(|s| (s.line, s.column)), Some((3, 16)));
    let fc = check_text(&s, b"{\n  oops,\n  \"reason\": \"a \\udc00 b\"\n}\n");
    let f = assert_finding(&fc.findings, "BQ601", FILE, None);
    assert!(!f.message.contains("surrogate"), "{}", f.message);
    assert_eq!(f.span.map(|s| (s.line, s.column)), Some((2, 3)));
}

#[test]
fn a_file_written_with_a_byte_order_mark_or_as_utf16_is_told_so() {
    let s = suite();
    let good = serde_json::to_string_pretty(&passing(&s, "babelqueue-dotnet", &[])).unwrap();
    assert_eq!(check_text(&s, good.as_bytes()).verdict(), Verdict::Compatible);
    let utf16 = |bom: bool, be: bool| -> Vec<u8> {
        let units = (if bom { Some(0xFEFF) } else { None }).into_iter().chain(good.encode_utf16());
        units.flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() }).collect()
    };
    let with_bom = [&[0xEF, 0xBB, 0xBF][..], good.as_bytes()].concat();
    for (what, bytes, says) in [
        ("a UTF-8 BOM", with_bom, "starts with a UTF-8 byte-order mark (EF BB BF)"),
        ("UTF-16 LE with its BOM", utf16(true, false), "is UTF-16, not UTF-8"),
        ("UTF-16 BE with its BOM", utf16(true, true), "is UTF-16, not UTF-8"),
        ("UTF-16 LE without a BOM", utf16(false, false), "is UTF-16, not UTF-8"),
    ] {
        let fc = check_text(&s, &bytes);
        assert_eq!(codes(&fc.findings), ["BQ601"], "{what}: {:#?}", fc.findings);
        assert!(fc.findings[0].message.contains(says), "{what}: {}", fc.findings[0].message);
        assert_eq!(fc.findings[0].span.map(|s| (s.line, s.column)), Some((1, 1)), "{what}");
        assert_eq!(fc.verdict(), Verdict::NotCompatible, "{what}");
    }
}

// --- the command line ---

fn write(dir: &std::path::Path, name: &str, v: &Value) -> String {
    std::fs::write(dir.join(name), serde_json::to_string_pretty(v).unwrap()).unwrap();
    name.to_owned()
}

#[test]
fn cli_exit_codes_and_verdict_lines() {
    let suite_v = support::version();
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let root = repo();
    let suite_arg = root.to_str().unwrap();
    let good = write(dir.path(), "good.json", &passing(&s, "babelqueue-go", &["sqs"]));
    let mut v = passing(&s, "babelqueue-node", &[]);
    v["sections"]["cases"]["urn-alias"] = json!({"status": "fail", "reason": "rejected"});
    let bad = write(dir.path(), "bad.json", &v);

    let o = bqsuite(dir.path(), &["results", "check", &good, "--suite", suite_arg]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let n =
        |v: &Value| v["sections"].as_object().unwrap().values().map(|c| c.as_object().unwrap().len()).sum::<usize>();
    let good_n = n(&passing(&s, "babelqueue-go", &["sqs"]));
    assert!(
        out.contains(&format!(
            "good.json: Compatible (babelqueue-go 2.4.1, suite {suite_v}): {good_n} pass, 0 fail, 0 skip\n"
        )),
        "{out}"
    );

    let o = bqsuite(dir.path(), &["results", "check", &good, &bad, "--suite", suite_arg]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("error[BQ612 results-case-failed]: cases / urn-alias failed: rejected"), "{out}");
    let bad_n = n(&v) - 1;
    assert!(
        out.contains(&format!(
            "bad.json: Not compatible (babelqueue-node 2.4.1, suite {suite_v}): {bad_n} pass, 1 fail, 0 skip; BQ612 results-case-failed ×1\n"
        )),
        "every verdict line shows the counts: {out}"
    );

    // A file that cannot be read is exit 2, and the others are still judged (user report: one
    // missing file hid the verdicts of the good ones).
    let o = bqsuite(dir.path(), &["results", "check", &good, "missing.json", &bad, "--suite", suite_arg]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bqsuite: error: cannot read missing.json: "), "{err}");
    assert!(!err.contains("globs"), "no glob, no glob hint: {err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("good.json: Compatible (") && out.contains("bad.json: Not compatible ("), "{out}");
    assert!(
        out.contains(&format!("2 results files against suite {suite_v} at "))
            && out.contains("; 1 more could not be read"),
        "{out}"
    );
    let o = bqsuite(dir.path(), &["results", "check", "missing.json", "--suite", suite_arg]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(o.stdout.is_empty(), "nothing to check, nothing reported: {}", transcript(&o));
    let o = bqsuite(dir.path(), &["results", "check", &good, "missing.json", "--suite", suite_arg, "--format", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["verdicts"][0]["verdict"], "Compatible");
    assert!(doc["unread"][0].as_str().unwrap().starts_with("cannot read missing.json: "), "{doc}");
    let summary = dir.path().join("summary.md");
    let o = support::bqsuite_env(
        dir.path(),
        &["results", "check", &good, "missing.json", "--suite", suite_arg, "--format", "github"],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("- good.json: Compatible") && md.contains("- not checked: cannot read missing.json: "), "{md}");
    // A pattern is not expanded (user report: `results: build/*.json` said only "cannot read").
    let o = bqsuite(dir.path(), &["results", "check", "build/*.json", "--suite", suite_arg]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(
            "cannot read build/*.json: No such file or directory (os error 2); the path holds *, ? or [, and globs are \
             not expanded (each path is read as written): name each file"
        ),
        "{}",
        transcript(&o)
    );

    std::fs::write(dir.path().join("garbage.json"), "not json").unwrap();
    let o = bqsuite(dir.path(), &["results", "check", "garbage.json", "--suite", suite_arg, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "an unparsable file is a finding: {}", transcript(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["findings"][0]["code"], "BQ601");
    assert_eq!(doc["verdicts"][0]["verdict"], "Not compatible");
    assert_eq!(doc["verdicts"][0]["compatible"], false);

    let o = bqsuite(dir.path(), &["results", "check", &bad, "--suite", suite_arg, "--format", "github"]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("::error file=bad.json,line="), "{out}");
}

#[test]
fn cli_run_output_passes_results_check() {
    let dir = tempfile::tempdir().unwrap();
    let o = bqsuite(&repo(), &["run", "--out", dir.path().join("ref.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let o = bqsuite(&repo(), &["results", "check", dir.path().join("ref.json").to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", transcript(&o)));
    assert_eq!(doc["findings"], json!([]));
    assert_eq!(doc["verdicts"][0]["sdk"], "bqsuite-reference");
    assert_eq!(doc["verdicts"][0]["verdict"], "Compatible", "{doc:#}");
}

/// User report (a false green): the reference core's results (`bqsuite run` without --sdk, or
/// the adapter `bqsuite adapter`) and a sibling SDK's file are Compatible, so a CI that checked
/// them went green. With --sdk NAME every file must name NAME as its sdk (BQ622, at /sdk).
#[test]
fn a_file_of_another_sdk_is_not_compatible_under_sdk() {
    let s = suite();
    let text = serde_json::to_string_pretty(&passing(&s, "babelqueue-go", &["sqs"])).unwrap();
    let with = |sdk: &str| {
        Checker::new(&s)
            .unwrap()
            .with_options(CheckOptions { sdk: Some(sdk.to_owned()), ..CheckOptions::default() })
            .check(&Source { file: FILE.into(), bytes: text.clone().into_bytes() })
    };
    assert!(with("babelqueue-go").findings.is_empty(), "its own name: Compatible");
    let fc = with("babelqueue-node");
    assert_eq!(fc.verdict(), Verdict::NotCompatible);
    assert_eq!(codes(&fc.findings), ["BQ622"]);
    let f = assert_finding(&fc.findings, "BQ622", FILE, Some("/sdk"));
    assert!(f.span.is_some(), "located: {f:?}");
    assert_eq!(
        f.message,
        "sdk is \"babelqueue-go\", not \"babelqueue-node\" (--sdk): this is another SDK's results file, so its verdict \
         says nothing about babelqueue-node"
    );
    assert!(with("Babelqueue-go").findings.iter().any(|f| f.code.id == "BQ622"), "names are compared exactly");
    // An sdk that is no string is BQ620's alone.
    let mut v = passing(&s, "babelqueue-go", &["sqs"]);
    v["sdk"] = json!(7);
    let fc = Checker::new(&s)
        .unwrap()
        .with_options(CheckOptions { sdk: Some("babelqueue-go".into()), ..CheckOptions::default() })
        .check(&Source { file: FILE.into(), bytes: serde_json::to_vec(&v).unwrap() });
    assert_eq!(codes(&fc.findings), ["BQ620"], "{:#?}", fc.findings);

    // The command line: the reference run's own file, told it is babelqueue-node's.
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("ref.json");
    let o = bqsuite(&repo(), &["run", "--out", reference.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let o = bqsuite(
        &repo(),
        &["results", "check", reference.to_str().unwrap(), "--sdk", "babelqueue-node", "--format", "github"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        // The file is outside the workspace (the repository): no file=, its path leads the message.
        out.lines().any(|l| l.starts_with("::error title=BQ622 results-other-sdk::")
            && l.contains(&format!(
                "{}:2:10: sdk is \"bqsuite-reference\", the reference core's name",
                reference.display()
            ))
            && l.contains("`bqsuite adapter`")
            && l.ends_with("(at /sdk)")),
        "{out}"
    );
    assert!(out.contains(": Not compatible (bqsuite-reference "), "{out}");
    let o = bqsuite(&repo(), &["results", "check", reference.to_str().unwrap(), "--sdk", "bqsuite-reference"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    // A name no file can have (the action trims its input; a hand-written one may not be) is
    // a usage error, not a finding in every file.
    for bad in ["babelqueue-node\n", "babelqueue node", "", "node\u{1b}[31m", "node\u{202e}"] {
        let o = bqsuite(&repo(), &["results", "check", reference.to_str().unwrap(), "--sdk", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("is not a package name"), "{}", transcript(&o));
        // The value is shown escaped, never raw (clap's own message would echo it).
        assert!(!err.contains(['\u{1b}', '\u{202e}']) && err.trim_end().lines().count() == 1, "{err:?}");
    }
}

/// `--print-known-failing` writes the list a file's failures need, in the manifest's order,
/// and that list read back holds for the file (exit 0); a case the suite lacks is left out (its
/// entry would be stale); a file that is no run of this suite gets none.
#[test]
fn print_known_failing_writes_the_list_that_holds() {
    let suite_v = support::version();
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["trim"]["trim-make-urn-space-padded"] = json!({"status": "fail", "reason": "x"});
    v["sections"]["cases"]["order-created"] = json!({"status": "fail", "reason": "lang is null"});
    v["sections"]["cases"]["no-such-case"] = json!({"status": "fail", "reason": "y"});
    std::fs::write(dir.path().join(FILE), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let repo = repo();
    let suite_arg = ["--suite", repo.to_str().unwrap()];
    let o = bqsuite(dir.path(), &[&["results", "check", FILE, "--print-known-failing"][..], &suite_arg].concat());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let list = String::from_utf8(o.stdout.clone()).unwrap();
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 4, "{list}");
    // What no line can hold is said, so the list is not taken for the whole story.
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("also has 1 error finding(s) no known-failing line can name (BQ609 ×1)"),
        "{}",
        transcript(&o)
    );
    assert!(
        lines[0].starts_with(&format!("# Known failures of babelqueue-python 2.4.1 against suite {suite_v}")),
        "{list}"
    );
    assert_eq!(&lines[2..], ["cases\torder-created", "trim\ttrim-make-urn-space-padded"], "{list}");
    std::fs::write(dir.path().join("known.txt"), &list).unwrap();
    let o =
        bqsuite(dir.path(), &[&["results", "check", FILE, "--known-failing", "known.txt"][..], &suite_arg].concat());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("2 listed, 2 still failing"), "{out}");
    // The case the suite lacks is a failure no list can hold (BQ609), so the command still fails.
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(out.contains("BQ609"), "{out}");
    // One file only, and not beside a list or another format.
    let o = bqsuite(dir.path(), &[&["results", "check", FILE, FILE, "--print-known-failing"][..], &suite_arg].concat());
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let o = bqsuite(
        dir.path(),
        &[&["results", "check", FILE, "--print-known-failing", "--known-failing", "known.txt"][..], &suite_arg]
            .concat(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    // A file that is no run of this suite gets no list (it would be empty, or another
    // version's), and the command it suggests names the suite.
    for (text, why) in [("{\"sdk\": 1}", "BQ620"), ("{", "BQ601")] {
        std::fs::write(dir.path().join("other.json"), text).unwrap();
        let o = bqsuite(
            dir.path(),
            &[&["results", "check", "other.json", "--print-known-failing"][..], &suite_arg].concat(),
        );
        assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        let suggested = format!("`bqsuite results check other.json --suite {}`", repo.display());
        assert!(err.contains(why) && err.contains(&suggested), "{err}");
        assert!(o.stdout.is_empty(), "{}", transcript(&o));
    }
    v["conformance_version"] = json!("1.5.0");
    std::fs::write(dir.path().join("old.json"), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = bqsuite(dir.path(), &[&["results", "check", "old.json", "--print-known-failing"][..], &suite_arg].concat());
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("BQ603"), "{}", transcript(&o));
}

/// `--known-failing FILE`: the verdict stands, the exit code follows the list. A file whose
/// every failure is listed, and whose every entry still fails, exits 0 while it is Not
/// compatible; an entry that passes, is skipped, is missing or names no case is BQ621 at its
/// line; a failure the list does not name still fails the command; a list that does not read
/// is exit 2, nothing checked.
#[test]
fn a_known_failing_list_sets_the_exit_code_never_the_verdict() {
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["cases"]["order-created"] = json!({"status": "fail", "reason": "lang is null"});
    v["sections"]["trim"]["trim-make-urn-space-padded"] = json!({"status": "fail", "reason": "x"});
    std::fs::write(dir.path().join(FILE), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let run = |list: &str, format: &str| {
        std::fs::write(dir.path().join("known.txt"), list).unwrap();
        let repo = repo();
        bqsuite(
            dir.path(),
            &[
                "results",
                "check",
                FILE,
                "--suite",
                repo.to_str().unwrap(),
                "--known-failing",
                "known.txt",
                "--format",
                format,
            ],
        )
    };
    let both = "# the trim bug is tracked\ncases\torder-created\ntrim   trim-make-urn-space-padded\n";

    let o = run(both, "human");
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("results.json: Not compatible (babelqueue-python 2.4.1"), "the verdict stands: {out}");
    assert!(out.contains("failed: lang is null (a known failure: known.txt line 2)"), "{out}");
    // Still an error in the report (the verdict's own count); only a CI annotation is a warning.
    assert!(
        out.contains("error[BQ612 results-case-failed]: cases / order-created failed: lang is null (a known"),
        "{out}"
    );
    let o = run(both, "github");
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.lines().any(|l| l.starts_with("::warning file=results.json,") && l.contains("BQ612")), "{out}");
    assert!(!out.lines().any(|l| l.starts_with("::error")), "a green job carries no error annotation: {out}");
    assert!(
        out.contains("results.json: known failures (known.txt): 2 listed, 2 still failing; the list holds"),
        "{out}"
    );

    // User study: a line written as BQ612 names the case (`cases / order-created`) was read as
    // the id `/ order-created`, and BQ621 said the suite has no such case. It is the same case.
    let o = run("cases / order-created\ntrim / trim-make-urn-space-padded\n", "human");
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("failed: lang is null (a known failure: known.txt line 1)"), "{out}");
    assert!(!out.contains("BQ621"), "{out}");

    // The JSON report says the same, and keeps the verdict.
    let o = run(both, "json");
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["verdicts"][0]["verdict"], "Not compatible");
    // Red team F6: a consumer counting errors sees the verdict's, list or no list.
    assert_eq!(doc["summary"]["errors"], 2, "{doc}");
    // Each listed failure says so as data, with the list's line (stop 44's newcomer had to
    // parse the message to tell a known failure from a new one).
    let marks: Vec<&Value> = doc["findings"].as_array().unwrap().iter().map(|f| &f["known_failure"]).collect();
    assert_eq!(marks, [&json!({"list": "known.txt", "line": 2}), &json!({"list": "known.txt", "line": 3})], "{doc}");
    assert_eq!(
        doc["known_failing"]["files"][0],
        json!({"file": FILE, "listed": 2, "still_failing": 2, "stale": 0, "unlisted_errors": 0, "holds": true})
    );

    // A failure the list does not name fails the command.
    let o = run("cases order-created\n", "human");
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("1 error finding(s) the list does not name"),
        "{}",
        transcript(&o)
    );

    // Entries that do not fail are stale, each at its line, whatever the reason.
    let o = run(
        &format!(
            "{both}cases urn-alias\nsqs attempts_reconciliation/first-delivery\ncases no-such-case\n\
             cases dead-lettered # flaky on CI\n"
        ),
        "json",
    );
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let stale: Vec<(String, u64, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "BQ621")
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let says = |entry: &str, why: &str| {
        format!("{entry} is listed as a known failure, but it {why} in results.json: take its line out of the list")
    };
    assert_eq!(
        stale,
        [
            ("known.txt".to_owned(), 4, says("cases / urn-alias", "passed")),
            ("known.txt".to_owned(), 5, says("sqs / attempts_reconciliation/first-delivery", "was not reported")),
            // A typo, or a note after the id (stop 44's newcomer): no "in results.json", and how to
            // find the right id.
            (
                "known.txt".to_owned(),
                6,
                "cases / no-such-case is listed as a known failure, but the suite has no such case: correct the id \
                 (`bqsuite ids --section cases` lists them; a line is the section, white space and the id, or \
                 `section / id` as messages print a case) or take its line out of the list"
                    .to_owned()
            ),
            (
                "known.txt".to_owned(),
                7,
                "cases / dead-lettered # flaky on CI is listed as a known failure, but the suite has no such case \
                 (a `#` starts a comment only at the start of a line, so a note after an id is part of it): correct \
                 the id (`bqsuite ids --section cases` lists them; a line is the section, white space and the id, \
                 or `section / id` as messages print a case) or take its line out of the list"
                    .to_owned()
            ),
        ]
    );
    assert_eq!(doc["verdicts"][0]["verdict"], "Not compatible");

    // A list that does not read: exit 2, naming the file and the line.
    let o = run("cases order-created\ncases\n", "human");
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--known-failing: known.txt:2: \"cases\" names no case"),
        "{}",
        transcript(&o)
    );
    let o = run("cases order-created\ncases order-created\n", "human");
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("known.txt:2: cases / order-created is listed already on line 1")
    );

    // Without a list, nothing changes: Not compatible is exit 1.
    let repo = repo();
    let o = bqsuite(dir.path(), &["results", "check", FILE, "--suite", repo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
}

/// Red team F4: in `--format github` a line that starts with `::` is a workflow command, and a
/// verdict line starts with the results file's name.
#[test]
fn a_results_file_named_like_a_workflow_command_is_no_command() {
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let name = "::error title=Forged::all good.json";
    std::fs::write(
        dir.path().join(name),
        serde_json::to_string_pretty(&passing(&s, "babelqueue-python", &[])).unwrap(),
    )
    .unwrap();
    let repo = repo();
    let o =
        bqsuite(dir.path(), &["results", "check", "--suite", repo.to_str().unwrap(), "--format", "github", "--", name]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // The runner trims a line's leading white space before it looks for `::`: the verdict
    // line's `::` is written `\u003a:` (red team of stop 53), not indented.
    assert!(out.contains("\\u003a:error title=Forged::all good.json: Compatible"), "{out}");
    assert!(!out.lines().any(|l| l.trim_start().starts_with("::")), "{out}");
}

/// A zero-width space in `sdk` is escaped in the finding about it (BQ620) but was printed raw
/// in the verdict line, where it hides (stop 44's newcomer): `sdk` and `version` are printable
/// ASCII when well-formed, so the verdict line shows anything else as `\uXXXX`.
#[test]
fn the_verdict_line_shows_an_invisible_character_in_the_sdk_name() {
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "r.json", &passing(&s, "babelqueue-py\u{200b}thon", &[]));
    let o = bqsuite(dir.path(), &["results", "check", &f, "--suite", repo().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Not compatible (babelqueue-py\\u200bthon "), "{out}");
    assert!(!out.contains('\u{200b}'), "{out}");
}

/// Red team L1 of stop 44: a failure reported under an id the suite lacks was marked a known
/// failure while its list entry was stale; the advice for a section the suite lacks named a
/// command that refuses it; and a stale entry the suite has no case for was reported once per
/// results file, identically.
#[test]
fn a_listed_case_the_suite_lacks_is_stale_once_and_never_a_known_failure() {
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["trim"]["bogus-id"] = json!({"status": "fail", "reason": "q"});
    v["sections"]["extra_sec"] = json!({"x": {"status": "fail", "reason": "w"}});
    let a = write(dir.path(), "a.json", &v);
    let b = write(dir.path(), "b.json", &v);
    std::fs::write(dir.path().join("known.txt"), "trim bogus-id\nextra_sec x\n").unwrap();
    let root = repo();
    let args = ["results", "check", &a, &b, "--suite", root.to_str().unwrap(), "--known-failing", "known.txt"];
    let o = bqsuite(dir.path(), &[&args[..], &["--format", "json"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f.get("known_failure").is_none()), "{doc}");
    let stale: Vec<&str> =
        findings.iter().filter(|f| f["code"] == "BQ621").map(|f| f["message"].as_str().unwrap()).collect();
    assert_eq!(stale.len(), 2, "once for the list, not once per file: {stale:#?}");
    assert!(stale[0].contains("(`bqsuite ids --section trim` lists them;"), "{}", stale[0]);
    assert!(stale[1].contains("the suite has no such section; `bqsuite ids` lists every case"), "{}", stale[1]);
}

/// A `pass` under a misspelt id was counted as one more case passed ("210 pass" with 209 real
/// ones; stop 44's newcomer): the verdict line says how many counted cases the suite lacks.
#[test]
fn the_counts_say_how_many_cases_are_under_ids_the_suite_lacks() {
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let mut v = passing(&s, "babelqueue-python", &[]);
    v["sections"]["trim"]["trim-make-urn-space-paded"] = json!({"status": "pass"});
    let f = write(dir.path(), "r.json", &v);
    let o = bqsuite(dir.path(), &["results", "check", &f, "--suite", repo().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("0 skip, 1 of them under case ids the suite does not have; BQ609"),
        "{}",
        transcript(&o)
    );
}

/// User study: after an adapter crash, `results check --format github` annotated the first ten
/// BQ612 in the file's order, and those were cases only *not run* after the adapter failed,
/// while the case whose call crashed it went unannotated. Every format now lists an adapter
/// run's failures as `run`'s digest does: the incident's case first, then every other finding
/// in the file's order, then the cases not run, so the incident is within GitHub's ten.
#[test]
fn an_adapters_incident_comes_before_the_cases_not_run_after_it_in_every_format() {
    let s = suite();
    let dir = tempfile::tempdir().unwrap();
    let mut v = passing(&s, "babelqueue-python", &[]);
    let not_run = "transport: not run: the adapter failed 2 times and is not started again (--max-restarts 1)";
    // Twelve cases not run, in the file before the incident (a runner need not write sections in
    // the order it ran them), then a failure of the case's own, then the incident.
    let first: Vec<(String, String)> = v["sections"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(section, cases)| cases.as_object().unwrap().keys().map(move |id| (section.clone(), id.clone())))
        .take(12)
        .collect();
    for (section, id) in &first {
        v["sections"][section][id] = json!({"status": "fail", "reason": not_run});
    }
    let trim: Vec<String> = v["sections"]["trim"].as_object().unwrap().keys().cloned().collect();
    v["sections"]["trim"][&trim[0]] = json!({"status": "fail", "reason": "expected 1, got 2"});
    let incident = "transport: adapter: call 15 (make): the adapter exited (exit status: 3) before answering";
    v["sections"]["trim"][&trim[trim.len() - 1]] = json!({"status": "fail", "reason": incident});
    let mut order = vec![format!("/sections/trim/{}", trim[trim.len() - 1]), format!("/sections/trim/{}", trim[0])];
    let escaped = |id: &str| id.replace('~', "~0").replace('/', "~1");
    order.extend(first.iter().map(|(section, id)| format!("/sections/{section}/{}", escaped(id))));
    assert!(!order[2].starts_with("/sections/trim/"), "the cases not run come first in the file: {order:?}");

    // The library: the findings in that order.
    let fc = check(&s, &v);
    let pointers: Vec<&str> = fc.findings.iter().filter_map(|f| f.pointer.as_deref()).collect();
    assert_eq!(pointers, order, "{:#?}", fc.findings);
    assert!(fc.findings.iter().all(|f| f.code.id == "BQ612"));

    let f = write(dir.path(), "r.json", &v);
    let root = repo();
    let args = |format: &'static str| ["results", "check", &f, "--suite", root.to_str().unwrap(), "--format", format];
    // Human: the error lines in that order.
    let o = bqsuite(dir.path(), &args("human"));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let human = String::from_utf8_lossy(&o.stdout);
    let at: Vec<&str> =
        human.lines().filter_map(|l| l.strip_prefix("  --> ")?.split_once(" (")?.1.strip_suffix(')')).collect();
    assert_eq!(at, order, "{human}");
    // JSON: the findings array in that order.
    let o = bqsuite(dir.path(), &args("json"));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let at: Vec<&str> = doc["findings"].as_array().unwrap().iter().map(|f| f["pointer"].as_str().unwrap()).collect();
    assert_eq!(at, order, "{doc:#}");
    // GitHub: the incident is annotated (the first of the ten), the cases not run fill the rest,
    // and the job summary's table has the same order.
    let summary = dir.path().join("summary.md");
    let o = support::bqsuite_env(dir.path(), &args("github"), &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let github = String::from_utf8_lossy(&o.stdout);
    let annotated: Vec<&str> = github
        .lines()
        .filter(|l| l.starts_with("::error "))
        .filter_map(|l| l.rsplit_once("(at ")?.1.strip_suffix(')'))
        .collect();
    assert_eq!(annotated, order[..10], "{github}");
    let md = std::fs::read_to_string(&summary).unwrap();
    // (A row names its case by where it is, the pointer escaped for Markdown.)
    let rows: Vec<usize> = fc
        .findings
        .iter()
        .map(|f| f.span.unwrap())
        .map(|at| md.find(&format!("| r.json:{}:{} (", at.line, at.column)).unwrap_or_else(|| panic!("{at:?}: {md}")))
        .collect();
    assert!(rows.is_sorted(), "{rows:?}: {md}");
}
