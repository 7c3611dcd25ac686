//! Reading JSON text: the one parser every suite file and every results file goes through.
//!
//! Invariants:
//! - The value is exactly what `serde_json::from_str::<Value>` gives (with `preserve_order`):
//!   numbers through the same `u64` / `i64` / `f64` paths, strict RFC 8259 (no BOM, no trailing
//!   data, no NaN), and a repeated key keeps its first position with its last value.
//! - A repeated key is never silent: [`Parsed::duplicates`] lists every repeat, in text order,
//!   with the pointer of the member and the line:column of its first and of its repeated
//!   occurrence. Whether a repeat is an error is the caller's rule (fixtures repeat keys on
//!   purpose; the manifest, schemas, sync targets and results files must not).
//! - Nesting deeper than [`MAX_DEPTH`] levels is [`JsonErrorKind::TooDeep`] ("nested too deeply
//!   (limit N)"), never reported as "not JSON".
//!
//! Cost: the parse builds the value in one pass and only notes *that* a key repeated; the
//! locations are found afterwards by one linear scan, which runs only when a repeat exists.
//! A large object (at least [`SPLIT_AT`] bytes: the manifest of a big suite, a big results
//! file) is parsed on two threads: one pass finds the raw text of each top-level member, the
//! members are shared out by size, each is parsed as a value one level down (the depth limit
//! counts from the enclosing object, as in one pass), and the object is assembled in text
//! order with the same last-value-wins insert. Any error in that path (or a text that is not one
//! object) parses the text again in one pass, so errors, their messages and positions are
//! exactly the one-pass ones, and so is every value.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

use super::pointer;
use super::span::{LineIndex, skip_ws, string_end, value_end};
use crate::diag::Span;

/// The deepest nesting that parses: serde_json's recursion limit (128) refuses the 128th level.
pub const MAX_DEPTH: usize = 127;

/// A text encoding that is not plain UTF-8 but is easily written by mistake (Windows tools:
/// .NET's `Encoding.UTF8` puts a byte-order mark first, Notepad's "Unicode" and PowerShell 5's
/// `>` write UTF-16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Foreign {
    /// UTF-8 behind a byte-order mark (EF BB BF).
    Utf8Bom,
    /// UTF-16, with a byte-order mark (FF FE or FE FF) or without one (ASCII text with a NUL
    /// byte beside each character; valid JSON holds no NUL byte, so UTF-8 JSON never looks so).
    Utf16,
}

impl Foreign {
    /// What `bytes` are, when they are one of these.
    pub fn sniff(bytes: &[u8]) -> Option<Foreign> {
        let nul_beside = |b: &[u8]| {
            b.len() >= 4
                && ((b[0] != 0 && b[1] == 0 && b[2] != 0 && b[3] == 0)
                    || (b[0] == 0 && b[1] != 0 && b[2] == 0 && b[3] != 0))
        };
        if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
            Some(Foreign::Utf8Bom)
        } else if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) || nul_beside(bytes) {
            Some(Foreign::Utf16)
        } else {
            None
        }
    }
}

/// Why text is not JSON the suite accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// Not JSON (syntax, trailing data, a BOM, a lone surrogate escape, …).
    Syntax,
    /// JSON nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A key repeated where no repeat is meant (only from [`super::parse_json`]).
    DuplicateKey,
}

/// A JSON parse failure with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub kind: JsonErrorKind,
    pub message: String,
    pub span: Option<Span>,
}

/// A key that appears twice in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// RFC 6901 pointer of the member (its object's pointer plus the key).
    pub pointer: String,
    pub key: String,
    /// Where the key first appears (its opening quote).
    pub first: Span,
    /// Where it appears again.
    pub again: Span,
}

impl fmt::Display for Duplicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "key {:?} appears twice in one object: first at line {} column {}, again at line {} column {}",
            self.key, self.first.line, self.first.column, self.again.line, self.again.column
        )
    }
}

