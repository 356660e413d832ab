//! Dates, durations and time zones: expr's `date`, `duration` and
//! `timezone`, the Go `time` methods expressions call on them
//! (`date("2024-05-01").Year()`), and their arithmetic, with `jiff` (its
//! bundled time zone database, so every machine answers alike).
//!
//! While an expression runs, a date is a string node tagged [`DATE`] (its
//! text jiff's, with the zone), a duration an integer node of nanoseconds
//! tagged [`DURATION`], a time zone a string tagged [`TIME_ZONE`]; these
//! tags hold no `!`, so no file can write them. What leaves an evaluation
//! is plain ([`to_plain`]): a date as Go's JSON writes it (RFC 3339 with
//! nanoseconds), a duration as its nanoseconds, a zone as its name; inside
//! a string (`string(d)`, `${..}` in text) both read as Go's `String()`
//! writes them (`2024-05-01 00:00:00 +0000 UTC`, `1h30m0s`).
//!
//! - `date - date` is a duration; `date ± duration` a date; durations add,
//!   subtract, negate, and multiply or divide by integers; dates and
//!   durations compare with `<`, `==`, ….
//! - `now()` is refused: a composed blueprint must not depend on the
//!   moment it was composed.
//! - Go layouts (`2006-01-02 15:04:05`) are read for `date(text, layout)`
//!   and `.Format(layout)`; a zone abbreviation (`MST` in a layout) reads
//!   `UTC` and `GMT` only, as the abbreviations that name one offset.

use std::cmp::Ordering;
use std::ops::Range;

use jiff::fmt::strtime::BrokenDownTime;
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Zoned};
use strata_syntax::{Node, Tag, Value};

use crate::CondError;
use crate::eval::{kind, plain};
use crate::functions::{Argument, integer, text, wrong};
use crate::parse::{BinaryOp, UnaryOp};

/// The tag of a date while an expression runs.
pub const DATE: &str = "strata-cond:date";
/// The tag of a duration while an expression runs.
pub const DURATION: &str = "strata-cond:duration";
/// The tag of a time zone while an expression runs.
pub const TIME_ZONE: &str = "strata-cond:timezone";

fn tagged(node: &Node, tag: &str) -> bool {
    node.tag.as_ref().is_some_and(|t| t.as_str() == tag)
}

/// Whether `node` is a date.
pub(crate) fn is_date(node: &Node) -> bool {
    tagged(node, DATE)
}

/// Whether `node` is a duration.
pub(crate) fn is_duration(node: &Node) -> bool {
    tagged(node, DURATION)
}

fn date_node(date: &Zoned) -> Node {
    plain(Value::String(date.to_string())).with_tag(Some(Tag::new(DATE)))
}

fn duration_node(nanoseconds: i64) -> Node {
    plain(Value::Int(nanoseconds)).with_tag(Some(Tag::new(DURATION)))
}

fn date_of(node: &Node) -> Option<Zoned> {
    match &node.value {
        Value::String(text) if is_date(node) => text.parse().ok(),
        _ => None,
    }
}

fn duration_of(node: &Node) -> Option<i64> {
    match node.value {
        Value::Int(nanoseconds) if is_duration(node) => Some(nanoseconds),
        _ => None,
    }
}

fn zone_of(node: &Node) -> Option<&str> {
    match &node.value {
        Value::String(name) if tagged(node, TIME_ZONE) => Some(name),
        _ => None,
    }
}

/// `node` with every date, duration and zone in it made plain.
#[must_use]
pub fn to_plain(node: Node) -> Node {
    node.map_scalars(&mut |mut scalar| {
        if let Some(date) = date_of(&scalar) {
            return plain(Value::String(rfc3339(&date)));
        }
        if is_duration(&scalar) || tagged(&scalar, TIME_ZONE) {
            scalar.tag = None;
        }
        scalar
    })
}

