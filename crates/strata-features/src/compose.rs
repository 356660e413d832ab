//! Building the blueprint: the base blueprint's components, then each
//! applicable feature's, merged by Windsor's rules.
//!
//! **Terraform components** match on `path` and `source`:
//! - `merge` (the default): `inputs` are deep-merged (the feature's values
//!   win; mappings merge, anything else replaces), `dependsOn` entries not
//!   already there are appended, `destroy`, `parallelism` and `name` are
//!   updated when the feature gives them;
//! - `replace`: the feature's component takes the match's place whole;
//! - no match: the component is appended.
//!
//! **Kustomizations** match on `name`:
//! - `merge`: new `components`, `dependsOn` and `cleanup` entries are
//!   appended, `patches` are appended, `substitutions` are merged (the
//!   feature's win), `path`, `source`, `destroy` and the Flux settings
//!   (`interval`, `retryInterval`, `timeout`, `wait`, `force`, `prune`) are
//!   updated when given;
//! - `replace`: replaced whole; no match: appended.
//!
//! **`${..}`** is evaluated in every string of `inputs` (at any depth),
//! `substitutions` and inline `patches[].patch` (a `path:` patch is kept as
//! given); an input that evaluates to `null` is dropped; substitutions
//! become strings. `when` and `strategy` never reach the output.
//!
//! Every node keeps the layer of the file it came from (0 for the
//! blueprint, `i + 1` for the `i`th feature applied), which `--explain`
//! reads.

use std::cell::RefCell;
use std::collections::HashMap;

use strata_cond::{CondError, Host, Template};
use strata_syntax::{Diagnostic, Entry, LayerId, Mapping, Node, SourceDb, Span, Value};

use crate::codes;
use crate::graph::LeftOut;
use crate::model::{BlueprintFile, FeatureFile, MergeStrategy, Section, When};

/// The kustomization settings a merge updates when the feature gives them.
const KUSTOMIZATION_UPDATES: &[&str] = &[
    "path",
    "source",
    "destroy",
    "destroyOnly",
    "interval",
    "retryInterval",
    "timeout",
    "wait",
    "force",
    "prune",
];

/// One entry of the blueprint or of a feature: its tree and what its
/// decoded form says about it.
pub(crate) struct Candidate<'a> {
    /// The entry as written.
    node: &'a Node,
    /// The name others depend on it by.
    id: &'a str,
    /// What makes two entries the same (`path` and `source`, or `name`).
    identity: (&'a str, &'a str),
    /// Its condition.
    when: Option<&'a When>,
    /// How it combines with a match.
    strategy: MergeStrategy,
}

/// What composition reads of a decoded entry: its id, its identity, its
/// condition and its strategy.
type Decided<'a> = (
    &'a str,
    (&'a str, &'a str),
    Option<&'a When>,
    Option<MergeStrategy>,
);

impl<'a> Candidate<'a> {
    /// Where the entry's name (the key of `section` that names it) is
    /// written, else the entry.
    fn key_span(&self, section: Section) -> Span {
        let entry = self.node;
        entry.get(section.name_key()).map_or(entry.span, |n| n.span)
    }

    /// The entries of `section` of the blueprint, whose tree is `tree`.
    pub(crate) fn of_blueprint(
        file: &'a BlueprintFile,
        tree: &'a Node,
        section: Section,
    ) -> Vec<Candidate<'a>> {
        let nodes = entries(tree, section);
        match section {
            Section::Terraform => Candidate::pair(&file.terraform, nodes, |entry| {
                (entry.id(), entry.identity(), None, None)
            }),
            Section::Kustomize => Candidate::pair(&file.kustomize, nodes, |entry| {
                (entry.id(), entry.identity(), None, None)
            }),
        }
    }

    /// The entries of `section` of a feature, whose tree is `tree`.
    pub(crate) fn of_feature(
        file: &'a FeatureFile,
        tree: &'a Node,
        section: Section,
    ) -> Vec<Candidate<'a>> {
        let nodes = entries(tree, section);
        match section {
            Section::Terraform => Candidate::pair(&file.terraform, nodes, |entry| {
                let component = &entry.component;
                (
                    component.id(),
                    component.identity(),
                    entry.when.as_ref(),
                    entry.strategy,
                )
            }),
            Section::Kustomize => Candidate::pair(&file.kustomize, nodes, |entry| {
                let kustomization = &entry.kustomization;
                (
                    kustomization.id(),
                    kustomization.identity(),
                    entry.when.as_ref(),
                    entry.strategy,
                )
            }),
        }
    }

    /// Each decoded entry with its tree, as `decide` reads it.
    fn pair<T>(
        decoded: &'a [T],
        nodes: &'a [Node],
        decide: impl Fn(&'a T) -> Decided<'a>,
    ) -> Vec<Candidate<'a>> {
        decoded
            .iter()
            .zip(nodes)
            .map(|(entry, node)| {
                let (id, identity, when, strategy) = decide(entry);
                Candidate {
                    node,
                    id,
                    identity,
                    when,
                    strategy: strategy.unwrap_or(MergeStrategy::Merge),
                }
            })
            .collect()
    }
}

