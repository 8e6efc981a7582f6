//! Type and shape inference for graph ops, and the verifier built on it.
//!
//! [`infer`] computes, from an op's operand types, attributes and constant operands, the
//! element type and shape of each result, with [`DYNAMIC`] dims where they are unknown.
//! It needs only `&Context`, so the verifier can call it; [`intern`] turns a result into a type.
//! [`verify_op`], the verifier of every generated op, reports inference errors MLIR-style
//! (`'graph.Add' op operands are not broadcast-compatible: ...`) and results whose declared type
//! contradicts the inferred one.

use nart_ir::{
    AttrData, Context, DenseArrayData, DenseData, Diagnostic, Op, Type, TypeData, DYNAMIC,
};

/// An inferred result: an element type and a shape (`None` when even the rank is unknown).
#[derive(Clone, Debug, PartialEq)]
pub struct Shaped {
    /// Element type.
    pub elem: TypeData,
    /// Dimensions, [`DYNAMIC`] where unknown; `None` for an unranked tensor.
    pub shape: Option<Vec<i64>>,
}

/// Per result: what inference knows (`None` where it knows nothing about that result).
pub type Results = Vec<Option<Shaped>>;

type R = Result<Option<Results>, String>;

/// Interns the tensor type of an inferred result.
pub fn intern(ctx: &mut Context, s: &Shaped) -> Type {
    let elem = ctx.intern_type(s.elem.clone());
    match &s.shape {
        Some(shape) => ctx.tensor_type(shape.clone(), elem),
        None => ctx.intern_type(TypeData::UnrankedTensor { elem }),
    }
}

/// Formats a type the way MLIR prints it, for messages (tensor, scalar and `none` types).
pub fn fmt_type(ctx: &Context, ty: Type) -> String {
    fmt_data(ctx, ctx.type_data(ty))
}

fn fmt_data(ctx: &Context, data: &TypeData) -> String {
    use nart_ir::Signedness;
    match data {
        TypeData::Integer { width, signedness } => match signedness {
            Signedness::Signless => format!("i{width}"),
            Signedness::Signed => format!("si{width}"),
            Signedness::Unsigned => format!("ui{width}"),
        },
        TypeData::Index => "index".into(),
        TypeData::Float(k) => k.keyword().into(),
        TypeData::None => "none".into(),
        TypeData::Complex(t) => format!("complex<{}>", fmt_type(ctx, *t)),
        TypeData::RankedTensor { shape, elem, .. } => {
            let mut s = String::from("tensor<");
            for &d in shape {
                if d == DYNAMIC {
                    s.push('?');
                } else {
                    s.push_str(&d.to_string());
                }
                s.push('x');
            }
            s.push_str(&fmt_type(ctx, *elem));
            s.push('>');
            s
        }
        TypeData::UnrankedTensor { elem } => format!("tensor<*x{}>", fmt_type(ctx, *elem)),
        _ => nart_ir::printer::type_data_to_string(ctx, data),
    }
}

/// Formats an inferred result.
pub fn fmt_shaped(ctx: &Context, s: &Shaped) -> String {
    let elem = fmt_data(ctx, &s.elem);
    match &s.shape {
        None => format!("tensor<*x{elem}>"),
        Some(shape) => {
            let mut out = String::from("tensor<");
            for &d in shape {
                if d == DYNAMIC {
                    out.push('?');
                } else {
                    out.push_str(&d.to_string());
                }
                out.push('x');
            }
            out.push_str(&elem);
            out.push('>');
            out
        }
    }
}

