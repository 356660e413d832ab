//! Which project a file belongs to.
//!
//! A file says it itself when its text is one of these (a top-level line,
//! YAML or JSON):
//!
//! | the file holds | dialect | project |
//! |---|---|---|
//! | `version: 2023-04-20` | spec | the file, with its folder as the root its includes are read in |
//! | `apiVersion: launcher.gokure.dev/…`, named `app.yaml` | capabilities | its folder (a package) |
//! | the same in a `definitions` folder | capabilities | the package above |
//!
//! Otherwise the nearest enclosing folder with a marker decides:
//!
//! | marker | dialect |
//! |---|---|
//! | `.strata.yaml` | platform (a catalogue's root) |
//! | `qbec.yaml` | components (a qbec application) |
//! | `windsor.yaml` | features (a Windsor project) |
//!
//! A file that is none of these belongs to no project and gets nothing.
//!
//! The client may name projects itself, in its initialization options
//! ([`Configured`]): a file below a configured root belongs to the
//! innermost one, whatever it holds or has above it. Below a root
//! configured as `spec`, each YAML or JSON file is a blueprint of its own,
//! read with that root as the folder its includes are read in.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The dialects a project can be in.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DialectKind {
    /// A platform catalogue.
    Platform,
    /// A qbec application.
    Components,
    /// A Windsor project.
    Features,
    /// A capabilities package (`app.yaml` and `definitions/`).
    Capabilities,
    /// A spec blueprint: the file, relative to the project's root.
    Spec(PathBuf),
}

/// A project: its dialect and its root folder.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Project {
    /// The dialect.
    pub dialect: DialectKind,
    /// The folder its files are read below.
    pub root: PathBuf,
}

/// A project the client names in `initializationOptions.projects`:
/// `{"root": "/work/catalogue", "dialect": "platform"}` (a relative root is
/// read from the first workspace folder).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Configured {
    /// The project's folder.
    pub root: PathBuf,
    /// Its dialect.
    pub dialect: DialectName,
}

/// A dialect as the client names it.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DialectName {
    /// `platform`.
    Platform,
    /// `components`.
    Components,
    /// `features`.
    Features,
    /// `capabilities`.
    Capabilities,
    /// `spec`.
    Spec,
}

/// The project of `path` among `configured` roots: the innermost root
/// above it.
fn configured_project(path: &Path, configured: &[Configured]) -> Option<Project> {
    let chosen = configured
        .iter()
        .filter(|project| path.starts_with(&project.root))
        .max_by_key(|project| project.root.components().count())?;
    let dialect = match chosen.dialect {
        DialectName::Platform => DialectKind::Platform,
        DialectName::Components => DialectKind::Components,
        DialectName::Features => DialectKind::Features,
        DialectName::Capabilities => DialectKind::Capabilities,
        DialectName::Spec => DialectKind::Spec(path.strip_prefix(&chosen.root).ok()?.to_path_buf()),
    };
    Some(Project {
        dialect,
        root: chosen.root.clone(),
    })
}

/// Each marker file and the dialect it names, in the order they are looked
/// for within one folder.
const MARKERS: [(&str, DialectKind); 3] = [
    (".strata.yaml", DialectKind::Platform),
    ("qbec.yaml", DialectKind::Components),
    ("windsor.yaml", DialectKind::Features),
];

/// The project of the file at `path` (absolute) whose text is `text`, if
/// any: a `configured` one first; `exists` says whether a marker file is
/// there (on disk, or an unsaved buffer).
pub fn find(
    path: &Path,
    text: &str,
    configured: &[Configured],
    exists: impl Fn(&Path) -> bool,
) -> Option<Project> {
    if let Some(project) = configured_project(path, configured) {
        return Some(project);
    }
    let folder = path.parent()?;
    if has_top_level(text, "version", "2023-04-20") {
        return Some(Project {
            dialect: DialectKind::Spec(PathBuf::from(path.file_name()?)),
            root: folder.to_path_buf(),
        });
    }
    if top_level_value(text, "apiVersion")
        .is_some_and(|api| api.starts_with("launcher.gokure.dev/"))
    {
        // Where the file lies says which part of a package it is, whatever
        // its `kind` (a misspelt kind is the package's error to report).
        let root = if path.file_name().is_some_and(|name| name == "app.yaml") {
            Some(folder)
        } else if folder.file_name().is_some_and(|name| name == "definitions") {
            folder.parent()
        } else {
            None
        };
        return root.map(|root| Project {
            dialect: DialectKind::Capabilities,
            root: root.to_path_buf(),
        });
    }
    path.ancestors().skip(1).find_map(|folder| {
        MARKERS.iter().find_map(|(marker, dialect)| {
            exists(&folder.join(marker)).then(|| Project {
                dialect: dialect.clone(),
                root: folder.to_path_buf(),
            })
        })
    })
}

