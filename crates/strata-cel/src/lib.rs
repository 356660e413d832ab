//! CEL over the spanned tree: `!cel` scalars compiled once and evaluated
//! against a scope, with errors that point into the YAML file.
//!
//! # What is evaluated
//!
//! [`Programs::evaluate_tree`] walks a tree and replaces every string scalar
//! tagged `!cel` with the value of its expression. The expression sees the
//! variables of a [`Scope`] and nothing else: not the rest of the tree, not
//! the results of other scalars. So every scalar is evaluated on its own and
//! the order does not matter. The result node keeps the scalar's span and
//! layer and has no tag. A scalar that fails keeps its text and its tag, so
//! nothing is lost, and the walk goes on: every problem is reported.
//!
//! [`Programs`] compiles each distinct expression text once and keeps the
//! program (or the compile error) for the life of the `Programs`, up to
//! [`CelOptions::cache_capacity`] texts (past that, new texts are compiled on every use, so
//! expressions arriving with requests cannot grow memory without bound); it
//! is `Send + Sync`, so one instance serves every request. A reloaded catalogue
//! should get a fresh `Programs`, so that texts no longer used are dropped.
//! [`Programs::compile_tree`] compiles every `!cel` scalar of a tree without
//! evaluating anything, for load-time checks.
//!
//! # The language
//!
//! The `cel` crate's standard library: operators, `size`, `contains`,
//! `startsWith`, `endsWith`, `matches`, conversions (`int`, `string`, ...),
//! `timestamp`/`duration`, the macros `has`, `all`, `exists`, `exists_one`,
//! `map`, `filter`, and optional values with the `.?`/`[?]` syntax. Its
//! extension libraries: strings (`lowerAscii`, `upperAscii`, `trim`,
//! `replace`, `split`, `join`, `indexOf`, `lastIndexOf`, `substring`,
//! `charAt`, `format`, `reverse`, `strings.quote`), lists (`slice`,
//! `flatten`, `distinct`, `reverse`, `sort`, `sortBy`, `lists.range`), math
//! (`math.greatest`, `math.least`, `math.ceil`, `math.abs`, ...) and encoders
//! (`base64.encode`, `base64.decode`). Strata adds:
//!
//! - `max(...)` and `min(...)`: the greatest or least of their arguments, or
//!   of the elements of a single list argument; `null` when there are none.
//! - `env(name)`: the process environment variable `name`, or `null` when it
//!   is unset (so `env('X') == null` tests for it; a value that is not
//!   Unicode is read lossily). Only with [`CelOptions::allow_env`]: otherwise
//!   calling it is the error `cel/env-disabled`.
//! - `normalizeDNS(text)`: `text` as a DNS label, as k8shell's
//!   `normalizeDNS` writes it ([`dns_label`]).
//!
//! # Types
//!
//! A [`Scope`] is made of tree nodes: `null`, booleans, integers, strings,
//! floats (CEL `double`), sequences (`list`) and mappings (`map` with string
//! keys). Tags in a scope are ignored.
//!
//! A result becomes a node of its own type: `null`, `bool`, `int`, `double`
//! (a float), `string`, `list` (a sequence) and `map` (a mapping). Besides:
//!
//! - a `uint` becomes an integer when it fits in 64 signed bits, and is the
//!   error `cel/result` otherwise;
//! - `bytes` become the string they hold when that is UTF-8 (`cel/result`
//!   otherwise: encode them with `base64.encode`);
//! - a `timestamp` becomes its RFC 3339 text in UTC
//!   (`2024-01-02T03:04:05.5Z`) and a `duration` its seconds (`90s`,
//!   `1.5s`), both as CEL's `string()` writes them;
//! - a type (`type(x)`) becomes its name;
//! - an optional value becomes its value, or `null` when it has none;
//! - map keys become strings (`1`, `true`), and since CEL maps are unordered,
//!   the mapping lists them sorted so that output is deterministic. Two keys
//!   with the same text (`{1: 'a', '1': 'b'}`) are the error `cel/result`.
//!
//! # Errors
//!
//! Every code, with when and where it is reported, is listed in [`codes`].
//!
//! Every diagnostic of a tree walk carries the field path of its node.
//!
//! The `cel` crate reports no positions for runtime errors, so those point
//! at the whole scalar. Parse errors come with a line and column inside the
//! expression, which is mapped onto the file when the scalar is written on
//! one line, plain or quoted, without escapes: the span of a scalar is known
//! but not the file's text, so the quoting is inferred from the span's
//! length (the tag included or not). Otherwise the diagnostic points at the
//! scalar and a note gives the position inside the expression. A plain
//! scalar folded over lines can, in rare cases, be mistaken for a quoted one;
//! the caret is then off by the folded indentation.
//!
//! # Cost bounds
//!
//! An expression may come from a repository overlay, so evaluating it must
//! not crash, hang or exhaust memory. What is bounded:
//!
//! - **Stack.** The `cel` crate's parser and evaluator recurse; a few dozen
//!   nested brackets overflow a 2 MiB stack in a debug build. All parsing and
//!   evaluation runs with at least 64 MiB of stack: on a fresh stack segment
//!   (the `stacker` crate, as rustc does) when the caller's stack has less
//!   left, for each call of [`Programs::compile`] that misses the cache, of
//!   [`Programs::compile_tree`] and of [`Programs::evaluate_tree`]; and an
//!   expression is refused (`cel/limit`) when it is longer than
//!   [`MAX_EXPRESSION_BYTES`], nests more than [`MAX_NESTING`] levels while
//!   parsing, or its syntax tree is deeper than [`MAX_DEPTH`] (a chain like
//!   `a + b + c + ...` is as deep as it is long).
//! - **Panics.** The `cel` crate panics on some internal states; every call
//!   into it is wrapped in `catch_unwind` and a panic becomes `cel/parse` or
//!   `cel/eval`. (The panic hook still runs, so a message may be printed.)
//! - **Iterations.** The comprehensions (`map`, `filter`, `all`, `exists`,
//!   `exists_one`, `sortBy`) of one expression evaluation run at most
//!   [`MAX_ITERATIONS`] iterations in total, nested ones included: each is
//!   charged the size of its range before it starts.
//! - **Sizes.** Every list or map computed by an operator, a function or a
//!   comprehension holds at most [`MAX_ELEMENTS`] entries, and every string
//!   or bytes value computed at most [`MAX_STRING_BYTES`] bytes, so that no
//!   chain of steps grows a value without bound.
//!
//! What is not bounded: the work of one single step is only bounded by its
//! inputs, which are bounded as above. Most steps are linear in them, but a
//! few multiply: `replace` with a long replacement on a long string, `join`
//! or `flatten` of many long elements, `distinct` (quadratic), a `map` whose
//! step copies a large value. Such a step can take time and memory up to the
//! product of the limits before its result is checked. The `cel` crate has no
//! cost budget or interruption to do better.
//!
//! # Example
//!
//! ```
//! use strata_cel::{CelOptions, Programs, Scope};
//! use strata_syntax::{Format, Limits, SourceDb, emit::to_yaml, parse};
//!
//! let mut db = SourceDb::new();
//! let blueprint = db.add(
//!     "blueprint.yaml",
//!     "hostname: !cel \"user.username + '-' + metadata.name\"\n\
//!      ports: !cel '[80, 443].map(p, p + 8000)'\n",
//! );
//! let typo = db.add("typo.yaml", "name: !cel \"user.username +\"\n");
//! let request = db.add("request.yaml", "user: {username: ada}\nmetadata: {name: web}\n");
//! let load = |id| parse(&db, id, Format::Yaml, &Limits::default()).documents.remove(0);
//!
//! let scope = Scope::from_mapping(load(request).as_map().unwrap());
//! let programs = Programs::new(CelOptions::default());
//! let (evaluated, diagnostics) = programs.evaluate_tree(load(blueprint), &scope);
//! assert!(diagnostics.is_empty());
//! assert_eq!(to_yaml(&evaluated), "hostname: ada-web\nports:\n  - 8080\n  - 8443\n");
//!
//! // A typo is reported at its character, with its field path.
//! let (_, diagnostics) = programs.evaluate_tree(load(typo), &scope);
//! let record = diagnostics[0].record(&db);
//! assert_eq!((record.code.as_str(), record.line, record.column), ("cel/parse", 1, 28));
//! assert_eq!(record.path.as_deref(), Some("name"));
//! ```

