//! `bqsuite diff` on real history and on one change of each kind; the SemVer rule; every kind
//! of side (directory, asset, released version, git revision) and the output formats.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use bqsuite::diff::source::{self, Options, Source};
use bqsuite::diff::{Bump, Change, Class, Diff, Kind, Op};
use serde_json::{Value, json};
use support::history::{
    NEW_BACKOFF_BLOCKS, NEW_REDIS_LAYOUT_BLOCKS, NEW_SECTIONS, suite_1_5_0, suite_1_6_0, without_correction_line,
};
use support::{SuiteCopy, bqsuite, repo, transcript};

/// Output with the temp paths and the CHANGELOG line (which moves as entries are edited) blanked.
fn stable(out: &[u8], old: &SuiteCopy, new: &SuiteCopy) -> String {
    let text = String::from_utf8_lossy(out)
        .replace(old.path().to_str().unwrap(), "OLD")
        .replace(new.path().to_str().unwrap(), "NEW");
    let mut lines = Vec::new();
    for line in text.split_inclusive('\n') {
        match line.find("CHANGELOG.md:") {
            Some(i) => {
                let rest = &line[i + "CHANGELOG.md:".len()..];
                let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                lines.push(format!("{}CHANGELOG.md:N{}", &line[..i], &rest[digits..]));
            }
            None => lines.push(line.to_owned()),
        }
    }
    lines.concat()
}

fn opts() -> Options {
    Options { repo: repo(), base_url: None, limits: Default::default() }
}

fn load(dir: &Path) -> bqsuite::diff::Loaded {
    source::load(&Source::Dir(dir.to_path_buf()), &opts()).unwrap()
}

fn diff(old: &Path, new: &Path) -> Diff {
    Diff::new(&load(old), &load(new), None).unwrap()
}

fn of_kind(d: &Diff, kind: Kind) -> Vec<&Change> {
    d.changes.iter().filter(|c| c.kind == kind).collect()
}

fn set<'a>(items: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    items.into_iter().map(str::to_owned).collect()
}

#[test]
fn history_1_5_0_to_1_6_0_is_exactly_the_spec_list_and_a_minor() {
    let (old, new) = (suite_1_5_0(), suite_1_6_0());
    let d = diff(old.path(), new.path());
    assert_eq!(d.old.version.as_deref(), Some("1.5.0"));
    assert_eq!(d.new.version.as_deref(), Some("1.6.0"));

    let sections = of_kind(&d, Kind::SectionAdded);
    assert_eq!(sections.iter().map(|c| c.section.as_deref().unwrap()).collect::<BTreeSet<_>>(), NEW_SECTIONS.into());
    let scopes: Vec<_> = sections.iter().map(|c| (c.section.clone().unwrap(), c.scope.clone().unwrap())).collect();
    for (name, scope) in
        [("redis_delay", "redis"), ("kafka_poison", "kafka"), ("retry_backoff", "core"), ("poison_dlq", "core")]
    {
        assert!(scopes.contains(&(name.to_owned(), scope.to_owned())), "{name}: {scopes:?}");
    }
    assert!(sections.iter().all(|c| !c.ids.is_empty()), "each lists its case ids");

    let blocks = of_kind(&d, Kind::BlockAdded);
    let named = |section: &str| -> BTreeSet<String> {
        blocks.iter().filter(|c| c.section.as_deref() == Some(section)).map(|c| c.block.clone().unwrap()).collect()
    };
    assert_eq!(named("backoff"), set(NEW_BACKOFF_BLOCKS));
    assert_eq!(named("redis_layout"), set(NEW_REDIS_LAYOUT_BLOCKS));
    assert_eq!(blocks.len(), 18);
    let pcall = blocks.iter().find(|c| c.block.as_deref() == Some("pcall_poison")).unwrap();
    let encode_fails: Vec<_> = pcall.ids.iter().filter(|i| i.starts_with("pcall_poison/encode-fails-")).collect();
    assert_eq!(encode_fails.len(), 4, "{:?}", pcall.ids);

    // One correction: the backoff.retry_republish block, every case whose expectation changed,
    // named in CHANGELOG.md with ADR-0034.
    let corrections: Vec<_> = d.changes.iter().filter(|c| c.class == Class::Correction).collect();
    let places: BTreeSet<_> = corrections.iter().map(|c| (c.section.clone(), c.block.clone())).collect();
    assert_eq!(places, [(Some("backoff".to_owned()), Some("retry_republish".to_owned()))].into());
    let ids: Vec<_> = corrections.iter().flat_map(|c| c.ids.clone()).collect();
    assert_eq!(
        ids,
        [
            "retry_republish/first-failure-first-tier",
            "retry_republish/second-failure-second-tier",
            "retry_republish/from-retry-topic-keeps-original-topic",
            "retry_republish/tiers-run-out-last-tier-repeats",
            "retry_republish/unsorted-tiers-by-delay",
        ]
    );
    // Each: the 1.5.0 release_delay_ms expectation replaced by the §6.5 tier's bq-delay.
    for c in &corrections {
        assert_eq!(c.kind, Kind::CaseChanged);
        let mut edits: Vec<_> = c.edits.iter().map(|e| (e.pointer.as_str(), e.op)).collect();
        edits.sort();
        assert_eq!(edits, [("/expect_headers/bq-delay", Op::Added), ("/release_delay_ms", Op::Removed)], "{c:#?}");
    }
    for c in &corrections {
        assert_eq!(c.named.as_ref().expect("named").adrs, ["ADR-0034"]);
    }

    // Nothing else but the block's rewritten description (prose).
    let rest: Vec<_> = d
        .changes
        .iter()
        .filter(|c| !matches!(c.kind, Kind::SectionAdded | Kind::BlockAdded) && c.class != Class::Correction)
        .collect();
    assert_eq!(rest.len(), 1, "{rest:#?}");
    assert_eq!((rest[0].kind, rest[0].class), (Kind::FieldsChanged, Class::Editorial));
    assert_eq!(rest[0].reference(), "backoff.retry_republish");
    assert!(rest[0].edits.is_empty() && rest[0].prose.len() == 1);

    assert_eq!(d.needed(), Bump::Minor);
    assert_eq!(d.actual(), Some(Bump::Minor));
}

#[test]
fn without_the_changelog_correction_line_the_same_history_needs_a_major() {
    let (old, new) = (suite_1_5_0(), suite_1_6_0());
    let text = std::fs::read_to_string(repo().join("CHANGELOG.md")).unwrap();
    let without = without_correction_line(&text);
    let d = Diff::new(&load(old.path()), &load(new.path()), Some(("CHANGELOG.md".into(), without))).unwrap();
    assert_eq!(d.needed(), Bump::Major);
    assert_eq!(d.unnamed_corrections().count(), 5);
    // An item that names the block but cites no ADR does not name it either.
    let no_adr = text.replace("- Correction (ADR-0034 §9):", "- Correction:");
    let d = Diff::new(&load(old.path()), &load(new.path()), Some(("CHANGELOG.md".into(), no_adr))).unwrap();
    assert_eq!(d.needed(), Bump::Major);
    // No CHANGELOG at all (a release asset has none).
    new.remove("CHANGELOG.md");
    assert_eq!(diff(old.path(), new.path()).needed(), Bump::Major);
}

