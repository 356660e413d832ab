//! The Jsonnet virtual machine a component is evaluated in.
//!
//! Each component gets a fresh `jrsonnet` state (its `State` is not `Send`,
//! so each lives and dies on one worker thread) with:
//!
//! - the standard library, with `std.native` offering [`crate::natives`]
//!   and `expandHelmTemplate` ([`crate::helm`]);
//! - the external variables of the render (`std.extVar`);
//! - imports resolved relative to the importing file, then along
//!   `libPaths`, through the application's confined [`Files`]: nothing
//!   outside the application root can be read, symlinks included; qbec's
//!   `glob-import:` and `glob-importstr:` (`crate::glob`) likewise;
//! - `std.trace` collected, not printed (the library never prints).
//!
//! Errors come back as plain data ([`Failure`]): the message and the trace,
//! each frame with its file, text and byte range, for the caller to turn
//! into a diagnostic with positions.

use std::any::Any;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use jrsonnet_evaluator::error::{Error, ErrorKind};
use jrsonnet_evaluator::function::{CallLocation, TlaArg};
use jrsonnet_evaluator::gc::GcHashMap;
use jrsonnet_evaluator::trace::PathResolver;
use jrsonnet_evaluator::{IStr, ImportResolver, State, Thunk, Val};
use jrsonnet_gcmodule::Trace;
use jrsonnet_parser::{ParserSettings, Source, SourceFile, SourcePath};
use strata_fs::Files;
use strata_syntax::Limits;

use crate::data::{DataPath, DataSources};
use crate::glob::{GlobSource, Verb};
use crate::reads::ImportLog;

/// A value given to `std.extVar` or as a top-level argument.
#[derive(Debug, Clone)]
pub enum Input {
    /// A string.
    Str(String),
    /// Jsonnet code, evaluated where it is used.
    Code(String),
}

/// Named inputs, in the order given (a later one of a name wins).
pub type Inputs = Vec<(String, Input)>;

impl Input {
    /// The command-line flag that gives this input as `kind` (`ext`, `tla`).
    #[must_use]
    pub fn flag(&self, kind: &str) -> String {
        match self {
            Input::Str(_) => format!("--vm:{kind}-str"),
            Input::Code(_) => format!("--vm:{kind}-code"),
        }
    }
}

/// How deep function calls and imports may nest: go-jsonnet's default
/// (`--max-stack 500`), so a program qbec or Windsor evaluates is not
/// refused here; the deep stack below makes it safe.
pub const MAX_CALL_DEPTH: usize = 500;

/// The stack a Jsonnet evaluation runs on: 8 GiB, reserved, not used.
///
/// jrsonnet evaluates (and parses, and drops) an expression by recursing
/// into it, and bounds only the depth of function calls, so a left-nested
/// chain of 16,384 additions (a 64 KiB expression) overflowed a thread's
/// usual 2 MiB and aborted the process. A stack this large is only
/// address space until a recursion touches it, and it is larger than the
/// command line's memory limit (4 GiB by default): whatever depth a program
/// reaches, the resident memory its stack pages take meets that limit, a
/// clear error, before the stack ends.
pub const EVALUATION_STACK_BYTES: usize = 8 << 30;

/// Runs `work` on a fresh thread with an [`EVALUATION_STACK_BYTES`] stack
/// and waits for it; in place, on the stack there is, when the system
/// refuses such a thread. A panic in `work` resumes on the caller.
pub fn on_evaluation_stack<T: Send>(work: impl Fn() -> T + Sync) -> T {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("strata-jsonnet".to_owned())
            .stack_size(EVALUATION_STACK_BYTES)
            .spawn_scoped(scope, &work);
        match thread {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => work(),
        }
    })
}

/// What every VM of a render shares (plain data, so workers can share it).
pub struct Setup {
    /// The application's files.
    pub fs: Arc<dyn Files>,
    /// The library folders, relative to the root.
    pub lib_paths: Vec<PathBuf>,
    /// External variables, by name.
    pub ext_vars: Inputs,
    /// Bounds on native parsing and on output depth.
    pub limits: Limits,
    /// The sources `data://NAME/...` imports read, by name.
    pub data_sources: DataSources,
}

