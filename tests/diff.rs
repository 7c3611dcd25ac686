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
    // schema_version.
    let c = one_change(|s| s.edit_manifest(|m| m["schema_version"] = json!(2)));
    assert_eq!(only(&c), (Kind::SchemaVersionChanged, Class::Breaking));
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
        old.read("manifest.json").replace("\"conformance_version\": \"1.6.0\"", "\"conformance_version\": \"1.6.1\""),
    );
    new.write("CONFORMANCE_VERSION", "1.6.1\n");
    assert!(diff(old.path(), new.path()).changes.is_empty());
}

#[test]
fn fixtures_byte_wise_and_semantically() {
    // Re-indented: the same JSON, editorial.
    let c = one_change(|s| {
        let v: Value = serde_json::from_str(&s.read("fixtures/order-created.json")).unwrap();
        s.write("fixtures/order-created.json", serde_json::to_string(&v).unwrap());
    });
    assert_eq!(only(&c), (Kind::FixtureChanged, Class::Editorial));
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
    let (old, new) = (suite_1_5_0(), SuiteCopy::new());
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
