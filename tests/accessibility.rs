//! The committed HTML pages of the docs (`docs/html/`) against the accessibility rules their
//! renderer keeps (`src/docs/html.rs`, its module doc): structure for a screen reader and a
//! keyboard, and the contrast of every text colour in the light, dark and print schemes. No
//! browser and no network: the Chromium checks (the width at 320 CSS px) are in `tests/docs.rs`.

mod support;

use support::a11y;
use support::repo;

#[test]
fn every_page_has_the_structure_a_screen_reader_and_a_keyboard_need() {
    let pages = support::html_pages();
    assert!(pages.len() > 30, "{} pages", pages.len());
    let mut problems = Vec::new();
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        for p in a11y::structure(&html, &["<pre", "<div class=\"table\""]) {
            problems.push(format!("{}: {p}", page.strip_prefix(repo()).unwrap().display()));
        }
        // Exactly one link says it is the page the reader is on, and only on the pages the
        // nav names.
        let current = html.matches(" aria-current=\"page\"").count();
        assert!(current <= 1, "{}: {current} current links", page.display());
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    let index = std::fs::read_to_string(repo().join("docs/html/sections/index.html")).unwrap();
    assert!(index.contains("<a href=\"index.html\" aria-current=\"page\">Sections</a>"), "{index}");
}

#[test]
fn an_empty_corner_makes_the_first_column_row_headers() {
    // docs/performance.md writes `| | before | after |` tables: the rows are named by their
    // first cell, and the corner says nothing.
    let html = std::fs::read_to_string(repo().join("docs/html/performance.html")).unwrap();
    assert!(html.contains("<thead><tr><td></td><th scope=\"col\">"), "the empty corner is no header");
    assert!(html.contains("<tr><th scope=\"row\"><code>validate</code> ×100</th><td>"), "row headers");
}

#[test]
fn every_text_colour_contrasts_with_its_background_in_every_scheme() {
    let pages = support::html_pages();
    let first = std::fs::read_to_string(&pages[0]).unwrap();
    let s = a11y::schemes(&first);
    // One stylesheet for every page.
    for page in &pages[1..] {
        let css = a11y::schemes(&std::fs::read_to_string(page).unwrap()).css;
        assert_eq!(css, s.css, "{} has a stylesheet of its own", page.display());
    }
    // The page sets both its text and its background colours (the browser's defaults follow
    // no scheme of ours).
    assert!(s.css.contains("body{margin:0;color:var(--fg);background:var(--bg);"), "{}", s.css);
    // Text: body text, muted text (the nav, the footer), links; on the page, in code and in
    // header cells (`--code`).
    let pairs = [("fg", "bg"), ("fg", "code"), ("muted", "bg"), ("muted", "code"), ("link", "bg"), ("link", "code")];
    let low = a11y::low_contrast(&s, &pairs, 4.5);
    assert!(low.is_empty(), "below 4.5:1:\n{}", low.join("\n"));
    // The focus ring (a non-text contrast, 3:1) is the link colour.
    assert!(s.css.contains(":focus-visible{outline:2pxsolidvar(--link)"), "{}", s.css);
    assert!(a11y::low_contrast(&s, &[("link", "bg"), ("link", "code")], 3.0).is_empty());
}

#[test]
fn the_contrast_and_structure_checks_catch_what_they_guard() {
    assert!((a11y::contrast("#000", "#fff") - 21.0).abs() < 1e-9);
    assert!((a11y::contrast("#777777", "#ffffff") - 4.48).abs() < 0.01);
    let bad = "<!DOCTYPE html>\n<html>\n<body><nav><a href=\"x\">x</a></nav><main><h2>a</h2><h4>b</h4>\
        <div class=\"table\"><table><thead><tr><th></th><th>b</th></tr></thead></table></div><pre>x</pre></main>\
        <span tabindex=\"3\"></span></body></html>";
    let found = a11y::structure(bad, &["<pre", "<div class=\"table\""]).join("\n");
    for problem in [
        "no lang",
        "0 h1",
        "the first heading is an h2",
        "an h4 after an h2",
        "a header cell without a scope",
        "an empty header cell",
        "a table without a header row",
        "a nav without a name",
        "a scroll box the keyboard cannot reach: <pre",
        "a scroll box the keyboard cannot reach: <div",
        "tabindex=\"3\"",
    ] {
        assert!(found.contains(problem), "{problem} not found in:\n{found}");
    }
}
