#![no_main]
//! `validate` and `run` on the canonical suite with its manifest edited: what must hold is
//! `tests/support/untrusted.rs`'s `manifest_text`. The input is not the manifest's text (a
//! mutated text of 300 KB is nearly always not JSON, and would stop at the reader) but a
//! program of edits on its tree, so every input reaches the section readers, the cross-checks,
//! the recorded-power and content checks and the reference core:
//!
//! - byte 0 picks what is kept: 0 the whole manifest, else the top-level keys that are not
//!   sections plus one section (so one run is a few milliseconds);
//! - then up to eight edits, each a node (four bytes, an index into every node of the tree in
//!   document order) and an operation (one byte): replace it with a value, remove it, insert a
//!   member or element, copy another node over it, or tweak it (a number made a float, its
//!   neighbour, its negation, 2^32 times it; a string emptied, cut, padded, upper-cased).
//!
//! Values come from the manifest itself (its keys and strings, so the readers meet names and
//! texts they look for) and from tables of edge cases, some written into the text after it is
//! serialised because serde_json's value cannot hold them (integers beyond 64 bits, `-0`,
//! `1E400`). An empty input is the canonical suite. No seed corpus is needed.
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

#[path = "../../tests/support/untrusted.rs"]
mod untrusted;

/// The keys of the manifest that are not sections.
const META: [&str; 6] =
    ["schema_version", "conformance_version", "description", "sections", "exceptions", "skip_policy"];

/// Literals serde_json's value cannot hold, written over a placeholder string after serialising.
const LITERALS: [&str; 6] =
    ["123456789012345678901234567890", "-0", "1E400", "1.0e0", "-18446744073709551617", "0.1e-400"];

const WEIRD: [&str; 14] = [
    "",
    " ",
    "\u{0}",
    "\u{feff}x",
    "\u{a0}urn:babel:orders:created\u{3000}",
    "urn:babel:",
    "../manifest.json",
    "fixtures/../../etc/passwd",
    "fixtures/",
    "/",
    "9223372036854775808",
    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    "e\u{301}",
    "\u{202e}abc",
];

struct Ctx {
    files: Vec<(String, Vec<u8>)>,
    manifest: Map<String, Value>,
    sections: Vec<String>,
    keys: Vec<String>,
    strings: Vec<String>,
}

fn ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| {
        let text = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../manifest.json")).expect("the manifest");
        let manifest: Map<String, Value> = serde_json::from_slice(&text).expect("the manifest is an object");
        let sections = manifest.keys().filter(|k| !META.contains(&k.as_str())).cloned().collect();
        let (mut keys, mut strings) = (Vec::new(), Vec::new());
        gather(&Value::Object(manifest.clone()), &mut keys, &mut strings);
        keys.sort();
        keys.dedup();
        strings.sort();
        strings.dedup();
        Ctx { files: untrusted::canonical_files(), manifest, sections, keys, strings }
    })
}

fn gather(v: &Value, keys: &mut Vec<String>, strings: &mut Vec<String>) {
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            keys.push(k.clone());
            gather(x, keys, strings);
        }),
        Value::Array(a) => a.iter().for_each(|x| gather(x, keys, strings)),
        Value::String(s) if s.len() < 200 => strings.push(s.clone()),
        _ => {}
    }
}

/// The fuzzer's bytes, read front to back; reading past the end gives zeros.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else { return 0 };
        self.0 = rest;
        b
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    fn u64(&mut self) -> u64 {
        (u64::from(self.u32()) << 32) | u64::from(self.u32())
    }
    fn pick<'t, T>(&mut self, table: &'t [T]) -> &'t T {
        &table[usize::from(u16::from_le_bytes([self.byte(), self.byte()])) % table.len()]
    }
}

