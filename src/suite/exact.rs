//! Exact JSON, for `diff` and the recorded content of the cases: numbers by the mathematical
//! value their literal writes, and a tree that keeps every member of an object, repeated keys included.
//!
//! Invariants:
//! - Two numbers are the same when their literals write the same mathematical value and are of
//!   the same literal type: an integer literal (`-?digits`, no fraction, no exponent) or not
//!   (decisions R4 with the type distinction of R20.3). `1.0`, `1e0`, `10e-1` and `1.000` are
//!   one value; `1` is not `1.0`. The value is read from the decimal text (sign, digits without
//!   leading or trailing zeros, power of ten), never through an `f64` or an `i128`, so
//!   `9007199254740993` is not `9007199254740992`, `0.10000000000000000001` is not `0.1`, and a
//!   40-digit integer changed in its last digit is a changed value.
//! - The sign of zero counts (a ruling beyond R4, whose reason, languages that cannot tell `1`
//!   from `1.0`, does not hold for it): `-0.0` re-encodes as `-0.0` in Python and Java and `-0`
//!   in Go, and serde_json reads `-0` as the float `-0.0`, which a typed integer field refuses.
//!   So `-0` ≠ `0` and `-0.0` ≠ `0.0`.
//! - A power of ten too large for an `i128` (only a literal with an exponent of about 38 digits
//!   has one) compares by its literal text: a different text is a different value (never a
//!   missed change; at worst a same value written twice differently is reported).
//! - Why not serde_json's `arbitrary_precision`: features unify across the build, so it would
//!   change every `Value` of the crate. Its number equality compares the text (`1.50` ≠ `1.5`,
//!   `1.0` ≠ `1e0`), against R4, in validate and run as well; it rewrites exponents (`1e400` →
//!   `1e+400`, which the poison_dlq splice checks would see), and jsonschema still compares
//!   through `f64` (notes/crates.md §2–3). The literals are therefore read here, from the
//!   bytes the sides were loaded from, after serde_json has accepted them as strict JSON: a
//!   scan in document order pairs each number the parser saw with its text.

use std::collections::{BTreeSet, HashMap};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON number by its exact value and literal type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Number {
    /// Sign, significant digits (no leading or trailing zero; empty for zero) and the power of
    /// ten they are multiplied by (0 for zero).
    Exact { int: bool, negative: bool, digits: String, exp: i128 },
    /// A literal whose power of ten does not fit an `i128`, or text that is no JSON number:
    /// compared as written.
    Text(String),
}

impl Number {
    /// The number a JSON literal writes.
    pub fn parse(literal: &str) -> Number {
        Self::exact(literal).unwrap_or_else(|| Number::Text(literal.to_owned()))
    }