#[test]
fn the_upgrade_report_for_an_sdk_with_sqs_and_kafka() {
    let (old, new) = (suite_1_5_0(), suite_1_6_0());
    let args = ["diff", old.path().to_str().unwrap(), new.path().to_str().unwrap(), "--bindings", "sqs,kafka"];
    let o = bqsuite(new.path(), &[&args[..], &["--format", "markdown"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = stable(&o.stdout, &old, &new);
    // core and kafka sections are listed with their case ids; redis is not an sqs/kafka scope.
    for want in [
        "### `core`",
        "### `kafka`",
        "section `retry_backoff` added",
        "section `kafka_poison` added",
        "block `backoff.topic_names` added",
        "`topic_names/default-tiers`",
        "expectation changed",
        "**smallest bump: MINOR",
    ] {
        assert!(md.contains(want), "{want:?} missing:\n{md}");
    }
    assert!(!md.contains("redis_delay") && !md.contains("### `redis`"), "{md}");
    insta::assert_snapshot!("upgrade_markdown_sqs_kafka", md);

    let o = bqsuite(new.path(), &args);
    let human = stable(&o.stdout, &old, &new);
    insta::assert_snapshot!("upgrade_human_sqs_kafka", human);

    let o = bqsuite(new.path(), &[&args[..], &["--format", "json"]].concat());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["bump"]["needed"], "minor");
    assert_eq!(v["scopes"], json!(["core", "kafka", "sqs"]));
    assert!(
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| ["core", "kafka", "sqs"].contains(&c["scope"].as_str().unwrap_or("core")))
    );
}

/// `--scope` shows the sections of those scopes only (the core changes hidden), so it must not
/// claim to show what an SDK carrying them must implement; `--bindings` does show that.
#[test]
fn scope_and_bindings_say_what_they_show() {
    let (old, new) = (suite_1_5_0(), suite_1_6_0());
    let (o, n) = (old.path().to_str().unwrap(), new.path().to_str().unwrap());
    let text = |args: &[&str]| {
        String::from_utf8_lossy(&bqsuite(new.path(), &[&["diff", o, n][..], args].concat()).stdout).into_owned()
    };
    let out = text(&["--scope", "redis"]);
    assert!(out.contains("showing only the changes in sections of scope redis, and the suite-wide ones"), "{out}");
    assert!(!out.contains("must implement") && !out.contains("\ncore\n"), "{out}");
    // The bump is the whole diff's, and the last line says changes are hidden, so "no changes"
    // never sits beside a bump.
    let last = out.lines().last().unwrap_or_default();
    assert!(last.contains(" more not shown; the whole diff's smallest bump MINOR"), "{out}");
    assert!(!last.contains("diff: no changes;"), "{out}");
    let md = text(&["--scope", "redis,kafka", "--format", "markdown"]);
    assert!(md.contains("Showing only the changes in sections of scopes `redis`, `kafka`"), "{md}");
    assert!(md.contains(" more not shown.\n"), "{md}");
    let out = text(&["--bindings", "kafka"]);
    assert!(out.contains("showing what an SDK carrying kafka must implement (the core sections and theirs)"), "{out}");
    assert!(out.contains("\ncore\n"), "{out}");
}

#[test]
fn exit_codes() {
    let s = suite_1_6_0();
    let p = s.path().to_str().unwrap();
    let same = bqsuite(s.path(), &["diff", p, p, "--exit-code"]);
    assert_eq!(same.status.code(), Some(0), "{}", transcript(&same));
    assert!(String::from_utf8_lossy(&same.stdout).contains("smallest bump: none (no changes)"));
    let old = suite_1_5_0();
    let changed = bqsuite(s.path(), &["diff", old.path().to_str().unwrap(), p, "--exit-code"]);
    assert_eq!(changed.status.code(), Some(1));
    assert_eq!(bqsuite(s.path(), &["diff", old.path().to_str().unwrap(), p]).status.code(), Some(0));
    let bad = bqsuite(s.path(), &["diff", "no-such-thing", p]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(transcript(&bad).contains("neither git:REV"), "{}", transcript(&bad));
    let bad = bqsuite(s.path(), &["diff", p, p, "--bindings", "core"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// In an SDK repository, `diff git:HEAD tests/conformance` from its root means the committed
/// copy against the working one: the revision is read at the other side's path when that is
/// a directory of the same work tree. Otherwise (a directory elsewhere) the current
/// directory's path stays, and a missing manifest names the path read and the fix.
#[test]
fn git_rev_is_read_at_the_other_side_s_path_in_the_same_work_tree() {
    let sdk = tempfile::tempdir().unwrap();
    let vendored = sdk.path().join("tests/conformance");
    let suite = SuiteCopy::new();
    support::copy_tree(suite.path(), &vendored);
    support::git(sdk.path(), &["init", "-q"]);
    support::git(sdk.path(), &["add", "-A"]);
    support::git(sdk.path(), &["commit", "-q", "-m", "vendor the suite"]);
    let manifest = vendored.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("\"expect_delay_ms\": 1000 }", "\"expect_delay_ms\": 1001 }", 1)).unwrap();
    for (cwd, other) in
        [(sdk.path(), "tests/conformance"), (&*sdk.path().join("tests"), "conformance"), (&*vendored, ".")]
    {
        let o = bqsuite(cwd, &["diff", "git:HEAD", other, "--format", "json"]);
        assert_eq!(o.status.code(), Some(0), "{other}: {}", transcript(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["changes"].as_array().unwrap().len(), 1, "{other}: {v:#}");
        assert_eq!(v["changes"][0]["ids"], json!(["defaults-first-retry"]));
    }
    // A directory outside the work tree: read at the current directory's path, which holds no
    // suite, and said so with the path read and the fix.
    let o = bqsuite(sdk.path(), &["diff", "git:HEAD", suite.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let t = transcript(&o);
    assert!(t.contains("git:HEAD: manifest.json is missing (read at HEAD:manifest.json"), "{t}");
    assert!(t.contains("give its directory as the other side (bqsuite diff git:HEAD path/to/suite)"), "{t}");
}

/// `--changelog FILE` is read as the suite's own CHANGELOG.md is: a FIFO is refused at once
/// (it once blocked the command forever), and the file is named.
#[test]
fn a_changelog_that_is_a_fifo_is_refused_not_read() {
    let s = suite_1_6_0();
    let p = s.path().to_str().unwrap();
    let fifo = s.path().join("CHANGES.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let o = support::bqsuite_within(s.path(), &["diff", p, p, "--changelog", fifo.to_str().unwrap()], &[], 30);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("CHANGES.fifo: not a regular file (a FIFO)"), "{}", transcript(&o));
    let given = s.path().join("CHANGES.md");
    std::fs::write(&given, std::fs::read(repo().join("CHANGELOG.md")).unwrap()).unwrap();
    let o = bqsuite(s.path(), &["diff", p, p, "--changelog", given.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("CHANGES.md, entry \"1.6.0\""), "{}", transcript(&o));
}

/// A copy changed by `edit`, diffed against the canonical suite: the changes.
fn one_change(edit: impl FnOnce(&SuiteCopy)) -> Vec<Change> {
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    edit(&new);
    diff(old.path(), new.path()).changes
}

fn only(changes: &[Change]) -> (Kind, Class) {
    assert_eq!(changes.len(), 1, "{changes:#?}");
    (changes[0].kind, changes[0].class)
}

#[test]
fn each_kind_of_change_in_a_real_suite() {
    // A section re-scoped.
    let c = one_change(|s| s.edit_manifest(|m| m["sections"]["delay"] = json!("kafka")));
    assert_eq!(only(&c), (Kind::SectionRescoped, Class::Breaking));
    // A case removed, one added.
    let c = one_change(|s| s.edit_manifest(|m| m["trim"]["cases"].as_array_mut().unwrap().truncate(3)));
    assert!(c.iter().all(|c| (c.kind, c.class) == (Kind::CaseRemoved, Class::Breaking)) && !c.is_empty());
    let c = one_change(|s| {
        s.edit_manifest(|m| {
            m["kafka_poison"]["cases"]
                .as_array_mut()
                .unwrap()
                .push(json!({"name": "new-row", "body": "{}", "expect": "no_identity"}))
        })
    });
    assert_eq!(only(&c), (Kind::CaseAdded, Class::Additive));
    assert_eq!(c[0].ids, ["new-row"]);
    // An expectation value: a correction; a retype: breaking; prose: editorial.
    let c = one_change(|s| {
        s.edit_manifest(|m| m["sqs"]["attempts_reconciliation"]["cases"][0]["expected_attempts"] = json!(7))
    });
    assert_eq!(only(&c), (Kind::CaseChanged, Class::Correction));
    let c = one_change(|s| {
        s.edit_manifest(|m| m["sqs"]["attempts_reconciliation"]["cases"][0]["expected_attempts"] = json!(0.0))
    });
    assert_eq!(only(&c), (Kind::CaseChanged, Class::Breaking));
    let c = one_change(|s| s.edit_manifest(|m| m["cases"][4]["reason"] = json!("other words")));
    assert_eq!(only(&c), (Kind::CaseChanged, Class::Editorial));
    // A new optional field on an existing case.
    let c = one_change(|s| s.edit_manifest(|m| m["roundtrip"]["cases"][0]["expect_more"] = json!({})));
    assert_eq!(only(&c), (Kind::FieldAdded, Class::Additive));
    // The producer schema: a constraint is breaking, a description editorial.
    let c = one_change(|s| {
        let mut v: Value = serde_json::from_str(&s.read("schema/message-envelope.schema.json")).unwrap();
        v["description"] = json!("reworded");
        s.write("schema/message-envelope.schema.json", serde_json::to_string_pretty(&v).unwrap());
    });
    assert_eq!(only(&c), (Kind::SchemaChanged, Class::Editorial));
    let c = one_change(|s| {
        let mut v: Value = serde_json::from_str(&s.read("schema/message-envelope.schema.json")).unwrap();
        v["required"].as_array_mut().unwrap().pop();
        s.write("schema/message-envelope.schema.json", serde_json::to_string_pretty(&v).unwrap());
    });
    assert_eq!(only(&c), (Kind::SchemaChanged, Class::Breaking));
    // exceptions.
    let c = one_change(|s| s.edit_manifest(|m| m["exceptions"] = json!([])));
    assert_eq!(only(&c), (Kind::ExceptionRemoved, Class::Additive));
    assert_eq!(c[0].scope.as_deref(), Some("asb"));
    // An entry's ADR or prose changed: editorial, shown as prose; any other member: breaking.
    let entry = |f: &dyn Fn(&mut Value)| one_change(|s| s.edit_manifest(|m| f(&mut m["exceptions"][0])));
    for c in [entry(&|e| e["adr"] = json!("ADR-0040")), entry(&|e| e["reason"] = json!("why"))] {
        assert_eq!(only(&c), (Kind::ExceptionChanged, Class::Editorial));
        assert_eq!((c[0].edits.len(), c[0].prose.len()), (0, 1), "{c:#?}");
    }
    let c = entry(&|e| e["cases"] = json!(["property_projection"]));
    assert_eq!(only(&c), (Kind::ExceptionChanged, Class::Breaking));
    assert_eq!((c[0].edits.len(), c[0].prose.len()), (1, 0), "{c:#?}");
    // Entries matched by family and binding wherever they stand: a changed one is scoped by
    // its own binding after another is inserted before it.
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    let go = json!({"family": "go", "binding": "sqs", "adr": "ADR-0021"});
    old.edit_manifest(|m| m["exceptions"].as_array_mut().unwrap().push(go.clone()));
    new.edit_manifest(|m| {
        let list = m["exceptions"].as_array_mut().unwrap();
        list.insert(0, json!({"family": "node", "binding": "kafka", "adr": "ADR-0021"}));
        let mut changed = go.clone();
        changed["cases"] = json!(["x"]);
        list.push(changed);
    });
    let c = diff(old.path(), new.path()).changes;
    let changed = c.iter().find(|c| c.kind == Kind::ExceptionChanged).unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!((changed.class, changed.scope.as_deref()), (Class::Breaking, Some("sqs")), "{c:#?}");
    assert!(c.iter().any(|c| c.kind == Kind::ExceptionAdded && c.scope.as_deref() == Some("kafka")), "{c:#?}");
    // schema_version.
    let c = one_change(|s| s.edit_manifest(|m| m["schema_version"] = json!(2)));
    assert_eq!(only(&c), (Kind::SchemaVersionChanged, Class::Breaking));
    // A section reshaped, its cases the same (red team of the release gate: it was editorial).
    let c = one_change(|s| s.edit_manifest(|m| m["roundtrip"] = m["roundtrip"]["cases"].clone()));
    assert!(c.iter().any(|c| (c.kind, c.class) == (Kind::FieldsChanged, Class::Breaking)), "{c:#?}");
    assert!(c.iter().all(|c| c.kind == Kind::FieldsChanged), "the cases are the same: {c:#?}");
    // A block's shared member removed: its cases lose an input (breaking); one added: additive;
    // one changed: a correction.
    let block = |f: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        one_change(|s| s.edit_manifest(|m| f(m["sqs"]["schema_version_gate"].as_object_mut().unwrap())))
    };
    assert_eq!(only(&block(&|b| drop(b.shift_remove("property")))), (Kind::FieldsChanged, Class::Breaking));
    assert_eq!(only(&block(&|b| drop(b.insert("trim".into(), json!(true))))), (Kind::FieldsChanged, Class::Additive));
    assert_eq!(
        only(&block(&|b| drop(b.insert("property".into(), json!("bq-version"))))),
        (Kind::FieldsChanged, Class::Correction)
    );
}

/// A member added to an existing case is a new optional field (additive) only when no case of
/// its block carried it on the old side. One the old version's cases already carry is a field
/// its runners evaluate whenever a case has it ("a runner evaluates an optional field only when
/// the case carries it"), so the case now tests something else: a correction of that case,
/// named by its case id, MAJOR unless the CHANGELOG names it. Inputs (`multiplier`) and
/// expectations (`expect_urn`) alike: the data does not say which a member is.
#[test]
fn a_member_other_cases_already_carry_is_a_correction_of_the_case_it_is_added_to() {
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    new.edit_manifest(|m| {
        let cases = m["roundtrip"]["cases"].as_array_mut().unwrap();
        let case = cases.iter_mut().find(|c| c["name"] == "unknown-toplevel-roundtrip").unwrap();
        case["apply_dead_letter"] = json!({"reason": "failed", "original_queue": "orders"});
        case["expect_dead_letter"] = json!({"reason": "failed", "original_queue": "orders"});
        case["expect_brand_new"] = json!(true);
        let trim = m["trim"]["cases"].as_array_mut().unwrap();
        let case =
            trim.iter_mut().find(|c| c["name"] == "trim-decode-padded-job-and-trace-id-reemitted-verbatim").unwrap();
        assert!(case.get("expect_urn").is_none());
        case["expect_urn"] = json!(" \turn:babel:orders:created\r\n");
        assert!(m["retry_backoff"]["cases"][1].get("multiplier").is_none());
        m["retry_backoff"]["cases"][1]["multiplier"] = json!(2);
    });
    let d = diff(old.path(), new.path());
    let got: Vec<(Kind, Class, String)> = d.changes.iter().map(|c| (c.kind, c.class, c.reference())).collect();
    assert_eq!(
        got,
        [
            (Kind::CaseChanged, Class::Correction, "roundtrip.unknown-toplevel-roundtrip".to_owned()),
            (Kind::FieldAdded, Class::Additive, "roundtrip".to_owned()),
            (
                Kind::CaseChanged,
                Class::Correction,
                "trim.trim-decode-padded-job-and-trace-id-reemitted-verbatim".to_owned()
            ),
            (Kind::CaseChanged, Class::Correction, "retry_backoff.defaults-stay-constant".to_owned()),
        ],
        "{:#?}",
        d.changes
    );
    let pointers: Vec<(&str, Op)> = d.changes[0].edits.iter().map(|e| (e.pointer.as_str(), e.op)).collect();
    assert_eq!(pointers, [("/apply_dead_letter", Op::Added), ("/expect_dead_letter", Op::Added)]);
    assert!(d.changes[0].note.as_deref().unwrap().contains("`apply_dead_letter`, `expect_dead_letter` are evaluated"));
    assert_eq!(d.changes[1].field.as_deref(), Some("expect_brand_new"), "a member no old case carries stays additive");
    assert_eq!(d.needed(), Bump::Major, "unnamed corrections");
    // Named in the entry as corrections, with the ADR: a MINOR.
    let changelog = "## 1.7.0\n\n- Correction (ADR-0031): `roundtrip.unknown-toplevel-roundtrip` now also moves the \
        message to the DLQ; corrects `trim.trim-decode-padded-job-and-trace-id-reemitted-verbatim` and \
        `retry_backoff` (ADR-0034).\n";
    new.write("CONFORMANCE_VERSION", "1.7.0\n");
    let d = Diff::new(&load(old.path()), &load(new.path()), Some(("CHANGELOG.md".into(), changelog.into()))).unwrap();
    assert_eq!(d.unnamed_corrections().count(), 1, "the retry_backoff case is named only by its section: {d:#?}");
    let changelog = changelog.replace("`retry_backoff`", "`retry_backoff.defaults-stay-constant`");
    let d = Diff::new(&load(old.path()), &load(new.path()), Some(("CHANGELOG.md".into(), changelog))).unwrap();
    assert_eq!(d.needed(), Bump::Minor);
}

/// Red team (release gate) F7: redis_layout's runner reads `queue`, `retry_after` and `state`
/// for every case (with defaults), so one added to a case of a block whose old cases all lack it
/// changes what the case tests: a correction, as for a member other cases carry. The section's
/// contract in the registry says which fields its runners evaluate; a member it does not name
/// stays a new optional field.
#[test]
fn a_field_of_the_section_s_contract_added_to_a_case_is_a_correction() {
    let block = |m: &Value| -> Vec<Value> { m["redis_layout"]["pcall_poison"]["cases"].as_array().unwrap().clone() };
    let old = SuiteCopy::new();
    let m: Value = serde_json::from_str(&old.read("manifest.json")).unwrap();
    assert!(block(&m).iter().all(|c| c.get("queue").is_none() && c.get("retry_after").is_none()));
    for (field, value) in [("queue", json!("billing")), ("retry_after", json!(120))] {
        let c = one_change(|s| s.edit_manifest(|m| m["redis_layout"]["pcall_poison"]["cases"][0][field] = value));
        assert_eq!(only(&c), (Kind::CaseChanged, Class::Correction), "{field}");
        assert!(c[0].note.as_deref().unwrap().contains("a field of its section's contract"), "{:?}", c[0].note);
    }
    let c = one_change(|s| {
        s.edit_manifest(|m| m["redis_layout"]["pcall_poison"]["cases"][0]["expect_brand_new"] = json!(1))
    });
    assert_eq!(only(&c), (Kind::FieldAdded, Class::Additive));
    // Carried by the cases of another block only (and named by no contract: a section the
    // registry does not know): a new optional field of this block.
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    let two_blocks = |m: &mut Value| {
        m["zz_blocks"] = json!({"a": {"cases": [{"name": "one", "x": 1}]}, "b": {"cases": [{"name": "two"}]}});
    };
    old.edit_manifest(two_blocks);
    new.edit_manifest(|m| {
        two_blocks(m);
        m["zz_blocks"]["b"]["cases"][0]["x"] = json!(1);
    });
    let c = diff(old.path(), new.path()).changes;
    assert_eq!(only(&c), (Kind::FieldAdded, Class::Additive), "{c:#?}");
}

/// The CHANGELOG names a correction only in an item that states one as a word: not "correct"
/// inside another word or as an adjective, not a negated statement, not an HTML comment
/// (invisible in the rendered file). Each of these once made an unnamed correction (MAJOR) a
/// named one (MINOR).
#[test]
fn a_changelog_item_that_says_nothing_was_corrected_names_no_correction() {
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    let mut v: Value = serde_json::from_str(&new.read("fixtures/invalid-missing-urn.json")).unwrap();
    v["data"] = json!({"changed": true});
    new.write("fixtures/invalid-missing-urn.json", serde_json::to_string_pretty(&v).unwrap());
    new.write("CONFORMANCE_VERSION", "1.7.0\n");
    let with = |item: &str| {
        let text = format!("# Changelog\n\n## 1.7.0\n\n{item}\n\n## 1.6.0\n\n- Old.\n");
        let d = Diff::new(&load(old.path()), &load(new.path()), Some(("CHANGELOG.md".into(), text))).unwrap();
        assert_eq!(only(&d.changes), (Kind::FixtureChanged, Class::Correction));
        d.needed()
    };
    for item in [
        "- Clarified `fixtures/invalid-missing-urn.json`; its expectation was already correct (ADR-0001).",
        "- No expectation is corrected in this release; `fixtures/invalid-missing-urn.json` is unchanged (ADR-0034).",
        "- Nothing is corrected: `fixtures/invalid-missing-urn.json` stays as ADR-0031 wrote it.",
        "- Additive only.\n\n<!-- Correction (ADR-0034): `fixtures/invalid-missing-urn.json` -->",
    ] {
        assert_eq!(with(item), Bump::Major, "{item}");
    }
    assert_eq!(with("- Correction (ADR-0031): `fixtures/invalid-missing-urn.json` now has other data."), Bump::Minor);
}

/// A schema is read as a schema: a member of a `const` value, or a 2020-12 `dependentSchemas`
/// name, that is spelt like an annotation keyword is no annotation, so changing it changes a
/// constraint (breaking); the sets `required` and `enum` in another order are the same
/// constraints (editorial, their bytes changed).
#[test]
fn schema_keywords_are_read_where_keywords_stand_and_sets_are_sets() {
    let schema = |s: &SuiteCopy, file: &str, edit: &dyn Fn(&mut Value)| {
        let mut v: Value = serde_json::from_str(&s.read(file)).unwrap();
        edit(&mut v);
        s.write(file, serde_json::to_string_pretty(&v).unwrap());
    };
    let envelope = "schema/message-envelope.schema.json";
    let both = |edit: &dyn Fn(&mut Value), file: &str, change: &dyn Fn(&mut Value)| {
        let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
        schema(&old, file, edit);
        schema(&new, file, edit);
        schema(&new, file, change);
        diff(old.path(), new.path()).changes
    };
    let c = both(
        &|v| v["properties"]["meta"]["properties"]["policy"] = json!({"const": {"title": "strict"}}),
        envelope,
        &|v| v["properties"]["meta"]["properties"]["policy"]["const"]["title"] = json!("lenient"),
    );
    assert_eq!(only(&c), (Kind::SchemaChanged, Class::Breaking));
    assert_eq!(c[0].edits.len(), 1, "a constraint, not prose: {c:#?}");
    let results = "schema/results.schema.json";
    let c = both(&|v| v["dependentSchemas"] = json!({"title": {"required": ["sdk"]}}), results, &|v| {
        v["dependentSchemas"]["title"]["required"] = json!(["version"])
    });
    assert_eq!(only(&c), (Kind::SchemaChanged, Class::Breaking));
    // Sets in another order.
    let c = one_change(|s| {
        schema(s, envelope, &|v| {
            v["required"].as_array_mut().unwrap().reverse();
            v["properties"]["meta"]["properties"]["lang"]["enum"].as_array_mut().unwrap().reverse();
        })
    });
    assert_eq!(only(&c), (Kind::SchemaChanged, Class::Editorial));
    assert!(c[0].edits.is_empty() && c[0].note.as_deref().unwrap().contains("set-valued"), "{c:#?}");
    // A set that changed is still a constraint change.
    let c = one_change(|s| {
        schema(s, envelope, &|v| {
            v["required"].as_array_mut().unwrap().swap_remove(0);
        })
    });
    assert_eq!(only(&c), (Kind::SchemaChanged, Class::Breaking));
}

/// A `skip_policy` rule's `cases` is a set of `{section, case}` and `{section, block}`: one
/// entry inserted anywhere is one addition (additive), one taken out a removal (breaking),
/// never a cascade of positional changes. (Into an `all_or_none` rule an added entry is
/// breaking: red team F1 of the release gate, below.)
#[test]
fn a_skip_policy_rule_s_cases_are_a_set() {
    let entry = json!({"section": "redis_layout", "block": "xyz"});
    let rule = |m: &mut Value, name: &str| -> usize {
        m["skip_policy"]["rules"].as_array().unwrap().iter().position(|r| r["name"] == name).unwrap()
    };
    let c = one_change(|s| {
        s.edit_manifest(|m| {
            let i = rule(m, "no-null-property");
            m["skip_policy"]["rules"][i]["cases"].as_array_mut().unwrap().insert(0, entry.clone())
        })
    });
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Additive));
    assert_eq!(c[0].edits.len(), 1, "{c:#?}");
    assert_eq!(c[0].edits[0].new.as_ref(), Some(&entry));
    // no-live-redis is all or none: once a case it covers ran it allows no skip, so a case added
    // to it that every run runs takes every no-Redis skip away (a file Compatible under the old
    // version is not under the new).
    let c = one_change(|s| {
        s.edit_manifest(|m| {
            let i = rule(m, "no-live-redis");
            let added = json!({"section": "redis_layout", "case": "zset-layout-key-names"});
            m["skip_policy"]["rules"][i]["cases"].as_array_mut().unwrap().insert(1, added)
        })
    });
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Breaking));
    let c = one_change(|s| {
        s.edit_manifest(|m| {
            m["skip_policy"]["rules"][0]["cases"].as_array_mut().unwrap().remove(0);
        })
    });
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Breaking));
    assert_eq!(c[0].edits.len(), 1, "{c:#?}");
    let c =
        one_change(|s| s.edit_manifest(|m| m["skip_policy"]["rules"][0]["cases"].as_array_mut().unwrap().reverse()));
    assert!(c.iter().all(|c| c.kind == Kind::FileChanged), "reordered, the same set: {c:#?}");
}

/// The version check tells "lower" (in SemVer precedence, where a pre-release is below its
/// release) from "not SemVer", in words and in JSON; a version with build metadata reads its
/// `## X.Y.Z` CHANGELOG entry.
#[test]
fn versions_lower_not_semver_and_with_build_metadata() {
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    let run = |version: &str| {
        new.write("CONFORMANCE_VERSION", format!("{version}\n"));
        let args =
            |f: &'static str| ["diff", old.path().to_str().unwrap(), new.path().to_str().unwrap(), "--format", f];
        let json = bqsuite(new.path(), &args("json"));
        assert_eq!(json.status.code(), Some(0), "{}", transcript(&json));
        let v: Value = serde_json::from_slice(&json.stdout).unwrap();
        let human = String::from_utf8_lossy(&bqsuite(new.path(), &args("human")).stdout).into_owned();
        (v["bump"].clone(), human)
    };
    // The old side is the canonical suite; `minor` its next MINOR.
    let (v, minor) = (support::version(), support::bumped("minor"));
    let (bump, human) = run(&format!("{v}-pre"));
    assert_eq!((&bump["actual"], &bump["version_order"]), (&Value::Null, &json!("lower")));
    assert!(human.contains(&format!("version bump {v} → {v}-pre: a lower version ({v}-pre < {v}")), "{human}");
    for bad in ["v1.7.0", "1.7", "01.7.0"] {
        let (bump, human) = run(bad);
        assert_eq!((&bump["actual"], &bump["version_order"]), (&Value::Null, &json!("not-semver")), "{bad}");
        assert!(human.contains(&format!("version bump {v} → {bad}: not SemVer (\"{bad}\" is not")), "{human}");
    }
    let (bump, _) = run(&minor);
    assert_eq!((&bump["actual"], &bump["version_order"]), (&json!("minor"), &json!("higher")));
    let (bump, _) = run(&format!("{v}+build.1"));
    assert_eq!((&bump["actual"], &bump["version_order"]), (&json!("none"), &json!("same")));
    // Build metadata: the entry is `## MINOR`, and it names the correction.
    new.edit_manifest(|m| m["cases"][0]["expect"]["attempts"] = json!(3));
    new.write("CONFORMANCE_VERSION", format!("{minor}+build.1\n"));
    let text = format!("## {minor}\n\n- Correction (ADR-0034): `cases.order-created`.\n");
    let d = Diff::new(&load(old.path()), &load(new.path()), Some(("CHANGELOG.md".into(), text))).unwrap();
    assert_eq!(d.changelog.entry.as_deref(), Some(minor.as_str()));
    assert_eq!((d.needed(), d.unnamed_corrections().count()), (Bump::Minor, 0));
}

/// A case moved out of its section's `cases` array into a sub-key of the same name keeps its
/// id, but runners that iterate `cases` no longer find it there: a removal from `cases`
/// (breaking) and a block added, not only the block.
#[test]
fn a_case_moved_out_of_cases_into_a_sub_key_is_removed_from_cases() {
    let c = one_change(|s| {
        s.edit_manifest(|m| {
            let case = m["roundtrip"]["cases"].as_array_mut().unwrap().remove(0);
            assert_eq!(case["name"], "unknown-meta-roundtrip");
            m["roundtrip"]["unknown-meta-roundtrip"] = case;
        })
    });
    let got: Vec<(Kind, Class, Vec<String>, Option<String>)> =
        c.iter().map(|c| (c.kind, c.class, c.ids.clone(), c.block.clone())).collect();
    assert_eq!(
        got,
        [
            (
                Kind::BlockAdded,
                Class::Additive,
                vec!["unknown-meta-roundtrip".to_owned()],
                Some("unknown-meta-roundtrip".to_owned())
            ),
            (Kind::CaseRemoved, Class::Breaking, vec!["unknown-meta-roundtrip".to_owned()], None),
        ],
        "{c:#?}"
    );
    assert_eq!(c[1].pointer.as_deref(), Some("/roundtrip/cases/0"));
}

/// A manifest re-indented (its JSON unchanged) is a change like a re-indented fixture: one
/// editorial `file-changed`, so PATCH and `--exit-code` 1, never "no changes" (every vendored
/// copy's manifest.json bytes change).
#[test]
fn a_reformatted_manifest_is_an_editorial_change() {
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    let v: Value = serde_json::from_str(&new.read("manifest.json")).unwrap();
    new.write("manifest.json", serde_json::to_string(&v).unwrap());
    let d = diff(old.path(), new.path());
    assert_eq!(only(&d.changes), (Kind::FileChanged, Class::Editorial));
    assert_eq!(d.changes[0].file.as_deref(), Some("manifest.json"));
    assert_eq!(d.needed(), Bump::Patch);
    let o = bqsuite(new.path(), &["diff", old.path().to_str().unwrap(), new.path().to_str().unwrap(), "--exit-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("(formatting only: the JSON is the same)"),
        "{}",
        transcript(&o)
    );
    // Only the version moved (the sides' versions, not a change): still nothing.
    new.write(
        "manifest.json",
        old.read("manifest.json").replace(
            &format!("\"conformance_version\": \"{}\"", support::version()),
            &format!("\"conformance_version\": \"{}\"", support::bumped("patch")),
        ),
    );
    new.write("CONFORMANCE_VERSION", format!("{}\n", support::bumped("patch")));
    assert!(diff(old.path(), new.path()).changes.is_empty());
}

/// A manifest whose JSON changed only where the comparison does not look (named cases and keyed
/// rules in another order) is still a changed file: every copy's bytes, and the asset's
/// checksum, change. It was "no changes", so the same version could be released again with
/// other bytes.
#[test]
fn a_manifest_reordered_where_the_comparison_does_not_look_is_an_editorial_change() {
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap();
    let v: Value = serde_json::from_str(&old.read("manifest.json")).unwrap();
    old.write("manifest.json", pretty(&v));
    let mut w = v.clone();
    w["roundtrip"]["cases"].as_array_mut().unwrap().reverse();
    w["skip_policy"]["rules"].as_array_mut().unwrap().reverse();
    new.write("manifest.json", pretty(&w));
    let d = diff(old.path(), new.path());
    assert_eq!(only(&d.changes), (Kind::FileChanged, Class::Editorial));
    assert_eq!(d.changes[0].file.as_deref(), Some("manifest.json"));
    assert!(d.changes[0].note.as_deref().unwrap().contains("does not weigh"), "{:#?}", d.changes);
    assert_eq!(d.needed(), Bump::Patch);
}

/// A key repeated in manifest.json is weighed: serde_json keeps the last value, but a parser
/// that keeps the first (or refuses repeats, BQ007) reads another expectation. So a repeat
/// added, removed or changed is a breaking change of the case, section or policy it lies in,
/// with a note, never an editorial change of the file; and so is a case id repeated in a block.
#[test]
fn repeated_keys_and_case_ids_in_the_manifest_are_breaking() {
    let row = "{ \"name\": \"defaults-first-retry\", \"retry_backoff\": 1000, \"jitter\": \"none\", \"n\": 1, \"expect_delay_ms\": 1000 },";
    let repeat = row.replace("\"expect_delay_ms\": 1000", "\"expect_delay_ms\": 2000, \"expect_delay_ms\": 1000");
    let breaking = |c: &[Change], kind: Kind, reference: &str, says: &str| {
        assert_eq!(only(c), (kind, Class::Breaking), "{c:#?}");
        assert_eq!(c[0].reference(), reference);
        assert!(c[0].note.as_deref().unwrap_or_default().contains(says), "{c:#?}");
    };
    // Added, removed, and changed in its first value.
    let key = "`/expect_delay_ms` written 2 times (was 1 time)";
    breaking(
        &replaced("manifest.json", row, row, &repeat),
        Kind::CaseChanged,
        "retry_backoff.defaults-first-retry",
        key,
    );
    let key = "`/expect_delay_ms` written 1 time (was 2 times)";
    breaking(
        &replaced("manifest.json", row, &repeat, row),
        Kind::CaseChanged,
        "retry_backoff.defaults-first-retry",
        key,
    );
    let other = repeat.replace("2000", "3000");
    let key = "written 2 times on both sides, with other values";
    breaking(
        &replaced("manifest.json", row, &repeat, &other),
        Kind::CaseChanged,
        "retry_backoff.defaults-first-retry",
        key,
    );
    // The same repeat on both sides is no change, wherever its case now lies.
    assert!(replaced("manifest.json", row, &repeat, &repeat).is_empty());
    let moved = format!(
        "{{ \"name\": \"inserted\", \"retry_backoff\": 5, \"jitter\": \"none\", \"n\": 1, \"expect_delay_ms\": 5 }},\n      {repeat}"
    );
    let c = replaced("manifest.json", row, &repeat, &moved);
    assert_eq!(only(&c), (Kind::CaseAdded, Class::Additive), "matched by id, not by position: {c:#?}");
    // A repeat that also changes the last value: the case's edit, made breaking.
    let c = replaced("manifest.json", row, row, &repeat.replace(": 1000 }", ": 999 }"));
    breaking(&c, Kind::CaseChanged, "retry_backoff.defaults-first-retry", "BQ007");
    assert_eq!(c[0].edits.len(), 1);
    // A whole section key repeated ahead of the section.
    let head = "  \"rabbitmq\": {";
    let c = replaced("manifest.json", head, head, &format!("  \"rabbitmq\": {{\"description\": \"decoy\"}},\n{head}"));
    breaking(&c, Kind::FieldsChanged, "rabbitmq", "`/rabbitmq` written 2 times");
    // A case id repeated in its block.
    let c = replaced("manifest.json", row, row, &format!("{}\n      {row}", row.replace(": 1000 }", ": 2000 }")));
    breaking(
        &c,
        Kind::CaseChanged,
        "retry_backoff.defaults-first-retry",
        "the case id `defaults-first-retry` occurs 2 times (was 1 time)",
    );
    // In the skip policy, and in suite metadata (manifest.json as a whole).
    let top = "{\n  \"schema_version\": 1,";
    let c = replaced("manifest.json", top, top, &format!("{top}\n  \"schema_version\": 2,\n  \"schema_version\": 1,"));
    breaking(&c, Kind::FileChanged, "manifest.json", "`/schema_version` written 3 times");
    let policy = "  \"skip_policy\": {";
    let c = replaced("manifest.json", policy, policy, &format!("{policy}\n    \"rules\": [],"));
    breaking(&c, Kind::SkipPolicyChanged, "skip_policy", "`/skip_policy/rules` written 2 times");
}

/// A case pointed at another fixture reads what that file holds: the old file's JSON is
/// compared with the new one's, shown under the case, and the case takes the stronger class of
/// the two (a retype copied to `-v2.json` is as breaking as the retype made in place). The
/// same bytes under another name leave a correction; a `valid: false` reader makes a content
/// change a correction; a block's shared reference is classed by the block's readers.
#[test]
fn a_case_pointed_at_another_fixture_is_classed_by_what_that_fixture_holds() {
    let repoint = |copy: &str, edit: &dyn Fn(&str) -> String, manifest: &dyn Fn(&mut Value)| {
        let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
        new.write(&copy.replace(".json", "-v2.json"), edit(&new.read(copy)));
        new.edit_manifest(manifest);
        diff(old.path(), new.path()).changes
    };
    let meta = "fixtures/unknown-meta-roundtrip.json";
    let point = |m: &mut Value| {
        let case = m["roundtrip"]["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["file"] == meta).unwrap();
        case["file"] = json!("fixtures/unknown-meta-roundtrip-v2.json");
    };
    // Retyped in the copy: breaking, the retype shown under the case.
    let c = repoint(meta, &|t| t.replace("1042", "1042.0"), &point);
    let case = c.iter().find(|c| c.kind == Kind::CaseChanged).expect("the case changed");
    assert_eq!(case.class, Class::Breaking, "{c:#?}");
    let f = &case.fixtures[..];
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].pointer.as_str(), f[0].old_file.as_str(), f[0].class), ("/file", meta, Class::Breaking));
    let edits: Vec<_> = f[0].edits.iter().map(|e| (e.pointer.as_str(), e.op)).collect();
    assert_eq!(edits, [("/data/order_id", Op::Retyped)]);
    assert!(c.iter().any(|c| c.kind == Kind::FixtureAdded), "{c:#?}");
    // The same bytes: the reference change alone, a correction.
    let c = repoint(meta, &|t| t.to_owned(), &point);
    let case = c.iter().find(|c| c.kind == Kind::CaseChanged).unwrap();
    assert_eq!((case.class, case.fixtures[0].note.as_deref()), (Class::Correction, Some("the same bytes")));
    // Only a valid: false case reads it: a correction, as in place.
    let invalid = "fixtures/invalid-missing-urn.json";
    let c = repoint(invalid, &|t| t.replace("\"data\"", "\"data\": {\"changed\": true}, \"was\""), &|m| {
        let case = m["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["file"] == invalid).unwrap();
        case["file"] = json!("fixtures/invalid-missing-urn-v2.json");
    });
    let case = c.iter().find(|c| c.kind == Kind::CaseChanged).unwrap();
    assert_eq!((case.class, case.fixtures[0].class), (Class::Correction, Class::Correction), "{c:#?}");
    // A block's shared reference, read by its valid cases: breaking.
    let order = "fixtures/order-created.json";
    let c = repoint(order, &|t| t.replace("\"attempts\": 0", "\"attempts\": 1"), &|m| {
        m["delay"]["send"]["envelope_file"] = json!("fixtures/order-created-v2.json");
    });
    let fields = c.iter().find(|c| c.kind == Kind::FieldsChanged).expect("the block's shared fields changed");
    assert_eq!((fields.class, fields.reference().as_str()), (Class::Breaking, "delay.send"), "{c:#?}");
    assert_eq!(fields.fixtures[0].edits.len(), 1);
    // As shown.
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    new.write("fixtures/unknown-meta-roundtrip-v2.json", new.read(meta).replace("1042", "1042.0"));
    new.edit_manifest(point);
    let o = bqsuite(new.path(), &["diff", old.path().to_str().unwrap(), new.path().to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("[breaking] case `roundtrip.unknown-meta-roundtrip`"), "{out}");
    assert!(out.contains("! /data/order_id: 1042 (integer) → 1042.0 (number)"), "{out}");
}

/// A case that reads a changed fixture on both sides, `valid` flipped between them, is one
/// reader: named once, in every format.
#[test]
fn a_fixture_s_readers_are_named_once() {
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    let fixture = "fixtures/unicode-and-numbers.json";
    new.write(fixture, new.read(fixture).replace("\"qty\": 7", "\"qty\": 8"));
    new.edit_manifest(|m| {
        let case = m["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["file"] == fixture).unwrap();
        case["valid"] = json!(false);
    });
    let d = diff(old.path(), new.path());
    let f = d.changes.iter().find(|c| c.kind == Kind::FixtureChanged).expect("the fixture changed");
    assert_eq!(f.ids, ["cases.unicode-and-numbers"]);
    let o = bqsuite(new.path(), &["diff", old.path().to_str().unwrap(), new.path().to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("fixture `{fixture}` changed (read by 1 case)")), "{out}");
    // Markdown names the reader as human text and JSON do.
    let o = bqsuite(
        new.path(),
        &["diff", old.path().to_str().unwrap(), new.path().to_str().unwrap(), "--format", "markdown"],
    );
    let md = String::from_utf8_lossy(&o.stdout);
    let at = md.find(&format!("fixture `{fixture}` changed (read by 1 case)")).expect(&md);
    assert!(md[at..].lines().nth(1).is_some_and(|l| l == "  - `cases.unicode-and-numbers`"), "{md}");
}

/// The rows of the manual's classes table where the tool's rule is narrower than a first
/// reading: a section's own description and the skip policy's prose are editorial, and a
/// retype in a fixture only `valid: false` cases read is a correction, not "any value retyped".
#[test]
fn prose_of_sections_and_the_skip_policy_and_retypes_in_refused_fixtures() {
    let c = one_change(|s| s.edit_manifest(|m| m["trim"]["description"] = json!("reworded")));
    assert_eq!(only(&c), (Kind::FieldsChanged, Class::Editorial));
    let c = one_change(|s| s.edit_manifest(|m| m["skip_policy"]["description"] = json!("reworded")));
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Editorial));
    let c = one_change(|s| s.edit_manifest(|m| m["skip_policy"]["rules"][0]["reason"] = json!("a new reason")));
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Editorial));
    let c = one_change(|s| {
        let fixture = "fixtures/invalid-missing-urn.json";
        let mut v: Value = serde_json::from_str(&s.read(fixture)).unwrap();
        assert!(v["attempts"].is_u64(), "pick an integer to retype");
        v["attempts"] = json!(0.0);
        s.write(fixture, serde_json::to_string_pretty(&v).unwrap());
    });
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Correction));
    assert_eq!(c[0].edits[0].op, Op::Retyped);
}

