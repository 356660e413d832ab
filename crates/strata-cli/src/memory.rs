//! A bound on the memory a run holds: `--memory-limit`.
//!
//! Most inputs are bounded where they are read (size, nesting, alias
//! expansion, CEL cost), but an evaluation can still grow without end: a
//! Jsonnet program that doubles a string forty times asks for a terabyte
//! within a second, and a Jsonnet VM cannot be interrupted. So a watcher
//! thread reads the process's resident set
//! ([`strata_dialect::resident_bytes`]) every few milliseconds, and when
//! it passes the limit the run ends at once: `run/memory-limit` on
//! standard error, exit status 1, nothing on standard output. The
//! overshoot is what the process allocates between two looks (tens of
//! megabytes at most).
//!
//! Reading the resident set costs nothing on the evaluating threads, where
//! counting every allocation would. Where `/proc` is missing (not Linux),
//! the watcher does not start and the limit is not enforced.

use std::time::Duration;

use strata_syntax::{Diagnostic, SourceDb, Span};

use crate::{GlobalArgs, codes, render};

/// How often the resident set is read.
const INTERVAL: Duration = Duration::from_millis(5);

/// The default limit, far above what any measured run holds (the largest,
/// a thousand-component application, peaks under 100 MiB).
pub(crate) const DEFAULT_LIMIT: &str = "4GiB";

/// Starts the watcher for `limit` bytes (none for 0).
pub(crate) fn watch(limit: u64, global: &GlobalArgs) {
    if limit == 0 || resident_bytes().is_none() {
        return;
    }
    let global = global.clone();
    let watcher = std::thread::Builder::new()
        .name("memory-limit".to_owned())
        .spawn(move || {
            while let Some(resident) = resident_bytes() {
                if resident > limit {
                    exceeded(limit, &global);
                }
                std::thread::sleep(INTERVAL);
            }
        });
    // Without a thread the run goes on unwatched, as where `/proc` is missing.
    drop(watcher);
}

/// Reports the limit and ends the process.
fn exceeded(limit: u64, global: &GlobalArgs) -> ! {
    let mut db = SourceDb::new();
    let source = db.add("<process>", "");
    let diagnostic = Diagnostic::error(
        codes::MEMORY_LIMIT,
        format!(
            "the run held more than {} of memory and was stopped",
            strata_dialect::format_size(limit)
        ),
        Span::new(source, 0, 0),
    )
    .with_help(
        "an evaluation that grows without end (a Jsonnet recursion, say) ends here; \
         if the input is that large, raise `--memory-limit`",
    );
    render::print(&db, &[diagnostic], global);
    std::process::exit(1)
}

/// The process's resident set in bytes.
fn resident_bytes() -> Option<u64> {
    strata_dialect::resident_bytes(std::process::id())
}

/// Parses `--memory-limit`: bytes, or a number with `KiB`, `MiB`, `GiB` or
/// `TiB` (`K`, `M`, `G`, `T` and `KB`... are read as the same powers of
/// 1024); `0` turns the limit off.
pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size: a number, then KiB, MiB, GiB or TiB"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => return Err(format!("`{other}` is not a unit: use KiB, MiB, GiB or TiB")),
    };
    number
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("`{text}` is more than this machine can count"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("64 kib"), Ok(64 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(parse_size("GiB").is_err());
        assert!(parse_size("4 parsecs").is_err());
        assert!(parse_size("99999999999TiB").is_err());
    }
}
