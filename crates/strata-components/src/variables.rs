//! The variables of a render, as qbec gives them: its own (`qbec.io/*`),
//! the declared external variables (the command line's value, else the
//! default), the computed ones (evaluated in order, each seeing the ones
//! before it), and the top-level arguments of each component.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use strata_jsonnet::{Failure, Input, Inputs, Setup, Vm, value};
use strata_syntax::{Diagnostic, Node, Span};

use crate::app::APP_FILE;
use crate::codes;
use crate::load::Application;
use crate::report::Render;
use crate::{RenderRequest, app};

/// The external variable holding the namespace of objects that name none.
pub(crate) const DEFAULT_NAMESPACE: &str = "qbec.io/defaultNs";

impl Application {
    /// Every external variable: qbec's own, the declared ones, the computed ones.
    pub(crate) fn ext_vars(
        &self,
        request: &RenderRequest,
        environment: &app::Environment,
        lib_paths: &[PathBuf],
        render: &mut Render,
    ) -> Option<Inputs> {
        let spec = &self.app.spec;
        let tag = request.tag.clone().unwrap_or_default();
        let namespace = if spec.namespace_tag_suffix && !tag.is_empty() {
            format!("{}-{tag}", environment.default_namespace)
        } else {
            environment.default_namespace.clone()
        };
        let mut vars = vec![
            (
                "qbec.io/env".to_owned(),
                Input::Str(request.environment.clone()),
            ),
            (
                "qbec.io/envProperties".to_owned(),
                Input::Code(
                    self.properties(&request.environment)
                        .to_json_value()
                        .to_string(),
                ),
            ),
            ("qbec.io/tag".to_owned(), Input::Str(tag)),
            (DEFAULT_NAMESPACE.to_owned(), Input::Str(namespace)),
            (
                "qbec.io/cleanMode".to_owned(),
                Input::Str(if request.clean_mode { "on" } else { "off" }.to_owned()),
            ),
        ];
        let mut ok = true;
        for (name, input) in &request.ext_vars {
            if !spec.vars.external.iter().any(|var| &var.name == name) {
                ok &= !request.strict_vars;
                let span = render.command_line(&input.flag("ext"), name);
                let declared = spec.vars.external.iter().map(|var| var.name.as_str());
                render.diagnostics.push(
                    undeclared(
                        request.strict_vars,
                        format!(
                            "the external variable `{name}` is not declared in `spec.vars.external`{}",
                            if request.strict_vars { "" } else { ": every component gets it anyway, as in qbec" }
                        ),
                        span,
                    )
                    .with_suggestion(name, declared),
                );
                // qbec passes it on: the declaration is a courtesy.
                vars.push((name.clone(), input.clone()));
            }
        }
        for (index, declared) in spec.vars.external.iter().enumerate() {
            let given = request
                .ext_vars
                .iter()
                .rev()
                .find(|(name, _)| *name == declared.name);
            let span = self.declared("external").get(index).map_or_else(
                || self.span_at(&["spec", "vars", "external"]),
                |item| item.span,
            );
            match (given, &declared.default) {
                (Some((_, input)), _) => vars.push((declared.name.clone(), input.clone())),
                (None, default) if request.strict_vars => {
                    ok = false;
                    let has = if default.is_some() {
                        "has a default, but "
                    } else {
                        ""
                    };
                    render.diagnostics.push(
                        Diagnostic::error(
                            codes::MISSING_VAR,
                            format!("the external variable `{}` {has}is not given on the command line, which `--strict-vars` requires", declared.name),
                            span,
                        )
                        .with_help(format!(
                            "give it with `--vm:ext-str {0}=VALUE` or `--vm:ext-code {0}=CODE`",
                            declared.name
                        )),
                    );
                }
                (None, Some(default)) => {
                    vars.push((declared.name.clone(), Input::Code(default.to_string())));
                }
                // As qbec: an error only for the components that read it.
                (None, None) => render.unset_variables.push((declared.name.clone(), span)),
            }
        }
        if !ok {
            return None;
        }
        self.computed_vars(&mut vars, lib_paths, render)?;
        Some(vars)
    }