/// A date as Go's `RFC3339Nano` writes it (`Z` for UTC).
fn rfc3339(date: &Zoned) -> String {
    let text = date.strftime("%Y-%m-%dT%H:%M:%S%.f%:z").to_string();
    match text.strip_suffix("+00:00") {
        Some(utc) => format!("{utc}Z"),
        None => text,
    }
}

/// A date, duration or zone as Go's `String()` writes it; `None` for
/// other values.
pub(crate) fn go_text(node: &Node) -> Option<String> {
    if let Some(date) = date_of(node) {
        return Some(go_date(&date));
    }
    if let Some(nanoseconds) = duration_of(node) {
        return Some(go_duration(nanoseconds));
    }
    zone_of(node).map(str::to_owned)
}

/// A date as Go's `Time.String` writes it.
fn go_date(date: &Zoned) -> String {
    date.strftime("%Y-%m-%d %H:%M:%S%.f %z %Z").to_string()
}

/// A duration as Go's `Duration.String` writes it: `1h30m0s`, `1.5s`,
/// `250ms`, `0s`.
fn go_duration(nanoseconds: i64) -> String {
    if nanoseconds == 0 {
        return "0s".to_owned();
    }
    let sign = if nanoseconds < 0 { "-" } else { "" };
    let total = nanoseconds.unsigned_abs();
    let fraction = |value: u64, unit: u64| {
        let whole = value / unit;
        let rest = value % unit;
        if rest == 0 {
            return whole.to_string();
        }
        let digits = format!("{rest:0width$}", width = unit.ilog10() as usize);
        format!("{whole}.{}", digits.trim_end_matches('0'))
    };
    if total < 1_000 {
        return format!("{sign}{total}ns");
    }
    if total < 1_000_000 {
        return format!("{sign}{}µs", fraction(total, 1_000));
    }
    if total < 1_000_000_000 {
        return format!("{sign}{}ms", fraction(total, 1_000_000));
    }
    let seconds = total % 60_000_000_000;
    let minutes = total / 60_000_000_000 % 60;
    let hours = total / 3_600_000_000_000;
    let seconds = format!("{}s", fraction(seconds, 1_000_000_000));
    if hours > 0 {
        format!("{sign}{hours}h{minutes}m{seconds}")
    } else if minutes > 0 {
        format!("{sign}{minutes}m{seconds}")
    } else {
        format!("{sign}{seconds}")
    }
}

/// Go's `time.ParseDuration`: `[-+]` then numbers with units (`ns`, `us`,
/// `µs`, `ms`, `s`, `m`, `h`), fractions allowed: `1h30m`, `1.5s`.
fn parse_duration(text: &str) -> Option<i64> {
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..number_end].parse().ok()?;
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_end] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_end..];
        total += number * unit;
    }
    let total = if negative { -total } else { total };
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the range is checked first"
    )]
    (total.abs() < 9.2e18).then(|| total.round() as i64)
}

