//! One test per validate rule: break a copy of the suite in one way, assert the finding's code,
//! file and pointer. The canonical suite itself must be clean.

#[macro_use]
mod support;

use serde_json::{Value, json};
use support::{SuiteCopy, assert_finding, history};

#[test]
fn the_canonical_suite_is_clean() {
    let findings = findings!(SuiteCopy::new());
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn invalid_json_in_a_fixture() {
    let s = SuiteCopy::new();
    s.write("fixtures/order-created.json", "{\n  \"job\": \"urn:x\",\n  oops\n}\n");
    let f = assert_finding(&findings!(s), "BQ001", "fixtures/order-created.json", None);
    assert_eq!(f.span.map(|s| (s.line, s.column)), Some((3, 3)));
}

#[test]
fn a_case_whose_fixture_is_missing() {
    let s = SuiteCopy::new();
    s.remove("fixtures/urn-alias.json");
    let f = assert_finding(&findings!(s), "BQ301", "manifest.json", Some("/cases/1/file"));
    assert!(f.span.is_some(), "line:column located");
}

#[test]
fn a_case_whose_file_is_a_suite_file_outside_fixtures() {
    // Each exists in the suite, so the reference was taken as found: LICENSE and
    // CONFORMANCE_VERSION are no fixture (`run` fails the case), and sync-targets.json reaches
    // no release or vendored copy; validate and release passed all three.
    let s = SuiteCopy::new();
    std::fs::copy(support::repo().join("sync-targets.json"), s.path().join("sync-targets.json")).unwrap();
    s.edit_manifest(|m| {
        m["cases"][1]["file"] = json!("LICENSE");
        m["cases"][5]["file"] = json!("sync-targets.json");
        m["cases"][6]["file"] = json!("CONFORMANCE_VERSION");
    });
    for rel in ["fixtures/urn-alias.json", "fixtures/invalid-missing-urn.json", "fixtures/invalid-wrong-case-job.json"]
    {
        s.remove(rel);
    }
    let findings = findings!(s);
    for (i, file) in [(1, "LICENSE"), (5, "sync-targets.json"), (6, "CONFORMANCE_VERSION")] {
        let f = assert_finding(&findings, "BQ301", "manifest.json", Some(&format!("/cases/{i}/file")));
        assert!(f.message.starts_with(&format!("{file} is not a fixture")), "{}", f.message);
    }
}

#[test]
fn an_expected_dead_letter_that_is_not_an_object() {
    // Compared only when it is an object: "failed" asserted nothing, and validate passed it.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["cases"][2]["expect"]["dead_letter"] = json!("failed"));
    let f = assert_finding(&findings!(s), "BQ305", "manifest.json", Some("/cases/2/expect/dead_letter"));
    assert!(f.message.contains("an object"), "{}", f.message);
}

#[test]
fn a_misspelt_member_of_expect() {
    // No runner compares `dead_leter`, so the case pinned nothing about the dead-letter block
    // and validate passed it: now the case-field lint (BQ305), with the member it was meant to be.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["cases"][0]["expect"]["dead_leter"] = json!({"exception": "X"}));
    let findings = findings!(s);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = assert_finding(&findings, "BQ305", "manifest.json", Some("/cases/0/expect/dead_leter"));
    assert!(f.message.contains("did you mean \"dead_letter\"?"), "{}", f.message);
}

#[test]
fn a_valid_case_without_expect() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["cases"][0].as_object_mut().unwrap().shift_remove("expect");
    });
    assert_finding(&findings!(s), "BQ302", "manifest.json", Some("/cases/0"));
}

#[test]
fn an_invalid_case_without_reason() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["cases"][4].as_object_mut().unwrap().shift_remove("reason");
    });
    assert_finding(&findings!(s), "BQ303", "manifest.json", Some("/cases/4"));
}

#[test]
fn conformance_version_not_semver() {
    let s = SuiteCopy::new();
    s.write("CONFORMANCE_VERSION", "1.6\n");
    let findings = findings!(s);
    assert_finding(&findings, "BQ102", "CONFORMANCE_VERSION", None);
    assert_finding(&findings, "BQ103", "manifest.json", Some("/conformance_version"));
}

#[test]
fn a_version_too_long_to_name_a_release_is_a_finding_and_the_longest_allowed_builds() {
    let with_version = |v: &str| {
        let s = SuiteCopy::new();
        support::set_version(s.path(), v);
        s
    };
    let v = support::version();
    let longest = format!("{v}-{}", "a".repeat(64 - v.len() - 1));
    let s = with_version(&format!("{longest}b"));
    let findings = s.validate();
    let f = assert_finding(&findings, "BQ102", "CONFORMANCE_VERSION", None);
    assert!(f.message.contains("65 characters long, more than 64"), "{}", f.message);
    assert_eq!(findings.len(), 1, "{findings:#?}");

    // 64 characters, with a suite path of the longest portable length beneath the root: clean,
    // and release builds it.
    let s = with_version(&longest);
    with_fixture_at(&s, &format!("{}.json", "x".repeat(100 - "fixtures/".len() - ".json".len())));
    let findings = s.validate();
    assert!(findings.is_empty(), "{findings:#?}");
    let out = tempfile::tempdir().unwrap();
    let o = support::bqsuite(s.path(), &["release", "--no-previous", "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
}

/// The version file holds the version alone: with one newline after it or none, never more
/// (a second line of text is no SemVer version, the message above).
#[test]
fn the_version_file_holds_the_version_alone_on_one_line() {
    let v = support::version();
    for clean in [format!("{v}\n"), v.to_owned()] {
        let s = SuiteCopy::new();
        s.write("CONFORMANCE_VERSION", &clean);
        assert!(s.validate().iter().all(|f| f.code.id != "BQ102"), "{clean:?}");
    }
    for extra in [format!("{v}\n\n"), format!("{v}\r\n"), format!("{v}\n ")] {
        let s = SuiteCopy::new();
        s.write("CONFORMANCE_VERSION", &extra);
        let findings = s.validate();
        let f = assert_finding(&findings, "BQ102", "CONFORMANCE_VERSION", None);
        assert!(
            f.message.starts_with("the version file must hold the version alone on one line"),
            "{extra:?}: {}",
            f.message
        );
        assert!(f.message.ends_with(&format!("it holds {extra:?}")), "{extra:?}: {}", f.message);
    }
}

#[test]
fn conformance_version_differs_from_the_manifest() {
    let s = SuiteCopy::new();
    s.write("CONFORMANCE_VERSION", "1.7.0-pre\n");
    let findings = findings!(s);
    assert_finding(&findings, "BQ103", "manifest.json", Some("/conformance_version"));
    assert!(findings.iter().all(|f| f.code.id != "BQ102"), "-pre is SemVer");
}

#[test]
fn schema_version_must_be_the_integer_one() {
    for bad in [json!(1.0), json!("1"), json!(2)] {
        let s = SuiteCopy::new();
        s.edit_manifest(|m| m["schema_version"] = bad.clone());
        assert_finding(&findings!(s), "BQ101", "manifest.json", Some("/schema_version"));
    }
}

#[test]
fn a_section_without_a_scope() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["sections"].as_object_mut().unwrap().shift_remove("rabbitmq");
    });
    assert_finding(&findings!(s), "BQ201", "manifest.json", Some("/rabbitmq"));
}

#[test]
fn a_scope_on_a_missing_section() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m.as_object_mut().unwrap().shift_remove("rabbitmq");
    });
    assert_finding(&findings!(s), "BQ202", "manifest.json", Some("/sections/rabbitmq"));
}

