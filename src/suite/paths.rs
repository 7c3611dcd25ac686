//! What a suite path may look like: one home for the rules `release`, `fetch` and `validate`
//! apply to the names of the files a suite ships (`schema/…`, `fixtures/…` and the top-level
//! files), so that what validate passes release builds and fetch unpacks.
//!
//! Two rules, the second stricter than the first:
//!
//! - **The path rule** ([`check_path`]): what every SDK's platform can create under the same
//!   spelling. A path is relative, made of non-empty components separated by `/`, none of them
//!   `.` or `..`; it holds no control character and none of the characters Windows refuses in a
//!   name (`\ : * ? " < > |`); no component is a Windows device name (`CON`, `PRN`, `AUX`,
//!   `NUL`, `COM0`–`COM9`, `COM¹`–`COM³`, `LPT0`–`LPT9`, `LPT¹`–`LPT³`, in any letter case,
//!   whatever follows its first dot) or ends in a dot or a space (Windows drops them).
//!   `release` refuses to build an asset with such a path and `fetch` refuses to unpack one, so
//!   a hostile asset cannot write outside DEST, nor a name a consumer's platform would change.
//! - **The portable rule** ([`check_portable`]), which `validate` applies to the suite's own files
//!   (BQ011): the path rule, and every component made of POSIX's portable filename character set
//!   (`A`–`Z`, `a`–`z`, `0`–`9`, `.`, `_`, `-`), not starting with `-`, and the whole path at most
//!   [`PORTABLE_MAX`] bytes. Non-ASCII names are not portable: macOS file systems normalise or
//!   compare them under Unicode normalisation, so a name in NFC and the same name in NFD are two
//!   files in git and one on a Mac. A leading `-` reads as an option to every shell tool. The
//!   length keeps a vendored copy under a typical SDK checkout within Windows' 260-character
//!   `MAX_PATH`, and lets every release path split at its root directory in a plain ustar
//!   header (a name of at most 100 bytes).
//!
//! Besides each path on its own: no two paths of one tree are equal when letter case is ignored
//! ([`case_collision`]): on a case-insensitive file system (Windows, macOS by default) one would
//! overwrite the other.

use std::collections::hash_map::Entry;

use foldhash::{HashMap, HashMapExt};

/// The longest suite-relative path the portable rule allows, in bytes.
pub const PORTABLE_MAX: usize = 100;

/// Windows device names, refused as a component's stem in any letter case.
const DEVICE_NAMES: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];

/// The characters Windows refuses in a file name besides the control characters (`/` is the
/// separator here).
const WINDOWS_RESERVED: [char; 8] = ['\\', ':', '*', '?', '"', '<', '>', '|'];

/// The path rule: `Err` says what is wrong with `rel` (a path inside a suite or an asset's root,
/// no trailing `/`).
pub fn check_path(rel: &str) -> Result<(), String> {
    if rel.is_empty() {
        return Err("empty path".into());
    }
    if rel.starts_with('/') {
        return Err("starts with '/' (an absolute path, or an empty component after the root)".into());
    }
    // One pass over the bytes when they are all portable (every suite's own path), else over
    // the characters, for the message.
    if !rel.bytes().all(|b| b == b'/' || is_portable_byte(b)) {
        if let Some(c) = rel.chars().find(|c| c.is_control()) {
            return Err(format!("control character U+{:04X} in the name", u32::from(c)));
        }
        if let Some(c) = rel.chars().find(|c| WINDOWS_RESERVED.contains(c)) {
            return Err(match c {
                '\\' => "backslash in the name (a path separator on Windows)".into(),
                ':' => "':' in the name (a drive or stream separator on Windows)".into(),
                _ => format!("{c:?} in the name (Windows refuses it in file names)"),
            });
        }
    }
    components(rel)
}

/// The per-component part of the path rule.
fn components(rel: &str) -> Result<(), String> {
    for part in rel.split('/') {
        match part {
            "" => return Err("empty path component ('//' or a trailing '/')".into()),
            "." | ".." => return Err(format!("'{part}' path component")),
            _ => {}
        }
        if is_device_name(part.split('.').next().unwrap_or(part)) {
            return Err(format!("'{part}' is a Windows device name"));
        }
        if part.ends_with('.') || part.ends_with(' ') {
            return Err(format!("'{part}' ends in a dot or a space (Windows drops them)"));
        }
    }
    Ok(())
}

/// Is `stem` (a component up to its first dot) a Windows device name, in any letter case?
fn is_device_name(stem: &str) -> bool {
    let numbered = |prefix: &str| {
        stem.get(..3).is_some_and(|p| p.eq_ignore_ascii_case(prefix)) && {
            let mut rest = stem[3..].chars();
            matches!((rest.next(), rest.next()), (Some(c), None) if c.is_ascii_digit() || matches!(c, '¹' | '²' | '³'))
        }
    };
    DEVICE_NAMES.iter().any(|d| stem.eq_ignore_ascii_case(d)) || numbered("COM") || numbered("LPT")
}

/// POSIX's portable filename character set, as bytes.
fn is_portable_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
}