/// Go's layout (`2006-01-02 15:04:05`) as a jiff `strftime` format, and
/// whether it writes UTC as `Z` (`Z07:00`) and has a zone abbreviation.
fn layout(go: &str) -> (String, bool, bool) {
    const CHUNKS: &[(&str, &str)] = &[
        ("January", "%B"),
        ("Monday", "%A"),
        ("Jan", "%b"),
        ("Mon", "%a"),
        ("MST", "%z"),
        ("2006", "%Y"),
        ("Z07:00", "%:z"),
        ("Z0700", "%z"),
        ("-07:00", "%:z"),
        ("-0700", "%z"),
        (".000000000", "%.9f"),
        (".000000", "%.6f"),
        (".000", "%.3f"),
        (".999999999", "%.f"),
        (".999999", "%.f"),
        (".999", "%.f"),
        ("002", "%j"),
        ("01", "%m"),
        ("02", "%d"),
        ("_2", "%e"),
        ("03", "%I"),
        ("04", "%M"),
        ("05", "%S"),
        ("06", "%y"),
        ("15", "%H"),
        ("PM", "%p"),
        ("pm", "%P"),
        ("1", "%-m"),
        ("2", "%-d"),
        ("3", "%-I"),
        ("4", "%-M"),
        ("5", "%-S"),
    ];
    let mut format = String::new();
    let mut utc_as_z = false;
    let mut abbreviation = false;
    let mut rest = go;
    'outer: while !rest.is_empty() {
        for (chunk, specifier) in CHUNKS {
            if rest.starts_with(chunk) {
                utc_as_z |= chunk.starts_with('Z');
                abbreviation |= *chunk == "MST";
                format.push_str(specifier);
                rest = &rest[chunk.len()..];
                continue 'outer;
            }
        }
        let Some(c) = rest.chars().next() else { break };
        if c == '%' {
            format.push_str("%%");
        } else {
            format.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    (format, utc_as_z, abbreviation)
}

/// The time zone called `name` (`UTC`, `Europe/Zurich`).
fn zone(name: &str, range: &Range<usize>) -> Result<TimeZone, CondError> {
    if name == "Local" {
        return Err(crate::eval_error(
            "the machine's own time zone (`Local`) would make the blueprint depend on where it is composed; name a zone",
            range.clone(),
        ));
    }
    jiff::tz::db().get(name).map_err(|_| {
        crate::eval_error(
            format!("there is no time zone {name:?} (IANA names: `UTC`, `Europe/Zurich`)"),
            range.clone(),
        )
    })
}

/// A part of a date read from text: how to read it, how to set it, and
/// Go's value for it when the text has none.
type DatePart = (
    fn(&BrokenDownTime) -> Option<i8>,
    fn(&mut BrokenDownTime, Option<i8>) -> Result<(), jiff::Error>,
    i8,
);

/// `text` read with Go's `layout` in `zone` (where the text names no
/// offset).
fn parse_date(text: &str, go_layout: &str, zone: &TimeZone) -> Option<Zoned> {
    parse_in(text, &layout(go_layout), zone)
}

/// `text` read with a layout already converted ([`layout`]).
fn parse_in(
    text: &str,
    (format, utc_as_z, abbreviation): &(String, bool, bool),
    zone: &TimeZone,
) -> Option<Zoned> {
    let mut input = text.to_owned();
    if *utc_as_z && input.ends_with('Z') {
        input.pop();
        input.push_str("+00:00");
    }
    if *abbreviation {
        input = input.replace("UTC", "+0000").replace("GMT", "+0000");
    }
    let mut parts = jiff::fmt::strtime::parse(format, &input).ok()?;
    // Unwritten parts are Go's zero: January 1st of year 0, midnight.
    if parts.year().is_none() {
        parts.set_year(Some(0)).ok()?;
    }
    let zeros: [DatePart; 5] = [
        (BrokenDownTime::month, BrokenDownTime::set_month, 1),
        (BrokenDownTime::day, BrokenDownTime::set_day, 1),
        (BrokenDownTime::hour, BrokenDownTime::set_hour, 0),
        (BrokenDownTime::minute, BrokenDownTime::set_minute, 0),
        (BrokenDownTime::second, BrokenDownTime::set_second, 0),
    ];
    for (get, set, zero) in zeros {
        if get(&parts).is_none() {
            set(&mut parts, Some(zero)).ok()?;
        }
    }
    match parts.offset() {
        Some(offset) => parts
            .to_datetime()
            .ok()?
            .to_zoned(TimeZone::fixed(offset))
            .ok(),
        None => parts.to_datetime().ok()?.to_zoned(zone.clone()).ok(),
    }
}

/// The layouts `date(text)` tries, as expr's.
const DATE_LAYOUTS: &[&str] = &[
    "2006-01-02",
    "15:04:05",
    "2006-01-02 15:04:05",
    "2006-01-02T15:04:05Z07:00",
    "02 Jan 06 15:04 MST",
    "Monday, 02-Jan-06 15:04:05 MST",
    "Mon, 02 Jan 2006 15:04:05 MST",
];

/// [`DATE_LAYOUTS`], converted once.
static DEFAULT_LAYOUTS: std::sync::LazyLock<Vec<(String, bool, bool)>> =
    std::sync::LazyLock::new(|| DATE_LAYOUTS.iter().map(|go| layout(go)).collect());

/// `now`, `duration`, `date` and `timezone`.
pub(crate) fn call(
    name: &str,
    arguments: &[Argument],
    range: Range<usize>,
) -> Result<Node, CondError> {
    match name {
        "now" => Err(crate::eval_error(
            "`now()` is not offered: a composed blueprint must not depend on the moment it was composed; pass the date in the context's values and read it with `date(..)`",
            range,
        )),
        "duration" => {
            let written = text(name, &arguments[0])?;
            parse_duration(written).map(duration_node).ok_or_else(|| {
                crate::eval_error(
                    format!("{written:?} is not a duration (write it as `1h30m`, `1.5s`, `250ms`)"),
                    arguments[0].1.clone(),
                )
            })
        }
        "timezone" => {
            let written = text(name, &arguments[0])?;
            zone(written, &arguments[0].1)?;
            Ok(plain(Value::String(written.to_owned())).with_tag(Some(Tag::new(TIME_ZONE))))
        }
        _ => {
            // `date(timezone, text, ...)`: the zone first, as expr allows.
            let (given_zone, arguments) = match arguments.split_first() {
                Some((first, rest)) if zone_of(&first.0).is_some() && !rest.is_empty() => {
                    (zone_of(&first.0).map(str::to_owned), rest)
                }
                _ => (None, arguments),
            };
            let written = text(name, &arguments[0])?;
            let zone_name = match arguments.get(2) {
                Some(zone_argument) => Some(text(name, zone_argument)?.to_owned()),
                None => given_zone,
            };
            let time_zone = match &zone_name {
                Some(zone_name) => zone(zone_name, &range)?,
                None => TimeZone::UTC,
            };
            let parsed = match arguments.get(1) {
                Some(layout_argument) => {
                    parse_date(written, text(name, layout_argument)?, &time_zone)
                }
                None => DEFAULT_LAYOUTS
                    .iter()
                    .find_map(|layout| parse_in(written, layout, &time_zone)),
            };
            parsed.map(|date| date_node(&date)).ok_or_else(|| {
                crate::eval_error(
                    format!("{written:?} is not a date in the layout given (or, without one, in `2006-01-02`, `15:04:05`, `2006-01-02 15:04:05`, RFC 3339, RFC 822, RFC 850 or RFC 1123)"),
                    arguments[0].1.clone(),
                )
            })
        }
    }
}

/// How many arguments Go's method `name` of a date or a duration takes;
/// `None` for a name that is none of them.
fn method_arity(name: &str, date: bool) -> Option<usize> {
    const DATE: &[(&str, usize)] = &[
        ("Year", 0),
        ("Month", 0),
        ("Day", 0),
        ("Hour", 0),
        ("Minute", 0),
        ("Second", 0),
        ("Nanosecond", 0),
        ("Weekday", 0),
        ("YearDay", 0),
        ("Unix", 0),
        ("UnixMilli", 0),
        ("UnixNano", 0),
        ("String", 0),
        ("UTC", 0),
        ("IsZero", 0),
        ("Format", 1),
        ("In", 1),
        ("Add", 1),
        ("Sub", 1),
        ("Before", 1),
        ("After", 1),
        ("Equal", 1),
        ("AddDate", 3),
    ];
    const DURATION: &[(&str, usize)] = &[
        ("Hours", 0),
        ("Minutes", 0),
        ("Seconds", 0),
        ("Milliseconds", 0),
        ("Microseconds", 0),
        ("Nanoseconds", 0),
        ("String", 0),
        ("Abs", 0),
    ];
    let table = if date { DATE } else { DURATION };
    table
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, count)| *count)
}

