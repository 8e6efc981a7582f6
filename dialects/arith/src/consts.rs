//! Reading and making constant attributes for folding: scalars (`42 : i32`, `1.5 : f32`) and
//! splat dense elements (`dense<7> : vector<4xi32>`).
//!
//! Integers are carried as [`ApInt`]s of their width (`index` counts as 64 bits) by the
//! folders, which so compute at every width, unsigned operations of `i128` and wider included;
//! [`Scalar`] carries them as `i128` sign-extended from their width, for the canonicalization
//! patterns, and holds no integer wider than 128 bits. Floats are `f64` holding a value exactly
//! representable in their format.

use nart_ir::apint::ApInt;
use nart_ir::util::{
    bf16_bits_to_f64, f16_bits_to_f64, f64_to_bf16_bits, f64_to_f16_bits, normalize_int,
};
use nart_ir::{Attr, AttrData, DenseData, FloatKind, Signedness, Type, TypeData, Uniquer};

/// Width used for folding `index` values (MLIR folds them as 64-bit integers).
pub const INDEX_WIDTH: u32 = 64;

/// A scalar constant value.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Scalar {
    /// An integer, sign-extended from its width.
    Int(i128),
    /// A float.
    Float(f64),
}

/// The integer width of a scalar type (`index` is 64), or `None` for non-integers.
pub fn int_width(ctx: &Uniquer, ty: Type) -> Option<u32> {
    match ctx.type_data(ty) {
        TypeData::Integer { width, .. } => Some(*width),
        TypeData::Index => Some(INDEX_WIDTH),
        _ => None,
    }
}

/// The float format of a scalar type whose values folders can compute exactly.
pub fn float_kind(ctx: &Uniquer, ty: Type) -> Option<FloatKind> {
    match ctx.type_data(ty) {
        TypeData::Float(
            k @ (FloatKind::F16 | FloatKind::BF16 | FloatKind::F32 | FloatKind::F64),
        ) => Some(*k),
        _ => None,
    }
}

/// Sign-extends `v` from `width` bits.
pub fn sext(v: i128, width: u32) -> i128 {
    normalize_int(v, width, Signedness::Signless)
}

/// Zero-extends `v` from `width` bits.
pub fn zext(v: i128, width: u32) -> i128 {
    normalize_int(v, width, Signedness::Unsigned)
}

/// Rounds `v` to the precision of `kind`.
pub fn round(v: f64, kind: FloatKind) -> f64 {
    nart_ir::util::round_to_float_kind(v, kind)
}

fn storage_bytes(ctx: &Uniquer, elem: Type) -> Option<usize> {
    if let Some(w) = int_width(ctx, elem) {
        return Some((w as usize).div_ceil(8).max(1));
    }
    float_kind(ctx, elem).map(|k| (k.width() as usize) / 8)
}

fn decode(ctx: &Uniquer, elem: Type, bytes: &[u8]) -> Option<Scalar> {
    if bytes.len() != storage_bytes(ctx, elem)? || int_width(ctx, elem).is_some_and(|w| w > 128) {
        return None;
    }
    let mut raw: u128 = 0;
    for (i, &b) in bytes.iter().enumerate().take(16) {
        raw |= (b as u128) << (8 * i);
    }
    if let Some(w) = int_width(ctx, elem) {
        return Some(Scalar::Int(sext(raw as i128, w)));
    }
    let v = match float_kind(ctx, elem)? {
        FloatKind::F16 => f16_bits_to_f64(raw as u16),
        FloatKind::BF16 => bf16_bits_to_f64(raw as u16),
        FloatKind::F32 => f32::from_bits(raw as u32) as f64,
        _ => f64::from_bits(raw as u64),
    };
    Some(Scalar::Float(v))
}

fn encode(ctx: &Uniquer, elem: Type, v: Scalar) -> Option<Vec<u8>> {
    let n = storage_bytes(ctx, elem)?;
    let raw: u128 = match (v, int_width(ctx, elem), float_kind(ctx, elem)) {
        (Scalar::Int(i), Some(w), _) => return Some(ApInt::from_i128(w, i).to_le_bytes(n)),
        (Scalar::Float(f), _, Some(k)) => match k {
            FloatKind::F16 => f64_to_f16_bits(f) as u128,
            FloatKind::BF16 => f64_to_bf16_bits(f) as u128,
            FloatKind::F32 => (f as f32).to_bits() as u128,
            _ => f.to_bits() as u128,
        },
        _ => return None,
    };
    Some((0..n).map(|i| (raw >> (8 * i)) as u8).collect())
}

/// The scalar value of a constant attribute and the type it has: a scalar integer or float
/// attribute, or a splat dense elements attribute (the type is then the shaped type).
pub fn scalar_of(ctx: &Uniquer, attr: Attr) -> Option<(Scalar, Type)> {
    match ctx.attr_data(attr) {
        AttrData::Integer { value, ty } => {
            let w = int_width(ctx, *ty)?;
            Some((Scalar::Int(sext(*value, w)), *ty))
        }
        AttrData::Float { bits, ty } => {
            float_kind(ctx, *ty)?;
            Some((Scalar::Float(f64::from_bits(*bits)), *ty))
        }
        AttrData::DenseElements {
            ty,
            data: DenseData::Splat(bytes),
        } => Some((decode(ctx, ctx.element_type(*ty), bytes)?, *ty)),
        AttrData::DenseElements {
            ty,
            data: DenseData::Elements(bytes),
        } => {
            // A dense attribute whose elements are all equal is a splat too.
            let elem = ctx.element_type(*ty);
            let n = storage_bytes(ctx, elem)?;
            let first = bytes.get(..n)?;
            if bytes.len() % n != 0 || bytes.chunks(n).any(|c| c != first) {
                return None;
            }
            Some((decode(ctx, elem, first)?, *ty))
        }
        _ => None,
    }
}

