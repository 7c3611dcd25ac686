//! The static HTML rendering of the docs: one page per Markdown page, under `docs/html/`.
//!
//! Invariants:
//! - A page is self-contained: its CSS is inline, it has no script, no font, no image and no
//!   reference to another origin, and its Content-Security-Policy forbids loading anything; its
//!   only links are to other pages of the rendering, to repository files by relative path, and
//!   the absolute `http(s)` links the Markdown itself writes (which a reader follows, the page
//!   never fetches). Raw HTML in the Markdown is shown as text, never passed through.
//! - A link between Markdown pages of the docs becomes the link between their HTML pages, the
//!   fragment kept; every heading gets the id GitHub gives it ([`markdown::slug`], repeats
//!   numbered `-1`, `-2` as GitHub does), so a `#fragment` that works on GitHub works here.
//! - The page's bytes depend only on its Markdown text, its path, the set of pages and the suite
//!   version: no clock, no environment.
//! - It is readable on a phone: a viewport meta, a fluid column, wide tables and code blocks
//!   scroll inside their own box instead of widening the page.

use std::collections::{BTreeMap, BTreeSet};

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

use super::markdown::{self, relative};

/// Where the HTML pages live.
pub const DIR: &str = "docs/html";

/// The HTML page of the Markdown page at `rel` (a repository path): a `README.md` is its
/// directory's `index.html`; the repository's own README is `readme.html`, its CHANGELOG
/// `changelog.html`.
pub fn path(rel: &str) -> String {
    let inner = rel.strip_prefix("docs/").unwrap_or(match rel {
        "README.md" => "readme.md",
        "CHANGELOG.md" => "changelog.md",
        _ => rel,
    });
    let stem = inner.strip_suffix(".md").unwrap_or(inner);
    let stem = match stem.strip_suffix("README") {
        Some(dir) => format!("{dir}index"),
        None => stem.to_owned(),
    };
    format!("{DIR}/{stem}.html")
}

const CSS: &str = "\
:root{color-scheme:light dark;--fg:#1f2328;--bg:#fff;--muted:#59636e;--line:#d1d9e0;--code:#f6f8fa;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#3d444d;--code:#151b23;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:var(--bg);font:16px/1.55 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;overflow-wrap:break-word}
main{max-width:60rem;margin:0 auto;padding:1rem}
nav{border-bottom:1px solid var(--line);padding:.5rem 1rem;font-size:.9rem;color:var(--muted)}
nav a{margin-right:1rem;white-space:nowrap;display:inline-block}
a{color:var(--link)}
h1,h2,h3,h4{line-height:1.25;margin:1.6em 0 .6em}
h1{font-size:1.8rem}h2{font-size:1.4rem;border-bottom:1px solid var(--line);padding-bottom:.2em}h3{font-size:1.15rem}
code{font:.88em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);padding:.1em .3em;border-radius:4px}
pre{background:var(--code);padding:.8rem;border-radius:6px;overflow-x:auto}
pre code{padding:0;background:none}
.table{overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse;font-size:.92rem}
th,td{border:1px solid var(--line);padding:.35rem .55rem;text-align:left;vertical-align:top}
th{background:var(--code)}
td code{overflow-wrap:anywhere}
td:first-child code,td:last-child code{overflow-wrap:normal;white-space:nowrap}
footer{color:var(--muted);font-size:.85rem;border-top:1px solid var(--line);margin-top:2rem;padding-top:.5rem}
";