    fn exact(literal: &str) -> Option<Number> {
        let (negative, rest) = match literal.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, literal),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (whole, fraction) = match mantissa.split_once('.') {
            Some((w, f)) => (w, Some(f)),
            None => (mantissa, None),
        };
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(whole) || fraction.is_some_and(|f| !all_digits(f)) {
            return None;
        }
        let mut exp: i128 = match exponent {
            None => 0,
            Some(e) => {
                let (sign, digits) = match e.as_bytes().first() {
                    Some(b'-') => (-1, &e[1..]),
                    Some(b'+') => (1, &e[1..]),
                    _ => (1, e),
                };
                if !all_digits(digits) {
                    return None;
                }
                let digits = digits.trim_start_matches('0');
                if digits.len() > 36 {
                    return None;
                }
                sign * digits.parse::<i128>().unwrap_or(0)
            }
        };
        let fraction = fraction.unwrap_or("");
        let mut digits = format!("{whole}{fraction}");
        exp = exp.checked_sub(i128::try_from(fraction.len()).ok()?)?;
        let kept = digits.trim_end_matches('0').len();
        exp = exp.checked_add(i128::try_from(digits.len() - kept).ok()?)?;
        digits.truncate(kept);
        let digits = digits.trim_start_matches('0').to_owned();
        if digits.is_empty() {
            exp = 0;
        }
        Some(Number::Exact { int: exponent.is_none() && !mantissa.contains('.'), negative, digits, exp })
    }

    /// Its value, when it is an integer of at most 2^53 in magnitude (every such integer is a
    /// double, so one written `1.0` or `1e3` names it exactly), read from the literal: not
    /// `9007199254740993.0`, which a double would round to 2^53.
    pub fn small_integer(&self) -> Option<i64> {
        const LIMIT: i64 = 1 << 53;
        let Number::Exact { negative, digits, exp, .. } = self else { return None };
        if digits.is_empty() {
            return Some(0);
        }
        let zeros = usize::try_from(*exp).ok()?;
        if digits.len() + zeros > 16 {
            return None;
        }
        let magnitude: i64 = format!("{digits}{}", "0".repeat(zeros)).parse().ok()?;
        (magnitude <= LIMIT).then_some(if *negative { -magnitude } else { magnitude })
    }

    /// Is it an integer literal (`-?digits`: no fraction, no exponent)?
    pub fn is_integer_literal(&self) -> bool {
        matches!(self, Number::Exact { int: true, .. })
    }

    /// The same value whatever the literal type (`1` and `1.0` are; `1` and `2` are not).
    pub fn same_value(&self, other: &Number) -> bool {
        match (self, other) {
            (Number::Exact { negative, digits, exp, .. }, Number::Exact { negative: n, digits: d, exp: e, .. }) => {
                (negative, digits, exp) == (n, d, e)
            }
            (a, b) => a == b,
        }
    }
}

/// The number literals of a JSON text that serde_json accepted, in document order: every token
/// outside a string that starts with `-` or a digit.
pub fn literals(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len() && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                    i += 1;
                }
                out.push(&text[start..i]);
            }
            _ => i += 1,
        }
    }
    out
}

/// A JSON value that keeps every member of an object, repeated keys included, in order, and
/// every number exactly.
#[derive(Debug, Clone)]
pub enum Node {
    Null,
    Bool(bool),
    Num(Number),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

impl Node {
    /// The JSON text `bytes` as a tree with exact numbers; `None` when it does not parse.
    pub fn parse(bytes: &[u8]) -> Option<Node> {
        let mut node = serde_json::from_slice::<Node>(bytes).ok()?;
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lits = literals(text).into_iter();
        node.fill(&mut lits)?;
        lits.next().is_none().then_some(node)
    }

    /// Give each number, in document order, its literal.
    fn fill<'t>(&mut self, lits: &mut impl Iterator<Item = &'t str>) -> Option<()> {
        // An explicit stack: serde_json limits the depth already, but this walk need not rely on it.
        let mut stack: Vec<&mut Node> = vec![self];
        while let Some(n) = stack.pop() {
            match n {
                Node::Num(x) => *x = Number::parse(lits.next()?),
                Node::Arr(items) => stack.extend(items.iter_mut().rev()),
                Node::Obj(members) => stack.extend(members.iter_mut().rev().map(|(_, v)| v)),
                _ => {}
            }
        }
        Some(())
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Node::Null, Node::Null) => true,
            (Node::Bool(a), Node::Bool(b)) => a == b,
            (Node::Num(a), Node::Num(b)) => a == b,
            (Node::Str(a), Node::Str(b)) => a == b,
            (Node::Arr(a), Node::Arr(b)) => a == b,
            (Node::Obj(a), Node::Obj(b)) => {
                let unique = |m: &[(String, Node)]| m.iter().map(|(k, _)| k).collect::<BTreeSet<_>>().len() == m.len();
                if a.len() != b.len() {
                    false
                } else if unique(a) && unique(b) {
                    a.iter().all(|(k, v)| b.iter().any(|(l, w)| k == l && v == w))
                } else {
                    a == b
                }
            }
            _ => false,
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Node, E> {
                Ok(Node::Bool(b))
            }
            // The literal is filled in afterwards ([`Node::parse`]).
            fn visit_i64<E>(self, n: i64) -> Result<Node, E> {
                Ok(Node::Num(Number::Text(n.to_string())))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Node, E> {
                Ok(Node::Num(Number::Text(n.to_string())))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Node, E> {
                Ok(Node::Num(Number::Text(n.to_string())))
            }
            fn visit_str<E>(self, s: &str) -> Result<Node, E> {
                Ok(Node::Str(s.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Node::Arr(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Node>()? {
                    members.push(member);
                }
                Ok(Node::Obj(members))
            }
        }
        d.deserialize_any(V)
    }
}

/// The numbers of a JSON text by the RFC 6901 pointer a `serde_json::Value` of it has them at
/// (of repeated keys the last one, as serde_json keeps it), with their literals.
#[derive(Debug, Default)]
pub struct Numbers(HashMap<String, (Number, String)>);

/// Does a JSON text hold a number written with a fraction or an exponent (or one serde_json
/// reads as a float: `-0`, an integer beyond 64 bits), or an object that repeats a key? One
/// pass that builds nothing, for the common answer "no", before [`every_number`] looks closer.
/// Text that does not parse answers yes (the closer look decides).
pub fn floats_or_repeats(bytes: &[u8]) -> bool {
    use serde::de::DeserializeSeed;
    use std::borrow::Cow;

    /// Walks a value; `Err(())`-free: the answer is in `found`.
    struct Walk<'f>(&'f mut bool);

    impl<'de> DeserializeSeed<'de> for Walk<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Walk<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            *self.0 = true;
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element_seed(Walk(&mut *self.0))?.is_some() {}
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut keys: Vec<Cow<'de, str>> = Vec::new();
            while let Some(key) = map.next_key_seed(Key)? {
                if keys.contains(&key) {
                    *self.0 = true;
                }
                keys.push(key);
                map.next_value_seed(Walk(&mut *self.0))?;
            }
            Ok(())
        }
    }

