//! Type and attribute constraints of the graph dialect, and the mapping between ONNX element
//! type codes (`TensorProto.DataType`) and builtin element types.
//!
//! ONNX `uint8` is `ui8`, `int8` is `i8` (signless, read as signed), `bool` is `i1`, `string` is
//! `!graph.string`; sequences are `!graph.seq<...>` and optionals `!graph.opt<...>`.

use nart_ir::registry::AttrConstraint;
use nart_ir::{AttrData, Context, DenseArrayData, FloatKind, Signedness, Type, TypeData};

/// The element type for an ONNX `TensorProto.DataType` code.
pub fn elem_type_data(code: i32) -> Option<TypeData> {
    use Signedness::{Signless, Unsigned};
    let int = |width, signedness| TypeData::Integer { width, signedness };
    Some(match code {
        1 => TypeData::Float(FloatKind::F32),
        2 => int(8, Unsigned),
        3 => int(8, Signless),
        4 => int(16, Unsigned),
        5 => int(16, Signless),
        6 => int(32, Signless),
        7 => int(64, Signless),
        8 => string_type_data(),
        9 => int(1, Signless),
        10 => TypeData::Float(FloatKind::F16),
        11 => TypeData::Float(FloatKind::F64),
        12 => int(32, Unsigned),
        13 => int(64, Unsigned),
        16 => TypeData::Float(FloatKind::BF16),
        17 => TypeData::Float(FloatKind::F8E4M3FN),
        18 => TypeData::Float(FloatKind::F8E4M3FNUZ),
        19 => TypeData::Float(FloatKind::F8E5M2),
        20 => TypeData::Float(FloatKind::F8E5M2FNUZ),
        21 => int(4, Unsigned),
        22 => int(4, Signless),
        23 => TypeData::Float(FloatKind::F4E2M1FN),
        24 => TypeData::Float(FloatKind::F8E8M0FNU),
        25 => int(2, Unsigned),
        26 => int(2, Signless),
        _ => return None,
    })
}

/// `!graph.string`.
pub fn string_type_data() -> TypeData {
    TypeData::dialect(crate::types::StringType)
}

/// Interns the element type for an ONNX code; complex types become `complex<f32>`/`complex<f64>`.
pub fn elem_type(ctx: &mut Context, code: i32) -> Option<Type> {
    match code {
        14 => {
            let f = ctx.f32_type();
            Some(ctx.intern_type(TypeData::Complex(f)))
        }
        15 => {
            let f = ctx.float_type(FloatKind::F64);
            Some(ctx.intern_type(TypeData::Complex(f)))
        }
        _ => elem_type_data(code).map(|d| ctx.intern_type(d)),
    }
}

/// The ONNX code of an element type, if it has one.
pub fn onnx_code_of_data(ctx: &Context, data: &TypeData) -> Option<i32> {
    if let TypeData::Complex(inner) = data {
        return match ctx.type_data(*inner) {
            TypeData::Float(FloatKind::F32) => Some(14),
            TypeData::Float(FloatKind::F64) => Some(15),
            _ => None,
        };
    }
    (1..=26).find(|&c| elem_type_data(c).as_ref() == Some(data))
}

/// The ONNX code of an element type, if it has one.
pub fn onnx_code(ctx: &Context, elem: Type) -> Option<i32> {
    onnx_code_of_data(ctx, ctx.type_data(elem))
}

/// The element type of a tensor type, or the type itself.
pub fn elem_of(ctx: &Context, ty: Type) -> Type {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { elem, .. } | TypeData::UnrankedTensor { elem } => *elem,
        _ => ty,
    }
}

/// The check behind every generated operand constraint: a tensor whose element type has one of
/// `codes`, a sequence or optional type where allowed, or `none` where the operand is optional.
pub fn onnx_type_allowed(
    ctx: &Context,
    ty: Type,
    codes: &[i32],
    seq: bool,
    opt: bool,
    none: bool,
) -> bool {
    match ctx.type_data(ty) {
        TypeData::None => none,
        TypeData::RankedTensor { elem, .. } | TypeData::UnrankedTensor { elem } => {
            onnx_code(ctx, *elem).is_some_and(|c| codes.contains(&c))
        }
        d @ TypeData::Dialect(_) => {
            (seq && d.downcast::<crate::types::SeqType>().is_some())
                || (opt && d.downcast::<crate::types::OptType>().is_some())
        }
        _ => false,
    }
}

