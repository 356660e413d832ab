//! Kubernetes objects written as YAML the way Go tools write them:
//! `sigs.k8s.io/yaml.Marshal`, which is yaml.v2's emitter (a port of
//! libyaml) behind a JSON round trip. Kure, kubectl and most controllers
//! print manifests this way; a tool whose output is compared with theirs
//! byte for byte must write the same bytes.
//!
//! No Rust YAML library writes yaml.v2's bytes (`serde_yaml` and its
//! successors indent sequences, quote differently and never fold), so the
//! parts of the emitter that shape block-style output are ported here:
//!
//! - **Keys** of every mapping are sorted as yaml.v2's `keyList.Less`
//!   sorts strings: rune by rune; two letters by code point; a letter after
//!   a non-letter; runs of digits by their number (`a2` before `a10`).
//! - **Layout**: two spaces; a sequence under a key is not indented
//!   (`containers:` then `- image: …` at the key's column); empty
//!   collections are `{}` and `[]`.
//! - **Strings** are plain unless they would read back as something else
//!   (`"1"`, `"true"`, `"yes"`, `"on"`, `""`, `"null"`, `"1:20"`,
//!   `"2024-01-01"`: double-quoted) or plain is not allowed (a leading
//!   indicator, `: ` or ` #` inside, leading or trailing space:
//!   single-quoted, double-quoted when single quotes cannot carry it).
//!   A string with a line feed is a literal block (`|`, `|-`, `|+`) unless
//!   it holds what a block cannot (tabs, trailing spaces on a line).
//! - **Folding**: plain and quoted strings longer than 80 columns are
//!   folded at spaces onto continuation lines (yaml.v2's `best_width`,
//!   which `sigs.k8s.io/yaml` never raises); the text reads back the same.
//! - **Numbers**: whole numbers as integers (also a whole `f64`, as Go's
//!   JSON step writes it), others as Go's `%g` (`0.5`, `1e+21`).
//!
//! Documents of a stream are separated by `---` lines, as Kure writes them:
//! none before the first, none after the last.

use std::cmp::Ordering;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// yaml.v2's `best_width`: plain and quoted scalars fold past this column.
const BEST_WIDTH: usize = 80;
/// yaml.v2's `best_indent`.
const BEST_INDENT: i32 = 2;
/// Keys longer than this (in bytes) are written as `? key`.
const SIMPLE_KEY_LIMIT: usize = 128;

/// One object as YAML, ending in a newline.
#[must_use]
pub fn to_go_yaml(value: &Value) -> String {
    let mut emitter = Emitter::default();
    emitter.node(value, Context::ROOT);
    emitter.write_indent();
    emitter.out
}

/// Objects as a stream: each written by [`to_go_yaml`], `---` between.
#[must_use]
pub fn to_go_yaml_stream(values: &[Value]) -> String {
    values
        .iter()
        .map(to_go_yaml)
        .collect::<Vec<_>>()
        .join("---\n")
}

