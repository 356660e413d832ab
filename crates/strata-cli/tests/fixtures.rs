//! Data-driven tests through the `strata` binary, one per folder under
//! `tests/fixtures/` that has an `args` file.
//!
//! A case folder holds:
//! - `args`: the command line after `strata`, one argument per line; paths
//!   are relative to the case folder, which is the working directory;
//! - the input files the arguments name, and optionally `stdin`;
//! - optionally `env`: `NAME=VALUE` lines, set in the command's environment;
//! - `expected.out`: the expected standard output (absent: empty);
//! - `expected.diagnostics`: the expected diagnostics, one JSON object per
//!   line as `--diagnostics json` prints them (absent: none).
//!
//! The expected exit status is 1 when an expected diagnostic is an error,
//! else 0. Run with `STRATA_BLESS=1` to write the expectations from the
//! current behaviour (then read the diff before committing it).

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn fixture(args_file: &Path) -> datatest_stable::Result<()> {
    let case = args_file.parent().ok_or("args file without a folder")?;
    let args: Vec<String> = fs::read_to_string(args_file)?
        .lines()
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect();
    let stdin = fs::read(case.join("stdin")).ok();
    let environment: Vec<(String, String)> = fs::read_to_string(case.join("env"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(&args)
        .envs(environment)
        .args(["--diagnostics", "json", "--color", "never"])
        .current_dir(case)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(bytes) = stdin {
        child.stdin.take().ok_or("no stdin")?.write_all(&bytes)?;
    }
    let output = child.wait_with_output()?;
    let stdout = String::from_utf8(output.stdout)?;
    let stderr = String::from_utf8(output.stderr)?;

    let out_path = case.join("expected.out");
    let diagnostics_path = case.join("expected.diagnostics");
    if std::env::var_os("STRATA_BLESS").is_some() {
        write_or_remove(&out_path, &stdout)?;
        write_or_remove(&diagnostics_path, &stderr)?;
        return Ok(());
    }
    let expected_out = fs::read_to_string(&out_path).unwrap_or_default();
    let expected_diagnostics = fs::read_to_string(&diagnostics_path).unwrap_or_default();
    let expected_status = i32::from(expected_diagnostics.contains(r#""severity":"error""#));

    let mut problems = Vec::new();
    if stdout != expected_out {
        problems.push(format!(
            "stdout:\n--- expected\n{expected_out}--- actual\n{stdout}"
        ));
    }
    if stderr != expected_diagnostics {
        problems.push(format!(
            "diagnostics:\n--- expected\n{expected_diagnostics}--- actual\n{stderr}"
        ));
    }
    if output.status.code() != Some(expected_status) {
        problems.push(format!(
            "exit status: expected {expected_status}, got {:?}",
            output.status.code()
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}:\n{}", case.display(), problems.join("\n")).into())
    }
}

fn write_or_remove(path: &Path, text: &str) -> std::io::Result<()> {
    if text.is_empty() {
        match fs::remove_file(path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        }
    } else {
        fs::write(path, text)
    }
}

datatest_stable::harness! {
    { test = fixture, root = "../../tests/fixtures", pattern = r"/args$" },
}