/// A CR LF checkout (git's core.autocrlf) compared with LF files: every file is editorial with
/// a note that only the line endings differ, the rule `sync --check` applies.
#[test]
fn line_endings_only_are_said_as_such() {
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    for rel in ["manifest.json", "fixtures/order-created.json", "schema/message-envelope.schema.json", "LICENSE"] {
        new.write(rel, new.read(rel).replace('\n', "\r\n"));
    }
    let d = diff(old.path(), new.path());
    assert_eq!(d.changes.len(), 4, "{:#?}", d.changes);
    for c in &d.changes {
        assert_eq!(c.class, Class::Editorial, "{c:#?}");
        assert!(c.note.as_deref().unwrap().starts_with("line endings only"), "{c:#?}");
    }
    assert_eq!(d.needed(), Bump::Patch);
}

#[test]
fn fixtures_byte_wise_and_semantically() {
    // Re-indented: the same JSON, editorial.
    let c = one_change(|s| {
        let v: Value = serde_json::from_str(&s.read("fixtures/order-created.json")).unwrap();
        s.write("fixtures/order-created.json", serde_json::to_string(&v).unwrap());
    });
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Editorial));
    // The same JSON with a literal spelled otherwise (red team F2, stop 49): the escaped
    // no-break space of the trim fixture written as the character is another input for every
    // decoder that reads it, a correction named by the fixture's path (decisions R3).
    let c = one_change(|s| {
        let text = s.read("fixtures/trim-decode-nbsp-job-is-not-blank.json").replace("\\u00a0", "\u{a0}");
        s.write("fixtures/trim-decode-nbsp-job-is-not-blank.json", text);
    });
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Correction));
    assert!(c[0].note.as_deref().unwrap().contains("spelled otherwise"), "{c:#?}");
    assert_eq!(c[0].reference(), "fixtures/trim-decode-nbsp-job-is-not-blank.json");
    // The escape moved from the tested field to a decoy that held the raw character: the same
    // strings, spelled the same, in other places (second red team, stop 49).
    let nbsp = "fixtures/trim-decode-nbsp-job-is-not-blank.json";
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    let text = old.read(nbsp);
    old.write(nbsp, text.replace("\"order_id\": 1042", "\"order_id\": 1042, \"note\": \"\u{a0}\""));
    new.write(
        nbsp,
        text.replace("\"job\": \"\\u00a0\"", "\"job\": \"\u{a0}\"")
            .replace("\"order_id\": 1042", "\"order_id\": 1042, \"note\": \"\\u00a0\""),
    );
    let c = diff(old.path(), new.path()).changes;
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Correction));
    // A value of a fixture valid cases read: breaking, with its readers.
    let c = one_change(|s| {
        let text = s.read("fixtures/order-created.json").replace("\"attempts\": 0", "\"attempts\": 1");
        s.write("fixtures/order-created.json", text);
    });
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Breaking));
    assert!(c[0].ids.contains(&"cases.order-created".to_owned()), "{:?}", c[0].ids);
    assert!(c[0].ids.iter().any(|i| i.starts_with("sqs.")), "block-level envelope_file readers: {:?}", c[0].ids);
    assert!(c[0].scopes.contains(&"sqs".to_owned()));
    // A fixture only a valid: false case reads: a correction, named by its path.
    let c = one_change(|s| {
        let mut v: Value = serde_json::from_str(&s.read("fixtures/invalid-missing-urn.json")).unwrap();
        v["data"] = json!({"changed": true});
        s.write("fixtures/invalid-missing-urn.json", serde_json::to_string_pretty(&v).unwrap());
    });
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Correction));
    assert_eq!(c[0].reference(), "fixtures/invalid-missing-urn.json");
    // The repeated keys of the last-wins fixture are meaning, not formatting.
    let c = one_change(|s| {
        let v: Value = serde_json::from_str(&s.read("fixtures/duplicate-keys-last-wins.json")).unwrap();
        s.write("fixtures/duplicate-keys-last-wins.json", serde_json::to_string_pretty(&v).unwrap());
    });
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Breaking));
    // A fixture added (with the case that reads it) and removed.
    let c = one_change(|s| {
        s.write("fixtures/extra.json", "{}");
        s.edit_manifest(|m| {
            m["cases"]
                .as_array_mut()
                .unwrap()
                .push(json!({"name": "extra", "file": "fixtures/extra.json", "valid": false, "reason": "r"}))
        });
    });
    assert_eq!(
        c.iter().map(|c| (c.kind, c.class)).collect::<Vec<_>>(),
        [(Kind::CaseAdded, Class::Additive), (Kind::FixtureAdded, Class::Additive)]
    );
    let c = one_change(|s| s.remove("fixtures/urn-alias.json"));
    assert_eq!(only(&c), (Kind::FixtureRemoved, Class::Breaking));
    // The version bump itself, in the three places that say it, is no change: the results
    // example's conformance_version is the version, as the manifest's is. Anything else in the
    // example still is.
    let c = one_change(|s| support::set_version(s.path(), &support::bumped("patch")));
    assert!(c.is_empty(), "{c:#?}");
    let c = one_change(|s| {
        support::set_version(s.path(), &support::bumped("patch"));
        s.write(
            "schema/results.example.json",
            s.read("schema/results.example.json").replacen("\"sdk\"", "\"sdk\" ", 1),
        );
    });
    assert_eq!(only(&c), (Kind::SchemaChanged, Class::Editorial));
    // LICENSE and the results example are documentation.
    let c = one_change(|s| s.write("LICENSE", "other"));
    assert_eq!(only(&c), (Kind::FileChanged, Class::Editorial));
    let c = one_change(|s| s.remove("schema/results.example.json"));
    assert_eq!(only(&c), (Kind::SchemaRemoved, Class::Editorial));
    // A schema added, one removed.
    let c = one_change(|s| s.write("schema/extra.schema.json", "{}"));
    assert_eq!(only(&c), (Kind::SchemaAdded, Class::Additive));
    let c = one_change(|s| s.remove("schema/results.schema.json"));
    assert_eq!(only(&c), (Kind::SchemaRemoved, Class::Breaking));
}