/// yaml.v2's order of two mapping keys.
#[must_use]
pub fn key_order(a: &str, b: &str) -> Ordering {
    if key_less(a, b) {
        Ordering::Less
    } else if key_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// yaml.v2's `keyList.Less` for two strings, without allocating: the
/// strings are walked together to the first character that differs.
fn key_less(a: &str, b: &str) -> bool {
    // Whether the run of digits just before the difference has a digit
    // other than zero (yaml.v2's look-behind for leading zeros).
    let mut nonzero_run = false;
    let mut a_chars = a.char_indices();
    let mut b_chars = b.chars();
    loop {
        let Some((at, ca)) = a_chars.next() else {
            return b_chars.next().is_some();
        };
        let Some(cb) = b_chars.next() else {
            return false;
        };
        if ca == cb {
            if ca.is_ascii_digit() {
                nonzero_run |= ca != '0';
            } else {
                nonzero_run = false;
            }
            continue;
        }
        let (al, bl) = (ca.is_alphabetic(), cb.is_alphabetic());
        if al && bl {
            return ca < cb;
        }
        if al || bl {
            return bl;
        }
        let seed = i64::from((ca == '0' || cb == '0') && nonzero_run);
        let (an, a_len) = digit_run(&a[at..], seed);
        let (bn, b_len) = digit_run(&b[at..], seed);
        if an != bn {
            return an < bn;
        }
        if a_len != b_len {
            return a_len < b_len;
        }
        return ca < cb;
    }
}

/// The number the leading digits of `text` make after `seed` (wrapping as
/// Go's `int64` does), and how many digits there are.
fn digit_run(text: &str, seed: i64) -> (i64, usize) {
    let mut number = seed;
    let mut count = 0;
    for digit in text.chars().map_while(|c| c.to_digit(10)) {
        number = number.wrapping_mul(10).wrapping_add(i64::from(digit));
        count += 1;
    }
    (number, count)
}

/// Where a node is written (libyaml's `*_context` flags).
#[derive(Clone, Copy)]
struct Context {
    mapping: bool,
    simple_key: bool,
}

impl Context {
    const ROOT: Context = Context::ITEM;
    const ITEM: Context = Context {
        mapping: false,
        simple_key: false,
    };
    const VALUE: Context = Context {
        mapping: true,
        simple_key: false,
    };
    const KEY: Context = Context {
        mapping: true,
        simple_key: true,
    };
}

/// The emitter's state, as libyaml keeps it.
struct Emitter {
    out: String,
    column: usize,
    indent: i32,
    indents: Vec<i32>,
    whitespace: bool,
    indention: bool,
}

impl Default for Emitter {
    fn default() -> Emitter {
        Emitter {
            out: String::new(),
            column: 0,
            indent: -1,
            indents: Vec::new(),
            whitespace: true,
            indention: true,
        }
    }
}

/// How a scalar is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// What libyaml's `analyze_scalar` finds in a scalar.
#[expect(
    clippy::struct_excessive_bools,
    reason = "libyaml's flags, named as libyaml names them"
)]
struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