#[test]
fn an_unknown_scope() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["sections"]["rabbitmq"] = json!("rabbit"));
    assert_finding(&findings!(s), "BQ203", "manifest.json", Some("/sections/rabbitmq"));
}

#[test]
fn two_cases_with_the_same_id() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["payload_schema"]["cases"][1]["name"] = json!("valid-minimal"));
    assert_finding(&findings!(s), "BQ206", "manifest.json", Some("/payload_schema/cases/1"));
}

#[test]
fn malformed_exceptions() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["exceptions"] = json!([
            {"family": "php", "binding": "asb", "adr": "ADR-21"},
            {"family": "php", "binding": "mqtt", "adr": "ADR-0021"},
            {"family": "go", "binding": "asb"}
        ])
    });
    let findings = findings!(s);
    assert_finding(&findings, "BQ204", "manifest.json", Some("/exceptions/0"));
    assert_finding(&findings, "BQ205", "manifest.json", Some("/exceptions/1/binding"));
    assert_finding(&findings, "BQ204", "manifest.json", Some("/exceptions/2"));
}

#[test]
fn the_exceptions_are_the_contracts_for_the_version() {
    // Red team P11: an exception added by an edit excused a whole family from a binding, and
    // validate stayed clean.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        let list = m["exceptions"].as_array_mut().unwrap();
        list[0]["family"] = json!("PHP"); // letter case aside, still the registered one
        list.push(json!({"family": "go", "binding": "kafka", "adr": "ADR-0099"}));
        list.push(json!({"family": "python", "binding": "asb", "adr": "ADR-0021"}));
    });
    let f = s.validate();
    assert_finding(&f, "BQ218", "manifest.json", Some("/exceptions/1"));
    assert_finding(&f, "BQ218", "manifest.json", Some("/exceptions/2"));
    assert_eq!(f.len(), 2, "{f:#?}");
    // The registered one with another ADR is that exception, wrong: one finding, not also BQ219.
    s.edit_manifest(|m| m["exceptions"] = json!([{"family": "php", "binding": "asb", "adr": "ADR-0022"}]));
    let f = s.validate();
    let one = assert_finding(&f, "BQ218", "manifest.json", Some("/exceptions/0"));
    assert!(one.message.contains("grants it by ADR-0021, not ADR-0022"), "{}", one.message);
    assert_eq!(f.len(), 1, "{f:#?}");
    // Dropped: BQ219.
    s.edit_manifest(|m| m["exceptions"] = json!([]));
    let f = s.validate();
    assert_finding(&f, "BQ219", "manifest.json", Some("/exceptions"));
    assert_eq!(f.len(), 1, "{f:#?}");
}

#[test]
fn an_exception_family_no_sdk_name_can_yield() {
    // results check derives a family as one token of ASCII letters and digits of `sdk`
    // (php-sdk is php), so a family with any other character is matched by no SDK: the
    // exception would be silently dead. A family in another letter case is still one.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["exceptions"] = json!([
            {"family": "php-sdk", "binding": "asb", "adr": "ADR-0021"},
            {"family": " php", "binding": "asb", "adr": "ADR-0021"},
            {"family": "PHP", "binding": "sqs", "adr": "ADR-0021"}
        ])
    });
    let findings = findings!(s);
    assert_finding(&findings, "BQ204", "manifest.json", Some("/exceptions/0/family"));
    assert_finding(&findings, "BQ204", "manifest.json", Some("/exceptions/1/family"));
    // The rest is the registry's view: no entry is php/asb (BQ219), and php/sqs is none of the
    // contract's exceptions (BQ218).
    assert_finding(&findings, "BQ219", "manifest.json", Some("/exceptions"));
    assert_finding(&findings, "BQ218", "manifest.json", Some("/exceptions/2"));
    assert_eq!(findings.len(), 4, "{findings:#?}");
}

#[test]
fn an_exception_given_twice() {
    // One family and binding is one exemption: a second entry for it, in another letter case
    // (results check matches families case-insensitively) or citing another ADR, is BQ204 at
    // the repeat; the same family on another binding, or another family, is not a repeat.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["exceptions"] = json!([
            {"family": "php", "binding": "asb", "adr": "ADR-0021"},
            {"family": "php", "binding": "sqs", "adr": "ADR-0021"},
            {"family": "go", "binding": "asb", "adr": "ADR-0021"},
            {"family": "PHP", "binding": "asb", "adr": "ADR-0040"}
        ])
    });
    let findings = findings!(s);
    let repeat = assert_finding(&findings, "BQ204", "manifest.json", Some("/exceptions/3"));
    assert!(repeat.message.contains("repeats /exceptions/0"), "{findings:#?}");
    // php/sqs and go/asb are none of the contract's exceptions (BQ218); the repeat is BQ204's
    // alone, one problem, one finding.
    assert_finding(&findings, "BQ218", "manifest.json", Some("/exceptions/1"));
    assert_finding(&findings, "BQ218", "manifest.json", Some("/exceptions/2"));
    assert_eq!(findings.len(), 3, "{findings:#?}");
}

#[test]
fn an_orphan_fixture() {
    let s = SuiteCopy::new();
    s.write("fixtures/nobody-uses-me.json", "{}\n");
    assert_finding(&findings!(s), "BQ304", "fixtures/nobody-uses-me.json", None);
}

#[test]
fn a_results_example_that_violates_its_schema() {
    let s = SuiteCopy::new();
    let mut ex: Value = serde_json::from_str(&s.read("schema/results.example.json")).unwrap();
    ex["sections"]["cases"]["order-created"] = json!({"status": "skip", "reason": "not today"});
    s.write("schema/results.example.json", serde_json::to_string_pretty(&ex).unwrap());
    let f = assert_finding(
        &findings!(s),
        "BQ401",
        "schema/results.example.json",
        Some("/sections/cases/order-created/reason"),
    );
    assert!(f.span.is_some());
}

