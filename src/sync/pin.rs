//! Pin awareness: which suite tag an SDK's CI checks its vendored copy against.
//!
//! The spec's CI guard shallow-clones the suite at the tag the SDK pins (`git clone --depth 1
//! --branch vX.Y.Z …`) and diffs the vendored copy against it, so an SDK left behind on both the
//! old copy and the old pin stays green there. This module finds the pin and classifies it.
//!
//! Rules: a pin is every `--branch vX.Y.Z`, `--branch=vX.Y.Z` or `-b vX.Y.Z` (quotes allowed
//! around the tag, `X.Y.Z` any SemVer version) of a command that clones this repository, and
//! every use of this repository's GitHub Action (the value of a `uses:` key) at a release tag,
//! `BabelQueue/conformance@vX.Y.Z` (owner and name
//! in any letter case, as GitHub reads them), or at a commit SHA followed by the comment that
//! names its tag (`@<40 hex> # vX.Y.Z`, the form Dependabot keeps and the README recommends;
//! Renovate's `# tag=vX.Y.Z`, `# renovate: tag=vX.Y.Z`, `# pin @vX.Y.Z` and a bare `# X.Y.Z`
//! too), and `actions/checkout` with `repository: BabelQueue/conformance` and `ref: vX.Y.Z`
//! in one `with:` mapping, in a regular `*.yml` / `*.yaml` file directly in the repository's
//! `.github/workflows/` (never reached through a symlink out of the repository).
//! - A command clones this repository unless every repository it names is written out and none
//!   is this one ([`clones_another_repository`]): the command is the `--branch`'s line, with `\`
//!   and PowerShell's backtick continuations, up to `;`, `&&`, `||` or `|`; a repository is a URL
//!   (`scheme://…`, `git@…`, `….git`) or `gh repo clone OWNER/NAME`, and this one's path holds
//!   `babelqueue` and ends in `conformance` (`.git` aside), so `cloudevents/conformance` is
//!   another project. A command with no repository, or one written with a variable or an
//!   expression, counts, since it may be this one.
//! - Comments pin nothing: a line whose first character other than white space is `#`, and a
//!   `#` after white space outside quotes (a quote opens only where a word starts) to the end of
//!   its line, but the comment after this suite's action at a commit SHA, where its tag is
//!   named. A URL's credential (`https://user:${{ … }}@host/…`) is not part of the repository it
//!   names. `actions/checkout`'s `ref` may be written `refs/tags/vX.Y.Z`, and its `with:` as a
//!   flow mapping on one line.
//! - A `--branch` or action ref whose value is not `v` + SemVer (a branch name, a bare commit
//!   SHA, a major tag such as `v1`, an expression) is not a pin. A YAML folded scalar (`>`)
//!   split across lines is read line by line (its lines are one command to the shell).
//!
//! Given the copy's `CONFORMANCE_VERSION` and the canonical version: no pin → unpinned; several
//! different tags → conflict; the one tag ≠ the copy's version (or no copy) → mismatch; equal
//! and the same as the canonical version → in sync; equal and older → behind; equal and newer
//! → ahead. Versions compare as SemVer (`1.7.0-pre < 1.7.0`).

use std::cmp::Ordering;
use std::path::Path;

use semver::Version;

use crate::diag::Span;
use crate::suite::span::span_at;

use super::place::resolve_inside;

/// Where the workflows live, relative to the repository.
pub const WORKFLOWS: &str = ".github/workflows";

/// One `--branch vX.Y.Z` in a workflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The tag, e.g. `v1.6.0`.
    pub tag: String,
    /// The workflow file, relative to the repository.
    pub file: String,
    /// Where the tag starts.
    pub span: Span,
    /// The tag is named by the comment after an action's commit SHA: bumping it means pointing
    /// the SHA at the new tag's commit, not editing the comment.
    pub by_sha: bool,
}

impl Pin {
    /// The pinned version (the tag without its `v`).
    pub fn version(&self) -> &str {
        &self.tag[1..]
    }
}

/// How a copy, its pin and the canonical suite relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinStatus {
    InSync,
    Behind,
    Ahead,
    Mismatch,
    Conflict,
    Unpinned,
}

impl PinStatus {
    /// The kebab-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            PinStatus::InSync => "in-sync",
            PinStatus::Behind => "behind",
            PinStatus::Ahead => "ahead",
            PinStatus::Mismatch => "mismatch",
            PinStatus::Conflict => "conflict",
            PinStatus::Unpinned => "unpinned",
        }
    }
}

/// One pin found in a workflow's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// `v` + SemVer.
    pub tag: String,
    /// Where the tag is written.
    pub span: Span,
    /// Named by the comment after an action's commit SHA ([`Pin::by_sha`]).
    pub by_sha: bool,
    /// The byte offset of the tag in the text (where `span` is).
    pub offset: usize,
}

