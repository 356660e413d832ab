//! The container image: `deploy/image/build` builds the release binary
//! statically linked and the image `FROM scratch` with buildah (installed
//! from Debian's packages when missing; buildah builds without running a
//! container, which these machines cannot). The test inspects the image
//! (user, entrypoint, labels), copies the binary back out of its layer,
//! checks that it asks for no dynamic loader, and runs `--version` and
//! `platform check` on the bundled example with it.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// buildah with the test's own storage below the target folder.
fn buildah(storage: &Path, args: &[&str]) -> Output {
    let output = Command::new("buildah")
        .arg("--root")
        .arg(storage.join("root"))
        .arg("--runroot")
        .arg(storage.join("run"))
        .args(["--storage-driver", "vfs"])
        .args(args)
        .output()
        .expect("buildah runs");
    assert!(output.status.success(), "buildah {args:?}: {output:?}");
    output
}

/// Whether the ELF file `binary` has a `PT_INTERP` program header (asks
/// for a dynamic loader).
fn asks_for_a_loader(binary: &[u8]) -> bool {
    let word = |at: usize, size: usize| -> u64 {
        binary[at..at + size]
            .iter()
            .rev()
            .fold(0, |value, byte| value << 8 | u64::from(*byte))
    };
    assert_eq!(&binary[..4], b"\x7fELF", "an ELF file");
    assert_eq!(binary[4], 2, "64-bit");
    let table = usize::try_from(word(0x20, 8)).expect("an offset");
    let entry = usize::try_from(word(0x36, 2)).expect("a size");
    let count = usize::try_from(word(0x38, 2)).expect("a count");
    (0..count).any(|index| word(table + index * entry, 4) == 3)
}

#[test]
fn the_image_holds_a_static_binary_that_runs() {
    let storage = Path::new(env!("CARGO_TARGET_TMPDIR")).join("image-storage");
    let built = Command::new(root().join("deploy/image/build"))
        .env("STRATA_IMAGE_STORAGE", &storage)
        .output()
        .expect("the build script runs");
    assert!(built.status.success(), "{built:?}");
    let version = env!("CARGO_PKG_VERSION");
    let image = format!("localhost/strata:{version}");

    let inspected = buildah(&storage, &["inspect", "--type", "image", &image]);
    let inspected: serde_json::Value = serde_json::from_slice(&inspected.stdout).expect("JSON");
    let config = &inspected["OCIv1"]["config"];
    assert_eq!(config["User"], "65532:65532");
    assert_eq!(config["WorkingDir"], "/work");
    assert_eq!(config["Entrypoint"], serde_json::json!(["/strata"]));
    let labels = &config["Labels"];
    assert_eq!(labels["org.opencontainers.image.version"], version);
    assert_eq!(labels["org.opencontainers.image.licenses"], "Apache-2.0");
    assert!(labels["org.opencontainers.image.source"].is_string());
    let layers = inspected["OCIv1"]["rootfs"]["diff_ids"]
        .as_array()
        .map(Vec::len);
    assert_eq!(layers, Some(1), "one layer: the binary");

    // The binary, back out of the image's layer.
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let layout = scratch.path().join("layout");
    let destination = format!("oci:{}", layout.display());
    buildah(
        &storage,
        &["push", "--disable-compression", &image, &destination],
    );
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(layout.join("index.json")).expect("index.json"))
            .expect("JSON");
    let blob = |digest: &str| {
        layout
            .join("blobs/sha256")
            .join(digest.trim_start_matches("sha256:"))
    };
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(blob(
            index["manifests"][0]["digest"].as_str().expect("a digest"),
        ))
        .expect("the manifest"),
    )
    .expect("JSON");
    let layer = blob(manifest["layers"][0]["digest"].as_str().expect("a digest"));
    let unpacked = scratch.path().join("unpacked");
    std::fs::create_dir_all(&unpacked).expect("a folder");
    let untarred = Command::new("tar")
        .arg("-xf")
        .arg(&layer)
        .arg("-C")
        .arg(&unpacked)
        .status()
        .expect("tar runs");
    assert!(untarred.success());
    let binary = unpacked.join("strata");
    assert!(
        !asks_for_a_loader(&std::fs::read(&binary).expect("the binary")),
        "statically linked"
    );

    let run = |args: &[&str]| {
        Command::new(&binary)
            .args(args)
            .current_dir(root().join("examples/platform"))
            .output()
            .expect("the binary runs")
    };
    let version_output = run(&["--version"]);
    assert!(version_output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&version_output.stdout).trim(),
        format!("strata {version}")
    );
    let checked = run(&["platform", "check", "catalogue"]);
    assert!(checked.status.success(), "{checked:?}");
    // Earlier builds' images, untagged now, need not fill the storage.
    buildah(&storage, &["rmi", "--prune"]);
}

/// The check of the loader header itself: the test binary of this very
/// suite is dynamically linked.
#[test]
fn a_dynamic_binary_asks_for_a_loader() {
    let binary = std::fs::read(env!("CARGO_BIN_EXE_strata")).expect("the debug binary");
    assert!(asks_for_a_loader(&binary));
}
