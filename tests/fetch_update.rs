//! `bqsuite fetch --update`: a fake SDK's copy moves from a fetched older release to the current
//! one, atomically, with exactly the files `sync` vendors; downgrades are refused; the CI pin
//! to bump is named. And the one definition of a vendored copy: on the same trees `fetch
//! --check` and `sync --check` give the same verdict.
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::{SuiteCopy, bqsuite, copy_tree, repo, transcript};

/// The suite released at `version` (the canonical one, its version changed: to a pre-release of
/// the canonical version, the only older version that may hold its sections) into a fresh
/// `dist/`; returns the suite copy and the dist directory.
fn released(version: &str) -> (SuiteCopy, tempfile::TempDir) {
    let s = SuiteCopy::new();
    if version != support::version() {
        // Another version of the same content: a pre-release of it (a suite holds nothing newer
        // than its version, BQ315), stated everywhere a suite states it, with its CHANGELOG entry.
        support::set_version(s.path(), version);
        s.edit_manifest(|m| m["description"] = format!("The suite as it was at {version}.").into());
        let changelog =
            s.read("CHANGELOG.md").replacen("## ", &format!("## {version}\n\n- Rewords the manifest.\n\n## "), 1);
        s.write("CHANGELOG.md", changelog);
    }
    let dist = tempfile::tempdir().unwrap();
    let o = bqsuite(
        s.path(),
        &["release", "--no-previous", "--suite", s.path().to_str().unwrap(), "--out", dist.path().to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    (s, dist)
}

fn fetch(args: &[&str], dist: &Path) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bqsuite"));
    cmd.arg("fetch")
        .args(args)
        .env("NO_COLOR", "1")
        .env("BQ_CONFORMANCE_BASE_URL", format!("file://{}", dist.display()));
    cmd.output().unwrap()
}

/// The current version released, and an SDK (pinning its tag) whose copy was fetched from it.
fn fetched() -> (SuiteCopy, tempfile::TempDir, Sdk) {
    let v = support::version();
    let (suite, dist) = released(v);
    let sdk = Sdk::new(&format!("v{v}"));
    let copy = sdk.copy();
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    assert_eq!(fetch(&[v, copy.to_str().unwrap()], dist.path()).status.code(), Some(0));
    (suite, dist, sdk)
}

/// A sync root holding one fake SDK repository (`sdk`, a git checkout pinning `pin` in its CI)
/// and a targets file naming its copy at `tests/conformance`.
struct Sdk {
    _root: tempfile::TempDir,
    root: PathBuf,
}

impl Sdk {
    fn new(pin: &str) -> Self {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().canonicalize().unwrap();
        // A git repository whose copy is excluded from it (`.git/info/exclude`), so that git
        // says nothing is uncommitted there: these tests are about other rules, and the guard
        // against losing uncommitted work has its own test on a repository that tracks the copy.
        std::fs::create_dir_all(path.join("sdk")).unwrap();
        support::git(&path.join("sdk"), &["init", "-q"]);
        std::fs::write(path.join("sdk/.git/info/exclude"), "/tests/conformance/\n").unwrap();
        let sdk = Sdk { _root: root, root: path };
        sdk.pin(pin);
        std::fs::write(
            sdk.root.join("targets.json"),
            r#"{"schema_version": 1, "targets": [{"repo": "sdk", "path": "tests/conformance"}]}"#,
        )
        .unwrap();
        sdk
    }

    fn pin(&self, tag: &str) {
        let dir = self.root.join("sdk/.github/workflows");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("ci.yml"),
            format!(
                "jobs:\n  c:\n    steps:\n      - run: git clone --depth 1 --branch {tag} https://x.test/BabelQueue/conformance.git s\n"
            ),
        )
        .unwrap();
    }

    fn copy(&self) -> PathBuf {
        self.root.join("sdk/tests/conformance")
    }

    /// `sync --check` of the canonical suite against this root, as JSON.
    fn sync_check(&self) -> (Option<i32>, serde_json::Value) {
        let o = bqsuite(
            &repo(),
            &[
                "sync",
                "--check",
                "--root",
                self.root.to_str().unwrap(),
                "--targets",
                self.root.join("targets.json").to_str().unwrap(),
                "--format",
                "json",
            ],
        );
        (o.status.code(), serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", transcript(&o))))
    }
}

#[test]
fn update_moves_a_copy_from_an_older_release_to_the_current_one() {
    let v = support::version();
    let (_old_suite, old) = released(&format!("{v}-rc.1"));
    let (_new_suite, new) = released(v);
    let sdk = Sdk::new(&format!("v{v}-rc.1"));
    let dir = sdk.copy();
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    let o = fetch(&[&format!("{v}-rc.1"), dir.to_str().unwrap()], old.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(dir.join("LICENSE").is_file(), "fetch DEST unpacks the whole asset");
    // The maintainer's own edits: a stale fixture, one fixture deleted.
    std::fs::write(dir.join("fixtures/stale.json"), "{}\n").unwrap();
    std::fs::remove_file(dir.join("fixtures/order-created.json")).unwrap();
    let license = std::fs::read(dir.join("LICENSE")).unwrap();

    let o = fetch(&["--update", v, dir.to_str().unwrap()], new.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        out.lines().filter(|l| !l.starts_with("fetch --update:")).collect::<Vec<_>>(),
        [
            "added     fixtures/order-created.json",
            "removed   fixtures/stale.json",
            "modified  CONFORMANCE_VERSION",
            "modified  manifest.json",
            "modified  schema/results.example.json",
        ],
        "{out}"
    );
    assert!(out.contains(&format!(": {v}-rc.1 -> {v} (1 added, 1 removed, 3 modified; ")), "{out}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("/.github/workflows/ci.yml:4:") && err.contains(&format!("pins v{v}-rc.1; bump it to v{v}")),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("LICENSE")).unwrap(), license, "LICENSE neither written nor deleted");
    let siblings: Vec<_> = std::fs::read_dir(dir.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(siblings, ["conformance"], "no staging area left");

    // Copy bumped, pin not yet: sync --check says so; bump the pin and it is clean.
    let (code, r) = sdk.sync_check();
    assert_eq!(code, Some(0), "{r:#}");
    assert_eq!(r["findings"][0]["code"], "BQ716");
    sdk.pin(&format!("v{v}"));
    let (code, r) = sdk.sync_check();
    assert_eq!((code, r["findings"].as_array().unwrap().len()), (Some(0), 0), "{r:#}");
    assert_eq!(r["targets"][0]["status"], "in-sync");

    // The action pinned by commit SHA, its tag in the comment (as the README recommends): a
    // stale pin is moved by the SHA, not by editing the comment, and the advice says so.
    let workflow = sdk.root.join("sdk/.github/workflows/ci.yml");
    std::fs::write(
        &workflow,
        format!("jobs:\n  c:\n    steps:\n      - uses: BabelQueue/conformance@0123456789abcdef0123456789abcdef01234567 # v{v}-rc.1\n"),
    )
    .unwrap();
    let (code, r) = sdk.sync_check();
    assert_eq!(code, Some(0), "{r:#}");
    let message = r["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("CI pins v{v}-rc.1"))
            && message.contains(&format!("the action's commit SHA pointed at v{v}'s commit")),
        "{message}"
    );
    let o = fetch(&["--update", v, dir.to_str().unwrap()], new.path());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(&format!(
            "ci.yml:4:81 pins v{v}-rc.1 by the commit SHA its comment names; point the SHA at v{v}'s commit and \
             the comment at v{v}"
        )),
        "{}",
        transcript(&o)
    );
    sdk.pin(&format!("v{v}"));

    // Again: nothing to do. Back to the rc.1: refused unless allowed.
    let o = fetch(&["--update", v, dir.to_str().unwrap()], new.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("already exact, nothing written"), "{}", transcript(&o));
    assert!(o.stderr.is_empty(), "the pin is current: {}", transcript(&o));
    let o = fetch(&["--update", &format!("{v}-rc.1"), dir.to_str().unwrap()], old.path());
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("holds {v}, newer than {v}-rc.1: not downgraded")));
    assert_eq!(std::fs::read_to_string(dir.join("CONFORMANCE_VERSION")).unwrap(), format!("{v}\n"));
    let o = fetch(&["--update", "--allow-downgrade", &format!("{v}-rc.1"), dir.to_str().unwrap()], old.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(std::fs::read_to_string(dir.join("CONFORMANCE_VERSION")).unwrap(), format!("{v}-rc.1\n"));

    // A directory that is not there is not created.
    let o = fetch(&["--update", v, sdk.root.join("sdk/nope").to_str().unwrap()], new.path());
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(!sdk.root.join("sdk/nope").exists());
}

/// `cd tests/conformance && bqsuite fetch --update VERSION .`: the copy is the current
/// directory, which is replaced like any other (no EBUSY from renaming over `.`).
#[test]
fn update_the_copy_that_is_the_current_directory() {
    let v = support::version();
    let (_old_suite, old) = released(&format!("{v}-rc.1"));
    let (_new_suite, new) = released(v);
    let sdk = Sdk::new(&format!("v{v}-rc.1"));
    let dir = sdk.copy();
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    assert_eq!(fetch(&[&format!("{v}-rc.1"), dir.to_str().unwrap()], old.path()).status.code(), Some(0));
    std::fs::write(dir.join("fixtures/stale.json"), "{}\n").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_bqsuite"))
        .args(["fetch", "--update", v, "."])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .env("BQ_CONFORMANCE_BASE_URL", format!("file://{}", new.path().display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!("fetch --update: .: {v}-rc.1 -> {v}")),
        "{}",
        transcript(&o)
    );
    assert_eq!(std::fs::read_to_string(dir.join("CONFORMANCE_VERSION")).unwrap(), format!("{v}\n"));
    assert!(!dir.join("fixtures/stale.json").exists());
    let siblings: Vec<_> = std::fs::read_dir(dir.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(siblings, ["conformance"], "no staging area left");
    // The pin reminder names the workflow from where the command ran, as every other path
    // (user study, stop 67: it was the only absolute path).
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("reminder: ../../.github/workflows/ci.yml:4:") && !err.contains("/tmp"), "{err}");
    // `--format json` is one document, not the human lines.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_bqsuite"))
        .args(["fetch", "--update", v, ".", "--format", "json"])
        .current_dir(&dir)
        .env("BQ_CONFORMANCE_BASE_URL", format!("file://{}", new.path().display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let doc: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", transcript(&o)));
    assert_eq!((&doc["from"], &doc["to"], &doc["action"]), (&v.into(), &v.into(), &"unchanged".into()), "{doc:#}");
    assert_eq!(doc["stale_pins"][0]["file"], "../../.github/workflows/ci.yml", "{doc:#}");
    let (code, r) = sdk.sync_check();
    assert_eq!(code, Some(0), "{r:#}");
}

/// An update never loses uncommitted work (BQ720's rule, as `sync` keeps it): a copy whose git
/// work tree holds a change under it is refused before anything is written, whatever kind the
/// change is; committed drift, the ignored LICENSE, and `--allow-dirty` let it through.
#[test]
fn update_refuses_a_copy_with_uncommitted_changes_unless_allowed() {
    let v = support::version();
    let (_old_suite, old) = released(&format!("{v}-rc.1"));
    let (_new_suite, new) = released(v);
    let root = tempfile::tempdir().unwrap();
    let sdk = root.path().canonicalize().unwrap().join("sdk");
    let dir = sdk.join("tests/conformance");
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    assert_eq!(fetch(&[&format!("{v}-rc.1"), dir.to_str().unwrap()], old.path()).status.code(), Some(0));
    support::git(&sdk, &["init", "-q"]);
    support::git(&sdk, &["add", "-A"]);
    support::git(&sdk, &["commit", "-q", "-m", "vendor the suite"]);
    let version = || std::fs::read_to_string(dir.join("CONFORMANCE_VERSION")).unwrap();
    let update = |extra: &[&str]| {
        let mut args = vec!["--update"];
        args.extend_from_slice(extra);
        args.extend([v, dir.to_str().unwrap()]);
        fetch(&args, new.path())
    };

    // A modified file, a staged new one, a deleted one, an untracked one: each alone refuses.
    let fixture = dir.join("fixtures/order-created.json");
    let edits: [(&str, &dyn Fn()); 6] = [
        ("fixtures/order-created.json", &|| std::fs::write(&fixture, "{}\n").unwrap()),
        ("fixtures/staged.json", &|| {
            std::fs::write(dir.join("fixtures/staged.json"), "{}\n").unwrap();
            support::git(&sdk, &["add", "tests/conformance/fixtures/staged.json"]);
        }),
        ("fixtures/order-created.json", &|| std::fs::remove_file(&fixture).unwrap()),
        ("fixtures/draft.json", &|| std::fs::write(dir.join("fixtures/draft.json"), "{}\n").unwrap()),
        // A file git is told not to look at (skip-worktree, assume-unchanged) hides its edit
        // from `git status`: it counts all the same (red team).
        ("fixtures/order-created.json", &|| {
            support::git(&sdk, &["update-index", "--skip-worktree", "tests/conformance/fixtures/order-created.json"]);
            std::fs::write(&fixture, "{}\n").unwrap();
        }),
        ("fixtures/order-created.json", &|| {
            support::git(
                &sdk,
                &["update-index", "--assume-unchanged", "tests/conformance/fixtures/order-created.json"],
            );
        }),
    ];
    for (path, edit) in edits {
        edit();
        let o = update(&[]);
        assert_eq!(o.status.code(), Some(1), "{path}: {}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!("holds uncommitted changes (1 file: {path}): not replaced"))
                && err.contains("--allow-dirty"),
            "{path}: {err}"
        );
        assert_eq!(version(), format!("{v}-rc.1\n"), "{path}: refused before anything was written");
        let flagged = "tests/conformance/fixtures/order-created.json";
        // (One flag per command: given both, update-index applies only the last.)
        support::git(&sdk, &["update-index", "--no-skip-worktree", flagged]);
        support::git(&sdk, &["update-index", "--no-assume-unchanged", flagged]);
        support::git(&sdk, &["reset", "-q", "--hard"]);
        support::git(&sdk, &["clean", "-q", "-fd"]);
    }

    // Committed drift is the copy's history, not work to lose; a changed LICENSE is kept anyway.
    std::fs::write(dir.join("fixtures/stale.json"), "{}\n").unwrap();
    support::git(&sdk, &["add", "-A"]);
    support::git(&sdk, &["commit", "-q", "-m", "a stale fixture"]);
    std::fs::write(dir.join("LICENSE"), "edited\n").unwrap();
    let o = update(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(version(), format!("{v}\n"));
    assert_eq!(std::fs::read_to_string(dir.join("LICENSE")).unwrap(), "edited\n");

    // --allow-dirty replaces uncommitted work, as asked.
    support::git(&sdk, &["add", "-A"]);
    support::git(&sdk, &["commit", "-q", "-m", &format!("update to {v}")]);
    std::fs::write(dir.join("fixtures/draft.json"), "{}\n").unwrap();
    let o = fetch(&["--update", "--allow-downgrade", &format!("{v}-rc.1"), dir.to_str().unwrap()], old.path());
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let o = fetch(
        &["--update", "--allow-downgrade", "--allow-dirty", &format!("{v}-rc.1"), dir.to_str().unwrap()],
        old.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(version(), format!("{v}-rc.1\n"));
    assert!(!dir.join("fixtures/draft.json").exists());
}

#[test]
fn fetch_check_and_sync_check_agree_on_the_same_trees() {
    let v = support::version();
    let (_suite, dist) = released(v);
    type Edit = fn(&Path);
    let edits: [(&str, Edit); 8] = [
        ("exact", |_| {}),
        ("with LICENSE", |d| std::fs::write(d.join("LICENSE"), "MIT\n").unwrap()),
        ("with a LICENSE directory", |d| std::fs::create_dir_all(d.join("LICENSE/x")).unwrap()),
        ("extra file", |d| std::fs::write(d.join("README.md"), "hi\n").unwrap()),
        ("empty directory", |d| std::fs::create_dir(d.join("old")).unwrap()),
        ("removed fixture", |d| std::fs::remove_file(d.join("fixtures/order-created.json")).unwrap()),
        ("modified schema", |d| std::fs::write(d.join("schema/results.schema.json"), "{}").unwrap()),
        ("nested LICENSE", |d| std::fs::write(d.join("fixtures/LICENSE"), "MIT\n").unwrap()),
    ];
    for (what, edit) in edits {
        let sdk = Sdk::new(&format!("v{v}"));
        let dir = sdk.copy();
        std::fs::create_dir_all(&dir).unwrap();
        for entry in ["CONFORMANCE_VERSION", "manifest.json", "schema", "fixtures"] {
            copy_tree(&repo().join(entry), &dir.join(entry));
        }
        edit(&dir);
        let f = fetch(&["--check", v, dir.to_str().unwrap(), "--format", "json"], dist.path());
        let fetch_report: serde_json::Value = serde_json::from_slice(&f.stdout).unwrap();
        let (sync_code, sync_report) = sdk.sync_check();
        assert_eq!(f.status.code(), sync_code, "{what}: fetch --check {f:?} vs sync --check {sync_report:#}");
        let files = |r: &serde_json::Value| {
            let mut v: Vec<String> = r["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|x| x["file"].as_str())
                .filter(|x| x.contains("conformance/"))
                .map(|x| x.rsplit("conformance/").next().unwrap().to_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(files(&fetch_report), files(&sync_report), "{what}");
        let expect_clean = what.contains("LICENSE") && what != "nested LICENSE" || what == "exact";
        assert_eq!(sync_code, Some(if expect_clean { 0 } else { 1 }), "{what}");
    }
}

/// Every path under `dir` (not following symlinks), with file contents: to show nothing changed.
fn snapshot(dir: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(Result::unwrap)
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            (rel, e.file_type().is_file().then(|| std::fs::read(e.path()).unwrap()))
        })
        .collect()
}

/// DIR comes from the command line, so only its contents say it is a copy: the repository
/// root, the directory above the copy, a directory of the SDK's own fixtures are refused (exit 2)
/// before anything is downloaded or written, naming what a copy never holds. Before the rule,
/// `fetch --update 1.6.0 .` in an SDK checkout replaced the whole repository, `.git` included,
/// with the suite's files and exited 0.
#[test]
fn update_refuses_a_directory_that_is_not_a_vendored_copy() {
    let v = support::version();
    let (_suite, dist, sdk) = fetched();
    let repo_dir = sdk.root.join("sdk");
    let copy = sdk.copy();
    std::fs::write(repo_dir.join("main.py"), "print(1)\n").unwrap();
    std::fs::create_dir_all(repo_dir.join("spec/fixtures")).unwrap();
    std::fs::write(repo_dir.join("spec/fixtures/own.json"), "{}\n").unwrap();
    std::fs::create_dir_all(repo_dir.join("worktree")).unwrap();
    std::fs::write(repo_dir.join("worktree/.git"), "gitdir: ../.git/worktrees/w\n").unwrap();
    std::fs::write(repo_dir.join("worktree/CONFORMANCE_VERSION"), "1.5.0\n").unwrap();
    let before = snapshot(&sdk.root);
    for (dir, why) in [
        (repo_dir.clone(), "holds .git: a git repository, worktree or submodule is never a vendored copy"),
        (repo_dir.join("tests"), "holds conformance, which a vendored copy never holds"),
        (repo_dir.join("spec"), "holds neither CONFORMANCE_VERSION nor a suite's manifest.json"),
        (repo_dir.join("worktree"), "holds .git: a git repository, worktree or submodule is never a vendored copy"),
    ] {
        // `--check` takes DIR by the same rule (user study, stop 67: `fetch --check 1.7.0
        // php-sdk` listed 192 files of .git as drift, then suggested an update that refuses).
        for mode in ["--update", "--check"] {
            let o = fetch(&[mode, v, dir.to_str().unwrap()], dist.path());
            assert_eq!(o.status.code(), Some(2), "{mode} {}: {}", dir.display(), transcript(&o));
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(why), "{mode} {}: expected {why:?} in {err}", dir.display());
            assert!(err.contains("not the vendored copy's own directory"), "{err}");
            assert!(!err.contains("fetch --update 1") && o.stdout.is_empty(), "{mode}: {}", transcript(&o));
            assert_eq!(snapshot(&sdk.root), before, "{}: nothing may be written", dir.display());
        }
    }
    // A copy with a foreign entry beside its version is drift to `--check`, as to `sync
    // --check`; the update it suggests removes that entry first, since `--update` refuses it.
    std::fs::write(copy.join("NOTES.md"), "ours\n").unwrap();
    let o = fetch(&["--check", v, copy.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let remedy =
        format!("remove NOTES.md from {} (a vendored copy never holds it, and fetch --update refuses", copy.display());
    assert!(err.contains(&remedy) && err.contains("then `bqsuite fetch --update"), "{err}");
    assert_eq!(fetch(&["--update", v, copy.to_str().unwrap()], dist.path()).status.code(), Some(2));
    std::fs::remove_file(copy.join("NOTES.md")).unwrap();
    // The copy itself, a copy that lost its CONFORMANCE_VERSION, an empty directory, one holding
    // only a LICENSE: updated.
    std::fs::write(copy.join("fixtures/stale.json"), "{}\n").unwrap();
    let o = fetch(&["--update", v, copy.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(!copy.join("fixtures/stale.json").exists());
    std::fs::remove_file(copy.join("CONFORMANCE_VERSION")).unwrap();
    let o = fetch(&["--update", v, copy.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(std::fs::read_to_string(copy.join("CONFORMANCE_VERSION")).unwrap(), format!("{v}\n"));
    for (name, licence) in [("empty", false), ("licensed", true)] {
        let dir = sdk.root.join(name);
        std::fs::create_dir(&dir).unwrap();
        if licence {
            std::fs::write(dir.join("LICENSE"), "MIT\n").unwrap();
        }
        let o = fetch(&["--update", v, dir.to_str().unwrap()], dist.path());
        assert_eq!(o.status.code(), Some(0), "{name}: {}", transcript(&o));
        assert!(dir.join("manifest.json").is_file(), "{name}");
    }
}

/// The copy's LICENSE is carried over untouched whatever it is, and a FIFO there (or in a
/// LICENSE directory) is never opened: copying it once blocked the update forever inside its
/// critical step, where not even SIGINT or SIGTERM could end it, and left a staging directory.
#[test]
fn a_fifo_licence_is_carried_over_without_being_opened() {
    let v = support::version();
    let (_suite, dist, sdk) = fetched();
    let copy = sdk.copy();
    let mkfifo = |p: &Path| assert!(std::process::Command::new("mkfifo").arg(p).status().unwrap().success());
    let base = format!("file://{}", dist.path().display());
    let update = |what: &str| {
        std::fs::write(copy.join("fixtures/stale.json"), "{}\n").unwrap();
        let args = ["fetch", "--update", v, copy.to_str().unwrap()];
        let o = support::bqsuite_within(&sdk.root, &args, &[("BQ_CONFORMANCE_BASE_URL", &base)], 60);
        assert_eq!(o.status.code(), Some(0), "{what}: {}", transcript(&o));
        assert!(!copy.join("fixtures/stale.json").exists(), "{what}: the copy was updated");
        let siblings: Vec<_> =
            std::fs::read_dir(copy.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(siblings, ["conformance"], "{what}: no staging area left");
    };
    use std::os::unix::fs::FileTypeExt;
    std::fs::remove_file(copy.join("LICENSE")).unwrap();
    mkfifo(&copy.join("LICENSE"));
    update("a FIFO LICENSE");
    assert!(std::fs::symlink_metadata(copy.join("LICENSE")).unwrap().file_type().is_fifo());
    std::fs::remove_file(copy.join("LICENSE")).unwrap();
    std::fs::create_dir_all(copy.join("LICENSE/deeper")).unwrap();
    std::fs::write(copy.join("LICENSE/deeper/MIT"), "MIT\n").unwrap();
    mkfifo(&copy.join("LICENSE/deeper/pipe"));
    update("a FIFO in a LICENSE directory");
    assert!(std::fs::symlink_metadata(copy.join("LICENSE/deeper/pipe")).unwrap().file_type().is_fifo());
    assert_eq!(std::fs::read(copy.join("LICENSE/deeper/MIT")).unwrap(), b"MIT\n");
}

/// One copy, one verdict (user study, stop 67): a copy that is a symlink out of its repository
/// got three (sync --check refused it, fetch --check said clean, fetch --update refused it).
/// `fetch` now takes DIR by the sync target's rule: a link that leaves the repository is
/// refused by all three, one that stays inside it is followed by all three.
#[test]
fn a_symlinked_copy_gets_one_verdict_from_sync_and_fetch() {
    let v = support::version();
    let (_suite, dist) = released(v);
    let sdk = Sdk::new(&format!("v{v}"));
    let copy = sdk.copy();
    // The real copy outside the repository, the target a symlink to it.
    let outside = sdk.root.join("shared-conformance");
    assert_eq!(fetch(&[v, outside.to_str().unwrap()], dist.path()).status.code(), Some(0));
    std::fs::remove_file(outside.join("LICENSE")).unwrap();
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&outside, &copy).unwrap();
    let (code, r) = sdk.sync_check();
    assert_eq!(code, Some(1), "{r:#}");
    assert_eq!(r["findings"][0]["code"], "BQ711", "{r:#}");
    for mode in ["--check", "--update"] {
        let o = fetch(&[mode, v, copy.to_str().unwrap()], dist.path());
        assert_eq!(o.status.code(), Some(2), "{mode}: {}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("is a symlink to") && err.contains("outside the repository: not followed"),
            "{mode}: {err}"
        );
    }
    // Inside the repository: followed by all three, and the update writes the real directory.
    std::fs::remove_file(&copy).unwrap();
    let inside = sdk.root.join("sdk/vendor/conformance");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    std::fs::rename(&outside, &inside).unwrap();
    std::fs::write(sdk.root.join("sdk/.git/info/exclude"), "/tests/conformance\n/vendor/\n").unwrap();
    std::os::unix::fs::symlink("../vendor/conformance", &copy).unwrap();
    let (code, r) = sdk.sync_check();
    assert_eq!(code, Some(0), "{r:#}");
    let o = fetch(&["--check", v, copy.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    std::fs::write(inside.join("fixtures/stale.json"), "{}\n").unwrap();
    let o = fetch(&["--update", v, copy.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(std::fs::symlink_metadata(&copy).unwrap().file_type().is_symlink(), "the link stays a link");
    assert!(!inside.join("fixtures/stale.json").exists());
    // Outside any repository a symlink has no boundary to keep: refused, the real path asked for.
    let loose = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&inside, loose.path().join("conformance")).unwrap();
    let o = fetch(&["--check", v, loose.path().join("conformance").to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give the real directory"), "{}", transcript(&o));
}

/// `--update --bump-pins`: a copy found already at the version still gets its pins bumped
/// (tag text only, every other byte kept); a pin by commit SHA is left and named, its comment
/// untouched; a refused update bumps nothing; JSON lists each pin.
#[test]
fn bump_pins_moves_the_pins_with_the_copy_and_never_without_it() {
    let v = support::version();
    let (_suite, dist) = released(v);
    let sdk = Sdk::new("v1.5.0");
    let dir = sdk.copy();
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    let o = fetch(&[v, dir.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let ci = sdk.root.join("sdk/.github/workflows/ci.yml");
    let form = |tag: &str, sha_tag: &str| {
        format!(
            "jobs:\n  c:\n    steps:\n      - run: git clone --depth 1 --branch {tag} https://x.test/BabelQueue/conformance.git s # keep v1.5.0\n      - uses: BabelQueue/conformance@{tag}\n      - uses: BabelQueue/conformance@{sha} # {sha_tag}\n      - uses: actions/checkout@v4\n        with: {{ repository: BabelQueue/conformance, ref: {tag} }}\n"
        )
    };
    std::fs::write(&ci, form("v1.5.0", "v1.5.0")).unwrap();
    let o = fetch(&["--update", "--bump-pins", "--format", "json", v, dir.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(std::fs::read_to_string(&ci).unwrap(), form(&format!("v{v}"), "v1.5.0"));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let b = &doc["pin_bumps"];
    assert_eq!(doc["action"], "unchanged");
    assert_eq!(b["counts"], serde_json::json!({"bumped": 3, "left": 1}), "{b:#}");
    assert_eq!(b["bumped"][0]["from"], "v1.5.0");
    assert_eq!(b["bumped"][0]["to"], format!("v{v}"));
    assert_eq!((b["bumped"][0]["line"].as_u64(), b["bumped"][0]["column"].as_u64()), (Some(4), Some(43)));
    assert!(b["bumped"][0]["file"].as_str().unwrap().ends_with("sdk/.github/workflows/ci.yml"), "{b:#}");
    assert_eq!(b["left"][0]["by_sha"], true);
    assert_eq!(b["left"][0]["line"], 6);
    assert!(b["left"][0]["reason"].as_str().unwrap().contains("cannot tell"), "{b:#}");

    // Human output: the pin changed and the count.
    std::fs::write(&ci, form("v1.5.0", "v1.5.0")).unwrap();
    let o = fetch(&["--update", "--bump-pins", v, dir.to_str().unwrap()], dist.path());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("sdk/.github/workflows/ci.yml:4:43 v1.5.0 → v{v}\n")), "{}", transcript(&o));
    assert!(out.contains(&format!("fetch --update: pins: 3 bumped to v{v}, 1 left alone\n")), "{out}");

    // A refused update (a downgrade): the workflow byte for byte as it was.
    std::fs::write(&ci, form("v1.5.0", "v1.5.0")).unwrap();
    std::fs::write(dir.join("CONFORMANCE_VERSION"), "9.0.0\n").unwrap();
    let o = fetch(&["--update", "--bump-pins", v, dir.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert_eq!(std::fs::read_to_string(&ci).unwrap(), form("v1.5.0", "v1.5.0"));
}

/// `fetch --update` cleans up after an interrupted run as `sync` does: a lone old copy beside a
/// missing copy is put back and updated; two are left for the user to choose between, and the
/// update refuses (exit 2) naming them, writing nothing.
#[test]
fn update_restores_a_lone_old_copy_and_leaves_two_for_the_user() {
    let v = support::version();
    let (_suite, dist, sdk) = fetched();
    let copy = sdk.copy();
    let aside = |hex: &str| copy.with_file_name(format!(".conformance.bqsuite-old-{}", hex.repeat(2)));
    let (a, b) = (aside("0123456789abcdef"), aside("fedcba9876543210"));

    std::fs::rename(&copy, &a).unwrap();
    std::fs::remove_file(a.join("fixtures/invalid-missing-urn.json")).unwrap();
    let o = fetch(&["--update", v, copy.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(!a.exists() && copy.join("fixtures/invalid-missing-urn.json").is_file(), "{}", transcript(&o));

    support::copy_tree(&copy, &a);
    std::fs::rename(&copy, &b).unwrap();
    let before = snapshot(&sdk.root);
    let o = fetch(&["--update", v, copy.to_str().unwrap()], dist.path());
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for name in [&a, &b].map(|p| p.file_name().unwrap().to_string_lossy().into_owned()) {
        assert!(err.contains(&name), "{name}: {err}");
    }
    assert!(err.contains("nothing tells which one to keep"), "{err}");
    assert_eq!(snapshot(&sdk.root), before, "nothing written, nothing removed");
}
