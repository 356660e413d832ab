//! The `${..}` substitution language of the Blueprint Specification
//! v2023-04-20, used by the `spec` dialect.
//!
//! ```text
//! ordersApi-${variables.environment}-saveOrderFunction-v1
//! ${join(map(split(values.hosts, ","), trim), ";")}
//! ${resources.cacheCluster.state.hostConfig[].hostInfo.endpoints[]}
//! ${object(region = variables.region, replicas = 3)}
//! ```
//!
//! - [`parse`](mod@parse): the grammar, exactly (module docs there); every
//!   node of the [`ast`] keeps its byte range; printing a tree
//!   ([`std::fmt::Display`]) and parsing it again gives the same tree.
//! - [`check`](mod@check): static checks of references (through a
//!   [`Scope`] the dialect supplies), calls and types ([`Types`]).
//! - [`functions`]: the 50 core functions and function values.
//! - [`eval`]: evaluation against an [`Env`]; results that only deployment
//!   can tell are [`Failure::Pending`], not errors.
//!
//! Errors carry a byte range inside the field's text;
//! [`SubstError::diagnostic`] turns one into a diagnostic at the exact
//! character in the file (see [`strata_syntax::SourceDb::span_in_scalar`]).
//! The codes are listed in [`codes`].
//!
//! ```
//! use strata_subst::{Env, Lookup, Reference, Steps, Value, evaluate, parse_template};
//!
//! struct NoBlueprint(Steps);
//! impl Env for NoBlueprint {
//!     fn reference(&self, _: &Reference) -> Lookup {
//!         Lookup::Missing("no blueprint".into())
//!     }
//!     fn steps(&self) -> &Steps {
//!         &self.0
//!     }
//!     fn cwd(&self) -> Result<String, String> {
//!         Ok("/work".into())
//!     }
//!     fn now_unix(&self) -> i64 {
//!         0
//!     }
//! }
//!
//! let template = parse_template(r#"${join(split("a,b", ","), "-")}"#).unwrap();
//! let env = NoBlueprint(Steps::default());
//! assert_eq!(evaluate(&template, &env), Ok(Value::String("a-b".into())));
//! ```

#![forbid(unsafe_code)]

pub mod ast;
pub mod check;
pub mod codes;
pub mod eval;
pub mod functions;
pub mod parse;
pub mod types;
pub mod value;

pub use ast::{
    Accessor, Argument, Call, Expr, ExprKind, Literal, Name, Part, Reference, Substitution,
    Template,
};
pub use check::{Scope, check_expr, check_template};
pub use eval::{Env, Failure, Lookup, Steps, WITHHELD_NOTE, evaluate, evaluate_expr};
pub use functions::{Def, Function};
pub use parse::{MAX_DEPTH, MAX_LENGTH, parse_expr, parse_template};
pub use types::Types;
pub use value::Value;

/// A problem with a field text, at a byte range of it: the expression
/// languages' one error type, with a code of [`codes`].
pub type SubstError = strata_syntax::ExprError;
