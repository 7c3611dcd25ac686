//! `bqsuite report`: the compatibility matrix over the reference core's results plus two
//! hand-made SDK results files, as Markdown (snapshot) and as an HTML page (rendered in headless
//! Chromium when it is installed).
//!
//! The snapshot uses a small suite (tests/data/report/manifest.json: two published cases plus
//! demo sections no runner implements), so the reference column stays fixed while section
//! runners are added to the canonical suite.

mod support;

use std::path::Path;

use support::{bqsuite, repo, transcript};

const DATA: &str = "tests/data/report";
/// The mark a cell of each standing starts with: a symbol, and the words a screen reader says.
const CLEAN: &str = "<span class=\"mark\" aria-hidden=\"true\">✓ </span><span class=\"vh\">clean: </span>";
const PROBLEM: &str = "<span class=\"mark\" aria-hidden=\"true\">✗ </span><span class=\"vh\">problem: </span>";
const WARNING: &str = "<span class=\"mark\" aria-hidden=\"true\">! </span><span class=\"vh\">warning: </span>";
const HAND_MADE: [&str; 2] = ["php-sdk.json", "babelqueue-node.json"];

/// A temp dir holding the small suite (`suite/`), the reference results (`ref.json`) and the
/// two hand-made files.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    for sub in ["schema", "fixtures"] {
        std::fs::create_dir_all(suite.join(sub)).unwrap();
    }
    std::fs::copy(repo().join(DATA).join("manifest.json"), suite.join("manifest.json")).unwrap();
    // Not 1.6.0: a suite of the recorded version with another skip policy is refused (BQ319),
    // and this one is a small made-up suite, not a copy of the published one.
    support::assert_unpinned("1.6.1");
    std::fs::write(suite.join("CONFORMANCE_VERSION"), "1.6.1\n").unwrap();
    for f in ["schema/results.schema.json", "schema/message-envelope.schema.json"] {
        std::fs::copy(repo().join(f), suite.join(f)).unwrap();
    }
    for f in ["fixtures/order-created.json", "fixtures/invalid-missing-urn.json"] {
        std::fs::copy(repo().join(f), suite.join(f)).unwrap();
    }
    for f in HAND_MADE {
        std::fs::copy(repo().join(DATA).join(f), dir.path().join(f)).unwrap();
    }
    let o = bqsuite(dir.path(), &["run", "--suite", "suite", "--out", "ref.json"]);
    assert_eq!(o.status.code(), Some(1), "the demo sections fail as not implemented: {}", transcript(&o));
    dir
}

fn report(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["report", "ref.json", HAND_MADE[0], HAND_MADE[1], "--suite", "suite"];
    args.extend_from_slice(extra);
    bqsuite(dir, &args)
}

#[test]
fn markdown_matrix() {
    let dir = workspace();
    let o = report(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "a report is written whatever the verdicts: {}", transcript(&o));
    let md = String::from_utf8(o.stdout).unwrap().replace(env!("CARGO_PKG_VERSION"), "[reference version]");
    // The verdicts are results check's: only php-sdk is Compatible.
    assert!(md.contains("Suite 1.6.1 · 3 results files · 1 Compatible · 2 Not compatible"), "{md}");
    assert!(!md.contains("<script>"), "input markup is escaped: {md}");
    insta::assert_snapshot!("report_markdown", md);
}

