//! Sequence strategies and the registry that picks one per path.
//!
//! # Built-in strategies
//!
//! | name | result |
//! |---|---|
//! | `append` (default) | lower items, then upper items |
//! | `replace` | upper items only |
//! | `union` | lower items, then the upper items not already present (deep equality, tags included, spans ignored) |
//! | `merge-by-key:<field>` | items whose `<field>` is equal are deep-merged in place (with the same rules and registry); upper items with a new key are appended in order |
//! | `replace-by-key:<field>` | as `merge-by-key`, but a matching upper item replaces the lower one whole |
//!
//! For the two by-key strategies every item must be a mapping with a scalar
//! `<field>`; an item that is not is reported (`merge/item-not-mapping`,
//! `merge/missing-key-field`) and kept, appended, so nothing is lost.
//! A library user registers a Rust function as a strategy with
//! [`Strategies::register_fn`].
//!
//! # Lookup order
//!
//! Strategies are registered under dotted paths (`claimSpec.accessModes`,
//! `apps.*.start`, `initScripts`; keys with dots are quoted as
//! `["a.b"]`). A sequence's path for lookup is its field path without
//! sequence indices (`spec.containers[2].ports` is looked up as
//! `spec.containers.ports`). The first tier with a match decides:
//!
//! 1. **exact**: a pattern without `*` equal to the whole path;
//! 2. **suffix**: a pattern without `*`, of two or more segments, equal to
//!    the path's last segments (`claimSpec.accessModes` matches
//!    `storages.home.claimSpec.accessModes`); the longest wins;
//! 3. **glob**: a pattern with `*` (one segment each), matched against the
//!    path's last segments as suffixes are; the one with more literal
//!    segments wins, then the longer one;
//! 4. **bare key**: a one-segment pattern equal to the path's last key.
//!
//! Remaining ties go to the earlier registration. Registering a pattern
//! again replaces its strategy, so a caller's settings override defaults
//! registered before them. No match means `append`, or the registry's
//! fallback ([`Strategies::with_fallback`]).

use std::cmp::Reverse;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use strata_syntax::{FieldPath, Node, PathParseError, Segment, did_you_mean};

use crate::SequenceMerge;

/// A sequence strategy written in Rust: given the lower and upper items,
/// return the merged items. `merge` deep-merges two items with the same
/// rules and registry; `report` records a problem.
pub type StrategyFn =
    dyn Fn(&mut SequenceMerge<'_>, Vec<Node>, Vec<Node>) -> Vec<Node> + Send + Sync;

/// How two sequences at the same path combine.
#[derive(Clone)]
pub enum Strategy {
    /// Lower items, then upper items.
    Append,
    /// Upper items only.
    Replace,
    /// Lower items, then the upper items not already present.
    Union,
    /// Items with equal key field deep-merged in place, new ones appended.
    MergeByKey(String),
    /// Items with equal key field replaced in place, new ones appended.
    ReplaceByKey(String),
    /// A function registered by a library user.
    Custom {
        /// The name shown in messages.
        name: String,
        /// The function.
        function: Arc<StrategyFn>,
    },
}

impl fmt::Debug for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string())
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Append => f.write_str("append"),
            Strategy::Replace => f.write_str("replace"),
            Strategy::Union => f.write_str("union"),
            Strategy::MergeByKey(field) => write!(f, "merge-by-key:{field}"),
            Strategy::ReplaceByKey(field) => write!(f, "replace-by-key:{field}"),
            Strategy::Custom { name, .. } => f.write_str(name),
        }
    }
}

/// The names a strategy can be written as, for messages and did-you-mean.
pub const STRATEGY_NAMES: &[&str] = &[
    "append",
    "replace",
    "union",
    "merge-by-key:<field>",
    "replace-by-key:<field>",
];

/// A strategy name that is not one of [`STRATEGY_NAMES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownStrategy(pub String);

