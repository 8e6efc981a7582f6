//! Small IR helpers the passes share: names of ops and values (from their locations and the
//! function's argument attributes), constants as tensors, dense attributes from numbers, and
//! builders for the ops the passes insert.

use nart_ir::{
    AttrData, Context, DenseData, FloatKind, LocData, Location, Op, OperationState, Signedness,
    Type, TypeData, Value, ValueDef,
};
use nart_tensor::Tensor;

/// The name of an op: the name of its location (`conv1` for an ONNX node `conv1`), if it has
/// one.
pub fn op_name(ctx: &Context, op: Op) -> Option<String> {
    loc_name(ctx, ctx.op_loc(op))
}

/// The first name in a location.
pub fn loc_name(ctx: &Context, loc: Location) -> Option<String> {
    match ctx.loc_data(loc) {
        LocData::Name { name, .. } => Some(ctx.str(*name).to_string()),
        LocData::Fused { locs, .. } => locs.iter().find_map(|l| loc_name(ctx, *l)),
        LocData::CallSite { callee, .. } => loc_name(ctx, *callee),
        _ => None,
    }
}

/// The name of a value, as the parameter file and messages use it: a function argument's
/// `onnx.name`, the op's name for its first result, `name#k` for its result `k`.
pub fn value_name(ctx: &Context, v: Value) -> Option<String> {
    match ctx.value_def(v) {
        ValueDef::BlockArg { block, index } => {
            let func = ctx.block_parent_op(block)?;
            let dicts = ctx.attr(func, "arg_attrs")?;
            let AttrData::Array(items) = ctx.attr_data(dicts) else {
                return None;
            };
            let AttrData::Dictionary(entries) = ctx.attr_data(*items.get(index as usize)?) else {
                return None;
            };
            entries.iter().find_map(|e| {
                let key = ctx.str(e.name);
                (key == "onnx.name" || key == "name")
                    .then(|| ctx.attr_str(e.value).map(str::to_string))
                    .flatten()
            })
        }
        ValueDef::OpResult { op, index } => {
            let name = op_name(ctx, op)?;
            Some(if index == 0 {
                name
            } else {
                format!("{name}#{index}")
            })
        }
    }
}

/// A name for messages: the value's name, or its position.
pub fn describe_value(ctx: &Context, v: Value) -> String {
    value_name(ctx, v).unwrap_or_else(|| match ctx.value_def(v) {
        ValueDef::BlockArg { index, .. } => format!("argument #{index}"),
        ValueDef::OpResult { op, index } => {
            format!("result #{index} of '{}'", ctx.op_name_str(op))
        }
    })
}

/// The constant behind `v` as a tensor, if a constant op defines it.
pub fn constant_tensor(ctx: &Context, v: Value) -> Option<Tensor> {
    let attr = nart_ir::interfaces::constant_of(ctx, v)?;
    nart_interp::convert::tensor_from_attr(ctx, attr).ok()
}

/// The constant behind `v` as its shape and its elements in `f64`, if a constant op defines
/// it and its elements are numbers: [`constant_tensor`] then
/// [`Tensor::to_f64_vec`], but a dense `f32` constant is read from the attribute's bytes
/// without the tensor in between.
pub fn constant_f64(ctx: &Context, v: Value) -> Option<(Vec<usize>, Vec<f64>)> {
    let attr = nart_ir::interfaces::constant_of(ctx, v)?;
    if let Some((shape, bytes)) = nart_graph_opt::util::f32_elements(ctx, attr) {
        let values = bytes
            .chunks_exact(4)
            .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            .collect();
        return Some((shape, values));
    }
    let t = nart_interp::convert::tensor_from_attr(ctx, attr).ok()?;
    let values = t.to_f64_vec().ok()?;
    Some((t.shape().to_vec(), values))
}

/// The element type of a tensor type (or the type itself).
pub fn element_type(ctx: &Context, ty: Type) -> Type {
    ctx.element_type(ty)
}

