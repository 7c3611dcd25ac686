//! `bqsuite sync` and `sync --check` over a fake tree of sibling SDK repositories, built in a temp
//! dir from the real `sync-targets.json` (all 25 targets), plus the targets file's own rules.
//! Unix only: the tree has symlinks.
#![cfg(unix)]

#[macro_use]
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use bqsuite::suite::Suite;
use bqsuite::sync::{self, Mode, Options};
use serde_json::{Value, json};
use support::{SuiteCopy, assert_finding, bqsuite, copy_tree, repo, transcript};

/// What a vendored copy holds.
const VENDORED: [&str; 4] = ["CONFORMANCE_VERSION", "manifest.json", "schema", "fixtures"];
/// Repositories the messy tree leaves out.
const ABSENT: [&str; 2] = ["babelqueue-java-sqs", "babelqueue-dotnet-kafka"];
/// The target whose vendored directory is a symlink out of its repository.
const ESCAPE: &str = "babelqueue-dotnet/tests/BabelQueue.Core.Tests/conformance";
/// The target reached through a parent directory that is a symlink out of its repository.
const PARENT_ESCAPE: &str = "babelqueue-dotnet-redis/tests/BabelQueue.Redis.Tests/conformance";

/// The canonical version.
fn version() -> String {
    std::fs::read_to_string(repo().join("CONFORMANCE_VERSION")).unwrap().trim().to_owned()
}

/// Every target of the real targets file, as (repo, path).
fn all_targets() -> Vec<(String, String)> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(repo().join("sync-targets.json")).unwrap()).unwrap();
    doc["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["repo"].as_str().unwrap().to_owned(), t["path"].as_str().unwrap().to_owned()))
        .collect()
}

/// A sync root: `bqsuite/` (a copy of the suite with its targets file) beside one directory per
/// SDK repository.
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    /// Every repository present, every copy exact, every CI pinned to the canonical tag.
    fn clean() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("bqsuite")).unwrap();
        for entry in support::SUITE_ENTRIES.iter().chain(&["sync-targets.json"]) {
            copy_tree(&repo().join(entry), &root.join("bqsuite").join(entry));
        }
        let tree = Tree { _dir: dir, root };
        for (r, p) in all_targets() {
            std::fs::create_dir_all(tree.root.join(&r).join(&p)).unwrap();
            for entry in VENDORED {
                copy_tree(&repo().join(entry), &tree.root.join(&r).join(&p).join(entry));
            }
            tree.pin(&r, "ci.yml", &format!("v{}", version()));
        }
        tree
    }

    /// The clean tree with one case of everything: absent repositories, a modified fixture, a
    /// stale fixture and a LICENSE, a copy behind on both copy and pin, a pin/copy mismatch, an
    /// unpinned CI, conflicting pins, a copy ahead of the suite, and a missing copy. With
    /// `escapes`, two targets also lead out of their repository through symlinks.
    fn messy(escapes: bool) -> Self {
        let t = Tree::clean();
        for r in ABSENT {
            std::fs::remove_dir_all(t.root.join(r)).unwrap();
        }
        let go = t.copy("babelqueue-go/testdata/conformance");
        let fixture = go.join("fixtures/order-created.json");
        let text = std::fs::read_to_string(&fixture).unwrap().replace("\"order_id\": 1042", "\"order_id\": 1043");
        std::fs::write(&fixture, text).unwrap();
        let python = t.copy("babelqueue-python/tests/conformance");
        std::fs::write(python.join("fixtures/stale-removed-case.json"), "{}\n").unwrap();
        std::fs::copy(repo().join("LICENSE"), python.join("LICENSE")).unwrap();
        std::fs::write(t.copy("babelqueue-node/test/conformance/CONFORMANCE_VERSION"), "1.5.0\n").unwrap();
        t.pin("babelqueue-node", "ci.yml", "v1.5.0");
        t.pin("babelqueue-java", "ci.yml", "v1.5.0");
        t.pin("babelqueue-dotnet-sqs", "ci.yml", "main");
        t.pin("babelqueue-java-kafka", "nightly.yaml", "v1.4.0");
        std::fs::write(t.copy("babelqueue-java-redis/src/test/resources/conformance/CONFORMANCE_VERSION"), "9.0.0\n")
            .unwrap();
        t.pin("babelqueue-java-redis", "ci.yml", "v9.0.0");
        std::fs::remove_dir_all(t.copy("babelqueue-java-pulsar/src/test/resources/conformance")).unwrap();
        if escapes {
            for (link, outside) in [(ESCAPE, "outside"), ("babelqueue-dotnet-redis/tests", "outside-parent")] {
                let link = t.root.join(link);
                let outside = t.root.join(outside);
                copy_tree(&link, &outside);
                std::fs::write(outside.join("not-yours.txt"), "leave me alone\n").unwrap();
                std::fs::remove_dir_all(&link).unwrap();
                std::os::unix::fs::symlink(&outside, &link).unwrap();
            }
        }
        t
    }

    fn suite(&self) -> PathBuf {
        self.root.join("bqsuite")
    }

    fn copy(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Write `.github/workflows/<file>` in `repo` cloning the suite at `tag`.
    fn pin(&self, repo: &str, file: &str, tag: &str) {
        let dir = self.root.join(repo).join(".github/workflows");
        std::fs::create_dir_all(&dir).unwrap();
        let yml = format!(
            "name: ci\non: [push]\njobs:\n  conformance:\n    runs-on: ubuntu-latest\n    steps:\n      - run: git clone --depth 1 --branch {tag} https://example.test/babelqueue/conformance.git suite\n"
        );
        std::fs::write(dir.join(file), yml).unwrap();
    }

    /// Run `bqsuite` in the suite directory with `--root` set.
    fn run(&self, args: &[&str]) -> Output {
        let root = self.root.display().to_string();
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--root", &root]);
        bqsuite(&self.suite(), &all)
    }

    /// The run's stdout as JSON.
    fn json(&self, args: &[&str]) -> (Option<i32>, Value) {
        let mut all = args.to_vec();
        all.extend(["--format", "json"]);
        let o = self.run(&all);
        let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", transcript(&o)));
        (o.status.code(), v)
    }

    /// The transcript with the temp root replaced by `[ROOT]`.
    fn redact(&self, o: &Output) -> String {
        transcript(o).replace(&self.root.display().to_string(), "[ROOT]")
    }

    /// Everything under the root: path → file bytes, link target or `dir`.
    fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        walkdir::WalkDir::new(&self.root)
            .follow_links(false)
            .into_iter()
            .map(Result::unwrap)
            .map(|e| {
                let kind = e.file_type();
                let content = if kind.is_symlink() {
                    std::fs::read_link(e.path()).unwrap().display().to_string().into_bytes()
                } else if kind.is_dir() {
                    b"dir".to_vec()
                } else {
                    std::fs::read(e.path()).unwrap()
                };
                (e.path().display().to_string(), content)
            })
            .collect()
    }
}

/// The files of a directory (relative path → bytes), not following symlinks.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .follow_links(false)
        .min_depth(1)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            assert!(e.file_type().is_file(), "{rel} is not a regular file");
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// The canonical vendored files.
fn canonical() -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    for entry in VENDORED {
        let path = repo().join(entry);
        if path.is_dir() {
            all.extend(files(&path).into_iter().map(|(rel, bytes)| (format!("{entry}/{rel}"), bytes)));
        } else {
            all.insert(entry.to_owned(), std::fs::read(path).unwrap());
        }
    }
    all
}

fn target<'v>(report: &'v Value, id: &str) -> &'v Value {
    report["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| format!("{}/{}", t["repo"].as_str().unwrap(), t["path"].as_str().unwrap()) == id)
        .unwrap_or_else(|| panic!("no target {id}"))
}

fn codes(report: &Value) -> Vec<(String, String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or_default().to_owned();
            (s("code"), s("severity"), s("file"))
        })
        .collect()
}

#[test]
fn the_targets_file_lists_the_25_copies_of_the_old_sync_sh() {
    let r19 = [
        ("php-sdk", "tests/conformance"),
        ("babelqueue-python", "tests/conformance"),
        ("babelqueue-go", "testdata/conformance"),
        ("babelqueue-node", "test/conformance"),
        ("babelqueue-java", "src/test/resources/conformance"),
        ("babelqueue-dotnet", "tests/BabelQueue.Core.Tests/conformance"),
        ("babelqueue-node-adapters", "packages/sqs/test/conformance"),
        ("babelqueue-java-sqs", "src/test/resources/conformance"),
        ("babelqueue-dotnet-sqs", "tests/BabelQueue.Sqs.Tests/conformance"),
        ("babelqueue-node-adapters", "packages/azure-service-bus/test/conformance"),
        ("babelqueue-java-azureservicebus", "src/test/resources/conformance"),
        ("babelqueue-dotnet-azureservicebus", "tests/BabelQueue.AzureServiceBus.Tests/conformance"),
        ("babelqueue-node-adapters", "packages/pulsar/test/conformance"),
        ("babelqueue-java-pulsar", "src/test/resources/conformance"),
        ("babelqueue-dotnet-pulsar", "tests/BabelQueue.Pulsar.Tests/conformance"),
        ("babelqueue-node-adapters", "packages/kafka/test/conformance"),
        ("babelqueue-java-kafka", "src/test/resources/conformance"),
        ("babelqueue-dotnet-kafka", "tests/BabelQueue.Kafka.Tests/conformance"),
        ("babelqueue-node-adapters", "packages/artemis/test/conformance"),
        ("babelqueue-java-artemis", "src/test/resources/conformance"),
        ("babelqueue-dotnet-artemis", "tests/BabelQueue.Artemis.Tests/conformance"),
        ("babelqueue-node-adapters", "packages/redis/test/conformance"),
        ("babelqueue-node-adapters", "packages/rabbitmq/test/conformance"),
        ("babelqueue-java-redis", "src/test/resources/conformance"),
        ("babelqueue-dotnet-redis", "tests/BabelQueue.Redis.Tests/conformance"),
    ];
    let listed = all_targets();
    assert_eq!(listed.len(), 25);
    assert_eq!(listed.iter().map(|(r, p)| (r.as_str(), p.as_str())).collect::<Vec<_>>(), r19);
    let suite = Suite::load(repo()).unwrap();
    let targets = sync::targets::from_suite(&suite).unwrap();
    assert_eq!(targets.len(), 25);
}

