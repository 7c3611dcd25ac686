//! Escaping untrusted strings for a terminal and for GitHub-flavoured Markdown: the one home of
//! both, used by every reporter (the findings' job summary, `report`'s Markdown); and the one
//! home of showing a URL without its password ([`redact_url`]: a Redis URL, a release mirror),
//! so that no log or CI annotation carries a credential.
//!
//! Invariants: text that came from an input file (a results file, the manifest, a fixture, a
//! vendored copy) never reaches a terminal with a character that a terminal or a log viewer
//! interprets: every [`is_unsafe_char`] is written as a JSON-style `\uXXXX` escape (`\u001b`
//! for ESC), visible and inert. Everything else, including non-ASCII letters, is kept as is;
//! except in a token that is ASCII when well-formed (a version, [`token_safe`]), where every
//! character outside printable ASCII is escaped.
//! In Markdown, such text goes through [`markdown_text`] (free text) or [`markdown_code`] /
//! [`markdown_code_cell`] (names and ids, as code spans), so no input can open a link (a bare
//! `https://` or `www.` one too), an image, an HTML tag, a mention, a formula, a table cell or
//! a new line; and there too a bidirectional control or a
//! line or paragraph separator is written as a visible `\uXXXX`, so no input can reorder the
//! rest of its line (a verdict after a name).
//! Every JSON document bqsuite writes goes through [`json_text`], so no such character stands
//! raw in it either; and every line bqsuite writes on stderr (`note!`) through
//! [`terminal_safe_lines`], so no message carries one whatever it quotes.

use std::borrow::Cow;
use std::fmt::Write;

/// `url` without its credentials, each replaced by `***`: the user name and the password
/// (a token is often the user name, with a dummy password: `TOKEN:x-oauth-basic@`), and the
/// whole query and fragment when a query parameter names one (`pass`, `password`, `user`,
/// `token`, `sig`, …, as a Redis unix-socket URL or a pre-signed mirror URL carries them). A URL
/// that does not parse, or parses but holds an `@` outside a user and password it was read with
/// (a mistyped `redis:/:pw@host`, a password with an unencoded `/` or `?`), loses whatever sits
/// between its scheme (`://`, else the first `:` before the `@`, else the start) and its last
/// `@`, and its whole query. An `@` in the path of a `file:` URL or of a URL with a host that
/// is not Redis's (`…/node_modules/@scope/x`, `…/job@2/…`) is shown as it is.
///
/// What it returns is only ever shown, so it is also terminal-safe ([`terminal_safe`]): a URL
/// with an escape sequence in its query or host cannot drive the terminal from a message.
pub fn redact_url(url: &str) -> String {
    terminal_safe(&without_credentials(url)).into_owned()
}

fn without_credentials(url: &str) -> String {
    let parsed = url::Url::parse(url).ok().filter(|p| !stray_at(p, url));
    let Some(mut parsed) = parsed else {
        let Some(at) = url.rfind('@') else {
            return url.split_once(['?', '#']).map_or(url.to_owned(), |(before, _)| format!("{before}?***"));
        };
        let head = &url[..at];
        let start = head.find("://").map(|s| s + 3).or_else(|| head.find(':').map(|s| s + 1)).unwrap_or(0);
        let tail = &url[at..];
        let tail = tail.split_once(['?', '#']).map_or(tail.to_owned(), |(before, _)| format!("{before}?***"));
        return format!("{}***{tail}", &url[..start]);
    };
    let secret = |key: &str| {
        let key = key.to_ascii_lowercase();
        ["pass", "pwd", "token", "secret", "auth", "key", "user", "cred", "sig"].iter().any(|s| key.contains(s))
    };
    let in_query = parsed.query_pairs().any(|(k, _)| secret(&k));
    if parsed.password().is_none() && parsed.username().is_empty() && !in_query {
        // Nothing to hide: shown as given, not as the URL parser would normalise it.
        return url.to_owned();
    }
    if parsed.password().is_some() {
        let _ = parsed.set_password(Some("***"));
    }
    if !parsed.username().is_empty() {
        let _ = parsed.set_username("***");
    }
    if in_query {
        // The whole of it: a value with an unencoded `&` or `#` would leave its rest behind.
        parsed.set_query(Some("***"));
        parsed.set_fragment(None);
    }
    parsed.into()
}

