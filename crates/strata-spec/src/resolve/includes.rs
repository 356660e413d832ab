//! Children (`include`): the order their references ask, the path
//! evaluated and read below the root (or fetched through a
//! [`ChildSource`](super::ChildSource) for a remote source), cycles and the
//! include budget, each child resolved with its `variables`, and its
//! exports as the parent reads them.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use strata_dialect::Reader;
use strata_subst::Value;
use strata_syntax::{Diagnostic, FieldPath, Outcome};

use super::trees::resolve_tree;
use super::{MAX_INCLUDES, ResolvedBlueprint, ResolvedChild, Resolver};
use crate::environment::Environment;
use crate::load::Loaded;
use crate::model::Tree;
use crate::secrets::Secrets;
use crate::variables::{Given, GivenValue, Inputs, Origin};
use crate::{codes, load};

impl Resolver<'_> {
    /// A remote include, through the request's [`ChildSource`].
    pub(super) fn fetch(
        &mut self,
        name: &str,
        include: &crate::model::Include,
        kind: &str,
        written: &str,
        metadata: &Value,
    ) -> Outcome<(PathBuf, Loaded)> {
        let base = FieldPath::root().key("include").key(name);
        let Some(source) = &self.request.child_source else {
            // At the `sourceType` its path names.
            let at = include
                .metadata
                .as_ref()
                .and_then(|metadata| metadata.get("sourceType"))
                .map_or(include.name_span, Tree::span);
            return Outcome::error(
                Diagnostic::error(
                    codes::INCLUDE,
                    format!("include `{name}` comes from a remote source (`{kind}`), and no source of remote blueprints is configured"),
                    at,
                )
                .with_help("give a local mirror of remote blueprints with `--child-source DIR` (this include is then `DIR/SOURCETYPE/PATH`), or, as a library user, a `strata_spec::ChildSource`")
                .with_path(base.key("metadata").key("sourceType")),
            );
        };
        match source.fetch(name, written, metadata) {
            Ok((display, text)) => {
                let path = PathBuf::from(format!("{kind}:{display}"));
                let mut reader = Reader::new(self.files, self.db, self.limits);
                load::read_fetched(&mut reader, &path, &text).map(|loaded| (path, loaded))
            }
            Err(message) => Outcome::error(
                Diagnostic::error(
                    codes::INCLUDE,
                    format!("include `{name}` cannot be fetched: {message}"),
                    include.name_span,
                )
                .with_path(base),
            ),
        }
    }

    /// A local include, below the root, not already in `chain`.
    pub(super) fn read_local(
        &mut self,
        name: &str,
        include: &crate::model::Include,
        parent: &Path,
        written: &str,
        chain: &[PathBuf],
    ) -> Outcome<(PathBuf, Loaded)> {
        let at = FieldPath::root().key("include").key(name).key("path");
        let Some(path) = local_path(self.root.as_deref(), parent, written) else {
            return Outcome::error(
                Diagnostic::error(
                    strata_fs::codes::OUTSIDE_ROOT,
                    format!("the path `{written}` of include `{name}` lies outside the root the blueprint was opened in"),
                    include.path.span(),
                )
                .with_help("give `--root` a folder that holds both blueprints")
                .with_path(at),
            );
        };
        if chain.contains(&path) {
            let cycle: Vec<String> = chain
                .iter()
                .chain(std::iter::once(&path))
                .map(|step| step.display().to_string())
                .collect();
            return Outcome::error(
                Diagnostic::error(
                    codes::INCLUDE_CYCLE,
                    format!("includes form a cycle: {}", cycle.join(" → ")),
                    include.path.span(),
                )
                .with_path(at),
            );
        }
        let mut reader = Reader::new(self.files, self.db, self.limits);
        load::read_included(&mut reader, &path, include.path.span()).map(|loaded| (path, loaded))
    }

    /// Reads, checks and resolves one include.
    pub(super) fn child(
        &mut self,
        name: &str,
        include: &crate::model::Include,
        parent: &Path,
        env: &Environment<'_>,
        secrets: &Secrets,
        chain: &mut Vec<PathBuf>,
    ) -> Outcome<ResolvedBlueprint> {
        let base = FieldPath::root().key("include").key(name);
        let mut problems = Vec::new();
        let path_value = resolve_tree(
            &include.path,
            env,
            self.db,
            &base.key("path"),
            &mut problems,
        );
        let Value::String(written) = path_value else {
            problems.push(
                Diagnostic::error(
                    codes::INCLUDE,
                    format!(
                        "the path of include `{name}` must be a string known before deployment"
                    ),
                    include.path.span(),
                )
                .with_path(base.key("path")),
            );
            return Outcome::failed(problems);
        };
        let metadata = include.metadata.as_ref().map_or(Value::Null, |tree| {
            resolve_tree(tree, env, self.db, &base.key("metadata"), &mut problems)
        });
        let remote = match &metadata {
            Value::Object(fields) => fields.get("sourceType").and_then(|kind| match kind {
                Value::String(kind) => Some(kind.clone()),
                _ => None,
            }),
            _ => None,
        };
        if let Err(too_many) = self.count_includes(1, name, include) {
            problems.extend(too_many);
            return Outcome::failed(problems);
        }
        // The path and source of an include computed from a secret are
        // not quoted when it cannot be read.
        let path_secret = secrets.tree_reads(&include.path, None)
            || include
                .metadata
                .as_ref()
                .is_some_and(|metadata| secrets.tree_reads(metadata, None));
        let read = match remote {
            Some(kind) => self.fetch(name, include, &kind, &written, &metadata),
            None => self.read_local(name, include, parent, &written, chain),
        };
        let read = if path_secret {
            withhold_read(read, name, include)
        } else {
            read
        };
        let Some((child_path, loaded)) = read.report(&mut problems) else {
            return Outcome::failed(problems);
        };
        if problems.iter().any(Diagnostic::is_error) {
            return Outcome::failed(problems);
        }
        let (inputs, given) = self.given(include, env, secrets, &base, &mut problems);
        let within = format!("{}children.{name}.", self.children.within);
        let deployed = self.request.deployed.within(&within);
        // The same file with the same variables (and states) resolves the
        // same: once.
        if let Some(earlier) = self.children.resolved.iter().find(|earlier| {
            earlier.path == child_path && earlier.given == given && earlier.deployed == deployed
        }) {
            // Its problems were reported where it was first included; its
            // own includes count again, as they are copied again.
            let child = earlier.child.clone();
            let nested = child.as_ref().map_or(0, ResolvedBlueprint::includes);
            if let Err(too_many) = self.count_includes(nested, name, include) {
                problems.extend(too_many);
                return Outcome::failed(problems);
            }
            return Outcome::new(child, problems);
        }
        chain.push(child_path.clone());
        let outer = std::mem::replace(&mut self.children.within, within);
        let child = self.blueprint(&loaded, &child_path, &inputs, None, chain);
        chain.pop();
        self.children.within = outer;
        let child = child.report(&mut problems).map(|child| ResolvedBlueprint {
            loaded: Some(Arc::new(loaded)),
            ..child
        });
        self.children.resolved.push(ResolvedChild {
            path: child_path,
            given,
            deployed,
            child: child.clone(),
        });
        match child {
            Some(child) => Outcome::new(Some(child), problems),
            None => Outcome::failed(problems),
        }
    }

    /// The variables an include gives its child, as the child's inputs
    /// and as (name, value, whether secret) to tell its renders apart.
    fn given(
        &mut self,
        include: &crate::model::Include,
        env: &Environment<'_>,
        secrets: &Secrets,
        base: &FieldPath,
        problems: &mut Vec<Diagnostic>,
    ) -> (Inputs, Vec<(String, Value, bool)>) {
        let mut inputs = Inputs::default();
        let mut given = Vec::new();
        for (variable, (key_span, tree)) in &include.variables {
            let path = base.key("variables").key(variable);
            let value = resolve_tree(tree, env, self.db, &path, problems);
            let secret = secrets.tree_reads(tree, None);
            given.push((variable.clone(), value.clone(), secret));
            inputs.given.push(Given {
                name: variable.clone(),
                value: GivenValue::Value(value),
                span: tree.span(),
                name_span: *key_span,
                origin: Origin::Include,
                secret,
            });
        }
        (inputs, given)
    }

    /// Counts `more` includes made by include `name`: an error once the
    /// render has made more than [`MAX_INCLUDES`], with the problem the
    /// first time (the includes that fail after it say nothing more).
    pub(super) fn count_includes(
        &mut self,
        more: usize,
        name: &str,
        include: &crate::model::Include,
    ) -> Result<(), Option<Diagnostic>> {
        let before = self.children.included;
        self.children.included = before.saturating_add(more);
        if self.children.included <= MAX_INCLUDES {
            return Ok(());
        }
        Err((before <= MAX_INCLUDES).then(|| {
            Diagnostic::error(
                codes::TOO_MANY_INCLUDES,
                format!("the blueprint includes more than {MAX_INCLUDES} blueprints in all"),
                include.name_span,
            )
            .with_note("each include of a file counts, however often the file is included")
            .with_path(FieldPath::root().key("include").key(name))
        }))
    }
}

