//! Which project a file belongs to.
//!
//! The client may name projects itself, in its initialization options
//! ([`Configured`]): a file below a configured root belongs to the
//! innermost one, whatever it holds or has above it (a dialect decides
//! what a file below its root is: below a root configured as `spec`, each
//! YAML or JSON file is a blueprint of its own).
//!
//! Otherwise the dialects of the server's [`Registry`] decide, in its
//! order ([`Registry::find`]): a file may say what it is itself (a spec
//! blueprint's `version: 2023-04-20`, a Kure package's
//! `apiVersion: launcher.gokure.dev/…`), else the nearest enclosing folder
//! holding a dialect's marker (`.strata.yaml`, `qbec.yaml`,
//! `windsor.yaml`) is the project's root. A file that is none of these
//! belongs to no project and gets nothing.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use strata_dialect::{Registry, Target};

/// A project: its dialect (a name in the registry), the folder its files
/// are read below and, for a dialect whose projects are single files, the
/// file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Project {
    /// The dialect's name.
    pub dialect: String,
    /// The folder its files are read below.
    pub root: PathBuf,
    /// Its one file, below `root`, for a single-file project.
    pub file: Option<PathBuf>,
}

impl Project {
    /// The project `target` of the dialect `dialect`.
    #[must_use]
    pub fn new(dialect: &str, target: Target) -> Project {
        Project {
            dialect: dialect.to_owned(),
            root: target.root,
            file: target.file,
        }
    }

    /// What its dialect opens.
    #[must_use]
    pub fn target(&self) -> Target {
        Target {
            root: self.root.clone(),
            file: self.file.clone(),
        }
    }
}

/// A project the client names in `initializationOptions.projects`:
/// `{"root": "/work/catalogue", "dialect": "platform"}` (a relative root is
/// read from the first workspace folder).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Configured {
    /// The project's folder.
    pub root: PathBuf,
    /// Its dialect's name.
    pub dialect: String,
}

/// The project of `path` among `configured` roots of the registry's
/// dialects: the innermost root above it.
fn configured_project(
    path: &Path,
    configured: &[Configured],
    registry: &Registry,
) -> Option<Project> {
    let (chosen, entry) = configured
        .iter()
        .filter(|project| path.starts_with(&project.root))
        .filter_map(|project| Some((project, registry.get(&project.dialect)?)))
        .max_by_key(|(project, _)| project.root.components().count())?;
    Some(Project::new(
        entry.name,
        entry.configured(&chosen.root, path)?,
    ))
}

/// The project of the file at `path` (absolute) whose text is `text`, if
/// any: a `configured` one first, then as the `registry` finds it;
/// `exists` says whether a marker file is there (on disk, or an unsaved
/// buffer).
pub fn find(
    path: &Path,
    text: &str,
    configured: &[Configured],
    registry: &Registry,
    exists: impl Fn(&Path) -> bool,
) -> Option<Project> {
    if let Some(project) = configured_project(path, configured, registry) {
        return Some(project);
    }
    let (entry, target) = registry.find(path, text, exists)?;
    Some(Project::new(entry.name, target))
}