/// Text that parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub value: Value,
    /// Every repeated key, in text order (empty for most files).
    pub duplicates: Vec<Duplicate>,
}

/// Texts at least this long that hold one object are parsed on two threads.
pub const SPLIT_AT: usize = 1 << 20;

/// Parse JSON text.
pub fn parse(text: &str) -> Result<Parsed, JsonError> {
    if text.len() >= SPLIT_AT
        && let Some(parsed) = parse_split(text)
    {
        return Ok(parsed);
    }
    parse_one_pass(text)
}

/// Parse JSON text in one pass on this thread.
fn parse_one_pass(text: &str) -> Result<Parsed, JsonError> {
    let repeated = Cell::new(false);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = ValueSeed { repeated: &repeated, depth: 0 }.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    let value = value.map_err(|e| {
        let span = (e.line() > 0).then(|| char_span(text, e.line(), e.column()));
        let message = e.to_string();
        if message.starts_with("recursion limit exceeded") {
            return JsonError {
                kind: JsonErrorKind::TooDeep,
                message: format!("nested too deeply (limit {MAX_DEPTH})"),
                span,
            };
        }
        // serde_json counts columns in bytes; every other position this tool gives counts
        // characters, so the message and the span say the character column.
        let message = match (span, message.strip_suffix(&format!(" at line {} column {}", e.line(), e.column()))) {
            (Some(at), Some(what)) => format!("{what} at line {} column {}", at.line, at.column),
            _ => message,
        };
        JsonError { kind: JsonErrorKind::Syntax, message, span }
    })?;
    let duplicates = if repeated.get() { find_duplicates(text) } else { Vec::new() };
    Ok(Parsed { value, duplicates })
}

/// The position serde_json reports (1-based line, 1-based column counted in bytes, 0 before the
/// line's first byte) as this tool gives every position: the column counted in characters.
fn char_span(text: &str, line: usize, byte_column: usize) -> Span {
    let Some(start) = text.split_inclusive('\n').take(line - 1).map(str::len).try_fold(0usize, |a, n| a.checked_add(n))
    else {
        return Span { line, column: byte_column.max(1) };
    };
    let rest = text.get(start..).unwrap_or("");
    let mut end = byte_column.min(rest.len());
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    // A column inside a character (serde stops at its last byte) is that character's.
    let before = rest[..end].chars().count();
    let inside = usize::from(end < byte_column.min(rest.len()));
    Span { line, column: (before + inside).max(1) }
}

/// The object `text` holds, parsed member by member on two threads, or `None` when the text is
/// not one object that parses (the caller then parses it in one pass).
fn parse_split(text: &str) -> Option<Parsed> {
    let members = split_members(text)?;
    // Each member goes to the share with fewer bytes so far, largest members first.
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(members[i].1.len()));
    let (mut shares, mut sizes) = ([Vec::new(), Vec::new()], [0usize; 2]);
    for i in order {
        let s = usize::from(sizes[1] < sizes[0]);
        sizes[s] += members[i].1.len();
        shares[s].push(i);
    }
    let parse_share = |share: &[usize]| -> Option<(Vec<(usize, Value)>, bool)> {
        let repeated = Cell::new(false);
        let mut out = Vec::with_capacity(share.len());
        for &i in share {
            let mut de = serde_json::Deserializer::from_str(members[i].1);
            // One level down: the member's value sits inside the top-level object.
            let value = ValueSeed { repeated: &repeated, depth: 1 }.deserialize(&mut de).ok()?;
            de.end().ok()?;
            out.push((i, value));
        }
        Some((out, repeated.get()))
    };
    let [first, second] = &shares;
    let (a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| parse_share(second));
        let mine = parse_share(first);
        (mine, other.join().ok().flatten())
    });
    let ((a, repeated_a), (b, repeated_b)) = (a?, b?);
    let mut values: Vec<Option<Value>> = (0..members.len()).map(|_| None).collect();
    for (i, v) in a.into_iter().chain(b) {
        values[i] = Some(v);
    }
    let mut map = Map::new();
    let mut repeated = repeated_a || repeated_b;
    for ((key, _), value) in members.into_iter().zip(values) {
        if map.insert(key, value?).is_some() {
            repeated = true;
        }
    }
    let duplicates = if repeated { find_duplicates(text) } else { Vec::new() };
    Some(Parsed { value: Value::Object(map), duplicates })
}

