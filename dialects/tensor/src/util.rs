//! Helpers shared by the ops with mixed static and dynamic index lists (upstream's
//! `custom<DynamicIndexList>`): `[0, %i, 4]` is stored as a dense `i64` array with
//! [`DYNAMIC`] where an SSA value stands, plus the values as operands.

use nart_ir::asm::{OpAsmParser, OpAsmPrinter};
use nart_ir::parser::UnresolvedOperand;
use nart_ir::registry::AttrConstraint;
use nart_ir::{Attr, AttrData, Context, DenseArrayData, Diagnostic, Uniquer, Value, DYNAMIC};

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

/// Reads `[a, %v, b]`: the static entries (with [`DYNAMIC`] for each value) and the values.
pub fn parse_index_list(
    p: &mut OpAsmParser<'_, '_>,
) -> Result<(Vec<i64>, Vec<UnresolvedOperand>), Diagnostic> {
    p.parse_lsquare()?;
    let mut statics = Vec::new();
    let mut dynamics = Vec::new();
    if p.peek_is("]") {
        p.parse_rsquare()?;
        return Ok((statics, dynamics));
    }
    loop {
        if let Some(v) = p.parse_optional_operand()? {
            statics.push(DYNAMIC);
            dynamics.push(v);
        } else {
            let v = p.parse_integer()?;
            let v = i64::try_from(v).map_err(|_| p.emit_error("integer out of range"))?;
            statics.push(v);
        }
        if !p.parse_optional_comma() {
            break;
        }
    }
    p.parse_rsquare()?;
    Ok((statics, dynamics))
}

/// Prints `[a, %v, b]` from the static entries and the values standing for [`DYNAMIC`] ones.
pub fn print_index_list(p: &mut OpAsmPrinter<'_>, statics: &[i64], dynamics: &[Value]) {
    p.write_str("[");
    let mut next = dynamics.iter();
    for (i, &s) in statics.iter().enumerate() {
        if i > 0 {
            p.write_str(", ");
        }
        if s == DYNAMIC {
            match next.next() {
                Some(&v) => p.print_operand(v),
                None => p.write_str("<<missing>>"),
            }
        } else {
            p.write_str(&s.to_string());
        }
    }
    p.write_str("]");
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
