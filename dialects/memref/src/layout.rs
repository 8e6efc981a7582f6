//! Strided layouts of memref types: the strides and offset a memref type stands for, and the
//! type of a strided view (what `memref.subview` and `memref.reinterpret_cast` produce).

use nart_ir::{AttrData, Context, Type, TypeData, Uniquer, DYNAMIC};

/// The row-major strides of `shape` (the identity layout): the innermost is 1, each other the
/// product of the sizes inside it, dynamic from the first dynamic size inward-out.
pub fn row_major_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; shape.len()];
    let mut running = 1i64;
    for i in (0..shape.len()).rev() {
        strides[i] = running;
        running = match (running, shape[i]) {
            (DYNAMIC, _) | (_, DYNAMIC) => DYNAMIC,
            (r, s) => r.checked_mul(s).unwrap_or(DYNAMIC),
        };
    }
    strides
}

/// The shape, strides and offset of a ranked memref type with the identity or a strided
/// layout; `None` for other types and layouts (affine maps other than the identity).
pub fn strides_and_offset(ctx: &Context, ty: Type) -> Option<(Vec<i64>, Vec<i64>, i64)> {
    let TypeData::MemRef { shape, layout, .. } = ctx.type_data(ty) else {
        return None;
    };
    match layout.map(|l| ctx.attr_data(l)) {
        None => Some((shape.clone(), row_major_strides(shape), 0)),
        Some(AttrData::StridedLayout { strides, offset }) if strides.len() == shape.len() => {
            Some((shape.clone(), strides.clone(), *offset))
        }
        Some(AttrData::AffineMap(m)) if is_identity(m) => {
            Some((shape.clone(), row_major_strides(shape), 0))
        }
        _ => None,
    }
}

/// `a * b` where either may be dynamic.
pub fn mul(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC {
        DYNAMIC
    } else {
        a.checked_mul(b).unwrap_or(DYNAMIC)
    }
}

/// `a + b` where either may be dynamic.
pub fn add(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC {
        DYNAMIC
    } else {
        a.checked_add(b).unwrap_or(DYNAMIC)
    }
}

/// The memref type of `shape` and `elem` with `strides` and `offset`: a `strided<...>`
/// layout (upstream keeps the strided layout even where it equals the identity).
pub fn strided_type(
    u: &mut Uniquer,
    shape: Vec<i64>,
    elem: Type,
    strides: Vec<i64>,
    offset: i64,
    memory_space: Option<nart_ir::Attr>,
) -> Type {
    let layout = u.intern_attr(AttrData::StridedLayout { strides, offset });
    u.intern_type(TypeData::MemRef {
        shape,
        elem,
        layout: Some(layout),
        memory_space,
    })
}

/// Whether `m` is `(d0, ..., dn) -> (d0, ..., dn)`.
pub fn is_identity(m: &nart_ir::AffineMap) -> bool {
    m.num_symbols == 0
        && m.results.len() == m.num_dims as usize
        && m.results
            .iter()
            .enumerate()
            .all(|(i, e)| *e == nart_ir::AffineExpr::Dim(i as u32))
}

/// The number of symbols of a memref type's layout (an affine map's; 0 for the others).
pub fn layout_symbols(ctx: &Context, ty: Type) -> usize {
    match ctx.type_data(ty) {
        TypeData::MemRef {
            layout: Some(l), ..
        } => match ctx.attr_data(*l) {
            AttrData::AffineMap(m) => m.num_symbols as usize,
            _ => 0,
        },
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_strides_stop_at_dynamic_sizes() {
        assert_eq!(row_major_strides(&[8, 16]), vec![16, 1]);
        assert_eq!(row_major_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(row_major_strides(&[4, DYNAMIC, 2]), vec![DYNAMIC, 2, 1]);
        assert_eq!(row_major_strides(&[]), Vec::<i64>::new());
    }

    #[test]
    fn arithmetic_keeps_dynamic() {
        assert_eq!(mul(3, 4), 12);
        assert_eq!(mul(DYNAMIC, 4), DYNAMIC);
        assert_eq!(add(3, DYNAMIC), DYNAMIC);
        assert_eq!(add(i64::MAX, 1), DYNAMIC);
    }

    #[test]
    fn strides_of_memref_types() {
        let mut ctx = Context::new();
        let f32t = ctx.f32_type();
        let plain = ctx.intern_type(TypeData::MemRef {
            shape: vec![8, 16],
            elem: f32t,
            layout: None,
            memory_space: None,
        });
        assert_eq!(
            strides_and_offset(&ctx, plain),
            Some((vec![8, 16], vec![16, 1], 0))
        );
        let strided = strided_type(&mut ctx, vec![2, 4], f32t, vec![16, 2], DYNAMIC, None);
        assert_eq!(
            strides_and_offset(&ctx, strided),
            Some((vec![2, 4], vec![16, 2], DYNAMIC))
        );
        assert_eq!(layout_symbols(&ctx, strided), 0);
        assert_eq!(strides_and_offset(&ctx, f32t), None);
    }
}