/// The release asset of a suite directory, written into `out` with its SHA256SUMS line.
fn asset_of(dir: &Path, out: &Path) -> std::path::PathBuf {
    let suite = bqsuite::suite::Suite::load(dir).unwrap();
    let files: Vec<(&str, &[u8])> = suite
        .files()
        .filter(|f| bqsuite::release::layout::in_release(&f.rel))
        .map(|f| (f.rel.as_str(), f.bytes()))
        .collect();
    let asset = bqsuite::release::assemble(suite.version().unwrap(), &files).unwrap();
    std::fs::create_dir_all(out).unwrap();
    let path = out.join(&asset.name);
    std::fs::write(&path, &asset.bytes).unwrap();
    let sums = out.join("SHA256SUMS");
    let mut text = std::fs::read_to_string(&sums).unwrap_or_default();
    text.push_str(&asset.sha256sums());
    std::fs::write(sums, text).unwrap();
    path
}

#[test]
fn two_assets_diff_as_the_directories_they_were_built_from() {
    // The suite's own history, 1.5.0 and 1.6.0 (so `diff 1.5.0 1.6.0` below names them).
    let (old, new) = (suite_1_5_0(), suite_1_6_0());
    // An asset ships no CHANGELOG.md, so the directories compared with it have none either.
    for s in [&old, &new] {
        let _ = std::fs::remove_file(s.path().join("CHANGELOG.md"));
    }
    let dist = tempfile::tempdir().unwrap();
    let (a, b) = (asset_of(old.path(), dist.path()), asset_of(new.path(), dist.path()));
    let from_assets = Diff::new(
        &source::load(&Source::parse(a.to_str().unwrap()).unwrap(), &opts()).unwrap(),
        &source::load(&Source::parse(b.to_str().unwrap()).unwrap(), &opts()).unwrap(),
        None,
    )
    .unwrap();
    let from_dirs = diff(old.path(), new.path());
    assert!(!from_dirs.changes.is_empty());
    assert_eq!(from_assets.changes, from_dirs.changes);
    assert_eq!(from_assets.needed(), from_dirs.needed());
    assert_eq!((from_assets.old.version, from_assets.new.version), (from_dirs.old.version, from_dirs.new.version));

    // The same through released versions from a file:// base (as `fetch` reads them).
    let base = format!("file://{}", dist.path().display());
    let o = support::bqsuite_env(
        new.path(),
        &["diff", "1.5.0", "1.6.0", "--format", "json"],
        &[("BQ_CONFORMANCE_BASE_URL", &base)],
    );
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["changes"], serde_json::to_value(&from_dirs.changes).unwrap());

    // A tampered asset is refused by fetch's reader (its SHA256SUMS no longer matches).
    let mut bytes = std::fs::read(&a).unwrap();
    bytes[20] ^= 1;
    std::fs::write(&a, bytes).unwrap();
    let o = bqsuite(new.path(), &["diff", a.to_str().unwrap(), new.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(transcript(&o).contains("refusing the asset"), "{}", transcript(&o));
}

/// With no CHANGELOG to check (two release assets, or directories without one), whether a
/// MINOR is enough depends on an entry nobody read: the output says both answers, never "less
/// than needed" for a bump that naming the corrections would make enough.
#[test]
fn without_a_changelog_the_bump_is_said_both_ways() {
    let (old, new) = (suite_1_5_0(), suite_1_6_0());
    new.remove("CHANGELOG.md");
    let args = ["diff", old.path().to_str().unwrap(), new.path().to_str().unwrap()];
    let out = String::from_utf8_lossy(&bqsuite(new.path(), &args).stdout).into_owned();
    let both = "MINOR if the new version's CHANGELOG entry names each correction with its ADR, else MAJOR";
    assert!(out.contains(&format!("smallest bump: {both} (")), "{out}");
    assert!(
        out.contains("version bump 1.5.0 → 1.6.0: MINOR, enough if the new version's CHANGELOG entry names"),
        "{out}"
    );
    assert!(!out.contains("less than needed"), "{out}");
    assert!(out.contains("5 correction(s) not checked against a CHANGELOG"), "{out}");
    let json = bqsuite(new.path(), &[&args[..], &["--format", "json"]].concat());
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!((&v["bump"]["needed"], &v["bump"]["needed_if_named"]), (&json!("major"), &json!("minor")));
    // A bump that naming would not make enough is still less than needed.
    new.write("CONFORMANCE_VERSION", "1.5.1\n");
    let out = String::from_utf8_lossy(&bqsuite(new.path(), &args).stdout).into_owned();
    assert!(out.contains("version bump 1.5.0 → 1.5.1: PATCH, less than needed"), "{out}");
    // With a CHANGELOG that does not name them, MAJOR is the answer.
    new.write("CONFORMANCE_VERSION", "1.6.0\n");
    new.write("CHANGELOG.md", "## 1.6.0\n\n- Nothing named.\n");
    let out = String::from_utf8_lossy(&bqsuite(new.path(), &args).stdout).into_owned();
    assert!(out.contains("version bump 1.5.0 → 1.6.0: MINOR, less than needed"), "{out}");
    assert!(out.contains("smallest bump: MAJOR ("), "{out}");
}

/// Both sides' copies with `text` replaced by `old` and `new`: the changes between them.
fn replaced(rel: &str, text: &str, old: &str, new: &str) -> Vec<Change> {
    let (a, b) = (SuiteCopy::new(), SuiteCopy::new());
    for (copy, with) in [(&a, old), (&b, new)] {
        let body = copy.read(rel);
        assert_eq!(body.matches(text).count(), 1, "{rel}: {text} must occur once");
        copy.write(rel, body.replacen(text, with, 1));
    }
    diff(a.path(), b.path()).changes
}

/// A number beyond f64 (or i128) that changed is a changed value, not formatting: numbers
/// compare by their exact mathematical value, read from the literal (decisions R4), not by the
/// f64 serde_json rounds them to. The same value written another way stays formatting.
#[test]
fn numbers_beyond_f64_compare_exactly_in_fixtures() {
    let fixture = "fixtures/unicode-and-numbers.json";
    let big = "1234567890123456789012345678901234567890";
    let big2 = "1234567890123456789012345678901234567891";
    for (old, new) in [
        ("\"qty\": 9007199254740993", "\"qty\": 9007199254740992"),
        ("\"qty\": 0.10000000000000000001", "\"qty\": 0.1"),
        (&*format!("\"qty\": {big}"), &*format!("\"qty\": {big2}")),
        ("\"qty\": 1e-400", "\"qty\": 0.0"),
        ("\"qty\": 0.0", "\"qty\": -0.0"),
    ] {
        let c = replaced(fixture, "\"qty\": 7", old, new);
        assert_eq!(only(&c), (Kind::FixtureChanged, Class::Breaking), "{old} → {new}");
    }
    // The same mathematical value and the same literal type: formatting.
    for (old, new) in [
        ("\"qty\": 0.5", "\"qty\": 5e-1"),
        ("\"qty\": 1E2", "\"qty\": 100.000"),
        (&*format!("\"qty\": {big}"), &*format!("\"qty\": {big}")),
        ("\"qty\": 9007199254740993", "\"qty\": 9007199254740993 "),
    ] {
        let c = replaced(fixture, "\"qty\": 7", old, new);
        if old != new {
            assert_eq!(only(&c), (Kind::FixtureChanged, Class::Editorial), "{old} → {new}");
        }
    }
    // An integer literal is not a float, even of the same value (the type distinction stays).
    let c = replaced(fixture, "\"qty\": 7", "\"qty\": 100", "\"qty\": 1E2");
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Breaking));
}