#![forbid(unsafe_code)]

pub mod codes;
mod compile;
mod result;
mod runtime;
mod scope;
mod tree;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};

use strata_syntax::{Diagnostic, Node, Span};

pub use compile::CompiledExpr;
pub use scope::Scope;

/// The longest DNS label [`dns_label`] makes: room for suffixes within the
/// 63 characters of a Kubernetes label.
pub const MAX_DNS_LABEL: usize = 53;

/// `text` as k8shell's `NormalizeDNSLabel` writes it: lowercased, every run
/// of characters outside `[a-z0-9-]` one `-`, runs of `-` one, leading and
/// trailing `-` trimmed, at most [`MAX_DNS_LABEL`] characters.
#[must_use]
pub fn dns_label(text: &str) -> String {
    let mut label = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            label.push(c);
        } else if !label.ends_with('-') {
            label.push('-');
        }
    }
    let trimmed = label.trim_matches('-');
    let mut end = trimmed.len().min(MAX_DNS_LABEL);
    while !trimmed.is_char_boundary(end) {
        end -= 1;
    }
    trimmed[..end].trim_end_matches('-').to_owned()
}
/// The tag that marks a scalar as a CEL expression.
pub const CEL_TAG: &str = "!cel";

/// The longest expression text accepted, in bytes.
pub const MAX_EXPRESSION_BYTES: usize = 8 * 1024;

