//! Every code's explanation carries an example that triggers it: this test builds each
//! example's starting point (a copy of the suite, `bqsuite run`'s results file, a sync root, a
//! vendored copy of the release), applies its edits, runs the command the example names and
//! requires that code in the output, at the explanation's severity. `bqsuite explain` itself is
//! checked through the binary.

mod support;

use std::path::Path;
use std::sync::OnceLock;

use bqsuite::diag::explain::{self, Edit, Example, expand};
use bqsuite::diag::{ALL_CODES, Code};
use serde_json::Value;
use support::{bqsuite, bqsuite_env, copy_tree, git, repo, transcript};

/// What a copy of the canonical suite holds for the examples.
const SUITE_FILES: [&str; 7] =
    ["CONFORMANCE_VERSION", "manifest.json", "schema", "fixtures", "LICENSE", "sync-targets.json", "CHANGELOG.md"];
/// What a vendored copy holds.
const VENDORED: [&str; 4] = ["CONFORMANCE_VERSION", "manifest.json", "schema", "fixtures"];
const SYNC_REPOS: [&str; 2] = ["php-sdk", "babelqueue-python"];

fn version() -> String {
    std::fs::read_to_string(repo().join("CONFORMANCE_VERSION")).unwrap().trim().to_owned()
}

fn copy_suite(to: &Path) {
    for entry in SUITE_FILES {
        copy(&repo().join(entry), &to.join(entry));
    }
}

/// [`copy_tree`], creating the destination's parent directories.
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    copy_tree(from, to);
}

/// Things every example of a kind starts from, made once.
struct Bases {
    dir: tempfile::TempDir,
}

impl Bases {
    fn get() -> &'static Bases {
        static BASES: OnceLock<Bases> = OnceLock::new();
        BASES.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path();
            let no_redis = [("BQ_REDIS_URL", ""), ("BQ_REQUIRE_REDIS", "")];
            let o = bqsuite_env(p, &["run", "--suite", repo().to_str().unwrap(), "--out", "results.json"], &no_redis);
            assert_eq!(o.status.code(), Some(0), "the reference run: {}", transcript(&o));
            copy_suite(&p.join("suite"));
            let o = bqsuite(&p.join("suite"), &["release", "--no-previous", "--out", "../dist"]);
            assert_eq!(o.status.code(), Some(0), "the release asset: {}", transcript(&o));
            let o = bqsuite(p, &["fetch", &version(), "copy", "--base-url", &Bases::url(p)]);
            assert_eq!(o.status.code(), Some(0), "the vendored copy: {}", transcript(&o));
            Bases { dir }
        })
    }

    fn url(p: &Path) -> String {
        format!("file://{}", p.join("dist").display())
    }
}

/// Apply `edits` under `base`.
fn apply(base: &Path, edits: &[Edit], version: &str) -> Result<(), String> {
    for e in edits {
        apply_one(base, e, version).map_err(|why| format!("{}: {why}", e.describe(version)))?;
    }
    Ok(())
}