/// A VM for one component.
pub struct Vm {
    state: State,
    traces: Rc<RefCell<Vec<Traced>>>,
    /// Declared last, so it drops after the state.
    _collector: CollectOnDrop,
}

/// Frees the cycles a dropped VM leaves on its thread. jrsonnet's values
/// are reference-counted with a per-thread cycle collector that otherwise
/// runs only when the thread ends: a worker evaluating a thousand
/// components would hold every one of their heaps until then.
struct CollectOnDrop;

impl Drop for CollectOnDrop {
    fn drop(&mut self) {
        jrsonnet_gcmodule::collect_thread_cycles();
    }
}

/// One `std.trace` message and where it was called.
#[derive(Debug, Clone)]
pub struct Traced {
    /// The message.
    pub message: String,
    /// The call's place.
    pub at: Option<Frame>,
}

impl Vm {
    /// A fresh VM.
    #[must_use]
    pub fn new(setup: &Setup) -> Vm {
        Vm::with_log(setup, None)
    }

    /// A fresh VM that notes in `log` the imports its evaluations make
    /// ([`crate::reads`]).
    #[must_use]
    pub fn recording(setup: &Setup, log: Arc<ImportLog>) -> Vm {
        Vm::with_log(setup, Some(log))
    }

    fn with_log(setup: &Setup, log: Option<Arc<ImportLog>>) -> Vm {
        // jrsonnet's bound is per thread (200 by default); the VM's thread
        // takes go-jsonnet's, which qbec and Windsor run with.
        jrsonnet_evaluator::stack::set_stack_depth_limit(MAX_CALL_DEPTH);
        let context = jrsonnet_stdlib::ContextInitializer::new(PathResolver::Absolute);
        crate::natives::register(&context, setup.limits);
        let traces = Rc::new(RefCell::new(Vec::new()));
        context.add_native(
            "expandHelmTemplate",
            crate::helm::expandHelmTemplate {
                context: crate::helm::HelmContext {
                    fs: setup.fs.clone(),
                    limits: setup.limits,
                    traces: traces.clone(),
                    log: log.clone(),
                },
            },
        );
        context.settings_mut().trace_printer = Box::new(Collect(traces.clone()));
        for (name, input) in &setup.ext_vars {
            match input {
                Input::Str(text) => context.add_ext_str(name.as_str().into(), text.as_str().into()),
                // As go-jsonnet: code is an error only when it is read, so
                // a broken value no component reads breaks nothing.
                Input::Code(code) => {
                    if let Err(error) = context.add_ext_code(name, code.as_str()) {
                        context
                            .settings_mut()
                            .ext_vars
                            .insert(name.as_str().into(), TlaArg::Lazy(Thunk::errored(error)));
                    }
                }
            }
        }
        let mut builder = State::builder();
        builder
            .import_resolver(Resolver {
                fs: setup.fs.clone(),
                lib_paths: setup.lib_paths.clone(),
                limit: setup.limits.max_bytes,
                data_sources: setup.data_sources.clone(),
                log,
            })
            .context_initializer(crate::stdlib::GoStdlib::new(context, setup.limits));
        Vm {
            state: builder.build(),
            traces,
            _collector: CollectOnDrop,
        }
    }

    /// Evaluates the file at `path` (relative to the root) and, when it is
    /// a function, calls it with `arguments` (its own defaults fill the rest).
    pub fn evaluate_file(
        &self,
        path: &Path,
        arguments: &[(String, Input)],
    ) -> Result<Val, Failure> {
        let code = self
            .read_uncached(path)
            .map_err(|error| Failure::from_error(&error))?;
        self.evaluate_file_text(path, &code, arguments)
    }

    /// As [`Vm::evaluate_file`], for the file at `path` whose text the
    /// caller has read already (to register it for its diagnostics, say),
    /// so that the file is read once.
    pub fn evaluate_file_text(
        &self,
        path: &Path,
        text: &str,
        arguments: &[(String, Input)],
    ) -> Result<Val, Failure> {
        self.evaluate_uncached(path, text.into())
            .and_then(|value| self.call(value, arguments))
            .map_err(|error| Failure::from_error(&error))
    }

