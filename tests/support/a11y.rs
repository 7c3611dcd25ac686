//! Accessibility checks over the HTML pages bqsuite writes (the docs' pages, the report), without
//! a browser: the structure a screen reader and a keyboard depend on, and the WCAG contrast of
//! the colours the page's CSS declares, in the light, the dark and the print scheme. And, with
//! headless Chromium, the width a page takes in a 320 CSS px viewport.

use std::collections::BTreeMap;
use std::path::Path;

/// What is wrong with `html`'s structure, one line each. `scroll_boxes` are the openings of the
/// elements that may scroll sideways (`<pre`, `<div class="table"`), each of which must be
/// reachable by the keyboard.
pub fn structure(html: &str, scroll_boxes: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    if !html.contains("<html lang=\"en\">") {
        out.push("no lang on <html>".to_owned());
    }
    // Headings: one h1, first; no level skipped on the way down.
    let levels: Vec<u8> = tags(html)
        .filter_map(|t| match t.as_bytes() {
            [b'h', d @ b'1'..=b'6', rest @ ..] if rest.is_empty() || rest[0] == b' ' => Some(d - b'0'),
            _ => None,
        })
        .collect();
    let h1 = levels.iter().filter(|&&l| l == 1).count();
    if h1 != 1 {
        out.push(format!("{h1} h1 elements"));
    }
    if levels.first().is_some_and(|&l| l != 1) {
        out.push(format!("the first heading is an h{}", levels[0]));
    }
    for w in levels.windows(2) {
        if w[1] > w[0] + 1 {
            out.push(format!("an h{} after an h{}", w[1], w[0]));
        }
    }
    // Header cells: a scope each, never empty.
    for (i, _) in html.match_indices("<th") {
        let rest = &html[i..];
        let Some(end) = rest.find('>') else { continue };
        let tag = &rest[..end];
        if tag.starts_with("<thead") {
            continue;
        }
        if !tag.contains(" scope=\"col\"") && !tag.contains(" scope=\"row\"") {
            out.push(format!("a header cell without a scope: {tag}>"));
        }
        if rest[end + 1..].starts_with("</th>") {
            out.push(format!("an empty header cell: {tag}></th>"));
        }
    }
    // Tables: a header row each.
    for (i, _) in html.match_indices("<table") {
        let table = &html[i..html[i..].find("</table>").map_or(html.len(), |e| i + e)];
        if !table.contains("<thead><tr>") || !table.contains("<th scope=\"col\"") {
            out.push(format!("a table without a header row: {}", &table[..table.len().min(80)]));
        }
    }
    // Landmarks: one main; every nav named; a footer outside the main.
    let mains = html.matches("<main>").count();
    if mains != 1 {
        out.push(format!("{mains} main elements"));
    }
    for (i, _) in html.match_indices("<nav") {
        if !html[i..].split('>').next().unwrap_or_default().contains(" aria-label=\"") {
            out.push("a nav without a name".to_owned());
        }
    }
    if let (Some(footer), Some(main_end)) = (html.find("<footer"), html.find("</main>"))
        && footer < main_end
    {
        out.push("the footer is inside the main".to_owned());
    }
    // The keyboard: every box that may scroll can be reached; no tab order of its own.
    for opening in scroll_boxes {
        for (i, _) in html.match_indices(opening) {
            let tag = html[i..].split('>').next().unwrap_or_default();
            if !tag.contains(" tabindex=\"0\"") {
                out.push(format!("a scroll box the keyboard cannot reach: {tag}>"));
            }
        }
    }
    for (i, _) in html.match_indices(" tabindex=\"") {
        let value = html[i + 11..].split('"').next().unwrap_or_default();
        if value != "0" && value != "-1" {
            out.push(format!("tabindex=\"{value}\""));
        }
    }
    out
}

/// The names of the start tags of `html`, with their attributes (`h2 id="x"`), in order.
fn tags(html: &str) -> impl Iterator<Item = &str> {
    html.split('<').skip(1).filter(|t| !t.starts_with('/') && !t.starts_with('!')).filter_map(|t| t.split('>').next())
}

/// The custom properties (`--name: #hex`) of the page's CSS by scheme: `light` (the `:root`
/// rule outside any media query), `dark` (light, overridden by the `prefers-color-scheme: dark`
/// block) and `print` (dark, overridden by the print block: a page printed while the reader
/// prefers dark).
pub struct Schemes {
    pub light: BTreeMap<String, String>,
    pub dark: BTreeMap<String, String>,
    pub print: BTreeMap<String, String>,
    /// The whole CSS, whitespace removed.
    pub css: String,
}