#[test]
fn schemas_must_declare_and_obey_their_drafts() {
    let s = SuiteCopy::new();
    let mut sch: Value = serde_json::from_str(&s.read("schema/results.schema.json")).unwrap();
    sch["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    sch["properties"]["sdk"]["type"] = json!("strin");
    s.write("schema/results.schema.json", serde_json::to_string_pretty(&sch).unwrap());
    let findings = findings!(s);
    let f = assert_finding(&findings, "BQ403", "schema/results.schema.json", Some("/$schema"));
    // Once "found Some(\"http://…\")": Rust's Debug of an Option, not the value as written.
    assert!(f.message.ends_with(r#"found "http://json-schema.org/draft-07/schema#""#), "{}", f.message);
    assert_finding(&findings, "BQ402", "schema/results.schema.json", Some(""));
}

#[test]
fn schemas_that_pass_their_meta_schema_but_do_not_compile() {
    // Both passed validate and release: `results check` then stopped with exit 2 on every
    // results file, and the producer-schema cross-checks were silently skipped.
    let s = SuiteCopy::new();
    for (rel, reference) in [
        ("schema/results.schema.json", "#/$defs/nowhere"),
        ("schema/message-envelope.schema.json", "#/definitions/nowhere"),
    ] {
        let mut sch: Value = serde_json::from_str(&s.read(rel)).unwrap();
        sch["$ref"] = json!(reference);
        s.write(rel, serde_json::to_string_pretty(&sch).unwrap());
    }
    let findings = findings!(s);
    for rel in ["schema/results.schema.json", "schema/message-envelope.schema.json"] {
        let f = assert_finding(&findings, "BQ402", rel, Some(""));
        assert!(
            f.message.starts_with("the schema does not compile: ") && f.message.contains("nowhere"),
            "{}",
            f.message
        );
    }
}

#[test]
fn required_files_missing() {
    let s = SuiteCopy::new();
    s.remove("schema/results.example.json");
    assert_finding(&findings!(s), "BQ003", "schema/results.example.json", None);
}

#[test]
fn stray_and_irregular_files_under_suite_dirs() {
    let s = SuiteCopy::new();
    s.write("fixtures/order-created.json~", "backup");
    s.write("fixtures/.DS_Store", "x");
    s.write("schema/.cache/s.json", "{}");
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/passwd", s.path().join("fixtures/link.json")).unwrap();
    let findings = findings!(s);
    assert_finding(&findings, "BQ006", "fixtures/order-created.json~", None);
    assert_finding(&findings, "BQ006", "fixtures/.DS_Store", None);
    assert_finding(&findings, "BQ006", "schema/.cache/s.json", None);
    #[cfg(unix)]
    assert_finding(&findings, "BQ005", "fixtures/link.json", None);
}

/// A file that cannot be read is BQ004, naming the error, beside what else is wrong with it.
/// Root reads a file of mode 000 (registry.rs's test of that skips under root, as CI runs), so
/// the read fails here on a link to itself: BQ005 for the link, BQ004 for the read.
#[cfg(unix)]
#[test]
fn a_file_that_cannot_be_read_is_reported_with_the_error() {
    let s = SuiteCopy::new();
    s.remove("LICENSE");
    std::os::unix::fs::symlink("LICENSE", s.path().join("LICENSE")).unwrap();
    let findings = s.validate();
    let unreadable: Vec<_> = findings.iter().filter(|f| f.code.id == "BQ004").collect();
    assert_eq!(unreadable.len(), 1, "{findings:#?}");
    assert_eq!(unreadable[0].file.as_deref(), Some("LICENSE"));
    assert!(unreadable[0].message.starts_with("cannot read: "), "{}", unreadable[0].message);
    assert!(unreadable[0].message.contains("symbolic links"), "the OS's own words: {}", unreadable[0].message);
    assert_finding(&findings, "BQ005", "LICENSE", None);
}

#[test]
fn schema_holds_its_three_files_and_nothing_else() {
    // Red team F4: a relaxed results schema and an envelope schema of just `true` beside the
    // real ones passed validate and shipped in the release; diff called the first editorial.
    let s = SuiteCopy::new();
    s.write("schema/results.schema.v2.json", r#"{"type": "object", "description": "Use this one: relaxed"}"#);
    s.write("schema/envelope.schema.json", "true\n");
    s.write("schema/old/results.schema.json", s.read("schema/results.schema.json"));
    let findings = s.validate();
    let mut at: Vec<_> = findings.iter().map(|f| (f.code.id, f.file.clone().unwrap_or_default())).collect();
    at.sort();
    assert_eq!(
        at,
        [
            ("BQ407", "schema/envelope.schema.json".to_owned()),
            ("BQ407", "schema/old/results.schema.json".to_owned()),
            ("BQ407", "schema/results.schema.v2.json".to_owned()),
        ],
        "{findings:#?}"
    );
    assert!(findings[0].message.contains("message-envelope.schema.json, results.schema.json, results.example.json"));
}

/// A fixture at `name`, read by a new case (so it is not an orphan). (Findings are asserted
/// one by one below, not snapshotted: the loop would write a snapshot per name.)
fn with_fixture_at(s: &SuiteCopy, name: &str) {
    s.write(&format!("fixtures/{name}"), s.read("fixtures/order-created.json"));
    s.edit_manifest(|m| {
        let mut case = m["cases"][0].clone();
        case["name"] = json!(format!("copy-at-{}", m["cases"].as_array().unwrap().len()));
        case["file"] = json!(format!("fixtures/{name}"));
        m["cases"].as_array_mut().unwrap().push(case);
    });
}

#[test]
fn names_some_platform_cannot_check_out_are_findings_and_refuse_the_release() {
    let long = format!("{}.json", "x".repeat(100 - "fixtures/".len() - ".json".len()));
    assert_eq!(format!("fixtures/{long}").len(), 100);
    let fine = SuiteCopy::new();
    with_fixture_at(&fine, &long);
    with_fixture_at(&fine, "sub_dir.v2/A-b_c.1.json");
    let findings = fine.validate();
    assert!(findings.is_empty(), "portable names, 100 bytes at most: {findings:#?}");

    for (name, says) in [
        ("aux.json", "'aux.json' is a Windows device name"),
        ("Com1.json", "device name"),
        ("a:b.json", "':' in the name"),
        ("a*b.json", "'*' in the name (Windows refuses it"),
        ("a|b.json", "'|'"),
        ("sp ace.json", "' ' in the name: only A-Z, a-z, 0-9"),
        ("h\u{e9}llo.json", "names are ASCII"),
        ("-rf.json", "starts with '-'"),
        (&format!("x{long}"), "101 bytes long, more than the 100"),
    ] {
        let s = SuiteCopy::new();
        with_fixture_at(&s, name);
        let findings = s.validate();
        let f = assert_finding(&findings, "BQ011", &format!("fixtures/{name}"), None);
        assert!(f.message.contains(says), "{name}: {}", f.message);
        assert_eq!(findings.len(), 1, "{name}: only BQ011: {findings:#?}");
        let o = support::bqsuite(s.path(), &["validate"]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", support::transcript(&o));
        let out = tempfile::tempdir().unwrap();
        let o = support::bqsuite(s.path(), &["release", "--no-previous", "--out", out.path().to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{name}: release builds it: {}", support::transcript(&o));
        assert!(std::fs::read_dir(out.path()).unwrap().next().is_none(), "{name}: release wrote something");
    }

    // A bad directory is said once, not again for each file in it.
    let s = SuiteCopy::new();
    with_fixture_at(&s, "two words/a.json");
    with_fixture_at(&s, "two words/b.json");
    let findings = s.validate();
    assert_finding(&findings, "BQ011", "fixtures/two words", None);
    assert_eq!(findings.len(), 1, "{findings:#?}");

    // Two names that differ only in letter case: the later one, naming the first.
    let s = SuiteCopy::new();
    with_fixture_at(&s, "Order-Created.json");
    let f = assert_finding(&s.validate(), "BQ011", "fixtures/order-created.json", None);
    assert!(f.message.contains("differs from fixtures/Order-Created.json only in letter case"), "{}", f.message);
}

#[test]
fn a_file_saved_as_utf16_is_told_so() {
    let s = SuiteCopy::new();
    let text = s.read("fixtures/order-created.json");
    let le = |bom: bool| -> Vec<u8> {
        (if bom { Some(0xFEFFu16) } else { None })
            .into_iter()
            .chain(text.encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect()
    };
    s.write("fixtures/order-created.json", le(true));
    s.write("fixtures/urn-alias.json", le(false)); // valid UTF-8 (NUL is a character), not JSON
    let findings = s.validate();
    for file in ["fixtures/order-created.json", "fixtures/urn-alias.json"] {
        let f = assert_finding(&findings, "BQ002", file, None);
        assert!(f.message.starts_with("is UTF-16, not UTF-8"), "{file}: {}", f.message);
        let about: Vec<&str> = findings.iter().filter(|f| f.file.as_deref() == Some(file)).map(|f| f.code.id).collect();
        assert_eq!(about, ["BQ002"], "{file}: one finding, not also BQ001: {findings:#?}");
    }
}

#[test]
fn not_utf8() {
    let s = SuiteCopy::new();
    s.write("fixtures/order-created.json", b"{\"job\":\"\xff\"}");
    assert_finding(&findings!(s), "BQ002", "fixtures/order-created.json", None);
}

#[test]
fn compat_top_level_case_fields_and_fixture_shape() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["cases"][0]["expect"].as_object_mut().unwrap().shift_remove("lang");
    });
    s.write("fixtures/invalid-missing-urn.json", "[]\n");
    let findings = findings!(s);
    assert_finding(&findings, "BQ501", "manifest.json", Some("/cases/0/expect"));
    assert_finding(&findings, "BQ502", "fixtures/invalid-missing-urn.json", Some(""));
}

#[test]
fn compat_per_message_fields_of_valid_fixtures() {
    let s = SuiteCopy::new();
    let mut fx: Value = serde_json::from_str(&s.read("fixtures/order-created.json")).unwrap();
    fx["trace_id"] = json!("");
    fx["meta"]["created_at"] = json!(0);
    s.write("fixtures/order-created.json", serde_json::to_string_pretty(&fx).unwrap());
    let findings = findings!(s);
    assert_finding(&findings, "BQ510", "fixtures/order-created.json", Some("/trace_id"));
    assert_finding(&findings, "BQ510", "fixtures/order-created.json", Some("/meta/created_at"));
}

#[test]
fn compat_bom() {
    let s = SuiteCopy::new();
    let body = s.read("fixtures/order-created.json");
    s.write("fixtures/order-created.json", format!("\u{FEFF}{body}"));
    assert_finding(&findings!(s), "BQ503", "fixtures/order-created.json", None);
}

#[test]
fn compat_plain_relative_paths() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["cases"][0]["file"] = json!("fixtures/../fixtures/order-created.json"));
    assert_finding(&findings!(s), "BQ504", "manifest.json", Some("/cases/0/file"));
}

#[test]
fn compat_manifest_depth() {
    let s = SuiteCopy::new();
    let text = s.read("manifest.json");
    let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
    s.write(
        "manifest.json",
        text.replacen("\"schema_version\": 1,", &format!("\"schema_version\": 1, \"deep_x\": {deep},"), 1),
    );
    assert_finding(&findings!(s), "BQ505", "manifest.json", None);
}

/// PHP's `json_decode` takes 512 levels: the manifest's own object and 511 arrays inside it. The
/// levels are counted outside strings only: brackets, and a quote escaped, inside a string
/// are text (a manifest this deep does not parse, so the count is a scan of the text).
#[test]
fn compat_manifest_depth_counts_to_512_outside_strings() {
    let nested = |arrays: usize, inside: &str| {
        let s = SuiteCopy::new();
        // The string first, so that a scan that loses track of it miscounts what follows.
        let deep = format!("[{inside}{}{}]", "[".repeat(arrays - 1), "]".repeat(arrays - 1));
        let text = s.read("manifest.json");
        s.write(
            "manifest.json",
            text.replacen("\"schema_version\": 1,", &format!("\"schema_version\": 1, \"deep_x\": {deep},"), 1),
        );
        s.validate().into_iter().filter(|f| f.code.id == "BQ505").map(|f| f.message).collect::<Vec<_>>()
    };
    assert_eq!(nested(510, ""), Vec::<String>::new(), "511 levels in all");
    assert_eq!(nested(511, ""), ["the manifest nests 512 levels; PHP json_decode stops at 511"]);
    let text = format!("\"{}\\\"{}\", ", "[{".repeat(300), "[".repeat(10));
    assert_eq!(nested(510, &text), Vec::<String>::new(), "brackets and an escaped quote in a string are text");
    assert_eq!(nested(511, &text), ["the manifest nests 512 levels; PHP json_decode stops at 511"]);
}

#[test]
fn compat_lone_surrogate() {
    let s = SuiteCopy::new();
    let body = s.read("fixtures/unknown-meta-roundtrip.json");
    s.write("fixtures/unknown-meta-roundtrip.json", body.replacen("\"eu-west-1\"", "\"eu\\ud800\"", 1));
    let f = assert_finding(&findings!(s), "BQ506", "fixtures/unknown-meta-roundtrip.json", None);
    assert!(f.span.is_some());
}

#[test]
fn compat_case_names() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["payload_schema"]["cases"][0]["name"] = json!("a/b"));
    assert_finding(&findings!(s), "BQ507", "manifest.json", Some("/payload_schema/cases/0/name"));
    // Empty, and not a string: each BQ507 alone (names.rs leaves them to it).
    for name in [json!(""), json!(3), json!(null)] {
        let s = SuiteCopy::new();
        s.edit_manifest(|m| m["payload_schema"]["cases"][0]["name"] = name.clone());
        let findings = s.validate();
        let f = assert_finding(&findings, "BQ507", "manifest.json", Some("/payload_schema/cases/0/name"));
        assert!(f.message.contains("must be a non-empty string without '/'"), "{}", f.message);
    }
}

#[test]
fn compat_letter_case_twins() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["cases"][0]["Valid"] = json!(false);
        m["SQS"] = json!({});
        m["sections"]["SQS"] = json!("sqs");
    });
    let findings = findings!(s);
    assert_finding(&findings, "BQ508", "manifest.json", Some("/cases/0/Valid"));
    assert_finding(&findings, "BQ508", "manifest.json", Some("/SQS"));
}