    /// The text of the file at `path`, read as an import is.
    fn read_uncached(&self, path: &Path) -> jrsonnet_evaluator::Result<IStr> {
        let source_path = SourcePath::new(SourceFile::new(path.to_path_buf()));
        let bytes = self
            .state
            .import_resolver()
            .load_file_contents(&source_path)?;
        Ok(std::str::from_utf8(&bytes)
            .map_err(|_| ErrorKind::ImportBadFileUtf8(source_path.clone()))?
            .into())
    }

    /// Evaluates `code`, the text of the file at `path`, without keeping
    /// its value in the VM's import cache (what it imports is cached): a VM
    /// reused for many components would otherwise hold every component's
    /// output.
    fn evaluate_uncached(&self, path: &Path, code: IStr) -> jrsonnet_evaluator::Result<Val> {
        let path = SourcePath::new(SourceFile::new(path.to_path_buf()));
        let source = Source::new(path, code);
        let parsed = jrsonnet_parser::parse(
            source.code(),
            &ParserSettings {
                source: source.clone(),
            },
        )
        .map_err(|error| ErrorKind::ImportSyntaxError {
            path: source.clone(),
            error: Box::new(error),
        })?;
        jrsonnet_evaluator::evaluate(self.state.create_default_context(source), &parsed)
    }

    /// Calls `value` with top-level arguments when it is a function.
    pub fn call(
        &self,
        value: Val,
        arguments: &[(String, Input)],
    ) -> jrsonnet_evaluator::Result<Val> {
        let mut tla = GcHashMap::<IStr, TlaArg>::new();
        for (name, input) in arguments {
            let argument = match input {
                Input::Str(text) => TlaArg::String(text.as_str().into()),
                Input::Code(code) => {
                    let source = Source::new_virtual(
                        format!("<top-level-arg:{name}>").into(),
                        code.as_str().into(),
                    );
                    let parsed = jrsonnet_parser::parse(
                        code,
                        &ParserSettings {
                            source: source.clone(),
                        },
                    )
                    .map_err(|error| ErrorKind::ImportSyntaxError {
                        path: source,
                        error: Box::new(error),
                    })?;
                    TlaArg::Code(parsed)
                }
            };
            tla.insert(name.as_str().into(), argument);
        }
        jrsonnet_evaluator::apply_tla(self.state.clone(), &tla, value)
    }

    /// Calls `function` (a value from this VM) with one named argument.
    pub fn call_with(
        &self,
        function: &Val,
        name: &str,
        argument: Val,
    ) -> jrsonnet_evaluator::Result<Val> {
        let Val::Func(function) = function else {
            return Err(
                ErrorKind::RuntimeError("the post-processor is not a function".into()).into(),
            );
        };
        let mut arguments = GcHashMap::<IStr, TlaArg>::new();
        arguments.insert(name.into(), TlaArg::Val(argument));
        function.evaluate(
            self.state.create_default_context(Source::new_virtual(
                "<post-processor>".into(),
                IStr::empty(),
            )),
            CallLocation::native(),
            &arguments,
            false,
        )
    }

    /// Evaluates `code`, shown under `name`.
    pub fn evaluate_snippet(&self, name: &str, code: &str) -> Result<Val, Failure> {
        self.state
            .evaluate_snippet(name, code)
            .map_err(|error| Failure::from_error(&error))
    }

    /// Imports a file (relative to the root) as a value, cached by the VM.
    pub fn import(&self, path: &Path) -> Result<Val, Failure> {
        self.state
            .import_resolved(SourcePath::new(SourceFile::new(path.to_path_buf())))
            .map_err(|error| Failure::from_error(&error))
    }

    /// What `std.trace` printed.
    #[must_use]
    pub fn traces(&self) -> Vec<Traced> {
        self.traces.borrow().clone()
    }

    /// What `std.trace` printed since the last call, for a VM reused from
    /// one evaluation to the next.
    #[must_use]
    pub fn take_traces(&self) -> Vec<Traced> {
        std::mem::take(&mut *self.traces.borrow_mut())
    }

    /// Frees what finished evaluations left on this thread: the values of
    /// the files they imported are forgotten (their parses are kept), then
    /// the cycles are collected. Call between the evaluations of a reused
    /// VM, which would otherwise hold every one of their heaps until it is
    /// dropped: an imported object that every evaluation extends
    /// (`lib.base { name: ... }`) caches each field it computes for each
    /// extension, and would keep every one of them, and every collection
    /// would walk them all again.
    pub fn collect_garbage(&self) {
        self.state.forget_evaluated_imports();
        jrsonnet_gcmodule::collect_thread_cycles();
    }
}

