//! `RootFs` on a real folder: symlinks inside are followed, outside refused.
#![expect(clippy::unwrap_used, reason = "a test stops at the first surprise")]

use std::path::{Path, PathBuf};

use strata_fs::{Files, FsError, RootFs};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("strata-fs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(unix)]
#[test]
fn symlinks_are_confined_and_configmap_entries_skipped() {
    use std::os::unix::fs::symlink;

    let outside = scratch("outside");
    std::fs::write(outside.join("secret.yaml"), "token: x\n").unwrap();
    let root = scratch("root");
    // A ConfigMap mount: ..2024_01_01/ holds the files, ..data links to it,
    // and each visible file links through ..data.
    std::fs::create_dir_all(root.join("..2024_01_01")).unwrap();
    std::fs::write(root.join("..2024_01_01/base.yaml"), "name: base\n").unwrap();
    symlink("..2024_01_01", root.join("..data")).unwrap();
    symlink("..data/base.yaml", root.join("base.yaml")).unwrap();
    std::fs::create_dir_all(root.join("teams")).unwrap();
    std::fs::write(root.join("teams/python.yml"), "name: python\n").unwrap();
    symlink(outside.join("secret.yaml"), root.join("leak.yaml")).unwrap();
    symlink(&root, root.join("teams/loop")).unwrap();

    let fs = RootFs::new(&root).unwrap();
    let listed = fs.list(&["yaml", "yml"]).unwrap();
    assert_eq!(
        listed,
        [
            PathBuf::from("base.yaml"),
            PathBuf::from("teams/python.yml")
        ]
    );
    assert_eq!(
        fs.read(Path::new("base.yaml"), 1024).unwrap(),
        "name: base\n"
    );
    assert!(matches!(
        fs.read(Path::new("leak.yaml"), 1024),
        Err(FsError::Escapes(_))
    ));
    assert!(matches!(
        fs.read(Path::new("../outside/secret.yaml"), 1024),
        Err(FsError::Escapes(_))
    ));
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&outside);
}

#[test]
fn the_root_must_be_a_folder() {
    let root = scratch("file-root");
    let file = root.join("a.yaml");
    std::fs::write(&file, "a: 1\n").unwrap();
    let error = RootFs::new(&file).unwrap_err();
    assert!(error.to_string().contains("not a directory"), "{error}");
    assert!(matches!(
        RootFs::new(root.join("missing")),
        Err(FsError::Io(..))
    ));
    let _ = std::fs::remove_dir_all(&root);
}