/// The entries of `section` of a file's tree.
fn entries(tree: &Node, section: Section) -> &[Node] {
    tree.items(section.key())
}

/// What composing one feature in one render gave before merging
/// ([`Composer::compose_feature`]).
pub(crate) struct Composition {
    /// Whether its `when` holds (`None`: it failed).
    pub(crate) applies: Option<bool>,
    /// What evaluating its `when` found.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Its entries of each of [`Section::ALL`], evaluated, when it applies.
    pub(crate) sections: [Vec<Evaluated>; 2],
}

/// One entry of a file, evaluated ([`Composer::evaluate`]).
#[derive(Clone)]
pub(crate) struct Evaluated {
    /// What evaluating it found (or its being given twice), in order.
    diagnostics: Vec<Diagnostic>,
    fate: Fate,
}

/// What an entry of a file came to.
#[derive(Clone)]
enum Fate {
    /// Given twice in the blueprint: refused.
    Repeated,
    /// Its `when` is false.
    Skipped,
    /// Its `when` or a `${..}` failed.
    Failed,
    /// Its tree, `${..}` evaluated, to merge.
    Ready(Node),
}

/// An entry of the composition: its identity (the first entry's, kept by
/// merges, which match on it) and its merged tree.
pub(crate) struct Composed {
    identity: (String, String),
    pub(crate) node: Node,
}

/// What an entry given again in one file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeats {
    /// An error (`features/duplicate-entry`): the base blueprint.
    Refused,
    /// Applied in turn, each by its own `when` and strategy: a feature.
    Applied,
}

/// The composition so far.
pub(crate) struct Composer<'a> {
    db: &'a RefCell<SourceDb>,
    values: &'a Node,
    /// Problems found.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Terraform components, in order.
    pub(crate) terraform: Vec<Composed>,
    /// Kustomizations, in order.
    pub(crate) kustomize: Vec<Composed>,
    /// Entries left out, by section and name.
    pub(crate) left_out: LeftOut,
    /// The `strategy: remove` entries, applied after every merge and
    /// replace ([`Composer::remove`]).
    removals: Vec<(Section, (String, String), Node)>,
}

