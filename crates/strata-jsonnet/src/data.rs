//! `data://NAME[/PATH]` imports: text a data source of the application
//! gives (qbec's `dataSources`), imported as Jsonnet (`import`) or as text
//! (`importstr`). A data source is asked only when a component imports
//! from it, so components that never read one never run it; what it
//! answers for a path is the source's to cache.

use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use jrsonnet_gcmodule::Trace;

/// A named source of imports.
pub trait DataSource: Send + Sync {
    /// The text for `path` (`/` when the import names none), or why there
    /// is none.
    ///
    /// # Errors
    ///
    /// The message reported at the import.
    fn resolve(&self, path: &str) -> Result<String, String>;
}

/// The data sources of a render, by name.
pub type DataSources = std::collections::BTreeMap<String, Arc<dyn DataSource>>;

/// The place a `data://` import names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Trace)]
pub(crate) struct DataPath {
    pub(crate) name: String,
    pub(crate) target: String,
}

impl DataPath {
    /// The data source and path `import` names, when it is a `data://` one.
    pub(crate) fn parse(import: &str) -> Option<DataPath> {
        let rest = import.strip_prefix("data://")?;
        let (name, target) = match rest.find('/') {
            Some(slash) => (&rest[..slash], &rest[slash..]),
            None => (rest, "/"),
        };
        Some(DataPath {
            name: name.to_owned(),
            target: target.to_owned(),
        })
    }
}

impl fmt::Display for DataPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data://{}{}", self.name, self.target)
    }
}

virtual_source_path!(DataPath);
