//! The diagnostic codes of file access.

strata_syntax::declare_codes! {
    READ = "io/read" {
        when: "the file or folder cannot be read (missing, not a folder, refused)",
        why: r"Every file a run needs is read through the operating system: the paths on the command line, the project folder, and what its files include or import. A file that does not exist, a path that is not the kind expected (a file where a folder is needed), or a read the system refuses is reported with the system's reason, at the reference that asked for it.",
        fix: r"Check the path (it is relative to the file that names it, or to the current folder on the command line) and the file's permissions.",
        example: r"# overlay.yaml does not exist
strata merge app.yaml overlay.yaml",
    }

    NOT_UTF8 = "io/not-utf8" {
        when: "the file is not UTF-8 text",
        why: r"All inputs are read as UTF-8 text, so that the positions in diagnostics and the characters in the output are exact. A file in another encoding (Latin-1, UTF-16) or a binary file is refused, at the first byte that is not UTF-8.",
        fix: r"Save the file as UTF-8 (`iconv -f latin1 -t utf-8`), or remove the binary file from the project folder.",
        example: r"# app.yaml saved as Latin-1 (the byte 0xe9 for `é`)
printf 'name: caf\xe9\n' > app.yaml && strata merge app.yaml",
    }

    OUTSIDE_ROOT = "io/outside-root" {
        when: "the path leads outside the root, lexically or through a symlink",
        why: r"A project is read below a root folder (the catalogue, the application, `--root`), and the paths its files name (includes, imports, files) may not lead above it, lexically (`..`, an absolute path) or through a symlink. What a project reads is then what is in it, however its files are written.",
        fix: r"Move or copy the file inside the root and name it by a path that stays there, or choose a root that holds both files (`--root`).",
        example: r"# app/blueprint.yaml (with: strata spec render app/blueprint.yaml --root app)
version: 2023-04-20
include:
  shared:
    path: ../shared.yaml
resources:
  r:
    type: core/value
    spec: {value: 1}",
    }

    NOT_A_FILE = "io/not-a-file" {
        when: "the path in a tree names a FIFO, a socket or a device: it is not opened",
        why: r"Only regular files are read. A FIFO, a socket or a device in a project folder could block a read forever or yield data without end, so it is refused before it is opened.",
        fix: r"Remove the special file from the project folder, or give it a name the dialect does not read (another extension).",
        example: r"mkfifo catalogue/pipe.yaml
strata platform check catalogue",
    }

    SKIPPED = "io/skipped" {
        when: "warning: a listing skipped an entry it would have taken (a symlink leading outside the root, or nowhere)",
        why: r"A folder listing takes the files a dialect reads (by their extension). An entry it would take but cannot follow (a symlink leading outside the root, or to nothing) is skipped rather than read, with this warning so that the missing file is not silent.",
        fix: r"Replace the symlink by the file itself (or a symlink that stays inside the root), or remove it.",
        example: r"ln -s /etc/hosts catalogue/hosts.yaml
strata platform check catalogue",
    }

    WRITE = "io/write" {
        when: "an output file cannot be written (`--out-dir` names a file, a folder cannot be created, the disk is full, permission is refused)",
        why: r"A command that writes files (`capabilities build --out-dir`) writes each one whole: to a temporary file beside it, synced and renamed over the target, so that a reader never sees half a file. When the system refuses any step, the target is left as it was and the reason is reported.",
        fix: r"Choose a folder you may write to, free space, or remove the file that stands where a folder is needed.",
        example: r"touch out && strata capabilities build app.yaml --profile cluster.yaml --out-dir out",
    }
}