fn apply_one(base: &Path, e: &Edit, version: &str) -> Result<(), String> {
    let path = |rel: &str| base.join(expand(rel, version));
    let clear = |p: &Path| {
        if p.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            std::fs::remove_dir_all(p)
        } else if p.symlink_metadata().is_ok() {
            std::fs::remove_file(p)
        } else {
            Ok(())
        }
    };
    let parent = |p: &Path| std::fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string());
    match *e {
        Edit::Set(file, ptr, json) => {
            let mut doc = read_json(&path(file))?;
            let value: Value = serde_json::from_str(&expand(json, version)).map_err(|e| format!("the value: {e}"))?;
            set(&mut doc, ptr, Some(value))?;
            write_json(&path(file), &doc)
        }
        Edit::Remove(file, ptr) => {
            let mut doc = read_json(&path(file))?;
            set(&mut doc, ptr, None)?;
            write_json(&path(file), &doc)
        }
        Edit::Replace(file, from, to) => {
            let text = std::fs::read_to_string(path(file)).map_err(|e| e.to_string())?;
            let from = expand(from, version);
            if !text.contains(&from) {
                return Err("the text to replace does not occur".into());
            }
            std::fs::write(path(file), text.replacen(&from, &expand(to, version), 1)).map_err(|e| e.to_string())
        }
        Edit::Write(file, text) => {
            parent(&path(file))?;
            std::fs::write(path(file), expand(text, version)).map_err(|e| e.to_string())
        }
        Edit::WriteBytes(file, bytes) => {
            parent(&path(file))?;
            std::fs::write(path(file), bytes).map_err(|e| e.to_string())
        }
        Edit::Delete(p) => {
            let p = path(p);
            if p.symlink_metadata().is_err() {
                return Err("nothing to delete".into());
            }
            clear(&p).map_err(|e| e.to_string())
        }
        Edit::Symlink(p, target) => {
            let p = path(p);
            clear(&p).map_err(|e| e.to_string())?;
            parent(&p)?;
            std::os::unix::fs::symlink(target, &p).map_err(|e| e.to_string())
        }
        Edit::Fifo(p) => {
            let p = path(p);
            clear(&p).map_err(|e| e.to_string())?;
            let status = std::process::Command::new("mkfifo").arg(&p).status().map_err(|e| e.to_string())?;
            if status.success() { Ok(()) } else { Err("mkfifo failed".into()) }
        }
        Edit::Grow(p, len) => {
            let p = path(p);
            clear(&p).map_err(|e| e.to_string())?;
            parent(&p)?;
            std::fs::File::create(&p).and_then(|f| f.set_len(len)).map_err(|e| e.to_string())
        }
    }
}

fn read_json(p: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
}

fn write_json(p: &Path, v: &Value) -> Result<(), String> {
    std::fs::write(p, serde_json::to_string_pretty(v).unwrap() + "\n").map_err(|e| e.to_string())
}

/// Set (or with `None` remove) the value at `ptr`; a segment `[NAME]` is the array element
/// whose `name` is NAME, `-` appends.
fn set(doc: &mut Value, ptr: &str, value: Option<Value>) -> Result<(), String> {
    let tokens: Vec<String> = ptr.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect();
    let (last, parents) = tokens.split_last().ok_or("the pointer names the whole document")?;
    let mut at = doc;
    for t in parents {
        at = step(at, t)?;
    }
    match (at, value) {
        (Value::Object(m), Some(v)) => {
            m.insert(last.clone(), v);
        }
        (Value::Object(m), None) => {
            m.shift_remove(last).ok_or_else(|| format!("no member {last:?}"))?;
        }
        (Value::Array(a), v) => {
            let i = if last == "-" { a.len() } else { index(a, last)? };
            match v {
                Some(v) if i == a.len() => a.push(v),
                Some(v) => a[i] = v,
                None if i < a.len() => {
                    a.remove(i);
                }
                None => return Err(format!("no element {last}")),
            }
        }
        _ => return Err(format!("{last:?} is not in an object or an array")),
    }
    Ok(())
}

fn step<'v>(at: &'v mut Value, t: &str) -> Result<&'v mut Value, String> {
    match at {
        Value::Object(m) => m.get_mut(t).ok_or_else(|| format!("no member {t:?}")),
        Value::Array(a) => {
            let i = index(a, t)?;
            a.get_mut(i).ok_or_else(|| format!("no element {t}"))
        }
        _ => Err(format!("{t:?} is below a scalar")),
    }
}

fn index(a: &[Value], t: &str) -> Result<usize, String> {
    if let Some(name) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return a.iter().position(|c| c["name"] == name).ok_or_else(|| format!("no element named {name:?}"));
    }
    t.parse().map_err(|_| format!("{t:?} is not an index"))
}

/// A copy of the canonical suite at `to`, committed to a fresh git repository and tagged
/// `v{version}`: the version is released.
fn released_suite(to: &Path, version: &str) {
    copy_suite(to);
    git(to, &["init", "-q"]);
    git(to, &["add", "-A"]);
    git(to, &["commit", "-q", "-m", "the released suite"]);
    git(to, &["tag", &format!("v{version}")]);
}