/// Every pin in `text`, with its position, in text order.
pub fn scan(text: &str) -> Vec<Found> {
    let live = without_comments(text);
    let mut at: Vec<(usize, String, bool)> =
        branch_flags(&live).into_iter().map(|(offset, tag)| (offset, tag.to_owned(), false)).collect();
    at.extend(action_refs(&live));
    at.extend(checkout_refs(&live).into_iter().map(|(offset, tag)| (offset, tag.to_owned(), false)));
    at.sort_unstable_by_key(|(offset, ..)| *offset);
    // Offsets into `live` are offsets into `text`: the two differ only where comments were.
    at.into_iter().map(|(offset, tag, by_sha)| Found { tag, span: span_at(text, offset), by_sha, offset }).collect()
}

/// `text` with every comment blanked, byte for byte, so that offsets stay `text`'s: a line whose
/// first character other than white space is `#`, and a `#` after white space outside quotes
/// to the end of its line (YAML's and the shell's comments alike), except the comment right
/// after an action's commit SHA, which names the SHA's tag ([`action_refs`]).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        let cut = comment_start(body).filter(|&at| !after_a_sha(&body[..at]));
        match cut {
            Some(at) => {
                out.push_str(&body[..at]);
                out.extend(std::iter::repeat_n(' ', body.len() - at));
            }
            None => out.push_str(body),
        }
        out.push_str(end);
    }
    out
}

/// Where a comment starts in `line`: a `#` first on the line or after white space, outside
/// single and double quotes. A quote opens only where a word starts (after white space, `=`,
/// `(` or `:`), so the apostrophe of a plain scalar ("the SDK's copy") opens none.
pub(super) fn comment_start(line: &str) -> Option<usize> {
    let (mut quote, mut prev) = (None::<char>, ' ');
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') if prev.is_whitespace() || matches!(prev, '=' | '(' | ':') => quote = Some(c),
            (None, '#') if prev.is_whitespace() => return Some(i),
            _ => {}
        }
        prev = c;
    }
    None
}

/// Does `before` (a line up to a comment) end with this suite's action at a 40-hex commit SHA?
fn after_a_sha(before: &str) -> bool {
    let word = before.trim_end().trim_end_matches(['"', '\'']).rsplit(|c: char| c.is_whitespace()).next().unwrap_or("");
    word.rsplit_once('@')
        .is_some_and(|(action, sha)| action.to_ascii_lowercase().ends_with(SUITE_REPO) && is_commit_sha(sha))
}

/// The command around byte `at` of `text`: from the separator before it to the one after it
/// (`;`, `&&`, `||`, `|`, or a line end not escaped by `\` or by PowerShell's backtick).
fn command_around(text: &str, at: usize) -> &str {
    let is_end = |bytes: &[u8], i: usize| match bytes[i] {
        b';' | b'|' => true,
        b'&' => bytes.get(i + 1) == Some(&b'&') || (i > 0 && bytes[i - 1] == b'&'),
        b'\n' => {
            let before = text[..i].trim_end_matches('\r').trim_end_matches([' ', '\t']);
            !(before.ends_with('\\') || before.ends_with('`'))
        }
        _ => false,
    };
    let bytes = text.as_bytes();
    let start = (0..at).rev().find(|&i| is_end(bytes, i)).map_or(0, |i| i + 1);
    let end = (at..bytes.len()).find(|&i| is_end(bytes, i)).unwrap_or(bytes.len());
    &text[start..end]
}

/// Does `command` clone another repository than this suite's? Only when every repository it
/// names is written out (no `$` in it: a variable or an expression may be this one) and none is this
/// suite's: a path holding `babelqueue` whose last segment ends in `conformance` (`.git` aside:
/// `BabelQueue/conformance`, a mirror's `babelqueue-conformance`). Repositories are URLs
/// (`scheme://…`, `git@…`, `….git`) and `gh repo clone OWNER/NAME`.
fn clones_another_repository(command: &str) -> bool {
    // A `${{ … }}` expression holds spaces: one word of its own, so a URL stays one word.
    let mut joined = String::with_capacity(command.len());
    let mut rest = command;
    while let Some(open) = rest.find("${{") {
        let close = rest[open..].find("}}").map_or(rest.len(), |c| open + c + 2);
        joined.push_str(&rest[..open]);
        joined.push_str("${{expression}}");
        rest = &rest[close..];
    }
    joined.push_str(rest);
    let command = joined.as_str();
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || c == '\\' || c == '`')
        .map(|w| w.trim_matches(|c| matches!(c, '"' | '\'' | '(' | ')')))
        .filter(|w| !w.is_empty())
        .collect();
    let mut repos: Vec<&str> =
        words.iter().copied().filter(|w| w.contains("://") || w.starts_with("git@") || w.ends_with(".git")).collect();
    if let Some(i) = words.windows(3).position(|w| w == ["gh", "repo", "clone"]) {
        repos.extend(words.get(i + 3).copied());
    }
    let this_one = |repo: &str| {
        let lower = repo.to_ascii_lowercase();
        let last = lower.trim_end_matches(['/', '}']).rsplit(['/', ':']).next().unwrap_or_default();
        lower.contains("babelqueue") && last.strip_suffix(".git").unwrap_or(last).ends_with("conformance")
    };
    // A repository written with a variable or an expression (`https://github.com/${{ … }}`,
    // `${SUITE_URL:-…}`) cannot be read here: it may be this one. A credential in it
    // (`https://x-access-token:${{ … }}@github.com/acme/x.git`) names no repository.
    let unreadable = repos.iter().any(|r| {
        let after_scheme = r.split_once("://").map_or(*r, |(_, rest)| rest);
        let without_credential = match after_scheme.split_once('/') {
            Some((authority, _)) if authority.contains('@') => {
                &after_scheme[authority.rfind('@').map_or(0, |a| a + 1)..]
            }
            _ => after_scheme,
        };
        r.starts_with('$') || without_credential.contains('$')
    });
    !repos.is_empty() && !unreadable && !repos.iter().any(|r| this_one(r))
}

