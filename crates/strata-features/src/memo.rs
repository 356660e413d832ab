//! What a reopened project takes from the opening before it, unchanged.
//!
//! An editor reopens its project after every change. A template file
//! (the blueprint, a feature) whose text, and the source it is registered
//! as, are those of the opening before gives what reading it gave then:
//! its problems and its decoded form, shared, not parsed again
//! ([`read_decoded`]). Every file is still read and registered, in order,
//! so each source is where a fresh opening puts it and every span the
//! kept values hold still points at the same text. The result is the same
//! as a fresh opening's.
//!
//! A feature's composition in a render (its `when`, its entries' `when`s
//! and `${..}` evaluated, before merging) depends only on its file, the
//! context's values, what `jsonnet()` and `file()` read, and the layer it
//! gets. A reopened project keeps, per feature whose decoded form it took
//! unchanged and per context, the last composition made without reading
//! any file, and uses it again while the values and the layer are the
//! same ([`Compositions`]); an edit recomposes only the features it can
//! change.

use std::collections::{HashMap, HashSet};
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use strata_dialect::{Expect, Read, Reader};
use strata_syntax::{Diagnostic, Format, LayerId, Node, SourceId};

use crate::Feature;
use crate::compose::Composition;

/// What reading and decoding one template file gave.
pub(crate) struct Decoded<T> {
    source: SourceId,
    text: Arc<str>,
    /// Reading's, parsing's and decoding's problems, in that order.
    problems: Vec<Diagnostic>,
    value: Option<Arc<T>>,
}

/// What one opening decoded of each file of one kind, by path.
pub(crate) type Decodes<T> = HashMap<PathBuf, Decoded<T>>;

/// What an opening read of the template, for the next opening, and the
/// features' compositions, shared by every project reopened from it.
#[derive(Default)]
pub(crate) struct Memo {
    pub(crate) blueprint: Decodes<(crate::BlueprintFile, Node)>,
    pub(crate) features: Decodes<crate::Feature>,
    pub(crate) compositions: Arc<Compositions>,
}

/// Every file of `paths` (YAML, at most one document) read and decoded by
/// `decode`, its problems reported in `diagnostics` in the files' order;
/// a file `previous` decoded from the same text in the same source is
/// not parsed again. Gives each file's value (none when it could not be
/// read, parsed or decoded); what this reading decoded goes to `keep`,
/// for the next, when there is one (a project that will be reopened).
pub(crate) fn read_decoded<T>(
    reader: &mut Reader<'_>,
    paths: &[PathBuf],
    previous: Option<&Decodes<T>>,
    mut keep: Option<&mut Decodes<T>>,
    decode: impl Fn(&Path, Node) -> Result<T, Vec<Diagnostic>>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Option<Arc<T>>> {
    let sources = reader.sources(paths);
    let kept: Vec<Option<&Decoded<T>>> = paths
        .iter()
        .zip(&sources)
        .map(|(path, source)| {
            let source = source.value?;
            let memo = previous?.get(path)?;
            let same = memo.source == source && *reader.db().get(source).text() == *memo.text;
            same.then_some(memo)
        })
        .collect();
    let changed: Vec<SourceId> = sources
        .iter()
        .zip(&kept)
        .filter_map(|(source, kept)| source.value.filter(|_| kept.is_none()))
        .collect();
    let mut parsed = reader
        .parse_all(&changed, Format::Yaml, Expect::AtMostOne)
        .into_iter();
    let mut values = Vec::with_capacity(paths.len());
    for ((path, source), kept) in paths.iter().zip(sources).zip(kept) {
        let Some(source) = source.report(diagnostics) else {
            values.push(None);
            continue;
        };
        let (problems, value) = if let Some(memo) = kept {
            (memo.problems.clone(), memo.value.clone())
        } else {
            // Parsed in the order of the files that changed.
            let mut problems = Vec::new();
            let value = parsed
                .next()
                .and_then(|read| read.report(&mut problems))
                .and_then(Read::into_document)
                .and_then(|document| {
                    decode(path, document)
                        .map_err(|found| problems.extend(found))
                        .ok()
                })
                .map(Arc::new);
            (problems, value)
        };
        values.push(value.clone());
        match keep.as_deref_mut() {
            Some(keep) => {
                diagnostics.extend(problems.iter().cloned());
                let text = kept.map_or_else(
                    || Arc::from(reader.db().get(source).text()),
                    |memo| memo.text.clone(),
                );
                let decoded = Decoded {
                    source,
                    text,
                    problems,
                    value,
                };
                keep.insert(path.clone(), decoded);
            }
            None => diagnostics.extend(problems),
        }
    }
    values
}

/// The features' compositions, kept between reopenings of one project
/// (shared by each reopened project), one per feature and context.
#[derive(Default)]
pub(crate) struct Compositions {
    kept: Mutex<HashMap<(Same, String), Kept>>,
}

/// A feature's decoded form, equal only to itself: an opening that took a
/// file unchanged shares the form the opening before decoded.
#[derive(Clone)]
struct Same(Arc<Feature>);

impl PartialEq for Same {
    fn eq(&self, other: &Same) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Same {}

impl std::hash::Hash for Same {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(Arc::as_ptr(&self.0), state);
    }
}

/// A feature's composition in a context, with what it was made from.
struct Kept {
    layer: LayerId,
    /// [`values_key`] of the values it saw.
    values: u64,
    composition: Arc<Composition>,
}

impl Compositions {
    /// Forgets the compositions of features `features` no longer holds.
    pub(crate) fn keep_only(&self, features: &[Arc<Feature>]) {
        let current: HashSet<Same> = features.iter().cloned().map(Same).collect();
        if let Ok(mut kept) = self.kept.lock() {
            kept.retain(|(feature, _), _| current.contains(feature));
        }
    }

    /// The composition of `feature` in `context` at `layer` with the
    /// values whose key is `values`: the one kept, else `compose`'s (kept
    /// unless it read a file: `compose` says whether it did).
    pub(crate) fn composed(
        &self,
        feature: &Arc<Feature>,
        context: &str,
        layer: LayerId,
        values: u64,
        compose: impl FnOnce() -> (Composition, bool),
    ) -> Arc<Composition> {
        let key = (Same(feature.clone()), context.to_owned());
        if let Ok(kept) = self.kept.lock()
            && let Some(kept) = kept.get(&key)
            && kept.layer == layer
            && kept.values == values
        {
            return kept.composition.clone();
        }
        let (composition, read_files) = compose();
        let composition = Arc::new(composition);
        if let Ok(mut kept) = self.kept.lock() {
            if read_files {
                kept.remove(&key);
            } else {
                let entry = Kept {
                    layer,
                    values,
                    composition: composition.clone(),
                };
                kept.insert(key, entry);
            }
        }
        composition
    }
}

/// A key of the values a render's expressions see: equal for equal
/// values, places and layers included (a value copied into the output
/// keeps its place).
pub(crate) fn values_key(values: &Node) -> u64 {
    struct Hashing(std::hash::DefaultHasher);
    impl std::fmt::Write for Hashing {
        fn write_str(&mut self, text: &str) -> std::fmt::Result {
            self.0.write(text.as_bytes());
            Ok(())
        }
    }
    let mut hashing = Hashing(std::hash::DefaultHasher::new());
    let _ = std::fmt::write(&mut hashing, format_args!("{values:?}"));
    hashing.0.finish()
}
