//! Locating a JSON pointer in the text of a JSON document, for line:column in findings.
//!
//! Invariants: the scanner only reads text that is already known to parse (it never decides
//! validity); a repeated key resolves to its last occurrence, as the parser does; the span is
//! the first character of the addressed value, 1-based, columns counted in characters; an
//! unresolvable pointer yields `None`, never a wrong position. Nesting is walked iteratively, so
//! a deep document cannot exhaust the stack.

use crate::diag::Span;

use super::pointer;

/// The position of the value at `pointer` in `text`.
pub fn locate(text: &str, ptr: &str) -> Option<Span> {
    let tokens = pointer::parse(ptr).ok()?;
    let b = text.as_bytes();
    let mut pos = skip_ws(b, if text.starts_with('\u{FEFF}') { 3 } else { 0 });
    for tok in &tokens {
        pos = match *b.get(pos)? {
            b'{' => member(b, pos, tok)?,
            b'[' => element(b, pos, tok.parse().ok()?)?,
            _ => return None,
        };
    }
    Some(span_at(text, pos))
}

/// Line and column of byte offset `pos`.
pub fn span_at(text: &str, pos: usize) -> Span {
    let before = &text[..pos.min(text.len())];
    let line = before.bytes().filter(|&c| c == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Span { line, column: before[line_start..].chars().count() + 1 }
}

fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while matches!(b.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

/// End (exclusive) of the string literal starting at `pos`.
fn string_end(b: &[u8], mut pos: usize) -> Option<usize> {
    pos += 1;
    loop {
        match *b.get(pos)? {
            b'\\' => pos += 2,
            b'"' => return Some(pos + 1),
            _ => pos += 1,
        }
    }
}

/// End (exclusive) of the value starting at `pos`.
fn value_end(b: &[u8], pos: usize) -> Option<usize> {
    match *b.get(pos)? {
        b'"' => string_end(b, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut p = pos;
            loop {
                match *b.get(p)? {
                    b'"' => {
                        p = string_end(b, p)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(p + 1);
                        }
                    }
                    _ => {}
                }
                p += 1;
            }
        }
        _ => {
            let mut p = pos;
            while !matches!(b.get(p), None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')) {
                p += 1;
            }
            Some(p)
        }
    }
}

fn member(b: &[u8], open: usize, key: &str) -> Option<usize> {
    let mut pos = skip_ws(b, open + 1);
    let mut found = None;
    while *b.get(pos)? == b'"' {
        let key_end = string_end(b, pos)?;
        let this: String = serde_json::from_slice(&b[pos..key_end]).ok()?;
        pos = skip_ws(b, key_end);
        if *b.get(pos)? != b':' {
            return None;
        }
        let value = skip_ws(b, pos + 1);
        if this == key {
            found = Some(value);
        }
        pos = skip_ws(b, value_end(b, value)?);
        if *b.get(pos)? == b',' {
            pos = skip_ws(b, pos + 1);
        }
    }
    found
}

fn element(b: &[u8], open: usize, index: usize) -> Option<usize> {
    let mut pos = skip_ws(b, open + 1);
    let mut i = 0;
    while *b.get(pos)? != b']' {
        if i == index {
            return Some(pos);
        }
        pos = skip_ws(b, value_end(b, pos)?);
        if *b.get(pos)? == b',' {
            pos = skip_ws(b, pos + 1);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_members_elements_and_last_duplicates() {
        let text = "{\n  \"a\": [1, {\"b\\\"\": \"x}\"}],\n  \"é\": {\"k\": 2, \"k\": 3}\n}";
        assert_eq!(locate(text, ""), Some(Span { line: 1, column: 1 }));
        assert_eq!(locate(text, "/a"), Some(Span { line: 2, column: 8 }));
        assert_eq!(locate(text, "/a/1/b\""), Some(Span { line: 2, column: 20 }));
        assert_eq!(locate(text, "/é/k"), Some(Span { line: 3, column: 22 }));
        assert_eq!(locate(text, "/a/2"), None);
        assert_eq!(locate(text, "/zz"), None);
        assert_eq!(locate(text, "/a/0/x"), None);
    }

    #[test]
    fn deep_documents_do_not_overflow() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(locate(&format!("{{\"d\":{deep},\"e\":1}}"), "/e"), Some(Span { line: 1, column: 200_011 }));
    }
}
