//! A quantity's canonical text, as the API server and every Go client
//! write it (apimachinery's `Quantity.String()`, `CanonicalizeBytes`).
//!
//! - The format comes from the suffix as written: binary (`Ki` … `Ei`),
//!   decimal (`m`, `k`, … or none) or exponent (`e3`).
//! - The value is rounded up to a multiple of 10⁻⁹ (`1.0000000001` is
//!   `1000000001n`).
//! - Decimal and exponent forms take the largest power of 1000 (of ten for
//!   exponents, kept a multiple of three) that leaves a whole mantissa:
//!   `0.5` → `500m`, `1000m` → `1`, `2000` → `2k`, `1500` → `1500`.
//! - A binary value below 1024 in size, or one that is not whole, is
//!   written in decimal (`0.5Ki` → `512`); otherwise the largest power of
//!   1024 that leaves a whole mantissa: `1024Mi` → `1Gi`, `1.5Gi` →
//!   `1536Mi`.
//! - Zero is `0`.
//!
//! Values are exact (a 128-bit mantissa and a decimal scale); a value too
//! large for that (beyond apimachinery's own 64-bit fast path, near 10²⁷)
//! keeps its text as written.

use crate::quantity::Quantity;

/// Decimal suffixes by power of ten.
const DECIMAL_SUFFIXES: [(i32, &str); 10] = [
    (-9, "n"),
    (-6, "u"),
    (-3, "m"),
    (0, ""),
    (3, "k"),
    (6, "M"),
    (9, "G"),
    (12, "T"),
    (15, "P"),
    (18, "E"),
];

/// Binary suffixes by power of 1024.
const BINARY_SUFFIXES: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// How a quantity was written, which decides how it is written back.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Binary,
    Decimal,
    Exponent,
}

/// An exact decimal: `mantissa × 10^scale`.
#[derive(Clone, Copy)]
struct Decimal {
    mantissa: i128,
    scale: i32,
}

impl Quantity {
    /// The canonical text of the quantity (`1536Mi` for `1.5Gi`, `500m`
    /// for `0.5`); see the module documentation.
    #[must_use]
    pub fn canonical(&self) -> String {
        canonical(self).unwrap_or_else(|| self.as_str().to_owned())
    }
}

fn canonical(quantity: &Quantity) -> Option<String> {
    let (format, value) = value_of(quantity)?;
    let value = round_up_to_nano(value)?;
    if value.mantissa == 0 {
        return Some("0".to_owned());
    }
    let whole = whole_value(value);
    match (format, whole) {
        (Format::Binary, Some(whole)) if whole.abs() >= 1024 => {
            let (mantissa, times) = remove_factors(whole, 1024);
            let suffix = usize::try_from(times)
                .ok()
                .and_then(|times| BINARY_SUFFIXES.get(times))?;
            Some(format!("{mantissa}{suffix}"))
        }
        (Format::Exponent, _) => {
            let (mantissa, exponent) = decimal_canonical(value)?;
            Some(if exponent == 0 {
                mantissa.to_string()
            } else {
                format!("{mantissa}e{exponent}")
            })
        }
        _ => {
            let (mantissa, exponent) = decimal_canonical(value)?;
            let suffix = DECIMAL_SUFFIXES
                .iter()
                .find(|(power, _)| *power == exponent)
                .map_or_else(
                    || format!("e{exponent}"),
                    |(_, suffix)| (*suffix).to_owned(),
                );
            Some(format!("{mantissa}{suffix}"))
        }
    }
}

/// The value as a whole number, when it is one.
fn whole_value(value: Decimal) -> Option<i128> {
    let power = 10_i128.checked_pow(value.scale.unsigned_abs())?;
    if value.scale >= 0 {
        value.mantissa.checked_mul(power)
    } else {
        (value.mantissa % power == 0).then(|| value.mantissa / power)
    }
}

/// The mantissa without trailing zeros and an exponent that is a multiple
/// of three (apimachinery's `AsCanonicalBytes`).
fn decimal_canonical(value: Decimal) -> Option<(i128, i32)> {
    let (mut mantissa, times) = remove_factors(value.mantissa, 10);
    let mut exponent = value.scale.checked_add(i32::try_from(times).ok()?)?;
    match exponent.rem_euclid(3) {
        1 => {
            mantissa = mantissa.checked_mul(10)?;
            exponent -= 1;
        }
        2 => {
            mantissa = mantissa.checked_mul(100)?;
            exponent -= 2;
        }
        _ => {}
    }
    Some((mantissa, exponent))
}