/// Whether parsed `p` (from `url`) leaves an `@` of `url` outside its user and password, so
/// that what comes before it may be a credential the parser took for a path, a port or a
/// query. An `@` in a path is ordinary in a `file:` URL and in one with a host, unless the URL
/// is Redis's, whose path is a database number.
fn stray_at(p: &url::Url, url: &str) -> bool {
    let Some(at) = url.rfind('@') else { return false };
    let with_userinfo = !p.username().is_empty() || p.password().is_some();
    // The last `@` ends the user and password when the host follows it.
    let ends_userinfo = with_userinfo && p.host_str().is_some_and(|h| url[at + 1..].starts_with(h));
    if ends_userinfo || p.scheme() == "file" {
        return false;
    }
    p.host().is_none() || p.scheme().starts_with("redis") || p.scheme() == "unix"
}

/// Characters a terminal or log viewer may act on instead of showing: the C0 controls (TAB, LF
/// and CR included), DEL, the C1 controls (U+0080–U+009F, among them the 8-bit CSI and OSC), the
/// line and paragraph separators (U+2028, U+2029) and the bidirectional formatting controls
/// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorder what is displayed.
/// Characters that only show as nothing (U+200B, U+FEFF, …) are kept: they act on nothing, and
/// U+200C / U+200D are parts of Persian words and emoji sequences.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// A character a reader cannot see for what it is: a control, any white space but U+0020 (a
/// no-break, em or ideographic space, the line and paragraph separators), a zero-width or
/// invisible format character (U+200B–U+200F, U+2060–U+2064, the deprecated format controls
/// U+206A–U+206F, U+FEFF, U+180E, the soft hyphen U+00AD, the combining grapheme joiner U+034F,
/// the tag characters U+E0000–U+E007F), a character that draws as blank space without being
/// white space (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the Khmer inherent vowels
/// U+17B4, U+17B5, the blank Braille pattern U+2800) or a bidirectional control
/// ([`is_unsafe_char`]). Two strings that differ only in such characters look the same when
/// printed.
pub fn is_hidden(c: char) -> bool {
    c != ' '
        && (c.is_control()
            || c.is_whitespace()
            || is_unsafe_char(c)
            || matches!(
                c,
                '\u{200B}'..='\u{200F}'
                    | '\u{2060}'..='\u{2064}'
                    | '\u{206A}'..='\u{206F}'
                    | '\u{FEFF}'
                    | '\u{180E}'
                    | '\u{00AD}'
                    | '\u{034F}'
                    | '\u{E0000}'..='\u{E007F}'
                    | '\u{115F}'
                    | '\u{1160}'
                    | '\u{3164}'
                    | '\u{FFA0}'
                    | '\u{17B4}'
                    | '\u{17B5}'
                    | '\u{2800}'
            ))
}

/// `text` with every [`is_hidden`] character written `\u{XXXX}` (its code point, four hex digits
/// or more; borrowed when there is none), and every other character, a backslash included, as
/// itself: the one notation of the section pages, `explain` and a failing case's reason, so a
/// reason that says `"a", expected "a\u{3000}"` shows the difference it names.
pub fn visible(text: &str) -> Cow<'_, str> {
    escape_where(text, is_hidden, Notation::Braced)
}

/// `s` with every [`is_unsafe_char`] written as `\uXXXX` (borrowed when there is none).
pub fn terminal_safe(s: &str) -> Cow<'_, str> {
    escape_where(s, is_unsafe_char, Notation::Json)
}

/// Serialised JSON `json` with every [`is_unsafe_char`] that JSON lets through raw written as
/// its `\uXXXX` escape: DEL, the C1 controls, the line and paragraph separators and the
/// bidirectional controls (serde_json escapes only the C0 controls, and those are the ones
/// that may stand between tokens). Such a character only ever stands inside a string, where
/// the escape means the same character: the document is the same JSON, and its text is inert
/// on a terminal or in a log.
pub fn json_inert(json: &str) -> Cow<'_, str> {
    escape_where(json, |c| is_unsafe_char(c) && (c == '\u{7f}' || !c.is_ascii()), Notation::Json)
}

/// `value` as the pretty JSON document bqsuite outputs, with a trailing newline, made
/// [`json_inert`]: every JSON document a command writes (a report, a results file) goes through
/// it.
pub fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("a JSON document always serialises");
    s.push('\n');
    json_inert(&s).into_owned()
}

