//! RFC 3339 date-times, calendar included: what the results format's `generated_at` is
//! (`format: date-time` in schema/results.schema.json).
//!
//! Draft 2020-12 leaves `format` an annotation, and bqsuite compiles schemas without asserting
//! it (as Python's jsonschema does without a FormatChecker), so the schema's `pattern` checks
//! the shape and nothing checks the calendar: `2026-13-45T25:61:61Z` matched it. `results check`
//! asserts this one format itself ([`check`]), the only one the results format uses.
//!
//! Invariants: the grammar is RFC 3339 §5.6's `date-time` (`T` or `t`, `Z` or `z`, a fraction of
//! any length, a numeric offset); the month is 01–12, the day exists in that month of that
//! year (Gregorian leap years: every fourth, not every hundredth, every four-hundredth), the
//! hour 00–23, the minute 00–59, the second 00–59, or 60 at 23:59 UTC only (a leap second is
//! inserted there, RFC 3339 §5.7; which months had one is a table this check does not keep), and
//! an offset's hour 00–23 and minute 00–59.

/// Why `s` is no RFC 3339 date-time, or `Ok` when it is one.
pub fn check(s: &str) -> Result<(), String> {
    let b = s.as_bytes();
    let digits = |from: usize, n: usize| -> Option<u32> {
        let part = b.get(from..from + n)?;
        part.iter().all(u8::is_ascii_digit).then(|| part.iter().fold(0, |v, d| v * 10 + u32::from(d - b'0')))
    };
    let at = |i: usize, c: &[u8]| b.get(i).is_some_and(|x| c.contains(x));
    let shape = || "not of the form YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)".to_owned();
    let (Some(year), true, Some(month), true, Some(day)) =
        (digits(0, 4), at(4, b"-"), digits(5, 2), at(7, b"-"), digits(8, 2))
    else {
        return Err(shape());
    };
    let (true, Some(hour), true, Some(minute), true, Some(second)) =
        (at(10, b"Tt"), digits(11, 2), at(13, b":"), digits(14, 2), at(16, b":"), digits(17, 2))
    else {
        return Err(shape());
    };
    let mut i = 19;
    if at(i, b".") {
        let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return Err(shape());
        }
        i += 1 + n;
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => None,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && at(i + 3, b":") => {
            match (digits(i + 1, 2), digits(i + 4, 2)) {
                (Some(h), Some(m)) => Some((*sign == b'-', h, m)),
                _ => return Err(shape()),
            }
        }
        _ => return Err(shape()),
    };
    if !(1..=12).contains(&month) {
        return Err(format!("month {month:02} does not exist"));
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if !(1..=days).contains(&day) {
        return Err(format!("day {day:02} does not exist in {year:04}-{month:02}"));
    }
    if hour > 23 || minute > 59 || second > 60 {
        return Err(format!("{hour:02}:{minute:02}:{second:02} is no time of day"));
    }
    if let Some((_, h, m)) = offset
        && (h > 23 || m > 59)
    {
        return Err(format!("the offset {h:02}:{m:02} is no offset"));
    }
    if second == 60 {
        // The minute of the day in UTC: local time less the offset (east of UTC is ahead).
        let east = offset.map_or(0, |(west, h, m)| if west { -i64::from(h * 60 + m) } else { i64::from(h * 60 + m) });
        let utc = (i64::from(hour * 60 + minute) - east).rem_euclid(24 * 60);
        if utc != 23 * 60 + 59 {
            let at_utc =
                if offset.is_some() { format!(" ({:02}:{:02}:60 UTC)", utc / 60, utc % 60) } else { String::new() };
            return Err(format!(
                "{hour:02}:{minute:02}:60{at_utc} is no time of day: a leap second is 23:59:60 UTC, nothing else"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn real_date_times_pass() {
        for s in [
            "2026-12-05T07:54:50Z",
            "2026-12-05t07:54:50z",
            "2026-12-05T07:54:50.123456789+01:00",
            "2024-02-29T00:00:00Z",
            "2000-02-29T23:59:59-23:59",
            "2016-12-31T23:59:60Z",
            "2016-12-31T18:59:60-05:00",
            "2017-01-01T08:59:60+09:00",
            "0001-01-01T00:00:00Z",
        ] {
            assert_eq!(check(s), Ok(()), "{s}");
        }
    }

    #[test]
    fn impossible_or_malformed_ones_say_why() {
        for (s, why) in [
            ("2026-13-45T25:61:61Z", "month 13"),
            ("0000-00-00T00:00:00Z", "month 00"),
            ("2099-02-29T00:00:00Z", "day 29 does not exist in 2099-02"),
            ("1900-02-29T00:00:00Z", "day 29"),
            ("2026-04-31T00:00:00Z", "day 31"),
            ("2026-04-00T00:00:00Z", "day 00"),
            ("2026-04-01T24:00:00Z", "24:00:00 is no time"),
            ("2026-04-01T23:60:00Z", "23:60:00"),
            ("2026-04-01T23:59:61Z", "23:59:61"),
            ("2026-12-05T10:00:60Z", "10:00:60 is no time of day: a leap second is 23:59:60 UTC"),
            ("2016-12-31T23:59:60+01:00", "23:59:60 (22:59:60 UTC) is no time of day: a leap second is 23:59:60 UTC"),
            ("2000-02-29T23:59:60-23:59", "a leap second"),
            ("2099-01-30T00:00:00+99:99", "offset 99:99"),
            ("2026-04-01T00:00:00+05:60", "offset 05:60"),
            ("yesterday", "not of the form"),
            ("2026-04-01 00:00:00Z", "not of the form"),
            ("2026-04-01T00:00:00", "not of the form"),
            ("2026-04-01T00:00:00.Z", "not of the form"),
            ("2026-04-01T00:00:00Z ", "not of the form"),
            ("2026-04-01T00:00:00+0100", "not of the form"),
            ("٢٠٢٦-04-01T00:00:00Z", "not of the form"),
        ] {
            let got = check(s).expect_err(s);
            assert!(got.contains(why), "{s}: {got}");
        }
    }
}
