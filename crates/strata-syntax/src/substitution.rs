//! Where a `${..}` substitution opens in a text: the spec's and the
//! features' languages both write substitutions so, and the walks over a
//! document ask it of every key and scalar.
//!
//! `str::find("${")` sets up a two-way searcher on every call on a short
//! text, which costs more than the search itself on the short keys and
//! scalars of a document (a few percent of checking a large blueprint).
//! Looking for `$` is a byte search, and `{` is checked after each.

/// Where `${` first stands in `text`, as a byte offset.
#[must_use]
pub fn find_opening(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|rest| rest.find('$')) {
        let at = from + found;
        if text.as_bytes().get(at + 1) == Some(&b'{') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Whether `text` holds a `${`.
#[must_use]
pub fn has_opening(text: &str) -> bool {
    find_opening(text).is_some()
}

#[cfg(test)]
mod tests {
    use super::find_opening;
    use proptest::prelude::*;

    #[test]
    fn the_first_opening_is_found_past_lone_dollars() {
        assert_eq!(find_opening("plain"), None);
        assert_eq!(find_opening("$"), None);
        assert_eq!(find_opening("a$b$"), None);
        assert_eq!(find_opening("${x}"), Some(0));
        assert_eq!(find_opening("$$${x}"), Some(2));
        assert_eq!(find_opening("é$x${y}"), Some(4));
    }

    proptest! {
        #[test]
        fn it_finds_what_str_find_finds(text in "[a-z${}é]{0,24}") {
            prop_assert_eq!(find_opening(&text), text.find("${"));
        }
    }
}