/// `word` as one word of a POSIX shell command a message suggests (`bqsuite validate --suite
/// DIR`): as it is when no shell treats any of it specially, otherwise quoted (shlex); a word
/// shlex cannot quote (a NUL) as it is. Hidden characters are left to [`terminal_safe`].
pub fn shell_word(word: &str) -> Cow<'_, str> {
    shlex::try_quote(word).unwrap_or(Cow::Borrowed(word))
}

/// A path as one word of a suggested command: [`shell_word`], and `./` before a relative path
/// that starts with `-`, which the command would otherwise read as an option.
pub fn path_word(path: &str) -> String {
    if path.starts_with('-') { shell_word(&format!("./{path}")).into_owned() } else { shell_word(path).into_owned() }
}

/// How [`escape_where`] writes a character: JSON's `\uXXXX` (a character beyond U+FFFF takes
/// more digits, not a surrogate pair: it is only ever read), or `\u{XXXX}`.
#[derive(Clone, Copy)]
enum Notation {
    Json,
    Braced,
}

/// `s` with every character `pick` selects written by its code point in `notation` (borrowed
/// when there is none).
fn escape_where(s: &str, pick: impl Fn(char) -> bool, notation: Notation) -> Cow<'_, str> {
    if !s.chars().any(&pick) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !pick(c) {
            out.push(c);
        } else if let Notation::Json = notation {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
        }
    }
    Cow::Owned(out)
}

/// `text` with every [`is_unsafe_char`] but the line feeds that end its lines escaped, and
/// every line made [`workflow_inert`]: for multi-line output (a diff, a report) whose lines
/// hold strings from input files.
pub fn terminal_safe_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, nl) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        out.push_str(&workflow_inert(&terminal_safe(body)));
        out.push_str(nl);
    }
    out
}

/// `text` as no GitHub Actions runner reads a workflow command in it: the runner takes a line
/// that starts with `::` once its leading white space is trimmed (`  ::error::x` too), and the
/// older form `##[command]` anywhere in a line. So each line's leading `::` is written
/// `\u003a:` and every `##[` is written `#\u0023[` (borrowed when there is none). For lines
/// that carry text from an input (a file's diff, a results file's `sdk`, an adapter's words);
/// the annotations bqsuite writes itself are the only lines that may start with `::`.
pub fn workflow_inert(text: &str) -> Cow<'_, str> {
    let leading = |l: &str| l.trim_start().starts_with("::");
    if !text.contains("##[") && !text.split(['\n', '\r']).any(leading) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    // A carriage return ends a line for the runner as a line feed does.
    for line in text.split_inclusive(['\n', '\r']) {
        let rest = line.trim_start();
        out.push_str(&line[..line.len() - rest.len()]);
        let rest = match rest.strip_prefix("::") {
            Some(r) => {
                out.push_str("\\u003a:");
                r
            }
            None => rest,
        };
        out.push_str(&no_legacy_commands(rest));
    }
    Cow::Owned(out)
}

/// `text` (bqsuite's own standard output, annotations included) with every `##[` written
/// `#\u0023[`: the older workflow-command form, which a runner reads anywhere in a line, is
/// never one bqsuite means (a line-leading `::` is left to the lines' makers: an annotation
/// starts with one).
pub fn no_legacy_commands(text: &str) -> Cow<'_, str> {
    if text.contains("##[") { Cow::Owned(text.replace("##[", "#\\u0023[")) } else { Cow::Borrowed(text) }
}

