//! The attributes of the `linalg` dialect: the iterator type of a loop,
//! `#linalg.iterator_type<parallel>` or `<reduction>`, an enum attribute as upstream's.

use nart_ir::enums::{parse_enum_attr, EnumCase, EnumDef};
use nart_ir::extensible::DialectAttrDef;
use nart_ir::registry::AttrConstraint;
use nart_ir::{Attr, AttrData, Context, Uniquer};

/// How a loop of a structured op iterates.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum IteratorType {
    /// Iterations are independent.
    Parallel,
    /// Iterations accumulate into the same init elements.
    Reduction,
}

impl IteratorType {
    /// `parallel` or `reduction`.
    pub fn keyword(self) -> &'static str {
        match self {
            IteratorType::Parallel => "parallel",
            IteratorType::Reduction => "reduction",
        }
    }

    /// The iterator type of keyword `kw`.
    pub fn from_keyword(kw: &str) -> Option<IteratorType> {
        match kw {
            "parallel" => Some(IteratorType::Parallel),
            "reduction" => Some(IteratorType::Reduction),
            _ => None,
        }
    }
}

/// `IteratorType`: `parallel` (0) and `reduction` (1).
pub static ITERATOR_TYPE_ENUM: EnumDef = EnumDef {
    name: "::mlir::utils::IteratorType",
    summary: "Iterator type",
    cases: &[
        EnumCase {
            keyword: "parallel",
            value: 0,
        },
        EnumCase {
            keyword: "reduction",
            value: 1,
        },
    ],
    bit_separator: None,
};

/// `#linalg.iterator_type<...>`.
pub static ITERATOR_TYPE: DialectAttrDef = DialectAttrDef {
    dialect: "linalg",
    mnemonic: "iterator_type",
    summary: "Iterator type",
    syntax: "#linalg.iterator_type<parallel | reduction>",
    parse: parse_enum_attr,
    enum_def: Some(&ITERATOR_TYPE_ENUM),
};

/// Every attribute of the dialect.
pub static ATTRS: [&DialectAttrDef; 1] = [&ITERATOR_TYPE];

/// Every enum of the dialect.
pub static ENUMS: [&EnumDef; 1] = [&ITERATOR_TYPE_ENUM];

/// `#linalg.iterator_type<kind>`.
pub fn iterator_type_attr(u: &mut Uniquer, kind: IteratorType) -> Attr {
    ITERATOR_TYPE.enum_attr(u, kind as u64)
}

/// The iterator type held by `a`: an `#linalg.iterator_type` attribute.
pub fn iterator_type_of(ctx: &Context, a: Attr) -> Option<IteratorType> {
    match ctx.enum_value(a, &ITERATOR_TYPE)? {
        0 => Some(IteratorType::Parallel),
        1 => Some(IteratorType::Reduction),
        _ => None,
    }
}

/// Arrays of `AffineMapAttr`.
pub const AFFINE_MAP_ARRAY: AttrConstraint =
    AttrConstraint::new("AffineMap array attribute", is_map_array);

fn is_map_array(ctx: &Context, a: Attr) -> bool {
    matches!(ctx.attr_data(a), AttrData::Array(items)
        if items.iter().all(|&m| matches!(ctx.attr_data(m), AttrData::AffineMap(_))))
}

/// Arrays of iterator types.
pub const ITERATOR_TYPE_ARRAY: AttrConstraint =
    AttrConstraint::new("Iterator type should be an enum.", is_iterator_array);

fn is_iterator_array(ctx: &Context, a: Attr) -> bool {
    matches!(ctx.attr_data(a), AttrData::Array(items)
        if items.iter().all(|&i| iterator_type_of(ctx, i).is_some()))
}

/// `dense<[a, b]> : tensor<2xi64>` attributes (convolution strides and dilations).
pub const I64_ELEMENTS_2: AttrConstraint = AttrConstraint::new(
    "64-bit signless int elements attribute of shape [2]",
    is_i64_elements_2,
);

fn is_i64_elements_2(ctx: &Context, a: Attr) -> bool {
    i64_elements(ctx, a).is_some_and(|v| v.len() == 2)
}

/// The values of an `i64` dense elements attribute.
pub fn i64_elements(ctx: &Context, a: Attr) -> Option<Vec<i64>> {
    let AttrData::DenseElements { ty, data } = ctx.attr_data(a) else {
        return None;
    };
    let shape = ctx.shape_of(*ty)?;
    if ctx.type_data(ctx.element_type(*ty)) != &nart_ir::TypeData::int(64) {
        return None;
    }
    let n: i64 = shape.iter().product();
    let bytes = match data {
        nart_ir::DenseData::Splat(b) => b.repeat(n as usize),
        nart_ir::DenseData::Elements(b) => b.clone(),
        nart_ir::DenseData::Strings { .. } => return None,
    };
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("invariant: chunks of 8 bytes")))
            .collect(),
    )
}

/// `dense<[a, b]> : tensor<2xi64>` (a splat when equal, as MLIR prints it).
pub fn i64_elements_attr(u: &mut Uniquer, vals: &[i64]) -> Attr {
    let i64t = u.int_type(64);
    let ty = u.tensor_type(vec![vals.len() as i64], i64t);
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    u.intern_attr(AttrData::DenseElements {
        ty,
        data: nart_ir::DenseData::Elements(bytes),
    })
}