    /// A key, borrowed from the text unless it has escapes.
    struct Key;

    impl<'de> DeserializeSeed<'de> for Key {
        type Value = Cow<'de, str>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
            d.deserialize_str(self)
        }
    }

    impl<'de> Visitor<'de> for Key {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a key")
        }
        fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Cow<'de, str>, E> {
            Ok(Cow::Borrowed(s))
        }
        fn visit_str<E>(self, s: &str) -> Result<Cow<'de, str>, E> {
            Ok(Cow::Owned(s.to_owned()))
        }
    }

    let mut found = false;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let walked = Walk(&mut found).deserialize(&mut de).and_then(|()| de.end());
    walked.is_err() || found
}

/// A number of a JSON text: its pointer, its value and its literal.
pub type Located<'t> = (String, Number, &'t str);

/// Every number of a JSON text, in document order, each with the RFC 6901 pointer a
/// `serde_json::Value` of the text would have it at and its literal, every occurrence of a
/// repeated key included; and the pointers of the keys an object repeats. `None` when the text
/// does not parse.
pub fn every_number(bytes: &[u8]) -> Option<(Vec<Located<'_>>, Vec<String>)> {
    let node = serde_json::from_slice::<Node>(bytes).ok()?;
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lits = literals(text).into_iter();
    let (mut numbers, mut repeated) = (Vec::new(), Vec::new());
    let mut stack: Vec<(String, &Node)> = vec![(String::new(), &node)];
    while let Some((at, n)) = stack.pop() {
        match n {
            Node::Num(_) => {
                let lit = lits.next()?;
                numbers.push((at, Number::parse(lit), lit));
            }
            Node::Arr(items) => {
                stack.extend(items.iter().enumerate().rev().map(|(i, v)| (format!("{at}/{i}"), v)));
            }
            Node::Obj(members) => {
                let mut seen = BTreeSet::new();
                for (k, _) in members {
                    if !seen.insert(k.as_str()) {
                        repeated.push(crate::suite::pointer::join(&at, k));
                    }
                }
                stack.extend(members.iter().rev().map(|(k, v)| (crate::suite::pointer::join(&at, k), v)));
            }
            _ => {}
        }
    }
    lits.next().is_none().then_some((numbers, repeated))
}

