//! Positions in JSON text: JSON pointers to byte offsets, byte offsets to line:column.
//!
//! Invariants: the scanner never decides validity: it reads text that is already known to parse,
//! except where `suite::json` cuts a large object's members with [`value_end`] before parsing
//! them, and there the strict parse of each cut decides (a bad cut only makes that parse fail); a repeated key resolves to its last occurrence, as the parser does; the span is
//! the first character of the addressed value, 1-based, columns counted in characters; an
//! unresolvable pointer yields `None`, never a wrong position.
//!
//! Cost: every operation is linear in the text, whatever the number of positions asked for.
//! [`locate_all`] resolves any number of pointers in one walk over the text (it descends only
//! into members a pointer names and skips every other value with one forward scan), and
//! [`LineIndex`] turns any number of offsets into line:column after one pass (line starts plus a
//! character count every [`CHECKPOINT`] bytes, so even a 50 MB file on one line answers each
//! offset after counting at most two checkpoints' worth of bytes). Descent is bounded by the pointers' length, never by the text's
//! nesting, so a deep document cannot exhaust the stack.

use std::collections::HashMap;

use crate::diag::Span;

use super::pointer;

/// The position of the value at `pointer` in `text` (one-off; for many, use [`locate_all`]).
pub fn locate(text: &str, ptr: &str) -> Option<Span> {
    locate_all(text, &[ptr]).pop().flatten()
}

/// Line and column of byte offset `pos` (one-off; for many, use [`LineIndex`]).
pub fn span_at(text: &str, pos: usize) -> Span {
    let before = &text.as_bytes()[..pos.min(text.len())];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
    Span { line, column: chars_in(&before[line_start..]) + 1 }
}

/// The positions of the values at `pointers` in `text`, in the order asked, in one walk.
pub fn locate_all(text: &str, pointers: &[&str]) -> Vec<Option<Span>> {
    let offsets = offsets_of(text, pointers);
    let index = LineIndex::new(text);
    offsets.into_iter().map(|o| o.map(|pos| index.span(pos))).collect()
}

/// The byte offsets of the values at `pointers` in `text`, in the order asked, in one walk.
pub fn offsets_of(text: &str, pointers: &[&str]) -> Vec<Option<usize>> {
    let mut trie = Trie::default();
    for (i, p) in pointers.iter().enumerate() {
        if let Ok(tokens) = pointer::parse(p) {
            trie.insert(&tokens, i);
        }
    }
    let mut found = vec![None; pointers.len()];
    let b = text.as_bytes();
    let start = skip_ws(b, if text.starts_with('\u{FEFF}') { 3 } else { 0 });
    if start < b.len() {
        walk(b, start, &trie, 0, &mut found);
    }
    found
}

/// Every string of a JSON text as written (quotes and escapes kept), in document order, each
/// with the path to it (decoded keys and indexes, as a JSON pointer) and whether it is that
/// member's key (`true`) or a value. `None` when the text is not one JSON value the scan can
/// follow.
pub fn strings(text: &[u8]) -> Option<Vec<(String, bool, &[u8])>> {
    fn value<'t>(b: &'t [u8], pos: usize, at: &mut String, out: &mut Vec<(String, bool, &'t [u8])>) -> Option<usize> {
        match *b.get(pos)? {
            b'"' => {
                let end = string_end(b, pos)?;
                out.push((at.clone(), false, &b[pos..end]));
                Some(end)
            }
            b'{' => members(b, pos, |key, v| {
                let len = at.len();
                pointer::push(at, &serde_json::from_slice::<String>(key).ok()?);
                out.push((at.clone(), true, key));
                let end = value(b, v, at, out);
                at.truncate(len);
                end
            }),
            b'[' => elements(b, pos, |i, v| {
                let len = at.len();
                pointer::push_index(at, i);
                let end = value(b, v, at, out);
                at.truncate(len);
                end
            }),
            _ => value_end(b, pos),
        }
    }
    let mut out = Vec::new();
    value(text, skip_ws(text, 0), &mut String::new(), &mut out)?;
    Some(out)
}

/// Bytes between two character-count checkpoints of a [`LineIndex`].
pub const CHECKPOINT: usize = 256;

/// Line starts and character counts of one text, for line:column of any offset.
#[derive(Debug, Clone)]
pub struct LineIndex<'t> {
    text: &'t [u8],
    /// Byte offset of the first byte of every line.
    line_starts: Vec<usize>,
    /// Characters before byte `k × CHECKPOINT`.
    chars_at: Vec<usize>,
}