/// The verifier of every generated op: runs inference and compares it with the declared
/// result types.
pub fn verify_op(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let inferred = match infer(ctx, op) {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(()),
        Err(msg) => return Err(ctx.op_error(op, msg)),
    };
    for (i, (want, &res)) in inferred.iter().zip(ctx.results(op)).enumerate() {
        let Some(want) = want else { continue };
        let ty = ctx.value_type(res);
        if !compatible(ctx, want, ty) {
            return Err(ctx.op_error(
                op,
                format!(
                    "result #{i} has type {} but inference gives {}",
                    fmt_type(ctx, ty),
                    fmt_shaped(ctx, want)
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a declared type agrees with an inferred one (dynamic dims match anything).
pub fn compatible(ctx: &Context, want: &Shaped, ty: Type) -> bool {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, elem, .. } => {
            if ctx.type_data(*elem) != &want.elem {
                return false;
            }
            match &want.shape {
                None => true,
                Some(ws) => {
                    ws.len() == shape.len()
                        && ws
                            .iter()
                            .zip(shape)
                            .all(|(&a, &b)| a == DYNAMIC || b == DYNAMIC || a == b)
                }
            }
        }
        TypeData::UnrankedTensor { elem } => ctx.type_data(*elem) == &want.elem,
        // `none` results stand for absent optional outputs; other types are not checked here.
        _ => true,
    }
}

/// Merges two pieces of knowledge about one value: the more static wins, dim by dim.
pub fn refine(ctx: &mut Context, a: Type, b: &Shaped) -> Type {
    let (shape, elem) = match ctx.type_data(a).clone() {
        TypeData::RankedTensor { shape, elem, .. } => (Some(shape), elem),
        TypeData::UnrankedTensor { elem } => (None, elem),
        _ => return intern(ctx, b),
    };
    let merged = match (shape, &b.shape) {
        (Some(s), Some(t)) if s.len() == t.len() => Some(
            s.iter()
                .zip(t)
                .map(|(&x, &y)| if x == DYNAMIC { y } else { x })
                .collect(),
        ),
        (Some(s), _) => Some(s),
        (None, t) => t.clone(),
    };
    match merged {
        Some(shape) => ctx.tensor_type(shape, elem),
        None => ctx.intern_type(TypeData::UnrankedTensor { elem }),
    }
}

// ----- operand and attribute access -----

struct In<'a> {
    ctx: &'a Context,
    op: Op,
}

impl<'a> In<'a> {
    fn n(&self) -> usize {
        self.ctx.operands(self.op).len()
    }

    fn ty(&self, i: usize) -> Option<Type> {
        let ops = self.ctx.operands(self.op);
        let ty = self.ctx.value_type(*ops.get(i)?);
        match self.ctx.type_data(ty) {
            TypeData::None => None,
            _ => Some(ty),
        }
    }

    fn present(&self, i: usize) -> bool {
        self.ty(i).is_some()
    }

    /// Element type and shape of operand `i`.
    fn shaped(&self, i: usize) -> Result<Shaped, String> {
        let ty = self
            .ty(i)
            .ok_or_else(|| format!("operand #{i} is required"))?;
        match self.ctx.type_data(ty) {
            TypeData::RankedTensor { shape, elem, .. } => Ok(Shaped {
                elem: self.ctx.type_data(*elem).clone(),
                shape: Some(shape.clone()),
            }),
            TypeData::UnrankedTensor { elem } => Ok(Shaped {
                elem: self.ctx.type_data(*elem).clone(),
                shape: None,
            }),
            _ => Err(format!(
                "operand #{i} must be a tensor, but got {}",
                fmt_type(self.ctx, ty)
            )),
        }
    }

    fn type_str(&self, i: usize) -> String {
        self.ty(i)
            .map_or_else(|| "none".to_string(), |t| fmt_type(self.ctx, t))
    }

    /// The integer values of constant operand `i`, if it is a `graph.constant`.
    fn const_ints(&self, i: usize) -> Option<Vec<i64>> {
        let v = *self.ctx.operands(self.op).get(i)?;
        let def = self.ctx.defining_op(v)?;
        if self.ctx.op_name_str(def) != "graph.constant" {
            return None;
        }
        dense_ints(self.ctx, self.ctx.attr(def, "value")?)
    }

    /// The float values of constant operand `i`.
    fn const_floats(&self, i: usize) -> Option<Vec<f64>> {
        let v = *self.ctx.operands(self.op).get(i)?;
        let def = self.ctx.defining_op(v)?;
        if self.ctx.op_name_str(def) != "graph.constant" {
            return None;
        }
        dense_floats(self.ctx, self.ctx.attr(def, "value")?)
    }

    fn int(&self, name: &str, default: i64) -> i64 {
        self.ctx
            .attr(self.op, name)
            .and_then(|a| self.ctx.attr_int(a))
            .map_or(default, |v| v as i64)
    }

    fn ints(&self, name: &str) -> Option<Vec<i64>> {
        match self.ctx.attr_data(self.ctx.attr(self.op, name)?) {
            AttrData::DenseArray {
                data: DenseArrayData::Int(v),
                ..
            } => Some(v.clone()),
            _ => None,
        }
    }

    fn floats(&self, name: &str) -> Option<Vec<f64>> {
        match self.ctx.attr_data(self.ctx.attr(self.op, name)?) {
            AttrData::DenseArray {
                data: DenseArrayData::Float(v),
                ..
            } => Some(v.iter().map(|b| f64::from_bits(*b)).collect()),
            _ => None,
        }
    }

    fn string(&self, name: &str, default: &'static str) -> String {
        self.ctx
            .attr(self.op, name)
            .and_then(|a| self.ctx.attr_str(a))
            .unwrap_or(default)
            .to_string()
    }
}

/// The integer elements of a dense elements attribute with an integer element type.
pub fn dense_ints(ctx: &Context, attr: nart_ir::Attr) -> Option<Vec<i64>> {
    let AttrData::DenseElements { ty, data } = ctx.attr_data(attr) else {
        return None;
    };
    let (shape, elem) = match ctx.type_data(*ty) {
        TypeData::RankedTensor { shape, elem, .. } => (shape, *elem),
        _ => return None,
    };
    let (width, signed) = match ctx.type_data(elem) {
        TypeData::Integer { width, signedness } => {
            (*width, !matches!(signedness, nart_ir::Signedness::Unsigned))
        }
        _ => return None,
    };
    let bytes = width.div_ceil(8) as usize;
    let count: i64 = prod(shape);
    if count < 0 {
        return None;
    }
    let read = |chunk: &[u8]| -> i64 {
        let mut v: u64 = 0;
        for (k, b) in chunk.iter().enumerate() {
            v |= (*b as u64) << (8 * k);
        }
        let bits = (bytes * 8) as u32;
        if signed && bits < 64 && (v >> (bits - 1)) & 1 == 1 {
            (v | (!0u64 << bits)) as i64
        } else {
            v as i64
        }
    };
    match data {
        DenseData::Splat(b) if b.len() == bytes && count <= 1 << 20 => {
            Some(vec![read(b); count.max(0) as usize])
        }
        DenseData::Elements(b) if b.len() == bytes * count.max(0) as usize => {
            Some(b.chunks(bytes).map(read).collect())
        }
        _ => None,
    }
}

/// The float elements (f32/f64/f16) or integer elements (as floats) of a dense attribute.
pub fn dense_floats(ctx: &Context, attr: nart_ir::Attr) -> Option<Vec<f64>> {
    let AttrData::DenseElements { ty, data } = ctx.attr_data(attr) else {
        return None;
    };
    let (shape, elem) = match ctx.type_data(*ty) {
        TypeData::RankedTensor { shape, elem, .. } => (shape, *elem),
        _ => return None,
    };
    let count = prod(shape);
    if count < 0 {
        return None;
    }
    let count = count as usize;
    let kind = match ctx.type_data(elem) {
        TypeData::Float(k) => *k,
        TypeData::Integer { .. } => {
            return dense_ints(ctx, attr).map(|v| v.into_iter().map(|x| x as f64).collect())
        }
        _ => return None,
    };
    let (bytes, read): (usize, fn(&[u8]) -> f64) = match kind {
        nart_ir::FloatKind::F32 => (4, |c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64),
        nart_ir::FloatKind::F64 => (8, |c| {
            f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
        }),
        nart_ir::FloatKind::F16 => (2, |c| {
            nart_ir::util::f16_bits_to_f64(u16::from_le_bytes([c[0], c[1]]))
        }),
        _ => return None,
    };
    match data {
        DenseData::Splat(b) if b.len() == bytes && count <= 1 << 20 => Some(vec![read(b); count]),
        DenseData::Elements(b) if b.len() == bytes * count => {
            Some(b.chunks(bytes).map(read).collect())
        }
        _ => None,
    }
}

// ----- helpers -----

fn one(s: Shaped) -> R {
    Ok(Some(vec![Some(s)]))
}

fn t(elem: TypeData, shape: Option<Vec<i64>>) -> Shaped {
    Shaped { elem, shape }
}

fn i64_elem() -> TypeData {
    TypeData::int(64)
}

fn i32_elem() -> TypeData {
    TypeData::int(32)
}

fn bool_elem() -> TypeData {
    TypeData::int(1)
}

fn norm_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if a < 0 || a >= r {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(a as usize)
}

fn norm_axis_incl(axis: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if a < 0 || a > r {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(a as usize)
}

/// Broadcasts two shapes the way ONNX (and numpy) does.
pub fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let x = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let y = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            (DYNAMIC, y) => y,
            (x, DYNAMIC) => x,
            _ => return None,
        };
    }
    Some(out)
}

fn div_floor(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// Rounds `a / b` up; `b` must be positive.
fn div_ceil(a: i64, b: i64) -> i64 {
    a.div_euclid(b) + i64::from(a.rem_euclid(b) != 0)
}

// ----- the families -----

/// Infers the result types of `op`; `Ok(None)` when no rule covers the op.
pub fn infer(ctx: &Context, op: Op) -> R {
    let res = infer_raw(ctx, op)?;
    if let Some(results) = &res {
        for (k, s) in results.iter().enumerate() {
            let Some(shape) = s.as_ref().and_then(|s| s.shape.as_ref()) else {
                continue;
            };
            if shape.iter().any(|&d| d < 0 && d != DYNAMIC) {
                return Err(format!(
                    "result #{k} would have a negative dimension: {}",
                    fmt_shaped(ctx, s.as_ref().expect("checked above"))
                ));
            }
        }
    }
    Ok(res)
}

fn infer_raw(ctx: &Context, op: Op) -> R {
    let name = ctx.op_name_str(op);
    let Some(onnx) = name.strip_prefix("graph.") else {
        return Ok(None);
    };
    let i = In { ctx, op };
    // Identity also passes sequences and optionals through; the importer types those.
    if onnx == "Identity"
        && !matches!(
            i.ty(0).map(|t| ctx.type_data(t)),
            Some(TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. })
        )
    {
        return Ok(None);
    }
    match onnx {
        "Relu"
        | "Swish"
        | "SwiGLU"
        | "RMSNormalization"
        | "RotaryEmbedding"
        | "CumProd"
        | "TensorScatter"
        | "Sigmoid"
        | "Tanh"
        | "Erf"
        | "Gelu"
        | "LeakyRelu"
        | "HardSigmoid"
        | "HardSwish"
        | "Softmax"
        | "LogSoftmax"
        | "Abs"
        | "Neg"
        | "Exp"
        | "Log"
        | "Sqrt"
        | "Reciprocal"
        | "Floor"
        | "Ceil"
        | "Round"
        | "Sin"
        | "Cos"
        | "Tan"
        | "Asin"
        | "Acos"
        | "Atan"
        | "Sinh"
        | "Cosh"
        | "Asinh"
        | "Acosh"
        | "Atanh"
        | "Elu"
        | "Selu"
        | "Celu"
        | "Softplus"
        | "Softsign"
        | "Mish"
        | "Identity"
        | "Sign"
        | "ThresholdedRelu"
        | "Shrink"
        | "Hardmax"
        | "LpNormalization"
        | "MeanVarianceNormalization"
        | "LRN"
        | "CumSum"
        | "BitwiseNot"
        | "Not"
        | "Clip"
        | "InstanceNormalization"
        | "Trilu"
        | "GroupNormalization"
        | "ReverseSequence"
        | "ScatterElements"
        | "ScatterND"
        | "Scatter" => one(i.shaped(0)?),
        "EyeLike" | "RandomNormalLike" | "RandomUniformLike" => {
            let x = i.shaped(0)?;
            let elem = match i.int("dtype", 0) {
                0 => x.elem,
                c => crate::constraints::elem_type_data(c as i32)
                    .ok_or_else(|| format!("attribute 'dtype' holds unknown ONNX type code {c}"))?,
            };
            one(t(elem, x.shape))
        }
        "BitCast" => {
            let x = i.shaped(0)?;
            let c = i.int("to", 0);
            let elem = crate::constraints::elem_type_data(c as i32)
                .ok_or_else(|| format!("attribute 'to' holds unknown ONNX type code {c}"))?;
            one(t(elem, x.shape))
        }
        "IsNaN" | "IsInf" => {
            let x = i.shaped(0)?;
            one(t(bool_elem(), x.shape))
        }
        "Dropout" => {
            let x = i.shaped(0)?;
            Ok(Some(vec![Some(x.clone()), Some(t(bool_elem(), x.shape))]))
        }
        "BatchNormalization" => {
            let x = i.shaped(0)?;
            let c = x
                .shape
                .as_ref()
                .and_then(|s| s.get(1).copied())
                .unwrap_or(DYNAMIC);
            let stat = t(x.elem.clone(), Some(vec![c]));
            Ok(Some(vec![Some(x), Some(stat.clone()), Some(stat)]))
        }
        "LayerNormalization" => {
            let x = i.shaped(0)?;
            let stat = match &x.shape {
                Some(s) => {
                    let axis = norm_axis(i.int("axis", -1), s.len())?;
                    let mut s2 = s.clone();
                    for d in s2.iter_mut().skip(axis) {
                        *d = 1;
                    }
                    let elem = match i.int("stash_type", 1) {
                        1 => TypeData::Float(nart_ir::FloatKind::F32),
                        _ => x.elem.clone(),
                    };
                    Some(t(elem, Some(s2)))
                }
                None => None,
            };
            Ok(Some(vec![Some(x), stat.clone(), stat]))
        }
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Mod" | "BitShift" | "And" | "Or" | "Xor"
        | "BitwiseAnd" | "BitwiseOr" | "BitwiseXor" | "PRelu" => broadcast_n(&i, &[0, 1], 0, None),
        "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" => {
            broadcast_n(&i, &[0, 1], 0, Some(bool_elem()))
        }
        "Sum" | "Max" | "Min" | "Mean" => {
            let all: Vec<usize> = (0..i.n()).collect();
            broadcast_n(&i, &all, 0, None)
        }
        "Where" => broadcast_n(&i, &[0, 1, 2], 1, None),
        "MatMul" => matmul(&i, None),
        "MatMulInteger" => matmul(&i, Some(i32_elem())),
        "QLinearMatMul" => {
            let elem = i.shaped(7)?.elem;
            let a = i.shaped(0)?;
            let b = i.shaped(3)?;
            one(t(
                elem,
                matmul_shape(a.shape.as_deref(), b.shape.as_deref(), &i)?,
            ))
        }
        "Gemm" => gemm(&i),
        "Conv" => conv(&i, 0, 1, None),
        "ConvInteger" => conv(&i, 0, 1, Some(i32_elem())),
        "QLinearConv" => {
            let elem = i.shaped(7)?.elem;
            conv(&i, 0, 3, Some(elem))
        }
        "ConvTranspose" => conv_transpose(&i),
        "MaxPool" | "AveragePool" | "LpPool" => {
            let r = pool(&i)?;
            if onnx == "MaxPool" {
                let idx = r.shape.clone();
                Ok(Some(vec![Some(r), Some(t(i64_elem(), idx))]))
            } else {
                one(r)
            }
        }
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => {
            let x = i.shaped(0)?;
            let shape = x.shape.map(|s| {
                s.iter()
                    .enumerate()
                    .map(|(k, &d)| if k < 2 { d } else { 1 })
                    .collect()
            });
            one(t(x.elem, shape))
        }
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => reduce(&i),
        "ArgMax" | "ArgMin" => {
            let x = i.shaped(0)?;
            let shape = match x.shape {
                Some(s) => {
                    let axis = norm_axis(i.int("axis", 0), s.len())?;
                    Some(reduce_shape(&s, &[axis], i.int("keepdims", 1) != 0))
                }
                None => None,
            };
            one(t(i64_elem(), shape))
        }
        "Shape" => {
            let x = i.shaped(0)?;
            let len = match x.shape {
                Some(s) => {
                    let r = s.len() as i64;
                    let clamp = |v: i64| if v < 0 { (v + r).max(0) } else { v.min(r) };
                    let start = clamp(i.int("start", 0));
                    let end = clamp(i.int("end", r));
                    (end - start).max(0)
                }
                None => DYNAMIC,
            };
            one(t(i64_elem(), Some(vec![len])))
        }
        "Size" => one(t(i64_elem(), Some(vec![]))),
        "Cast" => {
            let x = i.shaped(0)?;
            let to = i.int("to", 0) as i32;
            let elem = crate::constraints::elem_type_data(to)
                .ok_or_else(|| format!("attribute 'to' holds unknown ONNX type code {to}"))?;
            one(t(elem, x.shape))
        }
        "CastLike" => {
            let x = i.shaped(0)?;
            one(t(i.shaped(1)?.elem, x.shape))
        }
        "Constant" => Ok(None),
        "Reshape" => reshape(&i),
        "Flatten" => {
            let x = i.shaped(0)?;
            let shape = match x.shape {
                Some(s) => {
                    let axis = norm_axis_incl(i.int("axis", 1), s.len())?;
                    Some(vec![prod(&s[..axis]), prod(&s[axis..])])
                }
                None => Some(vec![DYNAMIC, DYNAMIC]),
            };
            one(t(x.elem, shape))
        }
        "Squeeze" => squeeze(&i),
        "Unsqueeze" => unsqueeze(&i),
        "Transpose" => {
            let x = i.shaped(0)?;
            let shape = match x.shape {
                Some(s) => {
                    let perm = i
                        .ints("perm")
                        .unwrap_or_else(|| (0..s.len() as i64).rev().collect());
                    let mut sorted = perm.clone();
                    sorted.sort();
                    if sorted != (0..s.len() as i64).collect::<Vec<_>>() {
                        return Err(format!(
                            "attribute 'perm' {perm:?} is not a permutation of rank {}",
                            s.len()
                        ));
                    }
                    Some(perm.iter().map(|&p| s[p as usize]).collect())
                }
                None => None,
            };
            one(t(x.elem, shape))
        }
        "Concat" => concat(&i),
        "Split" => split(&i),
        "Slice" => slice(&i),
        "Gather" => {
            let x = i.shaped(0)?;
            let idx = i.shaped(1)?;
            let shape = match (x.shape, idx.shape) {
                (Some(s), Some(q)) => {
                    let axis = norm_axis(i.int("axis", 0), s.len())?;
                    let mut out = s[..axis].to_vec();
                    out.extend_from_slice(&q);
                    out.extend_from_slice(&s[axis + 1..]);
                    Some(out)
                }
                _ => None,
            };
            one(t(x.elem, shape))
        }
        "GatherElements" => {
            let x = i.shaped(0)?;
            let idx = i.shaped(1)?;
            if let (Some(s), Some(q)) = (&x.shape, &idx.shape) {
                if s.len() != q.len() {
                    return Err(format!(
                        "data and indices must have the same rank: {} and {}",
                        i.type_str(0),
                        i.type_str(1)
                    ));
                }
            }
            one(t(x.elem, idx.shape))
        }
        "Expand" => {
            let x = i.shaped(0)?;
            let shape = match (x.shape, i.const_ints(1)) {
                (Some(s), Some(target)) => Some(broadcast(&s, &target).ok_or_else(|| {
                    format!(
                        "input {} cannot be expanded to shape {target:?}",
                        i.type_str(0)
                    )
                })?),
                (_, Some(target)) => Some(vec![DYNAMIC; target.len()]),
                _ => i
                    .shaped(1)
                    .ok()
                    .and_then(|s| s.shape)
                    .and_then(|s| s.first().copied())
                    .filter(|&n| n != DYNAMIC)
                    .map(|n| vec![DYNAMIC; n as usize]),
            };
            one(t(x.elem, shape))
        }
        "Tile" => {
            let x = i.shaped(0)?;
            let shape = match (x.shape, i.const_ints(1)) {
                (Some(s), Some(r)) if r.len() == s.len() => {
                    Some(s.iter().zip(&r).map(|(&d, &k)| dmul(d, k)).collect())
                }
                (Some(s), _) => Some(vec![DYNAMIC; s.len()]),
                _ => None,
            };
            one(t(x.elem, shape))
        }
        "Pad" => pad(&i),
        "Resize" | "Upsample" => resize(&i, onnx == "Upsample"),
        "ConstantOfShape" => {
            let elem = match i.ctx.attr(op, "value").map(|a| i.ctx.attr_data(a)) {
                Some(AttrData::DenseElements { ty, .. }) => match i.ctx.type_data(*ty) {
                    TypeData::RankedTensor { elem, .. } => i.ctx.type_data(*elem).clone(),
                    _ => TypeData::Float(nart_ir::FloatKind::F32),
                },
                _ => TypeData::Float(nart_ir::FloatKind::F32),
            };
            let shape = match i.const_ints(0) {
                Some(s) => Some(s),
                None => i
                    .shaped(0)?
                    .shape
                    .and_then(|s| s.first().copied())
                    .filter(|&n| n != DYNAMIC)
                    .map(|n| vec![DYNAMIC; n as usize]),
            };
            one(t(elem, shape))
        }
        "Range" => {
            let x = i.shaped(0)?;
            let len = match (i.const_floats(0), i.const_floats(1), i.const_floats(2)) {
                (Some(a), Some(b), Some(d)) if a.len() == 1 && b.len() == 1 && d.len() == 1 => {
                    if d[0] == 0.0 {
                        return Err("delta must not be zero".into());
                    }
                    (((b[0] - a[0]) / d[0]).ceil().max(0.0)) as i64
                }
                _ => DYNAMIC,
            };
            one(t(x.elem, Some(vec![len])))
        }
        "Einsum" => einsum(&i),
        "TopK" => {
            let x = i.shaped(0)?;
            let shape = match x.shape {
                Some(mut s) => {
                    let axis = norm_axis(i.int("axis", -1), s.len())?;
                    s[axis] = i
                        .const_ints(1)
                        .and_then(|k| k.first().copied())
                        .unwrap_or(DYNAMIC);
                    Some(s)
                }
                None => None,
            };
            Ok(Some(vec![
                Some(t(x.elem, shape.clone())),
                Some(t(i64_elem(), shape)),
            ]))
        }
        "NonMaxSuppression" => one(t(i64_elem(), Some(vec![DYNAMIC, 3]))),
        "NonZero" => {
            let x = i.shaped(0)?;
            let r = x.shape.map_or(DYNAMIC, |s| s.len() as i64);
            one(t(i64_elem(), Some(vec![r, DYNAMIC])))
        }
        "QuantizeLinear" => {
            let x = i.shaped(0)?;
            let elem = if i.present(2) {
                i.shaped(2)?.elem
            } else {
                match i.int("output_dtype", 0) {
                    0 => TypeData::Integer {
                        width: 8,
                        signedness: nart_ir::Signedness::Unsigned,
                    },
                    c => crate::constraints::elem_type_data(c as i32)
                        .ok_or_else(|| format!("unknown output_dtype {c}"))?,
                }
            };
            one(t(elem, x.shape))
        }
        "DequantizeLinear" => {
            let x = i.shaped(0)?;
            one(t(i.shaped(1)?.elem, x.shape))
        }
        "DynamicQuantizeLinear" => {
            let x = i.shaped(0)?;
            let u8 = TypeData::Integer {
                width: 8,
                signedness: nart_ir::Signedness::Unsigned,
            };
            Ok(Some(vec![
                Some(t(u8.clone(), x.shape)),
                Some(t(TypeData::Float(nart_ir::FloatKind::F32), Some(vec![]))),
                Some(t(u8, Some(vec![]))),
            ]))
        }
        "DepthToSpace" | "SpaceToDepth" => {
            let x = i.shaped(0)?;
            let b = i.int("blocksize", 1);
            if b <= 0 {
                return Err(format!("blocksize must be positive, but got {b}"));
            }
            let shape = x.shape.map(|s| {
                let f = |d: i64, up: bool| {
                    if d == DYNAMIC {
                        DYNAMIC
                    } else if up {
                        dmul(d, b)
                    } else {
                        d / b
                    }
                };
                let d2s = onnx == "DepthToSpace";
                if s.len() == 4 {
                    let c = if s[1] == DYNAMIC {
                        DYNAMIC
                    } else if d2s {
                        s[1] / (b * b)
                    } else {
                        dmul(dmul(s[1], b), b)
                    };
                    vec![s[0], c, f(s[2], d2s), f(s[3], d2s)]
                } else {
                    vec![DYNAMIC; s.len()]
                }
            });
            one(t(x.elem, shape))
        }
        _ => Ok(None),
    }
}

fn prod(s: &[i64]) -> i64 {
    s.iter()
        .try_fold(1i64, |acc, &d| {
            if d == DYNAMIC {
                None
            } else {
                acc.checked_mul(d)
            }
        })
        .unwrap_or(DYNAMIC)
}

/// `a * b` on dims: dynamic when either is, or when it overflows.
fn dmul(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC {
        DYNAMIC
    } else {
        a.checked_mul(b).unwrap_or(DYNAMIC)
    }
}

/// `a + b` on dims: dynamic when either is, or when it overflows.
fn dadd(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC {
        DYNAMIC
    } else {
        a.checked_add(b).unwrap_or(DYNAMIC)
    }
}

fn broadcast_n(i: &In, idx: &[usize], elem_from: usize, elem: Option<TypeData>) -> R {
    let mut shape: Option<Vec<i64>> = Some(vec![]);
    let first = i.shaped(elem_from)?;
    for &k in idx {
        let s = i.shaped(k)?;
        let exempt = match i.ctx.op_name_str(i.op) {
            "graph.Pow" | "graph.PRelu" => true,
            "graph.Where" => k == 0,
            _ => false,
        };
        if k != elem_from && elem.is_none() && s.elem != first.elem && !exempt {
            return Err(format!(
                "operands have different element types: {} and {}",
                i.type_str(elem_from),
                i.type_str(k)
            ));
        }
        shape = match (shape, s.shape) {
            (Some(a), Some(b)) => Some(broadcast(&a, &b).ok_or_else(|| {
                let names: Vec<String> = idx.iter().map(|&q| i.type_str(q)).collect();
                format!(
                    "operands are not broadcast-compatible: {}",
                    names.join(" and ")
                )
            })?),
            _ => None,
        };
    }
    one(t(elem.unwrap_or(first.elem), shape))
}

fn matmul_shape(a: Option<&[i64]>, b: Option<&[i64]>, i: &In) -> Result<Option<Vec<i64>>, String> {
    let (Some(a), Some(b)) = (a, b) else {
        return Ok(None);
    };
    if a.is_empty() || b.is_empty() {
        return Err("operands of a matrix product must have rank 1 or more".into());
    }
    let a2: Vec<i64> = if a.len() == 1 {
        vec![1, a[0]]
    } else {
        a.to_vec()
    };
    let b2: Vec<i64> = if b.len() == 1 {
        vec![b[0], 1]
    } else {
        b.to_vec()
    };
    let (m, k1) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let (k2, n) = (b2[b2.len() - 2], b2[b2.len() - 1]);
    if k1 != DYNAMIC && k2 != DYNAMIC && k1 != k2 {
        return Err(format!(
            "inner dimensions do not match: {} and {}",
            i.type_str(0),
            i.type_str(if i.ctx.op_name_str(i.op) == "graph.QLinearMatMul" {
                3
            } else {
                1
            })
        ));
    }
    let batch = broadcast(&a2[..a2.len() - 2], &b2[..b2.len() - 2]).ok_or_else(|| {
        format!(
            "batch dimensions are not broadcast-compatible: {} and {}",
            i.type_str(0),
            i.type_str(1)
        )
    })?;
    let mut out = batch;
    if a.len() > 1 {
        out.push(m);
    }
    if b.len() > 1 {
        out.push(n);
    }
    Ok(Some(out))
}

fn matmul(i: &In, elem: Option<TypeData>) -> R {
    let a = i.shaped(0)?;
    let b = i.shaped(1)?;
    if elem.is_none() && a.elem != b.elem {
        return Err(format!(
            "operands have different element types: {} and {}",
            i.type_str(0),
            i.type_str(1)
        ));
    }
    let shape = matmul_shape(a.shape.as_deref(), b.shape.as_deref(), i)?;
    one(t(elem.unwrap_or(a.elem), shape))
}

fn gemm(i: &In) -> R {
    let a = i.shaped(0)?;
    let b = i.shaped(1)?;
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        return one(t(a.elem, Some(vec![DYNAMIC, DYNAMIC])));
    };
    if sa.len() != 2 || sb.len() != 2 {
        return Err(format!(
            "operands A and B must have rank 2, but got {} and {}",
            i.type_str(0),
            i.type_str(1)
        ));
    }
    let (m, k1) = if i.int("transA", 0) != 0 {
        (sa[1], sa[0])
    } else {
        (sa[0], sa[1])
    };
    let (k2, n) = if i.int("transB", 0) != 0 {
        (sb[1], sb[0])
    } else {
        (sb[0], sb[1])
    };
    if k1 != DYNAMIC && k2 != DYNAMIC && k1 != k2 {
        return Err(format!(
            "inner dimensions do not match: {} and {}",
            i.type_str(0),
            i.type_str(1)
        ));
    }
    if i.present(2) {
        if let Some(sc) = i.shaped(2)?.shape {
            if broadcast(&[m, n], &sc).is_none_or(|s| s.len() != 2) {
                return Err(format!(
                    "operand C {} is not broadcastable to [{m}, {n}]",
                    i.type_str(2)
                ));
            }
        }
    }
    one(t(a.elem, Some(vec![m, n])))
}

struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    pads: Vec<i64>,
    auto_pad: String,
    ceil: bool,
}

fn window(i: &In, spatial: usize, kernel: Vec<i64>) -> Result<Window, String> {
    let strides = i.ints("strides").unwrap_or_else(|| vec![1; spatial]);
    let dilations = i.ints("dilations").unwrap_or_else(|| vec![1; spatial]);
    let pads = i.ints("pads").unwrap_or_else(|| vec![0; 2 * spatial]);
    if kernel.len() != spatial
        || strides.len() != spatial
        || dilations.len() != spatial
        || pads.len() != 2 * spatial
    {
        return Err(format!(
            "kernel_shape, strides, dilations and pads must match the {spatial} spatial dims"
        ));
    }
    if strides.iter().chain(&dilations).any(|&v| v <= 0) {
        return Err("strides and dilations must be positive".into());
    }
    Ok(Window {
        kernel,
        strides,
        dilations,
        pads,
        auto_pad: i.string("auto_pad", "NOTSET"),
        ceil: i.int("ceil_mode", 0) != 0,
    })
}

fn window_out(w: &Window, input: &[i64]) -> Vec<i64> {
    input
        .iter()
        .enumerate()
        .map(|(k, &d)| {
            if d == DYNAMIC || w.kernel[k] == DYNAMIC {
                return DYNAMIC;
            }
            let s = w.strides[k];
            let ek = dadd(dmul(dadd(w.kernel[k], -1), w.dilations[k]), 1);
            if ek == DYNAMIC {
                return DYNAMIC;
            }
            let span = dadd(dadd(dadd(d, w.pads[k]), w.pads[k + input.len()]), -ek);
            if span == DYNAMIC {
                return DYNAMIC;
            }
            match w.auto_pad.as_str() {
                "SAME_UPPER" | "SAME_LOWER" => div_ceil(d, s),
                "VALID" => div_ceil(d.saturating_sub(ek).saturating_add(1), s).max(0),
                _ => {
                    let mut o = (if w.ceil {
                        div_ceil(span, s)
                    } else {
                        div_floor(span, s)
                    })
                    .saturating_add(1);
                    // The last window must start inside the input or its left padding.
                    if w.ceil && dmul(o - 1, s) >= dadd(d, w.pads[k]) {
                        o -= 1;
                    }
                    o.max(0)
                }
            }
        })
        .collect()
}

