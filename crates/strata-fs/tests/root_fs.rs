//! `RootFs` on a real folder: symlinks inside are followed, outside refused;
//! an `OverlayFs` of buffers over it; a `Recorded` tree over it says what
//! changed since it was read.
#![expect(clippy::unwrap_used, reason = "a test stops at the first surprise")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use strata_fs::{Files, FsError, MemoryFs, OverlayFs, Recorded, RootFs};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("strata-fs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// How a test makes its reader of a folder.
type MakeReader = fn(&Path) -> RootFs;

/// Both readers: each path resolved whole, and folders resolved once.
const READERS: [(&str, MakeReader); 2] = [
    ("whole", |root| RootFs::new(root).unwrap()),
    ("one-pass", |root| RootFs::for_one_pass(root).unwrap()),
];

#[cfg(unix)]
#[test]
fn symlinks_are_confined_and_configmap_entries_skipped() {
    for (name, reader) in READERS {
        symlinks_are_confined_by(name, reader);
    }
}

#[cfg(unix)]
fn symlinks_are_confined_by(name: &str, reader: MakeReader) {
    use std::os::unix::fs::symlink;

    let outside = scratch(&format!("outside-{name}"));
    std::fs::write(outside.join("secret.yaml"), "token: x\n").unwrap();
    let root = scratch(&format!("root-{name}"));
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
    // Skipped and named: a folder and a file with the extension leading
    // out, and a link to nowhere. Skipped quietly: what would not be listed.
    symlink(&outside, root.join("shared")).unwrap();
    symlink("/dev/zero", root.join("zero.yaml")).unwrap();
    symlink("missing.yaml", root.join("gone.yaml")).unwrap();
    symlink(outside.join("secret.yaml"), root.join("notes.txt")).unwrap();

    let fs = reader(&root);
    let listed = fs.list(&["yaml", "yml"]).unwrap();
    assert_eq!(
        listed.files,
        [
            PathBuf::from("base.yaml"),
            PathBuf::from("teams/python.yml")
        ]
    );
    let skipped: Vec<String> = listed
        .skipped
        .iter()
        .map(|error| {
            let kind = match error {
                FsError::Escapes(_) => "outside",
                FsError::Io(..) => "nowhere",
                _ => "other",
            };
            format!("{} {kind}", error.path().display())
        })
        .collect();
    assert_eq!(
        skipped,
        [
            "gone.yaml nowhere",
            "leak.yaml outside",
            "shared outside",
            "zero.yaml outside"
        ]
    );
    let warning = listed.skipped[3].skipped(strata_syntax::Span::default());
    assert_eq!(warning.code, "io/skipped");
    assert_eq!(
        warning.message,
        "`zero.yaml` is skipped: it is a symlink leading outside the root"
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
    // Through a folder that leads out, read twice (the folder known).
    for _ in 0..2 {
        assert!(matches!(
            fs.read(Path::new("shared/secret.yaml"), 1024),
            Err(FsError::Escapes(_))
        ));
    }
    assert!(!fs.is_file(Path::new("zero.yaml")));
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

/// A FIFO, a socket or a device where a file is expected is refused by
/// name before it is opened: opening a FIFO would wait for a writer.
#[cfg(unix)]
#[test]
fn special_files_are_refused_before_they_are_opened() {
    for (name, reader) in READERS {
        special_files_are_refused_by(name, reader);
    }
}

fn special_files_are_refused_by(name: &str, reader: MakeReader) {
    let root = scratch(&format!("special-{name}"));
    let fifo = root.join("pipe.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo");
    let _socket = std::os::unix::net::UnixListener::bind(root.join("socket.yaml")).unwrap();
    std::fs::write(root.join("plain.yaml"), "a: 1\n").unwrap();

    let fs = reader(&root);
    let listed = fs.list(&["yaml"]).unwrap();
    assert_eq!(listed.files.len(), 3, "listed, to be refused by name");
    for (name, kind) in [("pipe.yaml", "a FIFO"), ("socket.yaml", "a socket")] {
        let error = fs.read(Path::new(name), 1024).unwrap_err();
        assert!(
            matches!(&error, FsError::NotAFile { kind: k, .. } if *k == kind),
            "{error}"
        );
        let diagnostic = error.diagnostic(strata_syntax::Span::default());
        assert_eq!(diagnostic.code, "io/not-a-file");
        assert_eq!(
            diagnostic.message,
            format!("`{name}` is {kind}, not a regular file, and is not read")
        );
    }
    assert!(!fs.is_file(Path::new("pipe.yaml")));
    assert_eq!(fs.read(Path::new("plain.yaml"), 1024).unwrap(), "a: 1\n");
    let _ = std::fs::remove_dir_all(&root);
}

/// A file known to be over the bound is refused without a byte read: the
/// reader here fails if it is read at all.
#[test]
fn a_file_known_to_be_too_large_is_not_read() {
    struct Unreadable;
    impl std::io::Read for Unreadable {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("read although known to be too large"))
        }
    }
    let error = strata_fs::read_bounded(Path::new("big.yaml"), Unreadable, Some(100 << 20), 1024)
        .unwrap_err();
    assert!(
        matches!(error, FsError::TooLarge { size, limit: 1024, .. } if size == 100 << 20),
        "{error}"
    );
    // At the bound exactly, the file is read.
    let read = strata_fs::read_bounded(Path::new("a.yaml"), "abcd".as_bytes(), Some(4), 4);
    assert_eq!(read.unwrap(), "abcd");
}

