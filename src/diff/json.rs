//! JSON edits between two values: what `diff` shows of a case, a block's shared fields, a
//! schema, `exceptions` and `skip_policy`.
//!
//! Invariants:
//! - An edit names an RFC 6901 pointer relative to the compared values and one operation:
//!   `added` (only the new value has the member or element), `removed` (only the old one),
//!   `retyped` (both have it, with different JSON types, neither `null`) or `changed` (both have
//!   it, same type or one side `null`, different values). Objects are compared member by member
//!   whatever their key order; a value that is equal on both sides yields no edit.
//! - JSON types are the manifest's (decisions R20.3): an integer literal (`1`) and a number with
//!   a fraction or exponent (`1.0`) are different types, so `1` → `1.0` is a retype, since one
//!   retyped field aborts a whole Go test. `null` is a value of any type (nullable fields are
//!   written `null`, R20.6), so `null` ↔ `"x"` is a change, never a retype. A number's type is
//!   its literal's, read from the text when the caller gives the texts' numbers, never the
//!   `Value`'s: serde_json reads `-0` as the float `-0.0`, yet `-0` is an integer literal, so
//!   `0` → `-0` is a change and `-0.0` → `-0` a retype ([`Edit::old_type`] names it the same way).
//! - Numbers are equal when their literals write the same mathematical value with the same
//!   literal type ([`super::exact`]), when the caller gives the texts' numbers
//!   ([`Compare::numbers`]; `diff` always does): serde_json holds a number as an `f64`, `i64`
//!   or `u64`, so `0.10000000000000000001` and `0.1` are one `Value`. Without the texts, as the
//!   `Value`s hold them. An edit whose value the text writes otherwise than the `Value`
//!   serialises (a number beyond f64, `1e3` read as `1000.0`, `-0` read as `-0.0`, or an object
//!   or array with such a number inside) also carries it as written (`old_literal` /
//!   `new_literal`), which the rendering shows.
//! - Arrays are compared element by element by position ([`Arrays::Ordered`]: case data, where
//!   order is meaning, such as a Redis case's steps), or, for suite metadata of unknown shape
//!   ([`Arrays::Keyed`]), by identity when every element has one: objects by a unique string
//!   `id`, `name`, `case` or `section` member or by the pair `family` + `binding`, scalars as
//!   a set; otherwise, when no element repeats on either side, as a set of whole values (a
//!   `skip_policy` rule's `cases`, `{section, case}` and `{section, block}` mixed: an element
//!   inserted anywhere is one addition, a changed one a removal and an addition); otherwise by
//!   position. A keyed element's pointer uses its index on the side that has it (the new side
//!   when both do).
//! - An array the caller names a set ([`Compare::sets`]: a case list whose order carries no
//!   meaning) compares as a multiset, whatever the mode: each old element is matched with an
//!   equal new one (numbers exactly); then each old element left is matched with a new one left
//!   that differs from it only by retypes (every edit between them `retyped`: `{"score": 1002}`
//!   and `{"score": 1002.0}`), so a retype inside a multiset is a retype, as anywhere else; the
//!   unmatched old ones are removed, the unmatched new ones added, and a member of an added
//!   element (or the element itself, or a member's member) whose type no old element gives the
//!   node at that place (those that have one there, `null` apart) is a retype too
//!   ([`Compare::retypes_in_added`]): an entry that changed a value and a type at once, or a new
//!   entry of another type (a number where numbers were, an object where strings were), retypes
//!   the entries all the same. A new order
//!   is no edit; an element repeated or dropped is one.

use serde::Serialize;
use serde_json::{Map, Value};

use super::exact::{Number, Numbers};
use crate::suite::pointer;

/// What happened at a pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Added,
    Removed,
    Changed,
    Retyped,
}

/// One edit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Edit {
    /// RFC 6901 pointer, relative to the compared values.
    pub pointer: String,
    pub op: Op,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
    /// The old value as its text writes it, where that differs from `old` serialised: a
    /// number's literal (`1e3`, `-0`, one beyond f64), or an object or array with such a number
    /// inside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_literal: Option<String>,
    /// The new value as its text writes it, where that differs from `new` serialised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_literal: Option<String>,
}

