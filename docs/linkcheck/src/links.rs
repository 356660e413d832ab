//! Every relative link of the manual and of the README resolves.
//!
//! The files: every `*.md` below `docs/src` (the manual's pages and
//! `SUMMARY.md`), and the repository's `README.md` and `ARCHITECTURE.md`,
//! which link into it. Their links: inline
//! links and images (`[text](target)`, `![alt](target)`) and reference
//! definitions (`[label]: target`), outside code blocks and code spans.
//! A target with a scheme (`https://...`, `mailto:`) is not checked.
//!
//! A relative target must name a file or folder that exists. From a page of
//! the manual it must also stay inside `docs/src`: the built book holds only
//! those files, so a link out of it (to `../../crates/...`) would break on
//! the web; name such files in code (`crates/strata-cli/tests/tidy.rs`). An
//! `#anchor` must be the id of a heading of the target page (or of the page
//! itself when the target is only `#anchor`), made as mdBook makes it: the
//! heading's text, lowercased, letters, digits, `_` and `-` kept, white
//! space turned into `-`, everything else dropped, and `-1`, `-2`, ...
//! added to a repeated id. And every page is listed in `SUMMARY.md`, or
//! mdBook would not build it.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// What a check found.
pub(crate) struct Report {
    /// The files read.
    pub(crate) files: usize,
    /// The links checked (targets with a scheme not counted).
    pub(crate) links: usize,
    /// One line for each link that leads nowhere, and each page not in
    /// `SUMMARY.md`.
    pub(crate) problems: Vec<String>,
}

/// Checks the manual below `root/docs/src`, and the front pages that link
/// into it.
pub(crate) fn check(root: &Path) -> Report {
    let book = normalize(&root.join("docs/src"));
    let mut pages = Vec::new();
    markdown_files(&book, &mut pages);
    pages.sort();
    let mut report = Report {
        files: 0,
        links: 0,
        problems: Vec::new(),
    };
    if pages.is_empty() {
        report
            .problems
            .push(format!("{}: no pages found", book.display()));
        return report;
    }
    let summary = book.join("SUMMARY.md");
    let mut listed = BTreeSet::new();
    let mut files: Vec<(PathBuf, bool)> = pages.iter().map(|p| (p.clone(), true)).collect();
    for front in ["README.md", "ARCHITECTURE.md"] {
        files.push((normalize(&root.join(front)), false));
    }
    for (file, in_book) in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            report
                .problems
                .push(format!("{}: cannot be read", shown(root, file)));
            continue;
        };
        report.files += 1;
        let dir = file.parent().unwrap_or(root);
        for target in links(&text) {
            report.links += 1;
            let resolved = resolve(file, dir, &target, in_book.then_some(book.as_path()));
            match resolved {
                Ok(path) => {
                    if *file == summary {
                        listed.insert(path);
                    }
                }
                Err(why) => report
                    .problems
                    .push(format!("{}: link `{target}` {why}", shown(root, file))),
            }
        }
    }
    for page in &pages {
        if *page != summary && !listed.contains(page) {
            report.problems.push(format!(
                "{}: not listed in docs/src/SUMMARY.md, so mdBook does not build it",
                shown(root, page)
            ));
        }
    }
    report
}

/// Where a link leads: the file it names, or why it leads nowhere.
fn resolve(file: &Path, dir: &Path, target: &str, book: Option<&Path>) -> Result<PathBuf, String> {
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let resolved = if path.is_empty() {
        file.to_path_buf()
    } else {
        normalize(&dir.join(percent_decoded(path)))
    };
    if book.is_some_and(|book| !resolved.starts_with(book)) {
        return Err("leads out of docs/src, which the built book does not hold".to_owned());
    }
    if !resolved.exists() {
        return Err("names no file".to_owned());
    }
    if anchor.is_empty() {
        return Ok(resolved);
    }
    let page = resolved.extension().is_some_and(|e| e == "md");
    let Some(text) = page
        .then(|| std::fs::read_to_string(&resolved).ok())
        .flatten()
    else {
        return Err("has an anchor, but its file is not a page".to_owned());
    };
    if heading_ids(&text).contains(anchor) {
        Ok(resolved)
    } else {
        Err(format!("names no heading `#{anchor}` of its page"))
    }
}

/// Every `*.md` file below `dir`.
fn markdown_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            markdown_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "md") {
            found.push(normalize(&path));
        }
    }
}

