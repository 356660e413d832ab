//! The server in a real editor: headless Neovim opens a file, shows the
//! diagnostics and follows a definition.

use std::path::PathBuf;
use std::process::Command;

use crate::support;

/// `nvim`, installed from Debian's packages when missing.
fn neovim() -> &'static str {
    let found = |program: &str| {
        Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|output| output.status.success())
    };
    if !found("nvim") {
        let install = || {
            Command::new("apt-get")
                .args(["install", "-y", "-q", "neovim"])
                .status()
                .is_ok_and(|status| status.success())
        };
        let installed = install()
            || (Command::new("apt-get")
                .args(["update", "-q"])
                .status()
                .is_ok_and(|status| status.success())
                && install());
        assert!(
            installed,
            "nvim is missing and `apt-get install neovim` failed"
        );
    }
    "nvim"
}

/// A real editor as the client: headless Neovim (Debian's package,
/// installed with `apt-get` when `nvim` is missing) runs
/// `tests/neovim/session.lua`, which starts `strata lsp` with Neovim's own
/// LSP client on the example catalogue, breaks and fixes a blueprint in
/// the buffer, and asks for a definition. The test checks what Neovim
/// holds: the diagnostic with its code and columns, its clearing, the
/// location it was given, and the server's status after Neovim stops it.
#[test]
fn neovim_shows_diagnostics_and_follows_a_definition() {
    let nvim = neovim();
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let catalogue = scratch.path().join("catalogue");
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    support::copy_tree(
        &manifest.join("../../examples/platform/catalogue"),
        &catalogue,
    );
    let out = scratch.path().join("seen.json");
    let status = Command::new(nvim)
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!(
            "luafile {}",
            manifest.join("tests/neovim/session.lua").display()
        ))
        .env("STRATA", env!("CARGO_BIN_EXE_strata"))
        .env("ROOT", &catalogue)
        .env("FILE", catalogue.join("blueprints/go-services.yaml"))
        .env("OUT", &out)
        .env("HOME", scratch.path())
        .status()
        .expect("nvim runs");
    let seen: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&out).expect("the session wrote what it saw"),
    )
    .expect("JSON");
    assert!(status.success() && seen["ok"] == true, "{status}: {seen}");
    let broken = &seen["broken"];
    assert_eq!(broken["code"], "platform/unknown-template", "{seen}");
    assert_eq!(
        (&broken["line"], &broken["col"], &broken["end_col"]),
        (&2.into(), &10.into(), &16.into()),
        "{seen}"
    );
    assert!(
        broken["message"]
            .as_str()
            .is_some_and(|message| message.contains("unknown template `pyhton`")),
        "{seen}"
    );
    assert_eq!(seen["fixed"], 0);
    assert_eq!(
        seen["exit"], 0,
        "the server's status after shutdown and exit"
    );
    let definition = &seen["definition"];
    let definition = if definition.is_array() {
        &definition[0]
    } else {
        definition
    };
    assert_eq!(
        definition["uri"],
        format!(
            "file://{}",
            catalogue.join("templates/languages.yaml").display()
        )
    );
    assert_eq!(
        definition["range"]["start"],
        serde_json::json!({"line": 23, "character": 10})
    );
}
