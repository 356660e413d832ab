//! The tables of diagnostic codes, read in one place: every crate that
//! reports declares its codes in `src/codes.rs` through
//! `strata_syntax::declare_codes!`, each code with when it is reported
//! (and, for some, where it points), after module docs that say whose
//! codes these are. The tidy test checks the declarations; the manual's
//! test generates `docs/src/reference/codes.md` from them.

use std::path::{Path, PathBuf};

/// One crate's `src/codes.rs`, as its module docs describe it.
pub(crate) struct Table {
    /// The crate's folder: `strata-syntax`.
    pub(crate) krate: String,
    pub(crate) file: PathBuf,
    /// The module docs before the table and after it (Markdown, `//! `
    /// taken off each line).
    pub(crate) before: String,
    pub(crate) after: String,
    /// The header's columns: `code`, `when`, and any more.
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Vec<Row>,
    /// Lines of the table that are not a code's row, as written.
    pub(crate) malformed: Vec<String>,
}

/// A row of a table.
pub(crate) struct Row {
    pub(crate) code: String,
    /// The constant that declares it: `UNKNOWN_KEY`.
    pub(crate) constant: String,
    /// The cells after the code's, one per column after `code`.
    pub(crate) cells: Vec<String>,
}

/// Every `crates/*/src/codes.rs` of the workspace, in crate order.
pub(crate) fn tables(workspace: &Path) -> Vec<Table> {
    let crates = workspace.join("crates");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&crates)
        .unwrap_or_else(|error| panic!("{}: {error}", crates.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("src/codes.rs").is_file())
        .collect();
    folders.sort();
    folders
        .iter()
        .map(|folder| {
            let file = folder.join("src/codes.rs");
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|error| panic!("{}: {error}", file.display()));
            let krate = folder
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            parse(krate, file, &text)
        })
        .collect()
}

/// The table of one `codes.rs`: its `declare_codes!` entries (each
/// `NAME = "area/kind" {` with its `when:` and `where:` lines), the module
/// docs' first paragraph before it and the rest after.
fn parse(krate: String, file: PathBuf, text: &str) -> Table {
    let docs: Vec<&str> = text
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect();
    let first_paragraph = docs
        .iter()
        .position(|line| line.is_empty())
        .unwrap_or(docs.len());
    let mut table = Table {
        krate,
        file,
        before: docs[..first_paragraph].join("\n").trim().to_owned(),
        after: docs[first_paragraph..].join("\n").trim().to_owned(),
        columns: vec!["code".to_owned(), "when".to_owned()],
        rows: Vec::new(),
        malformed: Vec::new(),
    };
    let mut lines = text.lines().skip(docs.len());
    while let Some(line) = lines.next() {
        let Some(entry) = line.strip_prefix("    ").filter(|l| l.ends_with(" {")) else {
            if line.starts_with("pub const ") || line.starts_with("pub static ") {
                table.malformed.push(line.to_owned());
            }
            continue;
        };
        let Some((constant, code)) = entry.split_once(" = ") else {
            table.malformed.push(line.to_owned());
            continue;
        };
        let code = code.trim_end_matches(" {").trim_matches('"').to_owned();
        let mut cells = Vec::new();
        for field in lines.by_ref().map(str::trim) {
            if field == "}" {
                break;
            }
            for (name, column) in [("when: ", "when"), ("where: ", "where")] {
                // A one-line string literal: an example's text may hold
                // a line that starts the same way.
                let literal = field
                    .strip_prefix(name)
                    .filter(|l| l.starts_with('"') && l.ends_with("\","));
                if let Some(literal) = literal {
                    cells.push(unquote(literal.trim_end_matches(',')));
                    if !table.columns.iter().any(|c| c == column) {
                        table.columns.push(column.to_owned());
                    }
                }
            }
        }
        table.rows.push(Row {
            code,
            constant: constant.to_owned(),
            cells,
        });
    }
    table
}

/// The text of a one-line Rust string literal (`"a \"b\""` is `a "b"`).
fn unquote(literal: &str) -> String {
    let inner = literal
        .strip_prefix('"')
        .and_then(|l| l.strip_suffix('"'))
        .unwrap_or(literal);
    inner.replace("\\\"", "\"").replace("\\\\", "\\")
}

impl Table {
    /// What is wrong with the declarations: a line outside
    /// `declare_codes!`, a constant not named after its code
    /// (`schema/unknown-key` is `UNKNOWN_KEY`).
    pub(crate) fn problems(&self) -> Vec<String> {
        let file = self.file.display();
        let mut problems: Vec<String> = self
            .malformed
            .iter()
            .map(|line| format!("{file}: `{line}` declares outside `declare_codes!`"))
            .collect();
        for row in &self.rows {
            let expected = row
                .code
                .split_once('/')
                .map_or(row.code.as_str(), |(_, kind)| kind)
                .to_uppercase()
                .replace('-', "_");
            if row.constant != expected {
                problems.push(format!(
                    "{file}: `{}` is named `{}`, not `{expected}`",
                    row.code, row.constant
                ));
            }
        }
        problems
    }
}
