//! Python tools the binary's tests check with, each installed from the
//! Python package index into a virtual environment of its own below the
//! target folder when it is not there yet (included with `#[path]` by the
//! tests that use one).
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The executable `program` of `requirement` (`check-jsonschema==0.29.4`),
/// installed once.
pub(crate) fn tool(requirement: &str, program: &str) -> PathBuf {
    let name = requirement.split("==").next().unwrap_or(requirement);
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("tools")
        .join(name);
    let tool = venv.join("bin").join(program);
    if !tool.is_file() {
        let created = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 runs");
        assert!(created.success(), "python3 -m venv");
        let installed = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", requirement])
            .status()
            .expect("pip runs");
        assert!(installed.success(), "pip install {requirement}");
    }
    tool
}