/// Build the example's starting point in a fresh directory, apply its edits, run its command.
fn run(code: Code) -> Result<std::process::Output, String> {
    let e = code.explain();
    let v = version();
    let bases = Bases::get();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let suite = w.join("suite");
    let out = match e.example {
        Example::Validate(edits) => {
            copy_suite(&suite);
            apply(&suite, edits, &v)?;
            bqsuite(&suite, &["validate"])
        }
        Example::Gate { previous, current } => {
            copy_suite(&suite);
            copy_suite(&w.join("previous"));
            apply(&w.join("previous"), previous, &v)?;
            apply(&suite, current, &v)?;
            // Offline, whatever the environment gives: BQ958 is about a gate run without Redis.
            bqsuite_env(
                &suite,
                &["validate", "--against", "../previous"],
                &[("BQ_REDIS_URL", ""), ("BQ_REQUIRE_REDIS", "")],
            )
        }
        Example::Release(edits) => {
            copy_suite(&suite);
            apply(&suite, edits, &v)?;
            bqsuite(&suite, &["release", "--out", "dist"])
        }
        Example::Tagged(edits) => {
            released_suite(&suite, &v);
            apply(&suite, edits, &v)?;
            bqsuite(&suite, &["validate", "--gate"])
        }
        Example::Committed(edits) => {
            copy_suite(&suite);
            git(&suite, &["init", "-q"]);
            git(&suite, &["add", "-A"]);
            git(&suite, &["commit", "-q", "-m", "the suite, not tagged"]);
            apply(&suite, edits, &v)?;
            bqsuite(&suite, &["release", "--no-previous", "--out", "dist"])
        }
        Example::Results { edits, args } => {
            copy(&bases.dir.path().join("results.json"), &w.join("results.json"));
            apply(w, edits, &v)?;
            let repo = repo();
            let mut all = vec!["results", "check", "results.json", "--suite", repo.to_str().unwrap()];
            all.extend_from_slice(args);
            bqsuite(w, &all)
        }
        Example::Sync { edits, args } => {
            let root = w.join("root");
            for r in SYNC_REPOS {
                for entry in VENDORED {
                    copy(&repo().join(entry), &root.join(r).join("tests/conformance").join(entry));
                }
                let workflow = format!(
                    "on: push\njobs:\n  conformance:\n    runs-on: ubuntu-latest\n    steps:\n      - run: git clone --depth 1 --branch v{v} https://github.com/BabelQueue/conformance suite\n"
                );
                std::fs::create_dir_all(root.join(r).join(".github/workflows")).unwrap();
                std::fs::write(root.join(r).join(".github/workflows/ci.yml"), workflow).unwrap();
                let sdk = root.join(r);
                git(&sdk, &["init", "-q"]);
                git(&sdk, &["add", "-A"]);
                git(&sdk, &["commit", "-q", "-m", "the SDK with its vendored copy"]);
            }
            apply(&root, edits, &v)?;
            let repo = repo();
            let mut all = vec!["sync", "--suite", repo.to_str().unwrap()];
            all.extend_from_slice(args);
            all.extend_from_slice(&["--root", "root", "--only", SYNC_REPOS[0], SYNC_REPOS[1]]);
            bqsuite(w, &all)
        }
        Example::Upgrade(edits) => {
            // Release {version} of the suite, tagged, then the suite moved on to {next-minor}.
            released_suite(&suite, &v);
            let next = expand("{next-minor}", &v);
            std::fs::write(suite.join("CONFORMANCE_VERSION"), format!("{next}\n")).unwrap();
            let root = w.join("root");
            let sdk = root.join(SYNC_REPOS[0]);
            for entry in VENDORED {
                copy(&repo().join(entry), &sdk.join("tests/conformance").join(entry));
            }
            let workflow = format!(
                "on: push\njobs:\n  conformance:\n    runs-on: ubuntu-latest\n    steps:\n      - run: git clone --depth 1 --branch v{v} https://github.com/BabelQueue/conformance suite\n"
            );
            std::fs::create_dir_all(sdk.join(".github/workflows")).unwrap();
            std::fs::write(sdk.join(".github/workflows/ci.yml"), workflow).unwrap();
            git(&sdk, &["init", "-q"]);
            git(&sdk, &["add", "-A"]);
            git(&sdk, &["commit", "-q", "-m", "the SDK with its vendored copy"]);
            apply(&root, edits, &v)?;
            bqsuite(&suite, &["sync", "--check", "--root", "../root", "--only", SYNC_REPOS[0]])
        }
        Example::Docs(edits) => {
            copy_suite(&suite);
            for entry in ["README.md", "docs"] {
                copy(&repo().join(entry), &suite.join(entry));
            }
            apply(&suite, edits, &v)?;
            bqsuite(&suite, &["docs", "--check"])
        }
        Example::Fetch(edits) => {
            copy(&bases.dir.path().join("copy"), &w.join("copy"));
            apply(&w.join("copy"), edits, &v)?;
            bqsuite(w, &["fetch", "--check", &v, "copy", "--base-url", &Bases::url(bases.dir.path())])
        }
    };
    Ok(out)
}