#[test]
fn compat_at_least_six_top_level_cases() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["cases"].as_array_mut().unwrap().truncate(5));
    assert_finding(&findings!(s), "BQ509", "manifest.json", Some("/cases"));
}

#[test]
fn every_finding_names_a_file() {
    let s = SuiteCopy::new();
    s.write("manifest.json", "{ not json");
    let findings = findings!(s);
    assert_finding(&findings, "BQ001", "manifest.json", None);
    assert!(findings.iter().all(|f| f.file.is_some()), "{findings:#?}");
}

#[test]
fn a_section_without_a_description() {
    for description in [None, Some(json!("")), Some(json!("  \n")), Some(json!(7))] {
        let s = SuiteCopy::new();
        s.edit_manifest(|m| {
            let b = m["redis_delay"].as_object_mut().unwrap();
            match &description {
                None => drop(b.shift_remove("description")),
                Some(d) => drop(b.insert("description".into(), d.clone())),
            }
        });
        let findings = s.validate();
        assert_eq!(findings.len(), 1, "{description:?}: {findings:#?}");
        assert_finding(&findings, "BQ207", "manifest.json", Some("/redis_delay"));
    }
}

/// The codes of `findings`, sorted, for a test that expects exactly these.
fn codes(findings: &[bqsuite::diag::Finding]) -> Vec<&'static str> {
    let mut c: Vec<&str> = findings.iter().map(|f| f.code.id).collect();
    c.sort_unstable();
    c
}

#[test]
fn a_missing_or_empty_licence_is_a_finding_as_release_refuses_it() {
    // validate was clean and release refused ("LICENSE is missing"); an empty one passed both.
    for (what, edit) in [("missing", None), ("empty", Some("")), ("blank", Some(" \n\t\n"))] {
        let s = SuiteCopy::new();
        match edit {
            None => s.remove("LICENSE"),
            Some(text) => s.write("LICENSE", text),
        }
        let findings = s.validate();
        assert_eq!(codes(&findings), ["BQ003"], "{what}: {findings:#?}");
        assert_finding(&findings, "BQ003", "LICENSE", None);
    }
    // A copy as `sync` vendors it (the four entries of a vendored copy, no LICENSE beside them)
    // validates clean, as `run`'s hint to validate it promises; release still refuses it. (Only
    // at the recorded version: a later one is a version being made, which needs its CHANGELOG.)
    support::assert_recording_current();
    let s = SuiteCopy::new();
    s.remove("LICENSE");
    s.remove("CHANGELOG.md");
    let findings = s.validate();
    assert!(findings.is_empty(), "{findings:#?}");
    let r = support::bqsuite(s.path(), &["release", "--no-previous"]);
    assert_eq!(r.status.code(), Some(1), "{}", support::transcript(&r));
    assert!(support::transcript(&r).contains("LICENSE is missing"), "{}", support::transcript(&r));
}