/// In the manifest too: an expectation or input number changed beyond f64 is a correction,
/// not nothing; the edit shows the literals, which the f64 cannot.
#[test]
fn numbers_beyond_f64_compare_exactly_in_the_manifest() {
    let row = "{ \"name\": \"defaults-first-retry\", \"retry_backoff\": 1000, \"jitter\": \"none\", \"n\": 1, \"expect_delay_ms\": 1000 }";
    let with = |ms: &str| row.replace("\"expect_delay_ms\": 1000", &format!("\"expect_delay_ms\": {ms}"));
    // (A u64 holds the first pair exactly, so its edit shows the values alone.)
    for (old, new, shown) in [
        ("9007199254740993", "9007199254740992", (None, None)),
        ("1000.0000000000000001", "1000.0", (Some("1000.0000000000000001"), None)),
        (
            "12345678901234567890123456789012345678901",
            "12345678901234567890123456789012345678902",
            (Some("12345678901234567890123456789012345678901"), Some("12345678901234567890123456789012345678902")),
        ),
    ] {
        let c = replaced("manifest.json", row, &with(old), &with(new));
        assert_eq!(only(&c), (Kind::CaseChanged, Class::Correction), "{old} → {new}");
        let e = &c[0].edits[0];
        assert_eq!((e.pointer.as_str(), e.op), ("/expect_delay_ms", Op::Changed));
        assert_eq!((e.old_literal.as_deref(), e.new_literal.as_deref()), shown, "{e:?}");
    }
    // The same value written another way: no change of the case; the bytes are formatting.
    let c = replaced("manifest.json", row, &with("1000.0"), &with("1e3"));
    assert_eq!(only(&c), (Kind::FileChanged, Class::Editorial));
    // schema_version 1 → 1.0000000000000000001: a retype, as 1 → 1.0 always was.
    let top = "{\n  \"schema_version\": 1,";
    let c = replaced("manifest.json", top, top, "{\n  \"schema_version\": 1.0000000000000000001,");
    assert_eq!(only(&c), (Kind::SchemaVersionChanged, Class::Breaking));
}