impl fmt::Display for UnknownStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown merge strategy `{}`; expected one of {}",
            self.0,
            STRATEGY_NAMES.join(", ")
        )?;
        let name = self.0.split(':').next().unwrap_or_default();
        let bare_names = STRATEGY_NAMES
            .iter()
            .map(|n| n.trim_end_matches(":<field>"));
        match did_you_mean(name, bare_names) {
            Some(near) => write!(f, " (did you mean `{near}`?)"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for UnknownStrategy {}

impl FromStr for Strategy {
    type Err = UnknownStrategy;

    fn from_str(text: &str) -> Result<Strategy, UnknownStrategy> {
        let by_key = |prefix: &str| {
            text.strip_prefix(prefix)
                .filter(|field| !field.is_empty())
                .map(str::to_owned)
        };
        match text {
            "append" => Ok(Strategy::Append),
            "replace" => Ok(Strategy::Replace),
            "union" => Ok(Strategy::Union),
            _ => {
                if let Some(field) = by_key("merge-by-key:") {
                    Ok(Strategy::MergeByKey(field))
                } else if let Some(field) = by_key("replace-by-key:") {
                    Ok(Strategy::ReplaceByKey(field))
                } else {
                    Err(UnknownStrategy(text.to_owned()))
                }
            }
        }
    }
}

/// Why a pattern could not be registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternError {
    /// The pattern is not a valid path.
    Syntax(PathParseError),
    /// The pattern names a sequence index; strategies are looked up by keys.
    Index,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternError::Syntax(error) => write!(f, "invalid strategy path: {error}"),
            PatternError::Index => f.write_str("strategy paths name keys, not sequence indices"),
        }
    }
}

impl std::error::Error for PatternError {}

/// One pattern segment: a key or `*`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum PatternSegment {
    Key(String),
    Any,
}

impl PatternSegment {
    fn matches(&self, key: &str) -> bool {
        match self {
            PatternSegment::Key(expected) => expected == key,
            PatternSegment::Any => true,
        }
    }
}

struct Registered {
    segments: Vec<PatternSegment>,
    literals: usize,
    strategy: Strategy,
}

/// Which tier a match fell in; lower sorts first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    Exact,
    Suffix,
    Glob,
    BareKey,
}

/// The strategy registry, keyed by dotted path patterns.
#[derive(Default)]
pub struct Strategies {
    entries: Vec<Registered>,
    /// The strategy of sequences no pattern matches (`append` when unset).
    fallback: Option<Strategy>,
}

impl fmt::Debug for Strategies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Strategies")
            .field(
                "entries",
                &self
                    .entries
                    .iter()
                    .map(|entry| &entry.strategy)
                    .collect::<Vec<_>>(),
            )
            .field("fallback", &self.fallback)
            .finish()
    }
}

impl Strategies {
    /// An empty registry: every sequence appends.
    #[must_use]
    pub fn new() -> Strategies {
        Strategies::default()
    }

    /// A registry whose unmatched sequences use `strategy` instead of
    /// `append` (`replace` for a plain deep merge).
    #[must_use]
    pub fn with_fallback(strategy: Strategy) -> Strategies {
        Strategies {
            fallback: Some(strategy),
            ..Strategies::default()
        }
    }