/// This suite's repository on GitHub, lower-cased: the action's owner/name, and the
/// `repository` an `actions/checkout` of the suite names.
const SUITE_REPO: &str = "babelqueue/conformance";

/// Is `word` a full commit SHA (40 hex digits), as an action pinned by commit is written?
fn is_commit_sha(word: &str) -> bool {
    word.len() == 40 && word.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Is `tag` `v` + a SemVer version?
fn is_release_tag(tag: &str) -> bool {
    tag.strip_prefix('v').is_some_and(|v| Version::parse(v).is_ok())
}

/// `uses: BabelQueue/conformance@vX.Y.Z`: (offset of the tag, tag).
fn action_refs(text: &str) -> Vec<(usize, String, bool)> {
    // ASCII lowercasing keeps every byte offset.
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    for (at, _) in lower.match_indices(SUITE_REPO).filter(|(at, _)| lower[at + SUITE_REPO.len()..].starts_with('@')) {
        let start = at + SUITE_REPO.len() + 1;
        // Only as the value of a `uses:` key: a mention in a script or a message pins nothing.
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        let before = text[line_start..at].trim_start().trim_start_matches("- ").trim_start();
        let preceded = before.strip_prefix("uses:").is_some_and(|v| v.trim().trim_matches(['"', '\'']).is_empty());
        let tag = text[start..].split(|c: char| c.is_whitespace() || "\"'#".contains(c)).next().unwrap_or_default();
        if !preceded {
            continue;
        }
        if is_release_tag(tag) {
            out.push((start, tag.to_owned(), false));
        } else if is_commit_sha(tag) {
            // A commit SHA with its tag in the comment after it.
            let after = start + tag.len();
            let line = text[after..].split('\n').next().unwrap_or_default();
            let rest = line.trim_start_matches(['"', '\'']).trim_start();
            if let Some(comment) = rest.strip_prefix('#') {
                let base = after + line.len() - comment.len();
                out.extend(tag_in_comment(comment).map(|(offset, tag)| (base + offset, tag, true)));
            }
        }
    }
    out
}

/// The tag a comment after a commit SHA names, and where in the comment it starts: the first
/// word that is `vX.Y.Z` or `X.Y.Z` once `tag=` or `@` before it is set aside (`v1.6.0`,
/// `tag=v1.6.0`, `renovate: tag=v1.6.0`, `pin @v1.6.0`, `1.6.0`).
fn tag_in_comment(comment: &str) -> Option<(usize, String)> {
    let mut offset = 0;
    for word in comment.split_inclusive(char::is_whitespace) {
        let bare = word.trim_end();
        let name = bare.trim_start_matches("tag=").trim_start_matches('@');
        let at = offset + (bare.len() - name.len());
        offset += word.len();
        if is_release_tag(name) {
            return Some((at, name.to_owned()));
        }
        if !name.starts_with('v') && Version::parse(name).is_ok() {
            return Some((at, format!("v{name}")));
        }
    }
    None
}

/// `actions/checkout` of the suite at a release tag, the usual way a workflow clones another
/// repository: a `repository: BabelQueue/conformance` key (any letter case, quotes allowed) and
/// a `ref: vX.Y.Z` key of the same mapping (the keys at its indentation, above or below it, up
/// to a line indented less): (offset of the tag, tag).
fn checkout_refs(text: &str) -> Vec<(usize, &str)> {
    // (offset of the line, indentation, key, value) of every `key: value` line.
    let mut lines: Vec<(usize, usize, &str, &str)> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start_matches(' ').len();
        let item = body[indent..].strip_prefix("- ").map_or(0, |_| 2);
        if let Some((key, value)) = body[indent + item..].split_once(':') {
            lines.push((offset + indent + item + key.len() + 1, indent + item, key.trim(), value));
        }
        offset += line.len();
    }
    let unquoted = |v: &str| v.trim().trim_matches(['"', '\'']).to_owned();
    let is_suite = |v: &str| unquoted(v).eq_ignore_ascii_case(SUITE_REPO);
    // A ref's tag (`v1.6.0`, `refs/tags/v1.6.0`) and where in `value` it starts.
    let tag_of = |value: &str| {
        let bare = value.trim().trim_matches(['"', '\'']);
        let tag = bare.strip_prefix("refs/tags/").unwrap_or(bare);
        is_release_tag(tag).then(|| (value.find(tag).unwrap_or(0), tag.len()))
    };
    let mut out = Vec::new();
    for (i, &(at, indent, key, value)) in lines.iter().enumerate() {
        // A flow mapping on one line: `with: { repository: BabelQueue/conformance, ref: v1.6.0 }`.
        if let Some(inner) = value.trim().strip_prefix('{').and_then(|v| v.trim_end().strip_suffix('}')) {
            let pairs: Vec<(&str, &str)> = inner.split(',').filter_map(|p| p.split_once(':')).collect();
            if pairs.iter().any(|(k, v)| k.trim() == "repository" && is_suite(v)) {
                for (_, v) in pairs.iter().filter(|(k, _)| k.trim() == "ref") {
                    let within = v.as_ptr() as usize - value.as_ptr() as usize;
                    if let Some((offset, len)) = tag_of(v) {
                        out.push((at + within + offset, &text[at + within + offset..][..len]));
                    }
                }
            }
            continue;
        }
        if key != "repository" || !is_suite(value) {
            continue;
        }
        // The mapping's other keys: outward from this line while the indentation holds.
        let siblings = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.1 >= indent)
            .chain(lines[i + 1..].iter().take_while(|l| l.1 >= indent))
            .filter(|l| l.1 == indent && l.2 == "ref");
        for &(at, _, _, value) in siblings {
            if let Some((offset, len)) = tag_of(value) {
                out.push((at + offset, &text[at + offset..][..len]));
            }
        }
    }
    out
}