/// How deeply the parser lets expressions nest (brackets, calls, ...).
pub const MAX_NESTING: u16 = 64;

/// The deepest syntax tree accepted, after macros are expanded.
pub const MAX_DEPTH: usize = 256;

/// How many comprehension iterations one evaluation of one expression may run.
pub const MAX_ITERATIONS: u64 = 100_000;

/// The most entries a computed list or map may hold.
pub const MAX_ELEMENTS: usize = 10_000;

/// The most bytes a computed string or bytes value may hold.
pub const MAX_STRING_BYTES: usize = 1024 * 1024;

/// The most compiled expressions a [`Programs`] keeps by default; past it,
/// new texts are compiled on every use. A catalogue's own expressions,
/// compiled at load, come first.
pub const MAX_CACHED: usize = 65_536;

/// The stack parsing and evaluation are guaranteed.
const STACK_BYTES: usize = 64 * 1024 * 1024;

/// What expressions may do, and how many programs are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CelOptions {
    /// Whether `env(name)` may read the process environment.
    pub allow_env: bool,
    /// The most compiled expressions kept ([`MAX_CACHED`] by default).
    pub cache_capacity: usize,
}

impl Default for CelOptions {
    fn default() -> CelOptions {
        CelOptions {
            allow_env: false,
            cache_capacity: MAX_CACHED,
        }
    }
}

/// A compiled expression, or why it did not compile, as cached.
type Compiled = Result<Arc<CompiledExpr>, Arc<compile::CompileError>>;

/// The CEL environment and a thread-safe cache of compiled expressions,
/// keyed by expression text.
pub struct Programs {
    options: CelOptions,
    env: Arc<cel::Env>,
    cache: RwLock<HashMap<String, Compiled>>,
}

impl fmt::Debug for Programs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cached = self.read_cache().len();
        f.debug_struct("Programs")
            .field("options", &self.options)
            .field("cached", &cached)
            .finish_non_exhaustive()
    }
}

impl Programs {
    /// An empty cache over the standard environment, the extensions and
    /// Strata's functions, as the module docs list them.
    #[must_use]
    pub fn new(options: CelOptions) -> Programs {
        Programs {
            options,
            env: Arc::new(runtime::environment(options)),
            cache: RwLock::new(HashMap::new()),
        }
    }

