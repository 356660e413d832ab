//! The tables of diagnostic codes, read in one place: every crate that
//! reports declares its codes in `src/codes.rs`, whose module docs hold a
//! table (`| code | when |`, some with a third column) between prose. The
//! tidy test checks the tables against the constants; the manual's test
//! generates `docs/src/reference/codes.md` from them.

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

/// The table of one `codes.rs`, from its leading `//!` lines.
fn parse(krate: String, file: PathBuf, text: &str) -> Table {
    let docs: Vec<&str> = text
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect();
    let start = docs
        .iter()
        .position(|line| line.starts_with('|'))
        .unwrap_or(docs.len());
    let end = docs[start..]
        .iter()
        .position(|line| !line.starts_with('|'))
        .map_or(docs.len(), |at| start + at);
    let mut table = Table {
        krate,
        file,
        before: docs[..start].join("\n").trim().to_owned(),
        after: docs[end..].join("\n").trim().to_owned(),
        columns: docs.get(start).map(|line| cells(line)).unwrap_or_default(),
        rows: Vec::new(),
        malformed: Vec::new(),
    };
    for (at, line) in docs[start..end].iter().enumerate() {
        if at == 0 || (at == 1 && line.starts_with("|---")) {
            continue;
        }
        let mut cells = cells(line);
        let code = cells
            .first()
            .and_then(|cell| cell.strip_prefix('`')?.strip_suffix('`'))
            .filter(|code| !code.contains('`'))
            .map(str::to_owned);
        match code {
            Some(code) => {
                cells.remove(0);
                table.rows.push(Row { code, cells });
            }
            None => table.malformed.push((*line).to_owned()),
        }
    }
    table
}

/// The cells of a table line, trimmed (`| a | b |` is `a`, `b`); `\|` is
/// a `|` inside a cell.
fn cells(line: &str) -> Vec<String> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = line.strip_suffix('|').unwrap_or(line);
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for c in line.chars() {
        if c == '|' && !escaped {
            cells.push(String::new());
        } else if let Some(cell) = cells.last_mut() {
            cell.push(c);
        }
        escaped = c == '\\';
    }
    cells.iter().map(|cell| cell.trim().to_owned()).collect()
}