/// A number's JSON type is its literal's (an integer literal or not), never the f64 serde_json
/// reads: `-0` is an integer literal, so `-0.0` → `-0` is a retype (breaking) and `0` → `-0` a
/// changed value (a correction), in the manifest and in a fixture alike; the edit shows each
/// value as written.
#[test]
fn the_sign_of_zero_keeps_the_literal_type() {
    let row = "\"standard-whole-seconds\",\n          \"queue\": \"standard\",\n          \"delay_seconds\": 30,";
    let with = |v: &str| row.replace(": 30,", &format!(": {v},"));
    let c = replaced("manifest.json", row, &with("-0.0"), &with("-0"));
    assert_eq!(only(&c), (Kind::CaseChanged, Class::Breaking), "{c:#?}");
    assert_eq!(
        (c[0].edits[0].op, c[0].edits[0].old_type(), c[0].edits[0].new_type()),
        (Op::Retyped, Some("number"), Some("integer"))
    );
    let c = replaced("manifest.json", row, &with("0"), &with("-0"));
    assert_eq!(only(&c), (Kind::CaseChanged, Class::Correction), "{c:#?}");
    assert_eq!(c[0].edits[0].new_literal.as_deref(), Some("-0"));
    let c = replaced("fixtures/unicode-and-numbers.json", "\"qty\": 7", "\"qty\": -0.0", "\"qty\": -0");
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Breaking));
    assert_eq!(c[0].edits[0].op, Op::Retyped);
    // As shown: the literals, and the types they write.
    let (a, b) = (SuiteCopy::new(), SuiteCopy::new());
    for (copy, v) in [(&a, "1e3"), (&b, "-0")] {
        copy.write("manifest.json", copy.read("manifest.json").replacen(row, &with(v), 1));
    }
    let o = bqsuite(b.path(), &["diff", a.path().to_str().unwrap(), b.path().to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("! /delay_seconds: 1e3 (number) → -0 (integer)"), "{out}");
}

