//! Native AMQP values: what Azure Service Bus application properties (AMQP 1.0) and RabbitMQ
//! header field tables (AMQP 0-9-1) carry.
//!
//! Invariants: a value keeps its AMQP type — an integer has a width and a signedness, a float is
//! a 32-bit or 64-bit float and never the same thing as an integer of equal value, a string is
//! not a symbol, null is a value of its own (a key present with null is not an absent key).
//! Conversions are explicit and never lossy: [`AmqpValue::integral`] answers only for the eight
//! integer types, and nothing here turns a number into its text.

use std::fmt;

/// One AMQP-typed value.
#[derive(Debug, Clone, PartialEq)]
pub enum AmqpValue {
    Null,
    Bool(bool),
    /// Unsigned 8-bit integer (`ubyte`).
    UByte(u8),
    /// Unsigned 16-bit integer (`ushort`).
    UShort(u16),
    /// Unsigned 32-bit integer (`uint`).
    UInt(u32),
    /// Unsigned 64-bit integer (`ulong`).
    ULong(u64),
    /// Signed 8-bit integer (`byte`).
    Byte(i8),
    /// Signed 16-bit integer (`short`).
    Short(i16),
    /// Signed 32-bit integer (`int`).
    Int(i32),
    /// Signed 64-bit integer (`long`).
    Long(i64),
    /// IEEE 754 32-bit float.
    Float(f32),
    /// IEEE 754 64-bit float.
    Double(f64),
    /// A Unicode scalar value (`char`).
    Char(char),
    /// Milliseconds since the Unix epoch (`timestamp`).
    Timestamp(i64),
    Uuid([u8; 16]),
    Binary(Vec<u8>),
    String(String),
    Symbol(String),
}

impl AmqpValue {
    /// The value of an integer of any width; `None` for every other type.
    pub fn integral(&self) -> Option<i128> {
        Some(match *self {
            Self::UByte(n) => n.into(),
            Self::UShort(n) => n.into(),
            Self::UInt(n) => n.into(),
            Self::ULong(n) => n.into(),
            Self::Byte(n) => n.into(),
            Self::Short(n) => n.into(),
            Self::Int(n) => n.into(),
            Self::Long(n) => n.into(),
            _ => return None,
        })
    }

    /// An unsigned counter as the narrowest of `long` / `ulong` that holds it exactly.
    pub fn counter(n: u64) -> Self {
        i64::try_from(n).map_or(Self::ULong(n), Self::Long)
    }

    /// The AMQP type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Bool(_) => "boolean",
            Self::UByte(_) => "ubyte",
            Self::UShort(_) => "ushort",
            Self::UInt(_) => "uint",
            Self::ULong(_) => "ulong",
            Self::Byte(_) => "byte",
            Self::Short(_) => "short",
            Self::Int(_) => "int",
            Self::Long(_) => "long",
            Self::Float(_) => "float",
            Self::Double(_) => "double",
            Self::Char(_) => "char",
            Self::Timestamp(_) => "timestamp",
            Self::Uuid(_) => "uuid",
            Self::Binary(_) => "binary",
            Self::String(_) => "string",
            Self::Symbol(_) => "symbol",
        }
    }
}

impl fmt::Display for AmqpValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Null => f.write_str("null"),
            Self::Bool(b) => write!(f, "{b}"),
            Self::Float(x) => write!(f, "{x:?}f32"),
            Self::Double(x) => write!(f, "{x:?}f64"),
            Self::Char(c) => write!(f, "{c:?}"),
            Self::Timestamp(ms) => write!(f, "timestamp({ms})"),
            Self::Uuid(b) => write!(f, "uuid({})", b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
            Self::Binary(b) => write!(f, "binary({} bytes)", b.len()),
            Self::String(s) => write!(f, "{s:?}"),
            Self::Symbol(s) => write!(f, ":{s}"),
            other => write!(f, "{}({})", other.type_name(), other.integral().unwrap_or_default()),
        }
    }
}

/// `1` as each of the eight AMQP integer types (for tests of the integral rule).
#[cfg(test)]
pub(crate) fn one_of_every_integer_width() -> [AmqpValue; 8] {
    use AmqpValue::*;
    [Byte(1), Short(1), Int(1), Long(1), UByte(1), UShort(1), UInt(1), ULong(1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_eight_integer_types_are_integral() {
        let ones = one_of_every_integer_width();
        let names: Vec<_> = ones.iter().map(AmqpValue::type_name).collect();
        assert_eq!(names, ["byte", "short", "int", "long", "ubyte", "ushort", "uint", "ulong"]);
        assert!(ones.iter().all(|v| v.integral() == Some(1)));
        for other in [
            AmqpValue::Float(1.0),
            AmqpValue::Double(1.0),
            AmqpValue::Bool(true),
            AmqpValue::Char('1'),
            AmqpValue::Timestamp(1),
            AmqpValue::String("1".into()),
            AmqpValue::Symbol("1".into()),
            AmqpValue::Binary(vec![1]),
            AmqpValue::Null,
        ] {
            assert_eq!(other.integral(), None, "{other}");
        }
        assert_eq!(AmqpValue::ULong(u64::MAX).integral(), Some(i128::from(u64::MAX)));
    }

    #[test]
    fn counters_pick_long_unless_only_ulong_holds_them() {
        assert_eq!(AmqpValue::counter(0), AmqpValue::Long(0));
        assert_eq!(AmqpValue::counter(u64::MAX), AmqpValue::ULong(u64::MAX));
        assert_eq!(AmqpValue::Int(1).to_string(), "int(1)");
        assert_eq!(AmqpValue::Double(1.0).to_string(), "1.0f64");
    }
}