/// `target.name(arguments)`: Go's methods of `time.Time` and
/// `time.Duration`.
pub(crate) fn method(
    target: &Node,
    name: &str,
    arguments: &[Argument],
    range: Range<usize>,
) -> Result<Node, CondError> {
    let date = date_of(target);
    let duration = duration_of(target);
    if date.is_none() && duration.is_none() {
        return Err(crate::eval_error(
            format!(
                "`.{name}()`: only dates and durations have methods, found {}",
                kind(target)
            ),
            range,
        ));
    }
    let what = if date.is_some() {
        "a date"
    } else {
        "a duration"
    };
    let Some(wanted) = method_arity(name, date.is_some()) else {
        return Err(crate::eval_error(
            format!("{what} has no method `{name}`"),
            range,
        ));
    };
    if arguments.len() != wanted {
        return Err(crate::eval_error(
            format!(
                "`.{name}()` takes {wanted} arguments, found {}",
                arguments.len()
            ),
            range,
        ));
    }
    match (date, duration) {
        (Some(date), _) => date_method(&date, name, arguments, range),
        (_, Some(nanoseconds)) => Ok(duration_method(nanoseconds, name)),
        (None, None) => unreachable!("checked above"),
    }
}

/// Go's method `name` of a date, its arguments counted.
fn date_method(
    date: &Zoned,
    name: &str,
    arguments: &[Argument],
    range: Range<usize>,
) -> Result<Node, CondError> {
    let caller = format!(".{name}");
    let other_date =
        || date_of(&arguments[0].0).ok_or_else(|| wrong(&caller, "a date", &arguments[0]));
    let int = |value: i64| plain(Value::Int(value));
    Ok(match name {
        "Year" => int(i64::from(date.year())),
        "Month" => int(i64::from(date.month())),
        "Day" => int(i64::from(date.day())),
        "Hour" => int(i64::from(date.hour())),
        "Minute" => int(i64::from(date.minute())),
        "Second" => int(i64::from(date.second())),
        "Nanosecond" => int(i64::from(date.subsec_nanosecond())),
        "Weekday" => int(i64::from(date.weekday().to_sunday_zero_offset())),
        "YearDay" => int(i64::from(date.day_of_year())),
        "Unix" => int(date.timestamp().as_second()),
        "UnixMilli" => int(date.timestamp().as_millisecond()),
        "UnixNano" => int(
            i64::try_from(date.timestamp().as_nanosecond()).map_err(|_| {
                crate::eval_error("the date is too far for nanoseconds", range.clone())
            })?,
        ),
        "String" => plain(Value::String(go_date(date))),
        "UTC" => date_node(&date.with_time_zone(TimeZone::UTC)),
        "IsZero" => plain(Value::Bool(
            date.datetime() == jiff::civil::date(1, 1, 1).at(0, 0, 0, 0),
        )),
        "Format" => {
            let (format, utc_as_z, _) = layout(text(&caller, &arguments[0])?);
            let mut written = date.strftime(&format).to_string();
            if utc_as_z && date.offset().seconds() == 0 {
                written = written.replace("+00:00", "Z").replace("+0000", "Z");
            }
            plain(Value::String(written))
        }
        "In" => {
            let zone_name = zone_of(&arguments[0].0)
                .or_else(|| arguments[0].0.as_str())
                .ok_or_else(|| wrong(&caller, "a time zone", &arguments[0]))?;
            date_node(&date.with_time_zone(zone(zone_name, &arguments[0].1)?))
        }
        "Add" => {
            let nanoseconds = duration_of(&arguments[0].0)
                .ok_or_else(|| wrong(&caller, "a duration", &arguments[0]))?;
            shift(date, nanoseconds, &range)?
        }
        "AddDate" => {
            let years = integer(&caller, &arguments[0])?;
            let months = integer(&caller, &arguments[1])?;
            let days = integer(&caller, &arguments[2])?;
            let failed = |error: jiff::Error| {
                crate::eval_error(format!("`.AddDate`: {error}"), range.clone())
            };
            let span = jiff::Span::new()
                .try_years(years)
                .and_then(|span| span.try_months(months))
                .and_then(|span| span.try_days(days))
                .map_err(failed)?;
            date_node(&date.checked_add(span).map_err(failed)?)
        }
        "Sub" => between(date, &other_date()?, &range)?,
        // `Before`, `After`, `Equal`.
        _ => {
            let ordering = date.timestamp().cmp(&other_date()?.timestamp());
            plain(Value::Bool(match name {
                "Before" => ordering == Ordering::Less,
                "After" => ordering == Ordering::Greater,
                _ => ordering == Ordering::Equal,
            }))
        }
    })
}

