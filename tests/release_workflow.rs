//! `scripts/release.sh`, the steps of `.github/workflows/release.yml` that can run off GitHub:
//! the tag check, the release gate and first build, the second independent build that must give
//! the same sha256, and the release notes. (`collect`, which needs a wheel, is tested by
//! `.ci/dist_test.py`.) Each runs the script with bash, this build of bqsuite as `$BQSUITE`.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use support::{SuiteCopy, repo, transcript};

/// Run `scripts/release.sh ARGS` in `dir`.
fn script(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new("bash")
        .arg(repo().join("scripts/release.sh"))
        .args(args)
        .current_dir(dir)
        .env("BQSUITE", env!("CARGO_BIN_EXE_bqsuite"))
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_OUTPUT")
        // Offline, as the other CLI tests: the gate's Redis cases are tests/validate_live_redis.rs's.
        .env_remove("BQ_REDIS_URL")
        .env_remove("BQ_REQUIRE_REDIS")
        .envs(env.iter().copied())
        .output()
        .expect("run bash")
}

#[track_caller]
fn assert_exit(o: &Output, code: i32) {
    assert_eq!(o.status.code(), Some(code), "{}", transcript(o));
}

#[test]
fn check_tag_accepts_only_v_and_the_suite_version() {
    let s = SuiteCopy::new();
    let out = s.path().join("github_output");
    std::fs::write(&out, "").unwrap();
    let (v, tag) = (support::version(), support::tag());
    let ok = script(s.path(), &["check-tag", &format!("refs/tags/{tag}")], &[("GITHUB_OUTPUT", out.to_str().unwrap())]);
    assert_exit(&ok, 0);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), format!("version={v}\n"), "the version for later jobs");

    // The next PATCH, the version without its `v`, a pre-release of it, MAJOR.MINOR only.
    let major_minor = v.rsplit_once('.').unwrap().0;
    for bad_tag in
        [format!("v{}", support::bumped("patch")), v.to_owned(), format!("{tag}-rc.1"), format!("v{major_minor}")]
    {
        let bad = script(s.path(), &["check-tag", &bad_tag], &[("GITHUB_ACTIONS", "true")]);
        assert_exit(&bad, 1);
        let text = transcript(&bad);
        assert!(text.contains(&format!("the tag {bad_tag} is not v$(cat CONFORMANCE_VERSION) = {tag}")), "{text}");
        assert!(text.contains("::error title=release::"), "an annotation under GitHub Actions: {text}");
    }

    s.write("CONFORMANCE_VERSION", "1.7.0-pre\n");
    let pre = script(s.path(), &["check-tag", "v1.7.0-pre"], &[]);
    assert_exit(&pre, 1);
    assert!(transcript(&pre).contains("a -pre version is not released"), "{}", transcript(&pre));

    let nowhere = tempfile::tempdir().unwrap();
    assert_exit(&script(nowhere.path(), &["check-tag", &tag], &[]), 2);
    assert_exit(&script(s.path(), &["check-tag"], &[]), 2);
    assert_exit(&script(s.path(), &["no-such-command"], &[]), 2);
}

#[test]
fn build_is_the_release_gate() {
    let asset = support::asset();
    let s = SuiteCopy::new();
    // The copy is no git repository, so there is no previous tag: the gate refuses (BQ955)
    // until the build says it is the very first release.
    let first = script(s.path(), &["build", "out"], &[]);
    assert_exit(&first, 1);
    assert!(transcript(&first).contains("BQ955"), "{}", transcript(&first));
    let built = script(s.path(), &["build", "out", "--no-previous"], &[]);
    assert_exit(&built, 0);
    let sums = std::fs::read_to_string(s.path().join("out/SHA256SUMS")).unwrap();
    assert!(sums.ends_with(&format!("  {asset}\n")) && sums.lines().count() == 1, "{sums}");

    s.write("fixtures/editor-backup.json~", "{}");
    let refused = script(s.path(), &["build", "refused"], &[]);
    assert_exit(&refused, 1);
    assert!(transcript(&refused).contains("refusing to build the release"), "{}", transcript(&refused));
    assert!(!s.path().join("refused").exists());
}