/// Escape text for HTML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// The link `dest` of the Markdown page `rel`, as a link of its HTML page: to another page's
/// HTML page when it names one of `pages`, else to the repository file by relative path.
fn rewrite(rel: &str, dest: &str, pages: &BTreeSet<String>) -> String {
    if dest.starts_with('#') || dest.contains("://") || dest.starts_with("mailto:") {
        return dest.to_owned();
    }
    let (target, fragment) = match dest.split_once('#') {
        Some((t, f)) => (t, Some(f)),
        None => (dest, None),
    };
    let repo_path = resolve(rel, target);
    let here = path(rel);
    let to = if pages.contains(&repo_path) { path(&repo_path) } else { repo_path };
    let mut out = relative(&here, &to);
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// The repository path a relative link `target` of the page at `rel` names.
pub fn resolve(rel: &str, target: &str) -> String {
    let mut parts: Vec<&str> = rel.split('/').collect();
    parts.pop();
    for seg in target.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// The HTML page of the Markdown `text` at `rel`, among `pages` (every Markdown page rendered).
pub fn page(rel: &str, text: &str, pages: &BTreeSet<String>, version: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut events: Vec<Event<'_>> = Vec::new();
    let mut title = String::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    // The events of the heading being read, with its plain text.
    let mut heading: Option<(pulldown_cmark::HeadingLevel, Vec<Event<'_>>, String)> = None;
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, Vec::new(), String::new())),
            Event::End(TagEnd::Heading(_)) => {
                let Some((level, inner, plain)) = heading.take() else { continue };
                let base = markdown::slug(&plain);
                let n = seen.entry(base.clone()).or_insert(0);
                let id = if *n == 0 { base.clone() } else { format!("{base}-{n}") };
                *n += 1;
                if title.is_empty() && level == pulldown_cmark::HeadingLevel::H1 {
                    title = plain.clone();
                }
                let mut body = String::new();
                pulldown_cmark::html::push_html(&mut body, inner.into_iter());
                events.push(Event::Html(CowStr::from(format!("<{level} id=\"{}\">{body}</{level}>\n", escape(&id)))));
            }
            Event::Start(Tag::Link { link_type, dest_url, title: t, id }) => {
                let dest = CowStr::from(rewrite(rel, &dest_url, pages));
                let e = Event::Start(Tag::Link { link_type, dest_url: dest, title: t, id });
                match &mut heading {
                    Some((_, inner, _)) => inner.push(e),
                    None => events.push(e),
                }
            }
            Event::Start(Tag::Table(a)) => {
                events.push(Event::Html(CowStr::from("<div class=\"table\">")));
                events.push(Event::Start(Tag::Table(a)));
            }
            Event::End(TagEnd::Table) => {
                events.push(Event::End(TagEnd::Table));
                events.push(Event::Html(CowStr::from("</div>\n")));
            }
            // Raw HTML in a page (the generated-page marker, region markers) is kept only as
            // a comment: the rendering never passes markup through.
            Event::Html(h) | Event::InlineHtml(h) => {
                let kept = if h.trim_start().starts_with("<!--") { Event::Html(h) } else { Event::Text(h) };
                match &mut heading {
                    Some((_, inner, _)) => inner.push(kept),
                    None => events.push(kept),
                }
            }
            other => match &mut heading {
                Some((_, inner, plain)) => {
                    if let Event::Text(t) | Event::Code(t) = &other {
                        plain.push_str(t);
                    }
                    inner.push(other);
                }
                None => events.push(other),
            },
        }
    }
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, events.into_iter());
    let here = path(rel);
    let link = |to: &str| relative(&here, &path(to));
    if title.is_empty() {
        title = rel.to_owned();
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<title>{} · BabelQueue conformance suite {}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<nav><a href=\"{}\">Docs</a><a href=\"{}\">Sections</a><a href=\"{}\">README</a><a href=\"{}\">Results format</a><a href=\"{}\">Codes</a></nav>\n<main>\n{body}<footer>Generated by <code>bqsuite docs</code> from <code>{}</code> (suite {}).</footer>\n</main>\n</body>\n</html>\n",
        escape(&title),
        escape(version),
        link(super::MAP),
        link(super::SECTIONS_INDEX),
        link("README.md"),
        link(super::RESULTS_PAGE),
        link(super::CODES_PAGE),
        escape(rel),
        escape(version),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_map_to_html_paths() {
        assert_eq!(path("docs/README.md"), "docs/html/index.html");
        assert_eq!(path("docs/sections/README.md"), "docs/html/sections/index.html");
        assert_eq!(path("docs/sections/kafka_poison.md"), "docs/html/sections/kafka_poison.html");
        assert_eq!(path("README.md"), "docs/html/readme.html");
        assert_eq!(path("docs/codes.md"), "docs/html/codes.html");
    }

    #[test]
    fn links_between_pages_follow_the_pages_and_headings_get_github_ids() {
        let pages: BTreeSet<String> = ["README.md", "docs/codes.md", "docs/sections/a.md"].map(String::from).into();
        let html = page(
            "docs/sections/a.md",
            "# `a`\n\n## Cases\n\n## Cases\n\n[x](../codes.md#bq612) [f](../../fixtures/f.json) [r](../../README.md) [h](#cases)\n\n<script>alert(1)</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            &pages,
            "1.6.0",
        );
        assert!(html.contains("<h2 id=\"cases\">Cases</h2>") && html.contains("<h2 id=\"cases-1\">"), "{html}");
        assert!(html.contains("href=\"../codes.html#bq612\""), "{html}");
        assert!(html.contains("href=\"../../../fixtures/f.json\""), "{html}");
        assert!(html.contains("href=\"../readme.html\""), "{html}");
        assert!(html.contains("<title>a ·"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("<div class=\"table\"><table>"), "{html}");
        assert_eq!(resolve("docs/sections/a.md", "../../fixtures/x.json"), "fixtures/x.json");
    }
}