/// `--branch vX.Y.Z`, `--branch=vX.Y.Z`, and git's short `-b vX.Y.Z` / `-bvX.Y.Z`, quoted or
/// not: (offset of the tag, tag).
fn branch_flags(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let flags = text
        .match_indices("--branch")
        .map(|(at, f)| (at, f.len(), true))
        .chain(text.match_indices("-b").map(|(at, f)| (at, f.len(), false)));
    for (at, len, long) in flags {
        // `-b` is a word of its own (not `--branch`'s tail, not `x-b`).
        if !long && text[..at].chars().next_back().is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let rest = &text[at + len..];
        let value = match rest.chars().next() {
            Some('=') if long => &rest[1..],
            Some(' ' | '\t') => rest.trim_start_matches([' ', '\t']),
            Some(_) if !long => rest,
            _ => continue,
        };
        let start = text.len() - value.len();
        let token = value.split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or_default();
        let quoted =
            token.len() >= 2 && (token.starts_with('"') || token.starts_with('\'')) && token.ends_with(&token[..1]);
        let (tag, offset) = if quoted { (&token[1..token.len() - 1], 1) } else { (token, 0) };
        if is_release_tag(tag) && !clones_another_repository(command_around(text, at)) {
            out.push((start + offset, tag));
        }
    }
    out
}

/// The workflow files of the repository at `repo` (a real path) that pins are read from, by
/// name, sorted: the regular `*.yml` / `*.yaml` files directly in [`WORKFLOWS`], which is
/// never reached through a symlink out of the repository (a symlinked file is not read).
pub(crate) fn workflow_files(repo: &Path) -> Vec<(String, std::path::PathBuf)> {
    let Ok((dir, true)) = resolve_inside(repo, WORKFLOWS, "") else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yml") || n.ends_with(".yaml"))
        .collect();
    files.sort();
    files.into_iter().map(|name| (format!("{WORKFLOWS}/{name}"), dir.join(&name))).collect()
}

/// Every pin in the workflows of the repository at `repo` (a real path), in file order.
pub(crate) fn read(repo: &Path) -> Vec<Pin> {
    let mut pins = Vec::new();
    for (file, path) in workflow_files(repo) {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        for Found { tag, span, by_sha, .. } in scan(&text) {
            pins.push(Pin { tag, file: file.clone(), span, by_sha });
        }
    }
    pins
}

