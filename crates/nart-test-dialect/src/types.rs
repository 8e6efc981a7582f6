//! The dialect's own type and attribute: `!test.int<N>`, a type with typed storage, a parser, a
//! printer and a verifier (see `nart_ir::extensible`), and `#test.flags<...>`, a bit-enum
//! attribute declared as data (see `nart_ir::enums`).

use nart_ir::enums::{parse_enum_attr, EnumCase, EnumDef};
use nart_ir::extensible::{AsmPrinter, DialectAttrDef, DialectType, DialectTypeDef};
use nart_ir::parser::AsmParser;
use nart_ir::{Attr, Context, Diagnostic, Type, Uniquer};

/// `!test.int<N>`: an integer of `N` bits, `N` from 1 to 128.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct IntType {
    /// The width in bits.
    pub width: u32,
}

/// The declaration of `!test.int`.
pub static INT: DialectTypeDef = DialectTypeDef {
    dialect: "test",
    mnemonic: "int",
    summary: "an integer of N bits",
    syntax: "!test.int<N>",
    parse: parse_int,
};

fn parse_int(p: &mut AsmParser<'_, '_>) -> Result<Type, Diagnostic> {
    p.parse_less()?;
    let n = p.parse_integer()?;
    let Ok(width) = u32::try_from(n) else {
        return Err(p.emit_error(format!("'!test.int' width must be positive, got {n}")));
    };
    p.parse_greater()?;
    Ok(p.ctx().dialect_type(IntType { width }))
}

impl DialectType for IntType {
    fn def(&self) -> &'static DialectTypeDef {
        &INT
    }
    fn print(&self, p: &mut AsmPrinter<'_>) {
        p.write_str(&format!("<{}>", self.width));
    }
    fn verify(&self, _: &Context) -> Result<(), String> {
        if (1..=128).contains(&self.width) {
            Ok(())
        } else {
            Err(format!(
                "'!test.int' width must be between 1 and 128, got {}",
                self.width
            ))
        }
    }
}

/// `!test.int<width>`.
pub fn int_type(u: &mut Uniquer, width: u32) -> Type {
    u.dialect_type(IntType { width })
}

/// `TestFlags`: a bit enum of three flags, `all` being all of them.
pub static TEST_FLAGS: EnumDef = EnumDef {
    name: "TestFlags",
    summary: "three test flags",
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

/// `#test.flags<...>`.
pub static FLAGS: DialectAttrDef = DialectAttrDef {
    dialect: "test",
    mnemonic: "flags",
    summary: "some of the flags a, b, c",
    syntax: "#test.flags<none | all | a, b, c>",
    parse: parse_enum_attr,
    enum_def: Some(&TEST_FLAGS),
};

/// Every type of the dialect.
pub static TYPES: [&DialectTypeDef; 1] = [&INT];

/// Every attribute of the dialect.
pub static ATTRS: [&DialectAttrDef; 1] = [&FLAGS];

/// Every enum of the dialect.
pub static ENUMS: [&EnumDef; 1] = [&TEST_FLAGS];

/// `#test.flags<...>` of the flags in `bits`.
pub fn flags_attr(u: &mut Uniquer, bits: u64) -> Attr {
    FLAGS.enum_attr(u, bits)
}
