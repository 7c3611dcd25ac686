//! The contract's notion of whitespace.
//!
//! Invariant: "blank" and "trim" use exactly the six ASCII characters of ADR-0032 §5 —
//! space (0x20), `\t` (0x09), `\n` (0x0A), `\v` (0x0B), `\f` (0x0C) and `\r` (0x0D) — and
//! nothing else. U+00A0, U+0085, U+2003, U+3000 and U+FEFF are ordinary characters here.
//! Neither `char::is_whitespace` nor `u8::is_ascii_whitespace` (which omits `\v`) may be used
//! in their place.

use crate::fault::{self, Fault};

/// The per-character broken variants: each takes one of the six out of the set, or puts one of
/// the three non-ASCII spaces the trim cases name into it.
const WHITESPACE_FAULTS: [(char, Fault); 9] = [
    (' ', Fault::WhitespaceWithoutSpace),
    ('\t', Fault::WhitespaceWithoutTab),
    ('\n', Fault::WhitespaceWithoutLf),
    ('\u{0B}', Fault::WhitespaceWithoutVt),
    ('\u{0C}', Fault::WhitespaceWithoutFf),
    ('\r', Fault::WhitespaceWithoutCr),
    ('\u{A0}', Fault::WhitespaceWithNbsp),
    ('\u{2003}', Fault::WhitespaceWithEmSpace),
    ('\u{3000}', Fault::WhitespaceWithIdeographicSpace),
];

/// Is `c` one of the six ASCII whitespace characters of the contract?
pub fn is_contract_whitespace(c: char) -> bool {
    if fault::active(Fault::UnicodeWhitespace) {
        return c.is_whitespace();
    }
    let ascii_six = matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r');
    match WHITESPACE_FAULTS.iter().find(|(w, _)| *w == c) {
        Some((_, fault)) if fault::active(*fault) => !ascii_six,
        _ => ascii_six,
    }
}

/// Blank = empty, or made only of contract whitespace.
pub fn is_blank(s: &str) -> bool {
    s.chars().all(is_contract_whitespace)
}

/// Trim contract whitespace from both ends; every other character stays.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_contract_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_six_ascii_characters_are_whitespace() {
        for c in [' ', '\t', '\n', '\u{0B}', '\u{0C}', '\r'] {
            assert!(is_contract_whitespace(c), "{c:?}");
        }
    }

    #[test]
    fn unicode_spaces_are_not_whitespace() {
        for c in ['\u{A0}', '\u{85}', '\u{2003}', '\u{3000}', '\u{FEFF}', '\u{1C}'] {
            assert!(!is_contract_whitespace(c), "{c:?}");
            assert!(!is_blank(&c.to_string()));
        }
    }

    #[test]
    fn each_whitespace_switch_flips_exactly_its_character() {
        for (c, name) in WHITESPACE_FAULTS {
            let before = is_contract_whitespace(c);
            fault::with(name, || {
                assert_eq!(is_contract_whitespace(c), !before, "{name}");
                assert!(is_contract_whitespace(if c == ' ' { '\t' } else { ' ' }), "{name} touches only {c:?}");
            });
        }
    }

    #[test]
    fn trim_keeps_inner_and_unicode_spaces() {
        assert_eq!(trim("\u{0B} a b \u{0C}"), "a b");
        assert_eq!(trim("\u{A0}urn\u{3000}"), "\u{A0}urn\u{3000}");
        assert_eq!(trim(" \t\n\u{0B}\u{0C}\r"), "");
        assert!(is_blank(""));
    }
}