/// A retype inside a list compared as a multiset (a Redis case's sorted-set contents) is a
/// retype like one in a plain field: breaking, shown at the element's member.
#[test]
fn a_retype_inside_an_order_free_list_is_breaking() {
    let row = "\"expect\": {\"delayed\": [{\"body\": \"a\", \"score\": 1002}], \"ready_count\": 0,";
    let c = replaced("manifest.json", row, row, &row.replace("1002}", "1002.0}"));
    assert_eq!(only(&c), (Kind::CaseChanged, Class::Breaking), "{c:#?}");
    let e: Vec<_> = c[0].edits.iter().map(|e| (e.pointer.as_str(), e.op)).collect();
    assert_eq!(e, [("/expect/delayed/0/score", Op::Retyped)]);
    // The same retype in a plain field, for comparison.
    let c = replaced("manifest.json", row, row, &row.replace("\"ready_count\": 0", "\"ready_count\": 0.0"));
    assert_eq!(only(&c), (Kind::CaseChanged, Class::Breaking));
}

/// Lists whose order the spec or their section's description says carries no meaning compare
/// as multisets: reordered, the case is unchanged (only the manifest's bytes, editorial); an
/// element added, removed or repeated is still a correction. Ordered lists stay positional.
#[test]
fn order_free_case_lists_compare_as_multisets() {
    fn case<'v>(m: &'v mut Value, at: &str, name: &str) -> &'v mut Value {
        let cases = m.pointer_mut(at).unwrap().as_array_mut().unwrap();
        cases.iter_mut().find(|c| c["name"] == name).unwrap()
    }
    let reversed = |v: &mut Value| v.as_array_mut().unwrap().reverse();
    let edits: [(&str, &str, &str); 5] = [
        ("/backoff/requested_delay/cases", "zero-publishes-to-the-work-topic", "/expect_absent_headers"),
        ("/poison_dlq/cases", "repeated-top-level-name", "/expect/splice_keys"),
        ("/poison_dlq/cases", "repeated-top-level-name", "/expect/splice_literals"),
        ("/redis_layout/identical_copies/cases", "identical-copies-get-separate-members", "/expect/deadlines"),
        ("/redis_layout/migrate/cases", "lowest-score-first", "/state/delayed"),
    ];
    let m: Value = serde_json::from_str(&SuiteCopy::new().read("manifest.json")).unwrap();
    for (at, name, list) in edits {
        let Some(c) = m.pointer(at).and_then(Value::as_array).and_then(|a| a.iter().find(|c| c["name"] == name)) else {
            panic!("{at} {name}: no such case; pick another");
        };
        let len = c.pointer(list).and_then(Value::as_array).map_or(0, Vec::len);
        assert!(len >= 2, "{at} {name}{list}: {len} elements; pick a case with two");
    }
    for (at, name, list) in edits {
        let c = one_change(|s| s.edit_manifest(|m| reversed(case(m, at, name).pointer_mut(list).unwrap())));
        assert_eq!(only(&c), (Kind::FileChanged, Class::Editorial), "{at} {name}{list} reordered");
        let c = one_change(|s| {
            s.edit_manifest(|m| {
                let l = case(m, at, name).pointer_mut(list).unwrap().as_array_mut().unwrap();
                let first = l[0].clone();
                l.push(first);
            })
        });
        assert_eq!(only(&c), (Kind::CaseChanged, Class::Correction), "{at} {name}{list} repeated");
        let c = one_change(|s| {
            s.edit_manifest(|m| {
                case(m, at, name).pointer_mut(list).unwrap().as_array_mut().unwrap().remove(0);
            })
        });
        assert_eq!(only(&c), (Kind::CaseChanged, Class::Correction), "{at} {name}{list} shortened");
    }
    // Ordered lists stay positional: the configured tiers, a Redis list's contents, the steps.
    let c = one_change(|s| {
        s.edit_manifest(|m| reversed(&mut case(m, "/backoff/requested_delay/cases", "below-first-tier")["tiers_ms"]))
    });
    assert_eq!(only(&c), (Kind::CaseChanged, Class::Correction));
}

/// A member added inside an existing skip_policy rule can narrow it: `families` restricts the
/// rule to those SDK families, so an SDK of another family that skipped under it is no longer
/// Compatible. Breaking, not additive; a family added to the list widens it.
#[test]
fn a_skip_policy_rule_that_gains_families_is_breaking() {
    let rule = |m: &mut Value| -> Value {
        let rules = m["skip_policy"]["rules"].as_array_mut().unwrap();
        rules.iter().find(|r| r["name"] == "one-map-per-call").unwrap().clone()
    };
    let set = |m: &mut Value, member: &str, v: Value| {
        let rules = m["skip_policy"]["rules"].as_array_mut().unwrap();
        rules.iter_mut().find(|r| r["name"] == "one-map-per-call").unwrap()[member] = v;
    };
    let c = one_change(|s| s.edit_manifest(|m| set(m, "families", json!(["go"]))));
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Breaking));
    let c = one_change(|s| s.edit_manifest(|m| set(m, "all_or_none", json!(true))));
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Breaking));
    let c = one_change(|s| {
        s.edit_manifest(|m| {
            let mut cases = rule(m)["cases"].clone();
            cases.as_array_mut().unwrap().push(json!({"section": "encode_reject", "case": "x"}));
            set(m, "cases", cases);
        })
    });
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Additive));
}