/// The members of the object `text` holds, in order, repeats kept, each value as its raw text,
/// cut by one byte scan that builds no value; `None` when the text is not shaped as one object.
///
/// The scan only cuts: the text between the members (the braces, each key, the colons, the
/// commas, white space) is checked here byte by byte, the keys are decoded strictly, and
/// [`parse_split`] then parses each member's text whole and strictly. So the split succeeds
/// only for a well-formed JSON object, and JSON's grammar allows that object one cut only:
/// the one a full parse makes.
fn split_members(text: &str) -> Option<Vec<(String, &str)>> {
    let b = text.as_bytes();
    let end_of_text = |pos: usize| skip_ws(b, pos) == b.len();
    let mut pos = skip_ws(b, 0);
    if b.get(pos) != Some(&b'{') {
        return None;
    }
    pos = skip_ws(b, pos + 1);
    let mut out = Vec::new();
    if b.get(pos) == Some(&b'}') {
        return end_of_text(pos + 1).then_some(out);
    }
    loop {
        if b.get(pos) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(b, pos)?;
        let key: String = serde_json::from_str(text.get(pos..key_end)?).ok()?;
        pos = skip_ws(b, key_end);
        if b.get(pos) != Some(&b':') {
            return None;
        }
        let start = skip_ws(b, pos + 1);
        let end = value_end(b, start)?;
        out.push((key, text.get(start..end)?));
        pos = skip_ws(b, end);
        match b.get(pos) {
            Some(b',') => pos = skip_ws(b, pos + 1),
            Some(b'}') => return end_of_text(pos + 1).then_some(out),
            _ => return None,
        }
    }
}

/// The members of a JSON object text at its top level, in order, repeats kept, each value as
/// its raw text; an error when the text is not exactly one object. No depth limit below the top
/// level and no number conversion.
pub fn top_level_members(text: &str) -> Result<Vec<(String, &RawValue)>, serde_json::Error> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                out.push(entry);
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let members = de::Deserializer::deserialize_map(&mut de, Members)?;
    de.end()?;
    Ok(members)
}

/// Builds a [`Value`] exactly as serde_json's own visitor does, noting any repeated key.
///
/// `depth` is how many containers enclose the value being built. A container deeper than
/// [`MAX_DEPTH`] is an error here too, so a member parsed on its own (from depth 1) fails where
/// the one-pass parse (whose own limit counts from the root) would; in a one-pass parse from
/// depth 0 serde_json's limit is reached first and this check never fires.
#[derive(Clone, Copy)]
struct ValueSeed<'a> {
    repeated: &'a Cell<bool>,
    depth: usize,
}

impl ValueSeed<'_> {
    /// The seed for the values inside a container this seed is building.
    fn inner<E: de::Error>(self) -> Result<Self, E> {
        if self.depth + 1 > MAX_DEPTH {
            return Err(E::custom("nested too deeply"));
        }
        Ok(Self { depth: self.depth + 1, ..self })
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut vec = Vec::new();
        while let Some(v) = seq.next_element_seed(inner)? {
            vec.push(v);
        }
        Ok(Value::Array(vec))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut values = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let v = map.next_value_seed(inner)?;
            if values.insert(key, v).is_some() {
                self.repeated.set(true);
            }
        }
        Ok(Value::Object(values))
    }
}

/// One open container of the duplicate scan.
enum Frame {
    Object {
        /// Each key seen so far with the offset of its first occurrence.
        seen: HashMap<String, usize>,
        /// The current member's key.
        key: String,
        /// Is the next string a key?
        want_key: bool,
    },
    Array {
        index: usize,
    },
}