fn conv(i: &In, x_idx: usize, w_idx: usize, elem: Option<TypeData>) -> R {
    let x = i.shaped(x_idx)?;
    let w = i.shaped(w_idx)?;
    let elem = elem.unwrap_or(x.elem.clone());
    let (Some(sx), Some(sw)) = (&x.shape, &w.shape) else {
        let r = x.shape.as_ref().map(|s| vec![DYNAMIC; s.len()]);
        return one(t(elem, r));
    };
    if sx.len() < 3 || sx.len() != sw.len() {
        return Err(format!(
            "input and weight must have the same rank (3 or more): {} and {}",
            i.type_str(x_idx),
            i.type_str(w_idx)
        ));
    }
    let group = i.int("group", 1);
    if group <= 0 {
        return Err(format!("group must be positive, but got {group}"));
    }
    if sx[1] != DYNAMIC && sw[1] != DYNAMIC && sx[1] != sw[1] * group {
        return Err(format!(
            "input channels ({}) must equal weight channels ({}) times group ({group})",
            sx[1], sw[1]
        ));
    }
    let spatial = sx.len() - 2;
    let kernel = i.ints("kernel_shape").unwrap_or_else(|| sw[2..].to_vec());
    let win = window(i, spatial, kernel)?;
    let mut out = vec![sx[0], sw[0]];
    out.extend(window_out(&win, &sx[2..]));
    one(t(elem, Some(out)))
}

