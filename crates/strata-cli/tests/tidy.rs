//! Conventions checked by a test rather than by memory (rust-analyzer's
//! `tidy`).
//!
//! Diagnostic codes: every crate that reports declares its codes once, in
//! `src/codes.rs`, through `strata_syntax::declare_codes!` (`UNKNOWN_KEY =
//! "schema/unknown-key" { when, why, fix, example }`), which makes the
//! constants and the table `strata explain` reads. Outside `codes.rs` no
//! code is written as a string literal, except in tests. And
//! every code is exercised: a fixture's `expected.diagnostics` or a test
//! (an integration test, a snapshot, a `#[cfg(test)]` module) names it, by
//! its text or by its constant. The tables themselves are read by
//! `support/codes.rs`, which the manual's test generates the codes
//! reference from.
//!
//! Reading: input files are read through `strata-fs` and parsed through
//! `strata_dialect::Reader`, so outside tests no crate's `src/` but
//! `strata-fs`'s reads or asks about a file with `std::fs`, and none but
//! `strata-syntax`'s and `strata-dialect`'s calls `strata_syntax::parse`;
//! the exceptions are named, with why, and one no longer needed fails too.
#![expect(clippy::panic, reason = "a test stops at the first surprise")]

#[path = "support/codes.rs"]
mod codes;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use codes::Table;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file below `dir` whose name ends with one of `suffixes`, sorted.
fn files(dir: &Path, suffixes: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if suffixes
                .iter()
                .any(|suffix| path.to_string_lossy().ends_with(suffix))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A code: `area/kind`, lowercase words joined by `-`.
fn is_code(text: &str) -> bool {
    text.split_once('/').is_some_and(|(area, kind)| {
        !area.is_empty()
            && !kind.is_empty()
            && area
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && kind
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    })
}

/// The string literals of a line of code (not of a comment).
fn literals(line: &str) -> Vec<&str> {
    if line.trim_start().starts_with("//") {
        return Vec::new();
    }
    line.split('"').skip(1).step_by(2).collect()
}

/// The code of a file before its `#[cfg(test)]` module, and the test part.
fn split_tests(text: &str) -> (&str, &str) {
    text.find("#[cfg(test)]")
        .map_or((text, ""), |at| text.split_at(at))
}

/// Whether `text` names `code` as a whole (not as the start of a longer
/// code): in quotes, in a diagnostic line, in a snapshot.
fn names_code(text: &str, code: &str) -> bool {
    text.match_indices(code).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + code.len()..].chars().next();
        let part = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '/' || c == '_';
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

/// The name a code's constant has: `schema/unknown-key` is `UNKNOWN_KEY`.
#[derive(Debug)]
struct Declared {
    file: PathBuf,
    constant: String,
}

/// The codes a crate's `codes.rs` declares, each checked against the
/// codes declared before; and the table
/// itself, which the manual's codes reference is generated from.
fn declarations(
    table: &Table,
    declared: &mut BTreeMap<String, Declared>,
    problems: &mut Vec<String>,
) {
    let file = &table.file;
    check_table(table, problems);
    for row in &table.rows {
        let code = row.code.as_str();
        if !is_code(code) {
            problems.push(format!("{}: `{code}` is not `area/kind`", file.display()));
        }
        let entry = Declared {
            file: file.clone(),
            constant: row.constant.clone(),
        };
        if let Some(first) = declared.insert(code.to_owned(), entry) {
            problems.push(format!(
                "`{code}` is declared in {} and in {}",
                first.file.display(),
                file.display()
            ));
        }
    }
}

/// The shape the manual's codes reference needs: a sentence before the
/// table saying whose codes these are, a header `| code | when |` (more
/// columns allowed), and rows of one code and a cell per column.
fn check_table(table: &Table, problems: &mut Vec<String>) {
    let krate = &table.krate;
    if table.before.is_empty() {
        problems.push(format!(
            "{krate}: `codes.rs` says nothing before its table of codes"
        ));
    }
    if table.columns.len() < 2 || table.columns[..2] != ["code", "when"] {
        problems.push(format!(
            "{krate}: the codes table's header is {:?}, not `| code | when |`",
            table.columns
        ));
    }
    problems.extend(table.problems());
    for row in &table.rows {
        if row.cells.len() + 1 != table.columns.len() || row.cells.iter().any(String::is_empty) {
            problems.push(format!(
                "{krate}: `{}` has {} cells, some empty, for the {} columns",
                row.code,
                row.cells.len() + 1,
                table.columns.len()
            ));
        }
    }
}

/// Codes the prose around a table names must exist (a code renamed or
/// removed is renamed or removed there too).
fn check_prose(
    tables: &[Table],
    declared: &BTreeMap<String, Declared>,
    problems: &mut Vec<String>,
) {
    for table in tables {
        let prose = format!("{}\n{}", table.before, table.after);
        for word in prose.split('`').skip(1).step_by(2) {
            if is_code(word) && !declared.contains_key(word) {
                problems.push(format!(
                    "{}: the module docs name `{word}`, which no crate declares",
                    table.krate
                ));
            }
        }
    }
}

#[test]
fn diagnostic_codes_are_declared_once_documented_and_exercised() {
    let root = workspace();
    let sources = files(&root.join("crates"), &[".rs"]);
    let mut problems = Vec::new();
    let mut declared: BTreeMap<String, Declared> = BTreeMap::new();

    let tables = codes::tables(&root);
    for table in &tables {
        declarations(table, &mut declared, &mut problems);
    }
    check_prose(&tables, &declared, &mut problems);
    assert!(
        declared.len() > 80,
        "the codes are found ({} declared)",
        declared.len()
    );
    let areas: BTreeSet<&str> = declared
        .keys()
        .filter_map(|code| code.split_once('/').map(|(area, _)| area))
        .collect();

    // Written once: no literal code outside `codes.rs`, tests aside.
    let mut test_material = String::new();
    for file in &sources {
        let text = read(file);
        let in_tests_folder = file.components().any(|c| c.as_os_str() == "tests")
            || file.components().any(|c| c.as_os_str() == "benches");
        let (code, tests) = if in_tests_folder {
            ("", text.as_str())
        } else {
            split_tests(&text)
        };
        test_material.push_str(tests);
        if file.ends_with("src/codes.rs") {
            continue;
        }
        for (number, line) in code.lines().enumerate() {
            for literal in literals(line) {
                let area = literal.split_once('/').map(|(area, _)| area);
                if is_code(literal) && area.is_some_and(|area| areas.contains(area)) {
                    problems.push(format!(
                        "{}:{}: `{literal}` is written out; use its constant from `codes`",
                        file.display(),
                        number + 1
                    ));
                }
            }
        }
    }
    for file in files(&root.join("tests/fixtures"), &["expected.diagnostics"])
        .into_iter()
        .chain(files(&root.join("crates"), &[".snap"]))
    {
        test_material.push_str(&read(&file));
    }

    // Exercised: a fixture or a test names each code.
    for (code, declared) in &declared {
        let by_constant = format!("codes::{}", declared.constant);
        if !names_code(&test_material, code) && !test_material.contains(&by_constant) {
            problems.push(format!(
                "`{code}` ({}) is exercised by no fixture and no test",
                declared.file.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every declared code is explained: `strata explain --all` lists each one
/// with its why, fix and example (a table the binary does not list, or an
/// entry left empty, fails here).
#[test]
fn every_code_is_explained_by_the_binary() {
    let root = workspace();
    let declared: BTreeSet<String> = codes::tables(&root)
        .iter()
        .flat_map(|table| table.rows.iter().map(|row| row.code.clone()))
        .collect();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["explain", "--all", "-o", "json"])
        .output()
        .unwrap_or_else(|error| panic!("strata explain: {error}"));
    assert_eq!(output.status.code(), Some(0));
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("strata explain --all -o json: {error}"));
    let mut explained = BTreeSet::new();
    for entry in &listed {
        let code = entry["code"].as_str().unwrap_or_default().to_owned();
        for field in ["when", "why", "fix", "example"] {
            let text = entry[field].as_str().unwrap_or_default();
            assert!(
                !text.trim().is_empty() && !text.contains("TODO"),
                "`{code}` has no `{field}`"
            );
        }
        explained.insert(code);
    }
    let unexplained: Vec<&String> = declared.difference(&explained).collect();
    assert!(unexplained.is_empty(), "not explained: {unexplained:?}");
    let undeclared: Vec<&String> = explained.difference(&declared).collect();
    assert!(
        undeclared.is_empty(),
        "explained, not declared: {undeclared:?}"
    );
}

/// The most names a dialect's root may re-export.
const MAX_ROOT_NAMES: usize = 40;

/// The names a crate root's `pub use` items re-export (`a::{B, c as d}`
/// gives `B` and `d`), or the first glob re-export (`pub use a::*`).
fn reexported_names(lib: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for item in lib.split("pub use ").skip(1) {
        let item = item.split(';').next().unwrap_or_default();
        if item.contains('*') {
            return Err(format!("`pub use {item}` re-exports a glob"));
        }
        let list = match (item.find('{'), item.rfind('}')) {
            (Some(open), Some(close)) => &item[open + 1..close],
            _ => item,
        };
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let name = name.rsplit(" as ").next().unwrap_or(name);
            names.push(name.rsplit("::").next().unwrap_or(name).to_owned());
        }
    }
    Ok(names)
}

/// A dialect's root re-exports what its users need, at most
/// [`MAX_ROOT_NAMES`] names, none by a glob; the rest of a dialect is
/// reached through a public module (`strata_spec::deploy`, a `model`) or
/// is the crate's own.
#[test]
fn dialect_roots_re_export_a_small_surface() {
    let root = workspace();
    let mut problems = Vec::new();
    for dialect in ["platform", "components", "features", "capabilities", "spec"] {
        let lib = root.join(format!("crates/strata-{dialect}/src/lib.rs"));
        match reexported_names(&read(&lib)) {
            Ok(names) if names.len() > MAX_ROOT_NAMES => problems.push(format!(
                "{}: {} names re-exported, more than {MAX_ROOT_NAMES}",
                lib.display(),
                names.len()
            )),
            Ok(_) => {}
            Err(problem) => problems.push(format!("{}: {problem}", lib.display())),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The longest a source file of a crate may be.
const MAX_SOURCE_LINES: usize = 1_200;

/// No Rust file of a crate (its sources, tests, benchmarks and examples)
/// is longer than [`MAX_SOURCE_LINES`]: a longer one is split by topic.
#[test]
fn no_source_file_is_too_long() {
    let root = workspace();
    let long: Vec<String> = files(&root.join("crates"), &[".rs"])
        .into_iter()
        .filter_map(|file| {
            let lines = read(&file).lines().count();
            (lines > MAX_SOURCE_LINES).then(|| format!("{}: {lines} lines", file.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "longer than {MAX_SOURCE_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// Where a crate's source goes around the one way of reading, and why: the
/// file, what it calls, and the reason it is not reading an input file.
struct Exception {
    file: &'static str,
    call: &'static str,
    why: &'static str,
}

/// Calls of `std::fs` (or another `fs`) that read or look at the input
/// tree outside `strata-fs`, each for something that is not an input file.
const FS_EXCEPTIONS: &[Exception] = &[
    Exception {
        file: "crates/strata-dialect/src/resident.rs",
        call: "fs::read_to_string",
        why: "a process's resident set, from `/proc`",
    },
    Exception {
        file: "crates/strata-server/src/watch.rs",
        call: "fs::metadata",
        why: "the watcher's identity of a catalogue root (device and inode), to see it re-created",
    },
    Exception {
        file: "crates/strata-jsonnet/src/process.rs",
        call: "fs::metadata",
        why: "whether a data source's or Helm's command is an executable file, as qbec looks for it, before running it",
    },
    Exception {
        file: "crates/strata-spec/src/cli.rs",
        call: "fs::canonicalize",
        why: "where the blueprint named on the command line is, to say whether `--root` holds it",
    },
];

/// Calls of `strata_syntax::parse` outside `strata-syntax` and
/// `strata-dialect`, each on text that is not a file.
const PARSE_EXCEPTIONS: &[Exception] = &[
    Exception {
        file: "crates/strata-jsonnet/src/natives.rs",
        call: "strata_syntax::parse",
        why: "the text a Jsonnet `parseYaml` or `parseJson` call is given, or `helm template` writes",
    },
    Exception {
        file: "crates/strata-capabilities/src/build/sources.rs",
        call: "strata_syntax::parse",
        why: "the manifests a `crd` or `manifests` component writes in its `inline` property: text inside `app.yaml`, read as YAML 1.1 as Kure reads it",
    },
];

/// What reads or looks at files: any `fs::read…` (`read`, `read_to_string`,
/// `read_dir`, `read_link`), opening a file, and asking about one. Writing
/// (the binary's `man` pages) is not reading.
const FS_READS: &[&str] = &[
    "fs::read",
    "fs::metadata",
    "fs::symlink_metadata",
    "fs::canonicalize",
    "File::open",
    "OpenOptions",
];

/// Whether `text` has `word` at `at` standing on its own before (not the
/// tail of a longer name: `strata_fs::read_bounded` is not `fs::read`).
fn starts_word(text: &str, at: usize) -> bool {
    !text[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `text` names the item `path` (`strata_syntax::parse`, not
/// `strata_syntax::parse_document`), called, passed or imported.
fn names_item(text: &str, path: &str) -> bool {
    text.match_indices(path).any(|(at, _)| {
        starts_word(text, at)
            && !text[at + path.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The `use strata_syntax::…;` statements of `code` that import `parse`.
fn imports_parse(code: &str) -> bool {
    code.match_indices("use strata_syntax::").any(|(at, _)| {
        let statement = code[at..].split(';').next().unwrap_or_default();
        statement
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| word == "parse")
    })
}

/// Every input file is read through `strata-fs` (confined to its root,
/// bounded in size, opened only when it is a regular file) and parsed
/// through `strata_dialect::Reader` (registered, parsed within the limits,
/// its documents counted, every problem reported one way). So, outside
/// tests: no crate's `src/` but `strata-fs`'s reads a file with `std::fs`
/// (or opens or asks about one), and no crate's `src/` but
/// `strata-syntax`'s and `strata-dialect`'s calls `strata_syntax::parse`;
/// the exceptions are named above, with why.
#[test]
fn input_files_are_read_through_strata_fs_and_the_reader() {
    let root = workspace();
    let mut problems = Vec::new();
    let mut used: BTreeSet<(&str, &str)> = BTreeSet::new();
    for file in files(&root.join("crates"), &[".rs"]) {
        let relative = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let Some((krate, inside)) = relative
            .strip_prefix("crates/")
            .and_then(|rest| rest.split_once('/'))
        else {
            continue;
        };
        if !inside.starts_with("src/") {
            continue;
        }
        let text = read(&file);
        let (code, _) = split_tests(&text);
        let code: String = code
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let excepted = |exceptions: &'static [Exception], call: &str| {
            exceptions
                .iter()
                .find(|exception| exception.file == relative && exception.call == call)
        };
        if krate != "strata-fs" {
            for call in FS_READS {
                let found = code
                    .match_indices(call)
                    .map(|(at, _)| at)
                    .filter(|&at| starts_word(&code, at))
                    .map(|at| {
                        let rest = &code[at..];
                        rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                            .next()
                            .unwrap_or(call)
                    })
                    .collect::<BTreeSet<&str>>();
                for called in found {
                    match excepted(FS_EXCEPTIONS, called) {
                        Some(exception) => {
                            used.insert((exception.file, exception.call));
                        }
                        None => problems.push(format!(
                            "{relative}: `{called}` reads outside `strata-fs`; read through `Files` (a `strata_dialect::Reader`), or name the exception and why"
                        )),
                    }
                }
            }
        }
        if krate != "strata-syntax" && krate != "strata-dialect" {
            let call = "strata_syntax::parse";
            if names_item(&code, call) || imports_parse(&code) {
                match excepted(PARSE_EXCEPTIONS, call) {
                    Some(exception) => {
                        used.insert((exception.file, exception.call));
                    }
                    None => problems.push(format!(
                        "{relative}: parses with `{call}`; read through `strata_dialect::Reader` (`read`, or `read_text` for text that is not a file), or name the exception and why"
                    )),
                }
            }
        }
    }
    for exception in FS_EXCEPTIONS.iter().chain(PARSE_EXCEPTIONS) {
        assert!(!exception.why.is_empty());
        if !used.contains(&(exception.file, exception.call)) {
            problems.push(format!(
                "{}: the exception for `{}` is no longer needed; remove it",
                exception.file, exception.call
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// No caller branches on a diagnostic's code by comparing it: where a
/// caller must know which problem happened, a typed result says so (the
/// platform's `Refusal`, the spec's `Unset`), else a `match` on the
/// declared constants does.
#[test]
fn no_caller_compares_a_code() {
    let root = workspace();
    let mut problems = Vec::new();
    for file in files(&root.join("crates"), &[".rs"]) {
        if !file.components().any(|c| c.as_os_str() == "src") {
            continue;
        }
        let text = read(&file);
        let (code, _) = split_tests(&text);
        for (number, line) in code.lines().enumerate() {
            if line.contains(".code == ") || line.contains(".code != ") {
                problems.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "compare a code with `match`:\n{}",
        problems.join("\n")
    );
}