impl<'t> LineIndex<'t> {
    /// Index `text` in one pass.
    pub fn new(text: &'t str) -> Self {
        let b = text.as_bytes();
        let mut line_starts = vec![0];
        let mut chars_at = Vec::with_capacity(b.len() / CHECKPOINT + 1);
        let mut chars = 0usize;
        for (k, chunk) in b.chunks(CHECKPOINT).enumerate() {
            chars_at.push(chars);
            chars += chars_in(chunk);
            let base = k * CHECKPOINT;
            line_starts.extend(chunk.iter().enumerate().filter(|(_, c)| **c == b'\n').map(|(i, _)| base + i + 1));
        }
        chars_at.push(chars);
        Self { text: b, line_starts, chars_at }
    }

    /// Characters before byte offset `pos`.
    fn chars_before(&self, pos: usize) -> usize {
        let k = pos / CHECKPOINT;
        self.chars_at[k] + chars_in(&self.text[k * CHECKPOINT..pos])
    }

    /// Line and column (1-based, columns in characters) of byte offset `pos`.
    pub fn span(&self, pos: usize) -> Span {
        let pos = pos.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= pos);
        let start = self.line_starts[line - 1];
        let column = if pos - start <= CHECKPOINT {
            chars_in(&self.text[start..pos])
        } else {
            self.chars_before(pos) - self.chars_before(start)
        };
        Span { line, column: column + 1 }
    }
}

/// Characters in UTF-8 bytes (the bytes that do not continue a character).
fn chars_in(b: &[u8]) -> usize {
    b.iter().filter(|&&c| (c & 0xC0) != 0x80).count()
}

/// The pointers asked for, as a tree of tokens.
#[derive(Debug, Default)]
struct Trie {
    nodes: Vec<Node>,
}

#[derive(Debug, Default)]
struct Node {
    children: HashMap<String, usize>,
    /// Indices of the pointers that end here.
    ends: Vec<usize>,
}

impl Trie {
    fn insert(&mut self, tokens: &[String], index: usize) {
        if self.nodes.is_empty() {
            self.nodes.push(Node::default());
        }
        let mut at = 0;
        for t in tokens {
            at = match self.nodes[at].children.get(t) {
                Some(&child) => child,
                None => {
                    self.nodes.push(Node::default());
                    let child = self.nodes.len() - 1;
                    self.nodes[at].children.insert(t.clone(), child);
                    child
                }
            };
        }
        self.nodes[at].ends.push(index);
    }
}

/// Record the value at `pos` for trie node `node`, descend into the members the node names,
/// and return the end (exclusive) of the value.
fn walk(b: &[u8], pos: usize, trie: &Trie, node: usize, found: &mut [Option<usize>]) -> Option<usize> {
    let Some(n) = trie.nodes.get(node) else { return value_end(b, pos) };
    for &i in &n.ends {
        found[i] = Some(pos);
    }
    if n.children.is_empty() {
        return value_end(b, pos);
    }
    let mut digits = [0u8; 20];
    match *b.get(pos)? {
        b'{' => members(b, pos, |key, v| match child_by_key(&n.children, key) {
            Some(c) => walk(b, v, trie, c, found),
            None => value_end(b, v),
        }),
        b'[' => elements(b, pos, |i, v| match n.children.get(super::pointer::decimal(i, &mut digits)) {
            Some(&c) => walk(b, v, trie, c, found),
            None => value_end(b, v),
        }),
        _ => value_end(b, pos),
    }
}

/// Step over the members of the object whose `{` is at `pos`: `member` gets each key's literal
/// (quotes included) and the position of its value, and returns the value's end. The end
/// (exclusive) of the object; `None` as soon as the text is not an object there. The one loop
/// over an object's members of the raw-text walks.
fn members<'t>(b: &'t [u8], pos: usize, mut member: impl FnMut(&'t [u8], usize) -> Option<usize>) -> Option<usize> {
    let mut p = skip_ws(b, pos + 1);
    while *b.get(p)? == b'"' {
        let key_end = string_end(b, p)?;
        let colon = skip_ws(b, key_end);
        (*b.get(colon)? == b':').then_some(())?;
        p = skip_ws(b, member(&b[p..key_end], skip_ws(b, colon + 1))?);
        if *b.get(p)? == b',' {
            p = skip_ws(b, p + 1);
        }
    }
    (b[p] == b'}').then_some(p + 1)
}