/// The paths the workflows of the repository at `repo` give as the suite's action's
/// `vendored:` input (the copies its CI checks with `fetch --check`): a plain value, or each
/// line of a block scalar (`vendored: |`), trimmed, quotes and a trailing `/` removed, in file
/// order, without repeats. Comments name nothing.
pub(crate) fn vendored_inputs(repo: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |v: &str| {
        let v = v.trim().trim_matches(['"', '\'']).trim_end_matches('/').to_owned();
        if !v.is_empty() && !out.contains(&v) {
            out.push(v);
        }
    };
    for (_, path) in workflow_files(repo) {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let text = without_comments(&text);
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let body = line.trim_start();
            let Some(value) = body.strip_prefix("vendored:") else { continue };
            let value = value.trim();
            if value.starts_with('|') || value.starts_with('>') {
                let indent = line.len() - body.len();
                for next in &lines[i + 1..] {
                    let inner = next.trim_start();
                    if !inner.is_empty() && next.len() - inner.len() <= indent {
                        break;
                    }
                    push(inner);
                }
            } else {
                push(value);
            }
        }
    }
    out
}

/// Classify a copy's version against its pins and the canonical version.
pub fn classify(copy: Option<&str>, pins: &[Pin], canonical: &Version) -> PinStatus {
    let mut tags: Vec<&str> = pins.iter().map(|p| p.tag.as_str()).collect();
    tags.sort_unstable();
    tags.dedup();
    let pinned = match tags.as_slice() {
        [] => return PinStatus::Unpinned,
        [one] => Version::parse(&one[1..]).expect("scan only keeps SemVer tags"),
        _ => return PinStatus::Conflict,
    };
    match copy.and_then(|c| Version::parse(c).ok()) {
        Some(c) if c == pinned => match c.cmp(canonical) {
            Ordering::Equal => PinStatus::InSync,
            Ordering::Less => PinStatus::Behind,
            Ordering::Greater => PinStatus::Ahead,
        },
        _ => PinStatus::Mismatch,
    }
}

