//! Remote includes read from a local mirror of the blueprints they name,
//! for teams that keep a copy of their remote sources beside the code.
//!
//! An include of `metadata.sourceType` `T` and `path` `P` is the file
//! `DIR/T/P`: `sourceType: aws/s3`, `path: core/infra.yaml` reads
//! `DIR/aws/s3/core/infra.yaml`. Every read is confined to `DIR` (a path
//! that leads out of it, through `..` or a link, is refused) and bounded
//! by the file size limit.

use std::path::{Path, PathBuf};

use strata_fs::{Files, FsError, RootFs};
use strata_subst::Value;

use crate::ChildSource;

/// A [`ChildSource`] that reads remote includes from a folder.
#[derive(Debug)]
pub struct MirrorSource {
    files: RootFs,
    max_bytes: usize,
}

impl MirrorSource {
    /// The mirror in `dir`, each file read up to `max_bytes`.
    ///
    /// # Errors
    ///
    /// When `dir` is not a folder that can be read.
    pub fn new(dir: &Path, max_bytes: usize) -> Result<MirrorSource, FsError> {
        Ok(MirrorSource {
            files: RootFs::new(dir)?,
            max_bytes,
        })
    }
}

impl ChildSource for MirrorSource {
    fn fetch(
        &self,
        _include: &str,
        path: &str,
        metadata: &Value,
    ) -> Result<(String, String), String> {
        let Value::Object(fields) = metadata else {
            return Err("the include has no `metadata` naming its `sourceType`".to_owned());
        };
        let Some(Value::String(source_type)) = fields.get("sourceType") else {
            return Err("the include's `metadata.sourceType` is not a string".to_owned());
        };
        let relative: PathBuf = Path::new(source_type).join(path.trim_start_matches('/'));
        let text = self
            .files
            .read(&relative, self.max_bytes)
            .map_err(|error| format!("{error} (in the mirror {})", self.files.root().display()))?;
        // The resolver names the child `SOURCETYPE:PATH`.
        Ok((path.to_owned(), text))
    }
}