#[test]
fn check_reports_drift_missing_skips_refusals_and_pins() {
    let t = Tree::messy(true);
    let (code, r) = t.json(&["sync", "--check"]);
    assert_eq!(code, Some(1));
    let status = |id: &str| target(&r, id)["status"].as_str().unwrap().to_owned();
    let pin = |id: &str| target(&r, id)["pin_status"].as_str().map(str::to_owned);
    assert_eq!(status("php-sdk/tests/conformance"), "in-sync");
    assert_eq!(pin("php-sdk/tests/conformance").as_deref(), Some("in-sync"));
    let go = target(&r, "babelqueue-go/testdata/conformance");
    assert_eq!(go["status"], "drifted");
    assert_eq!(go["modified"][0]["file"], "fixtures/order-created.json");
    let diff = go["modified"][0]["diff"].as_str().unwrap();
    assert!(diff.contains("-    \"order_id\": 1042\n+    \"order_id\": 1043\n"), "{diff}");
    // The human report shows that diff, unless --no-diff leaves it out (the file still named).
    let shown = |args: &[&str]| String::from_utf8_lossy(&t.run(args).stdout).into_owned();
    assert!(shown(&["sync", "--check"]).contains("\"order_id\": 1043"));
    let out = shown(&["sync", "--check", "--no-diff"]);
    assert!(!out.contains("\"order_id\": 1043") && out.contains("modified  fixtures/order-created.json"), "{out}");
    let python = target(&r, "babelqueue-python/tests/conformance");
    assert_eq!(python["added"], json!(["fixtures/stale-removed-case.json"]), "a LICENSE is not part of a copy");
    assert_eq!(status("babelqueue-java-pulsar/src/test/resources/conformance"), "missing");
    for absent in ABSENT {
        let t = r["targets"].as_array().unwrap().iter().find(|t| t["repo"] == absent).unwrap();
        assert_eq!(t["status"], "skipped");
    }
    assert_eq!(status(ESCAPE), "refused");
    assert_eq!(status(PARENT_ESCAPE), "refused");
    // The pin report: in sync, behind, mismatch, unpinned, conflict, ahead.
    assert_eq!(pin("babelqueue-node/test/conformance").as_deref(), Some("behind"));
    assert_eq!(pin("babelqueue-java/src/test/resources/conformance").as_deref(), Some("mismatch"));
    assert_eq!(pin("babelqueue-dotnet-sqs/tests/BabelQueue.Sqs.Tests/conformance").as_deref(), Some("unpinned"));
    assert_eq!(pin("babelqueue-java-kafka/src/test/resources/conformance").as_deref(), Some("conflict"));
    assert_eq!(pin("babelqueue-java-redis/src/test/resources/conformance").as_deref(), Some("ahead"));
    assert_eq!(pin("babelqueue-java-pulsar/src/test/resources/conformance").as_deref(), Some("mismatch"));
    assert_eq!(pin(ESCAPE), None);
    let behind = target(&r, "babelqueue-node/test/conformance");
    assert_eq!(behind["copy_version"], "1.5.0");
    assert_eq!(
        behind["pins"][0],
        json!({"tag": "v1.5.0", "file": ".github/workflows/ci.yml", "line": 7, "column": 43})
    );

    let found = codes(&r);
    let has = |code: &str, sev: &str, file: &str| {
        assert!(
            found.iter().any(|f| f == &(code.into(), sev.into(), file.into())),
            "no {code} {sev} {file} in {found:#?}"
        )
    };
    has("BQ706", "warning", "babelqueue-java-sqs");
    has("BQ707", "error", "babelqueue-java-pulsar/src/test/resources/conformance");
    has("BQ708", "error", "babelqueue-python/tests/conformance/fixtures/stale-removed-case.json");
    assert!(!found.iter().any(|f| f.2.ends_with("/LICENSE")), "{found:#?}");
    has("BQ710", "error", "babelqueue-go/testdata/conformance/fixtures/order-created.json");
    has("BQ710", "error", "babelqueue-node/test/conformance/CONFORMANCE_VERSION");
    has("BQ711", "error", ESCAPE);
    has("BQ711", "error", PARENT_ESCAPE);
    has("BQ714", "warning", "babelqueue-node/.github/workflows/ci.yml");
    has("BQ715", "warning", "babelqueue-java-redis/.github/workflows/ci.yml");
    has("BQ716", "warning", "babelqueue-java/.github/workflows/ci.yml");
    // A conflict points at the pin to move (user journey: it pointed at the first pin, which
    // was the one already right), and says which it is.
    has("BQ717", "warning", "babelqueue-java-kafka/.github/workflows/nightly.yaml");
    let conflict = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ717").unwrap();
    assert!(
        conflict["message"].as_str().unwrap().ends_with(&format!(
            "; the suite is {0}, so move .github/workflows/nightly.yaml:7 (v1.4.0) to v{0}",
            version()
        )),
        "{conflict:#}"
    );
    has("BQ718", "warning", "babelqueue-dotnet-sqs/.github/workflows");
    // Every copy's own verdict before any file's drift: GitHub's ten annotations per severity
    // name the copies that need a decision, not one copy's files.
    let drift = |code: &str| ["BQ708", "BQ709", "BQ710"].contains(&code);
    let first_drift = found.iter().position(|f| drift(&f.0)).unwrap();
    assert!(found[first_drift..].iter().all(|f| drift(&f.0)), "{found:#?}");

    let human = t.run(&[
        "sync",
        "--check",
        "--only",
        "php-sdk",
        "babelqueue-go",
        "babelqueue-python",
        "babelqueue-node",
        "babelqueue-java",
        "babelqueue-java-sqs",
        "babelqueue-java-pulsar",
        "babelqueue-dotnet",
    ]);
    insta::assert_snapshot!("sync_check_human", t.redact(&human));
    let github = t.run(&["sync", "--check", "--only", "babelqueue-go", "babelqueue-dotnet", "--format", "github"]);
    insta::assert_snapshot!("sync_check_github", t.redact(&github));
}