/// Red team F1 (stop 49): a skip rule that lets cases of the previous version be skipped
/// changes what those cases ask of every SDK, so it is a correction the entry must name (as
/// `skip_policy`), not an additive MINOR nobody names; a rule for a case the previous version
/// did not have stays additive, and so does a family added to a rule only when no case becomes
/// skippable for a family it was not open to.
#[test]
fn a_skip_rule_over_existing_cases_is_a_correction_one_over_new_cases_is_additive() {
    let rule = |cases: Value| json!({"name": "not-wired", "condition": "c", "adrs": ["ADR-0032"], "cases": cases});
    // Over two existing core cases.
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    new.edit_manifest(|m| {
        let cases = json!([{"section": "trim", "case": "trim-decode-nbsp-job-is-not-blank"}]);
        m["skip_policy"]["rules"].as_array_mut().unwrap().push(rule(cases));
    });
    let d = diff(old.path(), new.path());
    let c = d.changes.iter().find(|c| c.kind == Kind::SkipPolicyChanged).expect("the policy changed");
    assert_eq!(c.class, Class::Correction, "{c:#?}");
    assert_eq!(c.ids, ["trim.trim-decode-nbsp-job-is-not-blank"]);
    assert!(c.note.as_deref().unwrap().contains("lets 1 case of the previous version be skipped"), "{c:#?}");
    assert_eq!(c.reference(), "skip_policy");
    new.write("CONFORMANCE_VERSION", "1.7.0\n");
    let named = "## 1.7.0\n\n- Correction (ADR-0032): `skip_policy` lets an SDK skip the NBSP trim case.\n";
    let d = Diff::new(&load(old.path()), &load(new.path()), Some(("CHANGELOG.md".into(), named.into()))).unwrap();
    assert_eq!(d.needed(), Bump::Minor, "{d:#?}");
    // A rule that lets a whole section be skipped: the section, named.
    let c = one_change(|s| {
        s.edit_manifest(|m| {
            let whole =
                json!({"name": "whole-trim", "condition": "c", "adrs": ["ADR-0032"], "whole_sections": ["trim"]});
            m["skip_policy"]["rules"].as_array_mut().unwrap().push(whole);
        })
    });
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Correction));
    assert_eq!(c[0].ids, ["trim"], "{c:#?}");
    assert!(c[0].note.as_deref().unwrap().contains("lets 1 whole section of the previous version"), "{c:#?}");
    // A family added to a rule opens it to that family: its cases become skippable there.
    let c = one_change(|s| s.edit_manifest(|m| m["skip_policy"]["rules"][1]["families"] = json!(["node", "go"])));
    assert_eq!(only(&c), (Kind::SkipPolicyChanged, Class::Correction));
    // Over a case the previous version did not have: additive.
    let d = {
        let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
        new.edit_manifest(|m| {
            m["trim"]["cases"].as_array_mut().unwrap().push(json!({
                "name": "brand-new", "mode": "decode", "body": "{}", "expect": "rejected"
            }));
            m["skip_policy"]["rules"]
                .as_array_mut()
                .unwrap()
                .push(rule(json!([{"section": "trim", "case": "brand-new"}])));
        });
        diff(old.path(), new.path())
    };
    let c = d.changes.iter().find(|c| c.kind == Kind::SkipPolicyChanged).expect("the policy changed");
    assert_eq!(c.class, Class::Additive, "{c:#?}");
}

/// A side whose manifest does not parse could not be compared (exit 2), and the message says
/// it does not parse and where, not that it is "missing or not an object".
#[test]
fn a_manifest_that_does_not_parse_is_said_so() {
    let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
    new.write("manifest.json", "[1 }");
    let o = bqsuite(old.path(), &["diff", old.path().to_str().unwrap(), new.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(
        transcript(&o).contains("manifest.json does not parse: expected `,` or `]` at line 1 column 4"),
        "{}",
        transcript(&o)
    );
}

/// A vendored copy never holds LICENSE (sync does not write it, both checks ignore it), so
/// `diff <suite> <copy>` of an exact copy is no change (user study, stop 67: it reported
/// `[editorial] file LICENSE removed`, smallest bump PATCH); between two full suites LICENSE is
/// still compared.
#[test]
fn a_vendored_copy_without_licence_is_no_change() {
    let copy = tempfile::tempdir().unwrap();
    for entry in ["CONFORMANCE_VERSION", "manifest.json", "schema", "fixtures"] {
        support::copy_tree(&repo().join(entry), &copy.path().join(entry));
    }
    let d = diff(&repo(), copy.path());
    assert!(d.changes.is_empty(), "{:#?}", d.changes);
    assert_eq!(d.needed(), Bump::None);
    let d = diff(copy.path(), &repo());
    assert!(d.changes.is_empty(), "{:#?}", d.changes);
    // Two sides that both hold a LICENSE (releases, suites) still compare it.
    let other = SuiteCopy::new();
    std::fs::write(other.path().join("LICENSE"), "another licence\n").unwrap();
    let d = diff(&repo(), other.path());
    assert_eq!(of_kind(&d, Kind::FileChanged).len(), 1, "{:#?}", d.changes);
    assert_eq!(d.needed(), Bump::Patch);
    // A side that holds the sync targets is a suite, not a copy, LICENSE or none (a revision
    // from before the licence was added): LICENSE added to it, or removed from it, is a change.
    let unlicensed = SuiteCopy::new();
    unlicensed.remove("LICENSE");
    std::fs::copy(repo().join("sync-targets.json"), unlicensed.path().join("sync-targets.json")).unwrap();
    let d = diff(unlicensed.path(), &repo());
    assert_eq!(of_kind(&d, Kind::FileAdded).len(), 1, "{:#?}", d.changes);
    assert_eq!(d.changes.len(), 1, "{:#?}", d.changes);
    let d = diff(&repo(), unlicensed.path());
    assert_eq!(of_kind(&d, Kind::FileRemoved).len(), 1, "{:#?}", d.changes);
    assert_eq!(d.changes.len(), 1, "{:#?}", d.changes);
}

/// A fixture is read by the cases that name it and by every case of a block (or section) whose
/// shared members name it (`envelope_file`, `fixture` beside `cases`): changed in place, it is
/// their change, and each of their SDKs' (`diff --bindings`). A case object of a section is a
/// case, not a shared member, and one case's `file` is no other case's.
#[test]
fn a_fixture_is_read_by_the_cases_that_name_it_and_by_the_blocks_that_share_it() {
    let order = "fixtures/order-created.json";
    let readers = |both: &dyn Fn(&mut Value), fixture: &str| -> (Vec<String>, Vec<String>) {
        let (old, new) = (SuiteCopy::new(), SuiteCopy::new());
        old.edit_manifest(both);
        new.edit_manifest(both);
        new.write(fixture, new.read(fixture).replacen("\"data\": {", "\"data\": {\"edited\": true, ", 1));
        let changes = diff(old.path(), new.path()).changes;
        let c = changes.iter().find(|c| c.file.as_deref() == Some(fixture)).unwrap_or_else(|| panic!("{changes:#?}"));
        (c.ids.clone(), c.scopes.clone())
    };
    let (ids, scopes) = readers(&|_| {}, order);
    for id in ["cases.order-created", "delay.send/standard-zero-sends-no-delay", "sqs.schema_version_gate/0"] {
        assert!(ids.iter().any(|i| i == id), "{id} not among {ids:?}");
    }
    assert_eq!(scopes, ["amqp", "artemis", "asb", "core", "kafka", "pulsar", "redis", "sqs"]);
    // Each roundtrip case names its own fixture: only that case reads it.
    let meta = "fixtures/unknown-meta-roundtrip.json";
    assert_eq!(readers(&|_| {}, meta).0, ["roundtrip.unknown-meta-roundtrip"]);
    // A section's shared member naming it: every case of the section (and its case object).
    let trim = |ids: &[String]| ids.iter().filter(|i| i.starts_with("trim.")).count();
    let m: Value = serde_json::from_str(&SuiteCopy::new().read("manifest.json")).unwrap();
    let cases = m["trim"]["cases"].as_array().unwrap().len();
    let extra = |m: &mut Value| m["trim"]["extra"] = json!({"file": order});
    let shared = readers(
        &|m| {
            extra(m);
            m["trim"]["fixture"] = json!(order);
        },
        order,
    );
    assert_eq!(trim(&shared.0), cases + 1, "{:?}", shared.0);
    // A case object naming it: that case alone.
    let (ids, _) = readers(&extra, order);
    assert_eq!(ids.iter().filter(|i| i.starts_with("trim.")).collect::<Vec<_>>(), ["trim.extra"]);
    // A section's member is shared by the cases of its blocks too (delay's are all in blocks).
    let delay: Vec<String> =
        bqsuite::suite::case_ids("delay", &m["delay"]).into_iter().map(|c| format!("delay.{}", c.id)).collect();
    assert!(delay.len() > 1 && delay.iter().all(|i| i.contains('/')), "{delay:?}");
    let (ids, scopes) = readers(&|m| m["delay"]["fixture"] = json!(meta), meta);
    let mut want = delay.clone();
    want.push("roundtrip.unknown-meta-roundtrip".to_owned());
    want.sort();
    assert_eq!(ids, want);
    assert_eq!(scopes, [m["sections"]["roundtrip"].as_str().unwrap(), m["sections"]["delay"].as_str().unwrap()]);
}

/// A block with no cases yet is still a block: adding one is a change of its section.
#[test]
fn an_empty_block_added_is_a_change() {
    let c = one_change(|s| s.edit_manifest(|m| m["delay"]["later"] = json!({"cases": []})));
    assert_eq!(only(&c).0, Kind::BlockAdded, "{c:#?}");
    assert_eq!(c[0].block.as_deref(), Some("later"));
}