/// `std.trace` output, kept.
struct Collect(Rc<RefCell<Vec<Traced>>>);

impl jrsonnet_stdlib::TracePrinter for Collect {
    fn print_trace(&self, loc: CallLocation, value: IStr) {
        let at = loc
            .0
            .map(|span| frame(&span.0, span.1 as usize, span.2 as usize, "std.trace"));
        self.0.borrow_mut().push(Traced {
            message: value.to_string(),
            at,
        });
    }
}

/// Where `import "path"` written in the file `from` leads (both relative
/// to the root of `fs`): the file beside `from`, else the first library
/// folder of `lib_paths` that has it; `None` when none has it, an error
/// when the path leaves the root.
pub fn resolve_import(
    fs: &dyn Files,
    lib_paths: &[PathBuf],
    from: &Path,
    path: &str,
) -> Result<Option<PathBuf>, strata_fs::FsError> {
    resolve_import_looking(fs, lib_paths, from, path, |_| {})
}

/// [`resolve_import`], telling `looked_at` each place it looked, in order
/// (those where nothing was, then the file found): what decides where the
/// import leads.
fn resolve_import_looking(
    fs: &dyn Files,
    lib_paths: &[PathBuf],
    from: &Path,
    path: &str,
    mut looked_at: impl FnMut(&Path),
) -> Result<Option<PathBuf>, strata_fs::FsError> {
    let candidates = std::iter::once(strata_fs::join(from, path)).chain(
        lib_paths
            .iter()
            .map(|lib| strata_fs::normalise(&lib.join(path))),
    );
    for candidate in candidates {
        let candidate = candidate?;
        looked_at(&candidate);
        if fs.is_file(&candidate) {
            return Ok(Some(candidate));
        }
    }
    Ok(None)
}

/// Imports through the application's confined files.
#[derive(Trace)]
struct Resolver {
    #[trace(skip)]
    fs: Arc<dyn Files>,
    #[trace(skip)]
    lib_paths: Vec<PathBuf>,
    limit: usize,
    #[trace(skip)]
    data_sources: DataSources,
    /// Where the imports are noted, when they are.
    #[trace(skip)]
    log: Option<Arc<ImportLog>>,
}

impl ImportResolver for Resolver {
    fn resolve_from(
        &self,
        from: &SourcePath,
        path: &str,
    ) -> jrsonnet_evaluator::Result<SourcePath> {
        let not_found = || ErrorKind::ImportFileNotFound(from.clone(), path.to_owned());
        if Path::new(path).is_absolute() {
            return Err(ErrorKind::RuntimeError(
                format!("`{path}`: imports are relative to the importing file and stay inside the application").into(),
            )
            .into());
        }
        let here = from
            .downcast_ref::<SourceFile>()
            .map(|file| file.path().to_path_buf())
            .or_else(|| {
                from.downcast_ref::<GlobSource>()
                    .map(GlobSource::importing_file)
            })
            .unwrap_or_default();
        if let Some((verb, pattern)) = Verb::split(path) {
            if let Some(log) = &self.log {
                log.volatile(&here);
            }
            return Ok(SourcePath::new(GlobSource::new(verb, &here, pattern)));
        }
        if let Some(data) = DataPath::parse(path) {
            if !self.data_sources.contains_key(&data.name) {
                // A `BTreeMap`: the names come sorted.
                let names: Vec<&str> = self.data_sources.keys().map(String::as_str).collect();
                let declared = if names.is_empty() {
                    "the application declares none (`spec.dataSources`)".to_owned()
                } else {
                    format!("the application declares {}", names.join(", "))
                };
                return Err(crate::natives::runtime_error(format!(
                    "`{path}`: there is no data source `{}`; {declared}",
                    data.name
                )));
            }
            if let Some(log) = &self.log {
                log.volatile(&here);
            }
            return Ok(SourcePath::new(data));
        }
        // Every place looked at is noted: a file appearing at one where
        // nothing was changes where the import leads.
        let looked_at = |candidate: &Path| {
            if let Some(log) = &self.log {
                log.file(&here, candidate);
            }
        };
        match resolve_import_looking(self.fs.as_ref(), &self.lib_paths, &here, path, looked_at) {
            Ok(Some(found)) => Ok(SourcePath::new(SourceFile::new(found))),
            Ok(None) => Err(not_found().into()),
            Err(error) => Err(ErrorKind::RuntimeError(
                format!("cannot import `{path}`: {error}").into(),
            )
            .into()),
        }
    }