/// Escape free text for Markdown (a table cell, a list item, a heading or a paragraph): every
/// character that could start markup is backslash-escaped (GFM removes the backslash before any
/// ASCII punctuation, so the text shows as it was), line breaks and tabs become spaces, other
/// control characters U+FFFD, and the bidirectional controls and separators ([`is_invisible_layout`])
/// a visible `\uXXXX` (its backslash escaped). Nor does GitHub's rendering make a link or
/// formula of it: `@` (a mention, an e-mail address) and `$` (math) are escaped, and so are the
/// `:` after `http`, `https` or `ftp` and the `.` after `www`, which start GFM's bare autolinks.
pub fn markdown_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let after = |i: usize, word: &[u8]| i >= word.len() && s.as_bytes()[i - word.len()..i].eq_ignore_ascii_case(word);
    for (i, c) in s.char_indices() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '&' | '~' | '#' | '!' | '@' | '$' => {
                out.push('\\');
                out.push(c);
            }
            ':' if after(i, b"http") || after(i, b"https") || after(i, b"ftp") => out.push_str("\\:"),
            '.' if after(i, b"www") => out.push_str("\\."),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => out.push('\u{FFFD}'),
            c if is_invisible_layout(c) => {
                let _ = write!(out, "\\\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// The [`is_unsafe_char`]s that are not controls: the line and paragraph separators and the
/// bidirectional formatting controls. Markup does not stop them reordering or breaking the text
/// around them, so the Markdown and HTML renderers write them as a visible `\uXXXX`.
pub fn is_invisible_layout(c: char) -> bool {
    is_unsafe_char(c) && !c.is_control()
}

/// A code span holding `s` verbatim, for anywhere but a table cell (a heading, a line of text):
/// there GFM shows a backslash in a code span as it is, so `|` is left alone.
pub fn markdown_code(s: &str) -> String {
    code_span(s, false)
}

/// A code span holding `s` verbatim inside a table cell: `|` is written `\|`, which GFM's table
/// parser turns back into `|` before the span is read, so the cell stays whole.
pub fn markdown_code_cell(s: &str) -> String {
    code_span(s, true)
}

fn code_span(s: &str, in_cell: bool) -> String {
    if s.is_empty() {
        return "(empty)".into();
    }
    let mut flat = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            c if c.is_control() => flat.push(' '),
            c if is_invisible_layout(c) => {
                let _ = write!(flat, "\\u{:04x}", u32::from(c));
            }
            c => flat.push(c),
        }
    }
    let flat = if in_cell { flat.replace('|', "\\|") } else { flat };
    let longest = flat.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if flat.starts_with('`') || flat.ends_with('`') || flat.trim().is_empty() { " " } else { "" };
    format!("{fence}{pad}{flat}{pad}{fence}")
}