impl Edit {
    /// The unescaped reference tokens of the pointer.
    pub fn tokens(&self) -> Vec<String> {
        pointer::parse(&self.pointer).unwrap_or_default()
    }

    /// The first token: the member of the compared object this edit lies in.
    pub fn top(&self) -> Option<String> {
        self.tokens().into_iter().next()
    }

    /// Is the edit a whole member of the compared object (its pointer has one token)?
    pub fn is_top_level(&self) -> bool {
        self.tokens().len() == 1
    }

    /// The JSON type of the old value, a number's by its literal where the edit has it.
    pub fn old_type(&self) -> Option<&'static str> {
        written_type(self.old.as_ref()?, self.old_literal.as_deref())
    }

    /// The JSON type of the new value, a number's by its literal where the edit has it.
    pub fn new_type(&self) -> Option<&'static str> {
        written_type(self.new.as_ref()?, self.new_literal.as_deref())
    }
}

/// The JSON type of `v`, whose text writes it as `literal` where that is given: a number is an
/// integer exactly when its literal is an integer literal.
fn written_type(v: &Value, literal: Option<&str>) -> Option<&'static str> {
    Some(match (v, literal) {
        (Value::Number(_), Some(l)) if Number::parse(l).is_integer_literal() => "integer",
        (Value::Number(_), Some(_)) => "number",
        _ => json_type(v),
    })
}

/// A node of a multiset element: its pointer below the element, its pointer in its side's text,
/// its JSON type (a number's by its literal), and the value.
type Leaf<'v> = (String, String, &'static str, &'v Value);

/// How arrays are matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrays {
    /// By position.
    Ordered,
    /// By element identity where every element has one, else by position.
    Keyed,
}

/// The JSON type of a value, with integer literals apart from other numbers, as the `Value`
/// holds it (`-0` and integers beyond 64 bits are floats there: where the text is at hand, the
/// literal decides, [`Edit::old_type`]).
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        other => crate::core::json::type_name(other),
    }
}

/// Every edit from `old` to `new`, in document order (old members first where they differ).
pub fn edits(old: &Value, new: &Value, arrays: Arrays) -> Vec<Edit> {
    Compare::new(arrays).edits(old, new)
}

/// How two values are compared: their arrays, the exact numbers of the texts they were read
/// from, and which arrays are sets.
#[derive(Clone, Copy)]
pub struct Compare<'a> {
    arrays: Arrays,
    /// The numbers of each side's text and the pointer of the compared value in it.
    numbers: [Option<(&'a Numbers, &'a str)>; 2],
    /// Is the array at this pointer (relative to the compared values) a set?
    sets: Option<&'a dyn Fn(&str) -> bool>,
}

impl<'a> Compare<'a> {
    /// Arrays as `arrays` says, numbers as the values hold them, no sets.
    pub fn new(arrays: Arrays) -> Self {
        Compare { arrays, numbers: [None, None], sets: None }
    }

    /// Numbers by the literals of the texts the values were read from: `old` at `old_at` of
    /// `old_numbers`, `new` at `new_at` of `new_numbers`.
    pub fn numbers(
        mut self,
        old: Option<&'a Numbers>,
        old_at: &'a str,
        new: Option<&'a Numbers>,
        new_at: &'a str,
    ) -> Self {
        self.numbers = [old.map(|n| (n, old_at)), new.map(|n| (n, new_at))];
        self
    }

    /// Arrays at the pointers `sets` accepts compare as multisets.
    pub fn sets(mut self, sets: &'a dyn Fn(&str) -> bool) -> Self {
        self.sets = Some(sets);
        self
    }

    /// Every edit from `old` to `new`, in document order (old members first where they differ).
    pub fn edits(&self, old: &Value, new: &Value) -> Vec<Edit> {
        let mut out = Vec::new();
        let base = |i: usize| self.numbers[i].map(|(_, at)| at.to_owned()).unwrap_or_default();
        let mut at = Paths { out: String::new(), old: base(0), new: base(1) };
        self.walk(old, new, &mut at, &mut out);
        out
    }