/// Go's method `name` of a duration (none takes arguments).
fn duration_method(nanoseconds: i64, name: &str) -> Node {
    #[expect(
        clippy::cast_precision_loss,
        reason = "Go's Hours(), Minutes(), Seconds() are floats"
    )]
    let float = |unit: f64| plain(Value::Float(nanoseconds as f64 / unit));
    let int = |value: i64| plain(Value::Int(value));
    match name {
        "Hours" => float(3600e9),
        "Minutes" => float(60e9),
        "Seconds" => float(1e9),
        "Milliseconds" => int(nanoseconds / 1_000_000),
        "Microseconds" => int(nanoseconds / 1_000),
        "Nanoseconds" => int(nanoseconds),
        "String" => plain(Value::String(go_duration(nanoseconds))),
        // `Abs`.
        _ => duration_node(nanoseconds.saturating_abs()),
    }
}

/// `date` moved by a duration.
fn shift(date: &Zoned, nanoseconds: i64, range: &Range<usize>) -> Result<Node, CondError> {
    date.checked_add(SignedDuration::from_nanos(nanoseconds))
        .map(|moved| date_node(&moved))
        .map_err(|_| crate::eval_error("the date moves out of the range of dates", range.clone()))
}

/// The duration from `b` to `a`.
fn between(a: &Zoned, b: &Zoned, range: &Range<usize>) -> Result<Node, CondError> {
    let nanoseconds = a.timestamp().as_nanosecond() - b.timestamp().as_nanosecond();
    i64::try_from(nanoseconds)
        .map(duration_node)
        .map_err(|_| crate::eval_error("the duration between the dates is too long", range.clone()))
}