impl Numbers {
    /// The numbers of `bytes`; `None` when it does not parse.
    pub fn of(bytes: &[u8]) -> Option<Numbers> {
        let (numbers, _) = every_number(bytes)?;
        // Document order, so that a repeated key's later value overwrites the earlier one's.
        Some(Numbers(numbers.into_iter().map(|(at, n, lit)| (at, (n, lit.to_owned()))).collect()))
    }

    /// Every number by its pointer, with its literal.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &(Number, String))> {
        self.0.iter().map(|(at, n)| (at.as_str(), n))
    }

    /// The number at `pointer`, with its literal.
    pub fn get(&self, pointer: &str) -> Option<&(Number, String)> {
        self.0.get(pointer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_by_exact_value_and_literal_type() {
        let n = Number::parse;
        for (a, b) in
            [("1.0", "1e0"), ("1.0", "10e-1"), ("1.50", "1.5"), ("100.0", "1E2"), ("0.0", "0e5"), ("-0", "-0")]
        {
            assert_eq!(n(a), n(b), "{a} = {b}");
        }
        for (a, b) in [
            ("9007199254740993", "9007199254740992"),
            ("0.10000000000000000001", "0.1"),
            ("1234567890123456789012345678901234567890", "1234567890123456789012345678901234567891"),
            ("1", "1.0"),
            ("100", "1e2"),
            ("0", "-0"),
            ("0.0", "-0.0"),
            ("1e-400", "0.0"),
            ("1e99999999999999999999999999999999999999999", "10e99999999999999999999999999999999999999998"),
        ] {
            assert_ne!(n(a), n(b), "{a} ≠ {b}");
        }
        assert!(n("1").same_value(&n("1.000")));
        for (lit, want) in [
            ("1.0", Some(1)),
            ("1e3", Some(1000)),
            ("-2.50e1", Some(-25)),
            ("2.5", None),
            ("-25.0", Some(-25)),
            ("0.0e9", Some(0)),
            ("9007199254740992.0", Some(9_007_199_254_740_992)),
            ("9007199254740993.0", None),
            ("1.0000000000000001", None),
            ("1e16", None),
        ] {
            assert_eq!(n(lit).small_integer(), want, "{lit}");
        }
        assert!(!n("0").same_value(&n("-0.0")));
        assert_eq!(n("00012.3400e+2"), n("1234.0"));
        assert_eq!(n("1e00000000000000000000000000000000000000000002"), n("100.0"), "leading zeros of the exponent");
    }

    #[test]
    fn a_closer_look_only_at_floats_and_repeats() {
        for (text, look) in [
            (r#"{"a": 1, "b": [2, {"c": "1.5"}], "d": -3}"#, false),
            (r#"{"a": 1.0}"#, true),
            (r#"{"a": [1, 2e0]}"#, true),
            (r#"{"a": -0}"#, true),
            (r#"{"a": 1, "a": 1}"#, true),
            (r#"{"a": 1, "\u0061": 1}"#, true),
            (r#"{"a": {"b": 1}, "c": {"b": 1}}"#, false),
            ("not json", true),
        ] {
            assert_eq!(floats_or_repeats(text.as_bytes()), look, "{text}");
        }
    }

    #[test]
    fn literals_skip_strings_and_keys() {
        let text = r#"{"a1": [1, -2.5e+3, "x\"9", {"-3": 0}], "b": 1E2, "c\\": true}"#;
        assert_eq!(literals(text), ["1", "-2.5e+3", "0", "1E2"]);
    }

    #[test]
    fn numbers_by_pointer_keep_the_last_of_repeated_keys() {
        let n = Numbers::of(br#"{"a": 1, "b": [2.50, {"c": 3}], "a": 4.0}"#).unwrap();
        assert_eq!(n.get("/a").map(|x| x.1.as_str()), Some("4.0"));
        assert_eq!(n.get("/b/0").map(|x| &x.0), Some(&Number::parse("2.5")));
        assert_eq!(n.get("/b/1/c").map(|x| x.1.as_str()), Some("3"));
        assert!(Numbers::of(b"{").is_none());
        let node = Node::parse(br#"{"x": 1e-400}"#).unwrap();
        assert!(node != Node::parse(br#"{"x": 0.0}"#).unwrap());
    }
}
