//! Enum and bit-enum attributes declared as data (MLIR's `EnumAttr.td`).
//!
//! An [`EnumDef`] lists the cases of an enum with their keywords and values. It is used in two
//! ways, as in MLIR:
//!
//! - **Stored as an integer** (`I64EnumAttr`): the property is an integer attribute
//!   (`predicate = 2 : i64` in the generic form) and the declarative assembly format spells it as
//!   a keyword (`arith.cmpi slt, ...`). Declare the property's constraint with
//!   [`AttrConstraint::int_enum`](crate::registry::AttrConstraint::int_enum).
//! - **As a dialect attribute** (`EnumAttr<Dialect, Enum, "mnemonic">`): the property is an
//!   [`EnumAttr`] printed `#arith.overflow<nsw, nuw>`, and inside an op's format without the
//!   prefix (`overflow<nsw, nuw>`). Declare a [`DialectAttrDef`] with
//!   [`EnumDef::attr_def`]-style fields (`parse: parse_enum_attr`, `enum_def: Some(&E)`) and list
//!   it in the dialect; no other code is needed.
//!
//! A bit enum ([`EnumDef::bit`]) holds a set of flags: cases are single bits or named groups
//! of bits (`fast` in `fastmath`), printed groups first, then the remaining bits, in case order;
//! the case of value 0 (`none`) prints when no bit is set.

use crate::extensible::{AsmPrinter, DialectAttr, DialectAttrDef};
use crate::parser::AsmParser;
use crate::{Attr, Diagnostic, Uniquer};

/// One case of an enum.
#[derive(Clone, Copy, Debug)]
pub struct EnumCase {
    /// The keyword (`slt`, `nsw`).
    pub keyword: &'static str,
    /// Its value (for a bit enum: the bits it stands for).
    pub value: u64,
}

/// An enum declared as data.
#[derive(Clone, Copy, Debug)]
pub struct EnumDef {
    /// Name, for the docs (`CmpIPredicate`).
    pub name: &'static str,
    /// One line for the docs.
    pub summary: &'static str,
    /// The cases, in printing order.
    pub cases: &'static [EnumCase],
    /// For a bit enum, how the flags are separated when printed (`", "` or `","`); `None` for a
    /// plain enum.
    pub bit_separator: Option<&'static str>,
}

impl EnumDef {
    /// Whether this is a bit enum.
    pub fn is_bit(&self) -> bool {
        self.bit_separator.is_some()
    }

    /// The case of keyword `kw`.
    pub fn case(&self, kw: &str) -> Option<&'static EnumCase> {
        self.cases.iter().find(|c| c.keyword == kw)
    }

    /// The keyword of value `v` for a plain enum.
    pub fn keyword(&self, v: u64) -> Option<&'static str> {
        self.cases.iter().find(|c| c.value == v).map(|c| c.keyword)
    }

    /// Whether `v` is a value of the enum (for a bit enum: a union of its cases).
    pub fn is_valid(&self, v: u64) -> bool {
        if self.is_bit() {
            let all = self.cases.iter().fold(0, |acc, c| acc | c.value);
            v & !all == 0
        } else {
            self.cases.iter().any(|c| c.value == v)
        }
    }

    /// The keywords of the cases, joined by `sep`, for messages.
    pub fn keywords(&self, sep: &str) -> String {
        let v: Vec<&str> = self.cases.iter().map(|c| c.keyword).collect();
        v.join(sep)
    }

    /// Writes `v`: a keyword for a plain enum, flags for a bit enum (no angle brackets).
    pub fn write_value(&self, out: &mut String, v: u64) {
        let Some(sep) = self.bit_separator else {
            match self.keyword(v) {
                Some(kw) => out.push_str(kw),
                None => out.push_str(&v.to_string()),
            }
            return;
        };
        if v == 0 {
            out.push_str(self.keyword(0).unwrap_or("none"));
            return;
        }
        let mut rest = v;
        let mut first = true;
        let mut push = |out: &mut String, kw: &str| {
            if !first {
                out.push_str(sep);
            }
            first = false;
            out.push_str(kw);
        };
        // Groups (cases of several bits) first, when all their bits are set.
        for c in self.cases.iter().filter(|c| c.value.count_ones() > 1) {
            if rest & c.value == c.value {
                push(out, c.keyword);
                rest &= !c.value;
            }
        }
        for c in self.cases.iter().filter(|c| c.value.count_ones() == 1) {
            if rest & c.value != 0 {
                push(out, c.keyword);
                rest &= !c.value;
            }
        }
    }

    /// Parses a value: one keyword for a plain enum, comma-separated keywords for a bit enum.
    /// For a bit enum the caller reads the surrounding `<` `>`.
    pub fn parse_value(&self, p: &mut AsmParser<'_, '_>) -> Result<u64, Diagnostic> {
        let mut v = 0;
        loop {
            // Upstream's generated parser: a keyword or a string, then a lookup of the case.
            let pos = p.current_pos();
            let word = match p.parse_optional_keyword_any() {
                Some(w) => w,
                None => match p.parse_optional_string()? {
                    Some(s) => s,
                    None => return Err(p.emit_error("expected valid keyword or string")),
                },
            };
            let Some(c) = self.case(&word) else {
                return Err(p.emit_error_at_pos(
                    pos,
                    format!(
                        "expected {} to be one of: {}",
                        self.name,
                        self.keywords(", ")
                    ),
                ));
            };
            v |= c.value;
            if !self.is_bit() || !p.parse_optional_comma() {
                break;
            }
        }
        Ok(v)
    }

    /// The case whose keyword is the next token, if any (consumes nothing).
    fn peek_case(&self, p: &AsmParser<'_, '_>) -> Option<&'static EnumCase> {
        self.cases.iter().find(|c| p.peek_is(c.keyword))
    }

    /// Parses the keyword of an enum stored in the integer property `attr_name` (MLIR's
    /// `I64EnumAttr` in an assembly format), with upstream's message when it is not one.
    pub fn parse_keyword_for(
        &self,
        p: &mut AsmParser<'_, '_>,
        attr_name: &str,
    ) -> Result<u64, Diagnostic> {
        match self.peek_case(p) {
            Some(c) => {
                p.parse_keyword_any()?;
                Ok(c.value)
            }
            None => Err(p.emit_error(format!(
                "expected string or keyword containing one of the following enum values for \
                 attribute '{attr_name}' [{}]",
                self.keywords(", ")
            ))),
        }
    }
}