/// Tests' fixture: writes `text` as the workflow `file` of the repository at `repo`.
#[cfg(test)]
pub(super) fn write_workflow(repo: &Path, file: &str, text: &str) {
    std::fs::create_dir_all(repo.join(WORKFLOWS)).unwrap();
    std::fs::write(repo.join(WORKFLOWS).join(file), text).unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_finds_tags_in_every_spelling_and_ignores_non_versions() {
        let text = "\
jobs:
  conformance:
    steps:
      - run: git clone --depth 1 --branch v1.6.0 https://example.test/babelqueue/conformance.git suite
      - run: git clone --branch=\"v1.5.0\" x; git clone --branch 'v2.0.0-pre' y
      - run: git clone --branch main x && git clone --branch ${{ env.TAG }} y --branches v9.9.9
      - run: git clone --branch v1.6 x
";
        let found: Vec<_> = scan(text).into_iter().map(|f| (f.tag, f.span.line, f.span.column)).collect();
        assert_eq!(found, [("v1.6.0".to_owned(), 4, 43), ("v1.5.0".into(), 5, 34), ("v2.0.0-pre".into(), 5, 65)]);
    }

    #[test]
    fn scan_finds_the_action_at_release_tags_only() {
        let text = "\
steps:
  - uses: babelqueue/Conformance@v1.5.0
  - uses: \"BabelQueue/conformance@v1.6.0\" # the action
  - run: git clone --branch v1.4.0 x
  - uses: BabelQueue/conformance@v1
  - uses: BabelQueue/conformance@0123456789abcdef0123456789abcdef01234567
  - uses: BabelQueue/conformance@main
  - uses: other/BabelQueue/conformance@v9.9.9
  - uses: MyBabelQueue/conformance@v9.9.8
";
        let found: Vec<_> = scan(text).into_iter().map(|f| (f.tag, f.span.line, f.span.column)).collect();
        assert_eq!(found, [("v1.5.0".to_owned(), 2, 34), ("v1.6.0".into(), 3, 35), ("v1.4.0".into(), 4, 29)]);
    }

    /// Another project cloned at its own tag is no pin of this suite, nor is a commented-out
    /// line; a clone of this repository (a mirror too) or of a URL it cannot read is.
    #[test]
    fn scan_counts_only_clones_of_this_repository_and_no_comment() {
        let text = "\
steps:
  - run: git clone --depth 1 --branch v2.3.0 https://github.com/confluentinc/librdkafka
  - run: git clone https://github.com/tdlib/td.git /tmp/td --branch v1.5.0
  - run: |
      git clone --depth 1 \\
        --branch v1.6.0 \\
        https://github.com/BabelQueue/conformance.git suite
      git clone --branch v1.4.0 git@mirror.example:babelqueue-conformance suite2 && git clone --branch v9.0.0 https://x.test/other.git
      git clone --branch v1.3.0 \"$SUITE_URL\" suite3
      # git clone --branch v1.2.0 https://github.com/BabelQueue/conformance
  # - uses: BabelQueue/conformance@v1.1.0
";
        let found: Vec<_> = scan(text).into_iter().map(|f| (f.tag, f.span.line)).collect();
        assert_eq!(found, [("v1.6.0".to_owned(), 6), ("v1.4.0".into(), 8), ("v1.3.0".into(), 9)]);
    }

    /// Red team, stop 51: clones of the suite written with an expression still pin; other
    /// conformance suites, `gh repo clone`, PowerShell continuations and trailing comments do not.
    #[test]
    fn expressions_pin_and_other_projects_and_trailing_comments_do_not() {
        let text = "\
steps:
  - run: git clone --depth 1 --branch v1.5.0 \"${SUITE_URL:-https://github.com/BabelQueue/conformance}\" suite
  - run: git clone --depth 1 --branch v1.5.1 https://github.com/${{ env.SUITE_REPO }} suite
  - run: git clone --branch v1.5.2 https://x-access-token:${{ secrets.GH_TOKEN }}@github.com/BabelQueue/conformance s
  - run: git clone --branch v1.0.0 https://github.com/cloudevents/conformance
  - run: git clone --branch v1.0.1 https://github.com/GoogleCloudPlatform/functions-framework-conformance.git
  - run: gh repo clone confluentinc/librdkafka -- --depth 1 --branch v2.3.0
  - run: gh repo clone BabelQueue/conformance -- --branch v1.5.3
  - shell: pwsh
    run: |
      git clone --depth 1 --branch v2.3.1 `
        https://github.com/confluentinc/librdkafka.git
  - run: git clone --branch v1.6.0 https://github.com/BabelQueue/conformance suite  # was --branch v1.5.9
  - uses: BabelQueue/conformance@v1.6.0  # bump to BabelQueue/conformance@v1.7.0 later
  - run: echo ' # a quoted hash, not a comment' && git clone --branch v1.5.4 \"$URL\"
";
        let found: Vec<_> = scan(text).into_iter().map(|f| (f.tag, f.span.line)).collect();
        assert_eq!(
            found,
            [
                ("v1.5.0".to_owned(), 2),
                ("v1.5.1".into(), 3),
                ("v1.5.2".into(), 4),
                ("v1.5.3".into(), 8),
                ("v1.6.0".into(), 13),
                ("v1.6.0".into(), 14),
                ("v1.5.4".into(), 15),
            ]
        );
    }

    /// `actions/checkout` of the suite at a tag pins it, the `ref` above or below `repository`
    /// in the same `with:` mapping; another repository's checkout, or a ref of another step,
    /// does not.
    #[test]
    fn a_checkout_of_the_suite_at_a_tag_pins_it() {
        let text = "\
steps:
  - uses: actions/checkout@v4
    with:
      repository: BabelQueue/conformance
      path: suite
      ref: v1.6.0
  - uses: actions/checkout@v4
    with:
      ref: 'v1.5.0'
      repository: \"babelqueue/Conformance\"
  - uses: actions/checkout@v4
    with:
      repository: confluentinc/librdkafka
      ref: v2.3.0
  - uses: actions/checkout@v4
    with:
      repository: BabelQueue/conformance
  - uses: actions/checkout@v4
    with:
      ref: v9.9.9
";
        let found: Vec<_> = scan(text).into_iter().map(|f| (f.tag, f.span.line, f.span.column)).collect();
        assert_eq!(found, [("v1.6.0".to_owned(), 6, 12), ("v1.5.0".into(), 9, 13)]);
    }

    /// Second red team, stop 51: git's `-b`, a credential in another project's URL, an
    /// apostrophe before a comment, a mention outside `uses:`, another action's SHA comment, a
    /// checkout written as a flow mapping or with `refs/tags/`.
    #[test]
    fn short_flags_credentials_apostrophes_mentions_and_flow_mappings() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let text = format!(
            "\
steps:
  - run: git clone --depth 1 -b v1.6.1 https://github.com/BabelQueue/conformance.git suite
  - run: git clone -bv1.6.2 https://github.com/BabelQueue/conformance.git suite
  - run: git clone --depth 1 --branch v2.3.0 https://x-access-token:${{{{ secrets.GH_TOKEN }}}}@github.com/acme/kafka-fixtures.git f
  - name: Check the SDK's vendored copy  # was: uses: BabelQueue/conformance@v1.5.0
  - run: echo \"::notice::BabelQueue/conformance@v1.7.0 is out\"
  - uses: actions/checkout@{sha} # v4.1.1 git clone --branch v1.4.0 https://github.com/BabelQueue/conformance
  - uses: actions/checkout@v4
    with: {{ repository: BabelQueue/conformance, ref: v1.6.3, path: suite }}
  - uses: actions/checkout@v4
    with:
      repository: BabelQueue/conformance
      ref: refs/tags/v1.6.4
  - run: git clone --depth 1 --branch v1.6.5 https://x-access-token:${{{{ secrets.T }}}}@github.com/BabelQueue/conformance s
"
        );
        let found: Vec<_> = scan(&text).into_iter().map(|f| (f.tag, f.span.line)).collect();
        assert_eq!(
            found,
            [
                ("v1.6.1".to_owned(), 2),
                ("v1.6.2".into(), 3),
                ("v1.6.3".into(), 9),
                ("v1.6.4".into(), 13),
                ("v1.6.5".into(), 14),
            ]
        );
    }

    /// `@<sha> # vX.Y.Z`, as the README recommends and Dependabot writes, pins the tag its
    /// comment names; a SHA alone, or a comment that names no release tag, pins nothing.
    #[test]
    fn scan_reads_the_tag_beside_a_commit_sha() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let text = format!(
            "steps:\n  - uses: BabelQueue/conformance@{sha} # v1.6.0\n  - uses: BabelQueue/conformance@{sha}\n  - uses: \"BabelQueue/conformance@{sha}\" #v1.5.0 pinned\n  - uses: BabelQueue/conformance@{sha} # main\n"
        );
        let found: Vec<_> = scan(&text).into_iter().map(|f| (f.tag, f.span.line, f.span.column)).collect();
        assert_eq!(found, [("v1.6.0".to_owned(), 2, 77), ("v1.5.0".into(), 4, 78)]);
        assert!(scan(&text).iter().all(|f| f.by_sha));
        // Renovate's forms, and a bare version.
        for (comment, column) in [("tag=v1.4.0", 81), ("renovate: tag=v1.4.0", 91), ("pin @v1.4.0", 82), ("1.4.0", 77)]
        {
            let text = format!("  - uses: BabelQueue/conformance@{sha} # {comment}\n");
            let found: Vec<_> = scan(&text).into_iter().map(|f| (f.tag, f.span.column, f.by_sha)).collect();
            assert_eq!(found, [("v1.4.0".to_owned(), column, true)], "{comment}");
        }
    }

    /// Where a comment starts and where a command ends, at each edge (gate mutation, stop
    /// 60: each line below is one a lenient reader got wrong and every other test passed).
    #[test]
    fn comment_and_command_edges() {
        let suite = "https://github.com/BabelQueue/conformance";
        let tags = |text: &str| scan(text).into_iter().map(|f| f.tag).collect::<Vec<_>>();
        let none: [&str; 0] = [];
        // A quote closes, so a `#` after it starts a comment again.
        assert_eq!(tags(&format!("  - run: echo 'x' # git clone --branch v1.2.0 {suite}\n")), none);
        // An apostrophe inside a word opens no quote.
        assert_eq!(tags(&format!("  - run: echo the SDK's copy # git clone --branch v1.2.1 {suite}\n")), none);
        // A `#` inside a word starts no comment.
        assert_eq!(tags(&format!("  - run: echo C#; git clone --branch v1.2.2 {suite} s\n")), ["v1.2.2"]);
        // `;`, `||` and `&&` end the other project's clone before this suite's.
        for sep in [";", "||", "&&"] {
            let text =
                format!("  - run: git clone --branch v9.0.1 https://x.test/other.git {sep} git clone {suite} s\n");
            assert_eq!(tags(&text), none, "{sep}");
        }
        // A lone `&` (a redirection's `2>&1`) ends no command.
        assert_eq!(tags("  - run: git clone --branch v9.0.2 2>&1 https://x.test/other.git\n"), none);
        // A separator or an `&` first in the text.
        assert_eq!(tags(&format!("\ngit clone --branch v1.2.3 {suite}")), ["v1.2.3"]);
        assert_eq!(tags(&format!("&x git clone --branch v1.2.4 {suite}")), ["v1.2.4"]);
        // A continuation glued to the URL is no part of it (POSIX `\\`, PowerShell's backtick).
        for cont in ["\\", "`"] {
            let text = format!("  - run: |\n      git clone --branch v1.2.5 {suite}{cont}\n        suite\n");
            assert_eq!(tags(&text), ["v1.2.5"], "{cont}");
        }
        // A repository written as a path ending `.git` is a repository.
        assert_eq!(tags("  - run: git clone --branch v9.0.3 /srv/mirrors/acme-other.git s\n"), none);
        // Only a full commit SHA takes its tag from the comment: a branch or a short SHA does not.
        for r in ["main", "0123456", "0123456789abcdef0123456789abcdef0123456g"] {
            assert_eq!(tags(&format!("  - uses: BabelQueue/conformance@{r} # v1.6.0\n")), none, "{r}");
        }
        // A checkout whose keys open a list item, at the margin or indented: the item's `- `
        // is not part of the key, and the keys after it line up with the first.
        let text = "steps:\n- with: { repository: BabelQueue/conformance, ref: v1.6.0 }\n  uses: actions/checkout@v4\n";
        let found: Vec<_> = scan(text).into_iter().map(|f| (f.tag, f.span.line, f.span.column)).collect();
        assert_eq!(found, [("v1.6.0".to_owned(), 2, 52)]);
        let text = "    with:\n      - repository: BabelQueue/conformance\n        ref: v1.6.1\n";
        let found: Vec<_> = scan(text).into_iter().map(|f| (f.tag, f.span.line, f.span.column)).collect();
        assert_eq!(found, [("v1.6.1".to_owned(), 3, 14)]);
        // A flow mapping pins only with this suite's repository; a quoted ref is read inside
        // its quotes.
        assert_eq!(tags("    with: { repository: acme/other, ref: v9.0.5 }\n"), none);
        let text = "    with: { repository: BabelQueue/conformance, ref: 'v1.6.2' }\n";
        let found: Vec<_> = scan(text).into_iter().map(|f| (f.tag, f.span.column)).collect();
        assert_eq!(found, [("v1.6.2".to_owned(), 55)]);
        // A `ref` deeper than `repository` belongs to another mapping.
        let text = "    with:\n      repository: BabelQueue/conformance\n      options:\n        ref: v9.0.6\n";
        assert_eq!(tags(text), none);
        // `-b` only as a word of its own and never with `=`; `--branch` only as a whole flag;
        // a tag in mismatched quotes is no tag.
        for flag in ["x-b v1.2.6", "-b=v1.2.7", "--branchv1.2.8", "--branch \"v1.2.9'", "--branch xv1.3.0x"] {
            assert_eq!(tags(&format!("  - run: git clone {flag} {suite}\n")), none, "{flag}");
        }
        // A credential is everything up to the last `@` of the authority.
        assert_eq!(tags("  - run: git clone --branch v9.0.4 https://user:pa$@github.com/acme/other.git\n"), none);
    }

    /// The `vendored:` inputs a repository's workflows give: plain, quoted, with a trailing
    /// `/`, a block scalar's lines up to the next line indented no deeper than its key (blank
    /// lines inside kept going), each once, comments and empty values naming nothing; and the
    /// pins of the same files, by file.
    #[test]
    fn vendored_inputs_and_pins_are_read_from_the_workflows() {
        let repo = tempfile::tempdir().unwrap();
        let a = "\
jobs:
  c:
    steps:
      - uses: BabelQueue/conformance@v1.6.0
        with:
          vendored: 'tests/a/'
      - uses: BabelQueue/conformance@v1.5.0
        with:
          vendored: |
            tests/b

            tests/c
          strict: true
      - with:
          vendored: >
            tests/a
        uses: x
      # vendored: tests/commented
      - with:
          vendored:
        uses: y
";
        write_workflow(repo.path(), "a.yml", a);
        write_workflow(repo.path(), "b.yaml", "          vendored: tests/d\n");
        write_workflow(repo.path(), "notes.txt", "vendored: tests/not-a-workflow\n");
        assert_eq!(vendored_inputs(repo.path()), ["tests/a", "tests/b", "tests/c", "tests/d"]);
        let pins: Vec<_> = read(repo.path()).into_iter().map(|p| (p.file, p.tag, p.span.line)).collect();
        let file = format!("{WORKFLOWS}/a.yml");
        assert_eq!(pins, [(file.clone(), "v1.6.0".to_owned(), 4), (file, "v1.5.0".into(), 7)]);
        assert_eq!(read(repo.path())[0].version(), "1.6.0");
    }

    fn pins(tags: &[&str]) -> Vec<Pin> {
        tags.iter()
            .map(|t| Pin { tag: (*t).into(), file: "ci.yml".into(), span: Span { line: 1, column: 1 }, by_sha: false })
            .collect()
    }

    #[test]
    fn classify_covers_every_relation() {
        let v = Version::parse("1.6.0").unwrap();
        assert_eq!(classify(Some("1.6.0"), &pins(&["v1.6.0", "v1.6.0"]), &v), PinStatus::InSync);
        assert_eq!(classify(Some("1.5.0"), &pins(&["v1.5.0"]), &v), PinStatus::Behind);
        assert_eq!(classify(Some("1.7.0"), &pins(&["v1.7.0"]), &v), PinStatus::Ahead);
        assert_eq!(classify(Some("1.6.0"), &pins(&["v1.5.0"]), &v), PinStatus::Mismatch);
        assert_eq!(classify(None, &pins(&["v1.6.0"]), &v), PinStatus::Mismatch);
        assert_eq!(classify(Some("garbage"), &pins(&["v1.6.0"]), &v), PinStatus::Mismatch);
        assert_eq!(classify(Some("1.6.0"), &pins(&["v1.5.0", "v1.6.0"]), &v), PinStatus::Conflict);
        assert_eq!(classify(Some("1.6.0"), &[], &v), PinStatus::Unpinned);
        let pre = Version::parse("1.7.0-pre").unwrap();
        assert_eq!(classify(Some("1.6.0"), &pins(&["v1.6.0"]), &pre), PinStatus::Behind);
    }
}