/// Step over the elements of the array whose `[` is at `pos`: `element` gets each index and
/// position, and returns the element's end. The end (exclusive) of the array, as [`members`].
fn elements(b: &[u8], pos: usize, mut element: impl FnMut(usize, usize) -> Option<usize>) -> Option<usize> {
    let mut p = skip_ws(b, pos + 1);
    let mut i = 0;
    while *b.get(p)? != b']' {
        p = skip_ws(b, element(i, p)?);
        if *b.get(p)? == b',' {
            p = skip_ws(b, p + 1);
        }
        i += 1;
    }
    Some(p + 1)
}

/// The trie child for the string literal `lit` (quotes included), decoding only when it has
/// an escape.
fn child_by_key(children: &HashMap<String, usize>, lit: &[u8]) -> Option<usize> {
    let inner = &lit[1..lit.len() - 1];
    if inner.contains(&b'\\') {
        let key: String = serde_json::from_slice(lit).ok()?;
        children.get(&key).copied()
    } else {
        children.get(std::str::from_utf8(inner).ok()?).copied()
    }
}

/// The first offset at or after `pos` that is not JSON whitespace.
pub(crate) fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while matches!(b.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

/// End (exclusive) of the string literal starting at `pos` (a backslash escapes the next byte).
pub(crate) fn string_end(b: &[u8], mut pos: usize) -> Option<usize> {
    pos += 1;
    loop {
        pos += memchr::memchr2(b'"', b'\\', b.get(pos..)?)?;
        if b[pos] == b'"' {
            return Some(pos + 1);
        }
        pos += 2;
    }
}

/// The bytes a container scan stops at: quotes and brackets.
static STOPS: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t
};

/// End (exclusive) of the value starting at `pos`, in one forward scan; `None` when no value
/// starts there (the end of the text, a `,`, a closing bracket).
pub(crate) fn value_end(b: &[u8], pos: usize) -> Option<usize> {
    match *b.get(pos)? {
        b'"' => string_end(b, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut p = pos;
            loop {
                p += b.get(p..)?.iter().position(|&c| STOPS[usize::from(c)])?;
                match b[p] {
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
            // No value is empty: at a `,` or a closing bracket there is none (`[}`), and a
            // caller that stepped over "it" would not move (validate once hung on `[1 }`).
            (p > pos).then_some(p)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_value_is_empty_so_a_walk_over_broken_text_ends() {
        assert_eq!(value_end(b"[1}", 1), Some(2));
        assert_eq!(value_end(b"[}", 1), None);
        assert_eq!(value_end(b"[1,]", 3), None);
        for text in ["[}", "[1 }", "{\"a\":[}", "[1,]", "{\"a\":1,}", "[,]"] {
            assert_eq!(offsets_of(text, &["/0", "/a/0"]).len(), 2, "{text}");
        }
    }

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
    fn many_pointers_in_one_walk_agree_with_one_at_a_time() {
        let text = "{\"s\": {\"x\": 1, \"y/z\": [true, {\"q\": null}], \"x\": [0]},\n \"t\": \"ü\", \"e\": {}}";
        let ptrs = ["/s/x", "/s/y~1z/1/q", "/t", "/s/x/0", "", "/nope", "/s/y~1z/9", "/e", "/s"];
        let all = locate_all(text, &ptrs);
        for (p, got) in ptrs.iter().zip(&all) {
            assert_eq!(*got, locate(text, p), "{p}");
        }
        assert_eq!(all[0], Some(Span { line: 1, column: 49 }), "the last of a repeated key");
        assert_eq!(all[5], None);
        assert_eq!(all[6], None);
    }

    #[test]
    fn line_index_counts_characters_across_checkpoints() {
        let mut text = "é".repeat(CHECKPOINT);
        text.push('\n');
        text.push_str(&"ab€".repeat(3000));
        let idx = LineIndex::new(&text);
        for pos in [0, 2, 4094, 4096, 2 * CHECKPOINT, 2 * CHECKPOINT + 1, 2 * CHECKPOINT + 3, text.len()] {
            if text.is_char_boundary(pos) {
                assert_eq!(idx.span(pos), span_at(&text, pos), "offset {pos}");
            }
        }
        assert_eq!(idx.span(2 * CHECKPOINT + 1 + 5), Span { line: 2, column: 4 });
    }

    #[test]
    fn deep_documents_do_not_overflow() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(locate(&format!("{{\"d\":{deep},\"e\":1}}"), "/e"), Some(Span { line: 1, column: 200_011 }));
    }
}
