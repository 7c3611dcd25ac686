//! The static HTML rendering of the docs: one page per Markdown page, under `docs/html/`.
//!
//! Invariants:
//! - A page is self-contained: its CSS is inline, it has no script, no font, no image and no
//!   reference to another origin, and its Content-Security-Policy forbids loading anything; its
//!   only links are to other pages of the rendering, to repository files by relative path, and
//!   the absolute `http(s)` and `mailto` links the Markdown itself writes (which a reader
//!   follows, the page never fetches): a link with any other scheme (`javascript:`, `data:`) is
//!   rendered as its text alone. The policy also forbids a `<base>` and a form's submission.
//!   Raw HTML in the Markdown is never passed through: an HTML block or inline span that is one
//!   whole comment (the generated-page note, the region markers) is dropped, and any other is
//!   shown as text, so no byte of the source's HTML reaches the page as markup.
//! - A link between Markdown pages of the docs becomes the link between their HTML pages, the
//!   fragment kept; every heading gets the id GitHub gives it ([`markdown::slug`], repeats
//!   numbered `-1`, `-2` as GitHub does), so a `#fragment` that works on GitHub works here.
//! - The page's bytes depend only on its Markdown text, its path, the set of pages and the suite
//!   version: no clock, no environment.
//! - It is readable on a phone: a viewport meta, a fluid column, wide tables and code blocks
//!   scroll inside their own box instead of widening the page.
//! - It is accessible (WCAG 2.1 AA; `tests/accessibility.rs` and the Chromium test in
//!   `tests/docs.rs` hold every page to it): `lang` is set; the site's links are a `nav` named
//!   "Docs", the current page's marked `aria-current`; the page's content is the `main`, the
//!   generator's note a `footer` beside it; headings are the Markdown's (one `h1`, no level
//!   skipped: the pages are written so); every header cell is a `th` with its scope (`col` in
//!   the header row; `row` in the first column when the header row's first cell is empty, and
//!   that empty corner a `td`, since an empty header names nothing); every box that may scroll
//!   sideways (a table's, a code block) can be reached by the keyboard (`tabindex="0"`; a
//!   table's box is a group named by the heading above it) and every focusable element shows a
//!   focus ring; the text colours contrast at least 4.5:1 with their backgrounds in the light
//!   and the dark scheme; printed, a page is black on white whatever the scheme, without the
//!   `nav`, with its tables and code wrapped instead of cut off and the address of each outside
//!   link after its text.

use std::collections::BTreeSet;