/// What is wrong with `code`'s example, if anything.
fn check(code: Code) -> Option<String> {
    let e = code.explain();
    let out = match run(code) {
        Ok(o) => o,
        Err(why) => return Some(format!("{}: the example cannot be set up: {why}", code.id)),
    };
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let want = format!("{}[{} {}]", explain::severity_word(e.severity), code.id, code.name);
    let exit_ok = match e.severity {
        bqsuite::diag::Severity::Error => out.status.code() == Some(1),
        bqsuite::diag::Severity::Warning => matches!(out.status.code(), Some(0 | 1)),
    };
    (!text.contains(&want) || !exit_ok).then(|| {
        format!("{}: `{}` did not give {want} (exit {:?}):\n{}", code.id, e.example.command(), out.status.code(), text)
    })
}

#[test]
fn every_example_yields_its_code_at_its_severity() {
    let codes: Vec<Code> = ALL_CODES.to_vec();
    let failures: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<_> = codes
            .chunks(codes.len().div_ceil(4))
            .map(|chunk| s.spawn(move || chunk.iter().filter_map(|c| check(*c)).collect::<Vec<_>>()))
            .collect();
        chunks.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    // BQ318–BQ320's examples edit a suite of the recorded version: after a version bump they
    // need a new recording, and the failure says so.
    let stale = support::recording_stale().map(|why| format!("\n\n{why}")).unwrap_or_default();
    assert!(
        failures.is_empty(),
        "{} of {} examples fail:\n\n{}{stale}",
        failures.len(),
        codes.len(),
        failures.join("\n\n")
    );
}