/// Every repeated key of `text` (which parses), in text order, with both locations.
fn find_duplicates(text: &str) -> Vec<Duplicate> {
    let b = text.as_bytes();
    let lines = LineIndex::new(text);
    let mut out = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut p = skip_ws(b, 0);
    while p < b.len() {
        match b[p] {
            b'{' => {
                stack.push(Frame::Object { seen: HashMap::new(), key: String::new(), want_key: true });
                p += 1;
            }
            b'[' => {
                stack.push(Frame::Array { index: 0 });
                p += 1;
            }
            b'}' | b']' => {
                stack.pop();
                p += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object { want_key, .. }) => *want_key = true,
                    Some(Frame::Array { index }) => *index += 1,
                    None => {}
                }
                p += 1;
            }
            b'"' => {
                let Some(end) = string_end(b, p) else { break };
                let repeat = match stack.last_mut() {
                    Some(Frame::Object { seen, key, want_key }) if *want_key => {
                        *want_key = false;
                        *key = serde_json::from_slice(&b[p..end]).unwrap_or_default();
                        let first = *seen.entry(key.clone()).or_insert(p);
                        (first != p).then(|| (first, key.clone()))
                    }
                    _ => None,
                };
                if let Some((first, key)) = repeat {
                    let pointer = member_pointer(&stack, &key);
                    out.push(Duplicate { pointer, key, first: lines.span(first), again: lines.span(p) });
                }
                p = end;
            }
            b':' | b' ' | b'\t' | b'\n' | b'\r' => p += 1,
            _ => p = value_end(b, p).unwrap_or(b.len()),
        }
    }
    out
}

/// The pointer of the current member of the innermost object on `stack`.
fn member_pointer(stack: &[Frame], key: &str) -> String {
    let mut ptr = String::new();
    let (last, outer) = stack.split_last().expect("a key is inside an object");
    for f in outer {
        match f {
            Frame::Object { key, .. } => pointer::push(&mut ptr, key),
            Frame::Array { index } => {
                use std::fmt::Write;
                let _ = write!(ptr, "/{index}");
            }
        }
    }
    debug_assert!(matches!(last, Frame::Object { .. }));
    pointer::push(&mut ptr, key);
    ptr
}