    /// Registers `strategy` for sequences at paths matching `pattern`.
    pub fn register(&mut self, pattern: &str, strategy: Strategy) -> Result<(), PatternError> {
        let segments = FieldPath::parse(pattern)
            .map_err(PatternError::Syntax)?
            .segments()
            .iter()
            .map(|segment| match segment {
                Segment::Key(key) => Ok(PatternSegment::Key(key.clone())),
                Segment::Wildcard => Ok(PatternSegment::Any),
                Segment::Index(_) => Err(PatternError::Index),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let literals = segments
            .iter()
            .filter(|segment| **segment != PatternSegment::Any)
            .count();
        if let Some(existing) = self.entries.iter_mut().find(|e| e.segments == segments) {
            existing.strategy = strategy;
        } else {
            self.entries.push(Registered {
                segments,
                literals,
                strategy,
            });
        }
        Ok(())
    }

    /// Registers a Rust function as the strategy for `pattern`.
    pub fn register_fn(
        &mut self,
        pattern: &str,
        name: &str,
        function: impl Fn(&mut SequenceMerge<'_>, Vec<Node>, Vec<Node>) -> Vec<Node>
        + Send
        + Sync
        + 'static,
    ) -> Result<(), PatternError> {
        let strategy = Strategy::Custom {
            name: name.to_owned(),
            function: Arc::new(function),
        };
        self.register(pattern, strategy)
    }

    /// The strategy for a sequence whose key path (indices left out) is `keys`.
    #[must_use]
    pub fn lookup(&self, keys: &[&str]) -> &Strategy {
        type Rank = (Tier, Reverse<usize>, Reverse<usize>);
        let mut best: Option<(Rank, &Strategy)> = None;
        for entry in &self.entries {
            let Some(tier) = entry.tier(keys) else {
                continue;
            };
            let rank = (tier, Reverse(entry.literals), Reverse(entry.segments.len()));
            if best.as_ref().is_none_or(|(best_rank, _)| rank < *best_rank) {
                best = Some((rank, &entry.strategy));
            }
        }
        best.map_or(
            self.fallback.as_ref().unwrap_or(&Strategy::Append),
            |(_, strategy)| strategy,
        )
    }
}

impl Registered {
    fn tier(&self, keys: &[&str]) -> Option<Tier> {
        let len = self.segments.len();
        if len > keys.len() {
            return None;
        }
        let tail = &keys[keys.len() - len..];
        if !self
            .segments
            .iter()
            .zip(tail)
            .all(|(segment, key)| segment.matches(key))
        {
            return None;
        }
        Some(if self.literals < len {
            Tier::Glob
        } else if len == keys.len() {
            Tier::Exact
        } else if len >= 2 {
            Tier::Suffix
        } else {
            Tier::BareKey
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(entries: &[(&str, &str)]) -> Strategies {
        let mut strategies = Strategies::new();
        for (pattern, strategy) in entries {
            strategies
                .register(pattern, strategy.parse().unwrap())
                .unwrap();
        }
        strategies
    }

    fn lookup(strategies: &Strategies, path: &str) -> String {
        let keys: Vec<&str> = path.split('.').collect();
        strategies.lookup(&keys).to_string()
    }

    #[test]
    fn tiers_apply_in_order() {
        let strategies = registry(&[
            ("accessModes", "union"),
            ("apps.*.start", "replace-by-key:x"),
            ("claimSpec.accessModes", "replace"),
            ("storages.home.claimSpec.accessModes", "merge-by-key:name"),
        ]);
        assert_eq!(
            lookup(&strategies, "storages.home.claimSpec.accessModes"),
            "merge-by-key:name"
        );
        assert_eq!(
            lookup(&strategies, "storages.work.claimSpec.accessModes"),
            "replace"
        );
        assert_eq!(lookup(&strategies, "other.accessModes"), "union");
        assert_eq!(lookup(&strategies, "apps.python.start"), "replace-by-key:x");
        assert_eq!(lookup(&strategies, "apps.python.stop"), "append");
    }

    #[test]
    fn a_fallback_replaces_append_for_unmatched_sequences() {
        let mut strategies = Strategies::with_fallback(Strategy::Replace);
        strategies.register("ports", Strategy::Union).unwrap();
        assert_eq!(lookup(&strategies, "a.ports"), "union");
        assert_eq!(lookup(&strategies, "a.zones"), "replace");
    }

    #[test]
    fn longest_suffix_and_most_specific_glob_win() {
        let strategies = registry(&[
            ("b.c", "union"),
            ("a.b.c", "replace"),
            ("*.c", "merge-by-key:k"),
            ("x.*.c", "replace-by-key:k"),
            ("*.*.c", "union"),
        ]);
        assert_eq!(lookup(&strategies, "z.a.b.c"), "replace");
        // Both globs have one literal segment; the longer one wins.
        assert_eq!(lookup(&strategies, "z.q.c"), "union");
        assert_eq!(lookup(&strategies, "q.c"), "merge-by-key:k");
        assert_eq!(lookup(&strategies, "x.q.c"), "replace-by-key:k");
    }

    #[test]
    fn ties_go_to_the_earlier_registration_and_re_registration_replaces() {
        let mut strategies = registry(&[("a.*.c", "union"), ("*.b.c", "replace")]);
        assert_eq!(lookup(&strategies, "a.b.c"), "union");
        strategies.register("a.*.c", Strategy::Replace).unwrap();
        strategies.register("*.b.c", Strategy::Union).unwrap();
        assert_eq!(lookup(&strategies, "a.b.c"), "replace");
    }

    #[test]
    fn names_parse_and_print_back() {
        for name in [
            "append",
            "replace",
            "union",
            "merge-by-key:name",
            "replace-by-key:id",
        ] {
            assert_eq!(name.parse::<Strategy>().unwrap().to_string(), name);
        }
        assert!("merge-by-key:".parse::<Strategy>().is_err());
        let error = "appendd".parse::<Strategy>().unwrap_err().to_string();
        assert!(error.ends_with("(did you mean `append`?)"), "{error}");
        let error = "merge-by-kee:name"
            .parse::<Strategy>()
            .unwrap_err()
            .to_string();
        assert!(error.ends_with("(did you mean `merge-by-key`?)"), "{error}");
    }

    #[test]
    fn index_patterns_are_rejected() {
        let mut strategies = Strategies::new();
        assert_eq!(
            strategies.register("a[0]", Strategy::Replace),
            Err(PatternError::Index)
        );
    }
}