/// The portable rule: the path rule, POSIX's portable characters, no component starting with
/// `-`, at most [`PORTABLE_MAX`] bytes.
pub fn check_portable(rel: &str) -> Result<(), String> {
    check_path(rel)?;
    if let Some(c) = rel.chars().find(|&c| c != '/' && !(c.is_ascii() && is_portable_byte(c as u8))) {
        let what =
            if c.is_ascii() { "" } else { " (names are ASCII: Unicode normalisation differs across file systems)" };
        return Err(format!("{c:?} in the name: only A-Z, a-z, 0-9, '.', '_' and '-' are portable{what}"));
    }
    if let Some(part) = rel.split('/').find(|p| p.starts_with('-')) {
        return Err(format!("'{part}' starts with '-' (shell tools read it as an option)"));
    }
    if rel.len() > PORTABLE_MAX {
        return Err(format!(
            "{} bytes long, more than the {PORTABLE_MAX} a suite path may have (Windows' MAX_PATH under an SDK \
             checkout, a plain ustar header)",
            rel.len()
        ));
    }
    Ok(())
}

/// The first pair of paths that are equal when letter case is ignored, if any.
pub fn case_collision<'a>(paths: impl IntoIterator<Item = &'a str>) -> Option<(&'a str, &'a str)> {
    case_collisions(paths).into_iter().next()
}

/// Every path equal to an earlier one when letter case is ignored, paired with the first of them,
/// in the order given.
pub fn case_collisions<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<(&'a str, &'a str)> {
    let mut seen: HashMap<String, &str> = HashMap::new();
    let mut out = Vec::new();
    // Hashed with foldhash: the order of `out` follows `paths`, never the map's.
    for p in paths {
        match seen.entry(p.to_lowercase()) {
            Entry::Occupied(first) => out.push((*first.get(), p)),
            Entry::Vacant(slot) => {
                slot.insert(p);
            }
        }
    }
    out
}

/// Every directory `files` lie in (`a/b/c.json` lies in `a` and `a/b`), each once, sorted.
pub fn parents<'a>(files: impl IntoIterator<Item = &'a str>) -> std::collections::BTreeSet<&'a str> {
    let mut dirs = std::collections::BTreeSet::new();
    for rel in files {
        let mut at = 0;
        while let Some(i) = rel[at..].find('/') {
            dirs.insert(&rel[..at + i]);
            at += i + 1;
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rule` accepts every `ok` path and refuses every `bad` one with a reason containing its text.
    fn judges(rule: fn(&str) -> Result<(), String>, ok: &[&str], bad: &[(&str, &str)]) {
        for path in ok {
            assert_eq!(rule(path), Ok(()), "{path}");
        }
        for (path, why) in bad {
            let e = rule(path).unwrap_err();
            assert!(e.contains(why), "{path:?}: {e}");
        }
    }

    #[test]
    fn the_path_rule() {
        let ok = ["manifest.json", "fixtures/a-b.json", "schema/x.schema.json", "fixtures/ğü.json", "fixtures/con-x"];
        let bad = [
            ("", "empty"),
            ("/etc/passwd", "absolute"),
            ("a/../b", "'..'"),
            ("./a", "'.'"),
            ("a//b", "empty path component"),
            ("a/", "empty path component"),
            ("a\\b", "backslash"),
            ("c:x", "':'"),
            ("a*b.json", "'*' in the name (Windows refuses"),
            ("a?b", "'?'"),
            ("a\"b", "'\"'"),
            ("a<b", "'<'"),
            ("a>b", "'>'"),
            ("a|b", "'|'"),
            ("a\u{7}b", "control character U+0007"),
            ("a\0b", "U+0000"),
            ("fixtures/nul.json", "device name"),
            ("fixtures/Aux.Json.json", "device name"),
            ("fixtures/COM1", "device name"),
            ("fixtures/lpt0.json", "device name"),
            ("fixtures/com\u{b2}.json", "device name"),
            ("fixtures/x.", "ends in a dot"),
            ("fixtures/x /y.json", "ends in a dot or a space"),
        ];
        judges(check_path, &ok, &bad);
    }

    #[test]
    fn the_portable_rule() {
        let longest = format!("fixtures/{}.json", "a".repeat(PORTABLE_MAX - 14));
        assert_eq!(longest.len(), PORTABLE_MAX);
        let ok = ["manifest.json", "fixtures/a-b_C.1.json", "fixtures/sub/x.json", "CONFORMANCE_VERSION", &longest];
        let too_long = format!("{longest}x");
        let bad = [
            ("fixtures/nul.json", "device name"),
            ("fixtures/a:b.json", "':'"),
            ("fixtures/sp ace.json", "' ' in the name: only A-Z"),
            ("fixtures/a+b.json", "'+'"),
            ("fixtures/conin$.json", "'$'"),
            ("fixtures/h\u{e9}llo.json", "names are ASCII"),
            ("fixtures/he\u{301}llo.json", "names are ASCII"),
            ("fixtures/-lead.json", "starts with '-'"),
            ("-top/x.json", "starts with '-'"),
            (&too_long, "101 bytes long, more than the 100"),
        ];
        judges(check_portable, &ok, &bad);
    }

    #[test]
    fn collisions_and_parents() {
        assert_eq!(case_collision(["a/x.json", "A/y.json", "a/X.json"]), Some(("a/x.json", "a/X.json")));
        assert_eq!(case_collision(["fixtures", "Fixtures"]), Some(("fixtures", "Fixtures")));
        assert_eq!(case_collision(["a", "b"]), None);
        assert_eq!(case_collisions(["x", "X", "y", "x"]), [("x", "X"), ("x", "x")], "the same path twice collides too");
        let dirs: Vec<&str> = parents(["fixtures/a/b.json", "fixtures/c.json", "manifest.json"]).into_iter().collect();
        assert_eq!(dirs, ["fixtures", "fixtures/a"]);
    }
}