#[test]
fn the_changelog_must_exist_and_hold_the_versions_entry() {
    // In a source tree (anything beside the asset's files: here the sync targets).
    let s = SuiteCopy::new();
    s.remove("CHANGELOG.md");
    s.write("sync-targets.json", std::fs::read(support::repo().join("sync-targets.json")).unwrap());
    let findings = s.validate();
    assert_eq!(codes(&findings), ["BQ003"], "{findings:#?}");
    assert_finding(&findings, "BQ003", "CHANGELOG.md", None);
    // A released copy (only what the asset holds, as fetch unpacks it) never has one (at the
    // recorded version; a later one is being made).
    support::assert_recording_current();
    s.remove("sync-targets.json");
    let findings = s.validate();
    assert!(findings.is_empty(), "{findings:#?}");
    // ... but a version being made, laid out like the asset, still needs its entry (red team
    // M5): a pre-release, or one later than the version bqsuite records.
    let v = support::version();
    support::set_version(s.path(), &format!("{v}-pre"));
    assert!(codes(&s.validate()).contains(&"BQ003"), "a pre-release is never released");
    support::set_version(s.path(), &support::bumped("minor"));
    assert!(codes(&s.validate()).contains(&"BQ003"), "a version later than the recorded one");

    // No `## VERSION` heading (one in a fenced block is an example, as the release gate reads it).
    let s = SuiteCopy::new();
    let heading = format!("## {v}");
    s.write("CHANGELOG.md", s.read("CHANGELOG.md").replace(&heading, &format!("```\n{heading}\n```\n\n## 1.5.9")));
    let findings = s.validate();
    assert_eq!(codes(&findings), ["BQ105"], "{findings:#?}");
    assert!(findings[0].message.contains(&format!("\"{heading}\"")), "{}", findings[0].message);

    // A heading that names the version another way is the likely slip: the message says which
    // line, and what an entry's heading is.
    for near in [format!("## v{v}"), format!("### {v}"), format!("## Version {v}")] {
        let s = SuiteCopy::new();
        s.write("CHANGELOG.md", format!("# Changelog\n\n{near}\n\n- a change\n"));
        let findings = s.validate();
        assert_eq!(codes(&findings), ["BQ105"], "{near}: {findings:#?}");
        let want = format!("; line 3 ({near:?}) names it, but an entry's heading is the version alone at level 2");
        assert!(findings[0].message.ends_with(&want), "{near}: {}", findings[0].message);
    }

    // A heading with nothing under it is no entry.
    let s = SuiteCopy::new();
    s.write("CHANGELOG.md", format!("# Changelog\n\n## {v}\n\n## 1.5.0\n\n- `trim`\n"));
    let findings = s.validate();
    assert_eq!(codes(&findings), ["BQ105"]);
    // ... and the message says the heading is there, not to add it.
    let says = format!("has a heading \"## {v}\" but nothing under it");
    assert!(findings[0].message.contains(&says), "{}", findings[0].message);
}

#[test]
fn a_pre_release_reads_its_own_entry_or_the_one_of_the_release_it_becomes() {
    let v = support::version();
    let pre = |changelog: Option<&str>| {
        let s = SuiteCopy::new();
        support::set_version(s.path(), &format!("{v}-pre"));
        if let Some(text) = changelog {
            s.write("CHANGELOG.md", text);
        }
        s.validate()
    };
    assert_eq!(codes(&pre(None)), Vec::<&str>::new(), "## {v} is the entry {v}-pre becomes");
    let own = format!("## {v}-pre\n\n- work in progress\n");
    assert_eq!(codes(&pre(Some(&own))), Vec::<&str>::new(), "its own heading");
    // The heading of the release it becomes, with nothing under it, is there but empty.
    let findings = pre(Some(&format!("## {v}\n\n## 1.5.0\n\n- `trim`\n")));
    assert_eq!(codes(&findings), ["BQ105"], "{findings:#?}");
    assert!(
        findings[0].message.contains(&format!("has a heading \"## {v}\" but nothing under it")),
        "{}",
        findings[0].message
    );
    let findings = pre(Some("## 1.5.0\n\n- `trim`\n"));
    assert_eq!(codes(&findings), ["BQ105"], "{findings:#?}");
    assert!(findings[0].message.contains(&format!("\"## {v}-pre\" or \"## {v}\"")), "{}", findings[0].message);
}

#[test]
fn a_version_older_than_a_section_or_block_it_holds() {
    // The inverse of BQ312/BQ313: 1.6.0 content labelled 1.5.0 was clean. About what 1.6.0
    // added (the history's lists), so its versions stay literal.
    let s = support::history::suite_1_6_0();
    s.write("CONFORMANCE_VERSION", "1.5.0\n");
    s.edit_manifest(|m| m["conformance_version"] = json!("1.5.0"));
    let findings = s.validate();
    for section in ["/redis_delay", "/kafka_poison", "/retry_backoff", "/poison_dlq"] {
        let f = assert_finding(&findings, "BQ315", "manifest.json", Some(section));
        assert!(f.message.contains("which 1.6.0 added"), "{}", f.message);
    }
    for block in
        ["/backoff/topic_names", "/backoff/retry_attempt_tier", "/backoff/default_tiers", "/redis_layout/reserve"]
    {
        assert_finding(&findings, "BQ315", "manifest.json", Some(block));
    }
    // One finding per section, not one per block of a section that is itself too new; no
    // finding for what 1.5.0 had.
    let added =
        history::NEW_SECTIONS.len() + history::NEW_BACKOFF_BLOCKS.len() + history::NEW_REDIS_LAYOUT_BLOCKS.len();
    assert_eq!(findings.iter().filter(|f| f.code.id == "BQ315").count(), added, "{findings:#?}");
    assert!(findings.iter().all(|f| f.pointer.as_deref() != Some("/redis_layout/cases")));
}

#[test]
fn a_suite_lacks_nothing_its_version_did_not_have() {
    // 1.5.0 as released: without the sections and blocks 1.6.0 added. Their absence is no
    // BQ312 / BQ313 (what else 1.6.0's reference core says of 1.5.0's expectations is not this
    // rule's business), nor is anything too new (BQ315); and the recorded power is 1.6.0's, so
    // no case of it is missed in an older suite (BQ316, BQ317) nor its content compared (BQ318).
    // A case of an older section that 1.5.0 did not have yet is not "gone" from it either.
    let s = support::history::suite_1_5_0();
    s.edit_manifest(|m| drop(m["traceparent"]["cases"].as_array_mut().unwrap().pop()));
    let findings = s.validate();
    let version_rules = ["BQ312", "BQ313", "BQ315", "BQ316", "BQ317", "BQ318"];
    let about_the_version: Vec<_> = findings.iter().filter(|f| version_rules.contains(&f.code.id)).collect();
    assert!(about_the_version.is_empty(), "{about_the_version:#?}");
}