/// `op` when an operand is a date or a duration; `None` otherwise.
pub(crate) fn binary(
    op: BinaryOp,
    a: &Node,
    b: &Node,
    range: &Range<usize>,
) -> Option<Result<Node, CondError>> {
    let timed = is_timed;
    if !timed(a) && !timed(b) {
        return None;
    }
    let overflow = || crate::eval_error(format!("`{}` overflows", op.symbol()), range.clone());
    let duration = |value: Option<i64>| value.map(duration_node).ok_or_else(overflow);
    Some(
        match (op, date_of(a), duration_of(a), date_of(b), duration_of(b)) {
            // Comparisons and `in` are the evaluator's: its `equal` and
            // `order` know dates and durations.
            (
                BinaryOp::Equal
                | BinaryOp::NotEqual
                | BinaryOp::Less
                | BinaryOp::LessEqual
                | BinaryOp::Greater
                | BinaryOp::GreaterEqual
                | BinaryOp::In,
                ..,
            ) => {
                return None;
            }
            (BinaryOp::Subtract, Some(x), _, Some(y), _) => between(&x, &y, range),
            (BinaryOp::Add, Some(x), _, _, Some(d)) | (BinaryOp::Add, _, Some(d), Some(x), _) => {
                shift(&x, d, range)
            }
            (BinaryOp::Subtract, Some(x), _, _, Some(d)) => match d.checked_neg() {
                Some(back) => shift(&x, back, range),
                None => Err(overflow()),
            },
            (BinaryOp::Add, _, Some(x), _, Some(y)) => duration(x.checked_add(y)),
            (BinaryOp::Subtract, _, Some(x), _, Some(y)) => duration(x.checked_sub(y)),
            (BinaryOp::Multiply, _, Some(x), _, None)
            | (BinaryOp::Multiply, _, None, _, Some(x)) => {
                let other = if is_duration(a) { b } else { a };
                match other.value {
                    Value::Int(factor) if !timed(other) => duration(x.checked_mul(factor)),
                    _ => Err(crate::eval::mismatch(op, a, b, range.clone())),
                }
            }
            (BinaryOp::Divide, _, Some(x), _, None) => match b.value {
                Value::Int(0) => Err(crate::eval_error("division by zero", range.clone())),
                Value::Int(divisor) => duration(x.checked_div(divisor)),
                _ => Err(crate::eval::mismatch(op, a, b, range.clone())),
            },
            _ => Err(crate::eval::mismatch(op, a, b, range.clone())),
        },
    )
}

