//! Which project a file belongs to: the nearest enclosing folder with a
//! dialect's marker.
//!
//! | marker | dialect |
//! |---|---|
//! | `.strata.yaml` | platform (a catalogue's root) |
//! | `qbec.yaml` | components (a qbec application) |
//! | `windsor.yaml` | features (a Windsor project) |
//!
//! The walk goes up from the file's folder and stops at the first folder
//! holding any marker; a file with none above it belongs to no project and
//! gets nothing.

use std::path::{Path, PathBuf};

/// The dialects a project can be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DialectKind {
    /// A platform catalogue.
    Platform,
    /// A qbec application.
    Components,
    /// A Windsor project.
    Features,
}

/// A project: its dialect and its root folder.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Project {
    /// The dialect its marker names.
    pub dialect: DialectKind,
    /// The folder holding the marker.
    pub root: PathBuf,
}

/// Each marker file and the dialect it names, in the order they are looked
/// for within one folder.
const MARKERS: [(&str, DialectKind); 3] = [
    (".strata.yaml", DialectKind::Platform),
    ("qbec.yaml", DialectKind::Components),
    ("windsor.yaml", DialectKind::Features),
];

/// The project of the file at `path` (absolute), if any; `exists` says
/// whether a marker file is there (the disk, or an unsaved buffer).
pub fn find(path: &Path, exists: impl Fn(&Path) -> bool) -> Option<Project> {
    path.ancestors().skip(1).find_map(|folder| {
        MARKERS.iter().find_map(|(marker, dialect)| {
            exists(&folder.join(marker)).then(|| Project {
                dialect: *dialect,
                root: folder.to_path_buf(),
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_marker_decides() {
        let markers = ["/work/app/qbec.yaml", "/work/.strata.yaml"];
        let exists = |path: &Path| markers.iter().any(|marker| Path::new(marker) == path);
        assert_eq!(
            find(Path::new("/work/app/components/a.jsonnet"), exists),
            Some(Project {
                dialect: DialectKind::Components,
                root: PathBuf::from("/work/app"),
            })
        );
        assert_eq!(
            find(Path::new("/work/blueprints/a.yaml"), exists),
            Some(Project {
                dialect: DialectKind::Platform,
                root: PathBuf::from("/work"),
            })
        );
        assert_eq!(find(Path::new("/elsewhere/a.yaml"), exists), None);
    }
}