#[test]
fn explain_prints_a_code_by_id_number_or_name_and_refuses_an_unknown_one() {
    let dir = repo();
    for arg in ["BQ612", "612", "results-case-failed"] {
        let o = bqsuite(&dir, &["explain", arg]);
        assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        for part in [
            "BQ612 results-case-failed",
            "severity: error",
            "What it checks",
            "Why it matters",
            "Example",
            "bqsuite results check results.json",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
    }
    let o = bqsuite(&dir, &["explain", "BQ999"]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("explain --list"), "{}", transcript(&o));
    let o = bqsuite(&dir, &["explain"]);
    assert_eq!(o.status.code(), Some(2), "a code or --list: {}", transcript(&o));
}

#[test]
fn a_code_reported_by_fewer_commands_than_its_family_says_which_in_text_and_json() {
    // The release gate's family is reported by `release` and `validate --against`; BQ959 (HEAD's
    // bytes, where no tag vouches) by `release` alone.
    let dir = repo();
    let o = bqsuite(&dir, &["explain", "BQ959"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("; this code by `bqsuite release` only\n"), "{text}");
    let o = bqsuite(&dir, &["explain", "BQ959", "--format", "json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["reported_by"], serde_json::json!(["bqsuite release"]), "{v}");
    // A code of the same family that both report keeps the family's line, unqualified.
    let o = bqsuite(&dir, &["explain", "BQ956", "--format", "json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["reported_by"], serde_json::json!(["bqsuite release", "bqsuite validate --against"]), "{v}");
    let text = String::from_utf8(bqsuite(&dir, &["explain", "BQ956"]).stdout).unwrap();
    assert!(!text.contains("this code by"), "{text}");
    // Whatever a code names is among its family's commands.
    for code in ALL_CODES {
        let e = code.explain();
        let family = explain::family_of(*code);
        for c in e.commands() {
            assert!(family.commands.contains(c), "{}: {c} is not among {:?}", code.id, family.commands);
        }
    }
}

#[test]
fn explain_answers_for_a_retired_code_with_the_codes_that_replaced_it() {
    let dir = repo();
    for arg in ["BQ822", "822", "body-base64"] {
        let o = bqsuite(&dir, &["explain", arg]);
        assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        for part in ["BQ822 body-base64", "retired", "BQ308 case-bad-value", "bqsuite explain BQ308"] {
            assert!(text.contains(part), "{part}: {text}");
        }
    }
    let o = bqsuite(&dir, &["explain", "BQ849", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["code"].as_str(), v["retired"].as_bool()), (Some("BQ849"), Some(true)));
    let now: Vec<&str> = v["successors"].as_array().unwrap().iter().map(|s| s["code"].as_str().unwrap()).collect();
    assert_eq!(now, ["BQ305", "BQ306", "BQ307", "BQ308"]);
    let page = std::fs::read_to_string(dir.join("docs/codes.md")).unwrap();
    let retired = &page[page.find("## Retired codes").expect("the code reference lists the retired codes")..];
    for r in bqsuite::diag::RETIRED {
        assert!(retired.contains(&format!("| {} | `{}` |", r.id, r.name)), "{} is not on the page", r.id);
    }
}

#[test]
fn explain_list_names_every_code_once_by_family_in_text_and_json() {
    let o = bqsuite(&repo(), &["explain", "--list"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    for c in ALL_CODES {
        assert_eq!(text.matches(&format!("  {} {} ", c.id, c.name)).count(), 1, "{}: {text}", c.id);
    }
    let o = bqsuite(&repo(), &["explain", "--list", "--format", "json"]);
    let families: Value = serde_json::from_slice(&o.stdout).unwrap();
    let listed: Vec<&str> = families
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["codes"].as_array().unwrap().iter().map(|c| c["code"].as_str().unwrap()))
        .collect();
    assert_eq!(listed, ALL_CODES.iter().map(|c| c.id).collect::<Vec<_>>());
    let o = bqsuite(&repo(), &["explain", "BQ706", "--format", "json"]);
    let one: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&one["severity"], &one["otherwise"]),
        (&Value::from("warning"), &Value::from("an error under --strict"))
    );
    assert_eq!(one["example"]["edits"][0]["in"], "ROOT");
}

/// `bqsuite explain` of a case, run in the canonical suite; the suite's version is written
/// `{version}` so that a version bump does not touch the snapshots.
fn explain_case(args: &[&str]) -> std::process::Output {
    let mut all = vec!["explain"];
    all.extend_from_slice(args);
    bqsuite(&repo(), &all)
}

/// `text` with the suite's version written `{version}` where the explanation states it (not
/// where a description quotes a version of the history).
fn without_version(text: &str) -> String {
    let v = support::version();
    text.replace(&format!("(suite {v})"), "(suite {version})")
        .replace(&format!("/v{v}/"), "/v{version}/")
        .replace(&format!("\"conformance_version\": \"{v}\""), "\"conformance_version\": \"{version}\"")
}

/// Three kinds of case, as text and as data: an envelope case (its contract is the README's
/// "The envelope cases"), a case in a block whose description states a ruling (backoff, of
/// scope kafka) and a case whose input holds a hidden character (a tab, in trim).
#[test]
fn explain_a_case_says_what_its_page_says_in_text_and_json() {
    for (name, id) in [
        ("cases", "cases/duplicate-keys-last-wins"),
        ("block_ruling", "backoff/topic_names/zero-tier-rejected"),
        ("hidden_character", "trim/trim-make-urn-tab-padded"),
    ] {
        let o = explain_case(&[id]);
        assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
        insta::assert_snapshot!(format!("case_{name}_human"), without_version(&transcript(&o)));
        let o = explain_case(&[id, "--format", "json"]);
        assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
        serde_json::from_slice::<Value>(&o.stdout).expect("the JSON parses");
        insta::assert_snapshot!(format!("case_{name}_json"), without_version(&transcript(&o)));
    }
}

/// Every form bqsuite's own output names a case in reaches it: SECTION/ID, "SECTION / ID" (a
/// failing case's message), SECTION ID (two words), a line of `bqsuite ids` (tab-separated),
/// and a bare ID one section holds; an id that holds `/` itself too.
#[test]
fn explain_a_case_takes_every_form_bqsuite_prints() {
    let ids = String::from_utf8(bqsuite(&repo(), &["ids"]).stdout).unwrap();
    let line = |section: &str, id: &str| {
        let want = format!("{section}\t{id}");
        ids.lines().find(|l| *l == want).unwrap_or_else(|| panic!("`bqsuite ids` lists no {want:?}")).to_owned()
    };
    for (section, id, bare) in [("cases", "duplicate-keys-last-wins", true), ("kafka", "schema_version_gate/3", false)]
    {
        let want = explain_case(&[&format!("{section}/{id}")]);
        assert_eq!(want.status.code(), Some(0), "{}", transcript(&want));
        assert!(String::from_utf8_lossy(&want.stdout).starts_with(&format!("{section} / {id} (suite ")));
        let mut forms: Vec<Vec<String>> = vec![
            vec![format!("{section} / {id}")],
            vec![section.to_owned(), id.to_owned()],
            vec![line(section, id)],
            vec![format!("  {section}/{id}\n")],
        ];
        if bare {
            forms.push(vec![id.to_owned()]);
        }
        for form in forms {
            let args: Vec<&str> = form.iter().map(String::as_str).collect();
            let got = explain_case(&args);
            assert_eq!(
                (got.status.code(), &got.stdout, &got.stderr),
                (Some(0), &want.stdout, &want.stderr),
                "{form:?}: {}",
                transcript(&got)
            );
        }
    }
}

/// A bare id that several sections hold is a usage error naming each of them; an id no
/// section holds is one too, with the nearest ids and the `bqsuite ids` hint.
#[test]
fn explain_refuses_an_ambiguous_or_unknown_case_id_and_suggests() {
    let ids = String::from_utf8(bqsuite(&repo(), &["ids"]).stdout).unwrap();
    let holders: Vec<String> = ids
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(_, id)| *id == "property_projection")
        .map(|(s, id)| format!("{s}/{id}"))
        .collect();
    assert!(holders.len() > 1, "the binding sections each have a property_projection: {holders:?}");
    let o = explain_case(&["property_projection"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(o.stdout.is_empty(), "{}", transcript(&o));
    for h in &holders {
        assert!(err.contains(h.as_str()), "{h}: {err}");
    }
    assert!(err.contains(&format!("of {} sections", holders.len())), "{err}");

    for (typed, nearest) in [
        (vec!["duplicate-keys-last-win"], "cases/duplicate-keys-last-wins"),
        (vec!["kafka", "schema_version_gate/33"], "kafka/schema_version_gate/3"),
        (vec!["trim/trim-make-urn-tab-paded"], "trim/trim-make-urn-tab-padded"),
    ] {
        let o = explain_case(&typed);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
        assert!(err.contains("neither a finding code nor a case"), "{err}");
        assert!(err.contains(&format!("nearest: {nearest}")), "{typed:?}: {err}");
        assert!(err.contains("`bqsuite ids` lists every case id"), "{err}");
    }
    // Outside any suite, a case cannot be looked up: said, exit 2.
    let outside = tempfile::tempdir().unwrap();
    let o = bqsuite(outside.path(), &["explain", "cases/duplicate-keys-last-wins"]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no suite here"), "{}", transcript(&o));
}

/// Codes are explained exactly as before there were case explanations, with or without a
/// suite, and no case id of the canonical suite is also a code's id, number or name (where
/// one is, the code wins and a note says how to reach the case, below).
#[test]
fn explain_of_a_code_is_unchanged_and_no_case_id_names_a_code() {
    let code = explain::lookup("BQ612").unwrap();
    let outside = tempfile::tempdir().unwrap();
    for dir in [repo(), outside.path().to_path_buf()] {
        for arg in ["BQ612", "results-case-failed"] {
            let o = bqsuite(&dir, &["explain", arg]);
            assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
            assert_eq!(String::from_utf8_lossy(&o.stdout), explain::render_text(code.explain(), &version(), false));
            assert!(o.stderr.is_empty(), "{}", transcript(&o));
            let o = bqsuite(&dir, &["explain", arg, "--format", "json"]);
            let json: Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(json, explain::render_json(code.explain(), &version()));
        }
    }
    let suite = bqsuite::suite::Suite::load(repo()).unwrap();
    let colliding: Vec<String> = suite
        .sections()
        .iter()
        .flat_map(|s| s.cases().into_iter().map(move |c| (s.name, c.id)))
        .filter(|(_, id)| explain::lookup(id).is_some() || explain::lookup_retired(id).is_some())
        .map(|(s, id)| format!("{s}/{id}"))
        .collect();
    assert!(colliding.is_empty(), "case ids that name a finding code: {colliding:?}");
}

/// Ruling: a code wins over a case id of the same text (codes keep working as they did); the
/// case is reached as SECTION/ID, and a note on stderr says so.
#[test]
fn a_case_id_that_names_a_code_is_reached_as_section_slash_id() {
    let copy = support::SuiteCopy::new();
    copy.edit_manifest(|m| m["cases"][0]["name"] = "results-case-failed".into());
    let dir = copy.path();
    let o = bqsuite(dir, &["explain", "results-case-failed"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let code = explain::lookup("BQ612").unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), explain::render_text(code.explain(), &version(), false));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("`bqsuite explain cases/results-case-failed` explains the case"),
        "{}",
        transcript(&o)
    );
    let o = bqsuite(dir, &["explain", "cases/results-case-failed"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with("cases / results-case-failed (suite "),
        "{}",
        transcript(&o)
    );
}

/// A vendored copy (manifest.json, fixtures/, schema/, CONFORMANCE_VERSION: no docs, no
/// README) is enough: the envelope contract comes from the README built into bqsuite, the page
/// from its address at the version's tag.
#[test]
fn explain_a_case_in_a_vendored_copy_without_docs() {
    let copy = tempfile::tempdir().unwrap();
    for entry in VENDORED {
        copy_tree(&repo().join(entry), &copy.path().join(entry));
    }
    let o = bqsuite(copy.path(), &["explain", "cases / duplicate-keys-last-wins"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    for part in [
        "built into bqsuite",
        "A key that appears twice in one object follows last wins and is never merged.",
        "fixtures/duplicate-keys-last-wins.json (a fixture",
        &format!("https://github.com/BabelQueue/conformance/blob/{}/docs/sections/cases.md#cases-1", support::tag()),
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
}

/// A Redis case in a block: the section's rulings, the case's own ruling, the skip rule that
/// covers it, and the anchor of its block's heading on the page.
#[test]
fn explain_a_redis_case_gives_its_rulings_skip_rule_and_anchor() {
    let o = explain_case(&["redis_layout/release/release-after-recovery-touches-nothing", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let from: Vec<&str> = v["rulings"].as_array().unwrap().iter().map(|r| r["from"].as_str().unwrap()).collect();
    assert!(from.contains(&"section") && from.contains(&"case"), "{from:?}");
    assert_eq!(v["case"]["needs_redis"], true);
    let rule = v["skip_rules"].as_array().unwrap().iter().find(|r| r["rule"] == "no-live-redis").unwrap();
    assert_eq!(rule["applies_to_case"], true);
    assert_eq!(v["block"]["name"], "release");
    assert_eq!(v["page"]["anchor"], "release");
    let page = std::fs::read_to_string(repo().join("docs/sections/redis_layout.md")).unwrap();
    assert!(page.contains("\n## `release`\n"), "the page has the block's heading");
}
