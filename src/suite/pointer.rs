//! RFC 6901 JSON pointers.
//!
//! Invariants: a pointer is either empty (the whole document) or a sequence of `/`-prefixed
//! reference tokens in which `~` only appears as `~0` (`~`) or `~1` (`/`). Unescaping replaces
//! `~1` before `~0`, so `~01` is the token `~1`.

use serde_json::Value;

/// Why a pointer is not a valid RFC 6901 pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointerError(pub String);

impl std::fmt::Display for PointerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Split a pointer into unescaped reference tokens.
pub fn parse(pointer: &str) -> Result<Vec<String>, PointerError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(PointerError(format!("pointer {pointer:?} must be empty or start with '/'")));
    };
    rest.split('/')
        .map(|tok| {
            unescape(tok)
                .map(std::borrow::Cow::into_owned)
                .ok_or_else(|| PointerError(format!("pointer {pointer:?} has a '~' that is not '~0' or '~1'")))
        })
        .collect()
}

/// One reference token unescaped (borrowed when it holds no `~`); `None` when a `~` is not
/// `~0` or `~1`.
fn unescape(tok: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !tok.contains('~') {
        return Some(std::borrow::Cow::Borrowed(tok));
    }
    let mut chars = tok.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return None;
        }
    }
    Some(std::borrow::Cow::Owned(tok.replace("~1", "/").replace("~0", "~")))
}

/// Is `path` the same as `prefix` or below it, token-wise (`/a/b` is under `/a`, `/ab` is not)?
/// For any `/`-separated path: a JSON pointer, or a case id under its block (`release/x` under
/// `release`).
pub fn at_or_under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Escape one reference token.
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Append a token to a pointer.
pub fn join(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    push(&mut out, token);
    out
}

/// Append `/` and the escaped token to `pointer` in place (no allocation beyond growth).
pub fn push(pointer: &mut String, token: &str) {
    pointer.push('/');
    if !token.bytes().any(|b| b == b'~' || b == b'/') {
        pointer.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Append `/` and the array index `i` to `pointer` (what `format!("{pointer}/{i}")` writes,
/// without the formatting machinery: ids and pointers are built for every case of a large
/// suite).
pub fn push_index(pointer: &mut String, i: usize) {
    pointer.push('/');
    pointer.push_str(decimal(i, &mut [0; 20]));
}

/// `i` in decimal, written into `buf`.
pub(crate) fn decimal(mut i: usize, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[at..]).expect("digits are ASCII")
}

/// `pointer` with the array index `i` appended.
pub fn join_index(pointer: &str, i: usize) -> String {
    let mut out = String::with_capacity(pointer.len() + 8);
    out.push_str(pointer);
    push_index(&mut out, i);
    out
}

/// Resolve a pointer in a value. `None` when the pointer is invalid or the target is missing.
///
/// Token by token, without building the token list [`parse`] returns: an invalid token or a
/// missing target gives `None` either way, so stopping at the first is the same answer.
pub fn get<'v>(value: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(value);
    }
    let mut cur = value;
    for tok in pointer.strip_prefix('/')?.split('/') {
        let tok = unescape(tok)?;
        cur = match cur {
            Value::Object(m) => m.get(&*tok)?,
            Value::Array(a) => a.get(array_index(&tok)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// An array index token: `0` or a decimal without leading zeros.
fn array_index(tok: &str) -> Option<usize> {
    if tok.is_empty() || (tok.len() > 1 && tok.starts_with('0')) || !tok.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    tok.parse().ok()
}

#[cfg(test)]
mod tests {

    #[test]
    fn at_or_under_is_token_wise() {
        assert!(at_or_under("/a/b", "/a") && at_or_under("/a", "/a") && at_or_under("/a", ""));
        assert!(!at_or_under("/ab", "/a") && !at_or_under("/a", "/a/b") && !at_or_under("/a~1b", "/a"));
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn push_index_writes_what_format_writes() {
        for i in [0, 7, 9, 10, 99, 100, 4_500, 1_000_000_007, usize::MAX] {
            assert_eq!(join_index("/a~1b", i), format!("/a~1b/{i}"));
        }
    }

    #[test]
    fn rfc6901_examples() {
        let doc = json!({"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "m~n": 8, "k\"l": 6});
        assert_eq!(get(&doc, ""), Some(&doc));
        assert_eq!(get(&doc, "/foo/0"), Some(&json!("bar")));
        assert_eq!(get(&doc, "/"), Some(&json!(0)));
        assert_eq!(get(&doc, "/a~1b"), Some(&json!(1)));
        assert_eq!(get(&doc, "/m~0n"), Some(&json!(8)));
        assert_eq!(get(&doc, "/k\"l"), Some(&json!(6)));
        assert_eq!(get(&doc, "/foo/01"), None);
        assert_eq!(get(&doc, "/foo/2"), None);
        assert_eq!(parse("/~01").unwrap(), ["~1"]);
        assert!(parse("foo").is_err());
        assert!(parse("/a~2").is_err());
        assert!(parse("/a~").is_err());
        assert_eq!(join("/meta", "a/b~"), "/meta/a~1b~0");
    }
}