/// `s` with every character outside printable ASCII (U+0021–U+007E) written as `\uXXXX`
/// (borrowed when there is none): for a token that is ASCII when it is well-formed, such as the
/// suite version in a summary line. A byte-order mark, a no-break space or a look-alike letter
/// in it is then visible, where [`terminal_safe`] keeps what a terminal merely shows.
pub fn token_safe(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| !c.is_ascii_graphic(), Notation::Json)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde_json lets DEL, the C1 controls, U+2028/U+2029 and the bidirectional controls through
    /// raw; [`json_text`] escapes each, keeps the layout's line feeds, and means the same value.
    #[test]
    fn a_json_document_carries_no_raw_c1_separator_or_bidi_control_and_means_the_same() {
        let value = serde_json::json!({"k\u{202e}": ["\u{9b}31m\u{9d}\u{2028}\u{2029}\u{61c}\u{7f}é\u{1b}\n", 1]});
        let text = json_text(&value);
        assert!(!text.chars().any(|c| c != '\n' && is_unsafe_char(c)), "{text:?}");
        assert!(
            text.contains(r#""k\u202e""#) && text.contains(r#""\u009b31m\u009d\u2028\u2029\u061c\u007fé\u001b\n""#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
        assert!(text.ends_with("]\n}\n") && text.matches('\n').count() == 6, "{text:?}");
    }

    /// Red team of stop 53: the runner trims a line's leading white space before it looks for
    /// `::`, reads `##[command]` anywhere in a line, and ends a line at a carriage return.
    #[test]
    fn no_line_reads_as_a_workflow_command() {
        assert_eq!(workflow_inert("plain text\n"), "plain text\n");
        assert!(matches!(workflow_inert("a::b\n"), Cow::Borrowed(_)));
        assert_eq!(workflow_inert("  ::error::x\n::warning::y"), "  \\u003a:error::x\n\\u003a:warning::y");
        assert_eq!(workflow_inert("+ v1.0##[error]forged\n"), "+ v1.0#\\u0023[error]forged\n");
        assert_eq!(workflow_inert("path x\r::error file=a::b"), "path x\r\\u003a:error file=a::b");
        assert_eq!(terminal_safe_lines(" ##[stop-commands]t\n"), " #\\u0023[stop-commands]t\n");
        assert_eq!(no_legacy_commands("::error::a ##[x]"), "::error::a #\\u0023[x]");
    }

    /// Red team M1 of stop 44: a URL with nothing to hide was shown as given, an escape
    /// sequence in its query included.
    #[test]
    fn a_url_is_shown_terminal_safe() {
        assert_eq!(redact_url("redis://127.0.0.1:6403?x=\u{1b}[31mRED"), "redis://127.0.0.1:6403?x=\\u001b[31mRED");
        assert!(!redact_url("redis://:pw@h/\u{1b}]0;x\u{7}").contains(['\u{1b}', '\u{7}']));
    }

    #[test]
    fn urls_are_shown_without_credentials() {
        assert_eq!(redact_url("https://user:s3cret@mirror.example/v1.6.0"), "https://***:***@mirror.example/v1.6.0");
        assert_eq!(redact_url("https://ghp_TOKEN@mirror.example/x"), "https://***@mirror.example/x");
        assert_eq!(redact_url("http://TOKEN123:x-oauth-basic@h/x"), "http://***:***@h/x");
        assert_eq!(redact_url("redis://:pw@127.0.0.1:6379/0"), "redis://:***@127.0.0.1:6379/0");
        // A query that names a credential is hidden whole, fragment too (second red team: a
        // value with an unencoded `&` or `#` left its rest behind).
        assert_eq!(redact_url("unix:///tmp/r.sock?db=2&pass=S3CRET"), "unix:///tmp/r.sock?***");
        assert_eq!(redact_url("redis+unix:///x.sock?pass=S&user=bob&password=P"), "redis+unix:///x.sock?***");
        assert_eq!(redact_url("unix:///s?pass=SEK#RET"), "unix:///s?***");
        assert_eq!(redact_url("unix:///s?pass=SEK&RET"), "unix:///s?***");
        // A pre-signed mirror URL.
        assert_eq!(redact_url("https://h/rel?X-Amz-Signature=SEKRET&v=1"), "https://h/rel?***");
        assert_eq!(redact_url("https://h/rel?sig=SEKRET"), "https://h/rel?***");
        // A password with an unencoded `/` or `?`, a token before one, no host: the parser
        // reads a port, a path or a query, and the @ says what it was.
        assert_eq!(redact_url("redis://default:1234/SEKRET@h"), "redis://***@h");
        assert_eq!(redact_url("redis://TOKEN?x@h"), "redis://***@h");
        assert_eq!(redact_url("redis://TOKEN/x@h"), "redis://***@h");
        assert_eq!(redact_url("redis:///SEKRET@h"), "redis://***@h");
        assert_eq!(redact_url("redis://:SEK?RET@h"), "redis://***@h");
        assert_eq!(redact_url("redis://:SEK@[::1]:6379/0"), "redis://:***@[::1]:6379/0");
        assert_eq!(redact_url("file:///srv/mirror"), "file:///srv/mirror");
        assert_eq!(redact_url("https://mirror.example/x?v=1"), "https://mirror.example/x?v=1");
        assert_eq!(redact_url("HTTP://Mirror.example"), "HTTP://Mirror.example", "as given when nothing is hidden");
        assert_eq!(redact_url("not a url://:secret@h"), "not a url://***@h");
        assert_eq!(redact_url("not a url:///s?pass=secret"), "not a url:///s?***");
        // Mistyped schemes (red team): the password is still hidden.
        assert_eq!(redact_url("redis:/:SEKRET@host"), "redis:***@host");
        assert_eq!(redact_url("redis//:SEKRET@host"), "redis//:***@host");
        assert_eq!(redact_url("https://mirror.example/@scope/x"), "https://mirror.example/@scope/x", "an @ in a path");
        // Review: a scheme-less URL with a port, and paths with an @ that hold no credential.
        assert_eq!(redact_url("SEKRET@localhost:6379"), "***@localhost:6379");
        assert_eq!(redact_url("SEKRET@[::1]:6379"), "***@[::1]:6379");
        assert_eq!(
            redact_url("file:///home/u/node_modules/@babelqueue/suite"),
            "file:///home/u/node_modules/@babelqueue/suite"
        );
        assert_eq!(redact_url("file:///var/jenkins/proj@2/x"), "file:///var/jenkins/proj@2/x");
        // A Redis socket path with an @ is hidden up to it: Redis URLs carry credentials.
        assert_eq!(redact_url("unix:///run/redis@x.sock"), "unix://***@x.sock");
        assert_eq!(
            redact_url("file:///C:/work/node_modules/@babelqueue/conformance"),
            "file:///C:/work/node_modules/@babelqueue/conformance"
        );
        assert_eq!(redact_url("file:/srv/mirror/@babelqueue/rel"), "file:/srv/mirror/@babelqueue/rel");
        assert_eq!(redact_url("redis:///:SEKRET@host"), "redis://***@host");
        assert_eq!(redact_url("user:SEKRET@host"), "user:***@host");
        assert_eq!(redact_url("SEKRET@host"), "***@host");
    }

    #[test]
    fn hidden_characters_are_shown_by_code_point_and_the_rest_is_kept() {
        assert!(matches!(visible("a b/é\\u"), Cow::Borrowed(_)));
        assert_eq!(
            visible("\u{a0}x\u{3000}\u{2003}\u{200b}\u{feff}\u{202e}\u{2066}\n\u{1680}"),
            "\\u{00a0}x\\u{3000}\\u{2003}\\u{200b}\\u{feff}\\u{202e}\\u{2066}\\u{000a}\\u{1680}"
        );
        // Characters that draw as nothing or as blank space without being white space.
        assert_eq!(
            visible("a\u{ad}b\u{3164}c\u{206a}d\u{e0020}e\u{2800}f\u{34f}"),
            "a\\u{00ad}b\\u{3164}c\\u{206a}d\\u{e0020}e\\u{2800}f\\u{034f}"
        );
        // Letters, marks and symbols are themselves, whatever their script.
        assert_eq!(visible("e\u{301} 日本 🙂 ü"), "e\u{301} 日本 🙂 ü");
    }

    #[test]
    fn controls_become_visible_escapes() {
        assert_eq!(terminal_safe("evil\u{1b}[2J\nfake: Compatible"), "evil\\u001b[2J\\u000afake: Compatible");
        assert_eq!(
            terminal_safe("\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7}"),
            "\\u001b]8;;http://x\\u0007link\\u001b]8;;\\u0007"
        );
        assert_eq!(terminal_safe("a\rb\tc\u{7f}\u{9b}\u{202e}"), "a\\u000db\\u0009c\\u007f\\u009b\\u202e");
        assert!(matches!(terminal_safe("ğüş 😀 / \\ \"q\""), Cow::Borrowed(_)));
        // The Arabic letter mark is a bidi control too; what only shows as nothing is kept.
        assert_eq!(terminal_safe("a\u{200b}b\u{200d}c\u{feff}e\u{61c}f"), "a\u{200b}b\u{200d}c\u{feff}e\\u061cf");
        assert_eq!(terminal_safe_lines("a\u{1b}\nb\r\n\nc"), "a\\u001b\nb\\u000d\n\nc");
    }

    #[test]
    fn markdown_escapes_markup_and_keeps_cells_whole() {
        assert_eq!(markdown_text("a|b <i>[x](y)</i>\nz"), "a\\|b \\<i\\>\\[x\\](y)\\</i\\> z");
        assert_eq!(markdown_text("![ok](u) <h2>"), "\\!\\[ok\\](u) \\<h2\\>");
        assert_eq!(markdown_text("a\u{202e}b\u{2029}"), "a\\\\u202eb\\\\u2029", "a bidi control is shown");
        // Red team F6: no autolink, mention or formula (GFM drops each backslash).
        assert_eq!(
            markdown_text(
                "see https://evil.example/x or HTTP://e or www.evil.example, cc @octocat $x$: ftp://f, a.www.b"
            ),
            "see https\\://evil.example/x or HTTP\\://e or www\\.evil.example, cc \\@octocat \\$x\\$: ftp\\://f, a.www\\.b"
        );
        assert_eq!(markdown_code("a\u{2066}b"), "`a\\u2066b`");
        assert_eq!(markdown_code_cell("a|b"), "`a\\|b`");
        assert_eq!(markdown_code("a|b"), "`a|b`", "outside a table the backslash would show");
        assert_eq!(markdown_code("x`y"), "``x`y``");
        assert_eq!(markdown_code("`"), "`` ` ``");
        assert_eq!(markdown_code(""), "(empty)");
    }

    #[test]
    fn a_token_shows_everything_outside_printable_ascii() {
        assert!(matches!(token_safe("1.6.0-pre+b.1"), Cow::Borrowed(_)));
        assert_eq!(token_safe("\u{feff}1.6.0"), "\\ufeff1.6.0");
        assert_eq!(token_safe("1.6.0 \u{a0}\u{1b}"), "1.6.0\\u0020\\u00a0\\u001b");
        assert_eq!(token_safe("1.6.0\u{1f600}"), "1.6.0\\u1f600");
    }
}