    /// The number at `at` on side `side`, with its literal.
    fn number(&self, side: usize, at: &str) -> Option<&'a (Number, String)> {
        self.numbers[side].and_then(|(n, _)| n.get(at))
    }

    fn walk(&self, old: &Value, new: &Value, at: &mut Paths, out: &mut Vec<Edit>) {
        match (old, new) {
            (Value::Object(a), Value::Object(b)) => self.objects(a, b, at, out),
            (Value::Array(a), Value::Array(b)) => {
                let set = self.sets.is_some_and(|f| f(&at.out));
                let pairs = if set {
                    self.set_pairs(a, b, at)
                } else {
                    match self.arrays {
                        Arrays::Keyed => keyed_pairs(a, b),
                        Arrays::Ordered => None,
                    }
                    .unwrap_or_else(|| positional_pairs(a.len(), b.len()))
                };
                // Of a multiset, the types its old elements give each member, for the added ones.
                let mut old_types: Option<Vec<Leaf<'_>>> = None;
                for (i, j) in pairs {
                    let mark = at.mark();
                    at.index(j.or(i).unwrap_or(0), i, j);
                    match (i.map(|i| &a[i]), j.map(|j| &b[j])) {
                        (Some(x), Some(y)) => self.walk(x, y, at, out),
                        (x, y) => {
                            self.push(out, at, x, y);
                            if let (true, None, Some(y)) = (set, x, y) {
                                let types = old_types.get_or_insert_with(|| {
                                    let mut all = Vec::new();
                                    for (k, v) in a.iter().enumerate() {
                                        let base = format!("{}/{k}", &at.old[..mark[1]]);
                                        self.node_types(0, &base, v, &mut String::new(), &mut all);
                                    }
                                    all
                                });
                                self.retypes_in_added(y, types, at, out);
                            }
                        }
                    }
                    at.reset(mark);
                }
            }
            (Value::Number(_), Value::Number(_)) => {
                let same = match (self.number(0, &at.old), self.number(1, &at.new)) {
                    (Some(x), Some(y)) => x.0 == y.0,
                    _ => old == new,
                };
                if !same {
                    self.push(out, at, Some(old), Some(new));
                }
            }
            _ if old == new => {}
            _ => self.push(out, at, Some(old), Some(new)),
        }
    }

    fn objects(&self, a: &Map<String, Value>, b: &Map<String, Value>, at: &mut Paths, out: &mut Vec<Edit>) {
        for (k, x) in a {
            let mark = at.mark();
            at.member(k);
            match b.get(k) {
                Some(y) => self.walk(x, y, at, out),
                None => self.push(out, at, Some(x), None),
            }
            at.reset(mark);
        }
        for (k, y) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
            let mark = at.mark();
            at.member(k);
            self.push(out, at, None, Some(y));
            at.reset(mark);
        }
    }

    /// Index pairs of a multiset: each old element with the first unmatched new element equal
    /// to it (by this comparison, numbers exactly); then each old element left with the first
    /// new one left that differs from it only by retypes; then the unmatched old elements
    /// (removed), then the unmatched new ones (added). Order is no edit; how often an element
    /// occurs is.
    fn set_pairs(&self, a: &[Value], b: &[Value], at: &Paths) -> Vec<(Option<usize>, Option<usize>)> {
        let mut used = vec![false; b.len()];
        let probe = |i: usize, j: usize| {
            let mut probe = at.clone();
            probe.index(j, Some(i), Some(j));
            let mut edits = Vec::new();
            self.walk(&a[i], &b[j], &mut probe, &mut edits);
            edits
        };
        let mut left = Vec::new();
        for i in 0..a.len() {
            match (0..b.len()).find(|&j| !used[j] && probe(i, j).is_empty()) {
                Some(j) => used[j] = true,
                None => left.push(i),
            }
        }
        let mut pairs = Vec::new();
        for i in left {
            let retyped = (0..b.len()).find(|&j| {
                !used[j] && {
                    let edits = probe(i, j);
                    !edits.is_empty() && edits.iter().all(|e| e.op == Op::Retyped)
                }
            });
            if let Some(j) = retyped {
                used[j] = true;
            }
            pairs.push((Some(i), retyped));
        }
        pairs.extend((0..b.len()).filter(|&j| !used[j]).map(|j| (None, Some(j))));
        pairs
    }

    /// Every node of `v` but `null` (at `base` of side `side`), `v` itself included: its
    /// pointer below `v`, its pointer in its side's text, its JSON type (a number's by its
    /// literal) and the value.
    fn node_types<'v>(&self, side: usize, base: &str, v: &'v Value, rel: &mut String, out: &mut Vec<Leaf<'v>>) {
        if v.is_null() {
            return;
        }
        let at = format!("{base}{rel}");
        let literal = match v {
            Value::Number(_) => self.number(side, &at).map(|(_, l)| l.as_str()),
            _ => None,
        };
        out.push((rel.clone(), at, written_type(v, literal).unwrap_or("null"), v));
        let mark = rel.len();
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    pointer::push(rel, k);
                    self.node_types(side, base, x, rel, out);
                    rel.truncate(mark);
                }
            }
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    pointer::push_index(rel, i);
                    self.node_types(side, base, x, rel, out);
                    rel.truncate(mark);
                }
            }
            _ => {}
        }
    }

    /// A multiset element `added` (at `at`) that no old element was paired with: each node of
    /// it (the element itself, a member, a member's member) whose type none of the old
    /// elements gives the node at that place (those that have one there, `null` apart) is a
    /// retype, shown against an old element's value. An entry added with `1002.0`, `{"v":
    /// 1002}` or `[1002]` where every old entry wrote `1002`, or an object added to a list of
    /// strings, retypes the entries as a changed entry would.
    fn retypes_in_added(&self, added: &Value, old_types: &[Leaf<'_>], at: &Paths, out: &mut Vec<Edit>) {
        let mut new_types = Vec::new();
        self.node_types(1, &at.new, added, &mut String::new(), &mut new_types);
        for (rel, new_at, t, value) in new_types {
            let mut was = old_types.iter().filter(|(r, ..)| *r == rel).peekable();
            let Some((_, old_at, _, old_value)) = was.peek().copied() else { continue };
            if was.any(|(_, _, ot, _)| *ot == t) {
                continue;
            }
            out.push(Edit {
                pointer: format!("{}{rel}", at.out),
                op: Op::Retyped,
                old: Some((*old_value).clone()),
                new: Some(value.clone()),
                old_literal: self.written(0, old_at, old_value),
                new_literal: self.written(1, &new_at, value),
            });
        }
    }

    fn push(&self, out: &mut Vec<Edit>, at: &Paths, old: Option<&Value>, new: Option<&Value>) {
        let old_literal = old.and_then(|v| self.written(0, &at.old, v));
        let new_literal = new.and_then(|v| self.written(1, &at.new, v));
        let op = match (old, new) {
            (None, _) => Op::Added,
            (_, None) => Op::Removed,
            (Some(x), Some(y))
                if !x.is_null()
                    && !y.is_null()
                    && written_type(x, old_literal.as_deref()) != written_type(y, new_literal.as_deref()) =>
            {
                Op::Retyped
            }
            _ => Op::Changed,
        };
        out.push(Edit { pointer: at.out.clone(), op, old_literal, new_literal, old: old.cloned(), new: new.cloned() });
    }

    /// `v`, at `at` of side `side`, as its text writes it (numbers by their literals), when the
    /// caller gave that side's numbers and that differs from `v` serialised.
    fn written(&self, side: usize, at: &str, v: &Value) -> Option<String> {
        self.numbers[side]?;
        if !matches!(v, Value::Number(_) | Value::Array(_) | Value::Object(_)) {
            return None;
        }
        let mut text = String::new();
        self.write(side, &mut at.to_owned(), v, &mut text);
        let serialised = serde_json::to_string(v).unwrap_or_default();
        (text != serialised).then_some(text)
    }

    /// Write `v` compactly, as serde_json does, but each number as its literal.
    fn write(&self, side: usize, at: &mut String, v: &Value, out: &mut String) {
        let mark = at.len();
        match v {
            Value::Number(n) => match self.number(side, at) {
                Some((_, literal)) => out.push_str(literal),
                None => out.push_str(&n.to_string()),
            },
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    pointer::push_index(at, i);
                    self.write(side, at, item, out);
                    at.truncate(mark);
                }
                out.push(']');
            }
            Value::Object(members) => {
                out.push('{');
                for (i, (k, item)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::from(k.as_str()).to_string());
                    out.push(':');
                    pointer::push(at, k);
                    self.write(side, at, item, out);
                    at.truncate(mark);
                }
                out.push('}');
            }
            other => out.push_str(&other.to_string()),
        }
    }
}