/// The value of a top-level `key` of `text`, YAML (`key: value`, at the
/// start of a line) or JSON (`"key": "value"`), unquoted.
fn top_level_value<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    text.lines().find_map(|line| {
        let rest = line
            .strip_prefix(key)
            .or_else(|| line.trim_start().strip_prefix(&format!("\"{key}\"")))?;
        let value = rest.trim_start().strip_prefix(':')?.trim();
        let value = value.trim_end_matches(',').trim();
        Some(value.trim_matches(|c| c == '"' || c == '\''))
    })
}

/// Whether `text` sets the top-level `key` to `value`.
fn has_top_level(text: &str, key: &str, value: &str) -> bool {
    top_level_value(text, key) == Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_marker_decides() {
        let markers = ["/work/app/qbec.yaml", "/work/.strata.yaml"];
        let exists = |path: &Path| markers.iter().any(|marker| Path::new(marker) == path);
        assert_eq!(
            find(
                Path::new("/work/app/components/a.jsonnet"),
                "{}",
                &[],
                exists
            ),
            Some(Project {
                dialect: DialectKind::Components,
                root: PathBuf::from("/work/app"),
            })
        );
        assert_eq!(
            find(Path::new("/work/blueprints/a.yaml"), "name: a", &[], exists),
            Some(Project {
                dialect: DialectKind::Platform,
                root: PathBuf::from("/work"),
            })
        );
        assert_eq!(
            find(Path::new("/elsewhere/a.yaml"), "a: 1", &[], exists),
            None
        );
    }

    #[test]
    fn configured_projects_come_first_the_innermost_winning() {
        let configured = [
            Configured {
                root: PathBuf::from("/work"),
                dialect: DialectName::Platform,
            },
            Configured {
                root: PathBuf::from("/work/blueprints/spec"),
                dialect: DialectName::Spec,
            },
        ];
        let markers = |path: &Path| path == Path::new("/work/app/qbec.yaml");
        assert_eq!(
            find(
                Path::new("/work/app/components/a.yaml"),
                "",
                &configured,
                markers
            ),
            Some(Project {
                dialect: DialectKind::Platform,
                root: PathBuf::from("/work"),
            })
        );
        assert_eq!(
            find(
                Path::new("/work/blueprints/spec/child/b.yaml"),
                "",
                &configured,
                markers
            ),
            Some(Project {
                dialect: DialectKind::Spec(PathBuf::from("child/b.yaml")),
                root: PathBuf::from("/work/blueprints/spec"),
            })
        );
        let options: Vec<Configured> =
            serde_json::from_str(r#"[{"root": "/c", "dialect": "capabilities"}]"#)
                .unwrap_or_default();
        assert_eq!(
            options.first().map(|c| c.dialect),
            Some(DialectName::Capabilities)
        );
    }

    #[test]
    fn spec_and_capabilities_files_say_what_they_are() {
        let none = |_: &Path| false;
        assert_eq!(
            find(
                Path::new("/b/blueprint.yaml"),
                "version: 2023-04-20\nresources: {}",
                &[],
                none
            ),
            Some(Project {
                dialect: DialectKind::Spec(PathBuf::from("blueprint.yaml")),
                root: PathBuf::from("/b"),
            })
        );
        assert_eq!(
            find(
                Path::new("/b/blueprint.json"),
                "{\n  \"version\": \"2023-04-20\",\n",
                &[],
                none
            )
            .map(|project| project.dialect),
            Some(DialectKind::Spec(PathBuf::from("blueprint.json")))
        );
        let application = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: Application\n";
        assert_eq!(
            find(Path::new("/shop/app.yaml"), application, &[], none),
            Some(Project {
                dialect: DialectKind::Capabilities,
                root: PathBuf::from("/shop"),
            })
        );
        let definition = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: CapabilityDefinition\n";
        assert_eq!(
            find(
                Path::new("/shop/definitions/redis.yaml"),
                definition,
                &[],
                none
            )
            .map(|project| project.root),
            Some(PathBuf::from("/shop"))
        );
        // A profile is not a package's file.
        let profile = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: ClusterProfile\n";
        assert_eq!(find(Path::new("/c/profile.yaml"), profile, &[], none), None);
        // A misspelt kind is still the package's, to be reported there.
        let misspelt = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: Applicaton\n";
        assert_eq!(
            find(Path::new("/shop/app.yaml"), misspelt, &[], none).map(|project| project.dialect),
            Some(DialectKind::Capabilities)
        );
    }
}