/// Buffers lie over the tree: a buffer replaces the file of its path or
/// adds one, listings hold both, a subtree keeps the buffers below it, and
/// everything else is read from the base with its confinement.
#[test]
fn an_overlay_reads_buffers_over_the_tree() {
    let root = scratch("overlay");
    let root = root.as_path();
    std::fs::create_dir_all(root.join("blueprints")).unwrap();
    std::fs::write(root.join("blueprints/a.yaml"), "on disk\n").unwrap();
    std::fs::write(root.join("blueprints/b.yaml"), "b\n").unwrap();
    let base: Arc<dyn Files> = Arc::new(RootFs::new(root).unwrap());
    let buffers = MemoryFs::new()
        .with("blueprints/a.yaml", "edited\n")
        .with("blueprints/new.yaml", "unsaved\n");
    let overlay = OverlayFs::new(base, buffers);

    assert_eq!(
        overlay.read(Path::new("blueprints/a.yaml"), 100).unwrap(),
        "edited\n"
    );
    assert_eq!(
        overlay.read(Path::new("blueprints/b.yaml"), 100).unwrap(),
        "b\n"
    );
    assert!(overlay.is_file(Path::new("blueprints/new.yaml")));
    assert!(matches!(
        overlay.read(Path::new("blueprints/a.yaml"), 3),
        Err(FsError::TooLarge { .. })
    ));
    assert!(overlay.read(Path::new("../outside.yaml"), 100).is_err());
    let listed = overlay.list(&["yaml"]).unwrap().files;
    assert_eq!(
        listed,
        [
            "blueprints/a.yaml",
            "blueprints/b.yaml",
            "blueprints/new.yaml"
        ]
        .map(PathBuf::from)
    );

    let below = overlay.subtree(Path::new("blueprints")).unwrap();
    assert_eq!(below.read(Path::new("a.yaml"), 100).unwrap(), "edited\n");
    assert_eq!(below.read(Path::new("b.yaml"), 100).unwrap(), "b\n");
    assert_eq!(
        below.list(&[]).unwrap().files,
        ["a.yaml", "b.yaml", "new.yaml"].map(PathBuf::from)
    );
}

#[test]
fn a_recorded_tree_says_what_changed_since_it_was_read() {
    let root = scratch("recorded");
    std::fs::write(root.join("a.yaml"), "a: 1\n").unwrap();
    std::fs::write(root.join("b.yaml"), "b: 1\n").unwrap();
    let shown = |path: &str| root.join(path).display().to_string();
    let read = || {
        let recorded = Recorded::new(Arc::new(RootFs::new(&root).unwrap()));
        assert!(recorded.is_file(Path::new("a.yaml")));
        for file in recorded.list(&["yaml"]).unwrap().files {
            recorded.read(&file, 100).unwrap();
        }
        let done = std::sync::atomic::AtomicBool::new(false);
        assert_eq!(recorded.settled(Duration::from_millis(20), &done), None);
        recorded
    };
    // Past the file system's timestamp granularity, the same text written
    // again is a new version: a file truncated and written again.
    let recorded = read();
    std::thread::sleep(Duration::from_millis(50));
    std::fs::write(root.join("b.yaml"), "b: 1\n").unwrap();
    assert_eq!(recorded.changed(), Some(shown("b.yaml")));
    // Other text of the same size at once (within one timestamp tick, only
    // the digest tells them apart).
    let recorded = read();
    std::fs::write(root.join("a.yaml"), "a: 2\n").unwrap();
    assert_eq!(recorded.changed(), Some(shown("a.yaml")));
    // A file that appears changes the listing, and one that goes the
    // answer to `is_file` first.
    let recorded = read();
    std::fs::write(root.join("c.yaml"), "c: 1\n").unwrap();
    assert_eq!(recorded.changed(), Some(shown("")));
    let recorded = read();
    std::fs::remove_file(root.join("a.yaml")).unwrap();
    assert_eq!(recorded.changed(), Some(shown("a.yaml")));
    // In memory, nothing changes behind the owner's back.
    let memory = Recorded::new(Arc::new(MemoryFs::new().with("a.yaml", "a: 1\n")));
    memory.read(Path::new("a.yaml"), 100).unwrap();
    assert_eq!(memory.changed(), None);
    let _ = std::fs::remove_dir_all(&root);
}
