//! Type and shape inference for graph ops, one file per op family, and the verifier built on it.
//!
//! Every rule is a unit struct implementing [`InferShapedTypeOpInterface`]: from an op's operand
//! types, attributes and constant operands it computes the element type and shape of each
//! result, with [`DYNAMIC`] dims where they are unknown.
//! Callers never name ops: [`infer`] asks the registry for the op's implementation
//! (`ctx.op_interface::<dyn InferShapedTypeOpInterface>(op)`), so the verifier ([`verify_op`]),
//! the ONNX importer and any pass get the same answer.
//!
//! # Families
//!
//! | file | ops |
//! |---|---|
//! | [`elementwise`] | unary math and activations, broadcasting binary and variadic ops, comparisons, `Where`, casts, `Dropout` |
//! | [`conv_pool`] | `Conv`, `ConvTranspose`, `DeformConv`, windowed and global pooling, `MaxRoiPool`, `RoiAlign` |
//! | [`matmul`] | `MatMul`, `Gemm`, `Einsum`, `Det` |
//! | [`reduce`] | `Reduce*`, `ArgMax`/`ArgMin`, `TopK`, `CumSum`/`CumProd` |
//! | [`norm`] | batch, layer, instance, group and RMS normalization, `LRN`, `Softmax` and its kin |
//! | [`shape`] | `Reshape`, `Flatten`, `Squeeze`, `Unsqueeze`, `Transpose`, `Concat`, `Split`, `Slice`, `Expand`, `Tile`, `Pad`, `Shape`, `Size`, depth/space rearrangement |
//! | [`resize`] | `Resize`, `Upsample` |
//! | [`indexing`] | gathers and scatters, `NonZero`, `Compress`, `NonMaxSuppression`, `OneHot`, `Trilu`, `ReverseSequence` |
//! | [`generate`] | ops that make tensors: `Constant`, `ConstantOfShape`, `Range`, `EyeLike`, random ops, windows |
//! | [`quant`] | `QuantizeLinear`, `DequantizeLinear`, `DynamicQuantizeLinear`, the integer and `QLinear` convolutions and products |
//! | [`control`] | `If`, `Loop` and `Scan`: results from the subgraph regions, whose signatures they check |
//! | [`sequence`] | the tensor results of sequence and optional ops (`SequenceAt`, `SequenceLength`, ...) |
//!
//! Each file starts with a `RULES` table: for each rule (a unit struct of that file), the ONNX
//! ops it covers. [`WITHOUT_INFERENCE`] lists, with the reason, every op that has no rule.
//!
//! # How the rules are attached, and why
//!
//! The rules are declared in the ops' generated `OpDef`s (`interfaces: &[interface_impl!(...)]`):
//! `scripts/gen_graph_ops.py` reads the `RULES` tables of these files (and of [`crate::cost`])
//! and emits the declarations into `ops_generated.rs`.
//! Declaring rather than attaching in `register()` (`Context::attach_interface`) is what
//! `nart_ir::interfaces` asks of a dialect for its own ops: the `OpDef` stays the one place that
//! says what an op is, so every context that registers the dialect, however it does so, verifies
//! with inference, and the generated docs list each op's interfaces.
//! Keeping the tables here rather than in the script keeps each rule next to the ops it covers;
//! the script only copies them, and its `--check` (run by a unit test) fails when a table and the
//! generated file disagree.
//!
//! # Messages
//!
//! [`verify_op`] reports inference errors MLIR-style (`'graph.Add' op operands are not
//! broadcast-compatible: ...`) and results whose declared type contradicts the inferred one
//! (`result #0 has type tensor<4xf16> but inference gives tensor<4xf32>`).

use nart_ir::interfaces::{InferShapedTypeOpInterface, ShapedTypeComponents};
use nart_ir::{
    AttrData, Context, DenseArrayData, DenseData, Diagnostic, Op, Type, TypeData, DYNAMIC,
};

