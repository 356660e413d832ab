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

use std::collections::{HashMap, HashSet};

use strata_cond::{CondError, Host, Template};
use strata_syntax::{Diagnostic, Entry, LayerId, Mapping, Node, SourceDb, Span, Value};

use crate::graph;
use crate::model::MergeStrategy;

/// The kustomization settings a merge updates when the feature gives them.
const KUSTOMIZATION_UPDATES: &[&str] = &[
    "path",
    "source",
    "destroy",
    "interval",
    "retryInterval",
    "timeout",
    "wait",
    "force",
    "prune",
];

/// The composition so far.
pub struct Composer<'a> {
    db: &'a SourceDb,
    values: &'a Node,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
    /// Terraform components, in order.
    pub terraform: Vec<Node>,
    /// Kustomizations, in order.
    pub kustomize: Vec<Node>,
    /// Entries left out, by section and name.
    pub left_out: LeftOut,
}

/// Entries that did not make it into the composition, and why.
#[derive(Debug, Default)]
pub struct LeftOut {
    /// Their `when` was false.
    pub skipped: HashSet<(Section, String)>,
    /// They failed (an expression error); already reported.
    pub failed: HashSet<(Section, String)>,
}

/// Which list an entry belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    /// `terraform`.
    Terraform,
    /// `kustomize`.
    Kustomize,
}

impl Section {
    /// The key in the files.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Section::Terraform => "terraform",
            Section::Kustomize => "kustomize",
        }
    }
}

impl<'a> Composer<'a> {
    /// An empty composition; expressions see `values`.
    #[must_use]
    pub fn new(db: &'a SourceDb, values: &'a Node) -> Composer<'a> {
        Composer {
            db,
            values,
            diagnostics: Vec::new(),
            terraform: Vec::new(),
            kustomize: Vec::new(),
            left_out: LeftOut::default(),
        }
    }

    /// Evaluates a `when:` (absent or empty is true, a YAML boolean is
    /// itself); `None` after an error.
    pub fn when(&mut self, node: Option<&Node>, host: &dyn Host) -> Option<bool> {
        let Some(node) = node else { return Some(true) };
        let text = match &node.value {
            Value::Bool(constant) => return Some(*constant),
            Value::String(text) => text,
            _ => return Some(true),
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
                self.diagnostics
                    .push(error.diagnostic(self.db, node.span, text));
                None
            }
        }
    }

    /// Adds the entries of `section` of a file (the blueprint or a feature)
    /// whose `when` holds, each prepared and merged by its strategy.
    pub fn apply(&mut self, file: &Node, section: Section, layer: LayerId, host: &dyn Host) {
        let Some(entries) = file.get(section.key()).and_then(Node::as_seq) else {
            return;
        };
        let mut in_file: HashMap<(String, String), Span> = HashMap::new();
        for entry in entries {
            let id = graph::id(entry, section).to_owned();
            let key_field = match section {
                Section::Terraform => "path",
                Section::Kustomize => "name",
            };
            let key_span = entry.get(key_field).map_or(entry.span, |n| n.span);
            if let Some(first) = in_file.insert(identity(entry, section), key_span) {
                self.diagnostics.push(
                    Diagnostic::error(
                        "features/duplicate-entry",
                        format!("`{id}` is given twice in `{}` of this file", section.key()),
                        key_span,
                    )
                    .with_secondary(first, "first given here"),
                );
                continue;
            }
            match self.when(entry.get("when"), host) {
                Some(true) => {}
                Some(false) => {
                    self.left_out.skipped.insert((section, id));
                    continue;
                }
                None => {
                    self.left_out.failed.insert((section, id));
                    continue;
                }
            }
            let mut entry = entry.clone();
            let strategy = take_strategy(&mut entry);
            entry.stamp_layer(layer);
            if !self.prepare(&mut entry, section, host) {
                self.left_out.failed.insert((section, id));
                continue;
            }
            let list = match section {
                Section::Terraform => &mut self.terraform,
                Section::Kustomize => &mut self.kustomize,
            };
            let found = list
                .iter()
                .position(|existing| same(existing, &entry, section));
            if found.is_none()
                && section == Section::Terraform
                && let Some(other) = list
                    .iter()
                    .find(|existing| text(existing, "path") == text(&entry, "path"))
            {
                let warning = Diagnostic::warning(
                    "features/source-mismatch",
                    format!(
                        "`{}` is already in the blueprint with source `{}`; this one (source `{}`) is added beside it, not merged",
                        text(&entry, "path"),
                        text(other, "source"),
                        text(&entry, "source")
                    ),
                    key_span,
                )
                .with_help("components match on `path` and `source`: give the same `source` to merge");
                self.diagnostics.push(warning);
            }
            match (found, strategy) {
                (None, _) => list.push(entry),
                (Some(index), MergeStrategy::Replace) => list[index] = entry,
                (Some(index), MergeStrategy::Merge) => match section {
                    Section::Terraform => merge_terraform(&mut list[index], entry),
                    Section::Kustomize => merge_kustomization(&mut list[index], entry),
                },
            }
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
                        self.report(&error, node, &text);
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

    fn report(&mut self, error: &CondError, node: &Node, text: &str) {
        self.diagnostics
            .push(error.diagnostic(self.db, node.span, text));
    }
}

/// Removes `when` and `strategy`, giving the strategy (`merge` by default).
fn take_strategy(entry: &mut Node) -> MergeStrategy {
    let Value::Map(fields) = &mut entry.value else {
        return MergeStrategy::Merge;
    };
    fields.shift_remove("when");
    match fields
        .shift_remove("strategy")
        .and_then(|e| e.value.as_str().map(str::to_owned))
    {
        Some(strategy) if strategy == "replace" => MergeStrategy::Replace,
        _ => MergeStrategy::Merge,
    }
}

/// A string field, or empty.
fn text<'n>(node: &'n Node, key: &str) -> &'n str {
    node.get(key).and_then(Node::as_str).unwrap_or_default()
}

/// What makes two entries the same component: `path` and `source` for
/// Terraform, `name` for kustomizations.
fn identity(entry: &Node, section: Section) -> (String, String) {
    match section {
        Section::Terraform => (
            text(entry, "path").to_owned(),
            text(entry, "source").to_owned(),
        ),
        Section::Kustomize => (text(entry, "name").to_owned(), String::new()),
    }
}

/// Whether two entries are the same component (as [`identity`] says,
/// without allocating: it runs for every pair a merge compares).
fn same(a: &Node, b: &Node, section: Section) -> bool {
    match section {
        Section::Terraform => {
            text(a, "path") == text(b, "path") && text(a, "source") == text(b, "source")
        }
        Section::Kustomize => text(a, "name") == text(b, "name"),
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