    fn load_file_contents(&self, resolved: &SourcePath) -> jrsonnet_evaluator::Result<Vec<u8>> {
        if let Some(data) = resolved.downcast_ref::<DataPath>() {
            let source = self.data_sources.get(&data.name).ok_or_else(|| {
                crate::natives::runtime_error(format!("there is no data source `{}`", data.name))
            })?;
            return source
                .resolve(&data.target)
                .map(String::into_bytes)
                .map_err(|message| {
                    crate::natives::runtime_error(format!(
                        "data source `{}`, path `{}`: {message}",
                        data.name, data.target
                    ))
                });
        }
        if let Some(glob) = resolved.downcast_ref::<GlobSource>() {
            return glob
                .code(self.fs.as_ref())
                .map(String::into_bytes)
                .map_err(|message| ErrorKind::RuntimeError(message.into()).into());
        }
        let path = resolved
            .downcast_ref::<SourceFile>()
            .map(SourceFile::path)
            .ok_or_else(|| ErrorKind::ImportIo(format!("`{resolved}` is not a file")))?;
        self.fs
            .read(path, self.limit)
            .map(String::into_bytes)
            .map_err(|error| ErrorKind::ImportIo(error.to_string()).into())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A failed evaluation, as plain data.
#[derive(Debug, Clone)]
pub struct Failure {
    /// What went wrong.
    pub message: String,
    /// Where, innermost first.
    pub frames: Vec<Frame>,
    /// The external variable read without a value, when that is what failed.
    pub undefined_variable: Option<String>,
}

/// One place of a trace.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The file, relative to the root, or a virtual name (`<extvar:x>`).
    pub file: String,
    /// Whether `file` is a real file below the root.
    pub on_disk: bool,
    /// The text evaluated, for positions.
    pub code: Arc<str>,
    /// The byte range.
    pub start: usize,
    /// The end of the byte range.
    pub end: usize,
    /// What was being done there.
    pub description: String,
}

impl Failure {
    /// A failure with no position.
    #[must_use]
    pub fn message(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            frames: Vec::new(),
            undefined_variable: None,
        }
    }

    /// The message and trace of a `jrsonnet` error.
    #[must_use]
    pub fn from_error(error: &Error) -> Failure {
        let mut frames = Vec::new();
        let mut undefined_variable = None;
        let message = match error.error() {
            ErrorKind::UndefinedExternalVariable(name) => {
                undefined_variable = Some(name.to_string());
                error.error().to_string()
            }
            ErrorKind::ImportSyntaxError {
                path,
                error: syntax,
            } => {
                let offset = syntax.location.offset;
                frames.push(frame(path, offset, offset, "syntax error"));
                format!("syntax error: expected {}", syntax.expected)
            }
            // jrsonnet's own text suggests a `--max-stack` option no
            // command of Strata (or qbec) has.
            ErrorKind::StackOverflow => format!(
                "stack overflow: calls and imports nest deeper than {MAX_CALL_DEPTH} (go-jsonnet's bound too)"
            ),
            other => other.to_string(),
        };
        for element in &error.trace().0 {
            if let Some(span) = &element.location {
                frames.push(frame(
                    &span.0,
                    span.1 as usize,
                    span.2 as usize,
                    &element.desc,
                ));
            }
        }
        Failure {
            message,
            frames,
            undefined_variable,
        }
    }
}

fn frame(source: &Source, start: usize, end: usize, description: &str) -> Frame {
    let path = source.source_path();
    let (file, on_disk) = match path.downcast_ref::<SourceFile>() {
        Some(file) => (file.path().display().to_string(), true),
        None => (path.to_string(), false),
    };
    Frame {
        file,
        on_disk,
        code: Arc::from(source.code()),
        start,
        end,
        description: description.to_owned(),
    }
}