impl<'a> Composer<'a> {
    /// An empty composition; expressions see `values`, their diagnostics
    /// resolve in `db` (which the host may extend while they run).
    pub(crate) fn new(db: &'a RefCell<SourceDb>, values: &'a Node) -> Composer<'a> {
        Composer {
            db,
            values,
            diagnostics: Vec::new(),
            terraform: Vec::new(),
            kustomize: Vec::new(),
            removals: Vec::new(),
            left_out: LeftOut::default(),
        }
    }

    /// Evaluates a `when:` written at `node` (absent or empty is true, a
    /// YAML boolean is itself); `None` after an error.
    pub(crate) fn when(
        &mut self,
        when: Option<&When>,
        node: Option<&Node>,
        host: &dyn Host,
    ) -> Option<bool> {
        let text = match when {
            None => return Some(true),
            Some(When::Constant(constant)) => return Some(*constant),
            Some(When::Expression(text)) => text,
        };
        if text.trim().is_empty() {
            return Some(true);
        }
        match strata_cond::condition(text, self.values, host) {
            Ok(applies) => Some(applies),
            Err(mut error) => {
                if text.trim_start().starts_with("${") {
                    error =
                        error.with_help("`when` takes a bare expression: write it without `${ }`");
                }
                let span = node.map_or_else(Span::default, |node| node.span);
                self.report(&error, span, text);
                None
            }
        }
    }

    /// Adds the entries of `section` of a file (the blueprint or a feature)
    /// whose `when` holds, each prepared and merged by its strategy. An
    /// entry a file gives again is what `repeats` says: in a feature, as
    /// Windsor, each applies in turn (a kustomization listed under several
    /// `when`s gathers what each gives); in the blueprint, an error.
    pub(crate) fn apply(
        &mut self,
        candidates: &[Candidate<'_>],
        section: Section,
        layer: LayerId,
        host: &dyn Host,
        repeats: Repeats,
    ) {
        let evaluated = self.evaluate(candidates, section, layer, host, repeats);
        self.merge(candidates, evaluated, section);
    }

    /// Each entry of `section` of a file evaluated: its `when`, then its
    /// `${..}`, its nodes stamped with `layer`; what it gives depends only
    /// on the file, the values, what the host reads and `layer`, not on
    /// the composition so far.
    pub(crate) fn evaluate(
        &mut self,
        candidates: &[Candidate<'_>],
        section: Section,
        layer: LayerId,
        host: &dyn Host,
        repeats: Repeats,
    ) -> Vec<Evaluated> {
        let mut in_file: HashMap<(&str, &str), Span> = HashMap::new();
        candidates
            .iter()
            .map(|candidate| {
                let entry = candidate.node;
                let key_span = candidate.key_span(section);
                if let Some(first) = in_file.insert(candidate.identity, key_span)
                    && repeats == Repeats::Refused
                {
                    let id = candidate.id;
                    let given_twice = Diagnostic::error(
                        codes::DUPLICATE_ENTRY,
                        format!("`{id}` is given twice in `{}` of this file", section.key()),
                        key_span,
                    )
                    .with_secondary(first, "first given here");
                    return Evaluated {
                        diagnostics: vec![given_twice],
                        fate: Fate::Repeated,
                    };
                }
                let (fate, diagnostics) = self.collecting(|composer| {
                    match composer.when(candidate.when, entry.get("when"), host) {
                        Some(true) => {}
                        Some(false) => return Fate::Skipped,
                        None => return Fate::Failed,
                    }
                    let mut node = entry.clone();
                    strip_composition_keys(&mut node);
                    node.stamp_layer(layer);
                    if composer.prepare(&mut node, section, host) {
                        Fate::Ready(node)
                    } else {
                        Fate::Failed
                    }
                });
                Evaluated { diagnostics, fate }
            })
            .collect()
    }

    /// A feature composed with the values in `layer`: its `when`, and when
    /// it holds, its entries evaluated (not yet merged).
    pub(crate) fn compose_feature(
        &mut self,
        feature: &crate::Feature,
        layer: LayerId,
        host: &dyn Host,
    ) -> Composition {
        let (applies, diagnostics) = self.collecting(|composer| {
            composer.when(feature.model.when.as_ref(), feature.tree.get("when"), host)
        });
        let sections = if applies == Some(true) {
            Section::ALL.map(|section| {
                let candidates = Candidate::of_feature(&feature.model, &feature.tree, section);
                self.evaluate(&candidates, section, layer, host, Repeats::Applied)
            })
        } else {
            Default::default()
        };
        Composition {
            applies,
            diagnostics,
            sections,
        }
    }

    /// `work`'s result, and the problems it found (not added to the
    /// composition's).
    fn collecting<R>(&mut self, work: impl FnOnce(&mut Self) -> R) -> (R, Vec<Diagnostic>) {
        let before = std::mem::take(&mut self.diagnostics);
        let result = work(self);
        (result, std::mem::replace(&mut self.diagnostics, before))
    }

    /// Each evaluated entry of `section` (of `candidates`, in order) merged
    /// into the composition by its strategy, its problems reported.
    pub(crate) fn merge(
        &mut self,
        candidates: &[Candidate<'_>],
        evaluated: Vec<Evaluated>,
        section: Section,
    ) {
        for (candidate, evaluated) in candidates.iter().zip(evaluated) {
            self.diagnostics.extend(evaluated.diagnostics);
            let id = candidate.id.to_owned();
            let node = match evaluated.fate {
                Fate::Repeated => continue,
                Fate::Skipped => {
                    self.left_out.skipped.insert((section, id));
                    continue;
                }
                Fate::Failed => {
                    self.left_out.failed.insert((section, id));
                    continue;
                }
                Fate::Ready(node) => node,
            };
            let key_span = candidate.key_span(section);
            let list = match section {
                Section::Terraform => &mut self.terraform,
                Section::Kustomize => &mut self.kustomize,
            };
            let (key, source) = candidate.identity;
            let found = list
                .iter()
                .position(|existing| existing.identity.0 == key && existing.identity.1 == source);
            if found.is_none()
                && section == Section::Terraform
                && candidate.strategy != MergeStrategy::Remove
                && let Some(other) = list.iter().find(|existing| existing.identity.0 == key)
            {
                let warning = Diagnostic::warning(
                    codes::SOURCE_MISMATCH,
                    format!(
                        "`{key}` is already in the blueprint with source `{}`; this one (source `{source}`) is added beside it, not merged",
                        other.identity.1,
                    ),
                    key_span,
                )
                .with_help("components match on `path` and `source`: give the same `source` to merge");
                self.diagnostics.push(warning);
            }
            match (found, candidate.strategy) {
                (_, MergeStrategy::Remove) => {
                    self.removals
                        .push((section, (key.to_owned(), source.to_owned()), node));
                }
                (None, _) => list.push(Composed {
                    identity: (key.to_owned(), source.to_owned()),
                    node,
                }),
                (Some(index), MergeStrategy::Replace) => list[index].node = node,
                (Some(index), MergeStrategy::Merge) => match section {
                    Section::Terraform => merge_terraform(&mut list[index].node, node),
                    Section::Kustomize => merge_kustomization(&mut list[index].node, node),
                },
            }
        }
    }

    /// Applies the `strategy: remove` entries, in the order given, after
    /// every merge and replace (as Windsor): each takes what it lists out
    /// of its match, and an entry without a match does nothing.
    pub(crate) fn remove(&mut self) {
        for (section, identity, removal) in std::mem::take(&mut self.removals) {
            let list = match section {
                Section::Terraform => &mut self.terraform,
                Section::Kustomize => &mut self.kustomize,
            };
            let Some(existing) = list.iter_mut().find(|existing| {
                existing.identity.0 == identity.0
                    && (section == Section::Kustomize || existing.identity.1 == identity.1)
            }) else {
                continue;
            };
            let (lists, keys): (&[&str], &[&str]) = match section {
                Section::Terraform => (&["dependsOn"], &["inputs"]),
                Section::Kustomize => (
                    &["components", "dependsOn", "patches", "cleanup"],
                    &["substitutions"],
                ),
            };
            subtract(&mut existing.node, &removal, lists, keys);
        }
    }

    /// Evaluates the `${..}` of an entry; false after an error.
    fn prepare(&mut self, entry: &mut Node, section: Section, host: &dyn Host) -> bool {
        let Value::Map(fields) = &mut entry.value else {
            return true;
        };
        let mut ok = true;
        match section {
            Section::Terraform => {
                if let Some(Entry { value: inputs, .. }) = fields.get_mut("inputs") {
                    ok &= self.interpolate(inputs, host);
                    if let Value::Map(inputs) = &mut inputs.value {
                        inputs.retain(|_, input| !matches!(input.value.value, Value::Null));
                    }
                }
            }
            Section::Kustomize => {
                if let Some(Entry {
                    value: substitutions,
                    ..
                }) = fields.get_mut("substitutions")
                    && let Value::Map(substitutions) = &mut substitutions.value
                {
                    for substitution in substitutions.values_mut() {
                        ok &= self.interpolate(&mut substitution.value, host);
                        let node = &mut substitution.value;
                        if !matches!(node.value, Value::String(_)) {
                            node.value = Value::String(strata_cond::template::display(node));
                        }
                    }
                }
                if let Some(Entry { value: patches, .. }) = fields.get_mut("patches")
                    && let Value::Seq(patches) = &mut patches.value
                {
                    for patch in patches.iter_mut() {
                        if let Value::Map(patch) = &mut patch.value
                            && let Some(Entry { value: text, .. }) = patch.get_mut("patch")
                        {
                            ok &= self.interpolate(text, host);
                            if !matches!(text.value, Value::String(_)) {
                                text.value = Value::String(strata_cond::template::display(text));
                            }
                        }
                    }
                }
            }
        }
        ok
    }

    /// Replaces every string of `node` holding `${..}` by its value.
    fn interpolate(&mut self, node: &mut Node, host: &dyn Host) -> bool {
        match &mut node.value {
            Value::String(text) => {
                let text = text.clone();
                let result = Template::parse(&text).and_then(|template| {
                    template
                        .map(|template| template.render(self.values, host, node.span))
                        .transpose()
                });
                match result {
                    Ok(Some(mut value)) => {
                        value.layer = node.layer;
                        value.tag = None;
                        *node = value;
                        true
                    }
                    Ok(None) => true,
                    Err(error) => {
                        self.report(&error, node.span, &text);
                        false
                    }
                }
            }
            Value::Seq(items) => {
                let mut ok = true;
                for item in items {
                    ok &= self.interpolate(item, host);
                }
                ok
            }
            Value::Map(entries) => {
                let mut ok = true;
                for entry in entries.values_mut() {
                    ok &= self.interpolate(&mut entry.value, host);
                }
                ok
            }
            _ => true,
        }
    }

    fn report(&mut self, error: &CondError, span: Span, text: &str) {
        let diagnostic = error.diagnostic(&self.db.borrow(), span, text);
        self.diagnostics.push(diagnostic);
    }
}

/// Removes `when` and `strategy`, which decide composition and never reach
/// the output.
fn strip_composition_keys(entry: &mut Node) {
    if let Value::Map(fields) = &mut entry.value {
        fields.shift_remove("when");
        fields.shift_remove("strategy");
    }
}

fn fields(node: &mut Node) -> Option<&mut Mapping> {
    match &mut node.value {
        Value::Map(fields) => Some(fields),
        _ => None,
    }
}

/// Windsor's merge of a Terraform component into its match.
fn merge_terraform(base: &mut Node, overlay: Node) {
    let Value::Map(mut overlay) = overlay.value else {
        return;
    };
    let Some(base) = fields(base) else { return };
    if let Some(inputs) = overlay.shift_remove("inputs") {
        merge_mapping(base, "inputs", inputs);
    }
    if let Some(depends_on) = overlay.shift_remove("dependsOn") {
        append(base, "dependsOn", depends_on, true);
    }
    for key in ["destroy", "parallelism", "name"] {
        if let Some(value) = overlay.shift_remove(key) {
            base.insert(key.to_owned(), value);
        }
    }
}

/// Windsor's merge of a kustomization into its match.
fn merge_kustomization(base: &mut Node, overlay: Node) {
    let Value::Map(mut overlay) = overlay.value else {
        return;
    };
    let Some(base) = fields(base) else { return };
    for key in ["components", "dependsOn", "cleanup"] {
        if let Some(items) = overlay.shift_remove(key) {
            append(base, key, items, true);
        }
    }
    if let Some(patches) = overlay.shift_remove("patches") {
        append(base, "patches", patches, false);
    }
    if let Some(substitutions) = overlay.shift_remove("substitutions") {
        merge_mapping(base, "substitutions", substitutions);
    }
    for key in KUSTOMIZATION_UPDATES {
        if let Some(value) = overlay.shift_remove(*key) {
            base.insert((*key).to_owned(), value);
        }
    }
}

/// Takes out of `base` what `removal` lists: in each of `lists`, the
/// items equal to one of `removal`'s; in each mapping of `keys`, the keys
/// `removal`'s has.
fn subtract(base: &mut Node, removal: &Node, lists: &[&str], keys: &[&str]) {
    let Some(fields) = fields(base) else { return };
    for key in lists {
        let (Some(entry), Some(Value::Seq(gone))) = (
            fields.get_mut(*key),
            removal.get(key).map(|node| &node.value),
        ) else {
            continue;
        };
        if let Value::Seq(items) = &mut entry.value.value {
            items.retain(|item| !gone.iter().any(|g| strata_cond::equal(g, item)));
            // Emptied, it is left out, as Windsor writes no empty field.
            if items.is_empty() {
                fields.shift_remove(*key);
            }
        }
    }
    for key in keys {
        let (Some(entry), Some(Value::Map(gone))) = (
            fields.get_mut(*key),
            removal.get(key).map(|node| &node.value),
        ) else {
            continue;
        };
        if let Value::Map(entries) = &mut entry.value.value {
            entries.retain(|name, _| !gone.contains_key(name));
            if entries.is_empty() {
                fields.shift_remove(*key);
            }
        }
    }
}

/// Deep-merges the mapping `overlay` into `base[key]` (in its place), the
/// overlay winning.
fn merge_mapping(base: &mut Mapping, key: &str, overlay: Entry) {
    match base.get_mut(key) {
        Some(existing) => {
            let strategies =
                strata_merge::Strategies::with_fallback(strata_merge::Strategy::Replace);
            let placeholder = Node::new(Value::Null, existing.value.span);
            let lower = std::mem::replace(&mut existing.value, placeholder);
            existing.value = strata_merge::merge(lower, overlay.value, &strategies).root;
        }
        None => {
            base.insert(key.to_owned(), overlay);
        }
    }
}

/// Appends the items of `overlay` to `base[key]` — only those it does not
/// hold yet when `unique`.
fn append(base: &mut Mapping, key: &str, overlay: Entry, unique: bool) {
    let Value::Seq(items) = overlay.value.value else {
        return;
    };
    let entry = base.entry(key.to_owned()).or_insert_with(|| Entry {
        key_span: overlay.key_span,
        value: Node::new(Value::Seq(Vec::new()), overlay.value.span),
    });
    if let Value::Seq(existing) = &mut entry.value.value {
        for item in items {
            if !unique || !existing.iter().any(|e| strata_cond::equal(e, &item)) {
                existing.push(item);
            }
        }
    }
}