/// Where a walk is: the pointer an edit is named by (relative; an element by its new index
/// when both sides have it) and the absolute pointer on each side (for its numbers).
#[derive(Clone)]
struct Paths {
    out: String,
    old: String,
    new: String,
}

impl Paths {
    fn mark(&self) -> [usize; 3] {
        [self.out.len(), self.old.len(), self.new.len()]
    }

    fn reset(&mut self, [o, a, b]: [usize; 3]) {
        self.out.truncate(o);
        self.old.truncate(a);
        self.new.truncate(b);
    }

    fn member(&mut self, k: &str) {
        pointer::push(&mut self.out, k);
        pointer::push(&mut self.old, k);
        pointer::push(&mut self.new, k);
    }

    fn index(&mut self, shown: usize, old: Option<usize>, new: Option<usize>) {
        pointer::push_index(&mut self.out, shown);
        pointer::push_index(&mut self.old, old.unwrap_or(shown));
        pointer::push_index(&mut self.new, new.unwrap_or(shown));
    }
}

/// Index pairs by position: common prefix, then the longer side's tail alone.
fn positional_pairs(a: usize, b: usize) -> Vec<(Option<usize>, Option<usize>)> {
    (0..a.max(b)).map(|i| ((i < a).then_some(i), (i < b).then_some(i))).collect()
}