/// An enum value as a dialect attribute (`#arith.overflow<nsw>`): the storage every enum
/// attribute shares.
#[derive(Clone, Copy, Debug)]
pub struct EnumAttr {
    /// The attribute kind.
    pub def: &'static DialectAttrDef,
    /// The value.
    pub value: u64,
}

impl PartialEq for EnumAttr {
    fn eq(&self, other: &EnumAttr) -> bool {
        self.value == other.value
            && self.def.dialect == other.def.dialect
            && self.def.mnemonic == other.def.mnemonic
    }
}

impl Eq for EnumAttr {}

impl std::hash::Hash for EnumAttr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.def.dialect.hash(state);
        self.def.mnemonic.hash(state);
        self.value.hash(state);
    }
}

impl EnumAttr {
    /// The enum of this attribute kind.
    pub fn enum_def(&self) -> &'static EnumDef {
        self.def
            .enum_def
            .expect("invariant: an EnumAttr's definition names its enum")
    }
}

impl DialectAttr for EnumAttr {
    fn def(&self) -> &'static DialectAttrDef {
        self.def
    }
    fn print(&self, p: &mut AsmPrinter<'_>) {
        let mut s = String::from("<");
        self.enum_def().write_value(&mut s, self.value);
        s.push('>');
        p.write_str(&s);
    }
}

impl DialectAttrDef {
    /// The enum attribute of this kind with value `value`.
    pub fn enum_attr(&'static self, u: &mut Uniquer, value: u64) -> Attr {
        u.dialect_attr(EnumAttr { def: self, value })
    }
}

impl Uniquer {
    /// The value of `attr` if it is an enum attribute of kind `def`.
    pub fn enum_value(&self, attr: Attr, def: &'static DialectAttrDef) -> Option<u64> {
        let e = self.attr_as::<EnumAttr>(attr)?;
        (e.def.dialect == def.dialect && e.def.mnemonic == def.mnemonic).then_some(e.value)
    }
}

/// The parse hook of every enum attribute: `<case>` or `<flag, flag>`.
pub fn parse_enum_attr(
    p: &mut AsmParser<'_, '_>,
    def: &'static DialectAttrDef,
) -> Result<Attr, Diagnostic> {
    let Some(e) = def.enum_def else {
        return Err(p.emit_error(format!(
            "invariant: '#{}.{}' is parsed as an enum but names no enum",
            def.dialect, def.mnemonic
        )));
    };
    p.parse_less()?;
    let value = e.parse_value(p)?;
    p.parse_greater()?;
    Ok(def.enum_attr(p.ctx(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    static FLAGS: EnumDef = EnumDef {
        name: "Flags",
        summary: "test flags",
        cases: &[
            EnumCase {
                keyword: "none",
                value: 0,
            },
            EnumCase {
                keyword: "a",
                value: 1,
            },
            EnumCase {
                keyword: "b",
                value: 2,
            },
            EnumCase {
                keyword: "c",
                value: 4,
            },
            EnumCase {
                keyword: "all",
                value: 7,
            },
        ],
        bit_separator: Some(", "),
    };

    fn check(v: u64, want: &str) {
        let mut s = String::new();
        FLAGS.write_value(&mut s, v);
        assert_eq!(s, want);
    }

    #[test]
    fn bit_enums_print_groups_first_then_bits_in_case_order() {
        check(0, "none");
        check(1, "a");
        check(3, "a, b");
        check(6, "b, c");
        check(7, "all");
        assert!(FLAGS.is_valid(5));
        assert!(!FLAGS.is_valid(8));
    }
}