fn conv_transpose(i: &In) -> R {
    let x = i.shaped(0)?;
    let w = i.shaped(1)?;
    let (Some(sx), Some(sw)) = (&x.shape, &w.shape) else {
        return one(t(
            x.elem.clone(),
            x.shape.as_ref().map(|s| vec![DYNAMIC; s.len()]),
        ));
    };
    if sx.len() < 3 || sx.len() != sw.len() {
        return Err(format!(
            "input and weight must have the same rank (3 or more): {} and {}",
            i.type_str(0),
            i.type_str(1)
        ));
    }
    let spatial = sx.len() - 2;
    let group = i.int("group", 1);
    let c_out = dmul(sw[1], group);
    let mut out = vec![sx[0], c_out];
    if let Some(os) = i.ints("output_shape") {
        if os.len() != spatial {
            return Err("output_shape must have one entry per spatial dim".into());
        }
        out.extend(os);
        return one(t(x.elem, Some(out)));
    }
    let kernel = i.ints("kernel_shape").unwrap_or_else(|| sw[2..].to_vec());
    let win = window(i, spatial, kernel)?;
    let opad = i.ints("output_padding").unwrap_or_else(|| vec![0; spatial]);
    for k in 0..spatial {
        let d = sx[k + 2];
        if d == DYNAMIC || win.kernel[k] == DYNAMIC {
            out.push(DYNAMIC);
            continue;
        }
        let s = win.strides[k];
        let o = match win.auto_pad.as_str() {
            "SAME_UPPER" | "SAME_LOWER" => dmul(d, s),
            _ => {
                let ek = dadd(dmul(dadd(win.kernel[k], -1), win.dilations[k]), 1);
                let mut o = dadd(dmul(s, d - 1), opad.get(k).copied().unwrap_or(0));
                o = dadd(o, ek);
                o = dadd(o, win.pads[k].checked_neg().unwrap_or(DYNAMIC));
                dadd(o, win.pads[k + spatial].checked_neg().unwrap_or(DYNAMIC))
            }
        };
        out.push(o);
    }
    one(t(x.elem, Some(out)))
}

fn pool(i: &In) -> Result<Shaped, String> {
    let x = i.shaped(0)?;
    let Some(sx) = &x.shape else {
        return Ok(x);
    };
    if sx.len() < 3 {
        return Err(format!(
            "input must have rank 3 or more, but got {}",
            i.type_str(0)
        ));
    }
    let kernel = i
        .ints("kernel_shape")
        .ok_or("requires attribute 'kernel_shape'")?;
    let win = window(i, sx.len() - 2, kernel)?;
    let mut out = vec![sx[0], sx[1]];
    out.extend(window_out(&win, &sx[2..]));
    Ok(t(x.elem, Some(out)))
}

fn reduce_shape(s: &[i64], axes: &[usize], keep: bool) -> Vec<i64> {
    let mut out = Vec::new();
    for (k, &d) in s.iter().enumerate() {
        if axes.contains(&k) {
            if keep {
                out.push(1);
            }
        } else {
            out.push(d);
        }
    }
    out
}

fn reduce(i: &In) -> R {
    let x = i.shaped(0)?;
    let keep = i.int("keepdims", 1) != 0;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let axes = if let Some(a) = i.ints("axes") {
        Some(a)
    } else if i.present(1) {
        i.const_ints(1)
    } else {
        Some(vec![])
    };
    let Some(axes) = axes else {
        let shape = if keep {
            Some(vec![DYNAMIC; s.len()])
        } else {
            None
        };
        return one(t(x.elem, shape));
    };
    let axes: Vec<usize> = if axes.is_empty() {
        if i.int("noop_with_empty_axes", 0) != 0 {
            return one(x);
        }
        (0..s.len()).collect()
    } else {
        axes.iter()
            .map(|&a| norm_axis(a, s.len()))
            .collect::<Result<_, _>>()?
    };
    one(t(x.elem, Some(reduce_shape(&s, &axes, keep))))
}

fn reshape(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(target) = i.const_ints(1) else {
        let n = i
            .shaped(1)?
            .shape
            .and_then(|s| s.first().copied())
            .filter(|&n| n != DYNAMIC);
        return one(t(x.elem, n.map(|n| vec![DYNAMIC; n as usize])));
    };
    let allowzero = i.int("allowzero", 0) != 0;
    let mut out = Vec::with_capacity(target.len());
    let mut infer_at = None;
    for (k, &d) in target.iter().enumerate() {
        match d {
            -1 => {
                if infer_at.is_some() {
                    return Err(format!("shape {target:?} has more than one -1"));
                }
                infer_at = Some(k);
                out.push(DYNAMIC);
            }
            0 if !allowzero => {
                let src = x.shape.as_ref().and_then(|s| s.get(k).copied());
                match (src, &x.shape) {
                    (Some(v), _) => out.push(v),
                    (None, Some(_)) => {
                        return Err(format!(
                            "shape {target:?} copies dim {k} that the input {} lacks",
                            i.type_str(0)
                        ))
                    }
                    (None, None) => out.push(DYNAMIC),
                }
            }
            d if d < -1 => return Err(format!("shape {target:?} has a negative dim")),
            d => out.push(d),
        }
    }
    if let Some(s) = &x.shape {
        let total = prod(s);
        let known: Vec<i64> = out
            .iter()
            .enumerate()
            .filter(|(k, _)| Some(*k) != infer_at)
            .map(|(_, &d)| d)
            .collect();
        let known_prod = prod(&known);
        if let Some(k) = infer_at {
            if total != DYNAMIC && known_prod != DYNAMIC && known_prod != 0 {
                if total % known_prod != 0 {
                    return Err(format!("cannot reshape {} to {target:?}", i.type_str(0)));
                }
                out[k] = total / known_prod;
            }
        } else if total != DYNAMIC && known_prod != DYNAMIC && total != known_prod {
            return Err(format!(
                "cannot reshape {} ({total} elements) to {target:?} ({known_prod} elements)",
                i.type_str(0)
            ));
        }
    }
    one(t(x.elem, Some(out)))
}