#[test]
fn sync_makes_every_present_target_exact_and_refuses_symlink_escapes() {
    let t = Tree::messy(true);
    let outside_before: Vec<_> = ["outside", "outside-parent"].iter().map(|d| files(&t.root.join(d))).collect();
    let vendored: Vec<String> =
        all_targets().iter().map(|(r, p)| t.root.join(r).join(p).display().to_string()).collect();
    let not_vendored = |snapshot: BTreeMap<String, Vec<u8>>| {
        snapshot
            .into_iter()
            .filter(|(path, _)| !vendored.iter().any(|v| path == v || path.starts_with(&format!("{v}/"))))
            .collect::<BTreeMap<_, _>>()
    };
    let rest_before = not_vendored(t.snapshot());
    let o = t.run(&["sync"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    insta::assert_snapshot!("sync_human", t.redact(&o));

    let canonical = canonical();
    for (r, p) in all_targets() {
        let id = format!("{r}/{p}");
        let dir = t.root.join(&id);
        if ABSENT.contains(&r.as_str()) {
            assert!(!t.root.join(&r).exists(), "{r} was created");
        } else if id == ESCAPE || id == PARENT_ESCAPE {
            assert!(
                std::fs::symlink_metadata(t.root.join(if id == ESCAPE {
                    ESCAPE
                } else {
                    "babelqueue-dotnet-redis/tests"
                }))
                .unwrap()
                .file_type()
                .is_symlink()
            );
        } else if r == "babelqueue-java-redis" {
            assert_eq!(
                std::fs::read_to_string(dir.join("CONFORMANCE_VERSION")).unwrap(),
                "9.0.0\n",
                "a newer copy is kept"
            );
        } else {
            let mut want = canonical.clone();
            if r == "babelqueue-python" {
                want.insert("LICENSE".into(), std::fs::read(repo().join("LICENSE")).unwrap());
            }
            assert!(files(&dir) == want, "{id} is not byte-identical to the canonical suite (its LICENSE kept)");
        }
    }
    let outside_after: Vec<_> = ["outside", "outside-parent"].iter().map(|d| files(&t.root.join(d))).collect();
    assert_eq!(outside_before, outside_after, "a symlink was followed out of its repository");
    assert!(not_vendored(t.snapshot()) == rest_before, "sync touched something outside the vendored directories");
    let leftovers: Vec<_> = walkdir::WalkDir::new(&t.root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_name().to_string_lossy().contains(".bqsuite-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let (code, r) = t.json(&["sync", "--check"]);
    assert_eq!(code, Some(1), "the refused and downgraded targets still drift");
    assert_eq!(target(&r, "babelqueue-node/test/conformance")["pin_status"], "mismatch", "copy bumped, pin not yet");
    assert_eq!(target(&r, "babelqueue-go/testdata/conformance")["status"], "in-sync");
}

#[test]
fn check_passes_after_sync_and_fails_on_any_single_byte_edit() {
    let t = Tree::messy(false);
    let o = t.run(&["sync"]);
    // Only the downgrade is refused.
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    std::fs::write(t.copy("babelqueue-java-redis/src/test/resources/conformance/CONFORMANCE_VERSION"), "1.0.0\n")
        .unwrap();
    let o = t.run(&["sync"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let o = t.run(&["sync", "--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));

    // One single-byte edit through the binary: exit 1, the file named.
    let file = t.copy("babelqueue-node-adapters/packages/kafka/test/conformance/schema/results.schema.json");
    let original = std::fs::read(&file).unwrap();
    let mut edited = original.clone();
    edited[10] ^= 0x01;
    std::fs::write(&file, &edited).unwrap();
    let o = t.run(&["sync", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("--> babelqueue-node-adapters/packages/kafka/test/conformance/schema/results.schema.json"),
        "{out}"
    );
    std::fs::write(&file, &original).unwrap();

    // Every file of one copy, one flipped byte at a time, through the library.
    let suite = Suite::load(t.suite()).unwrap();
    let targets = sync::targets::select(&sync::targets::from_suite(&suite).unwrap(), &["php-sdk".into()]).unwrap();
    let options = Options {
        root: t.root.clone(),
        mode: Mode::Check,
        strict: false,
        allow_dirty: false,
        bump_pins: false,
        releases: None,
    };
    assert!(!sync::run(&suite, &targets, &options).unwrap().failed());
    let dir = t.copy("php-sdk/tests/conformance");
    for (rel, bytes) in canonical() {
        let mut edited = bytes.clone();
        let at = bytes.len() / 2;
        edited[at] = edited[at].wrapping_add(1);
        std::fs::write(dir.join(&rel), &edited).unwrap();
        let report = sync::run(&suite, &targets, &options).unwrap();
        assert!(report.failed(), "{rel}: a one-byte edit went unnoticed");
        let findings = report.findings();
        let named: Vec<_> = findings.iter().filter(|f| f.code.id == "BQ710").map(|f| f.file.clone().unwrap()).collect();
        assert_eq!(named, [format!("php-sdk/tests/conformance/{rel}")]);
        std::fs::write(dir.join(&rel), &bytes).unwrap();
    }
    assert!(!sync::run(&suite, &targets, &options).unwrap().failed());
}

#[test]
fn a_copy_checked_out_with_crlf_line_endings_is_drift_that_says_why() {
    let t = Tree::messy(false);
    t.run(&["sync"]);
    std::fs::write(t.copy("babelqueue-java-redis/src/test/resources/conformance/CONFORMANCE_VERSION"), "1.0.0\n")
        .unwrap();
    assert_eq!(t.run(&["sync"]).status.code(), Some(0));
    let dir = t.copy("php-sdk/tests/conformance");
    for rel in ["manifest.json", "fixtures/order-created.json"] {
        let text = std::fs::read_to_string(dir.join(rel)).unwrap();
        std::fs::write(dir.join(rel), text.replace('\n', "\r\n")).unwrap();
    }
    let o = t.run(&["sync", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // The whole sequence (user study, stop 67: the .gitattributes line alone made the next sync
    // refuse the copy), once in the table and once in one finding for the copy.
    let note = "only the line endings differ (CR LF in the copy, as git's core.autocrlf writes them on a Windows \
                checkout, or an editor); to keep the suite's bytes, add `tests/conformance/** -text` to the \
                repository's .gitattributes, rewrite the copy with `bqsuite sync --only php-sdk/tests/conformance` \
                (git then sees its files as changed: if that refuses them, it says they are line endings only, which \
                --allow-dirty replaces losing nothing), and commit both";
    assert_eq!(out.matches(note).count(), 2, "a table note and one finding for the copy: {out}");
    assert!(out.contains("modified  manifest.json  (line endings only)"), "{out}");
    assert!(out.contains("files differ from the canonical files only in line endings (2 files: "), "{out}");
    assert!(!out.contains("-  \"schema_version\""), "no diff of every line: {out}");
    let o = t.run(&["sync", "--check", "--format", "json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let php = target(&report, "php-sdk/tests/conformance");
    let modified = php["modified"].as_array().unwrap();
    assert_eq!(modified.len(), 2);
    assert!(modified.iter().all(|m| m["line_endings_only"] == true && m["diff"].is_null()), "{php:#}");
    // Following the advice in a git checkout: the .gitattributes line makes git see the CR LF
    // files as changed; the sync that rewrites the copy says they are line endings only, with
    // the whole command, and that command leaves the copy exact and git clean.
    let sdk = t.root.join("php-sdk");
    support::git(&sdk, &["init", "-q"]);
    support::git(&sdk, &["-c", "core.autocrlf=false", "add", "-A"]);
    support::git(&sdk, &["commit", "-q", "-m", "vendor"]);
    for rel in ["manifest.json", "fixtures/order-created.json"] {
        std::fs::write(dir.join(rel), std::fs::read(t.suite().join(rel)).unwrap()).unwrap();
    }
    support::git(&sdk, &["add", "-A"]);
    support::git(&sdk, &["commit", "-q", "-m", "lf"]);
    for rel in ["manifest.json", "fixtures/order-created.json"] {
        let text = std::fs::read_to_string(dir.join(rel)).unwrap();
        std::fs::write(dir.join(rel), text.replace('\n', "\r\n")).unwrap();
    }
    std::fs::write(sdk.join(".gitattributes"), "tests/conformance/** -text\n").unwrap();
    let o = t.run(&["sync", "--only", "php-sdk"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("that are line endings only: each file is the suite's with CR LF")
            && out.contains("run `bqsuite sync --only php-sdk/tests/conformance --allow-dirty`"),
        "{out}"
    );
    assert!(out.contains("(2 files: only the line endings differ"), "the note in a sync too: {out}");
    let o = t.run(&["sync", "--only", "php-sdk/tests/conformance", "--allow-dirty"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let status = std::process::Command::new("git").args(["status", "--porcelain"]).current_dir(&sdk).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&status.stdout), "?? .gitattributes\n");
    // Anything else uncommitted is never said to be line endings.
    std::fs::write(dir.join("fixtures/draft.json"), "{}\n").unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        std::fs::read_to_string(dir.join("manifest.json")).unwrap().replace('\n', "\r\n"),
    )
    .unwrap();
    let out = String::from_utf8_lossy(&t.run(&["sync", "--only", "php-sdk"]).stdout).into_owned();
    assert!(
        out.contains("not replaced, so that they are not lost") && !out.contains("that are line endings only"),
        "{out}"
    );
    std::fs::remove_file(dir.join("fixtures/draft.json")).unwrap();
    // Any other change keeps its diff and says nothing of line endings.
    std::fs::write(dir.join("manifest.json"), std::fs::read(t.suite().join("manifest.json")).unwrap()).unwrap();
    let text = std::fs::read_to_string(dir.join("fixtures/order-created.json")).unwrap();
    std::fs::write(dir.join("fixtures/order-created.json"), text.replace("\r\n", "\n").replace("created", "edited"))
        .unwrap();
    let o = t.run(&["sync", "--check", "--format", "json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &target(&report, "php-sdk/tests/conformance")["modified"][0];
    assert!(m["line_endings_only"] == false && m["diff"].as_str().is_some_and(|d| d.contains("edited")), "{m:#}");
}

#[test]
fn dry_run_writes_nothing_and_says_what_would_change() {
    let t = Tree::messy(true);
    let before = t.snapshot();
    let o = t.run(&["sync", "--dry-run"]);
    assert_eq!(o.status.code(), Some(1), "refusals still fail: {}", transcript(&o));
    assert_eq!(t.snapshot(), before, "--dry-run wrote");
    let o = t.run(&[
        "sync",
        "--dry-run",
        "--only",
        "babelqueue-go",
        "babelqueue-python",
        "babelqueue-java-pulsar",
        "php-sdk",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(t.snapshot(), before, "--dry-run wrote");
    insta::assert_snapshot!("sync_dry_run_human", t.redact(&o));
}

/// A sync never loses uncommitted work (BQ720): a copy whose SDK repository's work tree holds
/// a change under it is refused, by `--dry-run` too, and left as it is; committed drift is
/// replaced, so is a copy outside any git work tree (nothing committed to lose it against), and
/// an untracked LICENSE is no reason (sync keeps it); `--allow-dirty` replaces them all.
#[test]
fn a_copy_with_uncommitted_changes_is_not_replaced_without_allow_dirty() {
    let t = Tree::clean();
    let sdks = ["babelqueue-go", "babelqueue-python", "php-sdk", "babelqueue-node"];
    for r in &sdks[..3] {
        let sdk = t.root.join(r);
        support::git(&sdk, &["init", "-q"]);
        support::git(&sdk, &["add", "-A"]);
        support::git(&sdk, &["commit", "-q", "-m", "vendor the suite"]);
    }
    // Go: a tracked fixture edited, not committed. Python: a new fixture staged.
    let go = t.copy("babelqueue-go/testdata/conformance");
    std::fs::write(go.join("fixtures/order-created.json"), "{}\n").unwrap();
    let python = t.copy("babelqueue-python/tests/conformance");
    std::fs::write(python.join("fixtures/draft.json"), "{}\n").unwrap();
    support::git(&t.root.join("babelqueue-python"), &["add", "-A"]);
    // PHP: drift committed, and an untracked LICENSE. Node: no git at all, drifted.
    let php = t.copy("php-sdk/tests/conformance");
    std::fs::write(php.join("fixtures/stale.json"), "{}\n").unwrap();
    support::git(&t.root.join("php-sdk"), &["add", "-A"]);
    support::git(&t.root.join("php-sdk"), &["commit", "-q", "-m", "drift"]);
    std::fs::write(php.join("LICENSE"), "kept\n").unwrap();
    let node = t.copy("babelqueue-node/test/conformance");
    std::fs::write(node.join("fixtures/stale.json"), "{}\n").unwrap();

    let mut only = vec!["sync", "--only"];
    only.extend(sdks);
    let before = t.snapshot();
    for dry in [true, false] {
        let mut args = only.clone();
        if dry {
            args.push("--dry-run");
        }
        let (code, r) = t.json(&args);
        assert_eq!(code, Some(1), "{r:#}");
        let refused = |id: &str, file: &str| {
            let target = target(&r, id);
            assert_eq!(
                (&target["action"], &target["uncommitted"]),
                (&json!("refused-uncommitted"), &json!([file])),
                "{id}: {r:#}"
            );
        };
        refused("babelqueue-go/testdata/conformance", "fixtures/order-created.json");
        refused("babelqueue-python/tests/conformance", "fixtures/draft.json");
        let go_finding = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "BQ720" && f["file"] == "babelqueue-go/testdata/conformance")
            .unwrap();
        let message = go_finding["message"].as_str().unwrap();
        assert!(
            message.contains("(1 file: fixtures/order-created.json): not replaced")
                && message.contains("--allow-dirty"),
            "{message}"
        );
        assert_eq!(codes(&r).iter().filter(|(code, ..)| code == "BQ720").count(), 2, "{r:#}");
        // The human table's words (user study, stop 67: JSON said `written`).
        let written = if dry { "would-update" } else { "updated" };
        assert_eq!(target(&r, "php-sdk/tests/conformance")["action"], written, "{r:#}");
        assert_eq!(target(&r, "babelqueue-node/test/conformance")["action"], written, "{r:#}");
        if dry {
            assert_eq!(t.snapshot(), before, "--dry-run wrote");
        }
    }
    assert_eq!(files(&go), before_copy(&before, &go), "the refused copy is left as it was");
    // `--check` asks git nothing: no `uncommitted` list rather than an empty one that says
    // the dirty copy is clean (user study, stop 67).
    let (_, r) = t.json(&["sync", "--check", "--only", "babelqueue-go"]);
    assert!(target(&r, "babelqueue-go/testdata/conformance").get("uncommitted").is_none(), "{r:#}");
    assert_eq!(files(&php).get("LICENSE").map(Vec::as_slice), Some(&b"kept\n"[..]));
    assert!(!php.join("fixtures/stale.json").exists() && !node.join("fixtures/stale.json").exists());

    // Where a repository is there but git cannot answer (not installed here; a repository it
    // refuses as another user's is the same), nothing is known to be committed: not replaced.
    let root = t.root.display().to_string();
    let mut args = vec!["sync", "--only", "babelqueue-go", "--root", root.as_str(), "--format", "json"];
    let o = support::bqsuite_env(&t.suite(), &args, &[("PATH", "/nonexistent")]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", transcript(&o)));
    assert_eq!(o.status.code(), Some(1), "{r:#}");
    let reason = target(&r, "babelqueue-go/testdata/conformance")["reason"].as_str().unwrap().to_owned();
    assert!(reason.contains("cannot tell whether") && reason.contains("cannot run git"), "{reason}");
    assert_eq!(files(&go), before_copy(&before, &go), "kept where git cannot answer");
    args.push("--allow-dirty");
    assert_eq!(support::bqsuite_env(&t.suite(), &args, &[("PATH", "/nonexistent")]).status.code(), Some(0));

    let mut args = only.clone();
    args.push("--allow-dirty");
    let (code, r) = t.json(&args);
    assert_eq!(code, Some(0), "{r:#}");
    for copy in [&go, &python] {
        let mut got = files(copy);
        got.remove("LICENSE");
        assert_eq!(got, canonical(), "{}", copy.display());
    }
}

/// The files of the copy at `dir` in a [`Tree::snapshot`], as [`files`] reads them.
fn before_copy(snapshot: &BTreeMap<String, Vec<u8>>, dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let prefix = format!("{}/", dir.display());
    snapshot
        .iter()
        .filter_map(|(path, bytes)| Some((path.strip_prefix(&prefix)?.to_owned(), bytes.clone())))
        .filter(|(_, bytes)| bytes.as_slice() != b"dir")
        .collect()
}

/// Red team: with a copy behind the suite, a pin conflict told the maintainer to move the pins
/// that already name the suite's version (those differed from the old copy's); the pins to move
/// are those that do not name the version every copy is synced to.
#[test]
fn a_pin_conflict_beside_a_copy_behind_names_the_pins_that_miss_the_suite_s_version() {
    let t = Tree::clean();
    let node = "babelqueue-node/test/conformance";
    std::fs::write(t.copy(node).join("CONFORMANCE_VERSION"), "1.5.0\n").unwrap();
    t.pin("babelqueue-node", "ci.yml", "v1.5.0");
    t.pin("babelqueue-node", "nightly.yml", &format!("v{}", version()));
    let (_, r) = t.json(&["sync", "--check", "--only", "babelqueue-node"]);
    let conflict = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ717").unwrap();
    assert_eq!(conflict["file"], "babelqueue-node/.github/workflows/ci.yml", "{conflict:#}");
    let message = conflict["message"].as_str().unwrap();
    assert!(
        message
            .ends_with(&format!("; the suite is {0}, so move .github/workflows/ci.yml:7 (v1.5.0) to v{0}", version())),
        "{message}"
    );
    // More stale pins than a line names: the first three, then how many more.
    let more = ["w1.yml", "w2.yml", "w3.yml", "w4.yml"];
    for file in more {
        t.pin("babelqueue-node", file, "v1.5.0");
    }
    let (_, r) = t.json(&["sync", "--check", "--only", "babelqueue-node"]);
    let conflict = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ717").unwrap();
    let message = conflict["message"].as_str().unwrap();
    assert!(message.contains(&format!(" and 2 more to v{}", version())), "{message}");
    assert_eq!(message.matches("(v1.5.0)").count(), 3, "{message}");
    for file in more {
        std::fs::remove_file(t.root.join("babelqueue-node/.github/workflows").join(file)).unwrap();
    }
    // A mismatch beside a copy behind: the copy moves to the suite, never the pin back to it.
    std::fs::remove_file(t.root.join("babelqueue-node/.github/workflows/ci.yml")).unwrap();
    let mismatch = |t: &Tree| {
        let (_, r) = t.json(&["sync", "--check", "--only", "babelqueue-node"]);
        let f = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ716").cloned();
        f.unwrap_or_else(|| panic!("{r:#}"))["message"].as_str().unwrap().to_owned()
    };
    let on_suite = mismatch(&t);
    assert!(
        on_suite.ends_with(&format!(
            "CI pins v{0} but the copy is 1.5.0, not the suite's {0}; sync the copy (the pin already names v{0})",
            version()
        )),
        "{on_suite}"
    );
    t.pin("babelqueue-node", "nightly.yml", "v1.4.0");
    let elsewhere = mismatch(&t);
    assert!(
        elsewhere.contains(&format!(
            "CI pins v1.4.0 but the copy is 1.5.0, and the suite is {0}; sync the copy and pin v{0} (",
            version()
        )),
        "{elsewhere}"
    );
}

#[test]
fn only_limits_the_targets() {
    let t = Tree::messy(false);
    let o = t.run(&["sync", "--only", "babelqueue-go"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(files(&t.copy("babelqueue-go/testdata/conformance")), canonical());
    assert!(t.copy("babelqueue-python/tests/conformance/LICENSE").exists(), "a target outside --only was synced");
    let (code, r) = t.json(&["sync", "--check", "--only", "babelqueue-go"]);
    assert_eq!((code, r["targets"].as_array().unwrap().len()), (Some(0), 1));
    let (_, r) = t.json(&["sync", "--check", "--only", "babelqueue-node-adapters"]);
    assert_eq!(r["targets"].as_array().unwrap().len(), 7);
    let (_, r) =
        t.json(&["sync", "--check", "--only", "babelqueue-node-adapters/packages/kafka/test/conformance", "php-sdk"]);
    let ids: Vec<_> = r["targets"].as_array().unwrap().iter().map(|t| t["repo"].as_str().unwrap()).collect();
    assert_eq!(ids, ["php-sdk", "babelqueue-node-adapters"], "file order");
    let o = t.run(&["sync", "--only", "no-such-sdk"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"no-such-sdk\" names no sync target"));
}

#[test]
fn strict_makes_a_missing_repository_an_error() {
    let t = Tree::messy(false);
    std::fs::write(t.copy("babelqueue-java-redis/src/test/resources/conformance/CONFORMANCE_VERSION"), "1.0.0\n")
        .unwrap();
    let o = t.run(&["sync"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let (code, r) = t.json(&["sync", "--strict"]);
    assert_eq!(code, Some(1));
    assert!(codes(&r).contains(&("BQ706".into(), "error".into(), "babelqueue-java-sqs".into())));
    let (code, _) = t.json(&["sync", "--check", "--strict"]);
    assert_eq!(code, Some(1));
    let (code, _) = t.json(&["sync", "--check", "--strict", "--only", "php-sdk"]);
    assert_eq!(code, Some(0));
}

#[test]
fn the_root_defaults_to_the_parent_of_the_suite() {
    let t = Tree::messy(false);
    let o = bqsuite(&t.suite(), &["sync", "--only", "babelqueue-go", "babelqueue-python"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let mut synced = files(&t.copy("babelqueue-python/tests/conformance"));
    assert!(synced.remove("LICENSE").is_some(), "sync neither writes nor deletes a LICENSE");
    assert_eq!(synced, canonical());
    let o = bqsuite(&t.suite().join("fixtures"), &["sync", "--check", "--only", "babelqueue-go", "babelqueue-python"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("under {})", t.root.display())));
}

#[test]
fn a_targets_file_can_be_given_and_is_checked() {
    let t = Tree::messy(false);
    let file = t.root.join("targets.json");
    std::fs::write(
        &file,
        r#"{"schema_version": 1, "targets": [{"repo": "babelqueue-go", "path": "testdata/conformance"}]}"#,
    )
    .unwrap();
    let (code, r) = t.json(&["sync", "--check", "--targets", file.to_str().unwrap()]);
    assert_eq!((code, r["targets"].as_array().unwrap().len()), (Some(1), 1));
    std::fs::write(&file, r#"{"schema_version": 1, "targets": [{"repo": "..", "path": "x"}]}"#).unwrap();
    let o = t.run(&["sync", "--check", "--targets", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("targets.json is not a valid targets file") && err.contains("BQ703"), "{err}");
}

#[test]
fn sync_refuses_a_suite_that_does_not_validate_and_writes_nothing() {
    let t = Tree::messy(false);
    std::fs::write(t.suite().join("fixtures/orphan.json"), "{}\n").unwrap();
    let before = t.snapshot();
    let o = t.run(&["sync"]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("validate error"));
    assert_eq!(t.snapshot(), before);
    let o = t.run(&["sync", "--check", "--only", "php-sdk"]);
    assert_eq!(o.status.code(), Some(1), "the orphan is drift in every copy: {}", transcript(&o));
}

#[test]
fn validate_checks_the_targets_file_shape() {
    let cases: [(&str, &str, &str); 5] = [
        (r#"{"schema_version": 1, "targets": []}"#, "BQ701", "/targets"),
        (r#"{"schema_version": 1, "targets": [{"repo": "a", "dir": "x", "path": "y"}]}"#, "BQ702", "/targets/0/dir"),
        (r#"{"schema_version": 1, "targets": [{"repo": "a/b", "path": "y"}]}"#, "BQ703", "/targets/0/repo"),
        (r#"{"schema_version": 1, "targets": [{"repo": "a", "path": "../y"}]}"#, "BQ704", "/targets/0/path"),
        (
            r#"{"schema_version": 1, "targets": [{"repo": "a", "path": "y"}, {"repo": "a", "path": "y/z"}]}"#,
            "BQ705",
            "/targets/1",
        ),
    ];
    for (text, code, pointer) in cases {
        let s = SuiteCopy::new();
        s.write("sync-targets.json", text);
        let f = assert_finding(&findings!(s), code, "sync-targets.json", Some(pointer));
        assert!(f.span.is_some(), "{code}: line:column located");
    }
    let s = SuiteCopy::new();
    s.write("sync-targets.json", "{\"schema_version\": 1,");
    assert_finding(&findings!(s), "BQ001", "sync-targets.json", None);
    let s = SuiteCopy::new();
    std::fs::copy(repo().join("sync-targets.json"), s.path().join("sync-targets.json")).unwrap();
    assert!(findings!(s).is_empty());
}

/// A target that resolves to the canonical suite's own directory, into it or above it (a
/// repository named like the suite's directory, or a symlink to it) is refused in every mode:
/// a sync would overwrite or delete the suite it copies. Nothing of the suite changes.
#[test]
fn a_target_that_is_the_suite_inside_it_or_above_it_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let suite = root.join("holder/suite");
    std::fs::create_dir_all(&suite).unwrap();
    for entry in support::SUITE_ENTRIES {
        copy_tree(&repo().join(entry), &suite.join(entry));
    }
    std::os::unix::fs::symlink(&root, root.join("alias")).unwrap();
    let before = files(&suite);
    for (repo_name, path, why) in [
        ("holder", "suite", "is the canonical suite's own directory"),
        ("holder", "suite/schema", "lies inside the canonical suite's directory"),
        ("alias", "holder/suite/fixtures", "lies inside the canonical suite's directory"),
        ("alias", "holder", "holds the canonical suite's directory"),
    ] {
        let targets = root.join("targets.json");
        let doc = json!({"schema_version": 1, "targets": [{"repo": repo_name, "path": path}]});
        std::fs::write(&targets, doc.to_string()).unwrap();
        for mode in [&["sync"][..], &["sync", "--check"], &["sync", "--dry-run"]] {
            let mut args = mode.to_vec();
            args.extend(["--suite", suite.to_str().unwrap(), "--root", root.to_str().unwrap()]);
            args.extend(["--targets", targets.to_str().unwrap(), "--format", "json"]);
            let o = bqsuite(&root, &args);
            assert_eq!(o.status.code(), Some(1), "{repo_name}/{path} {mode:?}: {}", transcript(&o));
            let r: Value = serde_json::from_slice(&o.stdout).unwrap();
            let f = &r["findings"][0];
            assert_eq!(
                (f["code"].as_str(), f["file"].as_str()),
                (Some("BQ711"), Some(&*format!("{repo_name}/{path}")))
            );
            assert!(f["message"].as_str().unwrap().contains(why), "{repo_name}/{path}: {f:#}");
            assert_eq!(files(&suite), before, "{repo_name}/{path} {mode:?}: the suite was written");
        }
    }
    let mut names: Vec<_> = std::fs::read_dir(root.join("holder")).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["suite"], "no staging area beside the suite");
}

#[test]
fn a_root_that_holds_none_of_the_sdks_cannot_run() {
    let t = Tree::clean();
    let empty = tempfile::tempdir().unwrap();
    for mode in [&["sync", "--check"][..], &["sync"], &["sync", "--dry-run"], &["sync", "--check", "--strict"]] {
        let mut args = mode.to_vec();
        args.extend(["--root", empty.path().to_str().unwrap()]);
        let o = bqsuite(&t.suite(), &args);
        assert_eq!(o.status.code(), Some(2), "{mode:?}: {}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("none of the 25 targets' repositories is under the sync root"), "{err}");
        assert!(o.stdout.is_empty(), "no report of nothing: {}", transcript(&o));
    }
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
    // --only narrows what must be there: one present repository is enough.
    let (code, _) = t.json(&["sync", "--check", "--only", "php-sdk"]);
    assert_eq!(code, Some(0));
}

#[test]
fn a_pin_shared_by_the_targets_of_one_repository_is_reported_once() {
    let t = Tree::clean();
    t.pin("babelqueue-node-adapters", "ci.yml", "v1.5.0");
    let (code, r) = t.json(&["sync", "--check"]);
    assert_eq!(code, Some(0), "pin findings are warnings");
    let mismatches: Vec<_> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "BQ716")
        .map(|f| f["message"].clone())
        .collect();
    assert_eq!(mismatches.len(), 1, "{mismatches:#?}");
    let msg = mismatches[0].as_str().unwrap();
    assert!(msg.starts_with("babelqueue-node-adapters (7 targets: packages/sqs/test/conformance, "), "{msg}");
    // A target whose copy differs from its siblings' gets a finding of its own.
    std::fs::write(t.copy("babelqueue-node-adapters/packages/kafka/test/conformance/CONFORMANCE_VERSION"), "1.5.0\n")
        .unwrap();
    let (_, r) = t.json(&["sync", "--check"]);
    let pins: Vec<_> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"].as_str().unwrap().starts_with("BQ71") && f["code"] != "BQ710")
        .map(|f| (f["code"].as_str().unwrap().to_owned(), f["message"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(pins.len(), 2, "{pins:#?}");
    assert_eq!(pins[0].0, "BQ716");
    assert!(pins[0].1.contains("(6 targets: "), "{pins:#?}");
    assert_eq!(pins[1].0, "BQ714");
    assert!(pins[1].1.starts_with("babelqueue-node-adapters/packages/kafka/test/conformance: "), "{pins:#?}");
}

/// Synced from a checkout between releases (`1.7.0-pre`), the pin advice named the tag
/// `v1.7.0-pre`, which the release workflow never makes (a -pre version is refused at the tag
/// check): an SDK that followed it had a CI that cannot clone the suite. The advice is now to
/// pin the release the copy becomes once it is tagged.
#[test]
fn pin_advice_never_names_a_tag_a_pre_version_cannot_have() {
    let t = Tree::clean();
    let suite = t.suite();
    support::set_version(&suite, "1.7.0-pre");
    let changelog = std::fs::read_to_string(suite.join("CHANGELOG.md")).unwrap();
    std::fs::write(suite.join("CHANGELOG.md"), changelog.replacen("## ", "## 1.7.0\n\n- In the works.\n\n## ", 1))
        .unwrap();
    let messages = |args: &[&str]| -> Vec<(String, String)> {
        let (_, r) = t.json(args);
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "BQ714" || f["code"] == "BQ716")
            .map(|f| (f["code"].as_str().unwrap().to_owned(), f["message"].as_str().unwrap().to_owned()))
            .collect()
    };
    let behind = messages(&["sync", "--check", "--only", "php-sdk"]);
    assert_eq!(behind.len(), 1, "{behind:#?}");
    assert_eq!(behind[0].0, "BQ714");
    assert!(
        behind[0].1.ends_with("; sync it, and pin v1.7.0 once it is tagged (a -pre version is never tagged)"),
        "{behind:#?}"
    );

    let mismatch = messages(&["sync", "--only", "php-sdk"]);
    assert_eq!(mismatch.len(), 1, "{mismatch:#?}");
    assert_eq!(mismatch[0].0, "BQ716");
    let msg = &mismatch[0].1;
    assert!(!msg.contains("v1.7.0-pre"), "no tag v1.7.0-pre exists to pin: {msg}");
    assert!(
        msg.ends_with(&format!(
            "CI pins v{} but the copy is 1.7.0-pre, a suite not yet released (a -pre version is never tagged); pin \
             v1.7.0 in the workflow once it is tagged (`--branch v1.7.0` or `uses: BabelQueue/conformance@v1.7.0`)",
            version()
        )),
        "{msg}"
    );
}

/// A staging name as an interrupted run leaves it beside `dir`.
fn leftover(dir: &Path, kind: &str) -> PathBuf {
    let name = dir.file_name().unwrap().to_str().unwrap();
    dir.with_file_name(format!(".{name}.bqsuite-{kind}-{}", "0123456789abcdef".repeat(2)))
}

#[test]
fn leftovers_of_an_interrupted_sync_are_reported_then_removed_or_restored() {
    let t = Tree::clean();
    // php-sdk: a half-filled stage beside an intact copy.
    let php = t.copy("php-sdk/tests/conformance");
    let stage = leftover(&php, "stage");
    copy_tree(&php.join("fixtures"), &stage.join("fixtures"));
    // babelqueue-go: killed between the two renames of the fallback swap: no copy, the old one
    // aside, the new one staged.
    let go = t.copy("babelqueue-go/testdata/conformance");
    let aside = leftover(&go, "old");
    std::fs::rename(&go, &aside).unwrap();
    let go_stage = leftover(&go, "stage");
    copy_tree(&aside, &go_stage);
    // A leftover file of an interrupted fetch beside another copy, and a name that only looks
    // similar (not ours: never touched).
    let node = t.copy("babelqueue-node/test/conformance");
    std::fs::write(leftover(&node, "tmp"), "partial").unwrap();
    let foreign = node.with_file_name(".conformance.bqsuite-stage-not-hex");
    std::fs::write(&foreign, "mine").unwrap();

    let (code, r) = t.json(&["sync", "--check"]);
    assert_eq!(code, Some(1));
    let found: Vec<_> = codes(&r).into_iter().filter(|c| c.0 == "BQ719").collect();
    let name = |p: &Path| p.strip_prefix(&t.root).unwrap().display().to_string();
    let expected = [name(&stage), name(&aside), name(&go_stage), name(&leftover(&node, "tmp"))]
        .map(|f| ("BQ719".to_owned(), "error".to_owned(), f));
    assert_eq!(found.len(), 4, "{found:#?}");
    for e in &expected {
        assert!(found.contains(e), "{e:?} in {found:#?}");
    }
    assert_eq!(target(&r, "babelqueue-go/testdata/conformance")["status"], "missing");
    // A dry run says what a sync would do with them: warnings, since it leaves them as they are.
    let (code, r) = t.json(&["sync", "--dry-run"]);
    let found: Vec<_> = codes(&r).into_iter().filter(|c| c.0 == "BQ719").collect();
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found.iter().all(|c| c.1 == "warning"), "{found:#?}");
    assert_eq!(code, Some(0), "{r:#}");

    let o = t.run(&["sync"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("restored an old copy that an interrupted sync had moved aside"), "{out}");
    for gone in [&stage, &aside, &go_stage, &leftover(&node, "tmp")] {
        assert!(!gone.exists(), "{} survived", gone.display());
    }
    assert_eq!(std::fs::read(&foreign).unwrap(), b"mine");
    assert_eq!(files(&go), canonical(), "the old copy was put back (and is exact)");
    let label = target(&t.json(&["sync", "--check"]).1, "babelqueue-go/testdata/conformance")["status"].clone();
    assert_eq!(label, "in-sync");
    let (code, r) = t.json(&["sync", "--check"]);
    assert_eq!(code, Some(0), "{r:#}");
}

/// Two old copies beside a missing copy are left only by runs that overlapped (or by a hand), and
/// their random names do not tell which one to keep: sync restores neither, removes neither and
/// writes no copy there, refusing the target with the names; once one is moved back, the next
/// sync removes the other and brings the copy up to date.
#[test]
fn two_old_copies_beside_a_missing_copy_are_kept_for_the_user_to_choose() {
    let t = Tree::clean();
    let go = t.copy("babelqueue-go/testdata/conformance");
    let (a, b) =
        (leftover(&go, "old"), go.with_file_name(format!(".conformance.bqsuite-old-{}", "fedcba9876543210".repeat(2))));
    copy_tree(&go, &a);
    std::fs::rename(&go, &b).unwrap();
    std::fs::write(b.join("fixtures/edited-by-hand.json"), "{}\n").unwrap();
    let name = |p: &Path| p.file_name().unwrap().to_str().unwrap().to_owned();
    let id = "babelqueue-go/testdata/conformance";

    let (code, r) = t.json(&["sync", "--check"]);
    assert_eq!(code, Some(1));
    let said: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "BQ719")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(said.len(), 2, "{r:#}");
    assert!(said.iter().all(|m| m.contains("a sync would keep it")), "{said:#?}");

    let dry = t.json(&["sync", "--dry-run"]).1;
    assert_eq!(target(&dry, id)["action"], "refused-old-copies", "{dry:#}");

    let before = t.snapshot();
    let (code, r) = t.json(&["sync"]);
    assert_eq!(code, Some(1), "{r:#}");
    let go_report = target(&r, id);
    assert_eq!(go_report["action"], "refused-old-copies", "{r:#}");
    let reason = go_report["reason"].as_str().unwrap();
    assert!(reason.contains(&name(&a)) && reason.contains(&name(&b)), "{reason}");
    let fates: Vec<&Value> = go_report["leftovers"].as_array().unwrap().iter().map(|l| &l["fate"]).collect();
    assert_eq!(fates, ["kept", "kept"], "{r:#}");
    let refusal = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "BQ719" && f["severity"] == "error" && f["file"] == id)
        .unwrap_or_else(|| panic!("{r:#}"));
    assert!(refusal["message"].as_str().unwrap().contains("move it back to testdata/conformance"), "{refusal:#}");
    assert!(!go.exists(), "no copy written");
    assert_eq!(files(&a), canonical());
    let mut edited = canonical();
    edited.insert("fixtures/edited-by-hand.json".into(), b"{}\n".to_vec());
    assert_eq!(files(&b), edited, "neither old copy touched");
    // The other targets were synced as ever (they were in sync), and nothing else changed.
    assert_eq!(t.snapshot(), before);

    std::fs::rename(&b, &go).unwrap();
    let r = t.json(&["sync", "--check"]).1;
    let left =
        r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ719").unwrap_or_else(|| panic!("{r:#}"));
    assert!(left["message"].as_str().unwrap().ends_with("a sync would remove it"), "{left:#}");
    let o = t.run(&["sync"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(!a.exists(), "the other old copy is an ordinary leftover now");
    assert_eq!(files(&go), canonical());
}

/// Make every copy of the tree an "old" one: a modified manifest, a stale fixture, one fixture
/// missing. Returns the old copy's files.
fn make_old(t: &Tree) -> BTreeMap<String, Vec<u8>> {
    let mut old = canonical();
    old.get_mut("manifest.json").unwrap().extend_from_slice(b"\n");
    old.insert("fixtures/stale-case.json".into(), b"{}\n".to_vec());
    let gone = old.keys().find(|k| k.starts_with("fixtures/") && k.ends_with(".json")).unwrap().clone();
    old.remove(&gone);
    for (r, p) in all_targets() {
        let dir = t.root.join(&r).join(&p);
        let _ = std::fs::remove_dir_all(&dir);
        for (rel, bytes) in &old {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
    }
    old
}

/// Every staging name under the root.
fn staging_names(t: &Tree) -> Vec<String> {
    walkdir::WalkDir::new(&t.root)
        .into_iter()
        .map(Result::unwrap)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| bqsuite::staging::parse(n).is_some())
        .collect()
}

/// SIGINT (and SIGTERM) at random points of a real sync, over and over: every copy is always
/// entirely old or entirely new, the vendored directory never goes missing, the interrupted
/// process exits 130 / 143, and nothing is left for the next `sync --check` to find. Bounded:
/// 24 runs over nine targets, each killed outright after 30 s; only local processes and files.
#[test]
fn an_interrupted_sync_leaves_every_copy_old_or_new_and_nothing_behind() {
    let t = Tree::clean();
    let old = make_old(&t);
    let new = canonical();
    let root = t.root.display().to_string();
    let sync = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_bqsuite"))
            .args(["sync", "--root", &root, "--only", "php-sdk", "babelqueue-go", "babelqueue-node-adapters"])
            .current_dir(t.suite())
            .env("NO_COLOR", "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let started = std::time::Instant::now();
    assert!(sync().wait().unwrap().success());
    let full = started.elapsed();
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    eprintln!("a full sync takes {full:?}; seed {seed}");
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let (mut interrupted, mut mixed) = (0, 0);
    let chosen = |r: &str| ["php-sdk", "babelqueue-go", "babelqueue-node-adapters"].contains(&r);
    for round in 0..24 {
        make_old(&t);
        let delay = full.mul_f64((next() % 1000) as f64 / 1000.0);
        let signal = if round % 6 == 5 { "-TERM" } else { "-INT" };
        let mut child = sync();
        std::thread::sleep(delay);
        let _ = std::process::Command::new("kill").args([signal, &child.id().to_string()]).status();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("round {round}: sync did not stop within 30 s of {signal}");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        let code = status.code();
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        let expected = if signal == "-INT" { 130 } else { 143 };
        // A signal that lands before the handler is installed (the first moments of the
        // process, before anything is read or written) kills it the default way.
        use std::os::unix::process::ExitStatusExt;
        let early = status.signal().is_some_and(|s| s == if signal == "-INT" { 2 } else { 15 });
        assert!(
            code == Some(0) || code == Some(expected) || early,
            "round {round} ({signal} after {delay:?}): {status:?}"
        );
        interrupted += usize::from(code == Some(expected));
        // An interrupted run names exactly the copies it had already replaced: the report it
        // would have printed at the end never comes.
        let named: std::collections::BTreeSet<&str> =
            err.lines().filter_map(|l| l.strip_prefix("  written in full before it: ")).collect();
        let mut kinds = [0usize; 2];
        for (r, p) in all_targets().into_iter().filter(|(r, _)| chosen(r)) {
            let dir = t.root.join(&r).join(&p);
            assert!(dir.is_dir(), "round {round}: {r}/{p} went missing");
            let have = files(&dir);
            if code == Some(expected) {
                // Named as the report names targets, relative to the sync root (it was the only
                // absolute path, user study stop 67).
                let said = named.contains(format!("{r}/{p}").as_str());
                assert_eq!(said, have == new, "round {round}: {r}/{p} new or not, and what stderr said: {err}");
            }
            if have == old {
                kinds[0] += 1;
            } else if have == new {
                kinds[1] += 1;
            } else {
                panic!("round {round} ({signal} after {delay:?}): {r}/{p} is neither the old nor the new copy");
            }
        }
        mixed += usize::from(kinds[0] > 0 && kinds[1] > 0);
        assert_eq!(staging_names(&t), Vec::<String>::new(), "round {round}: a staging area survived");
    }
    eprintln!("{interrupted} of 24 runs interrupted, {mixed} of them between two targets");
    assert!(interrupted > 0, "no run was interrupted: the test checked nothing");
    let (_, r) = t.json(&["sync", "--check"]);
    assert!(!codes(&r).iter().any(|c| c.0 == "BQ719"), "{r:#}");
}

/// `sync::run` in `mode` over `targets` under `root`, allowing uncommitted changes: the
/// repositories' `.git` is a stand-in git cannot read, so whether anything is uncommitted is
/// unknown (the guard is tested on real repositories above).
fn sync_allowing_dirty(suite: &Suite, targets: &[sync::Target], root: &Path, mode: Mode) -> sync::Report {
    // A test repository's `.git` may be a stand-in git cannot read, so whether anything is
    // uncommitted is unknown (the guard is tested on real repositories): allowed here.
    let options =
        Options { root: root.to_owned(), mode, strict: false, allow_dirty: true, bump_pins: false, releases: None };
    sync::run(suite, targets, &options).unwrap()
}

/// Each `(target index, text)`: that target was refused with a reason that says the text.
#[track_caller]
fn assert_refusals(report: &sync::Report, mode: Mode, refused: &[(usize, &str)]) {
    for &(i, why) in refused {
        match &report.targets[i].state {
            sync::State::Refused(r) => assert!(r.contains(why), "{mode:?} {i}: {r}"),
            other => panic!("{mode:?} {i}: expected a refusal saying {why:?}, got {other:?}"),
        }
    }
}

/// A symlink in an SDK repository may redirect a copy inside the repository, but not onto a
/// directory that is not a copy: `tests/conformance -> .` once made `sync` replace the SDK's whole
/// `tests/` (its own test code deleted) with the suite, and `-> ../src` its sources. Such a
/// target, and one holding `.git` (a submodule or nested repository), is refused and left
/// untouched by `sync` and `--dry-run`; a symlink to a real copy is still followed and synced,
/// and `--check` still reports the drift as it is.
#[test]
fn a_symlink_onto_a_directory_that_is_not_a_copy_is_never_synced() {
    let suite = Suite::load(repo()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let sdk = root.join("sdk");
    std::fs::create_dir_all(sdk.join(".git")).unwrap();
    for dir in ["tests", "src", "lib/tests/fixtures", "shared/conformance", "sub/tests/conformance"] {
        std::fs::create_dir_all(sdk.join(dir)).unwrap();
    }
    std::fs::write(sdk.join("tests/test_main.py"), "assert True\n").unwrap();
    std::fs::write(sdk.join("src/main.py"), "print(1)\n").unwrap();
    std::fs::write(sdk.join("lib/tests/fixtures/own.json"), "{}\n").unwrap();
    std::os::unix::fs::symlink(".", sdk.join("tests/conformance")).unwrap();
    std::os::unix::fs::symlink("src", sdk.join("src-link")).unwrap();
    std::os::unix::fs::symlink("../lib/tests", sdk.join("shared/fixtures-link")).unwrap();
    std::os::unix::fs::symlink("../shared/conformance", sdk.join("lib/conformance")).unwrap();
    for entry in VENDORED {
        copy_tree(&repo().join(entry), &sdk.join("shared/conformance").join(entry));
        copy_tree(&repo().join(entry), &sdk.join("sub/tests/conformance").join(entry));
    }
    std::fs::write(sdk.join("shared/conformance/fixtures/stale.json"), "{}\n").unwrap();
    std::fs::write(sdk.join("sub/tests/conformance/.git"), "gitdir: ../../../.git/modules/c\n").unwrap();
    let target = |path: &str| sync::Target { repo: "sdk".into(), path: path.into() };
    let targets = [
        target("tests/conformance"),
        target("src-link"),
        target("shared/fixtures-link"),
        target("sub/tests/conformance"),
        target("lib/conformance"),
    ];
    let snapshot = |dirs: &[&str]| -> Vec<BTreeMap<String, Vec<u8>>> {
        dirs.iter()
            .map(|d| {
                walkdir::WalkDir::new(sdk.join(d))
                    .sort_by_file_name()
                    .into_iter()
                    .map(Result::unwrap)
                    .map(|e| {
                        let rel = e.path().display().to_string();
                        (rel, if e.file_type().is_file() { std::fs::read(e.path()).unwrap() } else { Vec::new() })
                    })
                    .collect()
            })
            .collect()
    };
    let kept = ["tests", "src", "lib/tests", "sub"];
    let before = snapshot(&kept);
    for mode in [Mode::DryRun, Mode::Sync] {
        let report = sync_allowing_dirty(&suite, &targets, &root, mode);
        let states: Vec<_> = report.targets.iter().map(|t| &t.state).collect();
        assert_refusals(
            &report,
            mode,
            &[
                (0, "holds conformance, test_main.py, which a vendored copy never holds"),
                (1, "holds main.py, which a vendored copy never holds"),
                (2, "holds neither CONFORMANCE_VERSION nor a suite's manifest.json"),
                (3, "holds .git: a git repository, worktree or submodule is never a vendored copy"),
            ],
        );
        assert!(matches!(states[4], sync::State::Drifted(_)), "{mode:?}: {:?}", states[4]);
        assert_eq!(snapshot(&kept), before, "{mode:?}: nothing that is not a copy may be written");
    }
    assert!(!sdk.join("shared/conformance/fixtures/stale.json").exists(), "the real copy behind a symlink is synced");
    let report = sync::run(
        &suite,
        &targets,
        &Options {
            root: root.clone(),
            mode: Mode::Check,
            strict: false,
            allow_dirty: false,
            bump_pins: false,
            releases: None,
        },
    )
    .unwrap();
    let sub = &report.targets[3].state;
    assert!(matches!(sub, sync::State::Drifted(d) if d.added == [".git"]), "--check reports drift as it is: {sub:?}");
}

/// The targets file is data a pull request can change: a target it names directly, with no
/// symlink on the way, such as `src` or `.github/workflows`, once made `sync` replace the SDK's
/// sources and CI workflow with the suite. An existing directory that is not a copy is refused
/// and left untouched by `sync` and `--dry-run`, whatever path names it; an empty or missing one
/// is still written.
#[test]
fn a_target_named_directly_that_is_not_a_copy_is_never_synced() {
    let suite = Suite::load(repo()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let sdk = root.join("sdk");
    for dir in [".git", "src", ".github/workflows", "tests/empty"] {
        std::fs::create_dir_all(sdk.join(dir)).unwrap();
    }
    std::fs::write(sdk.join("src/main.go"), "package main\n").unwrap();
    std::fs::write(sdk.join(".github/workflows/ci.yml"), "on: push\n").unwrap();
    let target = |path: &str| sync::Target { repo: "sdk".into(), path: path.into() };
    let targets = [target("src"), target(".github/workflows"), target("tests/empty"), target("tests/conformance")];
    for mode in [Mode::DryRun, Mode::Sync] {
        let report = sync_allowing_dirty(&suite, &targets, &root, mode);
        assert_refusals(
            &report,
            mode,
            &[(0, "sdk/src holds main.go, which a vendored copy never holds"), (1, "holds ci.yml, which")],
        );
        for i in [2, 3] {
            let state = &report.targets[i].state;
            assert!(!matches!(state, sync::State::Refused(_) | sync::State::Failed(_)), "{mode:?} {i}: {state:?}");
        }
        assert_eq!(std::fs::read_to_string(sdk.join("src/main.go")).unwrap(), "package main\n", "{mode:?}");
        assert_eq!(std::fs::read_to_string(sdk.join(".github/workflows/ci.yml")).unwrap(), "on: push\n", "{mode:?}");
        assert_eq!(files(&sdk.join("src")).len(), 1, "{mode:?}: nothing written into src");
        assert_eq!(files(&sdk.join(".github/workflows")).len(), 1, "{mode:?}: nothing written into the workflows");
    }
    assert_eq!(files(&sdk.join("tests/empty")), canonical(), "an empty directory becomes the copy");
    assert_eq!(files(&sdk.join("tests/conformance")), canonical(), "a missing one is created");
}

/// A released version never changes (BQ956): with the tag of its version in the suite's
/// repository, `sync` refuses to vendor files that differ from the tag's (every such copy would
/// fail `fetch --check` against the published asset) and writes nothing; `--check` still
/// reports the drift as it is.
#[test]
fn sync_refuses_to_vendor_a_released_version_that_changed() {
    let t = Tree::clean();
    let suite = t.suite();
    support::git(&suite, &["init", "-q"]);
    support::git(&suite, &["add", "-A"]);
    support::git(&suite, &["commit", "-q", "-m", "the released suite"]);
    support::git(&suite, &["tag", &format!("v{}", version())]);
    let o = t.run(&["sync"]);
    assert_eq!(o.status.code(), Some(0), "as tagged: {}", transcript(&o));
    let manifest = suite.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("\"description\": \"", "\"description\": \"Changed. ", 1)).unwrap();
    // The dry run predicts the refusal (it said "clean" before).
    for args in [&["sync"][..], &["sync", "--dry-run"]] {
        let o = t.run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", transcript(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("BQ956"), "{}", transcript(&o));
        assert!(String::from_utf8_lossy(&o.stderr).contains("refusing to sync"), "{}", transcript(&o));
    }
    let go = t.copy("babelqueue-go/testdata/conformance").join("manifest.json");
    assert_eq!(std::fs::read_to_string(go).unwrap(), text, "nothing was written");
    let o = t.run(&["sync", "--check"]);
    assert_eq!(o.status.code(), Some(1), "the copies drift from the edited suite: {}", transcript(&o));
}

/// A sync whose new copy is in place but whose old copy cannot be removed (one file made
/// immutable, `chattr +i`; here the staging hook, which fails as EPERM does, as root too) says
/// so (user study, stop 67): the copy is reported at the version on disk, the leftover is the
/// old copy, not an interrupted stage, and every message names the file that resists.
#[test]
fn a_sync_whose_old_copy_cannot_be_removed_reports_the_new_copy_and_names_the_file() {
    use bqsuite::sync::{Action, PinStatus, Recovered};
    for exchange in [true, false] {
        let t = Tree::clean();
        let php = t.copy("php-sdk/tests/conformance");
        std::fs::write(php.join("CONFORMANCE_VERSION"), "1.0.0\n").unwrap();
        t.pin("php-sdk", "ci.yml", "v1.0.0");
        let suite = Suite::load(t.suite()).unwrap();
        let targets: Vec<_> =
            sync::targets::from_suite(&suite).unwrap().into_iter().filter(|x| x.repo == "php-sdk").collect();
        let run = |mode| {
            bqsuite::staging::pretend_no_exchange(!exchange);
            let r = sync::run(
                &suite,
                &targets,
                &Options {
                    root: t.root.clone(),
                    mode,
                    strict: false,
                    allow_dirty: false,
                    bump_pins: false,
                    releases: None,
                },
            );
            bqsuite::staging::pretend_no_exchange(false);
            r.unwrap()
        };
        bqsuite::staging::pretend_unremovable(Some("order-created.json"));
        let report = run(Mode::Sync);
        let target = &report.targets[0];
        let Action::WrittenOldKept { name, why } = &target.action else { panic!("{:?}", target.action) };
        assert!(name.starts_with(".conformance.bqsuite-old-"), "{name}");
        assert_eq!(why, "fixtures/order-created.json: Operation not permitted (os error 1)");
        assert_eq!(target.copy_version.as_deref(), Some(version().as_str()), "the version on disk");
        assert_eq!(target.pin_status, Some(PinStatus::Mismatch), "copy new, pin old: not `behind`");
        let mut on_disk = files(&php);
        on_disk.remove("LICENSE");
        assert_eq!(on_disk, canonical());
        let findings = report.findings();
        let f = findings.iter().find(|f| f.code.id == "BQ712").unwrap();
        assert_eq!(f.file.as_deref(), Some(format!("php-sdk/tests/{name}").as_str()));
        assert!(f.message.contains("is now the canonical copy, but the old copy") && f.message.contains(why), "{f:?}");
        assert!(!findings.iter().any(|f| f.code.id == "BQ714"), "no `sync it` for a synced copy: {findings:?}");
        let human = report.render(bqsuite::diag::Format::Human, false, true);
        assert!(
            human.contains(&format!("updated       php-sdk/tests/conformance  (copy {}, pin v1.0.0", version())),
            "{human}"
        );
        assert_eq!(
            report.render(bqsuite::diag::Format::Json, false, true).matches("\"action\": \"updated\"").count(),
            1
        );

        // The check names it the old copy, not an interrupted stage.
        let report = run(Mode::Check);
        let f = report.findings().into_iter().find(|f| f.code.id == "BQ719").unwrap();
        assert!(f.message.starts_with("the old copy, not removed"), "{f:?}");
        // Sync again while it still resists: the file is named.
        let report = run(Mode::Sync);
        assert!(matches!(report.targets[0].leftovers[0].1, Recovered::Failed(_)), "{:?}", report.targets[0].leftovers);
        let f = report.findings().into_iter().find(|f| f.code.id == "BQ712").unwrap();
        assert_eq!(
            f.message,
            "cannot remove the old copy left beside the copy: fixtures/order-created.json: Operation not permitted (os \
             error 1)"
        );
        // Once it gives way, the next sync removes it and all is clean.
        bqsuite::staging::pretend_unremovable(None);
        assert_eq!(run(Mode::Sync).targets[0].leftovers[0].1, Recovered::Removed);
        assert!(!run(Mode::Check).failed());
    }
}

/// A repository that keeps its copy at another path than its target's (user study, stop 67:
/// `missing` with no word of the copy it has, and a sync that made a second one): `--check`
/// warns (BQ721) of the other copy and of a workflow whose `vendored:` names another path;
/// `sync` and `--dry-run` refuse to create a second copy. Another target's copy in the same
/// repository is never taken for one kept elsewhere.
#[test]
fn a_copy_kept_at_another_path_is_named_and_never_doubled() {
    let t = Tree::clean();
    let php = t.root.join("php-sdk");
    std::fs::rename(php.join("tests/conformance"), php.join("tests/conformance-suite")).unwrap();
    std::fs::write(
        php.join(".github/workflows/conformance.yml"),
        "jobs:\n  c:\n    steps:\n      - uses: BabelQueue/conformance@v1.0.0 # old\n        with:\n          vendored: |\n            tests/conformance-suite\n",
    )
    .unwrap();
    let (code, r) = t.json(&["sync", "--check", "--only", "php-sdk"]);
    assert_eq!(code, Some(1), "{r:#}");
    let bq721: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "BQ721")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(bq721.len(), 2, "{r:#}");
    assert!(bq721[0].contains("php-sdk keeps one at tests/conformance-suite"), "{bq721:?}");
    assert!(bq721[1].contains("`vendored: tests/conformance-suite`, not this target's path"), "{bq721:?}");
    assert_eq!(target(&r, "php-sdk/tests/conformance")["copies_elsewhere"], json!(["tests/conformance-suite"]));
    for dry in [true, false] {
        let args: &[&str] =
            if dry { &["sync", "--dry-run", "--only", "php-sdk"] } else { &["sync", "--only", "php-sdk"] };
        let (code, r) = t.json(args);
        assert_eq!(code, Some(1), "{r:#}");
        assert_eq!(target(&r, "php-sdk/tests/conformance")["action"], "refused-elsewhere", "{r:#}");
        assert!(!php.join("tests/conformance").exists(), "no second copy");
    }
    // A monorepo's other targets are its copies, not one kept elsewhere.
    let adapters = all_targets().into_iter().filter(|(r, _)| r == "babelqueue-node-adapters").collect::<Vec<_>>();
    assert!(adapters.len() > 1);
    std::fs::remove_dir_all(t.root.join(&adapters[0].0).join(&adapters[0].1)).unwrap();
    let (_, r) = t.json(&["sync", "--check", "--only", "babelqueue-node-adapters"]);
    assert!(!codes(&r).iter().any(|c| c.0 == "BQ721"), "{r:#}");
    let (code, _) = t.json(&["sync", "--only", &format!("{}/{}", adapters[0].0, adapters[0].1)]);
    assert_eq!(code, Some(0));
}

/// A workflow holding every pin form at `tag`, a pin of another project, and a comment: the
/// bytes `--bump-pins` must keep around the tags. `sha` is the SHA pin's commit.
fn every_pin_form(tag: &str, sha: &str) -> String {
    format!(
        "name: ci\r\non: [push]\r\njobs:\r\n  conformance:\r\n    steps:\r\n      # was --branch v1.0.0\r\n      - run: git clone --depth 1 --branch {tag} https://example.test/babelqueue/conformance.git suite\r\n      - uses: BabelQueue/conformance@{tag}\r\n      - uses: BabelQueue/conformance@{sha} # {tag}\r\n      - uses: actions/checkout@v4\r\n        with:\r\n          repository: BabelQueue/conformance\r\n          ref: '{tag}'\r\n      - run: git clone --branch {tag} https://github.com/confluentinc/librdkafka\r\n"
    )
}

/// `--bump-pins`: every pin of a repository whose copies are now at the suite's version is
/// rewritten, tag text only (SHA pins with the tag's commit from the suite's own repository),
/// conflicting pins too; a refused or dirty copy's repository keeps its pins; `--dry-run`
/// writes nothing; the JSON lists each pin.
#[test]
fn bump_pins_rewrites_the_tags_of_synced_repositories_only() {
    let t = Tree::clean();
    let v = version();
    // The suite's own repository, tagged: where a SHA pin's new commit comes from.
    let suite = t.suite();
    support::git(&suite, &["init", "-q"]);
    support::git(&suite, &["add", "-A"]);
    support::git(&suite, &["commit", "-q", "-m", "suite"]);
    support::git(&suite, &["tag", &format!("v{v}")]);
    let new_sha = support::git(&suite, &["rev-parse", "HEAD"]).trim().to_owned();
    let old_sha = "0123456789abcdef0123456789abcdef01234567";
    let workflows = |r: &str| t.root.join(r).join(".github/workflows");
    // Go: drifted, every form at v1.5.0, a second workflow at v1.4.0 (a conflict), mode 0750.
    let go = "babelqueue-go";
    std::fs::write(t.copy("babelqueue-go/testdata/conformance/fixtures/stale.json"), "{}\n").unwrap();
    std::fs::write(workflows(go).join("ci.yml"), every_pin_form("v1.5.0", old_sha)).unwrap();
    t.pin(go, "nightly.yml", "v1.4.0");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(workflows(go).join("ci.yml"), std::fs::Permissions::from_mode(0o750)).unwrap();
    // Python: in sync already, pinned behind. Node: a copy newer than the suite (refused).
    // PHP: a drifted copy with uncommitted changes (refused).
    std::fs::write(workflows("babelqueue-python").join("ci.yml"), every_pin_form("v1.5.0", old_sha)).unwrap();
    std::fs::write(t.copy("babelqueue-node/test/conformance/CONFORMANCE_VERSION"), "9.0.0\n").unwrap();
    t.pin("babelqueue-node", "ci.yml", "v1.5.0");
    let php = t.root.join("php-sdk");
    support::git(&php, &["init", "-q"]);
    support::git(&php, &["add", "-A"]);
    support::git(&php, &["commit", "-q", "-m", "vendor"]);
    std::fs::write(t.copy("php-sdk/tests/conformance/fixtures/draft.json"), "{}\n").unwrap();
    t.pin("php-sdk", "ci.yml", "v1.5.0");
    let only = ["--only", go, "babelqueue-python", "babelqueue-node", "php-sdk"];

    let before = t.snapshot();
    let mut dry = vec!["sync", "--dry-run", "--bump-pins"];
    dry.extend(only);
    let (_, r) = t.json(&dry);
    assert_eq!(t.snapshot(), before, "--dry-run wrote");
    assert_eq!(r["pin_bumps"]["dry_run"], true);
    assert_eq!(r["pin_bumps"]["counts"], json!({"bumped": 9, "left": 2}), "{:#}", r["pin_bumps"]);

    let mut args = vec!["sync", "--bump-pins"];
    args.extend(only);
    let (code, r) = t.json(&args);
    assert_eq!(code, Some(1), "the refusals fail the run: {r:#}");
    let b = &r["pin_bumps"];
    assert_eq!(b["to"], format!("v{v}"));
    let ours: Vec<&Value> = b["bumped"].as_array().unwrap().iter().filter(|x| x["repo"] == go).collect();
    assert_eq!(
        *ours[0],
        json!({"repo": go, "file": ".github/workflows/ci.yml", "line": 7, "column": 43, "from": "v1.5.0",
               "to": format!("v{v}"), "sha": null})
    );
    assert_eq!(ours[2]["sha"], json!({"from": old_sha, "to": new_sha}));
    assert_eq!(b["bumped"].as_array().unwrap().iter().filter(|x| x["repo"] == go).count(), 5, "{b:#}");
    let left: Vec<(&str, &str)> = b["left"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["repo"].as_str().unwrap(), l["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(left.len(), 2, "{left:#?}");
    let why = |r: &str| left.iter().find(|l| l.0 == r).unwrap_or_else(|| panic!("{left:#?}")).1;
    assert!(why("babelqueue-node").contains("babelqueue-node/test/conformance was refused"), "{left:#?}");
    assert!(why("php-sdk").contains("refused (uncommitted changes)"), "{left:#?}");
    // Bumped bytes exactly, every other byte kept, the mode kept.
    let want = every_pin_form(&format!("v{v}"), &new_sha);
    let want = want.replacen(
        &format!("--branch v{v} https://github.com/confluentinc"),
        "--branch v1.5.0 https://github.com/confluentinc",
        1,
    );
    assert_eq!(std::fs::read_to_string(workflows(go).join("ci.yml")).unwrap(), want);
    assert_eq!(std::fs::read_to_string(workflows("babelqueue-python").join("ci.yml")).unwrap(), want);
    let mode = std::fs::metadata(workflows(go).join("ci.yml")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o750);
    let nightly = std::fs::read_to_string(workflows(go).join("nightly.yml")).unwrap();
    assert!(nightly.contains(&format!("--branch v{v} https://")) && !nightly.contains("v1.4.0"), "{nightly}");
    // The refused copies' repositories: their workflows byte for byte as before.
    let after = t.snapshot();
    for r in ["babelqueue-node", "php-sdk"] {
        let file = workflows(r).join("ci.yml").display().to_string();
        assert_eq!(after[&file], before[&file], "{r}'s pin was bumped past its copy");
    }
    assert!(
        !r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["file"].as_str().unwrap().starts_with(go) && f["code"].as_str().unwrap().starts_with("BQ71")),
        "{r:#}"
    );
    // No temporary left in a workflows directory.
    for r in [go, "babelqueue-python"] {
        let names: Vec<_> = std::fs::read_dir(workflows(r)).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(names.iter().all(|n| !n.to_string_lossy().contains("bqsuite-")), "{names:?}");
    }
    // Human output: each pin, and the count.
    std::fs::write(workflows(go).join("ci.yml"), every_pin_form("v1.5.0", old_sha)).unwrap();
    let o = t.run(&["sync", "--bump-pins", "--only", go]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!("bumped        {go}/.github/workflows/ci.yml:7:43 v1.5.0 → v{v}\n")),
        "{}",
        transcript(&o)
    );
    assert!(out.contains(&format!("pins: 4 bumped to v{v}, 0 left alone\n")), "{}", transcript(&o));
}

/// Without `--bump-pins` a sync leaves every workflow as it is; with it, a pin by SHA whose
/// tag the suite's repository lacks is left and named, its comment untouched.
#[test]
fn without_the_flag_or_the_tag_s_commit_no_pin_changes() {
    let t = Tree::clean();
    let go = "babelqueue-go";
    let ci = t.root.join(go).join(".github/workflows/ci.yml");
    let old_sha = "0123456789abcdef0123456789abcdef01234567";
    std::fs::write(&ci, every_pin_form("v1.5.0", old_sha)).unwrap();
    let before = std::fs::read(&ci).unwrap();
    let (_, r) = t.json(&["sync", "--only", go]);
    assert!(r.get("pin_bumps").is_none());
    assert_eq!(std::fs::read(&ci).unwrap(), before);
    // No git repository around the suite: the SHA pin is left, the others bumped.
    let (_, r) = t.json(&["sync", "--bump-pins", "--only", go]);
    let left = r["pin_bumps"]["left"].as_array().unwrap();
    assert_eq!(left.len(), 1, "{r:#}");
    assert_eq!(left[0]["by_sha"], true);
    assert!(left[0]["reason"].as_str().unwrap().contains("a comment that disagrees with its SHA is never written"));
    let text = std::fs::read_to_string(&ci).unwrap();
    assert!(text.contains(&format!("{old_sha} # v1.5.0")), "{text}");
    // Human output: the pin left, where and why, and both counts.
    std::fs::write(&ci, every_pin_form("v1.5.0", old_sha)).unwrap();
    let o = t.run(&["sync", "--bump-pins", "--only", go]);
    let out = String::from_utf8_lossy(&o.stdout);
    let at = format!("pin left      {go}/.github/workflows/ci.yml:9:81 v1.5.0 (a pin by commit SHA");
    assert!(out.contains(&at), "{}", transcript(&o));
    let counts = format!("pins: 3 bumped to v{}, 1 left alone (reasons above)\n", version());
    assert!(out.contains(&counts), "{}", transcript(&o));
}

/// One line of counts per status after the table, and the same counts in JSON: every target
/// counted once.
#[test]
fn the_report_counts_the_targets_by_status() {
    let t = Tree::messy(true);
    let (_, r) = t.json(&["sync", "--check"]);
    let counts = r["counts"].as_object().unwrap();
    let keys: Vec<&str> = counts.keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 6, "{counts:?}");
    let sum: u64 = counts.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(sum as usize, r["targets"].as_array().unwrap().len());
    assert_eq!(counts["skipped"], 2);
    assert_eq!(counts["refused"], 2);
    let o = t.run(&["sync", "--check"]);
    let line = format!(
        "targets: in sync {}, drifted {}, missing {}, refused 2, failed 0, skipped 2\n",
        counts["in-sync"], counts["drifted"], counts["missing"]
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains(&line), "{}", transcript(&o));
}

/// `--color always` colours the human report only: GitHub's log reads the `github` format's
/// lines as workflow commands, which an escape sequence would break.
#[test]
fn colour_is_for_the_terminal_report_only() {
    let t = Tree::messy(false);
    let human = t.run(&["sync", "--check", "--color", "always"]);
    let out = String::from_utf8_lossy(&human.stdout);
    // A status word by what it asks of the reader: green in sync, yellow left alone, red to mend.
    for (colour, word) in [("32", "in-sync"), ("33", "skipped"), ("31", "drifted"), ("31", "missing")] {
        assert!(out.contains(&format!("\x1b[{colour}m{word:<12}\x1b[0m  ")), "{word}: {}", transcript(&human));
    }
    let github = t.run(&["sync", "--check", "--color", "always", "--format", "github"]);
    let out = String::from_utf8_lossy(&github.stdout);
    assert!(out.contains("::error ") && !out.contains('\x1b'), "{}", transcript(&github));
}

/// Two targets that are one directory (a copy symlinked to another target's copy inside the
/// repository) get one BQ722 warning naming both, not two silent copies.
#[test]
fn two_targets_that_are_one_directory_are_named() {
    let t = Tree::clean();
    let pulsar = t.copy("babelqueue-node-adapters/packages/pulsar/test/conformance");
    std::fs::remove_dir_all(&pulsar).unwrap();
    std::os::unix::fs::symlink("../../sqs/test/conformance", &pulsar).unwrap();
    let (code, r) = t.json(&["sync", "--check"]);
    assert_eq!(code, Some(0), "a warning: {r:#}");
    let shared: Vec<&Value> = r["findings"].as_array().unwrap().iter().filter(|f| f["code"] == "BQ722").collect();
    assert_eq!(shared.len(), 1, "{r:#}");
    assert_eq!(shared[0]["severity"], "warning");
    assert_eq!(shared[0]["file"], "babelqueue-node-adapters/packages/pulsar/test/conformance");
    let message = shared[0]["message"].as_str().unwrap();
    assert!(message.starts_with("babelqueue-node-adapters/packages/pulsar/test/conformance and babelqueue-node-adapters/packages/sqs/test/conformance are one directory"), "{message}");
}

/// Make the suite a git repository whose release 1.5.0 is tagged (its CONFORMANCE_VERSION and
/// manifest saying 1.5.0), then move it on to the canonical version with one more change (its
/// description), committed. Returns release 1.5.0's copy files.
fn tag_release_1_5_0(t: &Tree) -> BTreeMap<String, Vec<u8>> {
    let suite = t.suite();
    let manifest = suite.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let old =
        text.replacen(&format!("\"conformance_version\": \"{}\"", version()), "\"conformance_version\": \"1.5.0\"", 1);
    assert_ne!(old, text, "the manifest states its version");
    std::fs::write(&manifest, &old).unwrap();
    std::fs::write(suite.join("CONFORMANCE_VERSION"), "1.5.0\n").unwrap();
    support::git(&suite, &["init", "-q"]);
    support::git(&suite, &["add", "-A"]);
    support::git(&suite, &["commit", "-q", "-m", "release 1.5.0"]);
    support::git(&suite, &["tag", "v1.5.0"]);
    let release: BTreeMap<String, Vec<u8>> =
        files(&suite).into_iter().filter(|(rel, _)| bqsuite::vendored::is_part(rel)).collect();
    std::fs::write(&manifest, text.replacen("\"description\": \"", "\"description\": \"Next. ", 1)).unwrap();
    std::fs::write(suite.join("CONFORMANCE_VERSION"), format!("{}\n", version())).unwrap();
    support::git(&suite, &["add", "-A"]);
    support::git(&suite, &["commit", "-q", "-m", "the next release"]);
    release
}

/// Replace the copy at `rel` by `files`.
fn put_copy(t: &Tree, rel: &str, files: &BTreeMap<String, Vec<u8>>) {
    let dir = t.copy(rel);
    std::fs::remove_dir_all(&dir).unwrap();
    for (path, bytes) in files {
        std::fs::create_dir_all(dir.join(path).parent().unwrap()).unwrap();
        std::fs::write(dir.join(path), bytes).unwrap();
    }
}

/// A copy that states an older release is told against that release's own files, read from
/// the release's tag in the suite's repository: exactly the release (no finding), the release
/// with local edits (BQ723, naming them), or not told, with why (BQ724): a version with no tag,
/// a shallow clone of the suite. In every format, and through a dry run and a sync, which say
/// what they do (or would do) to the edits.
#[test]
fn a_copy_of_an_older_release_is_told_exact_or_locally_edited() {
    let t = Tree::clean();
    let release = tag_release_1_5_0(&t);
    const EXACT: &str = "babelqueue-node/test/conformance";
    const EDITED: &str = "babelqueue-go/testdata/conformance";
    const UNTAGGED: &str = "babelqueue-python/tests/conformance";
    put_copy(&t, EXACT, &release);
    put_copy(&t, EDITED, &release);
    let go = t.copy(EDITED);
    let fixture = go.join("fixtures/order-created.json");
    let text = std::fs::read_to_string(&fixture).unwrap().replace("\"order_id\": 1042", "\"order_id\": 1043");
    std::fs::write(&fixture, text).unwrap();
    std::fs::write(go.join("fixtures/local-case.json"), "{}\n").unwrap();
    std::fs::remove_file(go.join("schema/results.example.json")).unwrap();
    std::fs::write(t.copy(UNTAGGED).join("CONFORMANCE_VERSION"), "1.4.0\n").unwrap();
    let only = ["--only", "php-sdk", "babelqueue-node", "babelqueue-go", "babelqueue-python"];

    let mut args = vec!["sync", "--check"];
    args.extend(only);
    let (code, r) = t.json(&args);
    assert_eq!(code, Some(1));
    assert_eq!(target(&r, "php-sdk/tests/conformance")["local_edits"], Value::Null, "a copy at the suite's version");
    assert_eq!(
        target(&r, EXACT)["local_edits"],
        json!({"version": "1.5.0", "status": "exact", "added": [], "removed": [], "modified": [], "reason": null})
    );
    assert_eq!(
        target(&r, EDITED)["local_edits"],
        json!({
            "version": "1.5.0", "status": "edited",
            "added": ["fixtures/local-case.json"],
            "removed": ["schema/results.example.json"],
            "modified": [{"file": "fixtures/order-created.json", "line_endings_only": false}],
            "reason": null,
        })
    );
    let untagged = &target(&r, UNTAGGED)["local_edits"];
    assert_eq!(untagged["status"], "unknown");
    assert!(untagged["reason"].as_str().unwrap().contains("has no tag v1.4.0"), "{untagged:#}");
    let found = codes(&r);
    assert!(found.contains(&("BQ723".into(), "error".into(), EDITED.into())), "{found:#?}");
    assert!(found.contains(&("BQ724".into(), "warning".into(), UNTAGGED.into())), "{found:#?}");
    assert!(
        !found.iter().any(|(c, _, f)| (c == "BQ723" || c == "BQ724") && f == EXACT),
        "an exact release is no finding: {found:#?}"
    );
    // The old codes keep their meaning: the copies still drift from the suite, file by file.
    assert!(found.contains(&("BQ710".into(), "error".into(), format!("{EXACT}/CONFORMANCE_VERSION"))), "{found:#?}");
    let edited = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ723").unwrap();
    let message = edited["message"].as_str().unwrap();
    assert!(
        message.contains(
            "states 1.5.0 but is release 1.5.0 with 3 local edits (3 files: fixtures/local-case.json, \
             fixtures/order-created.json, schema/results.example.json)"
        ),
        "{message}"
    );
    assert!(message.contains("record them upstream") && message.contains(&format!("`bqsuite sync --only {EDITED}`")));
    let unknown = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ724").unwrap();
    assert!(unknown["message"].as_str().unwrap().contains("`bqsuite fetch --check 1.4.0 "), "{unknown:#}");

    // Human and GitHub output: the table line says which, the findings follow.
    let human =
        String::from_utf8_lossy(&t.run(&[&["sync", "--check", "--no-diff"][..], &only].concat()).stdout).into_owned();
    let line = |id: &str| human.lines().find(|l| l.contains(id)).unwrap_or_else(|| panic!("{id}: {human}")).to_owned();
    assert!(line(EXACT).ends_with("; exactly release 1.5.0)"), "{human}");
    assert!(line(EDITED).contains("; release 1.5.0 with 3 local edits (3 files: "), "{human}");
    assert!(line(UNTAGGED).ends_with("; whether it holds local edits is not told)"), "{human}");
    assert!(
        human.contains("error[BQ723 copy-edited]") && human.contains("warning[BQ724 copy-edits-unknown]"),
        "{human}"
    );
    let github =
        String::from_utf8_lossy(&t.run(&[&["sync", "--check", "--format", "github"][..], &only].concat()).stdout)
            .into_owned();
    assert!(github.contains(&format!("::error title=BQ723 copy-edited::{}/{EDITED}: ", t.root.display())), "{github}");

    // A dry run says it would discard them; a sync discards them and says so, after which the
    // copy is the suite's and there is nothing left to tell.
    let dry = t.json(&[&["sync", "--dry-run"][..], &only].concat()).1;
    assert!(codes(&dry).contains(&("BQ723".into(), "warning".into(), EDITED.into())), "{dry:#}");
    let msg = dry["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ723").unwrap()["message"].clone();
    assert!(msg.as_str().unwrap().contains("the sync would discard them"), "{msg}");
    let o = t.run(&[&["sync"][..], &only].concat());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("; was release 1.5.0 with 3 local edits") && out.contains("; was exactly release 1.5.0"),
        "{out}"
    );
    assert!(out.contains(&format!("warning[BQ723 copy-edited]: {EDITED} stated 1.5.0 and was release 1.5.0")), "{out}");
    assert!(out.contains("they are gone: the copy is in no git repository, so nothing keeps them"), "{out}");
    let (code, r) = t.json(&[&["sync", "--check"][..], &only].concat());
    assert_eq!(code, Some(0), "{r:#}");
    assert!(r["targets"].as_array().unwrap().iter().all(|t| t["local_edits"].is_null()), "{r:#}");
}

/// A shallow clone of the suite may lack the release's tag: never taken for "no such release",
/// the answer is unknown, saying so and how to fetch the tags.
#[test]
fn a_shallow_clone_of_the_suite_cannot_tell_and_says_why() {
    let t = Tree::clean();
    let release = tag_release_1_5_0(&t);
    put_copy(&t, "babelqueue-node/test/conformance", &release);
    let shallow = t.root.join("shallow");
    let url = format!("file://{}", t.suite().display());
    let o = std::process::Command::new("git")
        .args(["clone", "-q", "--depth", "1", "--no-tags", &url, shallow.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", transcript(&o));
    let root = t.root.display().to_string();
    let o = bqsuite(&shallow, &["sync", "--check", "--root", &root, "--only", "babelqueue-node", "--format", "json"]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", transcript(&o)));
    let told = &target(&r, "babelqueue-node/test/conformance")["local_edits"];
    assert_eq!(told["status"], "unknown", "{told:#}");
    let why = told["reason"].as_str().unwrap();
    assert!(why.contains("shallow clone") && why.contains("git fetch --unshallow --tags"), "{why}");
    assert!(codes(&r).contains(&("BQ724".into(), "warning".into(), "babelqueue-node/test/conformance".into())));
}

/// A tag named for the copy's version that does not release the suite (its CONFORMANCE_VERSION
/// says another) is not taken for the release; and a sync that discards edits committed in the
/// SDK's repository says where they stay.
#[test]
fn only_a_tag_that_releases_the_suite_counts_and_committed_edits_stay_in_history() {
    let t = Tree::clean();
    let release = tag_release_1_5_0(&t);
    support::git(&t.suite(), &["tag", "v1.4.0"]); // on the 1.6.0 commit: no release of 1.4.0
    const WRONG_TAG: &str = "babelqueue-python/tests/conformance";
    std::fs::write(t.copy(WRONG_TAG).join("CONFORMANCE_VERSION"), "1.4.0\n").unwrap();
    const EDITED: &str = "babelqueue-go/testdata/conformance";
    put_copy(&t, EDITED, &release);
    std::fs::write(t.copy(EDITED).join("fixtures/local-case.json"), "{}\n").unwrap();
    let sdk = t.root.join("babelqueue-go");
    support::git(&sdk, &["init", "-q"]);
    support::git(&sdk, &["add", "-A"]);
    support::git(&sdk, &["commit", "-q", "-m", "the SDK, its copy patched"]);

    let (_, r) = t.json(&["sync", "--check", "--only", "babelqueue-python", "babelqueue-go"]);
    let why = target(&r, WRONG_TAG)["local_edits"]["reason"].as_str().unwrap().to_owned();
    assert!(why.contains("v1.4.0 names 1.4.0 but holds no suite 1.4.0 at the repository's top"), "{why}");
    assert_eq!(target(&r, EDITED)["local_edits"]["added"], json!(["fixtures/local-case.json"]));

    let (code, r) = t.json(&["sync", "--only", "babelqueue-go"]);
    assert_eq!(code, Some(0), "{r:#}");
    let f = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ723").expect("BQ723");
    assert_eq!(f["severity"], "warning");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains(
            "replaced by 1.6.0, so they are gone from the copy; their committed state stays in babelqueue-go's git \
             history (`git log -p -- testdata/conformance`)"
        ),
        "{message}"
    );
}