/// The value of a constant attribute (scalar or splat); `true`/`false` count as `i1`.
pub fn scalar_value(ctx: &Uniquer, attr: Attr) -> Option<Scalar> {
    scalar_of(ctx, attr).map(|(v, _)| v)
}

/// The integer value of a constant attribute (scalar or splat).
pub fn int_of(ctx: &Uniquer, attr: Attr) -> Option<i128> {
    match scalar_value(ctx, attr)? {
        Scalar::Int(i) => Some(i),
        Scalar::Float(_) => None,
    }
}

/// The float value of a constant attribute (scalar or splat).
pub fn float_of(ctx: &Uniquer, attr: Attr) -> Option<f64> {
    match scalar_value(ctx, attr)? {
        Scalar::Float(f) => Some(f),
        Scalar::Int(_) => None,
    }
}

/// A constant attribute of type `ty` holding `v` everywhere: a scalar attribute for a scalar
/// type, a splat dense elements attribute for a tensor or vector type.
pub fn make(ctx: &mut Uniquer, ty: Type, v: Scalar) -> Option<Attr> {
    let elem = ctx.element_type(ty);
    if elem != ty {
        if !matches!(
            ctx.type_data(ty),
            TypeData::RankedTensor { .. } | TypeData::Vector { .. }
        ) {
            return None;
        }
        let bytes = encode(ctx, elem, v)?;
        return Some(ctx.intern_attr(AttrData::DenseElements {
            ty,
            data: DenseData::Splat(bytes),
        }));
    }
    match (v, int_width(ctx, ty), float_kind(ctx, ty)) {
        (Scalar::Int(i), Some(w), _) => Some(ctx.apint_attr(ty, ApInt::from_i128(w, i))),
        (Scalar::Float(f), _, Some(_)) => Some(ctx.float_attr(ty, f)),
        _ => None,
    }
}

/// The integer value of a constant attribute (scalar or splat) at its element type's width,
/// whatever the width.
pub fn apint_of(ctx: &Uniquer, attr: Attr) -> Option<ApInt> {
    match ctx.attr_data(attr) {
        AttrData::Integer { .. } | AttrData::WideInteger { .. } => ctx.attr_apint(attr),
        AttrData::DenseElements { ty, data } => {
            let elem = ctx.element_type(*ty);
            let w = int_width(ctx, elem)?;
            let n = storage_bytes(ctx, elem)?;
            let first = match data {
                DenseData::Splat(b) => b.as_slice(),
                DenseData::Elements(b) => {
                    let first = b.get(..n)?;
                    if b.len() % n != 0 || b.chunks(n).any(|c| c != first) {
                        return None;
                    }
                    first
                }
                DenseData::Strings { .. } => return None,
            };
            (first.len() == n).then(|| ApInt::from_le_bytes(w, first))
        }
        _ => None,
    }
}

/// A constant attribute of the integer-like type `ty` holding `v` (of the element width)
/// everywhere, like [`make`].
pub fn make_int(ctx: &mut Uniquer, ty: Type, v: &ApInt) -> Option<Attr> {
    let elem = ctx.element_type(ty);
    let w = int_width(ctx, elem)?;
    if elem == ty {
        return Some(ctx.apint_attr(ty, v.zext(w)));
    }
    if !matches!(
        ctx.type_data(ty),
        TypeData::RankedTensor { .. } | TypeData::Vector { .. }
    ) {
        return None;
    }
    let n = storage_bytes(ctx, elem)?;
    Some(ctx.intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Splat(v.zext(w).to_le_bytes(n)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nart_ir::Context;

    #[test]
    fn scalars_and_splats_round_trip() {
        let mut ctx = Context::new();
        let i8t = ctx.int_type(8);
        let f16t = ctx.float_type(FloatKind::F16);
        let f32t = ctx.f32_type();
        let idx = ctx.index_type();
        let v8 = ctx.tensor_type(vec![4], i8t);
        let vf = ctx.tensor_type(vec![2, 2], f16t);
        let vi = ctx.tensor_type(vec![3], idx);
        let cases = [
            (i8t, Scalar::Int(-3)),
            (f32t, Scalar::Float(1.5)),
            (idx, Scalar::Int(1 << 40)),
            (v8, Scalar::Int(-128)),
            (vf, Scalar::Float(-0.5)),
            (vi, Scalar::Int(-7)),
        ];
        for (ty, v) in cases {
            let a = make(&mut ctx, ty, v).unwrap_or_else(|| unreachable!("{ty:?} is foldable"));
            assert_eq!(scalar_of(&ctx, a), Some((v, ty)));
        }
        // 200 wraps to -56 in i8.
        let a = make(&mut ctx, i8t, Scalar::Int(200)).unwrap_or_else(|| unreachable!());
        assert_eq!(int_of(&ctx, a), Some(-56));
    }

    #[test]
    fn equal_dense_elements_count_as_splat() {
        let mut ctx = Context::new();
        let i16t = ctx.int_type(16);
        let t = ctx.tensor_type(vec![3], i16t);
        let a = ctx.intern_attr(AttrData::DenseElements {
            ty: t,
            data: DenseData::Elements(vec![5, 0, 5, 0, 5, 0]),
        });
        assert_eq!(int_of(&ctx, a), Some(5));
        let b = ctx.intern_attr(AttrData::DenseElements {
            ty: t,
            data: DenseData::Elements(vec![5, 0, 6, 0, 5, 0]),
        });
        assert_eq!(int_of(&ctx, b), None);
    }
}