/// A second checkout of the same tree that shares nothing with the first but the bytes: other
/// file modes, other mtimes, files written in the opposite order.
fn second_checkout() -> SuiteCopy {
    let s = SuiteCopy::new();
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let mut files: Vec<_> = walkdir::WalkDir::new(s.path()).into_iter().map(|e| e.unwrap()).collect();
    files.retain(|e| e.file_type().is_file());
    for e in files.iter().rev() {
        let bytes = std::fs::read(e.path()).unwrap();
        std::fs::remove_file(e.path()).unwrap();
        std::fs::write(e.path(), bytes).unwrap();
        std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::File::options().write(true).open(e.path()).unwrap().set_modified(old).unwrap();
    }
    s
}

#[test]
fn verify_rebuilds_independently_and_compares_hashes() {
    let asset = support::asset();
    let first = SuiteCopy::new();
    assert_exit(&script(first.path(), &["build", "dist", "--no-previous"], &[]), 0);
    let published = first.path().join("dist");
    let published = published.to_str().unwrap();

    let second = second_checkout();
    let same = script(second.path(), &["verify", published], &[]);
    assert_exit(&same, 0);
    let text = transcript(&same);
    let hash = std::fs::read_to_string(first.path().join("dist/SHA256SUMS")).unwrap();
    let hash = hash.split_whitespace().next().unwrap();
    assert!(text.contains(&format!("published: {hash}")), "{text}");
    assert!(text.contains("rebuild byte for byte"), "{text}");

    // A GitHub release's SHA256SUMS lists the binaries and wheels too: only the asset's line counts.
    let sums = first.path().join("dist/SHA256SUMS");
    let line = std::fs::read_to_string(&sums).unwrap();
    std::fs::write(&sums, format!("{}  bqsuite-x86_64-unknown-linux-musl.tar.gz\n{line}", "a".repeat(64))).unwrap();
    assert_exit(&script(second.path(), &["verify", published], &[]), 0);

    // The second checkout differs in one byte that no validate rule is about (a fixture's bytes
    // are pinned before the tag, BQ318; LICENSE is not): the hashes differ and the release fails.
    second.write("LICENSE", second.read("LICENSE") + " ");
    let differs = script(second.path(), &["verify", published], &[("GITHUB_ACTIONS", "true")]);
    assert_exit(&differs, 1);
    let text = transcript(&differs);
    assert!(
        text.contains(&format!(
            "::error title=release::this checkout does not build {asset} byte for byte as published ({hash})"
        )),
        "{text}"
    );

    // SHA256SUMS with a wrong line for the asset.
    std::fs::write(&sums, format!("{}  {asset}\n", "b".repeat(64))).unwrap();
    let wrong = script(first.path(), &["verify", published], &[]);
    assert_exit(&wrong, 1);
    assert!(transcript(&wrong).contains("SHA256SUMS"), "{}", transcript(&wrong));

    let empty = tempfile::tempdir().unwrap();
    assert_exit(&script(first.path(), &["verify", empty.path().to_str().unwrap()], &[]), 2);
}

#[test]
fn notes_are_the_changelog_entry() {
    let notes = script(&repo(), &["notes", support::version()], &[]);
    assert_exit(&notes, 0);
    let text = String::from_utf8(notes.stdout).unwrap();
    let changelog = std::fs::read_to_string(repo().join("CHANGELOG.md")).unwrap();
    let entry = changelog.split(&format!("\n## {}\n", support::version())).nth(1).unwrap();
    let entry = entry.split("\n## ").next().unwrap();
    assert_eq!(text.trim(), entry.trim());
    assert!(!text.contains("## "), "the heading is the release title, not part of the notes");
    assert_exit(&script(&repo(), &["notes", "0.0.1"], &[]), 1);
}

