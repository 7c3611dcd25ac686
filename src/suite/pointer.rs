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
            let mut chars = tok.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
                    return Err(PointerError(format!("pointer {pointer:?} has a '~' that is not '~0' or '~1'")));
                }
            }
            Ok(tok.replace("~1", "/").replace("~0", "~"))
        })
        .collect()
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

/// Resolve a pointer in a value. `None` when the pointer is invalid or the target is missing.
pub fn get<'v>(value: &'v Value, pointer: &str) -> Option<&'v Value> {
    let mut cur = value;
    for tok in parse(pointer).ok()? {
        cur = match cur {
            Value::Object(m) => m.get(&tok)?,
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
    use super::*;
    use serde_json::json;

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