/// `value` divided by `base` as often as it divides evenly, and how often.
fn remove_factors(value: i128, base: i128) -> (i128, u32) {
    let mut value = value;
    let mut times = 0;
    while value.abs() >= base && value % base == 0 {
        value /= base;
        times += 1;
    }
    (value, times)
}

/// The quantity's exact value and format.
fn value_of(quantity: &Quantity) -> Option<(Format, Decimal)> {
    let number = quantity.number();
    let (negative, digits) = match number.as_bytes().first() {
        Some(b'-') => (true, &number[1..]),
        Some(b'+') => (false, &number[1..]),
        _ => (false, number),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let mut mantissa: i128 = 0;
    for digit in whole.bytes().chain(fraction.bytes()) {
        mantissa = mantissa
            .checked_mul(10)?
            .checked_add(i128::from(digit - b'0'))?;
    }
    if negative {
        mantissa = -mantissa;
    }
    let mut value = Decimal {
        mantissa,
        scale: -i32::try_from(fraction.len()).ok()?,
    };
    let suffix = quantity.suffix();
    if let Some(power) = BINARY_SUFFIXES.iter().position(|name| *name == suffix)
        && power > 0
    {
        let factor = 1024_i128.checked_pow(u32::try_from(power).ok()?)?;
        value.mantissa = value.mantissa.checked_mul(factor)?;
        return Some((Format::Binary, value));
    }
    if let Some((power, _)) = DECIMAL_SUFFIXES.iter().find(|(_, name)| *name == suffix) {
        value.scale = value.scale.checked_add(*power)?;
        return Some((Format::Decimal, value));
    }
    let exponent: i32 = suffix[1..].parse().ok()?;
    value.scale = value.scale.checked_add(exponent)?;
    Some((Format::Exponent, value))
}

/// `value` rounded up (away from zero, as apimachinery's `roundUp`) to a
/// multiple of 10⁻⁹.
fn round_up_to_nano(value: Decimal) -> Option<Decimal> {
    if value.scale >= -9 {
        return Some(value);
    }
    let drop = 10_i128.checked_pow((-9 - value.scale).unsigned_abs())?;
    let mut mantissa = value.mantissa / drop;
    if value.mantissa % drop != 0 {
        mantissa += value.mantissa.signum();
    }
    Some(Decimal {
        mantissa,
        scale: -9,
    })
}

#[cfg(test)]
mod tests {
    use crate::parse_quantity;

    fn canonical(text: &str) -> String {
        parse_quantity(text).expect(text).canonical()
    }

    #[test]
    fn decimal_quantities_take_the_largest_whole_suffix() {
        for (written, expected) in [
            ("0.5", "500m"),
            ("1000m", "1"),
            ("1500", "1500"),
            ("2000", "2k"),
            ("100m", "100m"),
            ("1", "1"),
            ("0", "0"),
            ("0Gi", "0"),
            ("1.5", "1500m"),
            ("10G", "10G"),
            ("1000M", "1G"),
            ("0.1m", "100u"),
            ("1.0000000001", "1000000001n"),
            ("-5", "-5"),
            ("-0.5", "-500m"),
        ] {
            assert_eq!(canonical(written), expected, "{written}");
        }
    }

    #[test]
    fn binary_quantities_take_the_largest_whole_power_of_1024() {
        for (written, expected) in [
            ("1024Mi", "1Gi"),
            ("1.5Gi", "1536Mi"),
            ("128Mi", "128Mi"),
            ("1Ki", "1Ki"),
            ("0.5Ki", "512"),
            ("1000Ki", "1000Ki"),
            ("0.5Gi", "512Mi"),
            ("1.1Ki", "1126400m"),
            ("10Gi", "10Gi"),
        ] {
            assert_eq!(canonical(written), expected, "{written}");
        }
    }

    #[test]
    fn exponents_stay_exponents() {
        for (written, expected) in [
            ("1e3", "1e3"),
            ("1.5e3", "1500"),
            ("1E6", "1e6"),
            ("12e6", "12e6"),
        ] {
            assert_eq!(canonical(written), expected, "{written}");
        }
    }
}