#[test]
fn the_summary_line_shows_an_untrusted_version_escaped() {
    let s = SuiteCopy::new();
    s.write("CONFORMANCE_VERSION", "\u{feff}1.6.0\n");
    let o = support::bqsuite(s.path(), &["validate", "--suite", s.path().to_str().unwrap()]);
    let text = support::transcript(&o);
    assert!(text.contains("(suite \\ufeff1.6.0 at "), "{text}");
    assert!(!text.contains('\u{feff}'), "{text}");
}

#[test]
fn integers_a_runner_reads_are_integer_literals() {
    // R20.3: the Go runner decodes these into ints, and 0.0 aborts its whole test; validate
    // passed them (the same value, R4), as it already refused redelivery_count: 2.0.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["cases"][0]["expect"]["attempts"] = json!(0.0);
        m["cases"][0]["expect"]["schema_version"] = json!(1.0);
        m["roundtrip"]["cases"][0]["expect_attempts"] = json!(1.0);
    });
    let findings = s.validate();
    assert_eq!(codes(&findings), ["BQ305", "BQ305", "BQ305"], "{findings:#?}");
    for p in ["/cases/0/expect/attempts", "/cases/0/expect/schema_version", "/roundtrip/cases/0/expect_attempts"] {
        let f = assert_finding(&findings, "BQ305", "manifest.json", Some(p));
        assert!(f.message.contains("integer literal"), "{}", f.message);
    }
}

#[test]
fn an_integral_float_literal_in_the_asb_gate_needs_value_type() {
    let row = |m: &Value, pred: &dyn Fn(&Value) -> bool| -> usize {
        m["asb"]["schema_version_gate"]["cases"].as_array().unwrap().iter().position(pred).unwrap()
    };
    for literal in ["1.0", "2e0", "1.0e0"] {
        let s = SuiteCopy::new();
        let text = s.read("manifest.json");
        let m: Value = serde_json::from_str(&text).unwrap();
        let i = row(&m, &|r| r.get("value").and_then(Value::as_u64) == Some(1));
        s.edit_manifest(|m| m["asb"]["schema_version_gate"]["cases"][i]["value"] = json!("PLACEHOLDER"));
        s.write("manifest.json", s.read("manifest.json").replace("\"PLACEHOLDER\"", literal));
        let findings = s.validate();
        let ptr = format!("/asb/schema_version_gate/cases/{i}/value");
        let f = assert_finding(&findings, "BQ844", "manifest.json", Some(&ptr));
        assert!(f.message.contains("value_type"), "{}", f.message);
    }
    // The published rows stay clean: 1.5 is a float everywhere, 1.0 carries the marker.
    let m: Value = serde_json::from_str(&support::SuiteCopy::new().read("manifest.json")).unwrap();
    row(&m, &|r| r.get("value").and_then(Value::as_f64) == Some(1.5) && r.get("value_type").is_none());
    row(&m, &|r| r.get("value_type").is_some());
}

#[test]
fn retry_backoff_milliseconds_stay_within_two_to_the_53() {
    // 1000 × 2^54 overflows no u64 but every int64 SDK's arithmetic on the way, and a
    // JavaScript number rounds it: validate passed it.
    let add = |case: Value| {
        let s = SuiteCopy::new();
        s.edit_manifest(|m| m["retry_backoff"]["cases"].as_array_mut().unwrap().push(case));
        s.validate()
    };
    let max = (1u64 << 53) - 1;
    for (case, field) in [
        (
            json!({"name": "n55", "retry_backoff": 1000, "multiplier": 2, "jitter": "none", "n": 55, "expect_delay_ms": 18014398509481984000u64}),
            "expect_delay_ms",
        ),
        (
            json!({"name": "n44", "retry_backoff": 1000, "multiplier": 2, "jitter": "none", "n": 44, "expect_delay_ms": 8796093022208000u64 * 2}),
            "expect_delay_ms",
        ),
        (
            json!({"name": "big-base", "retry_backoff": max + 1, "jitter": "none", "n": 1, "expect_delay_ms": 1}),
            "retry_backoff",
        ),
        (
            json!({"name": "big-cap", "retry_backoff": 1, "max": max + 1, "jitter": "none", "n": 1, "expect_delay_ms": 1}),
            "max",
        ),
        (
            json!({"name": "big-range", "retry_backoff": max + 1, "jitter": "full", "n": 1, "expect_delay_range_ms": [0, max + 1]}),
            "expect_delay_range_ms/1",
        ),
    ] {
        let findings = add(case.clone());
        let ptr = format!("/retry_backoff/cases/20/{field}");
        let f = assert_finding(&findings, "BQ308", "manifest.json", Some(&ptr));
        assert!(f.message.contains("2^53"), "{}", f.message);
    }
    // The bound itself is a delay every SDK holds: clean, and the reference agrees.
    let findings = add(
        json!({"name": "largest", "retry_backoff": max, "multiplier": 2, "max": max, "jitter": "none", "n": 3, "expect_delay_ms": max}),
    );
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn case_names_are_kebab_case_ascii_and_named() {
    let base = json!({"retry_backoff": 1000, "jitter": "none", "n": 1, "expect_delay_ms": 1000});
    let named = |n: &str| {
        let mut c = base.clone();
        c["name"] = json!(n);
        c
    };
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        let cases = m["retry_backoff"]["cases"].as_array_mut().unwrap();
        for n in [
            "caf\u{e9}",
            "cafe\u{301}",
            "defaults-first-retr\u{443}",
            "defaults-first-retry\u{200b}",
            "has space",
            "a--b",
            "-a",
            "b-",
            "snake_case",
        ] {
            cases.push(named(n));
        }
        cases.push(base.clone());
    });
    let findings = s.validate();
    for i in 20..29 {
        assert_finding(&findings, "BQ514", "manifest.json", Some(&format!("/retry_backoff/cases/{i}/name")));
    }
    let f = assert_finding(&findings, "BQ514", "manifest.json", Some("/retry_backoff/cases/29"));
    assert!(f.message.contains("retry_backoff#29"), "{}", f.message);
    assert_eq!(codes(&findings), ["BQ514"; 10], "{findings:#?}");
    // A non-ASCII name is shown as escapes too, so a look-alike is visible.
    let f = assert_finding(&findings, "BQ514", "manifest.json", Some("/retry_backoff/cases/22/name"));
    assert!(f.message.contains("retr\\u0443"), "{}", f.message);
}

#[test]
fn the_published_unnamed_gate_rows_need_no_name() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        m["sqs"]["schema_version_gate"]["cases"].as_array_mut().unwrap().push(json!({"value": "3", "expect": "reject"}))
    });
    assert!(s.validate().is_empty());
}

#[test]
fn two_ids_equal_but_for_letter_case() {
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        let cases = m["retry_backoff"]["cases"].as_array_mut().unwrap();
        let mut twin = cases[0].clone();
        twin["name"] = json!("Defaults-First-Retry");
        cases.push(twin.clone());
        twin["name"] = json!("DEFAULTS-first-RETRY");
        cases.push(twin);
    });
    let findings = s.validate();
    for i in [20, 21] {
        let f = assert_finding(&findings, "BQ206", "manifest.json", Some(&format!("/retry_backoff/cases/{i}")));
        assert!(f.message.contains("but for letter case"), "{}", f.message);
        assert!(f.message.contains("\"defaults-first-retry\""), "{}", f.message);
    }
    assert_eq!(codes(&findings), ["BQ206", "BQ206", "BQ514", "BQ514"], "{findings:#?}");

    // An id with a capital repeated exactly is told once, as a repeat, not also as a case twin.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        let cases = m["retry_backoff"]["cases"].as_array_mut().unwrap();
        let mut twin = cases[0].clone();
        twin["name"] = json!("Defaults-Again");
        cases.push(twin.clone());
        cases.push(twin);
    });
    let findings = s.validate();
    let repeats: Vec<_> = findings.iter().filter(|f| f.code.id == "BQ206").collect();
    assert_eq!(repeats.len(), 1, "{findings:#?}");
    assert!(repeats[0].message.contains("appears more than once"), "{}", repeats[0].message);
}

