//! What the evaluation's surroundings give: `cwd()` and `datetime(format)`,
//! the current time in UTC (`unix`, `rfc3339`, `tag`, `tagcompact`).

use super::strings::string;
use super::{Args, DATETIME_FORMATS, Fail, fail, fail_at};
use crate::value::Value;

pub(super) fn cwd(args: &Args<'_>) -> Result<Value, Fail> {
    args.env.cwd().map(Value::String).map_err(fail)
}

pub(super) fn datetime(args: &Args<'_>) -> Result<Value, Fail> {
    let format = args.string(0)?;
    let seconds = args.env.now_unix();
    let (date, time) = civil(seconds);
    let (year, month, day) = date;
    let (hour, minute, second) = time;
    string(match format {
        "unix" => seconds.to_string(),
        "rfc3339" => format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"),
        "tag" => format!("{year:04}-{month:02}-{day:02}--{hour:02}-{minute:02}-{second:02}"),
        "tagcompact" => format!("{year:04}{month:02}{day:02}{hour:02}{minute:02}{second:02}"),
        other => {
            return Err(fail_at(
                0,
                format!(
                    "`{other}` is not a datetime format: use one of {}",
                    DATETIME_FORMATS.join(", ")
                ),
            )
            .withholding(format!(
                "the format is not a datetime format: use one of {}",
                DATETIME_FORMATS.join(", ")
            )));
        }
    })
}

/// The UTC calendar date and time of a Unix time (days from civil, after
/// Howard Hinnant's algorithm).
pub(super) fn civil(seconds: i64) -> ((i64, i64, i64), (i64, i64, i64)) {
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        (year, month, day),
        (of_day / 3600, of_day % 3600 / 60, of_day % 60),
    )
}