use pulldown_cmark::{Alignment, CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

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
footer{max-width:60rem;margin:1rem auto 0;padding:.5rem 1rem 1rem;color:var(--muted);font-size:.85rem;border-top:1px solid var(--line)}
nav a[aria-current=page]{font-weight:600}
:focus-visible{outline:2px solid var(--link);outline-offset:2px}
@media print{:root{color-scheme:light;--fg:#000;--bg:#fff;--muted:#333;--line:#999;--code:#f6f8fa;--link:#000}\
nav{display:none}main,footer{max-width:none;padding-left:0;padding-right:0}.table,pre{overflow:visible}pre,pre code{white-space:pre-wrap}\
td code,td:first-child code,td:last-child code{white-space:normal;overflow-wrap:anywhere}\
h1,h2,h3,h4{break-after:avoid}pre,tr{break-inside:avoid}a[href^=\"http\"]::after{content:\" (\" attr(href) \")\";overflow-wrap:anywhere}}
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

/// The link `dest` of the Markdown page `rel`, as a link of its HTML page: an `http`, `https`
/// or `mailto` link or a fragment as it is; another page's HTML page when it names one of
/// `pages`, else the repository file by relative path; `None` for any other scheme.
fn rewrite(rel: &str, dest: &str, pages: &BTreeSet<String>) -> Option<String> {
    if let Some(scheme) = scheme(dest) {
        let allowed = ["http", "https", "mailto"].iter().any(|s| s.eq_ignore_ascii_case(&scheme));
        return allowed.then(|| dest.to_owned());
    }
    if dest.starts_with('#') {
        return Some(dest.to_owned());
    }
    let (target, fragment) = match dest.split_once('#') {
        Some((t, f)) => (t, Some(f)),
        None => (dest, None),
    };
    let repo_path = resolve(rel, target);
    let here = path(rel);
    let to = if pages.contains(&repo_path) { path(&repo_path) } else { repo_path };
    let mut out = relative(&here, &to);
    // A relative path whose first segment holds a `:` would read as a scheme.
    if scheme(&out).is_some() {
        out.insert_str(0, "./");
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    Some(out)
}

/// The scheme of the link `dest` as a browser reads it (leading controls and spaces skipped,
/// tabs and line breaks removed, WHATWG URL): the letters, digits, `+`, `-` and `.` before its
/// first `:`, when no `/`, `?` or `#` comes first. A `:` after anything else still makes no
/// relative link: it is returned whole, so that no allowed scheme matches it.
fn scheme(dest: &str) -> Option<String> {
    let url: String =
        dest.trim_start_matches(|c: char| c <= ' ').chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
    let end = url.find([':', '/', '?', '#'])?;
    url[end..].starts_with(':').then(|| url[..end].to_owned())
}

/// Whether raw HTML `h` (an HTML block or an inline span) is one whole comment and nothing else:
/// `<!--`, a text that holds neither `--` nor `>` nor `<`, `-->`. Such a comment is dropped; any
/// other raw HTML is shown as text.
fn is_whole_comment(h: &str) -> bool {
    let inner = h.trim().strip_prefix("<!--").and_then(|r| r.strip_suffix("-->"));
    inner.is_some_and(|t| !t.contains("--") && !t.contains(['<', '>']) && !t.starts_with('-') && !t.ends_with('-'))
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

/// Where the renderer is in the table it writes.
#[derive(Default)]
struct Table {
    alignments: Vec<Alignment>,
    /// In the header row.
    head: bool,
    /// The column of the next cell.
    column: usize,
    /// Whether the first column holds the rows' headers: the header row's first cell is empty
    /// (`| | before | after |`), so the column under it names each row.
    row_headers: bool,
    /// The end tag of the open cell.
    close: &'static str,
}

impl Table {
    /// The start and end tags of the next cell, `empty` when it holds nothing: a header cell
    /// is a `th` with its scope (`col` in the header row, `row` in the first column of a table
    /// with row headers); an empty cell is a `td`, since a header that says nothing names
    /// nothing.
    fn cell(&mut self, empty: bool) -> (String, &'static str) {
        let column = self.column;
        self.column += 1;
        let align = match self.alignments.get(column) {
            Some(Alignment::Left) => " style=\"text-align: left\"",
            Some(Alignment::Center) => " style=\"text-align: center\"",
            Some(Alignment::Right) => " style=\"text-align: right\"",
            _ => "",
        };
        if empty {
            if self.head && column == 0 {
                self.row_headers = true;
            }
            return (format!("<td{align}>"), "</td>");
        }
        let scope = if self.head {
            "col"
        } else if column == 0 && self.row_headers {
            "row"
        } else {
            return (format!("<td{align}>"), "</td>");
        };
        (format!("<th scope=\"{scope}\"{align}>"), "</th>")
    }
}

/// The headings of the Markdown `text`, in order: each one's source line (trimmed) and the id
/// [`page`] gives it (its plain text, the text and code it holds, through
/// [`markdown::HeadingIds`]), which is GitHub's anchor for it too.
pub fn anchors(text: &str) -> Vec<(String, String)> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut ids = markdown::HeadingIds::default();
    let mut out = Vec::new();
    let mut heading: Option<(std::ops::Range<usize>, String)> = None;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some((range, String::new())),
            Event::End(TagEnd::Heading(_)) => {
                if let Some((range, plain)) = heading.take() {
                    out.push((text[range].trim().to_owned(), ids.next(&plain)));
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, plain)) = &mut heading {
                    plain.push_str(&t);
                }
            }
            _ => {}
        }
    }
    out
}

/// The HTML page of the Markdown `text` at `rel`, among `pages` (every Markdown page rendered).
pub fn page(rel: &str, text: &str, pages: &BTreeSet<String>, version: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut events: Vec<Event<'_>> = Vec::new();
    let mut title = String::new();
    let mut ids = markdown::HeadingIds::default();
    // The events of the heading being read, with its plain text.
    let mut heading: Option<(pulldown_cmark::HeadingLevel, Vec<Event<'_>>, String)> = None;
    // The id of the last heading, which names the tables under it.
    let mut last_id: Option<String> = None;
    let mut table = Table::default();
    // Inside a link whose destination is dropped.
    let mut unlinked = false;
    // The lines of the HTML block being read.
    let mut html_block: Option<Vec<CowStr<'_>>> = None;
    let mut parser = Parser::new_ext(text, options).peekable();
    while let Some(event) = parser.next() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, Vec::new(), String::new())),
            Event::End(TagEnd::Heading(_)) => {
                let Some((level, inner, plain)) = heading.take() else { continue };
                let id = ids.next(&plain);
                if title.is_empty() && level == pulldown_cmark::HeadingLevel::H1 {
                    title = plain.clone();
                }
                let mut body = String::new();
                pulldown_cmark::html::push_html(&mut body, inner.into_iter());
                events.push(Event::Html(CowStr::from(format!("<{level} id=\"{}\">{body}</{level}>\n", escape(&id)))));
                last_id = Some(id);
            }
            Event::Start(Tag::Link { link_type, dest_url, title: t, id }) => {
                // A scheme that is not allowed: the link's text alone (links do not nest).
                let Some(dest) = rewrite(rel, &dest_url, pages) else {
                    unlinked = true;
                    continue;
                };
                let e = Event::Start(Tag::Link { link_type, dest_url: CowStr::from(dest), title: t, id });
                match &mut heading {
                    Some((_, inner, _)) => inner.push(e),
                    None => events.push(e),
                }
            }
            Event::End(TagEnd::Link) if unlinked => unlinked = false,
            // An image is its alternative text: a page holds no image and names no other origin
            // (the CSP would block the load; the `src` would still be in the page).
            Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => {}
            // A table scrolls in its own box, which the keyboard can reach (tabindex) and which
            // is named by the heading above it (a group, not a landmark: a page may hold dozens).
            Event::Start(Tag::Table(alignments)) => {
                let named =
                    last_id.as_deref().map_or_else(String::new, |id| format!(" aria-labelledby=\"{}\"", escape(id)));
                events.push(Event::Html(CowStr::from(format!(
                    "<div class=\"table\" role=\"group\" tabindex=\"0\"{named}>"
                ))));
                table = Table { alignments: alignments.clone(), ..Table::default() };
                events.push(Event::Start(Tag::Table(alignments)));
            }
            Event::End(TagEnd::Table) => {
                events.push(Event::End(TagEnd::Table));
                events.push(Event::Html(CowStr::from("</div>\n")));
            }
            Event::Start(Tag::TableHead) => {
                table.head = true;
                table.column = 0;
                events.push(Event::Start(Tag::TableHead));
            }
            Event::End(TagEnd::TableHead) => {
                table.head = false;
                events.push(Event::End(TagEnd::TableHead));
            }
            Event::Start(Tag::TableRow) => {
                table.column = 0;
                events.push(Event::Start(Tag::TableRow));
            }
            // Every cell is written here, not by pulldown-cmark: a header cell gets its scope.
            Event::Start(Tag::TableCell) => {
                let empty = matches!(parser.peek(), Some(Event::End(TagEnd::TableCell)));
                let (open, close) = table.cell(empty);
                events.push(Event::Html(CowStr::from(open)));
                if empty {
                    parser.next();
                    events.push(Event::Html(CowStr::from(close)));
                } else {
                    table.close = close;
                }
            }
            Event::End(TagEnd::TableCell) => events.push(Event::Html(CowStr::from(table.close))),
            // A code block scrolls in its own box, which the keyboard can reach.
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match &kind {
                    CodeBlockKind::Fenced(info) => info.split(' ').next().unwrap_or_default(),
                    CodeBlockKind::Indented => "",
                };
                let class =
                    if lang.is_empty() { String::new() } else { format!(" class=\"language-{}\"", escape(lang)) };
                events.push(Event::Html(CowStr::from(format!("<pre tabindex=\"0\"><code{class}>"))));
            }
            // Raw HTML is never passed through: a whole comment (the generated-page note, the
            // region markers) is dropped, anything else shown as text. A block is judged whole,
            // since a comment's end may sit on another line than its start.
            Event::Start(Tag::HtmlBlock) => html_block = Some(Vec::new()),
            Event::Html(h) if html_block.is_some() => html_block.get_or_insert_default().push(h),
            Event::End(TagEnd::HtmlBlock) => {
                let lines = html_block.take().unwrap_or_default();
                if !is_whole_comment(&lines.concat()) {
                    events.extend(lines.into_iter().map(Event::Text));
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                if !is_whole_comment(&h) {
                    match &mut heading {
                        Some((_, inner, _)) => inner.push(Event::Text(h)),
                        None => events.push(Event::Text(h)),
                    }
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
    if title.is_empty() {
        title = rel.to_owned();
    }
    // The site's links, the current page's marked as such (for a screen reader; also bold).
    let mut nav = String::new();
    for (to, name) in [
        (super::MAP, "Docs"),
        (super::SECTIONS_INDEX, "Sections"),
        ("README.md", "README"),
        (super::RESULTS_PAGE, "Results format"),
        (super::CODES_PAGE, "Codes"),
    ] {
        let current = if to == rel { " aria-current=\"page\"" } else { "" };
        nav.push_str(&format!("<a href=\"{}\"{current}>{name}</a>", relative(&here, &path(to))));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n<title>{} · BabelQueue conformance suite {}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<nav aria-label=\"Docs\">{nav}</nav>\n<main>\n{body}</main>\n<footer>Generated by <code>bqsuite docs</code> from <code>{}</code> (suite {}).</footer>\n</body>\n</html>\n",
        escape(&title),
        escape(version),
        escape(rel),
        escape(version),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `explain` links a case's heading by [`anchors`]: the ids must be those the page gets.
    #[test]
    fn anchors_are_the_ids_the_page_gives_its_headings() {
        let text = "# `cases`\n\n## What an SDK must do\n\n#### `x` *y*\n\n## Cases\n\n```\n## not one\n```\n\n## `cases`\n\n## `a_b`\n";
        let got = anchors(text);
        assert_eq!(
            got,
            [
                ("# `cases`", "cases"),
                ("## What an SDK must do", "what-an-sdk-must-do"),
                ("#### `x` *y*", "x-y"),
                ("## Cases", "cases-1"),
                ("## `cases`", "cases-2"),
                ("## `a_b`", "a_b"),
            ]
            .map(|(l, i)| (l.to_owned(), i.to_owned()))
        );
        let html = page("docs/sections/cases.md", text, &BTreeSet::new(), "1.0.0");
        for (_, id) in &got {
            assert!(html.contains(&format!(" id=\"{id}\">")), "{id}: {html}");
        }
    }

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
        assert!(
            html.contains("<div class=\"table\" role=\"group\" tabindex=\"0\" aria-labelledby=\"cases-1\"><table>"),
            "{html}"
        );
        assert_eq!(resolve("docs/sections/a.md", "../../fixtures/x.json"), "fixtures/x.json");
    }

    /// Raw HTML in the Markdown never reaches the page as markup, however a comment starts it:
    /// a browser ends a comment at `--!>` and at the first `-->`, wherever pulldown-cmark ends it.
    #[test]
    fn raw_html_after_or_inside_a_comment_is_text_and_a_whole_comment_is_dropped() {
        let pages: BTreeSet<String> = ["README.md"].map(String::from).into();
        let html = page(
            "README.md",
            "# R

<!-- x --><meta http-equiv=\"refresh\" content=\"0;url=https://evil.example/\"><base href=\"https://evil.example/\">\n\nInline: <!-- a --!><form action=\"https://evil.example/\"><input name=pw></form> -->\n\n<!-- two\nlines --><b>x</b>\n\n<!-- a whole comment -->\n\nand <!-- another --> inline.\n",
            &pages,
            "1.6.0",
        );
        let body = html.split_once("<main>").unwrap().1;
        for markup in ["<meta", "<base", "<form", "<input", "<b>", "<!--"] {
            assert!(!body.contains(markup), "{markup} in {body}");
        }
        assert!(body.contains("&lt;!-- x --&gt;&lt;meta http-equiv=\"refresh\""), "shown as text: {body}");
        assert!(body.contains("&lt;!-- a --!&gt;&lt;form"), "{body}");
        assert!(body.contains("lines --&gt;&lt;b&gt;x&lt;/b&gt;"), "{body}");
        assert!(!body.contains("a whole comment") && body.contains("and  inline."), "{body}");
        assert!(html.contains("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"));
    }

    /// An image in a hand-written page is its alternative text: no `<img>`, whatever its source.
    #[test]
    fn an_image_is_its_alternative_text() {
        let pages: BTreeSet<String> = ["README.md"].map(String::from).into();
        let md = "# R\n\n![the logo](https://x.example/a.png) ![x](javascript:alert(1)) ![d](data:image/png;base64,AA)\n\n[![inner](https://x.example/b.png)](#r)\n";
        let html = page("README.md", md, &pages, "1.6.0");
        let body = html.split_once("<main>").unwrap().1;
        assert!(!body.contains("<img") && !body.contains("x.example") && !body.contains("data:"), "{body}");
        assert!(body.contains("<p>the logo x d</p>"), "{body}");
        assert!(body.contains("<a href=\"#r\">inner</a>"), "{body}");
    }

    #[test]
    fn a_link_keeps_only_the_http_https_and_mailto_schemes() {
        let pages: BTreeSet<String> = ["README.md"].map(String::from).into();
        let md = "# R

[a](javascript:alert(1)//://x) [b](JavaScript:x) [c](<java\tscript:x>) [d](data:text/html,x) [e](vbscript:x) <javascript:autolink> [f](%20javascript:x)\n\n[g](https://x.example/a:b) [h](HTTP://x.example) [i](mailto:a@x.example) [j](#r) [k](docs/a:b.md)\n";
        let html = page("README.md", md, &pages, "1.6.0");
        let body = html.split_once("<main>").unwrap().1;
        let hrefs: Vec<&str> = body.split("href=\"").skip(1).map(|h| h.split('"').next().unwrap()).collect();
        assert_eq!(
            hrefs,
            ["https://x.example/a:b", "HTTP://x.example", "mailto:a@x.example", "#r", "../a:b.md"],
            "{body}"
        );
        assert!(body.contains("<p>a b c d e javascript:autolink f</p>"), "a dropped link keeps its text: {body}");
        // A path that resolves beside the page, its first segment holding a `:`, is no scheme.
        let pages: BTreeSet<String> = ["docs/a.md"].map(String::from).into();
        assert_eq!(rewrite("docs/a.md", "x/../html/javascript:alert(1)", &pages).unwrap(), "./javascript:alert(1)");
        for (dest, want) in [
            ("javascript:x", Some("javascript")),
            (" \u{1}javascript:x", Some("javascript")),
            ("java\nscript:x", Some("javascript")),
            ("a/b:c", None),
            ("a?b:c", None),
            ("#a:b", None),
            ("a b:c", Some("a b")),
        ] {
            assert_eq!(scheme(dest).as_deref(), want, "{dest:?}");
        }
    }

    #[test]
    fn header_cells_get_their_scope_and_scroll_boxes_the_keyboard() {
        let pages: BTreeSet<String> = ["docs/a.md"].map(String::from).into();
        let html = page(
            "docs/a.md",
            "# A\n\n## Costs\n\n| | before | after |\n|---|--:|:-:|\n| `x` | 1 | |\n| | 2 | 3 |\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\necho <x>\n```\n\n    indented\n",
            &pages,
            "1.6.0",
        );
        // An empty corner is no header, and it makes the first column the rows' headers (an
        // empty one stays a data cell); alignment is kept.
        assert!(
            html.contains(
                "<div class=\"table\" role=\"group\" tabindex=\"0\" aria-labelledby=\"costs\"><table><thead><tr><td></td><th scope=\"col\" style=\"text-align: right\">before</th><th scope=\"col\" style=\"text-align: center\">after</th></tr></thead><tbody>\n<tr><th scope=\"row\"><code>x</code></th><td style=\"text-align: right\">1</td><td style=\"text-align: center\"></td></tr>\n<tr><td></td><td style=\"text-align: right\">2</td>"
            ),
            "{html}"
        );
        // Without the empty corner, the header row's cells are the only headers.
        assert!(
            html.contains("<thead><tr><th scope=\"col\">a</th><th scope=\"col\">b</th></tr></thead><tbody>\n<tr><td>1</td><td>2</td></tr>"),
            "{html}"
        );
        assert!(
            html.contains("<pre tabindex=\"0\"><code class=\"language-sh\">echo &lt;x&gt;\n</code></pre>"),
            "{html}"
        );
        assert!(html.contains("<pre tabindex=\"0\"><code>indented\n</code></pre>"), "{html}");
        assert!(!html.contains("<th>") && !html.contains("<pre>"), "{html}");
        // The landmarks: a named nav, the content's main, the footer beside it.
        assert!(html.contains("<nav aria-label=\"Docs\"><a href=\"index.html\">Docs</a>"), "{html}");
        assert!(html.contains("</main>\n<footer>"), "{html}");
        assert_eq!(html.matches("aria-current=\"page\"").count(), 0, "a.md is not in the nav: {html}");
        let map = page(super::super::MAP, "# Docs\n", &pages, "1.6.0");
        assert!(map.contains("<a href=\"index.html\" aria-current=\"page\">Docs</a>"), "{map}");
    }
}