/// Whether `ty` is a tensor of `f32`, `f64`, `f16` or `bf16`.
pub fn is_float_tensor(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_data(ty),
        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
    ) && matches!(ctx.type_data(ctx.element_type(ty)), TypeData::Float(_))
}

/// `ty` with its element type replaced by `elem` (tensor types; other types become `elem`).
pub fn with_element(ctx: &mut Context, ty: Type, elem: Type) -> Type {
    match ctx.type_data(ty).clone() {
        TypeData::RankedTensor { shape, .. } => ctx.tensor_type(shape, elem),
        TypeData::UnrankedTensor { .. } => ctx.intern_type(TypeData::UnrankedTensor { elem }),
        _ => elem,
    }
}

/// The static shape of a tensor type, with `None` for dynamic dimensions.
pub fn dims(ctx: &Context, ty: Type) -> Option<Vec<Option<usize>>> {
    ctx.shape_of(ty)
        .map(|s| s.iter().map(|&d| usize::try_from(d).ok()).collect())
}

/// An integer type: signless for signed storage (as ONNX's `int8` imports), `ui*` for unsigned.
pub fn int_type(ctx: &mut Context, bits: u32, signed: bool) -> Type {
    if signed {
        ctx.int_type(bits)
    } else {
        ctx.int_type_signed(bits, Signedness::Unsigned)
    }
}

/// A dense elements attribute of type `tensor<shape x elem>` holding `values` (integers
/// truncated to the element width, floats rounded to the element format).
pub fn dense_attr(
    ctx: &mut nart_ir::Uniquer,
    shape: &[usize],
    elem: Type,
    values: &[f64],
) -> nart_ir::Attr {
    let ty = ctx.tensor_type(shape.iter().map(|&d| d as i64).collect(), elem);
    let mut bytes = Vec::with_capacity(values.len() * ctx.dense_elem_bytes(ty).unwrap_or(4));
    match ctx.type_data(elem).clone() {
        TypeData::Integer { width, .. } => {
            let n = (width as usize).div_ceil(8);
            for &v in values {
                let i = v as i64;
                bytes.extend_from_slice(&i.to_le_bytes()[..n]);
            }
        }
        TypeData::Float(FloatKind::F16) => {
            for &v in values {
                bytes.extend_from_slice(&nart_tensor::halfround::f16_from_f64(v).to_le_bytes());
            }
        }
        TypeData::Float(FloatKind::BF16) => {
            for &v in values {
                bytes.extend_from_slice(&nart_tensor::halfround::bf16_from_f64(v).to_le_bytes());
            }
        }
        TypeData::Float(FloatKind::F64) => {
            for &v in values {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        _ => {
            for &v in values {
                bytes.extend_from_slice(&(v as f32).to_le_bytes());
            }
        }
    }
    ctx.intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    })
}

/// Builds an op before `anchor` and returns it.
pub fn insert_before(ctx: &mut Context, anchor: Op, state: OperationState) -> Op {
    let op = ctx.create_op(state);
    ctx.insert_op_before(anchor, op);
    op
}

/// Builds an op after `anchor` and returns it.
pub fn insert_after(ctx: &mut Context, anchor: Op, state: OperationState) -> Op {
    let op = ctx.create_op(state);
    ctx.insert_op_after(anchor, op);
    op
}

/// A `graph.constant` of `values` with the given shape and element type, before `anchor`.
pub fn constant_before(
    ctx: &mut Context,
    anchor: Op,
    loc: Location,
    shape: &[usize],
    elem: Type,
    values: &[f64],
) -> Value {
    let attr = dense_attr(ctx, shape, elem, values);
    constant_attr_before(ctx, anchor, loc, shape, elem, attr)
}

/// A `graph.constant` of the given shape and element type holding `bytes`, the packed
/// little-endian elements of a dense attribute, before `anchor`.
pub fn constant_bytes_before(
    ctx: &mut Context,
    anchor: Op,
    loc: Location,
    shape: &[usize],
    elem: Type,
    bytes: Vec<u8>,
) -> Value {
    let ty = ctx.tensor_type(shape.iter().map(|&d| d as i64).collect(), elem);
    let attr = ctx.intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    });
    constant_attr_before(ctx, anchor, loc, shape, elem, attr)
}