/// A failed read of include `name` whose path or source reads a secret:
/// every problem about the reading itself (reported at the include, which
/// may quote the path it computed) says only that it could not be read.
pub(super) fn withhold_read(
    read: Outcome<(PathBuf, Loaded)>,
    name: &str,
    include: &crate::model::Include,
) -> Outcome<(PathBuf, Loaded)> {
    let at_include = [include.path.span(), include.name_span];
    let diagnostics = read
        .diagnostics
        .into_iter()
        .map(|diagnostic| {
            if at_include.contains(&diagnostic.primary.span)
                || include
                    .metadata
                    .as_ref()
                    .is_some_and(|metadata| metadata.span().contains(diagnostic.primary.span))
            {
                Diagnostic {
                    message: format!("include `{name}` cannot be read"),
                    help: None,
                    notes: vec![strata_subst::WITHHELD_NOTE.to_owned()],
                    ..diagnostic
                }
            } else {
                diagnostic
            }
        })
        .collect();
    Outcome::new(read.value, diagnostics)
}

/// The exports of the child included as `name`, as its parent reads them:
/// what waits on the child's deployment says so in the parent's terms
/// (`children.<name>.<export>`).
pub(super) fn exports_seen_from_parent(name: &str, child: &ResolvedBlueprint) -> Value {
    Value::Object(
        child
            .exports
            .iter()
            .map(|(export, value)| {
                let value = match value {
                    Value::Unknown(_) => Value::Unknown(format!("children.{name}.{export}").into()),
                    known => known.clone(),
                };
                (export.clone(), value)
            })
            .collect(),
    )
}

