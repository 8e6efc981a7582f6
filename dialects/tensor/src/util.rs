//! Helpers shared by the ops with mixed static and dynamic index lists (upstream's
//! `custom<DynamicIndexList>`): `[0, %i, 4]` is stored as a dense `i64` array with
//! [`DYNAMIC`] where an SSA value stands, plus the values as operands (read and written by
//! `OpAsmParser::parse_dynamic_index_list` and `OpAsmPrinter::print_dynamic_index_list`).

use nart_ir::registry::AttrConstraint;
use nart_ir::{Attr, AttrData, Context, DenseArrayData, Uniquer, DYNAMIC};

/// `array<i64: ...>` attributes.
pub const DENSE_I64_ARRAY: AttrConstraint =
    AttrConstraint::new("i64 dense array attribute", is_dense_i64);

fn is_dense_i64(ctx: &Context, a: Attr) -> bool {
    matches!(ctx.attr_data(a), AttrData::DenseArray { elem, data: DenseArrayData::Int(_) }
        if ctx.type_data(*elem) == &nart_ir::TypeData::int(64))
}

/// `array<i64: vals...>`.
pub fn dense_i64(u: &mut Uniquer, vals: &[i64]) -> Attr {
    let elem = u.int_type(64);
    u.intern_attr(AttrData::DenseArray {
        elem,
        data: DenseArrayData::Int(vals.to_vec()),
    })
}

/// The elements of an integer dense array attribute.
pub fn dense_ints(ctx: &Context, a: Attr) -> Option<Vec<i64>> {
    match ctx.attr_data(a) {
        AttrData::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        } => Some(v.clone()),
        _ => None,
    }
}

/// The elements of the integer dense array property `name` of `op` (empty when absent).
pub fn dense_prop(ctx: &Context, op: nart_ir::Op, name: &str) -> Vec<i64> {
    ctx.attr(op, name)
        .and_then(|a| dense_ints(ctx, a))
        .unwrap_or_default()
}

/// The number of [`DYNAMIC`] entries.
pub fn count_dynamic(statics: &[i64]) -> usize {
    statics.iter().filter(|&&s| s == DYNAMIC).count()
}

/// Writes a shape as upstream does in messages: `4x?x8`.
pub fn shape_str(shape: &[i64]) -> String {
    let v: Vec<String> = shape
        .iter()
        .map(|&d| {
            if d == DYNAMIC {
                "?".to_string()
            } else {
                d.to_string()
            }
        })
        .collect();
    v.join("x")
}