/// `path` without `.` and with each `..` taken back.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// A file's path for a message: relative to the repository.
fn shown(root: &Path, file: &Path) -> String {
    let root = normalize(root);
    file.strip_prefix(&root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// `%20` and the like in a link's path, decoded (only ASCII escapes).
fn percent_decoded(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest
            .get(at + 1..at + 3)
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match code {
            Some(byte) if byte.is_ascii() => {
                out.push(char::from(byte));
                rest = &rest[at + 3..];
            }
            _ => {
                out.push('%');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text of a Markdown file outside fenced code blocks, line by line.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker: String = trimmed
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .collect();
        let is_fence = marker.len() >= 3
            && marker
                .chars()
                .all(|c| c == marker.chars().next().unwrap_or('`'));
        match &fence {
            Some(open) => {
                if is_fence
                    && marker.starts_with(open.as_str())
                    && trimmed[marker.len()..].trim().is_empty()
                {
                    fence = None;
                }
            }
            None if is_fence => fence = Some(marker),
            None => lines.push(line),
        }
    }
    lines
}

/// `text` with its code spans taken out (each replaced by a space).
fn without_code(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('`') {
        out.push_str(&rest[..at]);
        let run = rest[at..].chars().take_while(|&c| c == '`').count();
        let after = &rest[at + run..];
        if let Some(end) = closing_run(after, run) {
            out.push(' ');
            rest = &after[end + run..];
        } else {
            out.push_str(&rest[at..at + run]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Where a run of exactly `run` backticks starts in `text`.
fn closing_run(text: &str, run: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'`' {
            let length = bytes[at..].iter().take_while(|&&b| b == b'`').count();
            if length == run {
                return Some(at);
            }
            at += length;
        } else {
            at += 1;
        }
    }
    None
}

/// The link targets of a Markdown file whose scheme-less targets are to be
/// checked: inline links and images, and reference definitions.
fn links(text: &str) -> Vec<String> {
    let prose = without_code(&prose_lines(text).join("\n"));
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after.find(')').unwrap_or(after.len());
        let target = destination(&after[..end]);
        if !target.is_empty() {
            targets.push(target);
        }
        rest = &after[end..];
    }
    for line in prose.lines() {
        let line = line.trim_start();
        if let Some(label_end) = line.strip_prefix('[').and_then(|l| l.find("]:")) {
            let target = destination(&line[label_end + 3..]);
            if !target.is_empty() {
                targets.push(target);
            }
        }
    }
    targets.retain(|target| !has_scheme(target));
    targets
}

/// A link's destination without its title (`(page.md "Title")`) and angle
/// brackets.
fn destination(text: &str) -> String {
    let text = text.trim();
    let text = text.split_whitespace().next().unwrap_or("");
    text.trim_start_matches('<')
        .trim_end_matches('>')
        .to_owned()
}

/// `https://...`, `mailto:...`: a target this check leaves alone.
fn has_scheme(target: &str) -> bool {
    target.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// The ids mdBook gives the headings of a page, in order.
pub(crate) fn heading_ids(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for line in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let heading = line[hashes..].trim().trim_end_matches('#').trim_end();
        let id = slug(&heading_text(heading));
        let mut unique = id.clone();
        let mut counter = 0;
        while ids.contains(&unique) {
            counter += 1;
            unique = format!("{id}-{counter}");
        }
        ids.insert(unique);
    }
    ids
}

/// A heading's text as a reader sees it: code spans without their
/// backticks, links as their text, emphasis markers gone.
fn heading_text(heading: &str) -> String {
    let mut out = String::new();
    let mut rest = heading;
    while let Some(at) = rest.find('`') {
        out.push_str(&inline_text(&rest[..at]));
        let run = rest[at..].chars().take_while(|&c| c == '`').count();
        let after = &rest[at + run..];
        if let Some(end) = closing_run(after, run) {
            let code = &after[..end];
            out.push_str(
                code.strip_prefix(' ')
                    .and_then(|c| c.strip_suffix(' '))
                    .unwrap_or(code),
            );
            rest = &after[end + run..];
        } else {
            out.push_str(&rest[at..at + run]);
            rest = after;
        }
    }
    out.push_str(&inline_text(rest));
    out
}

/// Text outside code spans: `[text](target)` is its text, `*` and `_`
/// around words are emphasis.
fn inline_text(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        rest = after.find(')').map_or("", |end| &after[end + 1..]);
    }
    out.push_str(rest);
    out.replace(['[', '*'], "")
}

/// mdBook's id for a heading's text (`id_from_content` in `mdbook-html`).
pub(crate) fn slug(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c)
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{heading_ids, links, slug};

    #[test]
    fn headings_get_the_ids_mdbook_gives_them() {
        assert_eq!(slug("`strata platform serve`"), "strata-platform-serve");
        let ids = heading_ids(
            "# `strata merge`: the layered merge\n\n```sh\n# a comment\n```\n\n## Bounds\n\n## Bounds\n\n## [Linked](x.md) *and* `code`\n",
        );
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        assert_eq!(
            ids,
            [
                "bounds",
                "bounds-1",
                "linked-and-code",
                "strata-merge-the-layered-merge"
            ]
        );
    }

    #[test]
    fn links_outside_code_are_found() {
        let text = "See [a](a.md#x) and [the\nb](../b.md \"B\").\n\n`[c](c.md)` is code.\n\n```md\n[d](d.md)\n```\n\n[e]: e.md\n[web](https://example.com)\n";
        assert_eq!(links(text), ["a.md#x", "../b.md", "e.md"]);
    }
}
