//! The memory a process holds: its resident set, as Linux counts it.
//!
//! An evaluation that grows without end (a Jsonnet program that doubles a
//! string forty times) cannot be interrupted, so it is bounded from
//! outside: a watcher reads the resident set every few milliseconds and
//! ends the process past its bound (the command line's `--memory-limit`
//! on itself, the language server's check budget on its child). Reading
//! costs nothing on the evaluating threads, where counting every
//! allocation would.

/// The resident set of the process `pid` in bytes (`VmRSS` in
/// `/proc/PID/status`); `None` where `/proc` is missing (not Linux) or the
/// process is gone.
#[must_use]
pub fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// `bytes` in the largest binary unit that divides it, or in bytes: how a
/// memory bound is written in a message (`4 GiB`).
#[must_use]
pub fn format_size(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::{format_size, resident_bytes};

    #[test]
    fn sizes_print_in_the_largest_unit_that_fits() {
        assert_eq!(format_size(4 << 30), "4 GiB");
        assert_eq!(format_size(1536 << 20), "1536 MiB");
        assert_eq!(format_size(1000), "1000 bytes");
    }

    #[test]
    fn the_resident_set_is_read_where_proc_exists() {
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(resident_bytes(std::process::id()).is_some_and(|bytes| bytes > 0));
        }
        assert_eq!(resident_bytes(u32::MAX), None);
    }
}