/// The identity members an element may carry, tried in this order.
const IDENTITIES: [&[&str]; 5] = [&["id"], &["name"], &["case"], &["section"], &["family", "binding"]];

/// Index pairs by element identity (old order, then elements only the new side has), when
/// every element of both arrays has one and no identity repeats on a side.
fn keyed_pairs(a: &[Value], b: &[Value]) -> Option<Vec<(Option<usize>, Option<usize>)>> {
    let scalar_key = |v: &Value| (!v.is_object() && !v.is_array()).then(|| v.to_string());
    let keys = |items: &[Value], key: &dyn Fn(&Value) -> Option<String>| -> Option<Vec<String>> {
        let ks: Vec<String> = items.iter().map(key).collect::<Option<_>>()?;
        let mut sorted = ks.clone();
        sorted.sort();
        sorted.dedup();
        (sorted.len() == ks.len()).then_some(ks)
    };
    let member_key = |members: &'static [&'static str]| {
        move |v: &Value| -> Option<String> {
            let parts: Vec<&str> = members.iter().map(|m| v.get(m)?.as_str()).collect::<Option<_>>()?;
            Some(parts.join("\u{0}"))
        }
    };
    let whole = |v: &Value| Some(whole_key(v));
    let found = std::iter::once(keys(a, &scalar_key).zip(keys(b, &scalar_key)))
        .chain(IDENTITIES.iter().map(|m| {
            let f = member_key(m);
            keys(a, &f).zip(keys(b, &f))
        }))
        .chain(std::iter::once(keys(a, &whole).zip(keys(b, &whole))))
        .flatten()
        .next()?;
    let (ka, kb) = found;
    let mut pairs: Vec<_> = ka.iter().enumerate().map(|(i, k)| (Some(i), kb.iter().position(|x| x == k))).collect();
    pairs.extend(kb.iter().enumerate().filter(|(_, k)| !ka.contains(k)).map(|(j, _)| (None, Some(j))));
    Some(pairs)
}