/// Byte offset of the first `\uXXXX` escape, inside a string literal of JSON text, that is a
/// surrogate without its partner.
///
/// A surrogate escape is `\u` followed by `d` or `D`; text without one (nearly every file) is
/// passed over by two substring searches instead of being walked character by character.
pub fn lone_surrogate(text: &str) -> Option<usize> {
    if !(text.contains("\\ud") || text.contains("\\uD")) {
        return None;
    }
    let unit = |at: usize| text.get(at..at + 4).and_then(|h| u16::from_str_radix(h, 16).ok());
    let mut in_string = false;
    let mut iter = text.char_indices();
    // The high surrogate waiting for its low half, and where it was.
    let mut pending: Option<usize> = None;
    while let Some((i, c)) = iter.next() {
        if !in_string {
            in_string = c == '"';
            continue;
        }
        match c {
            '"' => {
                if pending.is_some() {
                    return pending;
                }
                in_string = false;
            }
            '\\' => {
                let Some((_, e)) = iter.next() else { break };
                if e != 'u' {
                    if pending.is_some() {
                        return pending;
                    }
                    continue;
                }
                let u = unit(i + 2).unwrap_or(0);
                for _ in 0..4 {
                    iter.next();
                }
                match (pending.take(), u) {
                    (Some(_), 0xDC00..=0xDFFF) => {}
                    (Some(high), _) => return Some(high),
                    (None, 0xD800..=0xDBFF) => pending = Some(i),
                    (None, 0xDC00..=0xDFFF) => return Some(i),
                    (None, _) => {}
                }
            }
            _ if pending.is_some() => return pending,
            _ => {}
        }
    }
    pending
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_is_what_serde_json_gives() {
        let texts = [
            r#"{"x":0,"job":"a","y":1,"job":"b"}"#,
            r#"{"meta":{"q":1,"id":"a"},"z":0,"meta":{"id":"b"}}"#,
            r#"[1, -1, 1.0, 1e2, 1.50, -0, 18446744073709551615, 18446744073709551616, 1e-400, 0.1000000000000000055511151231257827]"#,
            r#"{"z":1,"a":2,"m":3,"s":"\u00e9\n/","n":null,"t":true,"e":{},"l":[]}"#,
            "  \"top\"  ",
        ];
        for t in texts {
            let ours = parse(t).unwrap().value;
            let theirs: Value = serde_json::from_str(t).unwrap();
            assert_eq!(ours, theirs, "{t}");
            assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&theirs).unwrap(), "{t}");
        }
        for bad in ["1e400", "\u{feff}{}", "{} x", "NaN", r#"{"k":"\ud800"}"#, "", "[1,]"] {
            assert!(parse(bad).is_err(), "{bad:?}");
            assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn repeated_keys_are_listed_with_both_locations() {
        let text = "{\n \"a\": 1,\n \"b\": [{\"k\": 1, \"k\": 2, \"k\": 3}],\n \"a\": {\"x\\/y\": 0, \"x/y\": 1}\n}";
        let p = parse(text).unwrap();
        assert_eq!(p.value["a"]["x/y"], 1);
        let got: Vec<_> = p.duplicates.iter().map(|d| (d.pointer.as_str(), d.first, d.again)).collect();
        let s = |line, column| Span { line, column };
        assert_eq!(
            got,
            [
                ("/b/0/k", s(3, 9), s(3, 17)),
                ("/b/0/k", s(3, 9), s(3, 25)),
                ("/a", s(2, 2), s(4, 2)),
                ("/a/x~1y", s(4, 8), s(4, 19)),
            ]
        );
        assert_eq!(p.duplicates[3].key, "x/y");
        assert!(p.duplicates[2].to_string().contains("first at line 2 column 2, again at line 4 column 2"));
        assert!(parse(r#"{"a":{"b":1},"c":[{"b":2}]}"#).unwrap().duplicates.is_empty());
    }

    /// `text` parsed on two threads is exactly `text` parsed in one pass (value, key order,
    /// repeats), or declines; errors always come from the one pass.
    fn split_agrees(text: &str) {
        let one = parse_one_pass(text);
        match (parse_split(text), &one) {
            (Some(split), Ok(one)) => {
                assert_eq!(&split, one, "{text:.80}");
                assert_eq!(serde_json::to_string(&split.value).unwrap(), serde_json::to_string(&one.value).unwrap());
            }
            (Some(_), Err(e)) => panic!("the split parse took text the one pass refuses ({e:?}): {text:.80}"),
            (None, _) => {}
        }
        assert_eq!(parse(text), one);
    }

    #[test]
    fn the_split_parse_is_the_one_pass_parse() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let big = format!(
            "{{\"a\": {{\"x\": 1}}, \"pad\": \"{}\", \"b\": [1, 1.0, -0, 1e2], \"a\": {{\"y\": [{{\"k\": 1, \"k\": 2}}]}}}}",
            "p".repeat(SPLIT_AT)
        );
        let p = parse(&big).unwrap();
        assert_eq!(p.value.as_object().unwrap().keys().collect::<Vec<_>>(), ["a", "pad", "b"]);
        assert_eq!(p.duplicates.len(), 2, "{:?}", p.duplicates);
        for text in [
            big.as_str(),
            r#"{"x":0,"job":"a","y":1,"job":"b"}"#,
            r#"{"meta":{"q":1,"id":"a"},"z":0,"meta":{"id":"b"}}"#,
            r#"{"n":[18446744073709551615, 18446744073709551616, 1e-400, 0.1000000000000000055511151231257827]}"#,
            r#"{}"#,
            "[1]",
            "{} x",
            "\u{feff}{}",
            r#"{"k":"\ud800"}"#,
            r#"{"a":1e400}"#,
            &format!("{{\"d\":{}}}", deep(MAX_DEPTH - 1)),
            &format!("{{\"d\":{}}}", deep(MAX_DEPTH)),
            &format!("{{\"ok\":1,\"d\":{}}}", deep(MAX_DEPTH + 1)),
        ] {
            split_agrees(text);
        }
        // The byte scan's cuts on shapes it must refuse or get exactly right.
        for text in [
            "\t{ \"a\" : 1 , \"b\" : [ ] , \"c\":{\"}\":\"]\"}}\r\n",
            r#"{"a":"x\"y}","b\u00e9\"":[{"c":"\\"}],"a":null}"#,
            r#"{"a":1 "b":2}"#,
            r#"{"a":1,}"#,
            r#"{,}"#,
            r#"{"a" 1}"#,
            r#"{"a":}"#,
            r#"{"a":1}}"#,
            r#"{"a":[1}]}"#,
            r#"{"a":[1,{"b":2]}}"#,
            r#"{"a":tru}"#,
            r#"{"a":1}x"#,
            r#"{"a":1,"b":2"#,
            r#"{"a":"\"#,
            r#"{"\x":1}"#,
            r#"{"\ud800":1}"#,
            r#"{"a":01}"#,
            r#"{"a":1 2}"#,
            "{\"a\":\"\u{e9}\\\u{e9}\"}",
            "{\"a\":1,\u{a0}\"b\":2}",
            " { } ",
        ] {
            split_agrees(text);
        }
        for text in [r#"{"a":1,"b":[2,{"c":"}"}],"a":"x\"y"}"#, " { \"k\" : true } "] {
            let ours = split_members(text).unwrap();
            let theirs: Vec<(String, &str)> =
                top_level_members(text).unwrap().into_iter().map(|(k, v)| (k, v.get())).collect();
            assert_eq!(ours, theirs, "{text}");
        }
        let e = parse(&format!("{{\"d\":{}, \"pad\": \"{}\"}}", deep(MAX_DEPTH), "p".repeat(SPLIT_AT))).unwrap_err();
        assert_eq!(e.kind, JsonErrorKind::TooDeep);
    }

    /// A syntax error's column counts characters, as every other position does (serde_json
    /// counts bytes): after four `§` (two bytes each) the missing comma is at character 13, and
    /// the message says the same column as the span.
    #[test]
    fn a_syntax_errors_column_counts_characters() {
        let e = parse("{\n\"d\": \"§§§§\" \"n\": 1}").unwrap_err();
        assert_eq!(e.span, Some(Span { line: 2, column: 13 }));
        assert!(e.message.ends_with("at line 2 column 13"), "{}", e.message);
        let ascii = parse("{\n\"d\": \"SSSS\" \"n\": 1}").unwrap_err();
        assert_eq!(ascii.span, e.span);
        assert_eq!(ascii.message, e.message);
        // An error inside a character (bytes that are not UTF-8 cannot reach here, but a control
        // character in a string can follow one) and on the first line.
        let e = parse("[\"é\u{1}\"]").unwrap_err();
        assert_eq!(e.span, Some(Span { line: 1, column: 4 }), "{}", e.message);
    }

    #[test]
    fn too_deep_is_not_a_syntax_error() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let e = parse(&deep).unwrap_err();
        assert_eq!(e.kind, JsonErrorKind::TooDeep);
        assert_eq!(e.message, format!("nested too deeply (limit {MAX_DEPTH})"));
        let e = parse("{\n  oops").unwrap_err();
        assert_eq!((e.kind, e.span), (JsonErrorKind::Syntax, Some(Span { line: 2, column: 3 })));
        assert!(e.message.starts_with("key must be a string"), "{}", e.message);
    }
}
