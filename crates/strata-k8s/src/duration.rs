//! Durations as Kubernetes objects carry them (`metav1.Duration`): read
//! as Go's `time.ParseDuration` reads them and written as Go's
//! `Duration.String()` writes them, so `60m` becomes `1h0m0s`, `90s`
//! `1m30s`, `500ms` stays `500ms` and `0` is `0s`.

/// Nanoseconds per unit, as `time.ParseDuration` names them.
const UNITS: [(&str, u128); 8] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("μs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// A duration in nanoseconds, within Go's `int64` range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Duration(i64);

impl Duration {
    /// Reads `text` as `time.ParseDuration` does: a sign, then one or more
    /// decimal numbers each with a unit (`1h30m`, `1.5h`, `-5m`), or `0`.
    ///
    /// # Errors
    /// Why the text is not a duration, lowercase.
    pub fn parse(text: &str) -> Result<Duration, String> {
        let invalid = || format!("`{text}` is not a duration such as `10m`, `1h30m` or `90s`");
        let (negative, mut rest) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        if rest == "0" {
            return Ok(Duration(0));
        }
        if rest.is_empty() {
            return Err(invalid());
        }
        let mut total: u128 = 0;
        while !rest.is_empty() {
            let whole_len = rest.bytes().take_while(u8::is_ascii_digit).count();
            let whole = &rest[..whole_len];
            rest = &rest[whole_len..];
            let mut fraction = "";
            if let Some(after) = rest.strip_prefix('.') {
                let len = after.bytes().take_while(u8::is_ascii_digit).count();
                fraction = &after[..len];
                rest = &after[len..];
            }
            if whole.is_empty() && fraction.is_empty() {
                return Err(invalid());
            }
            let unit_len = rest
                .char_indices()
                .find(|(_, c)| c.is_ascii_digit() || *c == '.')
                .map_or(rest.len(), |(at, _)| at);
            let unit = &rest[..unit_len];
            rest = &rest[unit_len..];
            let Some(&(_, scale)) = UNITS.iter().find(|(name, _)| *name == unit) else {
                return Err(if unit.is_empty() {
                    format!(
                        "`{text}` has a number without a unit (`ns`, `us`, `ms`, `s`, `m`, `h`)"
                    )
                } else {
                    format!(
                        "`{text}` has the unknown unit `{unit}` (`ns`, `us`, `ms`, `s`, `m`, `h`)"
                    )
                });
            };
            let whole: u128 = if whole.is_empty() {
                0
            } else {
                whole.parse().map_err(|_| invalid())?
            };
            let mut part = whole.checked_mul(scale).ok_or_else(invalid)?;
            // The fraction's digits, truncated to nanoseconds as Go does.
            let mut unit_fraction = scale;
            for digit in fraction.bytes() {
                unit_fraction /= 10;
                part += u128::from(digit - b'0') * unit_fraction;
            }
            total = total.checked_add(part).ok_or_else(invalid)?;
        }
        let limit = if negative {
            u128::from(i64::MIN.unsigned_abs())
        } else {
            u128::from(i64::MAX.unsigned_abs())
        };
        if total > limit {
            return Err(format!(
                "`{text}` is longer than a duration can be (about 292 years)"
            ));
        }
        let signed = i128::try_from(total).map_err(|_| invalid())?;
        let signed = if negative { -signed } else { signed };
        i64::try_from(signed).map(Duration).map_err(|_| invalid())
    }

    /// The duration in nanoseconds (negative for a negative duration).
    #[must_use]
    pub fn nanos(self) -> i64 {
        self.0
    }

    /// The duration as Go's `Duration.String()` writes it.
    #[must_use]
    pub fn go_string(self) -> String {
        let nanos = self.0.unsigned_abs();
        let sign = if self.0 < 0 { "-" } else { "" };
        if nanos == 0 {
            return "0s".to_owned();
        }
        if nanos < 1_000_000_000 {
            let (value, unit) = if nanos < 1_000 {
                (nanos.to_string(), "ns")
            } else if nanos < 1_000_000 {
                (fixed(nanos, 3), "µs")
            } else {
                (fixed(nanos, 6), "ms")
            };
            return format!("{sign}{value}{unit}");
        }
        let seconds = fixed(nanos % 60_000_000_000, 9);
        let minutes_total = nanos / 60_000_000_000;
        if minutes_total == 0 {
            return format!("{sign}{seconds}s");
        }
        let minutes = minutes_total % 60;
        let hours = minutes_total / 60;
        if hours == 0 {
            return format!("{sign}{minutes}m{seconds}s");
        }
        format!("{sign}{hours}h{minutes}m{seconds}s")
    }
}

/// `value / 10^digits` with the fraction's trailing zeros dropped (Go's
/// `fmtFrac` and `fmtInt`).
fn fixed(value: u64, digits: u32) -> String {
    let divisor = 10_u64.pow(digits);
    let whole = value / divisor;
    let fraction = value % divisor;
    if fraction == 0 {
        return whole.to_string();
    }
    let width = digits as usize;
    let fraction = format!("{fraction:0width$}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::Duration;

    #[test]
    fn durations_are_written_as_go_writes_them() {
        for (written, expected) in [
            ("60m", "1h0m0s"),
            ("10m", "10m0s"),
            ("90s", "1m30s"),
            ("0", "0s"),
            ("0s", "0s"),
            ("500ms", "500ms"),
            ("1.5h", "1h30m0s"),
            ("-5m", "-5m0s"),
            ("1h30m", "1h30m0s"),
            ("1.5s", "1.5s"),
            ("2us", "2µs"),
            ("1500ns", "1.5µs"),
            ("5m30.25s", "5m30.25s"),
            ("24h", "24h0m0s"),
        ] {
            assert_eq!(
                Duration::parse(written).expect(written).go_string(),
                expected,
                "{written}"
            );
        }
    }

    #[test]
    fn malformed_durations_are_refused() {
        for written in ["", "5", "1d", "h", "1.h5", "-", "10 m", "9999999999h"] {
            assert!(Duration::parse(written).is_err(), "{written}");
        }
    }
}