/// Declares inference rules: `Name = |i| ...;` defines the unit struct `Name`, whose
/// [`InferShapedTypeOpInterface`] implementation runs the closure on the op's [`In`] view.
macro_rules! rules {
    ($($(#[$doc:meta])* $name:ident = $f:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;

        impl nart_ir::interfaces::InferShapedTypeOpInterface for $name {
            fn infer_shaped_results(
                &self,
                ctx: &nart_ir::Context,
                op: nart_ir::Op,
            ) -> $crate::infer::InferResult {
                let rule: fn(&$crate::infer::In<'_>) -> $crate::infer::InferResult = $f;
                rule(&$crate::infer::In { ctx, op })
            }
        }
    )*};
}

pub mod control;
pub mod conv_pool;
pub mod elementwise;
pub mod generate;
pub mod indexing;
pub mod matmul;
pub mod norm;
pub mod quant;
pub mod reduce;
pub mod resize;
pub mod sequence;
pub mod shape;

#[cfg(test)]
pub(crate) mod testing;

/// An inferred result: an element type and a shape (`None` when even the rank is unknown).
pub type Shaped = ShapedTypeComponents;

/// Per result: what inference knows (`None` where it knows nothing about that result).
pub type Results = Vec<Option<Shaped>>;

/// What a rule returns: the results, `Ok(None)` when it knows nothing, or a message when the
/// operands are inconsistent (the return type of [`InferShapedTypeOpInterface`]).
pub type InferResult = Result<Option<Results>, String>;

type R = InferResult;

/// A family file's table: each rule (a unit struct of the file) and the ONNX ops it covers.
pub type Rules = &'static [(&'static str, &'static [&'static str])];

/// The ops that have no inference rule, each with the reason.
/// The verifier checks only their operand and result constraints; the importer types their
/// results from the model's `value_info`, from the importer's sequence rules, or from the
/// subgraph, in that order.
#[rustfmt::skip]
pub const WITHOUT_INFERENCE: &[(&str, &str)] = &[
    ("graph.constant", "its verifier checks the result against the 'value' attribute"),
    ("graph.none", "its result is always 'none'"),
    ("graph.yield", "a terminator without results"),
    ("graph.Optional", "the result is an optional, which shaped type components cannot describe"),
    ("graph.SequenceConstruct", "the result is a sequence"),
    ("graph.SequenceEmpty", "the result is a sequence"),
    ("graph.SequenceErase", "the result is a sequence"),
    ("graph.SequenceInsert", "the result is a sequence"),
    ("graph.SplitToSequence", "the result is a sequence"),
    ("graph.ImageDecoder", "the output shape depends on the encoded image's header"),
    ("graph.StringSplit", "the number of substrings depends on the data"),
    ("graph.StringNormalizer", "stopword removal changes the length by the data"),
    ("graph.TfIdfVectorizer", "not written yet: the output width comes from the n-gram pool attributes"),
    ("graph.Unique", "not written yet: the lengths depend on the data, only the ranks are known"),
    ("graph.MelWeightMatrix", "not written yet: the shape comes from constant operands"),
    ("graph.DFT", "not written yet: the signal dims change with onesided and inverse"),
    ("graph.STFT", "not written yet: frames and bins come from constant operands"),
    ("graph.Col2Im", "not written yet: the shape comes from constant image and block shapes"),
    ("graph.CenterCropPad", "not written yet: the shape comes from a constant operand"),
    ("graph.GridSample", "not written yet: spatial dims come from the grid"),
    ("graph.AffineGrid", "not written yet: the shape comes from a constant size operand"),
    ("graph.MaxUnpool", "not written yet: the shape comes from kernel attributes or a constant operand"),
    ("graph.RNN", "not written yet: the recurrent family's outputs depend on direction and layout"),
    ("graph.GRU", "not written yet: the recurrent family's outputs depend on direction and layout"),
    ("graph.LSTM", "not written yet: the recurrent family's outputs depend on direction and layout"),
    ("graph.Attention", "not written yet: four outputs whose shapes depend on caches and head counts"),
    ("graph.LinearAttention", "not written yet: the outputs depend on head counts and the update rule"),
    ("graph.CausalConvWithState", "not written yet: the state output depends on the kernel size"),
    ("graph.NegativeLogLikelihoodLoss", "not written yet: the shape depends on the reduction attribute"),
    ("graph.SoftmaxCrossEntropyLoss", "not written yet: the shape depends on the reduction attribute"),
];