#[test]
fn html_page_is_self_contained_and_escaped() {
    let dir = workspace();
    let o = report(dir.path(), &["--format", "html", "--out", "report.html"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(o.stdout.is_empty(), "--out writes the file, not stdout");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    assert!(html.contains("<table class=\"matrix\">"));
    assert!(html.contains("Content-Security-Policy"), "the page may fetch nothing");
    assert!(html.contains("base-uri 'none'; form-action 'none'"), "nor set a base or submit a form");
    for network in ["http://", "https://", "src=", "<link", "<script", "@import", "url("] {
        let outside_input = html.replace("https://example.invalid", "");
        assert!(!outside_input.contains(network), "no {network} in the page");
    }
    assert!(html.contains(
        "accepted &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; | [link](https://example.invalid) &amp; *stars*"
    ));
    assert!(html.contains("<code>gate/0</code>: expected &quot;1&quot; to be accepted"), "drill-down to failing ids");
    assert!(html.contains("<summary>1 missing</summary><ul><li><code>gate/1</code>"), "drill-down to missing ids");
    assert!(html.contains("n/a (ADR-0021)"), "php's asb exception");
    accessible(&html);
    render_in_chromium(&dir.path().join("report.html"));
}

/// The page keeps the accessibility rules of its renderer (`src/results/html.rs`): structure,
/// a colour never the only carrier of a cell's standing, and contrast in every scheme.
fn accessible(html: &str) {
    let problems = support::a11y::structure(html, &["<div class=\"wrap\""]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(html.contains("<body>\n<main>") && html.contains("</main>\n</body>"), "the content is the main");
    // Every coloured cell starts with its mark; the others have none.
    let mut coloured = 0;
    for (i, _) in html.match_indices("<td class=\"") {
        let rest = &html[i + 11..];
        let class = rest.split('"').next().unwrap();
        let content = &rest[class.len() + 2..];
        let words: Vec<&str> = class.split(' ').collect();
        let mark = if words.contains(&"bad") {
            Some(PROBLEM)
        } else if words.contains(&"warn") {
            Some(WARNING)
        } else if words.contains(&"ok") {
            Some(CLEAN)
        } else {
            None
        };
        match mark {
            Some(m) => {
                coloured += 1;
                assert!(
                    content.starts_with(m),
                    "a {class} cell without its mark: {}",
                    &content[..content.len().min(120)]
                );
            }
            None => assert!(!content.starts_with("<span class=\"mark\""), "a {class} cell marked"),
        }
    }
    assert!(coloured >= 10, "{coloured} coloured cells");
    for m in [CLEAN, PROBLEM] {
        assert!(html.contains(m), "{m}");
    }
    assert!(html.contains("<p class=\"legend\">✓ clean; ✗ a problem; ! a warning"), "the marks are explained");
    // A verdict is its words.
    for (i, _) in html.match_indices("<span class=\"verdict-") {
        let span = &html[i..i + html[i..].find("</span>").unwrap()];
        assert!(
            span.ends_with(">Compatible") || span.ends_with(">Not compatible") || span.contains("<span class=\"vh\">"),
            "a verdict only a colour says: {span}"
        );
    }
    let s = support::a11y::schemes(html);
    assert!(s.css.contains("body{font:14px/1.45system-ui,-apple-system,'SegoeUI',sans-serif;margin:2rem;color:var(--fg);background:var(--bg);}"), "{}", s.css);
    let mut pairs = vec![("ok", "bg"), ("bad", "bg")];
    for bg in ["bg", "head", "ok-bg", "bad-bg", "warn-bg"] {
        pairs.extend([("fg", bg), ("muted", bg)]);
    }
    let low = support::a11y::low_contrast(&s, &pairs, 4.5);
    assert!(low.is_empty(), "below 4.5:1:\n{}", low.join("\n"));
    // Printed, a drill-down is open (a closed one would print its summary only, and the ids it
    // holds are the report's point); the print block is the last, so nothing after undoes it.
    let print = &s.css[s.css.find("@mediaprint{").expect("a print block")..];
    assert!(print.contains("details::details-content{display:block;content-visibility:visible;}"), "{print}");
    // The section names stick only on a wide screen (at 320 px a sticky column would take the
    // box), never in print, and on an opaque background so scrolled cells do not show through.
    let (before, sticky) = s.css.split_once("position:sticky").expect("a sticky column");
    assert_eq!(s.css.matches("position:sticky").count(), 1, "one sticky rule: {}", s.css);
    let query = &before[before.rfind("@media").unwrap()..];
    assert!(query.starts_with("@mediascreenand(min-width:40rem){tbodyth,theadth:first-child{"), "{query}");
    assert!(sticky.starts_with(";left:0;") && sticky.contains("tbodyth{background:var(--bg);}"), "{sticky}");
}

/// Render the page in headless Chromium and check the table is in the DOM; print a skip notice
/// when Chromium is not installed (a failure under `BQ_REQUIRE_BROWSER`).
fn render_in_chromium(page: &Path) {
    let Some(chromium) = support::chromium() else { return };
    let (out, _) = support::run_chromium(&chromium, page, &["--dump-dom"]);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "chromium failed: {dom}");
    assert!(dom.contains("<table class=\"matrix\">"), "the table is in the DOM: {dom}");
    assert_eq!(dom.matches("<th scope=\"col\"").count(), 5, "section, scope and three SDK columns");
    for sdk in ["bqsuite-reference", "php-sdk", "babelqueue-node"] {
        assert!(dom.contains(&format!("<span class=\"sdk\">{sdk}</span>")), "{sdk} column");
    }
    assert!(!dom.contains("<script>"), "no script element came out of the input");
    assert!(dom.contains("&lt;script&gt;alert"), "the markup stayed text");
    // Reflow (WCAG 1.4.10): at 320 CSS px the page does not scroll sideways; the table does,
    // in its own box.
    let wide = support::a11y::wider_than_320(&chromium, &[page.to_path_buf()]);
    assert!(wide.is_empty(), "{wide:?}");
}

#[test]
fn report_over_the_canonical_suite() {
    let dir = tempfile::tempdir().unwrap();
    let ref_json = dir.path().join("ref.json");
    bqsuite(&repo(), &["run", "--out", ref_json.to_str().unwrap()]);
    let o = bqsuite(&repo(), &["report", ref_json.to_str().unwrap(), "schema/results.example.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    let suite = bqsuite::suite::Suite::load(repo()).unwrap();
    assert!(md.contains(&format!("Suite {} · 2 results files", suite.version().unwrap())), "{md}");
    assert!(md.contains("| section | scope | `bqsuite-reference` "), "{md}");
    for s in suite.sections() {
        assert!(md.contains(&format!("\n| `{}` | {} |", s.name, s.scope.unwrap())), "row {}", s.name);
    }
}

#[test]
fn an_unreadable_file_stops_the_report_and_writes_nothing() {
    let dir = workspace();
    let o = bqsuite(dir.path(), &["report", "ref.json", "nope.json", "--suite", "suite", "--out", "r.md"]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read nope.json"));
    assert!(!dir.path().join("r.md").exists());
}

/// A cell is never shown clean for a section `results check` finds something wrong in: a
/// section that is not an object (none of its cases is reported), an id the section does not
/// have, a status that is none of pass, fail and skip. Each used to read as a clean cell
/// (`0 / 0 / 0`, `3 / 0 / 0`, `1 / 0 / 0`) with nothing in the drill-down, under a Not
/// compatible verdict whose reasons then pointed nowhere in the table.
#[test]
fn a_cell_with_a_problem_results_check_finds_is_never_clean() {
    let dir = workspace();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(HAND_MADE[0])).unwrap()).unwrap();
    v["sections"]["cases"] = serde_json::json!([]);
    v["sections"]["demo_sqs"]["gate/2"] = serde_json::json!({"status": "pass"});
    v["sections"]["demo_core"]["first"] = serde_json::json!({"status": "PASS"});
    std::fs::write(dir.path().join("odd.json"), v.to_string()).unwrap();
    let o = bqsuite(dir.path(), &["report", "odd.json", "--suite", "suite"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(
        md.contains("Reasons: BQ609 results-unknown-case ×1, BQ619 results-no-status ×1, BQ620 results-malformed ×1."),
        "{md}"
    );
    for row in [
        "| `cases` | core | **not judged** |",
        "| `cases` | (whole section) | BQ620 results-malformed | section \"cases\" is an array",
        "| `demo_core` | core | **1 / 0 / 1 (policy), 1 without a status** |",
        "| `demo_sqs` | sqs | **4 / 0 / 0, 1 unknown** |",
        "| `demo_core` | `first` | no status | |",
        "| `demo_sqs` | `gate/2` | unknown | |",
    ] {
        assert!(md.contains(row), "{row}\n{md}");
    }
    let o = bqsuite(dir.path(), &["report", "odd.json", "--suite", "suite", "--format", "html"]);
    let html = String::from_utf8(o.stdout).unwrap();
    assert!(!html.contains("class=\"num ok\""), "{html}");
    assert!(html.contains("<details><summary>1 unknown</summary><ul><li><code>gate/2</code>"), "{html}");
    assert!(html.contains("<details><summary>1 without a status</summary><ul><li><code>first</code>"), "{html}");
}

/// A file of another suite version: `results check` checks none of its sections against this
/// suite (BQ603 only), so the report judges none either. Its cells used to call the sections
/// that version does not have "missing" and its allowed skips "not allowed".
#[test]
fn a_file_of_another_suite_version_is_counted_not_judged() {
    let dir = workspace();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("ref.json")).unwrap()).unwrap();
    v["conformance_version"] = serde_json::json!("1.5.0");
    let dropped = v["sections"].as_object_mut().unwrap().remove("demo_core");
    assert!(dropped.is_some(), "the small suite has demo_core");
    std::fs::write(dir.path().join("old.json"), v.to_string()).unwrap();
    let check = bqsuite(dir.path(), &["results", "check", "old.json", "--suite", "suite", "--format", "json"]);
    let codes: Vec<String> = serde_json::from_slice::<serde_json::Value>(&check.stdout).unwrap()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect();
    // The failing cases (the small suite's demo sections) are findings whatever the version;
    // nothing about scopes, ids or skips is.
    assert_eq!(codes[0], "BQ603", "{}", transcript(&check));
    assert!(codes[1..].iter().all(|c| c == "BQ612"), "{codes:?}");

    let o = bqsuite(dir.path(), &["report", "old.json", "--suite", "suite"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(md.contains("| `demo_core` | core | **not checked** |"), "{md}");
    assert!(md.contains("| `cases` | core | **2 / 0 / 0, not checked** |"), "{md}");
    assert!(md.contains("| `demo_sqs` | `gate/0` | fail |"), "a failing case is still listed: {md}");
    let table = md.split("\n\nEach cell").next().unwrap();
    for judged in ["missing", "not allowed", "(policy)", "unknown"] {
        assert!(!table.contains(judged), "{judged}: {md}");
    }
    let o = bqsuite(dir.path(), &["report", "old.json", "--suite", "suite", "--format", "html"]);
    let html = String::from_utf8(o.stdout).unwrap();
    assert!(html.contains(&format!("<td class=\"absent warn\">{WARNING}not checked</td>")), "{html}");
    assert!(!html.contains("class=\"num ok\"") && !html.contains("class=\"bad\""), "{html}");
}

#[test]
fn a_pipe_in_a_name_is_escaped_for_where_it_stands() {
    // Red team F9: `\|` (right in a table cell) also showed in the headings and the File line,
    // where GFM keeps the backslash of a code span.
    let dir = workspace();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(HAND_MADE[1])).unwrap()).unwrap();
    v["sdk"] = serde_json::json!("babelqueue|node");
    std::fs::write(dir.path().join("a|b.json"), serde_json::to_string(&v).unwrap()).unwrap();
    let o = bqsuite(dir.path(), &["report", "a|b.json", "--suite", "suite"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(md.contains("\n## `babelqueue|node` "), "a heading: no backslash: {md}");
    assert!(md.contains("\nFile `a|b.json`: "), "the File line: no backslash: {md}");
    assert!(md.contains("| `babelqueue\\|node` "), "a table cell: escaped: {md}");
    assert!(!md.contains("## `babelqueue\\|") && !md.contains("File `a\\|"), "{md}");
}

/// Red team (report): a bidirectional control in a name reorders what follows it on the line,
/// so `## `php-sdk<U+202E> …` 1.0: Not compatible` could show its verdict backwards next to a
/// `Compatible` the name spells. Markdown and HTML write such characters as visible `\u{202e}`,
/// as `results check` names them.
#[test]
fn a_bidi_control_in_a_name_is_shown_not_obeyed() {
    let dir = workspace();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(HAND_MADE[1])).unwrap()).unwrap();
    v["sdk"] = serde_json::json!("node: Compatible \u{202e}");
    v["version"] = serde_json::json!("3\u{2066}");
    v["sections"]["cases"]["invalid-missing-urn"]["reason"] = serde_json::json!("a\u{2067}b");
    std::fs::write(dir.path().join("bidi.json"), v.to_string()).unwrap();
    for format in ["markdown", "html"] {
        let o = bqsuite(dir.path(), &["report", "bidi.json", "--suite", "suite", "--format", format]);
        assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
        let out = String::from_utf8(o.stdout).unwrap();
        for c in ['\u{202e}', '\u{2066}', '\u{2067}'] {
            assert!(!out.contains(c), "{format}: {c:?} in {out}");
        }
        assert!(out.contains("node: Compatible \\u{202e}"), "{format}: {out}");
        assert!(out.contains("u{2066}") && out.contains("u{2067}"), "{format}: {out}");
    }
}

/// Red team (report): a finding `results check` makes inside a section marks that section's
/// cell and is listed under the table. A case reported twice (`fail`, then `pass`: BQ617) and a
/// case whose `reason` is not a string (BQ602) used to leave the cell clean (`2 / 0 / 1
/// (policy)`, green in HTML) under a Not compatible verdict, with nothing in the drill-down.
#[test]
fn a_finding_inside_a_section_marks_its_cell() {
    let dir = workspace();
    let text = std::fs::read_to_string(dir.path().join(HAND_MADE[0])).unwrap();
    let dup = text.replacen(
        "\"first\": { \"status\": \"pass\" },",
        "\"first\": { \"status\": \"fail\", \"reason\": \"boom\" }, \"first\": { \"status\": \"pass\" },",
        1,
    );
    let dup = dup.replacen(
        "\"projection\": { \"status\": \"pass\" }",
        "\"projection\": { \"status\": \"pass\", \"reason\": 5 }",
        1,
    );
    assert_ne!(dup, text);
    std::fs::write(dir.path().join("dup.json"), dup).unwrap();
    let check = bqsuite(dir.path(), &["results", "check", "dup.json", "--suite", "suite"]);
    assert_eq!(check.status.code(), Some(1), "{}", transcript(&check));
    let o = bqsuite(dir.path(), &["report", "dup.json", "--suite", "suite"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    for row in [
        "| `demo_core` | core | **2 / 0 / 1 (policy), 1 more finding** |",
        "| `demo_sqs` | sqs | **3 / 0 / 0, 1 more finding** |",
        "| `demo_core` | `first` | BQ617 results-duplicate-key | key \"first\" appears twice",
        "| `demo_sqs` | `projection` at `/reason` | BQ602 results-schema | violates the results schema",
    ] {
        assert!(md.contains(row), "{row}\n{md}");
    }
    let o = bqsuite(dir.path(), &["report", "dup.json", "--suite", "suite", "--format", "html"]);
    let html = String::from_utf8(o.stdout).unwrap();
    assert!(!html.contains("class=\"num ok\">2 / 0 / 1"), "{html}");
    assert!(html.contains("<details><summary>1 more finding</summary><ul><li><code>first</code>: BQ617"), "{html}");
}

/// A refused skip is one finding (BQ613, BQ610 or BQ614) that the cell already counts as "not
/// allowed": it was also counted as "1 more finding", so one problem read as two. The drill-downs
/// still list each one.
#[test]
fn a_refused_skip_is_counted_once() {
    let dir = workspace();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(HAND_MADE[0])).unwrap()).unwrap();
    v["sections"]["cases"]["order-created"] = serde_json::json!({"status": "skip", "reason": "not implemented"});
    v["sections"]["demo_sqs"]["gate/0"] = serde_json::json!({"status": "skip", "reason": "ADR-0031"});
    v["sections"]["demo_sqs"]["gate/1"] = serde_json::json!({"status": "pass", "reason": 5});
    // demo_core/third may be skipped citing ADR-0031: cite none (BQ610), or another (BQ614).
    for (reason, code) in
        [("one map per call", "BQ610 results-skip-without-adr"), ("ADR-0032", "BQ614 results-skip-wrong-adr")]
    {
        v["sections"]["demo_core"]["third"] = serde_json::json!({"status": "skip", "reason": reason});
        std::fs::write(dir.path().join("skips.json"), v.to_string()).unwrap();
        let check = bqsuite(dir.path(), &["results", "check", "skips.json", "--suite", "suite"]);
        let log = transcript(&check);
        for code in ["BQ613", &code[..5], "BQ602"] {
            assert!(log.contains(code), "{code}: {log}");
        }
        let o = bqsuite(dir.path(), &["report", "skips.json", "--suite", "suite"]);
        assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
        let md = String::from_utf8(o.stdout).unwrap();
        for row in [
            "| `cases` | core | **1 / 0 / 1 (not allowed)** |",
            "| `demo_core` | core | **2 / 0 / 1 (not allowed)** |",
            // The schema finding is another problem: it is still "more".
            "| `demo_sqs` | sqs | **2 / 0 / 1 (not allowed), 1 more finding** |",
            "| `cases` | `order-created` | BQ613 results-skip-not-allowed |",
            &format!("| `demo_core` | `third` | {code} |"),
            "| `demo_sqs` | `gate/0` | BQ613 results-skip-not-allowed |",
            "(not allowed) or (N policy, N not allowed) some are not (each listed below)",
        ] {
            assert!(md.contains(row), "{row}\n{md}");
        }
        assert!(!md.contains("gate~1"), "a case id is shown as the file spells it: {md}");
        let o = bqsuite(dir.path(), &["report", "skips.json", "--suite", "suite", "--format", "html"]);
        let html = String::from_utf8(o.stdout).unwrap();
        for cell in [
            &format!(
                "2 / 0 / 1 (not allowed)<details><summary>1 skip not allowed</summary><ul><li><code>third</code>: {}",
                &code[..5]
            ),
            "2 / 0 / 1 (not allowed), 1 more finding<details><summary>1 skip not allowed</summary><ul><li><code>gate/0</code>: BQ613",
            "</ul></details><details><summary>1 more finding</summary><ul><li><code>gate/1</code> at <code>/reason</code>: BQ602",
        ] {
            assert!(html.contains(cell), "{cell}\n{html}");
        }
    }
}

/// Red team (report): sections the suite does not have share one row, so the matrix grows with
/// the input, not with its square. One row per such section, times one cell per file, made a
/// 700 kB file with 50 000 empty sections take 38 s (and 10 000 files with one odd section
/// each would need 10^8 cells).
#[test]
fn sections_the_suite_does_not_have_share_one_row() {
    let dir = workspace();
    let base: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(HAND_MADE[0])).unwrap()).unwrap();
    let mut names = vec![];
    for i in 0..40 {
        let mut v = base.clone();
        v["sections"][format!("odd{i}")] = serde_json::json!({"x": {"status": "pass"}});
        let name = format!("f{i}.json");
        std::fs::write(dir.path().join(&name), v.to_string()).unwrap();
        names.push(name);
    }
    let mut big = base.clone();
    for i in 0..20_000 {
        big["sections"][format!("extra{i}")] = serde_json::json!({});
    }
    std::fs::write(dir.path().join("big.json"), big.to_string()).unwrap();
    names.push("big.json".into());
    let mut args = vec!["report", "--suite", "suite"];
    args.extend(names.iter().map(String::as_str));
    let o = bqsuite(dir.path(), &args);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    let table = md.split("\n\nEach cell").next().unwrap();
    // The header, the rule, five meta rows, the five sections and one row for the others.
    assert_eq!(table.lines().filter(|l| l.starts_with('|')).count(), 2 + 5 + 5 + 1, "{table}");
    let others = table.lines().last().unwrap();
    assert!(
        others.starts_with(
            "| (not in the suite) | unknown | **1 section: 1 / 0 / 0, not in the suite, 1 more finding** |"
        ),
        "{others}"
    );
    assert!(others.ends_with(" **20000 sections: 0 / 0 / 0, not in the suite, 20000 more findings** |"), "{others}");
    assert!(md.contains("| `odd7` | (whole section) | BQ607 results-unknown-section |"), "drill-down names it");
}

/// Red team (report): two files naming the same SDK and version, one Compatible and one not,
/// gave two identical column heads and two identical `##` headings; nothing in the table said
/// which file was which. A `file` row names each column's file.
#[test]
fn each_column_names_its_file() {
    let dir = workspace();
    let text = std::fs::read_to_string(dir.path().join(HAND_MADE[0])).unwrap();
    let failing = text.replacen("\"first\": { \"status\": \"pass\" }", "\"first\": { \"status\": \"fail\" }", 1);
    assert_ne!(failing, text);
    std::fs::write(dir.path().join("php-again.json"), failing).unwrap();
    let o = bqsuite(dir.path(), &["report", HAND_MADE[0], "php-again.json", "--suite", "suite"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(md.contains("\n| **verdict** | | Compatible | **Not compatible** |\n"), "{md}");
    assert!(md.contains("\n| file | | `php-sdk.json` | `php-again.json` |\n"), "{md}");
    let o = bqsuite(dir.path(), &["report", HAND_MADE[0], "php-again.json", "--suite", "suite", "--format", "html"]);
    let html = String::from_utf8(o.stdout).unwrap();
    assert!(html.contains("<th scope=\"row\">file</th><td></td><td><code>php-sdk.json</code></td>"), "{html}");
}

/// An empty case id is said "(empty)" in HTML as in Markdown: an empty code element showed
/// nothing ("<code></code> at <code>/reason</code>").
#[test]
fn an_empty_case_id_is_said_in_html_too() {
    let dir = workspace();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(HAND_MADE[0])).unwrap()).unwrap();
    v["sections"]["demo_sqs"][""] = serde_json::json!({"status": "pass", "reason": 5});
    std::fs::write(dir.path().join("empty.json"), v.to_string()).unwrap();
    let o = bqsuite(dir.path(), &["report", "empty.json", "--suite", "suite", "--format", "html"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let html = String::from_utf8(o.stdout).unwrap();
    assert!(!html.contains("<code></code>"), "{html}");
    assert!(html.contains("<li>(empty)</li>"), "the unknown id: {html}");
    assert!(html.contains("<li>(empty) at <code>/reason</code>: BQ602"), "{html}");
    let o = bqsuite(dir.path(), &["report", "empty.json", "--suite", "suite"]);
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(md.contains("| `demo_sqs` | (empty) at `/reason` | BQ602"), "{md}");
}

/// User journey (release coordinator): where `results check` could not read a file, its
/// `sections` or its `bindings`, it judges nothing there, and the matrix says so (`not judged`)
/// instead of calling every section missing or out of scope; the findings outside every section
/// (a BOM, a member the schema does not allow, `bindings` not an array) are listed under the
/// table with their message and place, so a Not compatible column always shows why.
#[test]
fn what_results_check_could_not_read_is_not_judged_and_file_findings_are_listed() {
    let dir = workspace();
    let base = std::fs::read_to_string(dir.path().join(HAND_MADE[0])).unwrap();
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(base.as_bytes());
    std::fs::write(dir.path().join("bom.json"), bom).unwrap();
    let v: serde_json::Value = serde_json::from_str(&base).unwrap();
    let with = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = v.clone();
        f(&mut v);
        v.to_string()
    };
    std::fs::write(
        dir.path().join("bindings.json"),
        with(&|v| {
            v["bindings"] = "sqs".into();
            v["sections"]["demo_sqs"]["projection"] = serde_json::json!({"status": "fail", "reason": "HIDDEN-FAIL"});
        }),
    )
    .unwrap();
    std::fs::write(dir.path().join("sections.json"), with(&|v| v["sections"] = "all passed".into())).unwrap();
    std::fs::write(dir.path().join("extra.json"), with(&|v| v["summary"] = serde_json::json!({"pass": 6}))).unwrap();
    let files = ["bom.json", "bindings.json", "sections.json", "extra.json"];
    let mut args = vec!["report", "--suite", "suite"];
    args.extend(files);
    let o = bqsuite(dir.path(), &args);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    let row = |section: &str| md.lines().find(|l| l.starts_with(&format!("| `{section}` |"))).unwrap().to_owned();
    // bom, bindings, sections, extra: nothing of a file that is not JSON is judged; a binding's
    // section is not judged where bindings cannot be read; no section is missing where sections
    // cannot be read; a file-level schema finding leaves the cells as they are.
    assert_eq!(row("cases"), "| `cases` | core | **not judged** | 2 / 0 / 0 | **not judged** | 2 / 0 / 0 |", "{md}");
    assert_eq!(
        row("demo_sqs"),
        "| `demo_sqs` | sqs | **not judged** | **2 / 1 / 0, not judged** | **not judged** | 3 / 0 / 0 |",
        "{md}"
    );
    assert_eq!(
        row("demo_asb"),
        "| `demo_asb` | asb | **not judged** | **not judged** | n/a (ADR-0021) | n/a (ADR-0021) |",
        "{md}"
    );
    let table = md.split("\n\nEach cell").next().unwrap();
    assert!(!table.contains("missing"), "nothing is called missing: {md}");
    for line in [
        "| (file) | (whole file) | BQ601 results-not-json | starts with a UTF-8 byte-order mark",
        "| (file) | `/bindings` | BQ620 results-malformed | bindings is a string",
        "| (file) | `/sections` | BQ620 results-malformed | sections is a string",
        "| (file) | (whole file) | BQ602 results-schema | violates the results schema: Additional properties are not allowed ('summary' was unexpected)",
        // A failing case of a section not judged is listed all the same (red team: it was not).
        "| `demo_sqs` | `projection` | fail | HIDDEN-FAIL |",
    ] {
        assert!(md.contains(line), "{line}\n{md}");
    }
    let mut args = vec!["report", "--suite", "suite", "--format", "html"];
    args.extend(files);
    let html = String::from_utf8(bqsuite(dir.path(), &args).stdout).unwrap();
    assert!(
        html.contains("<ul class=\"file-findings\"><li>(whole file): BQ601 results-not-json: starts with"),
        "{html}"
    );
    assert!(html.contains("<li><code>/bindings</code>: BQ620 results-malformed: bindings is a string"), "{html}");
    assert!(
        html.contains(&format!(
            "<td class=\"num warn\">{WARNING}2 / 1 / 0, not judged<details><summary>1 failing</summary>"
        )),
        "{html}"
    );
}

/// User journey (release coordinator): case ids and reasons from a results file are shown as
/// `results check` names them, hidden characters written `\u{XXXX}` (an id with a zero-width
/// space must not look like the id it is not), and a reason is cut after 200 characters, so
/// one runner that puts a stack trace in every reason cannot make the published matrix
/// unreadable.
#[test]
fn ids_and_reasons_are_shown_visibly_and_reasons_are_cut() {
    let dir = workspace();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(HAND_MADE[0])).unwrap()).unwrap();
    let cases = v["sections"]["cases"].as_object_mut().unwrap();
    cases.insert("order-created\u{200b}".into(), serde_json::json!({"status": "pass"}));
    // A member the schema refuses, named in its message and inside a case id's place.
    cases.insert("order-created".into(), serde_json::json!({"status": "pass", "extra\u{00a0}": 1}));
    let long = format!("{}END", "x".repeat(5000));
    v["sections"]["demo_core"]["first"] =
        serde_json::json!({"status": "fail", "reason": format!("got \u{00a0}{long}")});
    std::fs::write(dir.path().join("odd.json"), v.to_string()).unwrap();
    let md = String::from_utf8(bqsuite(dir.path(), &["report", "odd.json", "--suite", "suite"]).stdout).unwrap();
    assert!(md.contains("| `cases` | `order-created\\u{200b}` | unknown | |"), "{md}");
    assert!(md.contains("'extra\\\\u{00a0}' was unexpected"), "{md}");
    assert!(md.contains("got \\\\u{00a0}xxx"), "{md}");
    assert!(md.contains("… (4808 more characters)") && !md.contains("END"), "{md}");
    let o = bqsuite(dir.path(), &["results", "check", "odd.json", "--suite", "suite"]);
    let out = transcript(&o);
    assert!(out.contains("cases / order-created\\u{200b} is not a case id"), "{out}");
    assert!(out.contains("'extra\\u{00a0}' was unexpected") && !out.contains('\u{00a0}'), "{out}");
    assert!(
        out.contains("demo_core / first failed: got \\u{00a0}xxx") && out.contains("(4808 more characters)"),
        "{out}"
    );
    assert!(!out.contains("END"), "{out}");
}

/// User journey (release coordinator): a section every case of which is a skip the policy
/// allows (Redis without a Redis) passed nothing: the cell says `(policy, none run)` and is not
/// the green of a section that ran, so a published matrix does not show Redis as exercised.
#[test]
fn a_section_skipped_whole_under_the_policy_says_none_run() {
    let dir = tempfile::tempdir().unwrap();
    let suite = repo();
    let o = bqsuite(dir.path(), &["run", "--suite", suite.to_str().unwrap(), "--out", "ref.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let md = bqsuite(dir.path(), &["report", "ref.json", "--suite", suite.to_str().unwrap()]);
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("| `redis` | redis | 0 / 0 / 1 (policy, none run) |"), "{md}");
    assert!(md.lines().any(|l| l.starts_with("| `cases` | core | 8 / 0 / 0 |")), "{md}");
    let args = ["report", "ref.json", "--suite", suite.to_str().unwrap(), "--format", "html"];
    let html = String::from_utf8(bqsuite(dir.path(), &args).stdout).unwrap();
    assert!(html.contains("<td class=\"num idle\">0 / 0 / 1 (policy, none run)</td>"), "{html}");
}
