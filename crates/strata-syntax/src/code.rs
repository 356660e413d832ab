//! Diagnostic codes as data: a [`Code`] is a stable name (`phase/kind`,
//! `syntax/duplicate-key`) that tools and callers match on, and each crate
//! declares its codes once, with what they mean, in its `src/codes.rs`
//! through [`declare_codes!`]. The declaration gives a constant per code
//! (a `Code`, so a caller that must know which problem happened writes a
//! `match`) and the crate's `TABLE` of [`Explanation`]s, from which
//! `strata explain CODE` and the manual's codes reference are written.

use std::fmt;

use serde::{Serialize, Serializer};

/// A diagnostic's stable code: `area/kind`.
///
/// Derives structural equality, so a declared constant is a pattern:
/// `match diagnostic.code { codes::UNKNOWN_KEY => …, _ => … }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Code(&'static str);

impl Code {
    /// The code named `name` (`area/kind`). Only [`declare_codes!`] calls
    /// it, so that every code is declared, explained and listed once.
    #[must_use]
    #[doc(hidden)]
    pub const fn new(name: &'static str) -> Code {
        Code(name)
    }

    /// The code as written: `syntax/duplicate-key`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        self.0
    }

    /// The area before the slash: `syntax`.
    #[must_use]
    pub fn area(self) -> &'static str {
        self.0.split_once('/').map_or(self.0, |(area, _)| area)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// What a code means, as its crate declares it: one row of the codes
/// reference and the text of `strata explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The code.
    pub code: Code,
    /// When it is reported, in a line (the reference's `when` column).
    pub when: &'static str,
    /// Where it points, when the table says (the reference's `where`
    /// column); empty otherwise.
    pub place: &'static str,
    /// Why it fires: the rule behind it, in a paragraph.
    pub why: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// An input that reports it (the file's text, or a command line).
    pub example: &'static str,
}

/// Declares a crate's diagnostic codes: a `Code` constant for each (its
/// doc the `when` line) and `TABLE`, every [`Explanation`] in order.
///
/// ```
/// mod codes {
///     strata_syntax::declare_codes! {
///         NOT_A_MAPPING = "demo/not-a-mapping" {
///             when: "the file is not a mapping",
///             why: "a demo file is a mapping of settings",
///             fix: "write the settings as `key: value` lines",
///             example: "- a list\n",
///         }
///     }
/// }
/// assert_eq!(codes::NOT_A_MAPPING.as_str(), "demo/not-a-mapping");
/// assert_eq!(codes::TABLE[0].when, "the file is not a mapping");
/// ```
#[macro_export]
macro_rules! declare_codes {
    ($(
        $name:ident = $code:literal {
            when: $when:literal,
            $(where: $place:literal,)?
            why: $why:literal,
            fix: $fix:literal,
            example: $example:literal $(,)?
        }
    )*) => {
        $(
            #[doc = $when]
            pub const $name: $crate::Code = $crate::Code::new($code);
        )*

        /// Every code this crate declares, with what it means, in the
        /// order of its reference table.
        pub const TABLE: &[$crate::Explanation] = &[$(
            $crate::Explanation {
                code: $name,
                when: $when,
                place: $crate::declare_codes!(@place $($place)?),
                why: $why,
                fix: $fix,
                example: $example,
            },
        )*];
    };
    (@place $place:literal) => { $place };
    (@place) => { "" };
}
