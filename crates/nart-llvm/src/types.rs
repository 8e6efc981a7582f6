//! The type converter: nart's builtin types to LLVM IR types.
//!
//! | nart | LLVM IR |
//! |---|---|
//! | `iN` (signless, signed or unsigned) | `iN` |
//! | `index` | `i64` (every target nart compiles for is 64-bit) |
//! | `f16`, `bf16`, `f32`, `f64`, `f80`, `f128` | `half`, `bfloat`, `float`, `double`, `x86_fp80`, `fp128` |
//! | `vector<NxT>` (one fixed dimension) | `<N x T>` |
//! | `memref<...xT>` | the descriptor `{ptr, ptr, i64, [rank x i64], [rank x i64]}` |
//! | function results | `void`, the one result, or a literal struct of them |
//! | `(inputs) -> results` as a value | `ptr` (to the function) |
//!
//! Anything else (tensors, multi-dimensional or scalable vectors, the small float formats)
//! has no LLVM IR equivalent and is reported where it is used.

use std::num::NonZeroU32;

use inkwell::context::Context as LlContext;
use inkwell::types::{BasicType, BasicTypeEnum, StructType};
use inkwell::AddressSpace;
use nart_ir::{Context, FloatKind, Type, TypeData};

/// Bits of `index` on every target nart compiles for.
pub const INDEX_BITS: u32 = 64;

/// The LLVM type of a nart value type, or `None` when it has none.
pub fn convert<'ll>(ir: &Context, ll: &'ll LlContext, ty: Type) -> Option<BasicTypeEnum<'ll>> {
    match ir.type_data(ty) {
        TypeData::Integer { width, .. } => {
            let w = NonZeroU32::new(*width)?;
            Some(ll.custom_width_int_type(w).ok()?.into())
        }
        TypeData::Index => Some(ll.i64_type().into()),
        TypeData::Float(kind) => Some(float_type(ll, *kind)?.into()),
        TypeData::Vector {
            shape,
            scalable,
            elem,
        } => {
            if shape.len() != 1 || scalable.iter().any(|&s| s) || shape[0] <= 0 {
                return None;
            }
            let n = u32::try_from(shape[0]).ok()?;
            match convert(ir, ll, *elem)? {
                BasicTypeEnum::IntType(t) => Some(t.vec_type(n).into()),
                BasicTypeEnum::FloatType(t) => Some(t.vec_type(n).into()),
                _ => None,
            }
        }
        // A function value (`func.constant`, the callee of `func.call_indirect`) is a pointer.
        TypeData::Function { inputs, results } => {
            for &t in inputs.iter().chain(results) {
                convert(ir, ll, t)?;
            }
            Some(ll.ptr_type(AddressSpace::default()).into())
        }
        TypeData::MemRef { shape, elem, .. } => {
            // The element type must itself be convertible for loads and stores.
            convert(ir, ll, *elem)?;
            Some(descriptor_type(ll, shape.len() as u32).into())
        }
        _ => None,
    }
}

/// The LLVM float type of a float kind, or `None` for formats LLVM has no type for.
pub fn float_type(ll: &LlContext, kind: FloatKind) -> Option<inkwell::types::FloatType<'_>> {
    Some(match kind {
        FloatKind::F16 => ll.f16_type(),
        FloatKind::BF16 => ll.bf16_type(),
        FloatKind::F32 => ll.f32_type(),
        FloatKind::F64 => ll.f64_type(),
        FloatKind::F80 => ll.x86_f80_type(),
        FloatKind::F128 => ll.f128_type(),
        _ => return None,
    })
}

/// The memref descriptor of a rank, laid out as upstream MLIR's:
/// `{ptr allocated, ptr aligned, i64 offset, [rank x i64] sizes, [rank x i64] strides}`
/// (rank 0 has no size and stride arrays).
pub fn descriptor_type(ll: &LlContext, rank: u32) -> StructType<'_> {
    let ptr = ll.ptr_type(AddressSpace::default());
    let i64t = ll.i64_type();
    let mut fields: Vec<BasicTypeEnum> = vec![ptr.into(), ptr.into(), i64t.into()];
    if rank > 0 {
        fields.push(i64t.array_type(rank).into());
        fields.push(i64t.array_type(rank).into());
    }
    ll.struct_type(&fields, false)
}

/// Whether `ty` converts to an LLVM type.
pub fn is_convertible(ir: &Context, ll: &LlContext, ty: Type) -> bool {
    convert(ir, ll, ty).is_some()
}

/// The return type of a function with these results: `None` for `void`, the type itself for
/// one result, a literal struct for several.
pub fn results_type<'ll>(
    ir: &Context,
    ll: &'ll LlContext,
    results: &[Type],
) -> Option<Option<BasicTypeEnum<'ll>>> {
    let tys = results
        .iter()
        .map(|&t| convert(ir, ll, t))
        .collect::<Option<Vec<_>>>()?;
    Some(match tys.len() {
        0 => None,
        1 => Some(tys[0]),
        _ => Some(ll.struct_type(&tys, false).as_basic_type_enum()),
    })
}
