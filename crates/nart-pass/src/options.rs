//! Typed pass options: declared once per pass ([`OptionDecl`]), parsed from the pipeline's
//! `{key=value key2=value}` syntax, printed back in canonical form.

use crate::errors::OptionError;

/// One allowed value of an enum option, with its help text.
#[derive(Clone, Copy, Debug)]
pub struct EnumCase {
    /// The spelling.
    pub name: &'static str,
    /// Help text.
    pub help: &'static str,
}

/// The type of an option.
#[derive(Clone, Copy, Debug)]
pub enum OptionKind {
    /// `true`/`false` (also `1`/`0`); a bare `key` means `true`.
    Bool,
    /// A signed 64-bit integer.
    Int,
    /// A string.
    String,
    /// A comma-separated list of strings.
    StringList,
    /// One of the listed cases.
    Enum(&'static [EnumCase]),
}

impl OptionKind {
    /// The placeholder shown by `--list-passes` (`=<long>`), as MLIR prints it.
    pub fn value_name(self) -> &'static str {
        match self {
            OptionKind::Bool => "",
            OptionKind::Int => "=<long>",
            OptionKind::String | OptionKind::StringList => "=<string>",
            OptionKind::Enum(_) => "=<value>",
        }
    }
}

/// The declaration of one option.
#[derive(Clone, Copy, Debug)]
pub struct OptionDecl {
    /// Kebab-case name.
    pub name: &'static str,
    /// Help text.
    pub help: &'static str,
    /// Type.
    pub kind: OptionKind,
    /// Default value, spelled as in a pipeline (`"10"`, `"true"`, `"normal"`, `""`).
    pub default: &'static str,
}

/// A parsed option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string or an enum case.
    Str(String),
    /// A list of strings.
    List(Vec<String>),
}

impl OptionValue {
    /// Parses `text` as a value of `kind`.
    pub fn parse(kind: OptionKind, text: &str) -> Result<OptionValue, String> {
        match kind {
            OptionKind::Bool => match text {
                "true" | "1" | "" => Ok(OptionValue::Bool(true)),
                "false" | "0" => Ok(OptionValue::Bool(false)),
                _ => Err(format!(
                    "'{text}' is invalid value for boolean argument! Try 0 or 1"
                )),
            },
            OptionKind::Int => text
                .trim()
                .parse::<i64>()
                .map(OptionValue::Int)
                .map_err(|_| format!("'{text}' value invalid for integer argument")),
            OptionKind::String => Ok(OptionValue::Str(text.to_string())),
            OptionKind::StringList => Ok(OptionValue::List(split_list(text))),
            OptionKind::Enum(cases) => {
                if cases.iter().any(|c| c.name == text) {
                    Ok(OptionValue::Str(text.to_string()))
                } else {
                    let names: Vec<&str> = cases.iter().map(|c| c.name).collect();
                    Err(format!(
                        "'{text}' is not a valid value (expected one of: {})",
                        names.join(", ")
                    ))
                }
            }
        }
    }

    /// The value spelled as in a pipeline.
    pub fn to_pipeline_text(&self) -> String {
        match self {
            OptionValue::Bool(b) => b.to_string(),
            OptionValue::Int(i) => i.to_string(),
            OptionValue::Str(s) => quote_if_needed(s),
            OptionValue::List(items) => items
                .iter()
                .map(|s| quote_if_needed(s))
                .collect::<Vec<_>>()
                .join(","),
        }
    }
}

fn quote_if_needed(s: &str) -> String {
    if s.is_empty() {
        return "\"\"".to_string();
    }
    if s.chars()
        .any(|c| c.is_whitespace() || "{}(),=\"'".contains(c))
    {
        if !s.contains('}') || balanced_braces(s) {
            return format!("{{{s}}}");
        }
        return format!("\"{s}\"");
    }
    s.to_string()
}

fn balanced_braces(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// Splits a list value at top-level commas, unquoting each item.
fn split_list(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                cur.push(c);
            }
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                cur.push(c);
            }
            (None, '{') => {
                depth += 1;
                cur.push(c);
            }
            (None, '}') => {
                depth -= 1;
                cur.push(c);
            }
            (None, ',') if depth == 0 => out.push(unquote(std::mem::take(&mut cur).trim())),
            (None, c) => cur.push(c),
        }
    }
    let last = unquote(cur.trim());
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    out
}

