//! The release gate (BQ950–BQ958): `release` against the previous `v*` tag or `--previous`,
//! `validate --against`, `-pre` versions, and `git:REV` sides read without touching the work
//! tree. Tags are only ever created in temporary repositories.
//!
//! 1.6.0 adds cases that need a live Redis over 1.5.0, and a gate that did not run them refuses
//! (BQ958), so the tests that compare 1.6.0 with 1.5.0 run with the test Redis
//! ([`bqsuite_redis`]) and skip without one, as every Redis test does; BQ958 has its own test.
//!
//! Every suite here is of that history ([`support::history`]): 1.5.0, and 1.6.0 (the canonical
//! suite, labelled 1.6.0 once it has moved on), so the versions, tags and bumps these tests name
//! (v1.6.0, "at least 1.6.1", a 1.7.0 after it) are literals on purpose.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use support::history::{suite_1_5_0, suite_1_6_0, without_correction_line};
use support::{SuiteCopy, bqsuite, copy_tree, git, transcript};

/// `bqsuite` in `dir` with the test Redis as `BQ_REDIS_URL` when there is one: for the tests
/// that compare 1.6.0 with 1.5.0.
fn bqsuite_redis(dir: &Path, args: &[&str]) -> std::process::Output {
    match support::redis_url() {
        Some(url) => support::bqsuite_env(dir, args, &[("BQ_REDIS_URL", &url)]),
        None => support::bqsuite(dir, args),
    }
}

/// Replace the suite files in `dir` with those of `from` (and its CHANGELOG.md when it has one).
fn put_suite(from: &Path, dir: &Path) {
    for entry in support::SUITE_ENTRIES.iter().chain(["CHANGELOG.md"].iter()) {
        let target = dir.join(entry);
        if target.is_dir() {
            std::fs::remove_dir_all(&target).unwrap();
        } else if target.exists() {
            std::fs::remove_file(&target).unwrap();
        }
        if from.join(entry).exists() {
            copy_tree(&from.join(entry), &target);
        }
    }
}

/// A repository whose subdirectory `conformance/` holds the 1.5.0 suite, tagged v1.5.0, then
/// the 1.6.0 suite with its CHANGELOG, committed. Returns (repository, suite directory).
fn history() -> (tempfile::TempDir, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let suite = root.path().join("conformance");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::write(root.path().join("README.md"), "a repository with a suite in a subdirectory\n").unwrap();
    git(root.path(), &["init", "-q"]);
    let old = suite_1_5_0();
    put_suite(old.path(), &suite);
    git(root.path(), &["add", "-A"]);
    git(root.path(), &["commit", "-q", "-m", "suite 1.5.0"]);
    git(root.path(), &["tag", "v1.5.0"]);
    git(root.path(), &["tag", "not-a-version"]);
    let new = suite_1_6_0();
    put_suite(new.path(), &suite);
    git(root.path(), &["add", "-A"]);
    git(root.path(), &["commit", "-q", "-m", "suite 1.6.0"]);
    (root, suite)
}

fn codes(o: &std::process::Output) -> Vec<String> {
    let text = String::from_utf8_lossy(&o.stdout);
    let mut out: Vec<String> = text.match_indices("[BQ9").map(|(i, _)| text[i + 1..i + 6].to_owned()).collect();
    out.dedup();
    out
}