fn axes_of(i: &In, operand: usize) -> Option<Option<Vec<i64>>> {
    if let Some(a) = i.ints("axes") {
        return Some(Some(a));
    }
    if i.present(operand) {
        return i.const_ints(operand).map(Some);
    }
    Some(None)
}

fn squeeze(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let Some(axes) = axes_of(i, 1) else {
        return one(t(x.elem, None));
    };
    let out = match axes {
        None => {
            if s.contains(&DYNAMIC) {
                return one(t(x.elem, None));
            }
            s.iter().copied().filter(|&d| d != 1).collect()
        }
        Some(axes) => {
            let axes: Vec<usize> = axes
                .iter()
                .map(|&a| norm_axis(a, s.len()))
                .collect::<Result<_, _>>()?;
            for &a in &axes {
                if s[a] != 1 && s[a] != DYNAMIC {
                    return Err(format!(
                        "cannot squeeze dim {a} of size {} in {}",
                        s[a],
                        i.type_str(0)
                    ));
                }
            }
            reduce_shape(&s, &axes, false)
        }
    };
    one(t(x.elem, Some(out)))
}

fn unsqueeze(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let axes = match axes_of(i, 1) {
        Some(Some(a)) => a,
        Some(None) => return Err("requires axes".into()),
        None => {
            let n = i.shaped(1)?.shape.and_then(|s| s.first().copied());
            return one(t(
                x.elem,
                n.filter(|&n| n != DYNAMIC)
                    .map(|n| vec![DYNAMIC; s.len() + n as usize]),
            ));
        }
    };
    let r = s.len() + axes.len();
    let mut norm: Vec<usize> = axes
        .iter()
        .map(|&a| norm_axis(a, r))
        .collect::<Result<_, _>>()?;
    norm.sort();
    if norm.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("axes {axes:?} repeat an axis"));
    }
    let mut out = Vec::with_capacity(r);
    let mut src = s.iter();
    for k in 0..r {
        if norm.contains(&k) {
            out.push(1);
        } else {
            out.push(*src.next().unwrap_or(&DYNAMIC));
        }
    }
    one(t(x.elem, Some(out)))
}

fn concat(i: &In) -> R {
    let first = i.shaped(0)?;
    let mut out: Option<Vec<i64>> = None;
    let mut axis_sum = 0i64;
    for k in 0..i.n() {
        let s = i.shaped(k)?;
        if s.elem != first.elem {
            return Err(format!(
                "operands have different element types: {} and {}",
                i.type_str(0),
                i.type_str(k)
            ));
        }
        let Some(shape) = s.shape else {
            return one(t(first.elem, None));
        };
        let axis = norm_axis(i.int("axis", 0), shape.len())?;
        match &mut out {
            None => {
                axis_sum = shape[axis];
                out = Some(shape);
            }
            Some(o) => {
                if o.len() != shape.len() {
                    return Err(format!(
                        "operands must have the same rank: {} and {}",
                        i.type_str(0),
                        i.type_str(k)
                    ));
                }
                for d in 0..o.len() {
                    if d == axis {
                        continue;
                    }
                    match (o[d], shape[d]) {
                        (a, b) if a == b => {}
                        (DYNAMIC, b) => o[d] = b,
                        (_, DYNAMIC) => {}
                        _ => {
                            return Err(format!(
                                "operands differ outside the concatenation axis: {} and {}",
                                i.type_str(0),
                                i.type_str(k)
                            ))
                        }
                    }
                }
                axis_sum = dadd(axis_sum, shape[axis]);
            }
        }
    }
    let mut out = out.unwrap_or_default();
    if let Ok(axis) = norm_axis(i.int("axis", 0), out.len()) {
        if !out.is_empty() {
            out[axis] = axis_sum;
        }
    }
    one(t(first.elem, Some(out)))
}

fn split(i: &In) -> R {
    let x = i.shaped(0)?;
    let n_out = i.ctx.results(i.op).len();
    let Some(s) = x.shape.clone() else {
        return Ok(Some(vec![Some(x); n_out]));
    };
    let axis = norm_axis(i.int("axis", 0), s.len())?;
    let sizes = if let Some(sp) = i.ints("split") {
        Some(sp)
    } else if i.present(1) {
        i.const_ints(1)
    } else if s[axis] != DYNAMIC && n_out > 0 {
        let n = n_out as i64;
        let chunk = div_ceil(s[axis], n);
        Some(
            (0..n)
                .map(|k| {
                    s[axis]
                        .saturating_sub(k.saturating_mul(chunk))
                        .clamp(0, chunk)
                })
                .collect(),
        )
    } else {
        None
    };
    let mut res = Vec::new();
    for k in 0..n_out {
        let mut o = s.clone();
        o[axis] = match &sizes {
            Some(v) => *v
                .get(k)
                .ok_or_else(|| format!("split sizes {v:?} do not cover {n_out} outputs"))?,
            None => DYNAMIC,
        };
        res.push(Some(t(x.elem.clone(), Some(o))));
    }
    if let Some(v) = &sizes {
        if v.len() != n_out {
            return Err(format!("split sizes {v:?} do not match {n_out} outputs"));
        }
        let total = v.iter().try_fold(0i64, |a, &b| a.checked_add(b));
        if s[axis] != DYNAMIC && total != Some(s[axis]) {
            return Err(format!(
                "split sizes {v:?} do not add up to dim {axis} of {}",
                i.type_str(0)
            ));
        }
    }
    Ok(Some(res))
}

fn slice(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let (Some(starts), Some(ends)) = (i.const_ints(1), i.const_ints(2)) else {
        return one(t(x.elem, Some(vec![DYNAMIC; s.len()])));
    };
    let axes = if i.present(3) {
        match i.const_ints(3) {
            Some(a) => a,
            None => return one(t(x.elem, Some(vec![DYNAMIC; s.len()]))),
        }
    } else {
        (0..starts.len() as i64).collect()
    };
    let steps = if i.present(4) {
        match i.const_ints(4) {
            Some(a) => a,
            None => return one(t(x.elem, Some(vec![DYNAMIC; s.len()]))),
        }
    } else {
        vec![1; starts.len()]
    };
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err("starts, ends, axes and steps must have the same length".into());
    }
    let mut out = s.clone();
    for k in 0..starts.len() {
        let a = norm_axis(axes[k], s.len())?;
        let step = steps[k];
        if step == 0 {
            return Err("slice step must not be zero".into());
        }
        let d = s[a];
        if d == DYNAMIC {
            out[a] = DYNAMIC;
            continue;
        }
        let clampi = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi);
        let norm = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
        let (start, end) = if step > 0 {
            (clampi(norm(starts[k]), 0, d), clampi(norm(ends[k]), 0, d))
        } else {
            (
                clampi(norm(starts[k]), -1, d - 1),
                clampi(norm(ends[k]), -1, d - 1),
            )
        };
        out[a] = if step > 0 {
            div_ceil((end - start).max(0), step)
        } else {
            div_ceil((start - end).max(0), step.checked_neg().unwrap_or(i64::MAX))
        };
    }
    one(t(x.elem, Some(out)))
}

fn pad(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let Some(pads) = i.const_ints(1) else {
        return one(t(x.elem, Some(vec![DYNAMIC; s.len()])));
    };
    let axes: Vec<usize> = if i.present(3) {
        match i.const_ints(3) {
            Some(a) => a
                .iter()
                .map(|&a| norm_axis(a, s.len()))
                .collect::<Result<_, _>>()?,
            None => return one(t(x.elem, Some(vec![DYNAMIC; s.len()]))),
        }
    } else {
        (0..s.len()).collect()
    };
    if pads.len() != 2 * axes.len() {
        return Err(format!(
            "pads has {} entries but {} axes are padded",
            pads.len(),
            axes.len()
        ));
    }
    let mut out = s.clone();
    for (k, &a) in axes.iter().enumerate() {
        out[a] = dadd(out[a], dadd(pads[k], pads[k + axes.len()]));
    }
    one(t(x.elem, Some(out)))
}