/// Infers the result types of `op` through its [`InferShapedTypeOpInterface`] implementation;
/// `Ok(None)` when the op has none.
pub fn infer(ctx: &Context, op: Op) -> R {
    let Some(rule) = ctx.op_interface::<dyn InferShapedTypeOpInterface>(op) else {
        return Ok(None);
    };
    let res = rule.infer_shaped_results(ctx, op)?;
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

/// Interns the tensor type of an inferred result.
pub fn intern(ctx: &mut Context, s: &Shaped) -> Type {
    s.tensor_type(ctx)
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

/// What a rule sees of an op: its operands, attributes and constant operands.
pub(crate) struct In<'a> {
    pub(crate) ctx: &'a Context,
    pub(crate) op: Op,
}

impl<'a> In<'a> {
    /// The number of operands.
    pub(crate) fn n(&self) -> usize {
        self.ctx.operands(self.op).len()
    }

    /// The type of operand `i`, unless it is absent (`none`).
    pub(crate) fn ty(&self, i: usize) -> Option<Type> {
        let ops = self.ctx.operands(self.op);
        let ty = self.ctx.value_type(*ops.get(i)?);
        match self.ctx.type_data(ty) {
            TypeData::None => None,
            _ => Some(ty),
        }
    }

    /// Whether optional operand `i` is given.
    pub(crate) fn present(&self, i: usize) -> bool {
        self.ty(i).is_some()
    }

    /// Element type and shape of operand `i`.
    pub(crate) fn shaped(&self, i: usize) -> Result<Shaped, String> {
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

    /// Operand `i`'s type as messages print it.
    pub(crate) fn type_str(&self, i: usize) -> String {
        self.ty(i)
            .map_or_else(|| "none".to_string(), |t| fmt_type(self.ctx, t))
    }

    /// The integer values of constant operand `i`, if it is a `graph.constant`.
    pub(crate) fn const_ints(&self, i: usize) -> Option<Vec<i64>> {
        let v = *self.ctx.operands(self.op).get(i)?;
        let def = self.ctx.defining_op(v)?;
        if self.ctx.op_name_str(def) != "graph.constant" {
            return None;
        }
        dense_ints(self.ctx, self.ctx.attr(def, "value")?)
    }

    /// The float values of constant operand `i`.
    pub(crate) fn const_floats(&self, i: usize) -> Option<Vec<f64>> {
        let v = *self.ctx.operands(self.op).get(i)?;
        let def = self.ctx.defining_op(v)?;
        if self.ctx.op_name_str(def) != "graph.constant" {
            return None;
        }
        dense_floats(self.ctx, self.ctx.attr(def, "value")?)
    }

    /// Integer attribute `name`, or `default`.
    pub(crate) fn int(&self, name: &str, default: i64) -> i64 {
        self.ctx
            .attr(self.op, name)
            .and_then(|a| self.ctx.attr_int(a))
            .map_or(default, |v| v as i64)
    }

    /// Integer array attribute `name`.
    pub(crate) fn ints(&self, name: &str) -> Option<Vec<i64>> {
        match self.ctx.attr_data(self.ctx.attr(self.op, name)?) {
            AttrData::DenseArray {
                data: DenseArrayData::Int(v),
                ..
            } => Some(v.clone()),
            _ => None,
        }
    }

    /// Float array attribute `name`.
    pub(crate) fn floats(&self, name: &str) -> Option<Vec<f64>> {
        match self.ctx.attr_data(self.ctx.attr(self.op, name)?) {
            AttrData::DenseArray {
                data: DenseArrayData::Float(v),
                ..
            } => Some(v.iter().map(|b| f64::from_bits(*b)).collect()),
            _ => None,
        }
    }

    /// String attribute `name`, or `default`.
    pub(crate) fn string(&self, name: &str, default: &'static str) -> String {
        self.ctx
            .attr(self.op, name)
            .and_then(|a| self.ctx.attr_str(a))
            .unwrap_or(default)
            .to_string()
    }

    /// The number of results.
    pub(crate) fn n_results(&self) -> usize {
        self.ctx.results(self.op).len()
    }

    /// The types region `r`'s `graph.yield` returns, or `None` when the region has no block or
    /// does not end in a `graph.yield` (the core verifier reports that).
    pub(crate) fn yields(&self, r: usize) -> Option<Vec<Type>> {
        let region = *self.ctx.regions(self.op).get(r)?;
        let block = *self.ctx.region_blocks(region).first()?;
        let last = self.ctx.block_last_op(block)?;
        if self.ctx.op_name_str(last) != "graph.yield" {
            return None;
        }
        Some(
            self.ctx
                .operands(last)
                .iter()
                .map(|v| self.ctx.value_type(*v))
                .collect(),
        )
    }

    /// The argument types of region `r`'s block, or `None` when it has no block.
    pub(crate) fn region_args(&self, r: usize) -> Option<Vec<Type>> {
        let region = *self.ctx.regions(self.op).get(r)?;
        let block = *self.ctx.region_blocks(region).first()?;
        Some(
            self.ctx
                .block_args(block)
                .iter()
                .map(|v| self.ctx.value_type(*v))
                .collect(),
        )
    }
}

/// The integer elements of a dense elements attribute with an integer element type.
/// Unsigned elements are zero-extended, so a `ui64` from 2^63 on reads as a negative `i64`:
/// code that computes on values rather than shapes uses [`dense_uints`] for unsigned types.
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

/// The elements of a dense elements attribute with an unsigned integer element type.
pub fn dense_uints(ctx: &Context, attr: nart_ir::Attr) -> Option<Vec<u64>> {
    let AttrData::DenseElements { ty, .. } = ctx.attr_data(attr) else {
        return None;
    };
    let TypeData::RankedTensor { elem, .. } = ctx.type_data(*ty) else {
        return None;
    };
    if !matches!(
        ctx.type_data(*elem),
        TypeData::Integer {
            signedness: nart_ir::Signedness::Unsigned,
            ..
        }
    ) {
        return None;
    }
    // `dense_ints` zero-extends unsigned elements, so the cast back is exact.
    Some(
        dense_ints(ctx, attr)?
            .into_iter()
            .map(|v| v as u64)
            .collect(),
    )
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
        TypeData::Integer {
            signedness: nart_ir::Signedness::Unsigned,
            ..
        } => return dense_uints(ctx, attr).map(|v| v.into_iter().map(|x| x as f64).collect()),
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
// ----- helpers shared by the families -----

/// The only result of a one-result op.
pub(crate) fn one(s: Shaped) -> R {
    Ok(Some(vec![Some(s)]))
}

/// A result with element type `elem` and shape `shape`.
pub(crate) fn t(elem: TypeData, shape: Option<Vec<i64>>) -> Shaped {
    Shaped { elem, shape }
}

pub(crate) fn i64_elem() -> TypeData {
    TypeData::int(64)
}

pub(crate) fn i32_elem() -> TypeData {
    TypeData::int(32)
}

pub(crate) fn bool_elem() -> TypeData {
    TypeData::int(1)
}

pub(crate) fn f32_elem() -> TypeData {
    TypeData::Float(nart_ir::FloatKind::F32)
}

pub(crate) fn ui8_elem() -> TypeData {
    TypeData::Integer {
        width: 8,
        signedness: nart_ir::Signedness::Unsigned,
    }
}

/// The element type an ONNX type code attribute names.
pub(crate) fn elem_of_code(code: i64, attr: &str) -> Result<TypeData, String> {
    crate::constraints::elem_type_data(code as i32)
        .ok_or_else(|| format!("attribute '{attr}' holds unknown ONNX type code {code}"))
}

/// `axis` in `[-rank, rank)`, made non-negative.
pub(crate) fn norm_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if a < 0 || a >= r {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(a as usize)
}

/// `axis` in `[-rank, rank]`, made non-negative (an axis between dims, as `Flatten`'s).
pub(crate) fn norm_axis_incl(axis: i64, rank: usize) -> Result<usize, String> {
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
    for (i, o) in out.iter_mut().enumerate() {
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
        *o = match (x, y) {
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

pub(crate) fn div_floor(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// Rounds `a / b` up; `b` must be positive.
pub(crate) fn div_ceil(a: i64, b: i64) -> i64 {
    a.div_euclid(b) + i64::from(a.rem_euclid(b) != 0)
}

/// The number of elements of a shape: dynamic when a dim is, or when it overflows.
pub(crate) fn prod(s: &[i64]) -> i64 {
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
pub(crate) fn dmul(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC {
        DYNAMIC
    } else {
        a.checked_mul(b).unwrap_or(DYNAMIC)
    }
}

/// `a + b` on dims: dynamic when either is, or when it overflows.
pub(crate) fn dadd(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC {
        DYNAMIC
    } else {
        a.checked_add(b).unwrap_or(DYNAMIC)
    }
}

/// The dims `axes` of `s` removed, or kept as 1 when `keep`.
pub(crate) fn reduce_shape(s: &[i64], axes: &[usize], keep: bool) -> Vec<i64> {
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

/// The most precise shape two values both have: equal dims stay, others become dynamic, and a
/// rank mismatch gives an unranked result.
pub(crate) fn join_shapes(a: Option<&[i64]>, b: Option<&[i64]>) -> Option<Vec<i64>> {
    match (a, b) {
        (Some(a), Some(b)) if a.len() == b.len() => Some(
            a.iter()
                .zip(b)
                .map(|(&x, &y)| if x == y { x } else { DYNAMIC })
                .collect(),
        ),
        _ => None,
    }
}

/// The element type and shape of a tensor type; `None` for other types.
pub(crate) fn shaped_of(ctx: &Context, ty: Type) -> Option<Shaped> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, elem, .. } => {
            Some(t(ctx.type_data(*elem).clone(), Some(shape.clone())))
        }
        TypeData::UnrankedTensor { elem } => Some(t(ctx.type_data(*elem).clone(), None)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every family's `RULES` table, by file.
    pub(crate) const FAMILIES: &[(&str, Rules)] = &[
        ("control", control::RULES),
        ("conv_pool", conv_pool::RULES),
        ("fused", crate::fused::INFER_RULES),
        ("pool", crate::pool::INFER_RULES),
        ("reorder", crate::reorder::INFER_RULES),
        ("elementwise", elementwise::RULES),
        ("generate", generate::RULES),
        ("indexing", indexing::RULES),
        ("matmul", matmul::RULES),
        ("norm", norm::RULES),
        ("quant", quant::RULES),
        ("reduce", reduce::RULES),
        ("resize", resize::RULES),
        ("sequence", sequence::RULES),
        ("shape", shape::RULES),
    ];

    fn ctx() -> Context {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        ctx
    }

    fn has_rule(ctx: &mut Context, name: &str) -> bool {
        let id = ctx.ident(name);
        ctx.op_interface_by_name::<dyn InferShapedTypeOpInterface>(id)
            .is_some()
    }

    /// Every graph op has an inference rule or is listed, with a reason, in
    /// `WITHOUT_INFERENCE`; a listed op that gets a rule must leave the list.
    #[test]
    fn every_op_has_a_rule_or_is_listed_without_one() {
        let mut ctx = ctx();
        let listed: BTreeSet<&str> = WITHOUT_INFERENCE.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            listed.len(),
            WITHOUT_INFERENCE.len(),
            "an op is listed twice"
        );
        let mut missing = Vec::new();
        let mut both = Vec::new();
        for def in crate::all_ops() {
            match (has_rule(&mut ctx, def.name), listed.contains(def.name)) {
                (false, false) => missing.push(def.name),
                (true, true) => both.push(def.name),
                _ => {}
            }
        }
        assert!(
            missing.is_empty(),
            "ops without an inference rule that WITHOUT_INFERENCE does not list: {missing:?}"
        );
        assert!(
            both.is_empty(),
            "ops with a rule that WITHOUT_INFERENCE still lists: {both:?}"
        );
        for (name, why) in WITHOUT_INFERENCE {
            assert!(
                crate::all_ops().iter().any(|d| d.name == *name),
                "WITHOUT_INFERENCE lists {name}, which is not an op"
            );
            assert!(!why.is_empty(), "{name} is listed without a reason");
        }
    }

    /// The `RULES` tables and the declarations agree: every listed op declares a rule, no op is
    /// listed twice, and every op that declares a rule is listed (the generator's `--check`
    /// also checks which rule).
    #[test]
    fn rules_tables_match_the_declarations() {
        let mut ctx = ctx();
        let mut seen = BTreeSet::new();
        for (file, rules) in FAMILIES {
            for (rule, ops) in *rules {
                for op in *ops {
                    let name = format!("graph.{op}");
                    assert!(seen.insert(name.clone()), "{name} is in two rules");
                    assert!(
                        has_rule(&mut ctx, &name),
                        "{file}::{rule} lists {op}, whose OpDef declares no rule"
                    );
                }
            }
        }
        for def in crate::all_ops() {
            if has_rule(&mut ctx, def.name) {
                assert!(seen.contains(def.name), "{} is in no RULES table", def.name);
            }
        }
    }
}
