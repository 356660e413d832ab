//! The variables of a render, as qbec gives them: its own (`qbec.io/*`),
//! the declared external variables (the command line's value, else the
//! default), the computed ones (evaluated in order, each seeing the ones
//! before it), and the top-level arguments of each component.

use std::collections::HashMap;

use strata_jsonnet::{Failure, Input, Inputs, Setup, Vm, value};
use strata_syntax::{Diagnostic, Node, Span};

use crate::codes;
use crate::load::Application;
use crate::report::Render;
use crate::{RenderRequest, app};

impl Application {
    /// Every external variable: qbec's own, the declared ones, the computed ones.
    pub(crate) fn ext_vars(
        &self,
        request: &RenderRequest,
        environment: &app::Environment,
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
            ("qbec.io/defaultNs".to_owned(), Input::Str(namespace)),
            (
                "qbec.io/cleanMode".to_owned(),
                Input::Str(if request.clean_mode { "on" } else { "off" }.to_owned()),
            ),
        ];
        let mut ok = true;
        for (name, input) in &request.ext_vars {
            if !spec.vars.external.iter().any(|var| &var.name == name) {
                ok = false;
                let span = render.command_line(&input.flag("ext"), name);
                let declared = spec.vars.external.iter().map(|var| var.name.as_str());
                render.diagnostics.push(
                    Diagnostic::error(
                        codes::UNDECLARED_VAR,
                        format!(
                            "the external variable `{name}` is not declared in `spec.vars.external`"
                        ),
                        span,
                    )
                    .with_suggestion(name, declared),
                );
            }
        }
        for (index, declared) in spec.vars.external.iter().enumerate() {
            let given = request
                .ext_vars
                .iter()
                .rev()
                .find(|(name, _)| *name == declared.name);
            match (given, &declared.default) {
                (Some((_, input)), _) => vars.push((declared.name.clone(), input.clone())),
                (None, Some(default)) => {
                    vars.push((declared.name.clone(), Input::Code(default.to_string())));
                }
                (None, None) => {
                    ok = false;
                    let span = self.declared("external").get(index).map_or_else(
                        || self.span_at(&["spec", "vars", "external"]),
                        |item| item.span,
                    );
                    render.diagnostics.push(
                        Diagnostic::error(
                            codes::MISSING_VAR,
                            format!("the external variable `{}` has no value and no default", declared.name),
                            span,
                        )
                        .with_help(format!(
                            "give it with `--vm:ext-str {0}=VALUE` or `--vm:ext-code {0}=CODE`, or declare a `default`",
                            declared.name
                        )),
                    );
                }
            }
        }
        if !ok {
            return None;
        }
        self.computed_vars(&mut vars, render)?;
        Some(vars)
    }

    /// Evaluates `vars.computed` in order, each seeing the variables before it.
    fn computed_vars(&self, vars: &mut Inputs, render: &mut Render) -> Option<()> {
        let written = self.declared("computed");
        for (index, computed) in self.app.spec.vars.computed.iter().enumerate() {
            let setup = Setup {
                fs: self.fs.clone(),
                lib_paths: self.lib_paths.clone(),
                ext_vars: vars.clone(),
                limits: self.limits,
            };
            let source = format!("<computed:{}>", computed.name);
            let value = Vm::new(&setup).and_then(|vm| {
                let value = vm.evaluate_snippet(&source, &computed.code)?;
                value::to_node(&value, Span::default(), self.limits.max_depth)
                    .map_err(|error| Failure::from_error(&error))
            });
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
                    let what = format!("computed variable `{}`", computed.name);
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
        let mut ok = true;
        let mut by_component: HashMap<String, Inputs> = HashMap::new();
        for (name, input) in &request.tla_vars {
            let Some(declaration) = declared.iter().find(|var| &var.name == name) else {
                ok = false;
                let span = render.command_line(&input.flag("tla"), name);
                render.diagnostics.push(
                    Diagnostic::error(
                        codes::UNDECLARED_VAR,
                        format!("the top-level argument `{name}` is not declared in `spec.vars.topLevel`"),
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