/// `-duration`; `None` for other values.
pub(crate) fn negate(
    op: UnaryOp,
    value: &Node,
    range: &Range<usize>,
) -> Option<Result<Node, CondError>> {
    let nanoseconds = duration_of(value)?;
    (op == UnaryOp::Negate).then(|| {
        nanoseconds
            .checked_neg()
            .map(duration_node)
            .ok_or_else(|| crate::eval_error("the negation overflows", range.clone()))
    })
}

/// Whether `node` is a date or a duration.
pub(crate) fn is_timed(node: &Node) -> bool {
    is_date(node) || is_duration(node)
}

/// The order of two dates or of two durations; `None` for anything else.
pub(crate) fn order(a: &Node, b: &Node) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (date_of(a), date_of(b)) {
        return Some(x.timestamp().cmp(&y.timestamp()));
    }
    duration_of(a).zip(duration_of(b)).map(|(x, y)| x.cmp(&y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_and_write_as_go() {
        for (written, nanoseconds, shown) in [
            ("1h30m", 5_400_000_000_000, "1h30m0s"),
            ("1.5s", 1_500_000_000, "1.5s"),
            ("250ms", 250_000_000, "250ms"),
            ("-90s", -90_000_000_000, "-1m30s"),
            ("1us", 1_000, "1µs"),
            ("0", 0, "0s"),
            ("2h45m30.5s", 9_930_500_000_000, "2h45m30.5s"),
        ] {
            assert_eq!(parse_duration(written), Some(nanoseconds), "{written}");
            assert_eq!(go_duration(nanoseconds), shown, "{written}");
        }
        assert_eq!(parse_duration("1d"), None);
        assert_eq!(parse_duration(""), None);
        assert_eq!(parse_duration("h"), None);
    }

    #[test]
    fn go_layouts_read_dates() {
        let utc = TimeZone::UTC;
        let date = parse_date("2023-08-14 10:20:30", "2006-01-02 15:04:05", &utc).unwrap();
        assert_eq!(rfc3339(&date), "2023-08-14T10:20:30Z");
        let date = parse_date(
            "2023-08-14T10:20:30+02:00",
            "2006-01-02T15:04:05Z07:00",
            &utc,
        )
        .unwrap();
        assert_eq!(rfc3339(&date), "2023-08-14T10:20:30+02:00");
        let date = parse_date(
            "Mon, 14 Aug 2023 10:20:30 UTC",
            "Mon, 02 Jan 2006 15:04:05 MST",
            &utc,
        )
        .unwrap();
        assert_eq!(rfc3339(&date), "2023-08-14T10:20:30Z");
        assert!(parse_date("14/08/2023", "2006-01-02", &utc).is_none());
    }
}
