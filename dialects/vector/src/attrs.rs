//! The attributes of the `vector` dialect: the combining kind of reductions and outer products
//! (`#vector.kind<add>`), declared as data.

use nart_ir::enums::{parse_enum_attr, EnumCase, EnumDef};
use nart_ir::extensible::DialectAttrDef;
use nart_ir::registry::AttrConstraint;
use nart_ir::{Attr, Uniquer};

const fn case(keyword: &'static str, value: u64) -> EnumCase {
    EnumCase { keyword, value }
}

/// `CombiningKind`: how a reduction combines two values.
pub static COMBINING_KIND: EnumDef = EnumDef {
    name: "::mlir::vector::CombiningKind",
    summary: "Kind of combining function for contractions and reductions",
    cases: &[
        case("add", 0),
        case("mul", 1),
        case("minui", 2),
        case("minsi", 3),
        case("minnumf", 4),
        case("maxui", 5),
        case("maxsi", 6),
        case("maxnumf", 7),
        case("and", 8),
        case("or", 9),
        case("xor", 10),
        case("maximumf", 11),
        case("minimumf", 12),
    ],
    bit_separator: None,
};

/// `#vector.kind<...>`.
pub static KIND: DialectAttrDef = DialectAttrDef {
    dialect: "vector",
    mnemonic: "kind",
    summary: "Kind of combining function for contractions and reductions",
    syntax: "#vector.kind<add | mul | minui | minsi | minnumf | maxui | maxsi | maxnumf | and | or | xor | maximumf | minimumf>",
    parse: parse_enum_attr,
    enum_def: Some(&COMBINING_KIND),
};

/// `IteratorType`: how a dimension of a contraction is iterated.
pub static ITERATOR_TYPE_ENUM: EnumDef = EnumDef {
    name: "::mlir::vector::IteratorType",
    summary: "Iterator type",
    cases: &[case("parallel", 0), case("reduction", 1)],
    bit_separator: None,
};

/// `#vector.iterator_type<...>`.
pub static ITERATOR_TYPE: DialectAttrDef = DialectAttrDef {
    dialect: "vector",
    mnemonic: "iterator_type",
    summary: "Iterator type",
    syntax: "#vector.iterator_type<parallel | reduction>",
    parse: parse_enum_attr,
    enum_def: Some(&ITERATOR_TYPE_ENUM),
};

/// Every attribute of the dialect.
pub static ATTRS: [&DialectAttrDef; 2] = [&KIND, &ITERATOR_TYPE];

/// Every enum of the dialect.
pub static ENUMS: [&EnumDef; 2] = [&COMBINING_KIND, &ITERATOR_TYPE_ENUM];

/// The constraint of `kind`.
pub const KIND_ATTR: AttrConstraint = AttrConstraint::dialect(
    "Kind of combining function for contractions and reductions",
    &KIND,
);

/// `#vector.kind<add>`, the default of `vector.outerproduct`'s `kind`.
pub fn kind_add(u: &mut Uniquer) -> Attr {
    KIND.enum_attr(u, 0)
}

/// The keyword of a combining kind attribute (`add`), if it is one.
pub fn kind_name(u: &Uniquer, a: Attr) -> Option<&'static str> {
    u.enum_value(a, &KIND)
        .and_then(|v| COMBINING_KIND.keyword(v))
}
