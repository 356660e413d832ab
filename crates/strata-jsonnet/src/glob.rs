//! qbec's glob imports: `import 'glob-import:PATTERN'` and
//! `import 'glob-importstr:PATTERN'`.
//!
//! The pattern is relative to the importing file's folder (library paths
//! are not searched, as in qbec: `*.libsonnet` would be ambiguous), with
//! `*`, `?`, `[...]` within one path segment and `**` across segments. The
//! value is an object with a field per matching file, keyed by the file's
//! path relative to the importing file's folder (`../lib/a.json` included),
//! in sorted order, whose value is that file `import`ed or `importstr`ed.
//! No match is an empty object, as in qbec. Matching happens through the
//! render's confined [`Files`]: a pattern that leaves the root is an error,
//! and files outside it are never listed.
//!
//! The import resolves to a [`GlobSource`]: a source path of its own whose
//! text is the generated object, `{ "a.json": import "a.json", ... }`, so
//! jrsonnet caches it like any file and the inner imports resolve from the
//! importing file's folder.

use std::fmt;
use std::fmt::Write as _;
use std::hash::Hash;
use std::path::{Component, Path, PathBuf};

use jrsonnet_gcmodule::Trace;
use strata_fs::{Files, FsError};

/// The two import verbs a glob can stand for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Trace)]
pub(crate) enum Verb {
    /// `glob-import:`: each file as a value.
    Import,
    /// `glob-importstr:`: each file as text.
    ImportStr,
}

impl Verb {
    /// The verb of an import path and the pattern after its prefix.
    pub(crate) fn split(path: &str) -> Option<(Verb, &str)> {
        if let Some(pattern) = path.strip_prefix("glob-import:") {
            Some((Verb::Import, pattern))
        } else {
            path.strip_prefix("glob-importstr:")
                .map(|pattern| (Verb::ImportStr, pattern))
        }
    }

    fn keyword(self) -> &'static str {
        match self {
            Verb::Import => "import",
            Verb::ImportStr => "importstr",
        }
    }
}

/// A glob import, as a source path: the verb, the importing file's folder
/// (relative to the root) and the pattern as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Trace)]
pub(crate) struct GlobSource {
    verb: Verb,
    folder: PathBuf,
    pattern: String,
}

impl GlobSource {
    /// A glob of `verb` written in the file `from` (relative to the root).
    pub(crate) fn new(verb: Verb, from: &Path, pattern: &str) -> GlobSource {
        GlobSource {
            verb,
            folder: from.parent().map(Path::to_path_buf).unwrap_or_default(),
            pattern: pattern.to_owned(),
        }
    }

    /// A stand-in for the file the glob was written in: imports of the
    /// generated object resolve next to it.
    pub(crate) fn importing_file(&self) -> PathBuf {
        self.folder.join(".glob")
    }

    /// The generated object: every file below `fs`'s root that matches.
    pub(crate) fn code(&self, fs: &dyn Files) -> Result<String, String> {
        if Path::new(&self.pattern).is_absolute() {
            return Err(format!(
                "`{self}`: a glob pattern is relative to the importing file, not absolute"
            ));
        }
        let joined = strata_fs::normalise(&self.folder.join(&self.pattern))
            .map_err(|error| format!("`{self}` must stay inside the application: {error}"))?;
        let pattern = glob::Pattern::new(&joined.to_string_lossy())
            .map_err(|error| format!("`{self}` is not a glob: {}", error.msg))?;
        let options = glob::MatchOptions {
            require_literal_separator: true,
            ..glob::MatchOptions::default()
        };
        // Entries the listing skipped (links leading out) match nothing, as
        // a file that is not there; the dialect's own listing names them.
        let files = fs
            .list(&[])
            .map_err(|error: FsError| error.to_string())?
            .files;
        let mut keys: Vec<String> = files
            .iter()
            .filter(|file| pattern.matches_path_with(file, options))
            .map(|file| relative(&self.folder, file))
            .collect();
        keys.sort();
        // Written as qbec writes it (a tab, single quotes), so that
        // `importstr 'glob-import:...'` gives qbec's text.
        let mut code = String::from("{\n");
        for key in keys {
            let quoted = single_quoted(&key);
            code.extend([
                "\t",
                &quoted,
                ": ",
                self.verb.keyword(),
                " ",
                &quoted,
                ",\n",
            ]);
        }
        code.push('}');
        Ok(code)
    }
}