    /// Evaluates `vars.computed` in order, each seeing the variables before it.
    fn computed_vars(
        &self,
        vars: &mut Inputs,
        lib_paths: &[PathBuf],
        render: &mut Render,
    ) -> Option<()> {
        let written = self.declared("computed");
        for (index, computed) in self.app.spec.vars.computed.iter().enumerate() {
            let setup = Setup {
                fs: self.fs.clone(),
                lib_paths: lib_paths.to_vec(),
                ext_vars: vars.clone(),
                limits: self.limits,
                data_sources: strata_jsonnet::data::DataSources::new(),
            };
            let source = format!("<computed:{}>", computed.name);
            let what = format!("computed variable `{}`", computed.name);
            let step = self.progress.step(&what, Path::new(APP_FILE));
            let value = Vm::new(&setup)
                .evaluate_snippet(&source, &computed.code)
                .and_then(|value| {
                    value::to_node(&value, Span::default(), self.limits.max_depth)
                        .map_err(|error| Failure::from_error(&error))
                });
            drop(step);
            match value {
                Ok(node) => vars.push((
                    computed.name.clone(),
                    Input::Code(node.to_json_value().to_string()),
                )),
                Err(failure) => {
                    let code = written.get(index).and_then(|var| var.get("code"));
                    let span = code.map_or_else(
                        || self.span_at(&["spec", "vars", "computed"]),
                        |code| code.span,
                    );
                    let mut diagnostic = render.failure(&what, span, &failure);
                    // The code is written in `qbec.yaml`: point there when the text can be found.
                    let inside = failure
                        .frames
                        .first()
                        .filter(|frame| frame.file == source)
                        .zip(code)
                        .and_then(|(frame, code)| {
                            render.db.span_in_scalar(
                                code.span,
                                &computed.code,
                                frame.start..frame.end,
                            )
                        });
                    if let Some(inside) = inside {
                        diagnostic.primary.span = inside;
                    }
                    render.diagnostics.push(diagnostic);
                    return None;
                }
            }
        }
        Some(())
    }

    /// The top-level arguments of each component, by name.
    pub(crate) fn tla_vars(
        &self,
        request: &RenderRequest,
        render: &mut Render,
    ) -> Option<HashMap<String, Inputs>> {
        let declared = &self.app.spec.vars.top_level;
        let strict = request.strict_vars;
        let mut ok = true;
        let mut by_component: HashMap<String, Inputs> = HashMap::new();
        for (name, input) in &request.tla_vars {
            let Some(declaration) = declared.iter().find(|var| &var.name == name) else {
                ok &= !strict;
                let span = render.command_line(&input.flag("tla"), name);
                render.diagnostics.push(
                    undeclared(
                        strict,
                        format!(
                            "the top-level argument `{name}` is not declared in `spec.vars.topLevel`{}",
                            if strict { "" } else { ": no component gets it, as in qbec" }
                        ),
                        span,
                    )
                    .with_suggestion(name, declared.iter().map(|var| var.name.as_str())),
                );
                continue;
            };
            for component in &declaration.components {
                let arguments = by_component.entry(component.clone()).or_default();
                arguments.retain(|(existing, _)| existing != name);
                arguments.push((name.clone(), input.clone()));
            }
        }
        if strict {
            let written = self.declared("topLevel");
            for (index, declaration) in declared.iter().enumerate() {
                if request
                    .tla_vars
                    .iter()
                    .any(|(name, _)| *name == declaration.name)
                {
                    continue;
                }
                ok = false;
                let span = written.get(index).map_or_else(
                    || self.span_at(&["spec", "vars", "topLevel"]),
                    |item| item.span,
                );
                render.diagnostics.push(
                    Diagnostic::error(
                        codes::MISSING_VAR,
                        format!(
                            "the top-level argument `{}` is not given on the command line, which `--strict-vars` requires",
                            declaration.name
                        ),
                        span,
                    )
                    .with_help(format!(
                        "give it with `--vm:tla-str {0}=VALUE` or `--vm:tla-code {0}=CODE`",
                        declaration.name
                    )),
                );
            }
        }
        ok.then_some(by_component)
    }

    /// The declarations of `spec.vars.<kind>` as written, for their spans.
    fn declared(&self, kind: &str) -> &[Node] {
        self.app_node
            .get("spec")
            .and_then(|s| s.get("vars"))
            .and_then(|v| v.get(kind))
            .and_then(Node::as_seq)
            .unwrap_or_default()
    }
}

/// A variable given but not declared: an error under `--strict-vars`, else
/// a warning (qbec accepts it without a word).
fn undeclared(strict: bool, message: String, span: Span) -> Diagnostic {
    if strict {
        Diagnostic::error(codes::UNDECLARED_VAR, message, span)
    } else {
        Diagnostic::warning(codes::UNDECLARED_VAR, message, span)
    }
}

/// How to give the external variable `name`.
pub(crate) fn give_help(name: &str) -> String {
    format!(
        "give it with `--vm:ext-str {name}=VALUE` or `--vm:ext-code {name}=CODE`, or declare a `default`"
    )
}