/// A value's text with object members sorted by name: equal values, whatever their member
/// order, have one key.
pub fn whole_key(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut members: Vec<(&String, String)> = m.iter().map(|(k, v)| (k, whole_key(v))).collect();
            members.sort();
            let inner: Vec<String> =
                members.into_iter().map(|(k, v)| format!("{}:{v}", Value::from(k.as_str()))).collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(whole_key).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ops(old: Value, new: Value, arrays: Arrays) -> Vec<(String, Op)> {
        edits(&old, &new, arrays).into_iter().map(|e| (e.pointer, e.op)).collect()
    }

    #[test]
    fn members_added_removed_changed_and_retyped() {
        let got = ops(
            json!({"a": 1, "b": "x", "c": {"d": [1, 2]}, "e": null, "f": 1, "g~/": 0}),
            json!({"g~/": 0, "a": 2, "c": {"d": [1, 3, 4]}, "e": "now", "f": 1.0, "h": true}),
            Arrays::Ordered,
        );
        assert_eq!(
            got,
            [
                ("/a".into(), Op::Changed),
                ("/b".into(), Op::Removed),
                ("/c/d/1".into(), Op::Changed),
                ("/c/d/2".into(), Op::Added),
                ("/e".into(), Op::Changed),
                ("/f".into(), Op::Retyped),
                ("/h".into(), Op::Added),
            ]
        );
        assert!(edits(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1}), Arrays::Ordered).is_empty());
        assert_eq!(ops(json!({"k": "1"}), json!({"k": 1}), Arrays::Ordered), [("/k".into(), Op::Retyped)]);
        assert_eq!(ops(json!({"k~/": 1}), json!({}), Arrays::Ordered), [("/k~0~1".into(), Op::Removed)]);
        // Every integer is of one type, whatever serde_json holds it in: a negative one (i64
        // only) or one above i64 (u64 only) made a float is a retype too.
        assert_eq!(
            ops(json!({"n": -1, "u": u64::MAX}), json!({"n": -1.5, "u": 1.5}), Arrays::Ordered),
            [("/n".into(), Op::Retyped), ("/u".into(), Op::Retyped)]
        );
    }

    #[test]
    fn keyed_arrays_match_by_identity_and_scalars_as_sets() {
        let old = json!([{"name": "a", "v": 1}, {"name": "b", "v": 1}]);
        let new = json!([{"name": "b", "v": 2}, {"name": "c"}, {"name": "a", "v": 1}]);
        assert_eq!(
            ops(old.clone(), new.clone(), Arrays::Keyed),
            [("/0/v".into(), Op::Changed), ("/1".into(), Op::Added)]
        );
        assert!(ops(old, new, Arrays::Ordered).len() > 2, "by position every element differs");
        assert_eq!(
            ops(json!(["x", "y"]), json!(["y", "z"]), Arrays::Keyed),
            [("/0".into(), Op::Removed), ("/1".into(), Op::Added)]
        );
        let ex = |adr: &str| json!([{"family": "php", "binding": "asb", "adr": adr}]);
        assert_eq!(ops(ex("ADR-0021"), ex("ADR-0040"), Arrays::Keyed), [("/0/adr".into(), Op::Changed)]);
        // No common identity member: whole values as a set, where none repeats.
        let old = json!([{"section": "a", "case": "x"}, {"section": "a", "block": "b"}]);
        let new =
            json!([{"block": "c", "section": "a"}, {"case": "x", "section": "a"}, {"section": "a", "block": "b"}]);
        assert_eq!(ops(old.clone(), new, Arrays::Keyed), [("/0".into(), Op::Added)]);
        let new = json!([{"section": "a", "block": "b"}]);
        assert_eq!(ops(old, new, Arrays::Keyed), [("/0".into(), Op::Removed)]);
        // Repeated identities fall back to positions.
        assert_eq!(
            ops(json!([{"id": "a"}, {"id": "a"}]), json!([{"id": "a"}]), Arrays::Keyed),
            [("/1".into(), Op::Removed)]
        );
        // Arrays as elements are whole values too, their objects' members in any order.
        assert!(ops(json!([[{"a": 1, "b": 2}], [3]]), json!([[3], [{"b": 2, "a": 1}]]), Arrays::Keyed).is_empty());
    }

    /// The edits between two JSON texts, numbers by their literals; `sets` names the multisets.
    fn exact(old: &str, new: &str, sets: &dyn Fn(&str) -> bool) -> Vec<Edit> {
        let (x, y): (Value, Value) = (serde_json::from_str(old).unwrap(), serde_json::from_str(new).unwrap());
        let (a, b) = (Numbers::of(old.as_bytes()).unwrap(), Numbers::of(new.as_bytes()).unwrap());
        Compare::new(Arrays::Ordered).numbers(Some(&a), "", Some(&b), "").sets(sets).edits(&x, &y)
    }

    #[test]
    fn a_number_s_type_is_its_literal_s_not_the_value_s() {
        let none = |_: &str| false;
        // serde_json reads -0 as the float -0.0, but -0 is an integer literal.
        let e = exact(r#"{"d": 0}"#, r#"{"d": -0}"#, &none);
        assert_eq!(
            (e.len(), e[0].op, e[0].old_type(), e[0].new_type()),
            (1, Op::Changed, Some("integer"), Some("integer"))
        );
        assert_eq!(e[0].new_literal.as_deref(), Some("-0"));
        let e = exact(r#"{"d": -0.0}"#, r#"{"d": -0}"#, &none);
        assert_eq!((e[0].op, e[0].old_type(), e[0].new_type()), (Op::Retyped, Some("number"), Some("integer")));
        let e = exact(r#"{"d": -0}"#, r#"{"d": 0.0}"#, &none);
        assert_eq!(e[0].op, Op::Retyped);
        // An integer beyond 64 bits is a float to serde_json, an integer literal still.
        let e = exact(r#"{"d": 1}"#, r#"{"d": 123456789012345678901234567890}"#, &none);
        assert_eq!((e[0].op, e[0].new_type()), (Op::Changed, Some("integer")));
        // Without the texts, as the values hold them.
        let plain = edits(&json!({"d": 0}), &serde_json::from_str(r#"{"d": -0}"#).unwrap(), Arrays::Ordered);
        assert_eq!(plain[0].op, Op::Retyped);
    }

    #[test]
    fn values_are_shown_as_their_text_writes_them() {
        let none = |_: &str| false;
        let e = exact(r#"{"d": 1e3}"#, r#"{"d": 7}"#, &none);
        assert_eq!((e[0].old_literal.as_deref(), e[0].new_literal.as_deref()), (Some("1e3"), None));
        let e = exact(r#"{"d": 1}"#, r#"{"d": 1, "e": {"x": -0, "y": [1E2, "s"]}, "f": {"x": 1}}"#, &none);
        let shown: Vec<_> = e.iter().map(|e| (e.pointer.as_str(), e.new_literal.as_deref())).collect();
        assert_eq!(shown, [("/e", Some(r#"{"x":-0,"y":[1E2,"s"]}"#)), ("/f", None)]);
    }

    #[test]
    fn a_retype_inside_a_multiset_is_a_retype() {
        let delayed = |at: &str| at == "/delayed";
        let old = r#"{"delayed": [{"body": "a", "score": 1002}, {"body": "b", "score": 7}]}"#;
        let new = r#"{"delayed": [{"body": "b", "score": 7}, {"body": "a", "score": 1002.0}]}"#;
        let e = exact(old, new, &delayed);
        let got: Vec<_> = e.iter().map(|e| (e.pointer.as_str(), e.op)).collect();
        assert_eq!(got, [("/delayed/1/score", Op::Retyped)]);
        // Another value as well: a removal and an addition, and the added entry's score is of a
        // type no old entry gave it, so a retype all the same (red team: the other change hid it).
        let new = r#"{"delayed": [{"body": "b", "score": 7}, {"body": "c", "score": 1002.0}]}"#;
        let got: Vec<_> = exact(old, new, &delayed).into_iter().map(|e| (e.pointer, e.op)).collect();
        assert_eq!(
            got,
            [
                ("/delayed/0".to_owned(), Op::Removed),
                ("/delayed/1".to_owned(), Op::Added),
                ("/delayed/1/score".to_owned(), Op::Retyped)
            ]
        );
        // An entry added with a type the old entries gave that member too is no retype.
        let mixed = r#"{"delayed": [{"body": "a", "score": 1002}, {"body": "b", "score": 7.5}]}"#;
        let added =
            r#"{"delayed": [{"body": "a", "score": 1002}, {"body": "b", "score": 7.5}, {"body": "c", "score": 8.5}]}"#;
        let got: Vec<_> = exact(mixed, added, &delayed).into_iter().map(|e| (e.pointer, e.op)).collect();
        assert_eq!(got, [("/delayed/2".to_owned(), Op::Added)]);
        // A container where a number was, an entry of another type: retypes (red team).
        for (added, at) in [
            (r#"{"body": "c", "score": {"v": 1003}}"#, "/delayed/2/score"),
            (r#"{"body": "c", "score": [1003]}"#, "/delayed/2/score"),
            (r#"{"body": {"x": "c"}, "score": 1003}"#, "/delayed/2/body"),
            (r#""c""#, "/delayed/2"),
        ] {
            let new =
                format!(r#"{{"delayed": [{{"body": "a", "score": 1002}}, {{"body": "b", "score": 7}}, {added}]}}"#);
            let got: Vec<_> = exact(old, &new, &delayed).into_iter().map(|e| (e.pointer, e.op)).collect();
            assert_eq!(got, [("/delayed/2".to_owned(), Op::Added), (at.to_owned(), Op::Retyped)], "{added}");
        }
        let strings = |at: &str| at == "/absent";
        let got: Vec<_> = exact(r#"{"absent": ["/urn"]}"#, r#"{"absent": ["/urn", {"p": "/x"}]}"#, &strings)
            .into_iter()
            .map(|e| (e.pointer, e.op))
            .collect();
        assert_eq!(got, [("/absent/1".to_owned(), Op::Added), ("/absent/1".to_owned(), Op::Retyped)]);
        assert_eq!(exact(r#"{"absent": ["/urn"]}"#, r#"{"absent": ["/urn", "/x"]}"#, &strings)[0].op, Op::Added);
        // Nor is a member no old entry has, nor one an old entry wrote null.
        let nulls = r#"{"delayed": [{"body": "a", "score": null}]}"#;
        let more = r#"{"delayed": [{"body": "a", "score": null}, {"body": "b", "score": 1.5, "extra": 1}]}"#;
        let got: Vec<_> = exact(nulls, more, &delayed).into_iter().map(|e| (e.pointer, e.op)).collect();
        assert_eq!(got, [("/delayed/1".to_owned(), Op::Added)]);
        // Reordered and equal: nothing.
        assert!(
            exact(old, r#"{"delayed": [{"score": 7, "body": "b"}, {"body": "a", "score": 1002}]}"#, &delayed)
                .is_empty()
        );
        // One old entry, `{"body": "a", "score": <old>}`, and one added, `{"body": "c", "score": <added>}`.
        let beside = |old: &str, added: &str| -> Vec<(String, Op)> {
            let entry = |body: &str, score: &str| format!(r#"{{"body": "{body}", "score": {score}}}"#);
            let new = format!(r#"{{"delayed": [{}, {}]}}"#, entry("a", old), entry("c", added));
            exact(&format!(r#"{{"delayed": [{}]}}"#, entry("a", old)), &new, &delayed)
                .into_iter()
                .map(|e| (e.pointer, e.op))
                .collect()
        };
        // Inside an entry's array as well: `[1.5]` added where every old entry wrote `[1002]`.
        assert_eq!(
            beside("[1002]", "[1.5]"),
            [("/delayed/1".to_owned(), Op::Added), ("/delayed/1/score/0".to_owned(), Op::Retyped)]
        );
        // An old entry's number is typed by its literal: `-0` (serde_json's -0.0) is an integer,
        // so an integer added beside it is no retype.
        assert_eq!(beside("-0", "5"), [("/delayed/1".to_owned(), Op::Added)]);
    }

    #[test]
    fn edit_tokens() {
        let e = Edit {
            pointer: "/expect_headers/bq-delay".into(),
            op: Op::Changed,
            old: None,
            new: None,
            old_literal: None,
            new_literal: None,
        };
        assert_eq!(e.top().as_deref(), Some("expect_headers"));
        assert!(!e.is_top_level());
        assert_eq!(json_type(&json!(1)), "integer");
        assert_eq!(json_type(&json!(1.5)), "number");
    }
}