fn value(input: &mut Input<'_>, cx: &Ctx, depth: u8) -> Value {
    let tag = input.byte() % if depth >= 3 { 11 } else { 14 };
    match tag {
        0 => Value::Null,
        1 => Value::Bool(true),
        2 => Value::Bool(false),
        3 => json!(input.byte() as i8),
        4 => json!(input.u64() as i64),
        5 => input
            .pick(&[
                json!(0),
                json!(-1),
                json!(1),
                json!(i64::MAX),
                json!(i64::MIN),
                json!(u64::MAX),
                json!(1u64 << 53),
                json!((1u64 << 53) + 1),
            ])
            .clone(),
        6 => input
            .pick(&[json!(0.5), json!(1.0), json!(-0.0), json!(1e308), json!(-1e-308), json!(2.5e9), json!(3.000001)])
            .clone(),
        7 => Value::String(input.pick(&cx.strings).clone()),
        8 => Value::String(if input.byte().is_multiple_of(4) {
            format!("\u{1}LIT{}\u{1}", input.byte() as usize % LITERALS.len())
        } else {
            (*input.pick(&WEIRD)).to_owned()
        }),
        9 => {
            let n = usize::from(input.byte() % 32).min(input.0.len());
            let (s, rest) = input.0.split_at(n);
            input.0 = rest;
            Value::String(String::from_utf8_lossy(s).into_owned())
        }
        10 => json!([]),
        11 => json!({}),
        12 => Value::Array((0..=input.byte() % 3).map(|_| value(input, cx, depth + 1)).collect()),
        _ => Value::Object(
            (0..=input.byte() % 3).map(|_| (input.pick(&cx.keys).clone(), value(input, cx, depth + 1))).collect(),
        ),
    }
}

fn tweak(v: &Value, how: u8) -> Value {
    match v {
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            let i = n.as_i64().unwrap_or(f as i64);
            match how % 5 {
                0 => json!(f),
                1 => json!(i.wrapping_add(1)),
                2 => json!(i.wrapping_sub(1)),
                3 => json!(i.wrapping_neg()),
                _ => json!(i.wrapping_mul(1 << 32)),
            }
        }
        Value::String(s) => Value::String(match how % 5 {
            0 => String::new(),
            1 => s.chars().take(s.chars().count() / 2).collect(),
            2 => format!(" {s}"),
            3 => s.to_uppercase(),
            _ => format!("{s}{s}"),
        }),
        Value::Bool(b) => Value::Bool(!b),
        other => other.clone(),
    }
}

fn edit(tree: &mut Value, input: &mut Input<'_>, cx: &Ctx) {
    let mut all = Vec::new();
    untrusted::node_paths(tree, &mut Vec::new(), &mut all);
    let path = all[input.u32() as usize % all.len()].clone();
    match input.byte() % 5 {
        0 => *untrusted::node_mut(tree, &path) = value(input, cx, 0),
        1 => {
            let Some((last, parent)) = path.split_last() else { return };
            match untrusted::node_mut(tree, parent) {
                Value::Object(m) => {
                    m.shift_remove(last);
                }
                Value::Array(a) => {
                    a.remove(last.parse::<usize>().expect("an index of this tree"));
                }
                _ => {}
            }
        }
        2 => {
            let key = input.pick(&cx.keys).clone();
            let at = input.byte();
            let v = value(input, cx, 0);
            match untrusted::node_mut(tree, &path) {
                Value::Object(m) => {
                    m.insert(key, v);
                }
                Value::Array(a) => a.insert(usize::from(at) % (a.len() + 1), v),
                _ => {}
            }
        }
        3 => {
            let from = all[input.u32() as usize % all.len()].clone();
            *untrusted::node_mut(tree, &path) = untrusted::node_mut(tree, &from).clone();
        }
        _ => {
            let how = input.byte();
            let n = untrusted::node_mut(tree, &path);
            *n = tweak(n, how);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let cx = ctx();
    let mut input = Input(data);
    let keep = input.byte();
    let mut manifest = cx.manifest.clone();
    if keep != 0 {
        let section = &cx.sections[usize::from(keep - 1) % cx.sections.len()];
        manifest.retain(|k, _| k == section || META.contains(&k.as_str()));
    }
    let mut tree = Value::Object(manifest);
    for _ in 0..8 {
        if input.0.is_empty() {
            break;
        }
        edit(&mut tree, &mut input, cx);
    }
    let mut text = serde_json::to_string_pretty(&tree).expect("a value serialises");
    for (i, literal) in LITERALS.iter().enumerate() {
        text = text.replace(&format!("\"\\u0001LIT{i}\\u0001\""), literal);
    }
    untrusted::manifest_text(&cx.files, text.as_bytes());
});
