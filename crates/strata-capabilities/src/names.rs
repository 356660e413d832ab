//! The Kubernetes grammars the dialect's names become: every name a
//! package or a profile writes ends up in an object's `metadata`, a label
//! or a file name of the build, so each is checked against the grammar of
//! what it becomes (`strata_k8s::names`), not only for being non-empty.
//!
//! | name | grammar | becomes |
//! |---|---|---|
//! | a profile's `metadata.name` | DNS-1123 subdomain | an object name |
//! | an Application's `metadata.name` | DNS-1123 subdomain | object names, the `--out-dir` file |
//! | an Application's `metadata.namespace` | DNS-1123 label | a namespace |
//! | a component's `name` | DNS-1123 label | object names and label values |
//! | a `CapabilityDefinition`'s `metadata.name` | DNS-1123 label | a trait type, a binding key |
//! | a binding key's trait type and scope | DNS-1123 label each | (`<traitType>.<scope>`) |

use strata_syntax::{Diagnostic, FieldPath, Span};

use crate::codes;

/// A Kubernetes name grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grammar {
    /// At most 63 lowercase letters, digits and `-`, starting and ending
    /// with a letter or digit.
    Label,
    /// Labels joined by `.`, at most 253 characters.
    Subdomain,
}

impl Grammar {
    /// Whether `text` follows the grammar.
    pub(crate) fn accepts(self, text: &str) -> bool {
        match self {
            Grammar::Label => strata_k8s::names::is_dns1123_label(text),
            Grammar::Subdomain => strata_k8s::names::is_dns1123_subdomain(text),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Grammar::Label => "DNS-1123 label",
            Grammar::Subdomain => "DNS-1123 subdomain",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Grammar::Label => {
                "use at most 63 lowercase letters, digits and `-`, starting and ending with a letter or digit"
            }
            Grammar::Subdomain => {
                "use lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit"
            }
        }
    }
}

/// The problem with `text`, the `what` (`the component name`) written at
/// `span` (field `path`), when it does not follow `grammar`.
pub(crate) fn check(
    what: &str,
    text: &str,
    grammar: Grammar,
    span: Span,
    path: FieldPath,
) -> Option<Diagnostic> {
    (!grammar.accepts(text)).then(|| {
        Diagnostic::error(
            codes::INVALID_NAME,
            format!("{what} `{text}` is not a {}", grammar.name()),
            span,
        )
        .with_path(path)
        .with_help(grammar.help())
    })
}