/// The notes are the entry the release gate read (src/diff/changelog.rs), not only a line equal
/// to `## VERSION`: a Keep a Changelog heading `## [1.7.0] - 2026-12-04`, a CRLF file, a
/// candidate's version read as the entry it becomes (`1.7.0-rc.1` → `## 1.7.0`), two headings
/// for the version, and a fenced example heading all passed the gate, and then the publish job
/// failed (or cut the notes short) after every build was done.
#[test]
fn notes_are_the_entry_the_release_gate_reads() {
    let dir = tempfile::tempdir().unwrap();
    let notes = |changelog: &str, version: &str| {
        std::fs::write(dir.path().join("CHANGELOG.md"), changelog).unwrap();
        let o = script(dir.path(), &["notes", version], &[]);
        (o.status.code(), String::from_utf8(o.stdout).unwrap())
    };
    let keep = "# Changelog\n\n## [1.7.0] - 2026-12-04\n\n- New section `a`.\n\n## [1.6.0] - 2026-01-01\n\n- Old.\n";
    assert_eq!(notes(keep, "1.7.0"), (Some(0), "\n- New section `a`.\n\n".into()));
    assert_eq!(notes(keep, "1.6.0"), (Some(0), "\n- Old.\n".into()));
    assert_eq!(notes(keep, "1.7.0-rc.1"), (Some(0), "\n- New section `a`.\n\n".into()), "the entry it becomes");
    let crlf = keep.replace('\n', "\r\n");
    assert_eq!(notes(&crlf, "1.6.0"), (Some(0), "\n- Old.\n".into()));

    let own = "## 1.7.0-rc.1\n\n- The candidate.\n\n## 1.7.0\n\n- The release.\n";
    assert_eq!(notes(own, "1.7.0-rc.1"), (Some(0), "\n- The candidate.\n\n".into()), "its own entry first");
    assert_eq!(notes(own, "1.7.0"), (Some(0), "\n- The release.\n".into()));

    let fenced = "## 1.7.0\n\n- `a`:\n\n```md\n## 1.6.0\n```\n\n- `b`.\n# Older\n\n## 1.6.0\n\n- `c`\n";
    assert_eq!(notes(fenced, "1.7.0"), (Some(0), "\n- `a`:\n\n```md\n## 1.6.0\n```\n\n- `b`.\n".into()));
    assert_eq!(notes(fenced, "1.6.0"), (Some(0), "\n- `c`\n".into()), "the real heading, not the example");

    let twice = "## 1.7.0\n\n- `a`\n\n## 1.6.0\n\n- `old`\n\n## [1.7.0]\n\n- `b`\n";
    assert_eq!(notes(twice, "1.7.0"), (Some(0), "\n- `a`\n\n\n- `b`\n".into()), "both headings, in file order");

    assert_eq!(notes(keep, "1.7.1").0, Some(1));
    assert_eq!(notes("## 1.7.0\n\n## 1.6.0\n- x\n", "1.7.0").0, Some(1), "an empty entry is none");
    assert_eq!(notes("## 1.7.0.1\n- x\n## 1.7.00\n- y\n", "1.7.0").0, Some(1), "the whole first word");
}

/// A job that builds a release (`bqsuite release` or `cargo run … -- release`) checks out
/// every tag: the release gate reads the `v*` tags, and in a shallow clone it stops (exit 2)
/// rather than guess. The fuzz workflow's archive seed once ran in a default, shallow checkout.
#[test]
fn every_workflow_job_that_builds_a_release_checks_out_every_tag() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(".github/workflows");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        // Jobs start at two spaces of indent under `jobs:`.
        let jobs = text.split("\njobs:\n").nth(1).unwrap_or("");
        let mut starts: Vec<usize> = jobs
            .match_indices('\n')
            .map(|(i, _)| i + 1)
            .filter(|&i| {
                let line = &jobs[i..];
                line.starts_with("  ") && !line.starts_with("   ") && !line.starts_with("  #")
            })
            .collect();
        starts.insert(0, 0);
        starts.push(jobs.len());
        for w in starts.windows(2) {
            let job = &jobs[w[0]..w[1]];
            let builds = job.lines().any(|l| {
                let l = l.split('#').next().unwrap_or("");
                l.contains("bqsuite release") || l.contains("-- release") || l.contains("scripts/release.sh build")
            });
            if builds {
                checked += 1;
                assert!(
                    job.contains("fetch-depth: 0"),
                    "{}: a job that builds a release checks out shallow:\n{job}",
                    path.display()
                );
            }
        }
    }
    assert!(checked >= 2, "found {checked} jobs that build a release; the release and fuzz workflows both do");
}