/// The colour schemes of the `<style>` of `html`.
pub fn schemes(html: &str) -> Schemes {
    let start = html.find("<style>").expect("a <style> element") + "<style>".len();
    let end = html[start..].find("</style>").expect("its end") + start;
    let css: String = html[start..end].chars().filter(|c| !c.is_whitespace()).collect();
    let root_vars = |block: &str| -> BTreeMap<String, String> {
        let Some(i) = block.find(":root{") else { return BTreeMap::new() };
        let body = &block[i + 6..];
        let body = &body[..body.find('}').unwrap_or(body.len())];
        body.split(';')
            .filter_map(|d| d.split_once(':'))
            .filter(|(k, _)| k.starts_with("--"))
            .map(|(k, v)| (k[2..].to_owned(), v.to_owned()))
            .collect()
    };
    let media = |query: &str| -> &str {
        let i = css.find(query).unwrap_or_else(|| panic!("no {query} block in {css}"));
        &css[i..]
    };
    let light = root_vars(&css);
    let mut dark = light.clone();
    dark.extend(root_vars(media("@media(prefers-color-scheme:dark)")));
    let mut print = dark.clone();
    print.extend(root_vars(media("@mediaprint")));
    Schemes { light, dark, print, css }
}

/// The relative luminance of `#rgb` or `#rrggbb` (WCAG 2.1).
fn luminance(hex: &str) -> f64 {
    let h = hex.strip_prefix('#').unwrap_or_else(|| panic!("{hex} is not a #hex colour"));
    let h: String = if h.len() == 3 { h.chars().flat_map(|c| [c, c]).collect() } else { h.to_owned() };
    assert_eq!(h.len(), 6, "{hex}");
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&h[i..i + 2], 16).unwrap()) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
}

/// The WCAG contrast ratio of two colours.
pub fn contrast(a: &str, b: &str) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The pairs of `pairs` (text variable, background variable) below `min` in any scheme.
pub fn low_contrast(s: &Schemes, pairs: &[(&str, &str)], min: f64) -> Vec<String> {
    let mut out = Vec::new();
    for (name, vars) in [("light", &s.light), ("dark", &s.dark), ("print", &s.print)] {
        for (fg, bg) in pairs {
            let get = |v: &str| vars.get(v).unwrap_or_else(|| panic!("--{v} is not declared in the {name} scheme"));
            let ratio = contrast(get(fg), get(bg));
            if ratio < min {
                out.push(format!("{name}: --{fg} {} on --{bg} {}: {ratio:.2}:1", get(fg), get(bg)));
            }
        }
    }
    out
}

/// Each of `pages` loaded at 320 CSS px wide in headless Chromium: the pages whose document is
/// wider than its viewport (it scrolls sideways as a whole), with both widths. The pages are
/// framed by a harness page of our own whose script measures them (the pages have no script
/// and forbid one).
pub fn wider_than_320(browser: &Path, pages: &[std::path::PathBuf]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = String::from("<!DOCTYPE html>\n<html><body><pre id=\"out\">unmeasured</pre>\n");
    for p in pages {
        harness.push_str(&format!(
            "<iframe style=\"width:320px;height:480px;border:0\" src=\"file://{}\"></iframe>\n",
            p.display()
        ));
    }
    harness.push_str(
        "<script>\nwindow.addEventListener('load', () => {\n  const out = [];\n  for (const f of document.querySelectorAll('iframe')) {\n    const d = f.contentDocument.documentElement;\n    out.push((d.scrollWidth > d.clientWidth ? 'WIDE ' : 'fits ') + d.scrollWidth + ' ' + d.clientWidth + ' ' + f.src);\n  }\n  document.getElementById('out').textContent = out.join('\\n');\n});\n</script>\n</body></html>\n",
    );
    let page = dir.path().join("harness.html");
    std::fs::write(&page, harness).unwrap();
    // The harness reads the framed pages' layout: file pages of one origin.
    let (out, _) = super::run_chromium(browser, &page, &["--allow-file-access-from-files", "--dump-dom"]);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "chromium failed: {dom}");
    let start = dom.find("<pre id=\"out\">").expect("the harness's output") + "<pre id=\"out\">".len();
    let measured: Vec<&str> =
        dom[start..dom[start..].find("</pre>").map_or(dom.len(), |e| start + e)].lines().collect();
    assert!(
        measured.len() == pages.len() && measured.iter().all(|l| l.starts_with("fits ") || l.starts_with("WIDE ")),
        "every page measured: {dom}"
    );
    measured.into_iter().filter(|l| l.starts_with("WIDE ")).map(str::to_owned).collect()
}