#[test]
fn the_producer_schema_is_frozen_byte_for_byte() {
    // R7 / R20.8: a loosened enum, a dropped required key or a relaxed constant passed validate
    // unless a fixture happened to witness it. Even a formatting change is one: every vendored
    // copy is byte-identical.
    let schema = "schema/message-envelope.schema.json";
    for edit in [
        |t: &str| t.replacen("\"node\"", "\"node\", \"rust\"", 1),
        |t: &str| t.replacen("\"const\": 1", "\"minimum\": 1", 1),
        |t: &str| format!("{t}\n"),
    ] {
        let s = SuiteCopy::new();
        let text = s.read(schema);
        let changed = edit(&text);
        assert_ne!(changed, text);
        s.write(schema, changed);
        let findings = s.validate();
        let f = assert_finding(&findings, "BQ404", schema, None);
        assert!(f.message.contains("frozen for 1.x"), "{}", f.message);
    }
    // A MAJOR without a recorded hash is a finding until the release records one.
    let s = SuiteCopy::new();
    s.write("CONFORMANCE_VERSION", "2.0.0\n");
    let f = assert_finding(&s.validate(), "BQ404", schema, None);
    assert!(f.message.contains("no producer schema is frozen for MAJOR 2"), "{}", f.message);
}

#[test]
fn the_results_example_belongs_to_this_suite() {
    let s = SuiteCopy::new();
    let mut example: Value = serde_json::from_str(&s.read("schema/results.example.json")).unwrap();
    example["conformance_version"] = json!("1.5.0");
    example["sections"]["no_such_section"] = json!({"x": {"status": "pass"}});
    s.write("schema/results.example.json", serde_json::to_string_pretty(&example).unwrap() + "\n");
    let findings = s.validate();
    assert_eq!(codes(&findings), ["BQ405"; 2], "{findings:#?}");
    let file = "schema/results.example.json";
    assert_finding(&findings, "BQ405", file, Some("/conformance_version"));
    assert_finding(&findings, "BQ405", file, Some("/sections/no_such_section"));
}

#[test]
fn an_emptied_expectation_pins_nothing() {
    // Each of these kept validate clean: the reference passes a case that checks nothing. An
    // empty list of things that must hold is BQ308 at the field, and only that (the power
    // check, BQ316, leaves such a case to it); `expect_warnings: []` says "no warnings" and is
    // not one of them.
    let s = SuiteCopy::new();
    s.edit_manifest(|m| {
        let named = |m: &mut Value, section: &str, name: &str| -> usize {
            m[section]["cases"].as_array().unwrap().iter().position(|c| c["name"] == name).unwrap()
        };
        let i = named(m, "roundtrip", "urn-only-roundtrip");
        m["roundtrip"]["cases"][i]["expect_absent_after_reencode"] = json!([]);
        let i = named(m, "extension_write", "flat-scalar-key");
        m["extension_write"]["cases"][i]["expect_envelope"] = json!({});
        m["idempotency"]["sequences"]["cases"][0]["deliveries"] = json!([]);
        m["idempotency"]["sequences"]["cases"][0]["expected_effects"] = json!(0);
        let i = m["cases"].as_array().unwrap().iter().position(|c| c["name"] == "dead-lettered").unwrap();
        m["cases"][i]["expect"]["dead_letter"] = json!({});
    });
    let findings = s.validate();
    let at = |section: &str, name: &str, field: &str| {
        let m: Value = serde_json::from_str(&s.read("manifest.json")).unwrap();
        let i = m[section]["cases"].as_array().unwrap().iter().position(|c| c["name"] == name).unwrap();
        format!("/{section}/cases/{i}/{field}")
    };
    assert_finding(
        &findings,
        "BQ308",
        "manifest.json",
        Some(&at("roundtrip", "urn-only-roundtrip", "expect_absent_after_reencode")),
    );
    assert_finding(
        &findings,
        "BQ308",
        "manifest.json",
        Some(&at("extension_write", "flat-scalar-key", "expect_envelope")),
    );
    assert_finding(&findings, "BQ308", "manifest.json", Some("/idempotency/sequences/cases/0/deliveries"));
    let m: Value = serde_json::from_str(&s.read("manifest.json")).unwrap();
    let i = m["cases"].as_array().unwrap().iter().position(|c| c["name"] == "dead-lettered").unwrap();
    assert_finding(&findings, "BQ308", "manifest.json", Some(&format!("/cases/{i}/expect/dead_letter")));
    assert_eq!(findings.len(), 4, "one problem, one finding (no BQ316 beside them): {findings:#?}");
}

fn edit_results_schema(s: &SuiteCopy, edit: impl FnOnce(&mut Value)) {
    let mut schema: Value = serde_json::from_str(&s.read("schema/results.schema.json")).unwrap();
    edit(&mut schema);
    s.write("schema/results.schema.json", serde_json::to_string_pretty(&schema).unwrap() + "\n");
}

/// The results schema is not pinned, but it must reject every malformed results file of the
/// built-in corpus (BQ406). Each weakening here kept validate clean, and each finding names what
/// the schema accepts, at the place in the schema that governs it.
#[test]
fn a_weakened_results_schema_names_each_malformation_it_accepts() {
    type Edit = fn(&mut Value);
    /// Each finding wanted: its pointer in the schema, and what the schema accepts.
    type Wanted = &'static [(&'static str, &'static str)];
    fn remove(v: &mut Value, key: &str) {
        v.as_object_mut().unwrap().shift_remove(key).expect("the member is there");
    }
    let cases: [(&str, Edit, Wanted); 11] = [
        (
            "required emptied",
            |s| s["required"] = json!([]),
            &[
                ("/required", "without sdk "),
                ("/required", "without version "),
                ("/required", "without conformance_version "),
                ("/required", "without generated_at "),
                ("/required", "without bindings "),
                ("/required", "without sections "),
            ],
        ),
        (
            "the top level open",
            |s| remove(s, "additionalProperties"),
            &[("", "with a member Bindings beside bindings")],
        ),
        (
            "a skip reason's ADR pattern removed",
            |s| remove(&mut s["$defs"]["outcome"]["then"], "properties"),
            &[("/$defs/outcome/properties/reason", "with a skip whose reason cites no ADR")],
        ),
        (
            "sections may be an array",
            |s| s["properties"]["sections"]["type"] = json!(["object", "array"]),
            &[("/properties/sections", "whose sections is an array")],
        ),
        (
            "conformance_version's pattern removed",
            |s| remove(&mut s["properties"]["conformance_version"], "pattern"),
            &[("/properties/conformance_version", "whose conformance_version is not SemVer")],
        ),
        (
            "sdk, version and generated_at not required",
            |s| s["required"] = json!(["conformance_version", "bindings", "sections"]),
            &[("/required", "without sdk "), ("/required", "without version "), ("/required", "without generated_at ")],
        ),
        (
            "an outcome open",
            |s| remove(&mut s["$defs"]["outcome"], "additionalProperties"),
            &[("/$defs/outcome", "with an outcome whose member Status says fail beside status pass")],
        ),
        (
            "an outcome's status not required",
            |s| s["$defs"]["outcome"]["required"] = json!([]),
            &[("/$defs/outcome", "with an outcome without status")],
        ),
        (
            "the bindings enum removed",
            |s| remove(&mut s["properties"]["bindings"], "items"),
            &[
                ("/properties/bindings", "whose bindings lists rabbitmq, a section of scope amqp"),
                ("/properties/bindings", "whose bindings lists Redis, a binding in another letter case"),
            ],
        ),
        (
            "a section's type removed",
            |s| remove(&mut s["properties"]["sections"]["additionalProperties"], "type"),
            &[("/properties/sections/additionalProperties", "with a section that is an array of case ids")],
        ),
        (
            "generated_at's pattern removed",
            |s| remove(&mut s["properties"]["generated_at"], "pattern"),
            &[
                ("/properties/generated_at", "whose generated_at is no date-time"),
                ("/properties/generated_at", "whose generated_at has no UTC offset"),
            ],
        ),
    ];
    for (weakened, edit, want) in cases {
        let s = SuiteCopy::new();
        edit_results_schema(&s, edit);
        let findings = s.validate();
        assert_eq!(codes(&findings), vec!["BQ406"; want.len()], "{weakened}: {findings:#?}");
        for (pointer, what) in want {
            let f = findings
                .iter()
                .find(|f| {
                    f.pointer.as_deref() == Some(pointer)
                        && f.message.contains(&format!("accepts a results file {what}"))
                })
                .unwrap_or_else(|| panic!("{weakened}: no BQ406 at {pointer:?} for {what:?}: {findings:#?}"));
            assert_eq!(f.file.as_deref(), Some("schema/results.schema.json"));
            assert!(f.span.is_some(), "{weakened}: located: {f:?}");
            assert!(f.message.contains("schema/results.example.json with /"), "{}", f.message);
        }
    }
}