/// A manifest that does not parse is validate's finding (BQ001, located), with or without the
/// gate: the gate has nothing of this suite to compare and stands aside, not a run that could
/// not run (exit 2 with no finding, no annotation in CI).
#[test]
fn a_manifest_that_does_not_parse_is_a_finding_under_the_gate_too() {
    let (_root, suite) = history();
    let text = std::fs::read_to_string(suite.join("manifest.json")).unwrap();
    let broken = text.replacen("\"cases\": [", "\"cases\" [", 1);
    assert_ne!(broken, text);
    std::fs::write(suite.join("manifest.json"), broken).unwrap();
    let s = suite.to_str().unwrap();
    for gate in [&["--gate"][..], &["--against", "git:v1.5.0"]] {
        let mut args = vec!["validate", "--suite", s, "--format", "json"];
        args.extend_from_slice(gate);
        let o = bqsuite(&suite, &args);
        assert_eq!(o.status.code(), Some(1), "{gate:?}: {}", transcript(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let found: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
        assert!(found.contains(&"BQ001"), "{gate:?}: {found:?}");
        assert!(!found.iter().any(|c| c.starts_with("BQ95")), "{gate:?}: {found:?}");
        let bq001 = v["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ001").unwrap();
        assert!(bq001["line"].as_u64().is_some(), "{bq001}");
        assert!(transcript(&o).contains("does not read as a JSON object (validate says why)"), "{}", transcript(&o));
    }
}

#[test]
fn release_compares_with_the_highest_tag_below_the_version() {
    let Some(_) = support::redis_url() else { return };
    let (root, suite) = history();
    let status = git(root.path(), &["status", "--porcelain"]);
    let out = tempfile::tempdir().unwrap();
    let s = suite.to_str().unwrap();
    let o = bqsuite_redis(&suite, &["release", "--suite", s, "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(out.path().join("babelqueue-conformance-1.6.0.tar.gz").is_file());
    // A tag of the version itself (releasing from the tag's checkout) is not the previous one.
    git(root.path(), &["tag", "v1.6.0"]);
    let o = bqsuite_redis(&suite, &["release", "--suite", s, "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(git(root.path(), &["status", "--porcelain"]), status, "the work tree is untouched");

    // The CHANGELOG stops naming the correction: refused, and nothing is written.
    let changelog = std::fs::read_to_string(suite.join("CHANGELOG.md")).unwrap();
    std::fs::write(suite.join("CHANGELOG.md"), without_correction_line(&changelog)).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let o = bqsuite_redis(&suite, &["release", "--suite", s, "--out", fresh.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert_eq!(codes(&o), ["BQ950", "BQ951"], "{}", transcript(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).matches("[BQ951").count(), 5);
    assert!(transcript(&o).contains("refusing to build the release"));
    assert!(
        transcript(&o)
            .contains("is a MINOR bump over the previous release 1.5.0 (git:v1.5.0), but the changes need MAJOR")
    );
    assert_eq!(std::fs::read_dir(fresh.path()).unwrap().count(), 0);

    // validate --against says the same without building anything, located in manifest.json.
    let o = bqsuite_redis(&suite, &["validate", "--suite", s, "--against", "git:v1.5.0", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let gate: Vec<&Value> =
        v["findings"].as_array().unwrap().iter().filter(|f| f["code"].as_str().unwrap().starts_with("BQ95")).collect();
    assert_eq!(gate.len(), 6);
    let named = gate.iter().find(|f| f["code"] == "BQ951").unwrap();
    assert!(named["file"].as_str().unwrap().ends_with("manifest.json"));
    assert_eq!(named["pointer"], "/backoff/retry_republish/cases/0");
    assert!(named["line"].as_u64().unwrap() > 1);
    // --previous overrides the tag; a bad revision cannot run.
    let o = bqsuite_redis(
        &suite,
        &["release", "--suite", s, "--out", fresh.path().to_str().unwrap(), "--previous", "git:no-such-rev"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("does not name a commit"));
    let o = bqsuite_redis(&suite, &["validate", "--suite", s, "--against", "git:--output=x"]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
}

#[test]
fn the_default_previous_release_is_a_stable_one_never_a_release_candidate() {
    // v1.6.0-rc.1 tags the 1.6.0 suite, then a description is reworded: releasing 1.6.0 is
    // compared with 1.5.0 (a pre-release promises nothing, and the bump is measured between
    // stable versions), not refused because rc.1 -> 1.6.0 bumps nothing.
    let Some(_) = support::redis_url() else { return };
    let (root, suite) = history();
    let path = suite.join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let set_version = |v: &str| {
        std::fs::write(suite.join("CONFORMANCE_VERSION"), format!("{v}\n")).unwrap();
        let mut manifest: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        manifest["conformance_version"] = json!(v);
        manifest
    };
    let manifest = set_version("1.6.0-rc.1");
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap() + "\n").unwrap();
    git(root.path(), &["commit", "-q", "-am", "1.6.0-rc.1"]);
    git(root.path(), &["tag", "v1.6.0-rc.1"]);
    std::fs::write(&path, &text).unwrap();
    let mut manifest = set_version("1.6.0");
    let d = manifest["kafka_poison"]["description"].as_str().unwrap().to_owned();
    manifest["kafka_poison"]["description"] = json!(format!("{d} Reworded after the release candidate."));
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap() + "\n").unwrap();
    git(root.path(), &["commit", "-q", "-am", "reword after rc.1"]);
    let out = tempfile::tempdir().unwrap();
    let s = suite.to_str().unwrap();
    let o = bqsuite_redis(&suite, &["release", "--suite", s, "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(
        transcript(&o).contains("release gate: compared with 1.5.0 (git:v1.5.0): "),
        "compared with the release, and says so: {}",
        transcript(&o)
    );
    // Asked for explicitly, the candidate is what it is compared with: rc.1 -> 1.6.0 bumps
    // nothing by major.minor.patch, so the reworded description is a bump too small.
    let o = bqsuite_redis(&suite, &["validate", "--suite", s, "--against", "git:v1.6.0-rc.1"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(transcript(&o).contains("BQ950"), "{}", transcript(&o));
}

#[test]
fn validate_gate_picks_the_previous_release_as_release_does() {
    // A maintenance line: v1.7.0 exists above the suite's 1.6.0, and a candidate below it; the
    // gate compares with v1.5.0, the release below, as `release` would.
    let Some(_) = support::redis_url() else { return };
    let (root, suite) = history();
    let s = suite.to_str().unwrap();
    git(root.path(), &["tag", "v1.7.0"]);
    git(root.path(), &["tag", "v1.6.0-rc.1"]);
    let o = bqsuite_redis(&suite, &["validate", "--suite", s, "--gate"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(transcript(&o).contains("release gate: compared with 1.5.0 (git:v1.5.0): "), "{}", transcript(&o));
    let changelog = std::fs::read_to_string(suite.join("CHANGELOG.md")).unwrap();
    std::fs::write(suite.join("CHANGELOG.md"), without_correction_line(&changelog)).unwrap();
    let o = bqsuite_redis(&suite, &["validate", "--suite", s, "--gate"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert_eq!(codes(&o), ["BQ950", "BQ951"], "{}", transcript(&o));
    // No release tag below the version: nothing to compare with, said, not a finding.
    let plain = suite_1_6_0();
    let o = bqsuite_redis(plain.path(), &["validate", "--gate"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(transcript(&o).contains("nothing to compare with (skipped)"), "{}", transcript(&o));
    let o = bqsuite_redis(plain.path(), &["validate", "--gate", "--against", "git:HEAD"]);
    assert_eq!(o.status.code(), Some(2), "the two conflict: {}", transcript(&o));
}

#[test]
fn a_pre_release_is_warned_not_refused() {
    let (_root, suite) = history();
    let changelog = std::fs::read_to_string(suite.join("CHANGELOG.md")).unwrap();
    std::fs::write(suite.join("CHANGELOG.md"), without_correction_line(&changelog)).unwrap();
    support::set_version(&suite, "1.6.0-pre");
    let out = tempfile::tempdir().unwrap();
    let o = bqsuite(&suite, &["release", "--suite", suite.to_str().unwrap(), "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("warning[BQ950") && err.contains("warning[BQ951"), "{err}");
    assert!(out.path().join("babelqueue-conformance-1.6.0-pre.tar.gz").is_file());
    let o = bqsuite(&suite, &["validate", "--suite", suite.to_str().unwrap(), "--against", "git:v1.5.0"]);
    assert_eq!(o.status.code(), Some(0), "warnings only: {}", transcript(&o));
}

#[test]
fn without_a_previous_release() {
    // Not a git repository, so no tag: refused, unless --no-previous (the very first release).
    let s = suite_1_6_0();
    let out = tempfile::tempdir().unwrap();
    let o = bqsuite(s.path(), &["release", "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert_eq!(codes(&o), ["BQ955"]);
    assert!(transcript(&o).contains("pass --previous DIR|ASSET|VERSION|git:REV"), "{}", transcript(&o));
    // Said as such, not as git's "cannot list the tags" and a `git fetch --tags` that cannot help.
    assert!(transcript(&o).contains("is not in a git repository, so there are no release tags"), "{}", transcript(&o));
    assert!(!transcript(&o).contains("git fetch --tags"), "{}", transcript(&o));
    let o = bqsuite(s.path(), &["release", "--out", out.path().to_str().unwrap(), "--no-previous"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let o = bqsuite(s.path(), &["release", "--no-previous", "--previous", "1.5.0"]);
    assert_eq!(o.status.code(), Some(2), "the two conflict: {}", transcript(&o));
    // A repository with no v* tag below the version, and a -pre version: a warning.
    let dir = tempfile::tempdir().unwrap();
    copy_tree(s.path(), dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    git(dir.path(), &["tag", "v9.0.0"]);
    let o = bqsuite(dir.path(), &["release", "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(transcript(&o).contains("no release tag v<version> below 1.6.0"), "{}", transcript(&o));
    support::set_version(dir.path(), "1.6.0-pre");
    let o = bqsuite(dir.path(), &["release", "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("warning[BQ955"));
}

/// `validate --against` a directory: the suite as it was, `edit` applied to a copy.
fn against(edit: impl FnOnce(&SuiteCopy)) -> std::process::Output {
    against_edited(|_| {}, edit)
}

/// `validate --against`: the 1.6.0 suite edited by `new` against the 1.6.0 suite edited by
/// `old`.
fn against_edited(old: impl FnOnce(&SuiteCopy), new: impl FnOnce(&SuiteCopy)) -> std::process::Output {
    let (previous, next) = (suite_1_6_0(), suite_1_6_0());
    old(&previous);
    new(&next);
    // Both sides are 1.6.0: no Redis case is new unless the edits add one, so no Redis.
    support::bqsuite(next.path(), &["validate", "--against", previous.path().to_str().unwrap()])
}

/// Set the version, and in the manifest only the version's bytes (re-serialising the manifest
/// would change its bytes: an editorial change of its own).
fn bump_to(s: &SuiteCopy, version: &str) {
    support::set_version(s.path(), version);
}

#[test]
fn each_refusal_of_the_gate() {
    // Nothing changed, same version: clean.
    let o = against(|_| {});
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    // Changed without a bump: an expectation corrected (the previous side held 3, this one the
    // 0 the reference core gives).
    let wrong = |s: &SuiteCopy| s.edit_manifest(|m| m["cases"][0]["expect"]["attempts"] = json!(3));
    let o = against_edited(wrong, |_| {});
    assert_eq!(codes(&o), ["BQ954", "BQ951"], "{}", transcript(&o));
    // ... told to what (an unnamed correction is a MAJOR) and where.
    let text = transcript(&o);
    assert!(
        text.contains("bump it to at least 2.0.0 (a MAJOR bump: 1 correction(s) the CHANGELOG entry does not name"),
        "{text}"
    );
    assert!(text.contains("schema/results.example.json's conformance_version"), "{text}");
    // A section removed in a MINOR.
    let o = against(|s| {
        s.edit_manifest(|m| {
            m.as_object_mut().unwrap().shift_remove("kafka_poison");
            m["sections"].as_object_mut().unwrap().shift_remove("kafka_poison");
        });
        bump_to(s, "1.7.0");
        s.write("CHANGELOG.md", "# Changelog\n\n## 1.7.0\n\n- Removes `kafka_poison`.\n");
    });
    assert_eq!(codes(&o), ["BQ950"], "{}", transcript(&o));
    assert!(transcript(&o).contains("section `kafka_poison` removed"), "{}", transcript(&o));
    // A section added: the entry must exist and name it. (The added section is one bqsuite
    // defines, taken out of the previous side: validate refuses a section it has no definition
    // of, BQ309.)
    let without = |s: &SuiteCopy| {
        s.edit_manifest(|m| {
            m.as_object_mut().unwrap().shift_remove("kafka_poison");
            m["sections"].as_object_mut().unwrap().shift_remove("kafka_poison");
        })
    };
    let o = against_edited(without, |s| {
        bump_to(s, "1.7.0");
        s.write("CHANGELOG.md", "# Changelog\n\n## 1.6.0\n\n- old\n");
    });
    assert_eq!(codes(&o), ["BQ952"], "{}", transcript(&o));
    let o = against_edited(without, |s| {
        bump_to(s, "1.7.0");
        s.write("CHANGELOG.md", "# Changelog\n\n## 1.7.0\n\n- A new section kafka_poison.\n");
    });
    assert_eq!(codes(&o), ["BQ953"], "{}", transcript(&o));
    let o = against_edited(without, |s| {
        bump_to(s, "1.7.0");
        s.write("CHANGELOG.md", "# Changelog\n\n## 1.7.0\n\n- New section `kafka_poison` (kafka).\n");
    });
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    // An editorial change needs only a PATCH, but a PATCH is enough only for prose.
    let o = against(|s| {
        s.edit_manifest(|m| m["description"] = json!("reworded"));
        bump_to(s, "1.6.1");
        s.write("CHANGELOG.md", "## 1.6.1\n\n- Rewords the manifest description.\n");
    });
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    // A version below the previous one (the results example left at 1.6.0, so that nothing but
    // the version differs; validate's own findings on such a suite are not BQ9xx).
    let o = against(|s| {
        s.write("CONFORMANCE_VERSION", "1.5.9\n");
        // Only the version's bytes: a re-serialised manifest is an editorial change of its own.
        let text = s.read("manifest.json");
        s.write(
            "manifest.json",
            text.replacen("\"conformance_version\": \"1.6.0\"", "\"conformance_version\": \"1.5.9\"", 1),
        );
    });
    assert_eq!(codes(&o), ["BQ954"], "{}", transcript(&o));
    // ... and, nothing having changed, says only that: no bump advice.
    let text = transcript(&o);
    assert!(text.contains("CONFORMANCE_VERSION 1.5.9 is not above the previous release 1.6.0 ("), "{text}");
    assert!(!text.contains("changed since") && !text.contains("bump it to"), "nothing changed: {text}");
}

/// BQ952 is for a suite that changed: the same suite under the same version needs no CHANGELOG
/// entry from the gate, whether there is no CHANGELOG at all or it has no entry for the
/// version (which validate reports on its own, BQ105).
#[test]
fn an_unchanged_suite_needs_no_changelog_entry() {
    let o = against(|s| s.remove("CHANGELOG.md"));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(codes(&o), Vec::<String>::new(), "{}", transcript(&o));
    let o = against(|s| s.write("CHANGELOG.md", "# Changelog\n\n## 1.5.0\n\n- Older.\n"));
    assert_eq!(codes(&o), Vec::<String>::new(), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("error[BQ105 changelog-no-entry]"), "{}", transcript(&o));
}

/// A case added to a block may be named by the block: BQ957 says so, and an entry that names
/// the block as new passes.
#[test]
fn a_case_added_to_a_block_may_be_named_by_its_block() {
    let add_case = |s: &SuiteCopy, entry: &str| {
        s.edit_manifest(|m| {
            let cases = m["backoff"]["retry_republish"]["cases"].as_array_mut().unwrap();
            let mut case = cases[0].clone();
            case["name"] = json!("first-failure-first-tier-again");
            cases.push(case);
        });
        bump_to(s, "1.7.0");
        s.write("CHANGELOG.md", format!("# Changelog\n\n## 1.7.0\n\n{entry}\n"));
    };
    let o = against(|s| add_case(s, "TBD."));
    assert_eq!(codes(&o), ["BQ957"], "{}", transcript(&o));
    let text = transcript(&o);
    let reference = "backoff.retry_republish/first-failure-first-tier-again";
    assert!(
        text.contains(&format!(
            "case `{reference}` is new since 1.6.0, but the CHANGELOG entry `## 1.7.0` does not name it: add a \
             sentence that says it is new and names `{reference}` (or its block `backoff.retry_republish`)"
        )),
        "{text}"
    );
    let o = against(|s| add_case(s, "- New cases in `backoff.retry_republish`."));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
}

#[test]
fn git_sides_leave_the_work_tree_alone_and_see_only_committed_files() {
    let (root, suite) = history();
    std::fs::write(suite.join("fixtures/order-created.json"), "{\"edited\": true}\n").unwrap();
    std::fs::write(suite.join("fixtures/untracked.json"), "{}\n").unwrap();
    let status = git(root.path(), &["status", "--porcelain"]);
    let index = std::fs::read(root.path().join(".git/index")).unwrap();
    let o = bqsuite(&suite, &["diff", "git:HEAD", ".", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let files: Vec<(&str, &str)> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["file"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        files,
        [("fixture-changed", "fixtures/order-created.json"), ("fixture-added", "fixtures/untracked.json")]
    );
    assert_eq!(v["old"]["source"], "git:HEAD");
    // From the repository root too (no suite there: the revision is read at the root).
    let o = bqsuite(root.path(), &["diff", "git:v1.5.0", "git:HEAD"]);
    assert_eq!(o.status.code(), Some(2), "no manifest at the root: {}", transcript(&o));
    let o = bqsuite(&suite, &["diff", "git:v1.5.0", "git:HEAD", "--format", "json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["bump"]["needed"], "minor", "{v:#}");
    assert_eq!(v["changelog"]["source"], "git:HEAD:CHANGELOG.md");
    assert_eq!(git(root.path(), &["status", "--porcelain"]), status);
    assert_eq!(std::fs::read(root.path().join(".git/index")).unwrap(), index, "the index is untouched");
}

/// A changed expectation the reference core refutes is a mistake validate names (BQ311), not a
/// correction the gate asks a MAJOR for: the gate leaves that case to validate, and says so.
/// The same change with the core agreeing is the gate's again (`each_refusal_of_the_gate`).
#[test]
fn the_gate_leaves_a_case_that_does_not_validate_to_validate() {
    let o = against(|s| s.edit_manifest(|m| m["cases"][0]["expect"]["attempts"] = json!(3)));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("error[BQ311 reference-disagrees]") && !out.contains("[BQ95"), "{out}");
    assert!(
        transcript(&o)
            .contains("0 change(s), needing none (1 more of cases that do not validate, left to validate's findings)"),
        "{}",
        transcript(&o)
    );
    // ... and a machine reading the JSON report learns it too.
    let (previous, next) = (suite_1_6_0(), suite_1_6_0());
    next.edit_manifest(|m| m["cases"][0]["expect"]["attempts"] = json!(3));
    let o = support::bqsuite(
        next.path(),
        &["validate", "--against", previous.path().to_str().unwrap(), "--format", "json"],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let notes: Vec<&str> = v["notes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(
        notes.contains(&"release gate: 1 change(s) of cases that do not validate were left to validate's findings"),
        "{v:#}"
    );
}

/// Only an error of the manifest at or under a case leaves the case's change to validate: the
/// errors of another file (a weakened results schema, BQ406) leave the gate's own findings as
/// they are.
#[test]
fn another_files_finding_at_its_root_leaves_no_case_to_validate() {
    let wrong = |s: &SuiteCopy| s.edit_manifest(|m| m["cases"][0]["expect"]["attempts"] = json!(3));
    let o = against_edited(wrong, |s| {
        s.write("schema/results.schema.json", "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\"\n}\n")
    });
    assert!(String::from_utf8_lossy(&o.stdout).contains("error[BQ406 "), "{}", transcript(&o));
    assert_eq!(codes(&o), ["BQ954", "BQ951"], "the gate's own findings: {}", transcript(&o));
}

#[test]
fn a_named_correction_in_a_patch_is_told_as_named() {
    let wrong = |s: &SuiteCopy| s.edit_manifest(|m| m["cases"][0]["expect"]["attempts"] = json!(3));
    let o = against_edited(wrong, |s| {
        bump_to(s, "1.6.1");
        s.write("CHANGELOG.md", "## 1.6.1\n\n- Correction (ADR-0034): `cases.order-created`.\n");
    });
    assert_eq!(codes(&o), ["BQ950"], "{}", transcript(&o));
    let text = transcript(&o);
    assert!(text.contains("need MINOR (at least 1.7.0): 1 correction(s) the CHANGELOG entry names ("), "{text}");
    assert!(!text.contains("does not name"), "the entry names it: {text}");
}

/// A copy of the canonical suite committed to a fresh repository and tagged with `tag`.
fn released(tag: &str) -> SuiteCopy {
    let s = suite_1_6_0();
    git(s.path(), &["init", "-q"]);
    git(s.path(), &["add", "-A"]);
    git(s.path(), &["commit", "-q", "-m", "the released suite"]);
    git(s.path(), &["tag", tag]);
    s
}

#[test]
fn a_released_version_never_changes() {
    let s = released("v1.6.0");
    let dir = s.path().to_str().unwrap();
    // As tagged: clean, and the very first release builds (the release workflow's case).
    let o = bqsuite(s.path(), &["validate", "--gate", "--suite", dir]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("the release files are those of v1.6.0"), "{}", transcript(&o));
    // Files outside the asset may change after the release.
    s.write("CHANGELOG.md", s.read("CHANGELOG.md") + "\nA note written after the release.\n");
    s.write("README.md", "notes\n");
    let o = bqsuite(s.path(), &["validate", "--gate", "--suite", dir]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = tempfile::tempdir().unwrap();
    let dist = out.path().join("dist");
    let o = bqsuite(s.path(), &["release", "--suite", dir, "--no-previous", "--out", dist.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    std::fs::remove_dir_all(&dist).unwrap();

    // Prose only, a PATCH anywhere else: still a second suite under 1.6.0.
    s.edit_manifest(|m| m["trim"]["description"] = json!("Prose changed after the release."));
    let o = bqsuite(s.path(), &["validate", "--gate", "--suite", dir]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert_eq!(codes(&o), ["BQ956"], "{}", transcript(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("1.6.0 is already released (tag v1.6.0), and manifest.json differs"), "{text}");
    // ... and names the smallest version the change needs, as BQ954 does.
    assert!(text.contains("bump the version to at least 1.6.1 (a PATCH bump: 1 editorial change(s)"), "{text}");
    // A correction the reference core agrees with: MINOR once the new entry names it, else MAJOR.
    let edited = std::fs::read_to_string(s.path().join("manifest.json")).unwrap();
    git(s.path(), &["checkout", "-q", "--", "manifest.json"]);
    let manifest = std::fs::read_to_string(s.path().join("manifest.json")).unwrap();
    let corrected = manifest.replacen(
        "\"name\": \"defaults-first-retry\", \"retry_backoff\": 1000, \"jitter\": \"none\", \"n\": 1, \"expect_delay_ms\": 1000",
        "\"name\": \"defaults-first-retry\", \"retry_backoff\": 2000, \"jitter\": \"none\", \"n\": 1, \"expect_delay_ms\": 2000",
        1,
    );
    assert_ne!(corrected, manifest);
    std::fs::write(s.path().join("manifest.json"), corrected).unwrap();
    let o = bqsuite(s.path(), &["validate", "--gate", "--suite", dir]);
    assert_eq!(codes(&o), ["BQ956"], "{}", transcript(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(
            "to at least 1.7.0 (a MINOR bump, if the new version's CHANGELOG entry names each correction with its ADR; \
             else 2.0.0, a MAJOR bump: 1 correction(s) the CHANGELOG entry does not name"
        ),
        "{text}"
    );
    std::fs::write(s.path().join("manifest.json"), &edited).unwrap();
    // `--against` runs it too, and release refuses with or without a previous release, writing nothing.
    let o = bqsuite(s.path(), &["validate", "--against", dir, "--suite", dir]);
    assert_eq!(codes(&o), ["BQ956"], "{}", transcript(&o));
    for extra in [&["--no-previous"][..], &["--previous", dir]] {
        let mut args = vec!["release", "--suite", dir, "--out", dist.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = bqsuite(s.path(), &args);
        assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
        assert_eq!(codes(&o), ["BQ956"], "{}", transcript(&o));
        assert!(String::from_utf8_lossy(&o.stderr).contains("refusing to build the release"), "{}", transcript(&o));
        assert!(!dist.exists(), "release wrote {}", dist.display());
    }
    // Restored: clean again.
    git(s.path(), &["checkout", "-q", "--", "manifest.json"]);
    // A file added to or removed from the asset's directories is a change too, each named.
    std::fs::copy(s.path().join("LICENSE"), s.path().join("schema/notes.json")).unwrap();
    let o = bqsuite(s.path(), &["validate", "--gate", "--suite", dir]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("schema/notes.json is not in that release"), "{}", transcript(&o));
}

/// Every case or block added to an existing section is named in the entry (BQ957): a
/// placeholder entry passed every gate while a case was added.
#[test]
fn an_added_case_or_block_is_named_in_the_entry() {
    let add_case = |s: &SuiteCopy, entry: &str| {
        s.edit_manifest(|m| {
            let mut case = m["traceparent"]["cases"][0].clone();
            case["name"] = json!("valid-header-again");
            m["traceparent"]["cases"].as_array_mut().unwrap().push(case);
        });
        bump_to(s, "1.7.0");
        s.write("CHANGELOG.md", format!("# Changelog\n\n## 1.7.0\n\n{entry}\n"));
    };
    for (entry, named) in [
        ("TBD.", false),
        ("- New cases in `traceparent`.", false),
        ("- Adds a note; `traceparent.valid-header-again` is unchanged.", false),
        ("- New case `traceparent.valid-header-again`.", true),
        ("- `traceparent` gains the case `valid-header-again`.", true),
    ] {
        let o = against(|s| add_case(s, entry));
        if named {
            assert_eq!(o.status.code(), Some(0), "{entry}: {}", transcript(&o));
        } else {
            assert_eq!(codes(&o), ["BQ957"], "{entry}: {}", transcript(&o));
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(text.contains("case `traceparent.valid-header-again` is new since 1.6.0"), "{text}");
        }
    }
    // A block: named by `section.block`, or by the section and the block in one sentence.
    let without =
        |s: &SuiteCopy| s.edit_manifest(|m| drop(m["backoff"].as_object_mut().unwrap().shift_remove("topic_names")));
    for (entry, named) in [("- `backoff` is extended.", false), ("- `backoff` gains the block `topic_names`.", true)] {
        let o = against_edited(without, |s| {
            bump_to(s, "1.7.0");
            s.write("CHANGELOG.md", format!("## 1.7.0\n\n{entry}\n"));
        });
        if named {
            assert_eq!(o.status.code(), Some(0), "{entry}: {}", transcript(&o));
        } else {
            assert_eq!(codes(&o), ["BQ957"], "{entry}: {}", transcript(&o));
            assert!(transcript(&o).contains("block `backoff.topic_names` is new"), "{}", transcript(&o));
        }
    }
    // While the version is a pre-release, it is told, not refused.
    let o = against(|s| {
        add_case(s, "TBD.");
        bump_to(s, "1.7.0-pre");
        s.write("CHANGELOG.md", "## 1.7.0-pre\n\nTBD.\n");
    });
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("warning[BQ957"), "{}", transcript(&o));
}

/// `validate --gate` of the suite at `dir` with one more environment variable, whatever the
/// caller's Redis settings.
fn gate_with(dir: &Path, (var, value): (&str, &Path)) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bqsuite"));
    cmd.args(["validate", "--gate", "--suite", dir.to_str().unwrap()])
        .env(var, value)
        .env("NO_COLOR", "1")
        .env_remove("BQ_REDIS_URL")
        .env_remove("BQ_REQUIRE_REDIS");
    if let Some(url) = support::redis_url() {
        cmd.env("BQ_REDIS_URL", url);
    }
    cmd.output().unwrap()
}

/// A shallow clone (CI's default checkout) has neither the tags nor the commits they name, so
/// it cannot say a version was never released, nor that there is no previous release: the
/// gate stops (exit 2) and asks for the tags. It used to skip BQ956 and pass.
#[test]
fn a_shallow_clone_cannot_say_there_is_no_release() {
    let Some(_) = support::redis_url() else { return };
    let s = released("v1.6.0");
    s.edit_manifest(|m| m["trim"]["description"] = json!("Prose changed after the release."));
    git(s.path(), &["commit", "-q", "-am", "a second 1.6.0"]);
    let clones = tempfile::tempdir().unwrap();
    let url = format!("file://{}", s.path().display());
    let (full, shallow) = (clones.path().join("full"), clones.path().join("shallow"));
    git(clones.path(), &["clone", "-q", &url, full.to_str().unwrap()]);
    git(clones.path(), &["clone", "-q", "--depth", "1", &url, shallow.to_str().unwrap()]);
    let o = bqsuite_redis(&full, &["validate", "--gate", "--suite", full.to_str().unwrap()]);
    assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ956".to_owned()]), "{}", transcript(&o));
    // GIT_DIR in the environment (an empty repository) does not change which repository is read.
    let empty = clones.path().join("empty.git");
    git(clones.path(), &["init", "-q", "--bare", empty.to_str().unwrap()]);
    let o = gate_with(&full, ("GIT_DIR", &empty));
    assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ956".to_owned()]), "{}", transcript(&o));
    // Started by a parent that ignores SIGCHLD (so its children's statuses would be lost), the
    // gate reads git as well (it stopped with exit 2: no git status could be read).
    let script =
        "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])";
    match Command::new("python3")
        .args(["-c", script, env!("CARGO_BIN_EXE_bqsuite"), "validate", "--gate", "--suite", full.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .env_remove("BQ_REDIS_URL")
        .env_remove("BQ_REQUIRE_REDIS")
        .output()
    {
        Ok(o) => {
            assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ956".to_owned()]), "{}", transcript(&o));
        }
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "python3 is needed here: {e}");
            eprintln!("skipped the SIGCHLD case: python3 cannot run ({e})");
        }
    }
    let dist = clones.path().join("dist");
    let dir = shallow.to_str().unwrap();
    for args in [
        &["validate", "--gate", "--suite", dir][..],
        &["release", "--no-previous", "--suite", dir, "--out", dist.to_str().unwrap()],
        &["release", "--suite", dir, "--out", dist.to_str().unwrap()],
    ] {
        let o = bqsuite_redis(&shallow, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("shallow clone") && err.contains("fetch-depth: 0"), "{args:?}: {err}");
        assert!(!dist.exists(), "{args:?} wrote {}", dist.display());
    }
    // A shallow clone of the tag itself (a release job at the default depth) has that tag and
    // no other, so it cannot say there is no previous release either.
    let at_tag = clones.path().join("at-tag");
    git(clones.path(), &["clone", "-q", "--depth", "1", "--branch", "v1.6.0", &url, at_tag.to_str().unwrap()]);
    let o = bqsuite_redis(&at_tag, &["validate", "--gate", "--suite", at_tag.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("cannot find the previous release"), "{}", transcript(&o));
    // Its tags fetched (still shallow, as CI fetches them), the shallow clone is judged as the
    // full one; so is a later version there, whose own tag cannot exist yet.
    git(&shallow, &["fetch", "-q", "--depth", "1", "origin", "+refs/tags/*:refs/tags/*"]);
    let o = bqsuite_redis(&shallow, &["validate", "--gate", "--suite", dir]);
    assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ956".to_owned()]), "{}", transcript(&o));
    support::set_version(&shallow, "1.7.0");
    let o = bqsuite_redis(&shallow, &["validate", "--gate", "--suite", dir]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(!transcript(&o).contains("shallow clone"), "{}", transcript(&o));
    assert!(transcript(&o).contains("compared with 1.6.0"), "{}", transcript(&o));
    git(&shallow, &["checkout", "-q", "--", "."]);
    git(&shallow, &["fetch", "-q", "--unshallow", "--tags"]);
    let o = bqsuite_redis(&shallow, &["validate", "--gate", "--suite", dir]);
    assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ956".to_owned()]), "{}", transcript(&o));
    // A -pre version is never tagged, so it needs no tag lookup: only the previous release
    // is missing, and that is still asked for.
    let fresh = clones.path().join("pre");
    git(clones.path(), &["clone", "-q", "--depth", "1", &url, fresh.to_str().unwrap()]);
    support::set_version(&fresh, "1.7.0-pre");
    let o = bqsuite_redis(&fresh, &["validate", "--gate", "--suite", fresh.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("cannot find the previous release"), "{}", transcript(&o));
    // Given the previous release, it is judged: no tag of its own is asked for.
    std::fs::write(fresh.join("CHANGELOG.md"), "# Changelog\n\n## 1.7.0-pre\n\n- Work in progress.\n").unwrap();
    let o = bqsuite_redis(
        &fresh,
        &["validate", "--suite", fresh.to_str().unwrap(), "--against", s.path().to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(!transcript(&o).contains("shallow clone"), "{}", transcript(&o));
    // A repository git refuses to read (here a broken config; in CI containers, "dubious
    // ownership") is not "outside git": whether the version was released cannot be told, so
    // nothing is built (it used to be a note, and a changed 1.6.0 was built).
    let broken = clones.path().join("broken");
    git(clones.path(), &["clone", "-q", &url, broken.to_str().unwrap()]);
    let config = broken.join(".git/config");
    std::fs::write(&config, std::fs::read_to_string(&config).unwrap() + "\n[broken\n").unwrap();
    let o = bqsuite_redis(
        &broken,
        &["release", "--no-previous", "--suite", broken.to_str().unwrap(), "--out", dist.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("cannot tell whether 1.6.0 was released already (BQ956)"), "{}", transcript(&o));
    assert!(!dist.exists());
    // A repository without HEAD, for which git says "not a git repository": broken, not absent.
    let headless = clones.path().join("headless");
    git(clones.path(), &["clone", "-q", &url, headless.to_str().unwrap()]);
    std::fs::remove_file(headless.join(".git/HEAD")).unwrap();
    let o = bqsuite_redis(&headless, &["validate", "--gate", "--suite", headless.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("cannot tell whether 1.6.0 was released already (BQ956)"), "{}", transcript(&o));
    // GIT_CEILING_DIRECTORIES at the root of a repository whose suite is in a subdirectory
    // hides no repository either.
    let (root, suite) = history();
    git(root.path(), &["tag", "v1.6.0"]);
    std::fs::write(suite.join("LICENSE"), "changed after the release\n").unwrap();
    git(root.path(), &["commit", "-q", "-am", "a second 1.6.0"]);
    let o = gate_with(&suite, ("GIT_CEILING_DIRECTORIES", root.path()));
    assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ956".to_owned()]), "{}", transcript(&o));
    // Outside a git repository the check cannot run, and release says so.
    let plain = suite_1_6_0();
    let o = bqsuite_redis(plain.path(), &["release", "--no-previous", "--out", dist.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(
        transcript(&o).contains("whether 1.6.0 was released already (BQ956) was not checked"),
        "{}",
        transcript(&o)
    );
}

/// A release candidate's tag that a `--depth 2` clone happens to reach is no sign that the
/// release tags were fetched: the previous release is still asked for (it was skipped, and a
/// pull request's gate passed).
#[test]
fn a_shallow_clone_reaching_only_a_candidates_tag_still_asks_for_the_tags() {
    let s = released("v1.6.0");
    support::set_version(s.path(), "1.7.0-rc.1");
    git(s.path(), &["commit", "-q", "-am", "1.7.0-rc.1"]);
    git(s.path(), &["tag", "v1.7.0-rc.1"]);
    support::set_version(s.path(), "1.7.0");
    git(s.path(), &["commit", "-q", "-am", "1.7.0"]);
    let clones = tempfile::tempdir().unwrap();
    let clone = clones.path().join("depth2");
    let url = format!("file://{}", s.path().display());
    git(clones.path(), &["clone", "-q", "--depth", "2", &url, clone.to_str().unwrap()]);
    assert_eq!(git(&clone, &["tag", "--list"]).trim(), "v1.7.0-rc.1", "the clone reached the candidate's tag");
    let o = bqsuite(&clone, &["validate", "--gate", "--suite", clone.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("cannot find the previous release"), "{}", transcript(&o));
}

#[test]
fn a_release_candidate_tag_freezes_that_candidate_and_build_metadata_names_the_same_version() {
    for (tag, version) in [("v1.7.0-rc.1", "1.7.0-rc.1"), ("v1.6.0+build.5", "1.6.0")] {
        let s = released("v0.0.1");
        support::set_version(s.path(), version);
        git(s.path(), &["commit", "-q", "--allow-empty", "-am", "the version"]);
        git(s.path(), &["tag", tag]);
        s.edit_manifest(|m| m["trim"]["description"] = json!("Prose changed after the release."));
        let o = bqsuite(s.path(), &["validate", "--gate", "--suite", s.path().to_str().unwrap()]);
        assert!(codes(&o).contains(&"BQ956".to_owned()), "{tag}: {}", transcript(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains(&format!("(tag {tag})")), "{tag}: {text}");
        // A pre-release's other gate findings are warnings; this one is an error all the same.
        assert_eq!(o.status.code(), Some(1), "{tag}: {}", transcript(&o));
    }
}

/// Two tags of the version's precedence that both release it (`v1.6.0` and `v1.6.0+build.5`):
/// BQ956 names `v<version>` itself, the tag the release workflow makes.
#[test]
fn the_versions_own_tag_comes_before_one_with_build_metadata() {
    let s = released("v1.6.0");
    git(s.path(), &["tag", "v1.6.0+build.5"]);
    s.edit_manifest(|m| m["trim"]["description"] = json!("Prose changed after the release."));
    let o = bqsuite(s.path(), &["validate", "--gate", "--suite", s.path().to_str().unwrap()]);
    assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ956".to_owned()]), "{}", transcript(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("1.6.0 is already released (tag v1.6.0), and manifest.json differs"), "{text}");
    assert!(!text.contains("build.5"), "{text}");
}

#[test]
fn an_sdk_repositorys_own_tags_are_not_releases_of_its_vendored_suite() {
    let Some(_) = support::redis_url() else { return };
    // An SDK repository: v1.5.9 released the SDK before it vendored the suite, v1.6.0 released
    // it over a vendored suite 1.5.0, and the vendored copy is now the suite 1.6.0. Neither tag
    // released this suite: before, `validate --gate` called the vendored 1.6.0 a changed
    // release (BQ956 against the SDK's v1.6.0) and could not read a suite at v1.5.9.
    let root = tempfile::tempdir().unwrap();
    let vendored = root.path().join("tests/conformance");
    std::fs::write(root.path().join("README.md"), "an SDK\n").unwrap();
    git(root.path(), &["init", "-q"]);
    git(root.path(), &["add", "-A"]);
    git(root.path(), &["commit", "-q", "-m", "the SDK"]);
    git(root.path(), &["tag", "v1.5.9"]);
    std::fs::create_dir_all(&vendored).unwrap();
    put_suite(suite_1_5_0().path(), &vendored);
    git(root.path(), &["add", "-A"]);
    git(root.path(), &["commit", "-q", "-m", "vendor the suite 1.5.0"]);
    git(root.path(), &["tag", "v1.6.0"]);
    put_suite(suite_1_6_0().path(), &vendored);
    git(root.path(), &["add", "-A"]);
    git(root.path(), &["commit", "-q", "-m", "vendor the suite 1.6.0"]);
    let dir = vendored.to_str().unwrap();
    let o = bqsuite_redis(&vendored, &["validate", "--suite", dir, "--gate"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(codes(&o).is_empty(), "{}", transcript(&o));
    assert!(transcript(&o).contains("nothing to compare with (skipped)"), "{}", transcript(&o));
    // ... and says that the tag of its version was not taken as its release, and what that
    // leaves unchecked (a suite that moved within its repository looks the same).
    assert!(
        transcript(&o).contains("v1.6.0 names 1.6.0 but holds no suite 1.6.0 at `tests/conformance/`")
            && transcript(&o).contains("(an SDK's own release, or the suite moved)"),
        "{}",
        transcript(&o)
    );
    // A tag whose commit does hold the suite of its version is a release of it, as in the
    // suite's own repository: the previous release for the gate.
    git(root.path(), &["tag", "v1.5.0", "HEAD~1"]);
    let o = bqsuite_redis(&vendored, &["validate", "--suite", dir, "--gate"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(transcript(&o).contains("release gate: compared with 1.5.0 (git:v1.5.0): "), "{}", transcript(&o));
    // And a tag of the suite's own version that holds it freezes it (BQ956), here as there.
    git(root.path(), &["tag", "-f", "v1.6.0"]);
    std::fs::write(vendored.join("LICENSE"), "changed after the release\n").unwrap();
    let o = bqsuite_redis(&vendored, &["validate", "--suite", dir, "--gate"]);
    assert_eq!(codes(&o), ["BQ956"], "{}", transcript(&o));
}

/// Red team F5 (stop 49): 1.6.0 adds cases that need a live Redis over 1.5.0. Without a Redis
/// the reference core reads them but never runs them, so a wrong expectation among them would
/// ship: the gate refuses (BQ958) and names them, and nothing is written.
#[test]
fn a_gate_that_did_not_run_the_new_redis_cases_refuses() {
    let (_root, suite) = history();
    let out = tempfile::tempdir().unwrap();
    let s = suite.to_str().unwrap();
    let offline = [("BQ_REDIS_URL", ""), ("BQ_REQUIRE_REDIS", "")];
    let o = support::bqsuite_env(&suite, &["release", "--suite", s, "--out", out.path().to_str().unwrap()], &offline);
    assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ958".to_owned()]), "{}", transcript(&o));
    let text = transcript(&o);
    assert!(
        text.contains("new or changed since 1.5.0 need a live Redis, and the reference core did not run them"),
        "{text}"
    );
    assert!(text.contains("(`redis_layout."), "{text}");
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing is written");
    let o = support::bqsuite_env(&suite, &["validate", "--suite", s, "--gate"], &offline);
    assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ958".to_owned()]), "{}", transcript(&o));
}

/// Second red team (stop 49): `--no-previous` skipped the whole gate on any version. Where the
/// suite's repository has released it before, it is refused and nothing is written.
#[test]
fn no_previous_is_refused_after_a_first_release() {
    let (_root, suite) = history();
    let out = tempfile::tempdir().unwrap();
    let s = suite.to_str().unwrap();
    let o = bqsuite(&suite, &["release", "--suite", s, "--no-previous", "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(
        transcript(&o).contains("--no-previous is for the very first release, but v1.5.0 released this suite before"),
        "{}",
        transcript(&o)
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing is written");
    // Outside a repository the flag is taken at its word.
    let plain = suite_1_6_0();
    let o = bqsuite(plain.path(), &["release", "--no-previous", "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
}

/// The canonical suite committed to a fresh repository with no tag: nothing but HEAD vouches
/// for the release files (BQ959).
fn committed_untagged() -> SuiteCopy {
    let s = SuiteCopy::new();
    git(s.path(), &["init", "-q"]);
    git(s.path(), &["add", "-A"]);
    git(s.path(), &["commit", "-q", "-m", "the suite, not tagged"]);
    s
}

fn release_into(suite: &Path, out: &Path, more: &[&str]) -> std::process::Output {
    let mut args = vec!["release", "--no-previous", "--out", out.to_str().unwrap()];
    args.extend_from_slice(more);
    bqsuite(suite, &args)
}

/// The auditor's F1: edits validate does not see (a line appended to LICENSE, a blank line at
/// the end of manifest.json, trailing spaces in a schema example), in a checkout without the
/// version's tag, went into the asset without a word. Now each file is named (BQ959) and
/// nothing is written; `--allow-dirty` builds and lists them; once committed, the build says
/// which commit it is.
#[test]
fn without_the_versions_tag_uncommitted_release_files_refuse_the_build() {
    let s = committed_untagged();
    let head = git(s.path(), &["rev-parse", "HEAD"]).trim().to_owned();
    s.write("LICENSE", s.read("LICENSE") + "Additional terms.\n");
    s.write("manifest.json", s.read("manifest.json") + "\n");
    let example = s.read("schema/results.example.json").replacen('\n', "  \n", 1);
    s.write("schema/results.example.json", example);
    // A file outside the asset may be dirty.
    s.write("CHANGELOG.md", s.read("CHANGELOG.md") + "\nA note.\n");
    let out = s.path().join("out");
    let o = release_into(s.path(), &out, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for file in ["LICENSE", "manifest.json", "schema/results.example.json"] {
        assert!(
            text.contains(&format!("error[BQ959 release-file-uncommitted] {file}")) || text.contains(file),
            "{file} named: {}",
            transcript(&o)
        );
    }
    assert_eq!(codes(&o), ["BQ959"], "{}", transcript(&o));
    assert_eq!(text.matches("[BQ959").count(), 3, "one finding per file: {}", transcript(&o));
    assert!(!text.contains("CHANGELOG.md"), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("the release files differ from commit {head} (HEAD) (3 files: LICENSE, manifest.json, schema/results.example.json)")) && err.contains("--allow-dirty"), "{err}");
    assert!(!out.exists(), "nothing written");

    let o = release_into(s.path(), &out, &["--allow-dirty"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--allow-dirty: built from uncommitted bytes")
            && err.contains("3 files: LICENSE, manifest.json, schema/results.example.json"),
        "{err}"
    );
    assert!(out.join(support::asset()).is_file());

    git(s.path(), &["add", "-A"]);
    git(s.path(), &["commit", "-q", "-m", "the edits, committed"]);
    let head = git(s.path(), &["rev-parse", "HEAD"]).trim().to_owned();
    let o = release_into(s.path(), &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains(&format!("release: built from commit {head} (HEAD), whose release files it holds byte for byte")),
        "{}",
        transcript(&o)
    );
}

/// HEAD is read from git's objects: a file git ignores, or one marked assume-unchanged, is
/// compared like any other; a release file HEAD lacks is "not in" it, one HEAD has that is
/// gone is "missing".
#[test]
fn bq959_compares_bytes_with_head_not_what_git_status_shows() {
    let s = committed_untagged();
    s.write("LICENSE", s.read("LICENSE") + "Hidden from git status.\n");
    git(s.path(), &["update-index", "--assume-unchanged", "LICENSE"]);
    let out = tempfile::tempdir().unwrap();
    let o = release_into(s.path(), out.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("LICENSE differs from the commit HEAD names"),
        "{}",
        transcript(&o)
    );

    // LICENSE never committed (and ignored): not in HEAD.
    let s = SuiteCopy::new();
    std::fs::write(s.path().join(".gitignore"), "LICENSE\n").unwrap();
    git(s.path(), &["init", "-q"]);
    git(s.path(), &["add", "-A"]);
    git(s.path(), &["commit", "-q", "-m", "no licence"]);
    let o = release_into(s.path(), out.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("LICENSE is not in the commit HEAD names"), "{}", transcript(&o));
    // ... and the fix offered is to commit it or remove it, not to restore what HEAD lacks.
    assert!(text.contains("; commit it (git add LICENSE) or remove it, or pass --allow-dirty"), "{}", transcript(&o));
    assert!(!text.contains("git checkout HEAD -- LICENSE"), "{}", transcript(&o));

    // A suite copied into a directory the repository does not track: one finding, not one per file.
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("README.md"), "another project\n").unwrap();
    git(root.path(), &["init", "-q"]);
    git(root.path(), &["add", "-A"]);
    git(root.path(), &["commit", "-q", "-m", "another project"]);
    let copy = root.path().join("copy");
    copy_tree(s.path(), &copy);
    std::fs::remove_dir_all(copy.join(".git")).unwrap();
    let o = release_into(&copy, out.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(text.matches("[BQ959").count(), 1, "{}", transcript(&o));
    assert!(text.contains("holds no release file at copy/, where the suite is"), "{}", transcript(&o));
}

/// The auditor's reproduction: a full clone made with `--no-tags`, HEAD exactly the tag's
/// commit. The dirty tree is refused before the tags are fetched (BQ959) and after (BQ956).
#[test]
fn a_no_tags_clone_of_a_released_suite_refuses_a_dirty_tree() {
    let origin = committed_untagged();
    git(origin.path(), &["tag", &support::tag()]);
    let root = tempfile::tempdir().unwrap();
    let clone = root.path().join("clone");
    git(root.path(), &["clone", "-q", "--no-tags", origin.path().to_str().unwrap(), "clone"]);
    assert_eq!(git(&clone, &["tag", "--list"]), "");
    std::fs::write(clone.join("LICENSE"), std::fs::read_to_string(clone.join("LICENSE")).unwrap() + "More.\n").unwrap();
    let out = root.path().join("out");
    let o = release_into(&clone, &out, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert_eq!(codes(&o), ["BQ959"], "{}", transcript(&o));
    git(&clone, &["fetch", "-q", "--tags"]);
    let o = release_into(&clone, &out, &["--allow-dirty"]);
    assert_eq!(o.status.code(), Some(1), "--allow-dirty does not lift BQ956: {}", transcript(&o));
    assert_eq!(codes(&o), ["BQ956"], "{}", transcript(&o));
    assert!(!out.exists());
}

/// A pre-release version is never tagged nor published: BQ959 is a warning and the build goes on,
/// saying which commit and which files.
#[test]
fn a_pre_release_is_told_of_uncommitted_files_not_stopped() {
    let s = SuiteCopy::new();
    support::set_version(s.path(), &format!("{}-pre", support::version()));
    git(s.path(), &["init", "-q"]);
    git(s.path(), &["add", "-A"]);
    git(s.path(), &["commit", "-q", "-m", "work in progress"]);
    s.write("LICENSE", s.read("LICENSE") + "Draft.\n");
    let out = tempfile::tempdir().unwrap();
    let o = release_into(s.path(), out.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning[BQ959 release-file-uncommitted]")
            && err.contains("uncommitted changes to 1 file: LICENSE"),
        "{err}"
    );
}

/// A repository whose HEAD cannot be read (no commit yet) cannot vouch for anything: exit 2,
/// unless `--allow-dirty`.
#[test]
fn a_repository_without_a_commit_cannot_vouch_for_the_release_files() {
    let s = SuiteCopy::new();
    git(s.path(), &["init", "-q"]);
    let out = tempfile::tempdir().unwrap();
    let o = release_into(s.path(), out.path(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot compare the release files with HEAD"),
        "{}",
        transcript(&o)
    );
    let o = release_into(s.path(), out.path(), &["--allow-dirty"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
}

/// The auditor's F2: a `git replace` of the tag's LICENSE blob by the edited file's made BQ956
/// read the replacement as "the tag's bytes", and the edit shipped. git reads the objects the
/// tag really names, so the edit is BQ956; a replace ref base given through the environment
/// changes nothing either.
#[test]
fn a_replace_ref_cannot_stand_in_for_the_tags_bytes() {
    let s = committed_untagged();
    git(s.path(), &["tag", &support::tag()]);
    let original = git(s.path(), &["rev-parse", &format!("{}:LICENSE", support::tag())]).trim().to_owned();
    s.write("LICENSE", s.read("LICENSE") + "NOT THE TAG'S LICENSE\n");
    let replacement = git(s.path(), &["hash-object", "-w", "LICENSE"]).trim().to_owned();
    git(s.path(), &["replace", &original, &replacement]);
    git(s.path(), &["update-ref", &format!("refs/elsewhere/{original}"), &replacement]);
    let out = tempfile::tempdir().unwrap();
    for env in [&[][..], &[("GIT_REPLACE_REF_BASE", "refs/elsewhere/")][..]] {
        let o =
            support::bqsuite_env(s.path(), &["release", "--no-previous", "--out", out.path().to_str().unwrap()], env);
        assert_eq!(o.status.code(), Some(1), "{env:?}: {}", transcript(&o));
        assert_eq!(codes(&o), ["BQ956"], "{}", transcript(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("LICENSE differs from that release"), "{}", transcript(&o));
    }
    assert!(!out.path().join(support::asset()).exists());
}

/// The audit's F6: an edit of whitespace or line endings only (an editor's CR LF, a blank line)
/// is still BQ956, but the message says so and gives the command that restores the file, before
/// the bump advice; another change keeps the bump advice and gets the same command.
#[test]
fn bq956_says_when_only_whitespace_or_line_endings_differ_and_how_to_restore() {
    let s = released("v1.6.0");
    s.write("LICENSE", s.read("LICENSE").replace('\n', "\r\n"));
    s.write("schema/results.example.json", s.read("schema/results.example.json") + "\n");
    s.edit_manifest(|m| m["trim"]["description"] = json!("Prose changed after the release."));
    let o = bqsuite(s.path(), &["validate", "--gate"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for file in ["LICENSE", "schema/results.example.json"] {
        assert!(
            text.contains(&format!(
                "{file} differs from that release only in whitespace or line endings: restore it (`git checkout v1.6.0 \
                 -- {file}`); a released version never changes"
            )),
            "{file}: {text}"
        );
    }
    assert!(
        text.contains("manifest.json differs from that release: a released version never changes")
            && text.contains("restore the file from v1.6.0 (`git checkout v1.6.0 -- manifest.json`)"),
        "{text}"
    );
    // A change only of bytes the diff does not weigh (CONFORMANCE_VERSION's line ending: the
    // version is the same) needs no bump of its own, so the message names none.
    git(s.path(), &["checkout", "-q", "--", "."]);
    s.write("CONFORMANCE_VERSION", "1.6.0\r\n");
    let o = bqsuite(s.path(), &["validate", "--gate"]);
    assert_eq!((o.status.code(), codes(&o)), (Some(1), vec!["BQ956".to_owned()]), "{}", transcript(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("keeping the change needs a version bump (CONFORMANCE_VERSION, "), "{text}");
    assert!(!text.contains("at least"), "{text}");
}