fn is_elem(ctx: &Context, ty: Type, want: &TypeData) -> bool {
    ctx.type_data(ty) == want
}

/// ONNX `INT`: a 64-bit signless integer attribute.
pub const I64_ATTR: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "64-bit signless integer attribute",
    check: |ctx, a| match ctx.attr_data(a) {
        AttrData::Integer { ty, .. } => is_elem(ctx, *ty, &TypeData::int(64)),
        _ => false,
    },
};

/// ONNX `FLOAT`: a 32-bit float attribute.
pub const F32_ATTR: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "32-bit float attribute",
    check: |ctx, a| match ctx.attr_data(a) {
        AttrData::Float { ty, .. } => is_elem(ctx, *ty, &TypeData::Float(FloatKind::F32)),
        _ => false,
    },
};

/// ONNX `STRING`: a string attribute.
pub const STR_ATTR: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "string attribute",
    check: |ctx, a| matches!(ctx.attr_data(a), AttrData::String { .. }),
};

/// ONNX `INTS`: `array<i64: ...>`.
pub const I64_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "i64 dense array attribute",
    check: |ctx, a| match ctx.attr_data(a) {
        AttrData::DenseArray {
            elem,
            data: DenseArrayData::Int(_),
        } => is_elem(ctx, *elem, &TypeData::int(64)),
        _ => false,
    },
};

/// ONNX `FLOATS`: `array<f32: ...>`.
pub const F32_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "f32 dense array attribute",
    check: |ctx, a| match ctx.attr_data(a) {
        AttrData::DenseArray {
            elem,
            data: DenseArrayData::Float(_),
        } => is_elem(ctx, *elem, &TypeData::Float(FloatKind::F32)),
        _ => false,
    },
};

/// ONNX `STRINGS`: an array of string attributes.
pub const STR_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "string array attribute",
    check: |ctx, a| match ctx.attr_data(a) {
        AttrData::Array(items) => items
            .iter()
            .all(|&i| matches!(ctx.attr_data(i), AttrData::String { .. })),
        _ => false,
    },
};

/// ONNX `TENSOR`: a dense elements (or dense resource) attribute.
pub const ELEMENTS_ATTR: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "elements attribute",
    check: |ctx, a| {
        matches!(
            ctx.attr_data(a),
            AttrData::DenseElements { .. } | AttrData::DenseResource { .. }
        )
    },
};

/// ONNX `TYPE_PROTO`: a type attribute.
pub const TYPE_ATTR: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "type attribute",
    check: |ctx, a| matches!(ctx.attr_data(a), AttrData::Type(_)),
};

/// ONNX `TYPE_PROTOS`: an array of type attributes.
pub const TYPE_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "array of type attributes",
    check: |ctx, a| match ctx.attr_data(a) {
        AttrData::Array(items) => items
            .iter()
            .all(|&i| matches!(ctx.attr_data(i), AttrData::Type(_))),
        _ => false,
    },
};

/// Any attribute.
pub const ANY_ATTR: AttrConstraint = nart_ir::registry::constraints::ANY_ATTR;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_element_types() {
        let mut ctx = Context::new();
        for code in (1..=26).filter(|c| ![14, 15].contains(c)) {
            let ty = elem_type(&mut ctx, code).expect("known code");
            assert_eq!(onnx_code(&ctx, ty), Some(code), "code {code}");
        }
        let c64 = elem_type(&mut ctx, 14).unwrap();
        assert_eq!(onnx_code(&ctx, c64), Some(14));
        assert!(elem_type(&mut ctx, 99).is_none());
    }

    #[test]
    fn operand_check_accepts_listed_tensors_and_none() {
        let mut ctx = Context::new();
        let f32 = ctx.f32_type();
        let t = ctx.tensor_type(vec![2], f32);
        let none = ctx.none_type();
        assert!(onnx_type_allowed(&ctx, t, &[1], false, false, false));
        assert!(!onnx_type_allowed(&ctx, t, &[7], false, false, false));
        assert!(onnx_type_allowed(&ctx, none, &[1], false, false, true));
        assert!(!onnx_type_allowed(&ctx, none, &[1], false, false, false));
    }
}
