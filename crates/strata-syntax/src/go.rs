//! Scalars as Go writes them, for the dialects whose originals are Go
//! programs (Windsor's expr, k8shell's YAML decoding).

/// A float as Go's `%v` writes it (`strconv.FormatFloat(f, 'g', -1,
/// 64)`): the shortest digits that read back, with an exponent (`1e+06`,
/// `1.5e-05`) when the decimal exponent is below -4 or at least 6.
#[must_use]
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    // Rust's `{:e}` gives the shortest digits: `1.5e6`.
    let scientific = format!("{f:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-4..6).contains(&exponent) {
        // `{}` writes the same digits without an exponent.
        return format!("{f}");
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}