/// The path below the root of a local include written `written` in the
/// blueprint at `parent`; `None` when it lies outside the root (`root` is
/// the root's absolute folder, for absolute paths).
pub(super) fn local_path(root: Option<&Path>, parent: &Path, written: &str) -> Option<PathBuf> {
    let written = Path::new(written);
    let joined = if written.is_absolute() {
        written.strip_prefix(root?).ok()?.to_path_buf()
    } else {
        parent.parent().unwrap_or(Path::new("")).join(written)
    };
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::Normal(part) => normal.push(part),
            Component::ParentDir => {
                if !normal.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(normal)
}

/// The includes in the order their references ask: a child whose
/// `variables` read `children.a` comes after `a`; otherwise as written.
pub(super) fn child_order(loaded: &Loaded) -> Vec<String> {
    let names: Vec<&String> = loaded.blueprint.include.keys().collect();
    let mut done: Vec<String> = Vec::new();
    while done.len() < names.len() {
        let before = done.len();
        for name in &names {
            if done.contains(name) {
                continue;
            }
            let waits = loaded
                .references
                .dependencies(&crate::validate::Element::Child((*name).clone()))
                .into_iter()
                .any(|dependency| match dependency {
                    crate::validate::Element::Child(other) => {
                        other != *name && !done.contains(other)
                    }
                    _ => false,
                });
            if !waits {
                done.push((*name).clone());
            }
        }
        if done.len() == before {
            // A cycle between children (reported by the check): as written.
            done.extend(
                names
                    .iter()
                    .filter(|name| !done.contains(name))
                    .map(|name| (*name).clone())
                    .collect::<Vec<_>>(),
            );
        }
    }
    done
}