    /// The options the programs were made with.
    #[must_use]
    pub fn options(&self) -> CelOptions {
        self.options
    }

    /// Compiles `expr`, or returns the program already compiled from the
    /// same text. `span` is where the expression is written (the `!cel`
    /// scalar), for the diagnostic: `cel/parse` or `cel/limit`.
    pub fn compile(&self, expr: &str, span: Span) -> Result<Arc<CompiledExpr>, Diagnostic> {
        let compiled = self.cached(expr).unwrap_or_else(|| {
            let fresh = on_cel_stack(|| compile::compile(&self.env, expr));
            self.store(expr, fresh)
        });
        compiled.map_err(|error| error.diagnostic(expr, span))
    }

    /// Compiles (and caches) every `!cel` scalar of a tree without
    /// evaluating any, and reports every problem: `cel/parse`, `cel/limit`,
    /// `cel/not-a-string`, each with its field path.
    #[must_use]
    pub fn compile_tree(&self, node: &Node) -> Vec<Diagnostic> {
        on_cel_stack(|| tree::compile(self, node))
    }

    /// Replaces every `!cel` scalar of a tree with the value of its
    /// expression against `scope`, and returns the tree with every problem
    /// found. A scalar that fails is left as it was.
    #[must_use]
    pub fn evaluate_tree(&self, node: Node, scope: &Scope) -> (Node, Vec<Diagnostic>) {
        on_cel_stack(move || tree::evaluate(self, node, scope))
    }

    /// [`Programs::compile`] for callers already on the worker's stack.
    fn compile_here(&self, expr: &str, span: Span) -> Result<Arc<CompiledExpr>, Diagnostic> {
        let compiled = self.cached(expr).unwrap_or_else(|| {
            let fresh = compile::compile(&self.env, expr);
            self.store(expr, fresh)
        });
        compiled.map_err(|error| error.diagnostic(expr, span))
    }

    fn env(&self) -> Arc<cel::Env> {
        Arc::clone(&self.env)
    }

    fn read_cache(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Compiled>> {
        // The cache is only ever inserted into, so a panic elsewhere cannot
        // leave it half-updated: a poisoned lock is still sound.
        self.cache.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn cached(&self, expr: &str) -> Option<Compiled> {
        self.read_cache().get(expr).cloned()
    }

    /// Caches a fresh result, unless another thread was first: then its
    /// result is kept and returned, so one text always gives one program.
    /// A full cache keeps what it has and hands the fresh result out
    /// uncached: expressions that arrive with requests cannot grow it
    /// without bound.
    fn store(&self, expr: &str, fresh: Result<CompiledExpr, compile::CompileError>) -> Compiled {
        let fresh = fresh.map(Arc::new).map_err(Arc::new);
        let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(cached) = cache.get(expr) {
            return cached.clone();
        }
        if cache.len() < self.options.cache_capacity {
            cache.insert(expr.to_owned(), fresh.clone());
        }
        fresh
    }
}

/// Runs `work` with at least `STACK_BYTES` of stack left: in place when
/// the current stack has that much (a call nested in another), else on a
/// fresh stack segment twice that size (`stacker`): a memory mapping, much
/// cheaper than the thread this once was. A panic in `work` is passed on.
fn on_cel_stack<R>(work: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_BYTES, 2 * STACK_BYTES, work)
}

#[cfg(test)]
mod dns_label_tests {
    use super::*;

    #[test]
    fn names_become_dns_labels_as_k8shell_writes_them() {
        assert_eq!(dns_label("My Repo_Name!!"), "my-repo-name");
        assert_eq!(dns_label("--a--b--"), "a-b");
        assert_eq!(dns_label(&"x".repeat(80)).len(), MAX_DNS_LABEL);
        assert_eq!(
            dns_label(&format!("{}-{}", "a".repeat(52), "b")),
            "a".repeat(52)
        );
        assert_eq!(dns_label("Ünïcode"), "n-code");
    }
}