/// Removes one level of `"..."`, `'...'` or `{...}` around a value.
fn unquote(s: &str) -> String {
    let b = s.as_bytes();
    if b.len() >= 2
        && ((b[0] == b'"' && b[b.len() - 1] == b'"')
            || (b[0] == b'\'' && b[b.len() - 1] == b'\'')
            || (b[0] == b'{' && b[b.len() - 1] == b'}'))
    {
        return s[1..s.len() - 1].to_string();
    }
    s.to_string()
}

/// The values of a pass's options, one per declaration, in declaration order.
#[derive(Clone, Debug)]
pub struct PassOptions {
    decls: &'static [OptionDecl],
    values: Vec<OptionValue>,
}

impl PassOptions {
    /// The defaults of `decls`.
    ///
    /// A default that does not parse is a bug in the pass declaration.
    pub fn defaults(decls: &'static [OptionDecl]) -> PassOptions {
        let values = decls
            .iter()
            .map(|d| {
                OptionValue::parse(d.kind, d.default).unwrap_or_else(|e| {
                    panic!("invariant: default of option '{}' parses: {e}", d.name)
                })
            })
            .collect();
        PassOptions { decls, values }
    }

    /// The declarations.
    pub fn decls(&self) -> &'static [OptionDecl] {
        self.decls
    }

    fn index(&self, name: &str) -> usize {
        self.decls
            .iter()
            .position(|d| d.name == name)
            .unwrap_or_else(|| panic!("invariant: option '{name}' is declared by the pass"))
    }

    /// The value of option `name`.
    pub fn get(&self, name: &str) -> &OptionValue {
        &self.values[self.index(name)]
    }

    /// Sets option `name`.
    pub fn set(&mut self, name: &str, value: OptionValue) {
        let i = self.index(name);
        self.values[i] = value;
    }

    /// A declared boolean option.
    pub fn bool(&self, name: &str) -> bool {
        match self.get(name) {
            OptionValue::Bool(b) => *b,
            v => panic!("invariant: option '{name}' is a bool, got {v:?}"),
        }
    }

    /// A declared integer option.
    pub fn int(&self, name: &str) -> i64 {
        match self.get(name) {
            OptionValue::Int(i) => *i,
            v => panic!("invariant: option '{name}' is an integer, got {v:?}"),
        }
    }

    /// A declared string or enum option.
    pub fn str(&self, name: &str) -> &str {
        match self.get(name) {
            OptionValue::Str(s) => s,
            v => panic!("invariant: option '{name}' is a string, got {v:?}"),
        }
    }

    /// A declared list option.
    pub fn list(&self, name: &str) -> &[String] {
        match self.get(name) {
            OptionValue::List(l) => l,
            v => panic!("invariant: option '{name}' is a list, got {v:?}"),
        }
    }

    /// Parses `key=value key2=value` (the text between the braces) into these options.
    /// Values may be quoted with `"`, `'` or `{}`; a bare key sets a boolean to `true`.
    pub fn parse_into(&mut self, text: &str) -> Result<(), OptionError> {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_whitespace() {
                i += 1;
                continue;
            }
            let key_start = i;
            while i < bytes.len() && bytes[i] != b'=' && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let key = &text[key_start..i];
            let has_eq = i < bytes.len() && bytes[i] == b'=';
            let (value, value_start) = if has_eq {
                i += 1;
                let start = i;
                let end = scan_value(bytes, i).map_err(|m| OptionError {
                    offset: start,
                    message: m,
                })?;
                i = end;
                (unquote(&text[start..end]), start)
            } else {
                (String::new(), i)
            };
            let Some(idx) = self.decls.iter().position(|d| d.name == key) else {
                return Err(OptionError {
                    offset: key_start,
                    message: format!("no such option '{key}'"),
                });
            };
            let decl = self.decls[idx];
            if !has_eq && !matches!(decl.kind, OptionKind::Bool) {
                return Err(OptionError {
                    offset: key_start,
                    message: format!("option '{key}' requires a value"),
                });
            }
            let v = OptionValue::parse(decl.kind, &value).map_err(|m| OptionError {
                offset: value_start,
                message: format!("for the '{key}' option: {m}"),
            })?;
            self.values[idx] = v;
        }
        Ok(())
    }

    /// The options in canonical pipeline form, sorted by name, leaving out empty strings and
    /// lists whose default is empty:
    /// `max-iterations=10 top-down=true`.
    pub fn to_pipeline_text(&self) -> String {
        let mut items: Vec<(&str, String)> = self
            .decls
            .iter()
            .zip(&self.values)
            .filter(|(d, v)| {
                let empty = match v {
                    OptionValue::List(l) => l.is_empty(),
                    OptionValue::Str(s) => s.is_empty(),
                    _ => false,
                };
                !(empty && d.default.is_empty())
            })
            .map(|(d, v)| (d.name, v.to_pipeline_text()))
            .collect();
        items.sort_by(|a, b| a.0.cmp(b.0));
        items
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The end of a value starting at `i`: at top-level whitespace, honouring quotes and braces.
fn scan_value(b: &[u8], mut i: usize) -> Result<usize, String> {
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'{' => depth += 1,
                b'}' => depth -= 1,
                c if c.is_ascii_whitespace() && depth == 0 => break,
                _ => {}
            },
        }
        i += 1;
    }
    if quote.is_some() {
        return Err("unterminated quoted option value".to_string());
    }
    if depth != 0 {
        return Err("unbalanced braces in option value".to_string());
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    static CASES: [EnumCase; 2] = [
        EnumCase {
            name: "normal",
            help: "",
        },
        EnumCase {
            name: "off",
            help: "",
        },
    ];
    static DECLS: [OptionDecl; 5] = [
        OptionDecl {
            name: "top-down",
            help: "",
            kind: OptionKind::Bool,
            default: "true",
        },
        OptionDecl {
            name: "max-iterations",
            help: "",
            kind: OptionKind::Int,
            default: "10",
        },
        OptionDecl {
            name: "label",
            help: "",
            kind: OptionKind::String,
            default: "",
        },
        OptionDecl {
            name: "disable-patterns",
            help: "",
            kind: OptionKind::StringList,
            default: "",
        },
        OptionDecl {
            name: "mode",
            help: "",
            kind: OptionKind::Enum(&CASES),
            default: "normal",
        },
    ];

    fn check(text: &str, expect: Result<&str, (usize, &str)>) {
        let mut o = PassOptions::defaults(&DECLS);
        match (o.parse_into(text), expect) {
            (Ok(()), Ok(canon)) => assert_eq!(o.to_pipeline_text(), canon, "input: {text}"),
            (Err(e), Err((off, msg))) => {
                assert_eq!((e.offset, e.message.as_str()), (off, msg), "input: {text}")
            }
            (got, want) => panic!("input {text}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn parse_table() {
        check("", Ok("max-iterations=10 mode=normal top-down=true"));
        check(
            "max-iterations=3 top-down=false",
            Ok("max-iterations=3 mode=normal top-down=false"),
        );
        check(
            "top-down  max-iterations=-1 mode=off",
            Ok("max-iterations=-1 mode=off top-down=true"),
        );
        check(
            "disable-patterns=A,B label={a b}",
            Ok("disable-patterns=A,B label={a b} max-iterations=10 mode=normal top-down=true"),
        );
        check(
            "label='x y'",
            Ok("label={x y} max-iterations=10 mode=normal top-down=true"),
        );
        check("foo=1", Err((0, "no such option 'foo'")));
        check(
            "top-down=maybe",
            Err((
                9,
                "for the 'top-down' option: 'maybe' is invalid value for boolean argument! Try 0 or 1",
            )),
        );
        check(
            "max-iterations=x",
            Err((
                15,
                "for the 'max-iterations' option: 'x' value invalid for integer argument",
            )),
        );
        check(
            "mode=fast",
            Err((
                5,
                "for the 'mode' option: 'fast' is not a valid value (expected one of: normal, off)",
            )),
        );
        check("label=\"abc", Err((6, "unterminated quoted option value")));
        check(
            "max-iterations",
            Err((0, "option 'max-iterations' requires a value")),
        );
    }

    #[test]
    fn typed_accessors() {
        let mut o = PassOptions::defaults(&DECLS);
        o.parse_into("disable-patterns=P,Q max-iterations=4")
            .unwrap();
        assert_eq!(o.int("max-iterations"), 4);
        assert!(o.bool("top-down"));
        assert_eq!(o.list("disable-patterns"), ["P", "Q"]);
        assert_eq!(o.str("mode"), "normal");
    }
}