/// A schema that allows anything accepts every malformation of the corpus: the whole list.
#[test]
fn a_results_schema_reduced_to_its_draft_accepts_the_whole_corpus() {
    let s = SuiteCopy::new();
    s.write("schema/results.schema.json", "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\"\n}\n");
    let findings = findings!(s);
    assert!(findings.iter().all(|f| f.code.id == "BQ406" && f.pointer.as_deref() == Some("")), "{findings:#?}");
    assert_eq!(findings.len(), 29, "{findings:#?}");
}

/// The corpus is skipped only for a results schema that is itself invalid (BQ402 there): an
/// invalid schema elsewhere (a section's payload schema), or another finding on the results
/// schema, does not excuse a weakened one.
#[test]
fn another_invalid_schema_does_not_excuse_a_weakened_results_schema() {
    let s = SuiteCopy::new();
    s.write("schema/results.schema.json", "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\"\n}\n");
    s.edit_manifest(|m| m["payload_schema"]["schema"] = json!({"type": 12}));
    let findings = s.validate();
    assert!(
        findings.iter().any(|f| f.code.id == "BQ402" && f.file.as_deref() == Some("manifest.json")),
        "{findings:#?}"
    );
    let corpus = findings.iter().filter(|f| f.code.id == "BQ406").count();
    assert_eq!(corpus, 29, "{findings:#?}");

    // Nor does another finding on the results schema itself: a wrong draft declared (BQ403).
    let s = SuiteCopy::new();
    s.write("schema/results.schema.json", "{\n  \"$schema\": \"http://json-schema.org/draft-07/schema#\"\n}\n");
    let findings = s.validate();
    let draft = findings.iter().find(|f| f.code.id != "BQ406").expect("the draft is told");
    assert_eq!(
        (draft.file.as_deref(), draft.pointer.as_deref()),
        (Some("schema/results.schema.json"), Some("/$schema"))
    );
    assert_eq!(findings.iter().filter(|f| f.code.id == "BQ406").count(), 29, "{findings:#?}");
}

/// The results schema may evolve as a MINOR release does: an optional member declared at the
/// top level and in an outcome, a stricter pattern, unevaluatedProperties for
/// additionalProperties, other bytes for the same schema. BQ406 refuses none of these, unlike the
/// producer schema's bytes (BQ404); on the recorded version each is a change to the recorded
/// schema (BQ320, made with a new recording), its only finding.
#[test]
fn a_results_schema_may_evolve_as_a_minor_release_does() {
    support::assert_recording_current();
    let edits: [fn(&mut Value); 4] = [
        |s| {
            s["properties"]["runner"] = json!({"type": "string", "minLength": 1});
            s["$defs"]["outcome"]["properties"]["duration_ms"] = json!({"type": "integer", "minimum": 0});
        },
        |s| {
            s["properties"]["generated_at"]["pattern"] =
                json!("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")
        },
        |s| {
            s.as_object_mut().unwrap().shift_remove("additionalProperties");
            s["unevaluatedProperties"] = json!(false);
        },
        |s| s["description"] = json!("Reworded."),
    ];
    for edit in edits {
        let s = SuiteCopy::new();
        edit_results_schema(&s, edit);
        let findings = s.validate();
        assert_eq!(codes(&findings), ["BQ320"], "{findings:#?}");
    }
    let s = SuiteCopy::new();
    let minified: Value = serde_json::from_str(&s.read("schema/results.schema.json")).unwrap();
    s.write("schema/results.schema.json", minified.to_string());
    assert_eq!(codes(&s.validate()), ["BQ320"]);
}

/// The corpus is judged only against a schema that accepts the example: a weakened schema that
/// also rejects its example is BQ401 first, not a list of malformations judged against a schema
/// that refuses even the good file.
#[test]
fn a_results_schema_that_rejects_its_example_is_not_judged_by_the_corpus() {
    support::assert_recording_current();
    let s = SuiteCopy::new();
    edit_results_schema(&s, |sch| {
        sch["required"] = json!([]);
        sch["properties"]["sdk"]["maxLength"] = json!(3);
    });
    // And, on the recorded version, the schema is not the recorded one (BQ320): the example is
    // right, the schema changed.
    let findings = s.validate();
    assert_eq!(codes(&findings), ["BQ320", "BQ401"], "{findings:#?}");
}

/// Red team P06c: a roundtrip fixture's `attempts` rewritten as `0.0` passed validate: Draft-07's
/// `integer` accepts an integral float, but producer output writes an integer literal, and Go
/// refuses `0.0` into an int while PHP and Python keep a float. So does `1e0`.
#[test]
fn producer_output_writes_integers_as_integer_literals() {
    for literal in ["0.0", "0e0"] {
        let s = SuiteCopy::new();
        let rel = "fixtures/unknown-meta-roundtrip.json";
        let text = s.read(rel);
        let at = text.find("\"attempts\": 0").expect("the fixture has attempts 0");
        let edited = format!("{}\"attempts\": {literal}{}", &text[..at], &text[at + "\"attempts\": 0".len()..]);
        s.write(rel, edited);
        let f = s.validate();
        let one = assert_finding(&f, "BQ801", rel, Some("/attempts"));
        assert!(one.message.contains("integer literal"), "{}", one.message);
        assert_eq!(f.len(), 1, "{literal}: {f:#?}");
        // Such a fixture is a consumer tolerance, and the flag may say so: the schema passes it,
        // but it is no producer output (red team: no flag setting was accepted).
        s.edit_manifest(|m| {
            let cases = m["roundtrip"]["cases"].as_array_mut().unwrap();
            let case = cases.iter_mut().find(|c| c["name"] == "unknown-meta-roundtrip").unwrap();
            case["producer_schema_valid"] = serde_json::json!(false);
        });
        let f = s.validate();
        assert!(f.iter().all(|x| !["BQ801", "BQ802"].contains(&x.code.id)), "{literal}: {f:#?}");
    }
}