impl fmt::Display for GlobSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "glob-{}:{}", self.verb.keyword(), self.pattern)
    }
}

virtual_source_path!(GlobSource);

/// `text` as a single-quoted Jsonnet string. qbec writes the quotes around
/// the name as it is, so a file name holding a quote or a backslash breaks
/// its generated code; here they are escaped.
fn single_quoted(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('\'');
    for c in text.chars() {
        match c {
            '\'' | '\\' => quoted.extend(['\\', c]),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(quoted, "\\u{:04x}", u32::from(c));
            }
            c => quoted.push(c),
        }
    }
    quoted.push('\'');
    quoted
}

/// `file` relative to `folder` (both relative to the root, normalised),
/// with `..` where `file` is not below `folder`, `/`-separated.
fn relative(folder: &Path, file: &Path) -> String {
    let folder: Vec<Component<'_>> = folder.components().collect();
    let file: Vec<Component<'_>> = file.components().collect();
    let common = folder.iter().zip(&file).take_while(|(a, b)| a == b).count();
    let ups = std::iter::repeat_n("..".to_owned(), folder.len() - common);
    let downs = file[common..]
        .iter()
        .map(|part| part.as_os_str().to_string_lossy().into_owned());
    ups.chain(downs).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use strata_fs::MemoryFs;

    use super::*;

    fn code(from: &str, path: &str, fs: &MemoryFs) -> Result<String, String> {
        let (verb, pattern) = Verb::split(path).unwrap();
        GlobSource::new(verb, Path::new(from), pattern).code(fs)
    }

    #[test]
    fn keys_are_relative_to_the_importing_folder_and_sorted() {
        let fs = MemoryFs::new()
            .with("lib/b.json", "{}")
            .with("lib/a.json", "{}")
            .with("lib/deep/c.json", "{}")
            .with("lib/.hidden.json", "{}")
            .with("components/x.jsonnet", "");
        assert_eq!(
            code("components/x.jsonnet", "glob-import:../lib/*.json", &fs).unwrap(),
            "{\n\t'../lib/a.json': import '../lib/a.json',\n\t'../lib/b.json': import '../lib/b.json',\n}"
        );
        assert_eq!(
            code("x.jsonnet", "glob-importstr:lib/**/*.json", &fs).unwrap(),
            "{\n\t'lib/a.json': importstr 'lib/a.json',\n\t'lib/b.json': importstr 'lib/b.json',\n\t'lib/deep/c.json': importstr 'lib/deep/c.json',\n}"
        );
        assert_eq!(
            code("x.jsonnet", "glob-import:nothing/*", &fs).unwrap(),
            "{\n}"
        );
    }

    #[test]
    fn odd_file_names_are_escaped() {
        assert_eq!(single_quoted("it's\\a\tb"), "'it\\'s\\\\a\\tb'");
        let fs = MemoryFs::new().with("it's.json", "{\"a\": 1}");
        let generated = code("x.jsonnet", "glob-import:*.json", &fs).unwrap();
        assert_eq!(generated, "{\n\t'it\\'s.json': import 'it\\'s.json',\n}");
    }

    #[test]
    fn patterns_stay_inside_the_root() {
        let fs = MemoryFs::new().with("x.jsonnet", "");
        let escapes = code("x.jsonnet", "glob-import:../*.json", &fs).unwrap_err();
        assert!(escapes.contains("must stay inside"), "{escapes}");
        let absolute = code("x.jsonnet", "glob-import:/etc/*", &fs).unwrap_err();
        assert!(absolute.contains("not absolute"), "{absolute}");
        assert!(Verb::split("import:x").is_none());
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("a/b"), Path::new("a/c/d.json")),
            "../c/d.json"
        );
        assert_eq!(relative(Path::new(""), Path::new("a.json")), "a.json");
        assert_eq!(relative(Path::new("a"), Path::new("a/x/y")), "x/y");
    }
}
