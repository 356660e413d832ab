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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_dialect::{Expect, Read, Reader};
use strata_syntax::{Diagnostic, Format, Node, SourceId};

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

/// What an opening read of the template, for the next opening.
#[derive(Default)]
pub(crate) struct Memo {
    pub(crate) blueprint: Decodes<(crate::BlueprintFile, Node)>,
    pub(crate) features: Decodes<crate::Feature>,
}

/// Every file of `paths` (YAML, at most one document) read and decoded by
/// `decode`, its problems reported in `diagnostics` in the files' order;
/// a file `previous` decoded from the same text in the same source is
/// not parsed again. Gives each file's value (none when it could not be
/// read, parsed or decoded) and what this reading decoded, for the next.
pub(crate) fn read_decoded<T>(
    reader: &mut Reader<'_>,
    paths: &[PathBuf],
    previous: Option<&Decodes<T>>,
    decode: impl Fn(&Path, Node) -> Result<T, Vec<Diagnostic>>,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<Option<Arc<T>>>, Decodes<T>) {
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
    let mut this_reading = Decodes::with_capacity(paths.len());
    for ((path, source), kept) in paths.iter().zip(sources).zip(kept) {
        let Some(source) = source.report(diagnostics) else {
            values.push(None);
            continue;
        };
        let decoded = if let Some(memo) = kept {
            Decoded {
                source,
                text: memo.text.clone(),
                problems: memo.problems.clone(),
                value: memo.value.clone(),
            }
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
            Decoded {
                source,
                text: Arc::from(reader.db().get(source).text()),
                problems,
                value,
            }
        };
        diagnostics.extend(decoded.problems.iter().cloned());
        values.push(decoded.value.clone());
        this_reading.insert(path.clone(), decoded);
    }
    (values, this_reading)
}
