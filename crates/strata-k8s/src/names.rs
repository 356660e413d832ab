//! The names Kubernetes gives things, one grammar for every crate that
//! checks them (label keys and values, object names, namespaces).
//!
//! - A **label name** ([`is_label_name`]): 1 to 63 letters, digits, `-`,
//!   `_` or `.`, starting and ending with a letter or digit. It is the name
//!   part of a label key and what a non-empty label value may be.
//! - A **label value** ([`is_label_value`]): empty or a label name.
//! - A **DNS-1123 label** ([`is_dns1123_label`]): 1 to 63 lowercase letters,
//!   digits or `-`, starting and ending with a letter or digit (namespaces,
//!   most object names).
//! - A **DNS-1123 subdomain** ([`is_dns1123_subdomain`]): at most 253
//!   characters of dot-separated DNS-1123 labels (label key prefixes, many
//!   object names).

/// The longest label name, label value and DNS-1123 label.
pub const MAX_NAME: usize = 63;
/// The longest DNS-1123 subdomain.
pub const MAX_SUBDOMAIN: usize = 253;

/// Whether `value` is a label value: empty or a label name.
#[must_use]
pub fn is_label_value(value: &str) -> bool {
    value.is_empty() || is_label_name(value)
}

/// Whether `text` is a DNS-1123 label: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at
/// most 63 long.
#[must_use]
pub fn is_dns1123_label(text: &str) -> bool {
    text.len() <= MAX_NAME && is_dns1123_part(text)
}

/// One dot-separated part of a subdomain, of any length.
fn is_dns1123_part(text: &str) -> bool {
    let is_alphanumeric = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let bytes = text.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            is_alphanumeric(first)
                && is_alphanumeric(last)
                && bytes.iter().all(|b| is_alphanumeric(b) || *b == b'-')
        }
        _ => false,
    }
}

/// Whether `name` is a label name: `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`,
/// at most 63 long.
#[must_use]
pub fn is_label_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            bytes.len() <= MAX_NAME
                && first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// Whether `text` is a DNS-1123 subdomain: dot-separated DNS-1123 labels,
/// at most 253 long.
#[must_use]
pub fn is_dns1123_subdomain(text: &str) -> bool {
    text.len() <= MAX_SUBDOMAIN && text.split('.').all(is_dns1123_part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_grammar_takes_what_kubernetes_takes() {
        assert!(is_label_name("shop-1.a_B") && !is_label_name("") && !is_label_name("-a"));
        assert!(!is_label_name(&"x".repeat(64)) && is_label_name(&"x".repeat(63)));
        assert!(is_label_value("") && is_label_value("v1") && !is_label_value("a b"));
        assert!(is_dns1123_label("web-1") && !is_dns1123_label("Web") && !is_dns1123_label("a_b"));
        assert!(!is_dns1123_label("a.b") && !is_dns1123_label(&"a".repeat(64)));
        assert!(is_dns1123_subdomain("example.com") && is_dns1123_subdomain("a"));
        assert!(!is_dns1123_subdomain("example..com") && !is_dns1123_subdomain("-a.com"));
        assert!(!is_dns1123_subdomain(&format!("{}.com", "a".repeat(250))));
    }
}