fn constant_attr_before(
    ctx: &mut Context,
    anchor: Op,
    loc: Location,
    shape: &[usize],
    elem: Type,
    attr: nart_ir::Attr,
) -> Value {
    let ty = ctx.tensor_type(shape.iter().map(|&d| d as i64).collect(), elem);
    let state = OperationState::new(ctx, "graph.constant", loc)
        .results(&[ty])
        .prop(ctx, "value", attr);
    let op = insert_before(ctx, anchor, state);
    ctx.result(op, 0)
}

/// A one-operand, one-result op (`quant.qcast` and its kind) after `anchor`; returns its
/// result.
pub fn unary_after(
    ctx: &mut Context,
    anchor: Op,
    name: &str,
    input: Value,
    result_ty: Type,
    loc: Location,
) -> Value {
    let state = OperationState::new(ctx, name, loc)
        .operands(&[input])
        .results(&[result_ty]);
    let op = insert_after(ctx, anchor, state);
    ctx.result(op, 0)
}

/// A one-operand, one-result op before `anchor`; returns its result.
pub fn unary_before(
    ctx: &mut Context,
    anchor: Op,
    name: &str,
    input: Value,
    result_ty: Type,
    loc: Location,
) -> Value {
    let state = OperationState::new(ctx, name, loc)
        .operands(&[input])
        .results(&[result_ty]);
    let op = insert_before(ctx, anchor, state);
    ctx.result(op, 0)
}

/// The location of a new op derived from `base`: the name `base_name/suffix` over `base`'s
/// file location, so that messages and parameter files name it.
pub fn derived_loc(ctx: &mut Context, base: Location, suffix: &str) -> Location {
    let name = match loc_name(ctx, base) {
        Some(n) => format!("{n}/{suffix}"),
        None => suffix.to_string(),
    };
    let child = match ctx.loc_data(base) {
        LocData::Name { child, .. } => *child,
        _ => Some(base),
    };
    let name = ctx.ident(&name);
    ctx.loc(LocData::Name { name, child })
}

/// The ops of the single block of `func`'s body, in order.
pub fn body_ops(ctx: &Context, func: Op) -> Vec<Op> {
    let Some(&region) = ctx.regions(func).first() else {
        return Vec::new();
    };
    ctx.region_blocks(region)
        .iter()
        .flat_map(|&b| ctx.block_ops_iter(b).collect::<Vec<_>>())
        .collect()
}

/// The entry block's arguments of `func`.
pub fn func_args(ctx: &Context, func: Op) -> Vec<Value> {
    ctx.regions(func)
        .first()
        .and_then(|&r| ctx.region_blocks(r).first().copied())
        .map(|b| ctx.block_args(b).to_vec())
        .unwrap_or_default()
}

/// The first op of `func`'s entry block.
pub fn first_op(ctx: &Context, func: Op) -> Option<Op> {
    let region = *ctx.regions(func).first()?;
    let block = *ctx.region_blocks(region).first()?;
    ctx.block_first_op(block)
}

/// The `func.func` ops of a module, or the op itself when it is one.
pub fn functions(ctx: &Context, root: Op) -> Vec<Op> {
    if ctx.op_name_str(root) == "func.func" {
        return vec![root];
    }
    ctx.collect_ops(root, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op) == "func.func")
        .collect()
}

/// Whether a glob pattern (`*` any run of characters, `?` one character) matches `name`.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni, mut star, mut mark) = (0, 0, None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("conv*", "conv1"));
        assert!(glob_match("*.q.*", "layers.0.attn.q.matmul"));
        assert!(glob_match("fc", "fc"));
        assert!(!glob_match("fc", "fc1"));
        assert!(glob_match("c?nv1", "conv1"));
        assert!(!glob_match("conv?", "conv12"));
        assert!(glob_match("*", ""));
    }
}