fn resize(i: &In, upsample: bool) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let dynamic = || one(t(x.elem.clone(), Some(vec![DYNAMIC; s.len()])));
    let (scales_idx, sizes_idx) = if upsample { (1, usize::MAX) } else { (2, 3) };
    if sizes_idx != usize::MAX && i.present(sizes_idx) {
        let Some(sizes) = i.const_ints(sizes_idx) else {
            return dynamic();
        };
        let axes: Vec<usize> = match i.ints("axes") {
            Some(a) => a
                .iter()
                .map(|&a| norm_axis(a, s.len()))
                .collect::<Result<_, _>>()?,
            None => (0..s.len()).collect(),
        };
        if sizes.len() != axes.len() {
            return Err(format!(
                "sizes has {} entries for {} axes",
                sizes.len(),
                axes.len()
            ));
        }
        let policy = i.string("keep_aspect_ratio_policy", "stretch");
        let mut out = s.clone();
        if policy == "stretch" {
            for (k, &a) in axes.iter().enumerate() {
                out[a] = sizes[k];
            }
            return one(t(x.elem, Some(out)));
        }
        return dynamic();
    }
    if i.present(scales_idx) {
        let Some(scales) = i.const_floats(scales_idx) else {
            return dynamic();
        };
        if scales.is_empty() {
            return dynamic();
        }
        let axes: Vec<usize> = match i.ints("axes") {
            Some(a) => a
                .iter()
                .map(|&a| norm_axis(a, s.len()))
                .collect::<Result<_, _>>()?,
            None => (0..s.len()).collect(),
        };
        if scales.len() != axes.len() {
            return Err(format!(
                "scales has {} entries for {} axes",
                scales.len(),
                axes.len()
            ));
        }
        let mut out = s.clone();
        for (k, &a) in axes.iter().enumerate() {
            if out[a] != DYNAMIC {
                out[a] = (out[a] as f64 * scales[k]).floor() as i64;
            }
        }
        return one(t(x.elem, Some(out)));
    }
    if upsample {
        if let Some(sc) = i.floats("scales") {
            let out = s
                .iter()
                .zip(&sc)
                .map(|(&d, &f)| {
                    if d == DYNAMIC {
                        d
                    } else {
                        (d as f64 * f).floor() as i64
                    }
                })
                .collect();
            return one(t(x.elem, Some(out)));
        }
    }
    dynamic()
}