impl Emitter {
    fn node(&mut self, value: &Value, context: Context) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, context),
            Value::Bool(true) => self.scalar("true", Style::Plain, context),
            Value::Bool(false) => self.scalar("false", Style::Plain, context),
            Value::Number(number) => self.scalar(&go_number(number), Style::Plain, context),
            Value::String(text) => self.scalar(text, string_style(text), context),
            Value::Array(items) if items.is_empty() => self.empty("[]"),
            Value::Object(entries) if entries.is_empty() => self.empty("{}"),
            Value::Array(items) => {
                self.increase_indent(false, context.mapping && !self.indention);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Context::ITEM);
                }
                self.pop_indent();
            }
            Value::Object(entries) => {
                self.increase_indent(false, false);
                let mut keys: Vec<&String> = entries.keys().collect();
                keys.sort_by(|a, b| key_order(a, b));
                for key in keys {
                    self.write_indent();
                    let simple = key.len() <= SIMPLE_KEY_LIMIT && !analyze(key).multiline;
                    let style = string_style(key);
                    if simple {
                        self.scalar(key, style, Context::KEY);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        self.scalar(key, style, Context::VALUE);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    self.node(&entries[key.as_str()], Context::VALUE);
                }
                self.pop_indent();
            }
        }
    }

    /// An empty collection, in flow style.
    fn empty(&mut self, brackets: &str) {
        let (open, close) = brackets.split_at(1);
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn scalar(&mut self, text: &str, wanted: Style, context: Context) {
        if wanted == Style::Plain && is_simple(text) {
            // What the general path would write, without analysing it: no
            // indicator, no space to fold at, one line.
            if !self.whitespace {
                self.put(' ');
            }
            self.out.push_str(text);
            self.column += text.len();
            self.whitespace = false;
            self.indention = false;
            return;
        }
        let analysis = analyze(text);
        let mut style = wanted;
        if context.simple_key && analysis.multiline {
            style = Style::Double;
        }
        if style == Style::Plain
            && (!analysis.block_plain_allowed || (text.is_empty() && context.simple_key))
        {
            style = Style::Single;
        }
        if style == Style::Single && !analysis.single_quoted_allowed {
            style = Style::Double;
        }
        if style == Style::Literal && (!analysis.block_allowed || context.simple_key) {
            style = Style::Double;
        }
        self.increase_indent(true, false);
        let allow_breaks = !context.simple_key;
        match style {
            Style::Plain => self.write_plain(text, allow_breaks),
            Style::Single => self.write_single_quoted(text, allow_breaks),
            Style::Double => self.write_double_quoted(text, allow_breaks),
            Style::Literal => self.write_literal(text),
        }
        self.pop_indent();
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// libyaml's `write_break`: a line feed is a new line; another break
    /// character is copied and starts a line too.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = usize::try_from(self.indent.max(0)).unwrap_or_default();
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn write_plain(&mut self, text: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i + 1 < chars.len()
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                if let Some(short) = escape(c) {
                    self.put(short);
                } else {
                    let code = u32::from(c);
                    let escaped = if code <= 0xFF {
                        format!("x{code:02X}")
                    } else if code <= 0xFFFF {
                        format!("u{code:04X}")
                    } else {
                        format!("U{code:08X}")
                    };
                    for e in escaped.chars() {
                        self.put(e);
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i + 1 < chars.len()
                {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, text: &str) {
        self.write_indicator("|", true, false, false);
        if text.starts_with([' ', '\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']) {
            self.write_indicator("2", false, false, false);
        }
        let mut reversed = text.chars().rev();
        let last = reversed.next();
        let before_last = reversed.next();
        let chomp = match (last, before_last) {
            (Some(last), _) if !is_break(last) => Some("-"),
            (None, _) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(before)) if is_break(before) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in text.chars() {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

/// Whether `text` is a plain scalar any context writes as it is: ASCII
/// letters, digits and `.`, `_`, `/`, `-`, starting with a letter or a
/// digit.
fn is_simple(text: &str) -> bool {
    text.as_bytes()
        .first()
        .is_some_and(u8::is_ascii_alphanumeric)
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
}

/// libyaml's short escapes in double-quoted scalars.
fn escape(c: char) -> Option<char> {
    Some(match c {
        '\0' => '0',
        '\u{07}' => 'a',
        '\u{08}' => 'b',
        '\t' => 't',
        '\n' => 'n',
        '\u{0B}' => 'v',
        '\u{0C}' => 'f',
        '\r' => 'r',
        '\u{1B}' => 'e',
        '"' => '"',
        '\\' => '\\',
        '\u{85}' => 'N',
        '\u{A0}' => '_',
        '\u{2028}' => 'L',
        '\u{2029}' => 'P',
        _ => return None,
    })
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// libyaml's `is_printable` (which leaves out characters beyond the Basic
/// Multilingual Plane).
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}')
        || (('\u{E000}'..='\u{FFFD}').contains(&c) && c != '\u{FEFF}')
}

/// libyaml's `analyze_scalar`, for block context.
fn analyze(text: &str) -> Analysis {
    if text.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = text.chars().collect();
    let mut block_indicators = text.starts_with("---") || text.starts_with("...");
    let mut line_breaks = false;
    let mut special_characters = false;
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let followed_by_whitespace = next.is_none_or(|n| is_blank(n) || is_break(n));
        let first = i == 0;
        let last = i + 1 == chars.len();
        match c {
            '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%'
            | '@' | '`'
                if first =>
            {
                block_indicators = true;
            }
            '?' | ':' | '-' if first && followed_by_whitespace => block_indicators = true,
            ':' if !first && followed_by_whitespace => block_indicators = true,
            '#' if !first && preceded_by_whitespace => block_indicators = true,
            _ => {}
        }
        if !is_printable(c) {
            special_characters = true;
        }
        if c == ' ' {
            leading_space |= first;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= first;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blank(c) || is_break(c);
    }
    let mut analysis = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break || line_breaks {
        analysis.block_plain_allowed = false;
    }
    if trailing_space {
        analysis.block_allowed = false;
    }
    if break_space {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
        analysis.block_allowed = false;
    }
    if block_indicators {
        analysis.block_plain_allowed = false;
    }
    analysis
}

/// The style yaml.v2's `stringv` asks for: a literal block for text with a
/// line feed, plain when the text reads back as a string, double quotes
/// when it would read back as another type.
fn string_style(text: &str) -> Style {
    if text.contains('\n') {
        Style::Literal
    } else if reads_as_string(text) {
        Style::Plain
    } else {
        Style::Double
    }
}

/// Whether yaml.v2 resolves the plain scalar `text` as a string (its
/// `resolve`, plus the base-60 floats it quotes for other parsers).
fn reads_as_string(text: &str) -> bool {
    const RESOLVED: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no",
        "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "", "~", "null", "Null",
        "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    static FLOAT: LazyLock<Regex> = LazyLock::new(|| {
        #[expect(clippy::expect_used, reason = "a constant pattern")]
        Regex::new(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$").expect("float")
    });
    static BASE_60: LazyLock<Regex> = LazyLock::new(|| {
        #[expect(clippy::expect_used, reason = "a constant pattern")]
        Regex::new(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$").expect("base 60")
    });
    if RESOLVED.contains(&text) {
        return false;
    }
    match text.as_bytes().first() {
        Some(b'.') => text.parse::<f64>().is_err(),
        Some(b'0'..=b'9' | b'+' | b'-') => {
            let plain = text.replace('_', "");
            !(is_timestamp(text)
                || is_go_int(&plain)
                || FLOAT.is_match(&plain)
                || is_binary_int(&plain)
                || BASE_60.is_match(text))
        }
        _ => true,
    }
}

/// Whether Go's `strconv.ParseInt(text, 0, 64)` or `ParseUint` accepts
/// `text` (decimal, `0x`, `0o`, `0b`, a leading-zero octal).
fn is_go_int(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (radix, body) = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        (16, hex)
    } else if let Some(octal) = digits.strip_prefix("0o").or(digits.strip_prefix("0O")) {
        (8, octal)
    } else if let Some(binary) = digits.strip_prefix("0b").or(digits.strip_prefix("0B")) {
        (2, binary)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    !body.is_empty() && u64::from_str_radix(body, radix).is_ok()
}

/// yaml.v2's own `0b`/`-0b` binary integers.
fn is_binary_int(text: &str) -> bool {
    let body = text.strip_prefix("0b").or_else(|| text.strip_prefix("-0b"));
    body.is_some_and(|body| !body.is_empty() && u64::from_str_radix(body, 2).is_ok())
}

/// Whether yaml.v2 reads `text` as a timestamp: four digits and `-`, then
/// one of Go's layouts `2006-1-2`, `2006-1-2T15:4:5.999999999Z07:00` (or
/// `t`), `2006-1-2 15:4:5.999999999`.
fn is_timestamp(text: &str) -> bool {
    static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
        #[expect(clippy::expect_used, reason = "a constant pattern")]
        Regex::new(
            r"^[0-9]{4}-(0?[1-9]|1[0-2])-(0?[1-9]|[12][0-9]|3[01])(([Tt]([01]?[0-9]|2[0-3]):[0-5]?[0-9]:([0-5]?[0-9]|60)(\.[0-9]+)?(Z|[-+]([01][0-9]|2[0-3]):[0-5][0-9]))|( ([01]?[0-9]|2[0-3]):[0-5]?[0-9]:([0-5]?[0-9]|60)(\.[0-9]+)?))?$",
        )
        .expect("timestamp")
    });
    TIMESTAMP.is_match(text)
}

/// A JSON number as Go's JSON-then-YAML round trip writes it.
fn go_number(number: &serde_json::Number) -> String {
    if number.is_i64() || number.is_u64() {
        return number.to_string();
    }
    let float = number.as_f64().unwrap_or_default();
    if float.fract() == 0.0 && float.abs() < 1e21 {
        // Go's JSON writes it without a fraction; YAML reads an integer.
        #[expect(
            clippy::cast_possible_truncation,
            reason = "whole and below 1e21: within i128"
        )]
        return (float as i128).to_string();
    }
    strata_syntax::go_float(float)
}

#[cfg(test)]
mod tests {
    use super::{key_less, key_order, to_go_yaml, to_go_yaml_stream};
    use proptest::prelude::*;

    /// yaml.v2's `keyList.Less` as written in Go, rune slices and all: the
    /// reference the walking version must agree with.
    fn reference_less(a: &str, b: &str) -> bool {
        let ar: Vec<char> = a.chars().collect();
        let br: Vec<char> = b.chars().collect();
        for i in 0..ar.len().min(br.len()) {
            if ar[i] == br[i] {
                continue;
            }
            let (al, bl) = (ar[i].is_alphabetic(), br[i].is_alphabetic());
            if al && bl {
                return ar[i] < br[i];
            }
            if al || bl {
                return bl;
            }
            let (mut an, mut bn) = (0_i64, 0_i64);
            if (ar[i] == '0' || br[i] == '0')
                && ar[..i]
                    .iter()
                    .rev()
                    .take_while(|c| c.is_ascii_digit())
                    .any(|c| *c != '0')
            {
                an = 1;
                bn = 1;
            }
            let mut ai = i;
            while ai < ar.len() && ar[ai].is_ascii_digit() {
                an = an * 10 + i64::from(ar[ai].to_digit(10).unwrap());
                ai += 1;
            }
            let mut bi = i;
            while bi < br.len() && br[bi].is_ascii_digit() {
                bn = bn * 10 + i64::from(br[bi].to_digit(10).unwrap());
                bi += 1;
            }
            if an != bn {
                return an < bn;
            }
            if ai != bi {
                return ai < bi;
            }
            return ar[i] < br[i];
        }
        ar.len() < br.len()
    }

    proptest! {
        #[test]
        fn the_walk_agrees_with_yaml_v2s_comparison(a in "[a-c0-2_.A/]{0,8}", b in "[a-c0-2_.A/]{0,8}") {
            prop_assert_eq!(key_less(&a, &b), reference_less(&a, &b));
        }
    }
    use serde_json::json;
    use std::cmp::Ordering;

    #[test]
    fn keys_sort_as_yaml_v2_sorts_them() {
        let mut keys = vec![
            "spec",
            "kind",
            "apiVersion",
            "metadata",
            "automountServiceAccountToken",
            "a10",
            "a2",
            "B",
            "a",
            "_x",
            "1",
        ];
        keys.sort_by(|a, b| key_order(a, b));
        assert_eq!(
            keys,
            [
                "_x",
                "1",
                "B",
                "a",
                "a2",
                "a10",
                "apiVersion",
                "automountServiceAccountToken",
                "kind",
                "metadata",
                "spec"
            ]
        );
        assert_eq!(key_order("x", "x"), Ordering::Equal);
    }

    #[test]
    fn a_deployment_is_written_as_kure_writes_it() {
        let object = json!({
            "kind": "Deployment",
            "apiVersion": "apps/v1",
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {
                "strategy": {},
                "template": {"spec": {"containers": [
                    {"name": "web", "image": "r/web:v1", "args": [], "resources": {"requests": {"cpu": "1"}}}
                ]}},
            },
        });
        assert_eq!(
            to_go_yaml(&object),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    app: web\n  name: web\n\
             spec:\n  strategy: {}\n  template:\n    spec:\n      containers:\n      - args: []\n        \
             image: r/web:v1\n        name: web\n        resources:\n          requests:\n            \
             cpu: \"1\"\n"
        );
    }

    #[test]
    fn scalars_are_quoted_as_yaml_v2_quotes_them() {
        let object = json!({
            "a": "yes", "b": "1:20", "c": "2024-01-02", "d": "", "e": "*.example.com",
            "f": "0 2 * * *", "g": "a: b", "h": "it's", "i": "tab\there", "j": "0x1F",
            "k": "1e3", "l": "v1.2.3", "m": null, "n": 0.5, "o": 2.0, "p": "- x", "q": "~",
        });
        assert_eq!(
            to_go_yaml(&object),
            "a: \"yes\"\nb: \"1:20\"\nc: \"2024-01-02\"\nd: \"\"\ne: '*.example.com'\nf: 0 2 * * *\n\
             g: 'a: b'\nh: it's\ni: \"tab\\there\"\nj: \"0x1F\"\nk: \"1e3\"\nl: v1.2.3\nm: null\n\
             \"n\": 0.5\no: 2\np: '- x'\nq: \"~\"\n"
        );
    }

    #[test]
    fn text_with_line_feeds_is_a_literal_block() {
        let object =
            json!({"data": {"a": "one\ntwo\n", "b": "one\ntwo", "c": "x\n\n", "d": " lead\n"}});
        assert_eq!(
            to_go_yaml(&object),
            "data:\n  a: |\n    one\n    two\n  b: |-\n    one\n    two\n  c: |+\n    x\n\n  d: |2\n     lead\n"
        );
    }

    #[test]
    fn long_text_folds_past_eighty_columns() {
        let words = "word ".repeat(30);
        let object = json!({"description": words.trim_end()});
        let written = to_go_yaml(&object);
        let lines: Vec<&str> = written.lines().collect();
        assert!(lines.len() > 1, "{written}");
        assert!(lines[1].starts_with("  word"), "{written}");
        let joined: Vec<&str> = lines.iter().map(|line| line.trim()).collect();
        assert_eq!(
            joined.join(" "),
            format!("description: {}", words.trim_end())
        );
    }

    #[test]
    fn documents_are_separated_not_terminated() {
        assert_eq!(
            to_go_yaml_stream(&[json!({"a": 1}), json!({"b": [{"c": 2}]})]),
            "a: 1\n---\nb:\n- c: 2\n"
        );
    }
}
