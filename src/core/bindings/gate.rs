//! The consumer-side schema-version gate (broker-bindings §3.7, §4.7, §5.7, §6.7, §7.7): the one
//! implementation every binding calls before it decodes a body.
//!
//! Rules:
//!
//! * The gate looks only at the native schema-version property, never at the body.
//! * **Decode** (let the message through to the normal decode, where the body's own
//!   `meta.schema_version` check still runs): the property is absent; it is present with a null
//!   value (treated exactly as absent); it is the string `"1"`; it is a blank string — empty or
//!   made only of the six ASCII whitespace characters of [`crate::core::text`]; it is an integral
//!   number equal to 1 (any width, signed or unsigned: only typed bindings such as Azure Service
//!   Bus carry numbers).
//! * **Reject** (without decoding: the poison / dead-letter path): every other present value.
//!   A string is compared exactly as it is — never trimmed — so `" 1"`, `"1 "`, `"01"` reject,
//!   and NBSP, U+0085, U+3000 and a BOM are not blank. Any other integral value rejects, and so
//!   does every value of another type: a floating-point 1.0 is not integral 1, a boolean is not a
//!   number, bytes that are not UTF-8 are not a string.
//!
//! Each binding maps its own native value onto [`Native`]; that mapping is the only
//! binding-specific part.

use std::fmt;

use crate::core::text::is_blank;
use crate::fault::{self, Fault};

/// The schema version the gate lets through.
pub const SUPPORTED: &str = "1";

/// What a binding found under its schema-version property, in the gate's terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Native<'a> {
    /// The property is not there.
    Absent,
    /// The property is there with a null value.
    Null,
    /// A string value.
    Text(&'a str),
    /// An integral number of any width.
    Integral(i128),
    /// A value of any other type (float, boolean, binary, bytes that are not UTF-8, …), named.
    Other(&'static str),
}

impl fmt::Display for Native<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Absent => f.write_str("absent"),
            Self::Null => f.write_str("null"),
            Self::Text(s) => write!(f, "the string {s:?}"),
            Self::Integral(n) => write!(f, "the integer {n}"),
            Self::Other(kind) => write!(f, "a value of type {kind}"),
        }
    }
}

/// The gate refused a message: what it found instead of a supported version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateRejection {
    pub found: String,
}

impl fmt::Display for GateRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "schema version {} is not supported (only \"1\", absent, null or blank decode)", self.found)
    }
}

impl std::error::Error for GateRejection {}

/// Run the gate: `Ok` lets the message through to decode, `Err` rejects it undecoded.
pub fn check(found: Native<'_>) -> Result<(), GateRejection> {
    let through = match found {
        Native::Absent | Native::Null => true,
        Native::Text(s) => {
            let s = if fault::active(Fault::GateTrims) { s.trim() } else { s };
            let blank =
                if fault::active(Fault::GateUnicodeBlank) { s.chars().all(char::is_whitespace) } else { is_blank(s) };
            s == SUPPORTED || blank
        }
        Native::Integral(n) => n == 1,
        Native::Other(_) => false,
    };
    if through { Ok(()) } else { Err(GateRejection { found: found.to_string() }) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Fault, with};

    #[test]
    fn decodes_one_absent_null_and_ascii_blank() {
        for ok in [Native::Absent, Native::Null, Native::Text("1"), Native::Integral(1)] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for blank in ["", " ", " \t", "\n\u{0B}\u{0C}\r"] {
            assert_eq!(check(Native::Text(blank)), Ok(()), "{blank:?}");
        }
    }

    #[test]
    fn rejects_everything_else_untrimmed() {
        for bad in
            ["2", "01", "x", " 1", "1 ", "\t1\n", "\u{A0}", "\u{85}", "\u{3000}", "\u{FEFF}", "\u{A0}1", "1\u{3000}"]
        {
            assert!(check(Native::Text(bad)).is_err(), "{bad:?}");
        }
        for bad in [Native::Integral(0), Native::Integral(2), Native::Integral(-1), Native::Other("double")] {
            assert!(check(bad).is_err(), "{bad}");
        }
        assert_eq!(
            check(Native::Text("2")).unwrap_err().to_string(),
            "schema version the string \"2\" is not supported (only \"1\", absent, null or blank decode)"
        );
    }

    #[test]
    fn the_broken_gates_are_what_the_faults_say() {
        with(Fault::GateTrims, || assert_eq!(check(Native::Text(" 1")), Ok(())));
        with(Fault::GateUnicodeBlank, || assert_eq!(check(Native::Text("\u{3000}")), Ok(())));
        assert!(check(Native::Text(" 1")).is_err() && check(Native::Text("\u{3000}")).is_err());
    }
}