fn einsum(i: &In) -> R {
    let eq: String = i
        .string("equation", "")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let first = i.shaped(0)?;
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != i.n() {
        return Err(format!(
            "equation '{eq}' names {} operands but the op has {}",
            terms.len(),
            i.n()
        ));
    }
    if eq.contains("...") {
        return one(t(first.elem, None));
    }
    let mut dims: Vec<(char, i64)> = Vec::new();
    let mut counts: Vec<(char, usize)> = Vec::new();
    for (k, term) in terms.iter().enumerate() {
        let s = i.shaped(k)?;
        let Some(shape) = s.shape else {
            return one(t(first.elem, None));
        };
        if term.chars().count() != shape.len() {
            return Err(format!(
                "term '{term}' of equation '{eq}' does not match operand #{k} of rank {}",
                shape.len()
            ));
        }
        for (c, d) in term.chars().zip(shape) {
            match dims.iter_mut().find(|(x, _)| *x == c) {
                Some((_, e)) => {
                    if *e == DYNAMIC || *e == 1 {
                        *e = d;
                    } else if d != DYNAMIC && d != 1 && d != *e {
                        return Err(format!("label '{c}' has sizes {e} and {d}"));
                    }
                }
                None => dims.push((c, d)),
            }
            match counts.iter_mut().find(|(x, _)| *x == c) {
                Some((_, n)) => *n += 1,
                None => counts.push((c, 1)),
            }
        }
    }
    let out_labels: Vec<char> = match rhs {
        Some(r) => r.chars().collect(),
        None => {
            let mut v: Vec<char> = counts
                .iter()
                .filter(|(_, n)| *n == 1)
                .map(|(c, _)| *c)
                .collect();
            v.sort();
            v
        }
    };
    let mut out = Vec::new();
    for c in out_labels {
        let d = dims
            .iter()
            .find(|(x, _)| *x == c)
            .ok_or_else(|| format!("output label '{c}' does not appear in the inputs"))?;
        out.push(d.1);
    }
    one(t(first.elem, Some(out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nart_ir::{OperationState, Value};

    /// Builds `graph.<name>` on block arguments of the given types and constants, and infers it.
    struct Check {
        ctx: Context,
        block: nart_ir::Block,
    }

    impl Check {
        fn new() -> Check {
            let mut ctx = Context::new();
            crate::register(&mut ctx);
            let loc = ctx.unknown_loc();
            let block = ctx.create_block(&[], loc);
            Check { ctx, block }
        }

        fn arg(&mut self, shape: &[i64], elem: TypeData) -> Value {
            let e = self.ctx.intern_type(elem);
            let ty = self.ctx.tensor_type(shape.to_vec(), e);
            let loc = self.ctx.unknown_loc();
            self.ctx.add_block_arg(self.block, ty, loc)
        }

        fn f32(&mut self, shape: &[i64]) -> Value {
            self.arg(shape, TypeData::Float(nart_ir::FloatKind::F32))
        }

        fn none(&mut self) -> Value {
            let ty = self.ctx.none_type();
            let loc = self.ctx.unknown_loc();
            self.ctx.add_block_arg(self.block, ty, loc)
        }

        fn ints(&mut self, v: &[i64]) -> Value {
            let i64t = self.ctx.i64_type();
            let ty = self.ctx.tensor_type(vec![v.len() as i64], i64t);
            let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            let attr = self.ctx.intern_attr(AttrData::DenseElements {
                ty,
                data: DenseData::Elements(bytes),
            });
            let loc = self.ctx.unknown_loc();
            let op = crate::ops::materialize_constant(&mut self.ctx, attr, ty, loc).unwrap();
            self.ctx.append_op(self.block, op);
            self.ctx.result(op, 0)
        }

        fn op(
            &mut self,
            name: &str,
            operands: &[Value],
            n_results: usize,
            attrs: &[(&str, nart_ir::Attr)],
        ) -> Result<Vec<String>, String> {
            let loc = self.ctx.unknown_loc();
            let none = self.ctx.none_type();
            let mut st = OperationState::new(&mut self.ctx, &format!("graph.{name}"), loc)
                .operands(operands)
                .results(&vec![none; n_results]);
            for (k, v) in attrs {
                st = st.prop(&mut self.ctx, k, *v);
            }
            let op = self.ctx.create_op(st);
            self.ctx.append_op(self.block, op);
            let r = infer(&self.ctx, op)?.expect("a rule exists");
            Ok(r.iter()
                .map(|s| s.as_ref().map_or("?".into(), |s| fmt_shaped(&self.ctx, s)))
                .collect())
        }

        fn i64s(&mut self, v: &[i64]) -> nart_ir::Attr {
            let e = self.ctx.i64_type();
            self.ctx.intern_attr(AttrData::DenseArray {
                elem: e,
                data: DenseArrayData::Int(v.to_vec()),
            })
        }

        fn int(&mut self, v: i64) -> nart_ir::Attr {
            self.ctx.i64_attr(v)
        }
    }

    #[test]
    fn broadcasting_and_comparisons() {
        let mut c = Check::new();
        let a = c.f32(&[2, 1, 3]);
        let b = c.f32(&[4, 1]);
        assert_eq!(c.op("Add", &[a, b], 1, &[]).unwrap(), ["tensor<2x4x3xf32>"]);
        assert_eq!(c.op("Less", &[a, b], 1, &[]).unwrap(), ["tensor<2x4x3xi1>"]);
        let d = c.f32(&[DYNAMIC, 3]);
        assert_eq!(c.op("Mul", &[a, d], 1, &[]).unwrap(), ["tensor<2x?x3xf32>"]);
        let e = c.f32(&[2, 3]);
        let f = c.f32(&[4]);
        assert_eq!(
            c.op("Add", &[e, f], 1, &[]).unwrap_err(),
            "operands are not broadcast-compatible: tensor<2x3xf32> and tensor<4xf32>"
        );
    }

    #[test]
    fn conv_and_pool_sizes() {
        let mut c = Check::new();
        let x = c.f32(&[1, 3, 224, 224]);
        let w = c.f32(&[64, 3, 7, 7]);
        let n = c.none();
        let strides = c.i64s(&[2, 2]);
        let pads = c.i64s(&[3, 3, 3, 3]);
        assert_eq!(
            c.op(
                "Conv",
                &[x, w, n],
                1,
                &[("strides", strides), ("pads", pads)]
            )
            .unwrap(),
            ["tensor<1x64x112x112xf32>"]
        );
        let k = c.i64s(&[3, 3]);
        let p1 = c.i64s(&[1, 1, 1, 1]);
        let y = c.f32(&[1, 64, 112, 112]);
        assert_eq!(
            c.op(
                "MaxPool",
                &[y],
                1,
                &[("kernel_shape", k), ("strides", strides), ("pads", p1)]
            )
            .unwrap()[0],
            "tensor<1x64x56x56xf32>"
        );
        let same = c.ctx.string_attr("SAME_UPPER");
        let z = c.f32(&[1, 3, 7, 7]);
        assert_eq!(
            c.op(
                "AveragePool",
                &[z],
                1,
                &[
                    ("kernel_shape", k),
                    ("strides", strides),
                    ("auto_pad", same)
                ]
            )
            .unwrap(),
            ["tensor<1x3x4x4xf32>"]
        );
        let one_ = c.int(1);
        let p0 = c.i64s(&[0, 0, 0, 0]);
        let q = c.f32(&[1, 1, 6, 6]);
        assert_eq!(
            c.op(
                "MaxPool",
                &[q],
                1,
                &[
                    ("kernel_shape", k),
                    ("strides", strides),
                    ("pads", p0),
                    ("ceil_mode", one_)
                ]
            )
            .unwrap()[0],
            "tensor<1x1x3x3xf32>"
        );
        assert_eq!(
            c.op("GlobalAveragePool", &[y], 1, &[]).unwrap(),
            ["tensor<1x64x1x1xf32>"]
        );
        let wbad = c.f32(&[8, 4, 3, 3]);
        assert!(c
            .op("Conv", &[x, wbad, n], 1, &[])
            .unwrap_err()
            .contains("input channels"));
        let ct_w = c.f32(&[3, 8, 4, 4]);
        let s2 = c.i64s(&[2, 2]);
        let pct = c.i64s(&[1, 1, 1, 1]);
        let xt = c.f32(&[1, 3, 10, 10]);
        assert_eq!(
            c.op(
                "ConvTranspose",
                &[xt, ct_w, n],
                1,
                &[("strides", s2), ("pads", pct)]
            )
            .unwrap(),
            ["tensor<1x8x20x20xf32>"]
        );
    }

    #[test]
    fn matmul_and_gemm() {
        let mut c = Check::new();
        let a = c.f32(&[2, 5, 3, 4]);
        let b = c.f32(&[4, 6]);
        assert_eq!(
            c.op("MatMul", &[a, b], 1, &[]).unwrap(),
            ["tensor<2x5x3x6xf32>"]
        );
        let v = c.f32(&[4]);
        assert_eq!(
            c.op("MatMul", &[a, v], 1, &[]).unwrap(),
            ["tensor<2x5x3xf32>"]
        );
        let g = c.f32(&[3, 4]);
        let h = c.f32(&[5, 4]);
        let bias = c.f32(&[5]);
        let tb = c.int(1);
        assert_eq!(
            c.op("Gemm", &[g, h, bias], 1, &[("transB", tb)]).unwrap(),
            ["tensor<3x5xf32>"]
        );
        assert!(c
            .op("MatMul", &[g, h], 1, &[])
            .unwrap_err()
            .contains("inner dimensions"));
        let i8t = TypeData::int(8);
        let qa = c.arg(&[2, 4], i8t.clone());
        let qb = c.arg(&[4, 3], i8t);
        let n = c.none();
        assert_eq!(
            c.op("MatMulInteger", &[qa, qb, n, n], 1, &[]).unwrap(),
            ["tensor<2x3xi32>"]
        );
    }

    #[test]
    fn reductions_and_argmax() {
        let mut c = Check::new();
        let x = c.f32(&[2, 3, 4]);
        let axes = c.ints(&[-1]);
        assert_eq!(
            c.op("ReduceSum", &[x, axes], 1, &[]).unwrap(),
            ["tensor<2x3x1xf32>"]
        );
        let k0 = c.int(0);
        assert_eq!(
            c.op("ReduceMean", &[x, axes], 1, &[("keepdims", k0)])
                .unwrap(),
            ["tensor<2x3xf32>"]
        );
        let n = c.none();
        assert_eq!(
            c.op("ReduceMax", &[x, n], 1, &[("keepdims", k0)]).unwrap(),
            ["tensor<f32>"]
        );
        let ax1 = c.int(1);
        assert_eq!(
            c.op("ArgMax", &[x], 1, &[("axis", ax1)]).unwrap(),
            ["tensor<2x1x4xi64>"]
        );
    }

    #[test]
    fn shape_manipulation() {
        let mut c = Check::new();
        let x = c.f32(&[2, 3, 4]);
        let s = c.ints(&[0, -1]);
        assert_eq!(
            c.op("Reshape", &[x, s], 1, &[]).unwrap(),
            ["tensor<2x12xf32>"]
        );
        let bad = c.ints(&[5, -1]);
        assert!(c.op("Reshape", &[x, bad], 1, &[]).is_err());
        let perm = c.i64s(&[2, 0, 1]);
        assert_eq!(
            c.op("Transpose", &[x], 1, &[("perm", perm)]).unwrap(),
            ["tensor<4x2x3xf32>"]
        );
        assert_eq!(c.op("Flatten", &[x], 1, &[]).unwrap(), ["tensor<2x12xf32>"]);
        let ax = c.ints(&[0, 3]);
        assert_eq!(
            c.op("Unsqueeze", &[x, ax], 1, &[]).unwrap(),
            ["tensor<1x2x3x1x4xf32>"]
        );
        let y = c.f32(&[1, 3, 1]);
        let n = c.none();
        assert_eq!(c.op("Squeeze", &[y, n], 1, &[]).unwrap(), ["tensor<3xf32>"]);
        let ax2 = c.int(2);
        let z = c.f32(&[2, 3, 5]);
        assert_eq!(
            c.op("Concat", &[x, z], 1, &[("axis", ax2)]).unwrap(),
            ["tensor<2x3x9xf32>"]
        );
        let sp = c.ints(&[1, 2]);
        let ax1 = c.int(1);
        assert_eq!(
            c.op("Split", &[x, sp], 2, &[("axis", ax1)]).unwrap(),
            ["tensor<2x1x4xf32>", "tensor<2x2x4xf32>"]
        );
        let starts = c.ints(&[1, 0]);
        let ends = c.ints(&[100, -1]);
        let axes = c.ints(&[1, 2]);
        assert_eq!(
            c.op("Slice", &[x, starts, ends, axes, n], 1, &[]).unwrap(),
            ["tensor<2x2x3xf32>"]
        );
        let idx = c.arg(&[5, 6], TypeData::int(64));
        assert_eq!(
            c.op("Gather", &[x, idx], 1, &[("axis", ax1)]).unwrap(),
            ["tensor<2x5x6x4xf32>"]
        );
        let es = c.ints(&[7, 2, 3, 4]);
        assert_eq!(
            c.op("Expand", &[x, es], 1, &[]).unwrap(),
            ["tensor<7x2x3x4xf32>"]
        );
        let pads = c.ints(&[0, 1, 1, 0, 1, 1]);
        assert_eq!(
            c.op("Pad", &[x, pads, n, n], 1, &[]).unwrap(),
            ["tensor<2x5x6xf32>"]
        );
        assert_eq!(c.op("Shape", &[x], 1, &[]).unwrap(), ["tensor<3xi64>"]);
        let to = c.int(7);
        assert_eq!(
            c.op("Cast", &[x], 1, &[("to", to)]).unwrap(),
            ["tensor<2x3x4xi64>"]
        );
        let k = c.ints(&[2]);
        assert_eq!(
            c.op("TopK", &[x, k], 2, &[]).unwrap(),
            ["tensor<2x3x2xf32>", "tensor<2x3x2xi64>"]
        );
    }

    #[test]
    fn resize_einsum_and_quantization() {
        let mut c = Check::new();
        let x = c.f32(&[1, 3, 8, 8]);
        let n = c.none();
        let sizes = c.ints(&[1, 3, 16, 12]);
        assert_eq!(
            c.op("Resize", &[x, n, n, sizes], 1, &[]).unwrap(),
            ["tensor<1x3x16x12xf32>"]
        );
        let a = c.f32(&[2, 3]);
        let b = c.f32(&[3, 5]);
        let eq = c.ctx.string_attr("ij,jk->ik");
        assert_eq!(
            c.op("Einsum", &[a, b], 1, &[("equation", eq)]).unwrap(),
            ["tensor<2x5xf32>"]
        );
        let scale = c.f32(&[]);
        let zp = c.arg(&[], TypeData::int(8));
        assert_eq!(
            c.op("QuantizeLinear", &[x, scale, zp], 1, &[]).unwrap(),
            ["tensor<1x3x8x8xi8>"]
        );
        let q = c.arg(&[4], TypeData::int(8));
        assert_eq!(
            c.op("DequantizeLinear", &[q, scale, zp], 1, &[]).unwrap(),
            ["tensor<4xf32>"]
        );
        assert_eq!(
            c.op("DynamicQuantizeLinear", &[a], 3, &[]).unwrap(),
            ["tensor<2x3xui8>", "tensor<f32>", "tensor<ui8>"]
        );
    }
}
