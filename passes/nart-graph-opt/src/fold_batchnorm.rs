//! `graph-fold-batchnorm`: an inference `BatchNormalization` folded into the `Conv`, `Gemm` or
//! `MatMul` that produces its input.
//!
//! With `s = scale / sqrt(var + epsilon)` and `t = B - mean * s` per channel `c` (dimension 1
//! of the BatchNorm's input), `BN(y) = y * s + t`:
//! - `Conv(x, W, b)`: `W'[c] = W[c] * s[c]`, `b'[c] = b[c] * s[c] + t[c]` (`b = 0` when absent);
//! - `Gemm(A, B, C)` (2-D output, channel = column): column `c` of `op(B)` times `s[c]` (row `c`
//!   of `B` with `transB`), `C'[c] = beta * C[c] * s[c] + t[c]` with `beta` set to 1 (`C` a
//!   scalar or a row, or absent);
//! - `MatMul(A, B)` with a constant 2-D `B` and a 2-D output: column `c` of `B` times `s[c]`,
//!   then an `Add` of `t`.
//!
//! The fold applies when the BatchNorm is in inference mode with only its first result used,
//! every parameter is a constant of one value per channel, the weight is a float constant, and
//! the producer has no other user. This is the one implementation of BatchNorm folding:
//! `nart-quant`'s `quant-apply` calls [`fold_into_producer`].

use nart_ir::{
    Attr, AttrData, Context, DenseData, FloatKind, Op, PatternRewriter, RewritePattern, Type,
    TypeData, Value,
};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::{apply_patterns_greedily, FrozenPatternSet, GreedyConfig, RegionSimplification};
use nart_tensor::{DType, Tensor};

use crate::util;

nart_pass::declare_pass! {
    /// The `graph-fold-batchnorm` pass.
    pub struct FoldBatchNormPass {
        argument: "graph-fold-batchnorm",
        name: "GraphFoldBatchNorm",
        summary: "Fold inference BatchNormalization into a preceding Conv, Gemm or MatMul",
        description: "Scales the producer's constant weights per output channel by \
            `scale / sqrt(var + epsilon)` and shifts its bias (a new bias for Conv and Gemm, an \
            Add after a MatMul), then removes the BatchNormalization.\n\
            Applies only in inference mode, with constant parameters and weights, and when the \
            producer has no other user.",
        options: nart_pass::NoOptions,
        statistics: [
            "num-folded" => "Number of BatchNormalization ops folded",
        ],
    }
}

impl Pass for FoldBatchNormPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let config = GreedyConfig {
            region_simplification: RegionSimplification::Disabled,
            fold: false,
            ..GreedyConfig::default()
        };
        let set =
            FrozenPatternSet::new([&FOLD_BATCHNORM as &'static dyn RewritePattern], Vec::new());
        let res = apply_patterns_greedily(ctx, op, &set, &config);
        state.add_stat("num-folded", res.num_pattern_applications() as u64);
        Ok(())
    }
}

/// The pattern: `BN(producer(...)) → producer'(...)`.
pub struct FoldBatchNorm;

/// The one instance of [`FoldBatchNorm`].
pub static FOLD_BATCHNORM: FoldBatchNorm = FoldBatchNorm;

impl RewritePattern for FoldBatchNorm {
    fn name(&self) -> &'static str {
        "FoldBatchNorm"
    }
    fn root(&self) -> Option<&'static str> {
        Some("graph.BatchNormalization")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        match fold(rw, op, &["Conv", "Gemm", "MatMul"]) {
            Ok(_) => true,
            Err(why) => rw.match_failure(why),
        }
    }
}

/// Folds the BatchNorm `bn` into its producer when that is one of `kinds` (ONNX names among
/// `Conv`, `Gemm`, `MatMul`); returns the value that replaced the BatchNorm's output, or why
/// it does not apply (the IR is unchanged then).
pub fn fold_into_producer(
    ctx: &mut Context,
    bn: Op,
    kinds: &[&str],
) -> Result<Value, &'static str> {
    let mut rw = PatternRewriter::new(ctx);
    fold(&mut rw, bn, kinds)
}

/// The per-channel factors `(s, t)` of an inference BatchNorm, if it can be folded.
pub(crate) fn bn_factors(ctx: &Context, bn: Op) -> Result<(Vec<f64>, Vec<f64>), &'static str> {
    if ctx.operands(bn).len() != 5 {
        return Err("the BatchNorm does not have five operands");
    }
    if util::attr_int(ctx, bn, "training_mode", 0) != 0 {
        return Err("the BatchNorm is in training mode");
    }
    if ctx.results(bn)[1..].iter().any(|&r| ctx.has_uses(r)) {
        return Err("the running mean or variance is used");
    }
    let mut params = Vec::new();
    for i in 1..5 {
        let v = util::const_tensor(ctx, ctx.operand(bn, i))
            .and_then(|t| t.to_f64_vec().ok())
            .ok_or("a BatchNorm parameter is not a constant")?;
        params.push(v);
    }
    let c = params[0].len();
    if params.iter().any(|p| p.len() != c) {
        return Err("the BatchNorm parameters differ in length");
    }
    let eps = util::attr_float(ctx, bn, "epsilon", 1e-5);
    let s: Vec<f64> = (0..c)
        .map(|i| params[0][i] / (params[3][i] + eps).sqrt())
        .collect();
    let t: Vec<f64> = (0..c).map(|i| params[1][i] - params[2][i] * s[i]).collect();
    Ok((s, t))
}

pub(crate) fn float_dtype(d: DType) -> bool {
    matches!(d, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
}

fn fold(rw: &mut PatternRewriter<'_>, bn: Op, kinds: &[&str]) -> Result<Value, &'static str> {
    let x = rw.operand(bn, 0);
    let producer = rw.defining_op(x).ok_or("the input is not an op's result")?;
    let kind = kinds
        .iter()
        .find(|k| util::is_op(rw, producer, k))
        .ok_or("the input is not made by a Conv, Gemm or MatMul")?;
    if rw.uses(x).len() != 1 {
        return Err("the producer has other users");
    }
    if rw.value_type(x) != rw.value_type(rw.result(bn, 0)) {
        return Err("the BatchNorm changes the type");
    }
    let (s, t) = bn_factors(rw, bn)?;
    let c = s.len();
    let w_val = rw.operand(producer, 1);
    let elem_ty = rw.element_type(rw.value_type(w_val));
    let w = Weight::read(rw, w_val, elem_ty)?;
    if !float_dtype(w.dtype) {
        return Err("the weight is not a float tensor");
    }
    let out_shape = rw
        .shape_of(rw.value_type(x))
        .ok_or("the output is unranked")?
        .to_vec();
    if out_shape.get(1).is_some_and(|&d| d >= 0 && d as usize != c) {
        return Err("the channel count differs from the parameters'");
    }
    let shape = w.shape.clone();
    let loc = rw.op_loc(bn);
    rw.set_insertion_point_before(producer);
    let out = rw.result(producer, 0);
    let new_out = match *kind {
        "Conv" => {
            if shape.first() != Some(&c) {
                return Err("the weight's output channels differ from the parameters'");
            }
            let bias = match util::opt_operand(rw, producer, 2) {
                Some(b) => util::const_tensor(rw, b)
                    .and_then(|t| t.to_f64_vec().ok())
                    .filter(|v| v.len() == c)
                    .ok_or("the bias is not a constant of one value per channel")?,
                None => vec![0.0; c],
            };
            let per = w.len() / c.max(1);
            let new_b: Vec<f64> = (0..c).map(|i| bias[i] * s[i] + t[i]).collect();
            let wloc = rw.value_loc(w_val);
            let w2 = w.scaled(rw, &s, Channels::Runs(per), elem_ty, wloc)?;
            let bloc = util::derived_loc(rw.uniq(), loc, "folded_bias");
            let b2 = constant(rw, w.dtype, &[c], new_b, elem_ty, bloc)?;
            let xin = rw.operand(producer, 0);
            rw.set_operands(producer, &[xin, w2, b2]);
            out
        }
        "Gemm" => {
            if out_shape.len() != 2 || shape.len() != 2 {
                return Err("the Gemm is not 2-D");
            }
            let trans_b = util::attr_int(rw, producer, "transB", 0) != 0;
            let (rows, cols) = (shape[0], shape[1]);
            let n = if trans_b { rows } else { cols };
            if n != c {
                return Err("the Gemm's output columns differ from the parameters'");
            }
            let layout = if trans_b {
                Channels::Runs(cols)
            } else {
                Channels::Columns(cols)
            };
            let beta = util::attr_float(rw, producer, "beta", 1.0);
            let bias = match util::opt_operand(rw, producer, 2) {
                Some(b) => {
                    let bt = util::const_tensor(rw, b).ok_or("the Gemm's C is not a constant")?;
                    let bv = bt.to_f64_vec().map_err(|_| "the Gemm's C cannot be read")?;
                    let row = bt.rank() <= 1 || (bt.rank() == 2 && bt.shape()[0] == 1);
                    match bv.len() {
                        1 => vec![bv[0]; c],
                        l if l == c && row => bv,
                        _ => return Err("the Gemm's C is not a scalar or a row"),
                    }
                }
                None => vec![0.0; c],
            };
            let new_b: Vec<f64> = (0..c).map(|i| beta * bias[i] * s[i] + t[i]).collect();
            let wloc = rw.value_loc(w_val);
            let w2 = w.scaled(rw, &s, layout, elem_ty, wloc)?;
            let bloc = util::derived_loc(rw.uniq(), loc, "folded_bias");
            let b2 = constant(rw, w.dtype, &[c], new_b, elem_ty, bloc)?;
            let a = rw.operand(producer, 0);
            rw.set_operands(producer, &[a, w2, b2]);
            let f32t = rw.uniq().f32_type();
            let one = rw.uniq().float_attr(f32t, 1.0);
            rw.set_prop(producer, "beta", one);
            out
        }
        _ => {
            if out_shape.len() != 2 || shape.len() != 2 || shape[1] != c {
                return Err("the MatMul is not 2-D with one weight column per channel");
            }
            let wloc = rw.value_loc(w_val);
            let w2 = w.scaled(rw, &s, Channels::Columns(shape[1]), elem_ty, wloc)?;
            let bloc = util::derived_loc(rw.uniq(), loc, "folded_shift");
            let b2 = constant(rw, w.dtype, &[c], t, elem_ty, bloc)?;
            let a = rw.operand(producer, 0);
            rw.set_operands(producer, &[a, w2]);
            rw.set_insertion_point_after(producer);
            let ty = rw.value_type(out);
            let add = util::build_op(rw, "Add", loc, &[out, b2], &[ty], &[]);
            rw.result(add, 0)
        }
    };
    let y = rw.result(bn, 0);
    rw.replace_all_uses_with(y, new_out);
    rw.erase_op(bn);
    Ok(new_out)
}

/// Which factor of `s` scales each element of a weight.
#[derive(Clone, Copy, Debug)]
enum Channels {
    /// Runs of this many consecutive elements share a channel, in channel order (a `Conv`'s
    /// output channel, a row of a `Gemm`'s `B` with `transB`): element `i` has channel
    /// `i / n`.
    Runs(usize),
    /// Rows of this many elements, one per channel (a column of `B`): element `i` has
    /// channel `i % n`.
    Columns(usize),
}

impl Channels {
    /// The channel of element `i`.
    fn of(self, i: usize) -> usize {
        match self {
            Channels::Runs(n) => i / n,
            Channels::Columns(n) => i % n,
        }
    }
}

/// A producer's constant weight, read once.
struct Weight {
    attr: Attr,
    dtype: DType,
    shape: Vec<usize>,
    /// The weight decoded; `None` when it is a dense `f32` constant of the weight's own
    /// element type, whose bytes [`Weight::scaled`] reads straight from the attribute.
    tensor: Option<Tensor>,
}

impl Weight {
    fn read(rw: &PatternRewriter<'_>, v: Value, elem_ty: Type) -> Result<Weight, &'static str> {
        const NOT_CONST: &str = "the weight is not a constant";
        let attr = nart_ir::interfaces::constant_of(rw, v).ok_or(NOT_CONST)?;
        let f32_elem = matches!(rw.type_data(elem_ty), TypeData::Float(FloatKind::F32));
        if let Some((shape, _)) = util::f32_elements(rw, attr).filter(|_| f32_elem) {
            return Ok(Weight {
                attr,
                dtype: DType::F32,
                shape,
                tensor: None,
            });
        }
        let t = nart_interp::convert::tensor_from_attr(rw, attr).map_err(|_| NOT_CONST)?;
        Ok(Weight {
            attr,
            dtype: t.dtype(),
            shape: t.shape().to_vec(),
            tensor: Some(t),
        })
    }

    fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// A new constant of the weight with every element times its channel's factor in `s`:
    /// the product in `f64`, rounded to the weight's type. An `f32` weight goes from its
    /// attribute's bytes to the new attribute's in one pass; the result is the same as
    /// through [`Tensor::to_f64_vec`] and [`Tensor::from_f64`] (`f32` to `f64` is exact, and
    /// both round the product with `as f32`), which the other types take.
    fn scaled(
        &self,
        rw: &mut PatternRewriter<'_>,
        s: &[f64],
        channels: Channels,
        elem_ty: Type,
        loc: nart_ir::Location,
    ) -> Result<Value, &'static str> {
        let Some(t) = &self.tensor else {
            let (_, bytes) =
                util::f32_elements(rw, self.attr).ok_or("the weight cannot be read")?;
            let out = scale_f32_bytes(bytes, s, channels);
            let ty = rw
                .uniq()
                .tensor_type(self.shape.iter().map(|&d| d as i64).collect(), elem_ty);
            let attr = rw.uniq().intern_attr(AttrData::DenseElements {
                ty,
                data: DenseData::Elements(out),
            });
            return Ok(util::build_constant_attr(rw, attr, ty, loc));
        };
        let wv = t.to_f64_vec().map_err(|_| "the weight cannot be read")?;
        let new_w: Vec<f64> = wv
            .iter()
            .enumerate()
            .map(|(i, &v)| v * s[channels.of(i)])
            .collect();
        constant(rw, self.dtype, &self.shape, new_w, elem_ty, loc)
    }
}

/// `f32` elements (little-endian bytes) times their channel's factor, each product taken in
/// `f64` and rounded to `f32`.
fn scale_f32_bytes(bytes: &[u8], s: &[f64], channels: Channels) -> Vec<u8> {
    fn times(a: &[u8], f: f64) -> [u8; 4] {
        let x = f32::from_le_bytes([a[0], a[1], a[2], a[3]]);
        ((f64::from(x) * f) as f32).to_le_bytes()
    }
    let mut out = vec![0u8; bytes.len()];
    match channels {
        Channels::Runs(n) => {
            let run = 4 * n.max(1);
            for ((src, dst), &f) in bytes.chunks(run).zip(out.chunks_mut(run)).zip(s) {
                for (a, b) in src.chunks_exact(4).zip(dst.chunks_exact_mut(4)) {
                    b.copy_from_slice(&times(a, f));
                }
            }
        }
        Channels::Columns(n) => {
            let row = 4 * n.max(1);
            for (src, dst) in bytes.chunks(row).zip(out.chunks_mut(row)) {
                for ((a, b), &f) in src.chunks_exact(4).zip(dst.chunks_exact_mut(4)).zip(s) {
                    b.copy_from_slice(&times(a, f));
                }
            }
        }
    }
    out
}

fn constant(
    rw: &mut PatternRewriter<'_>,
    dtype: DType,
    shape: &[usize],
    values: Vec<f64>,
    elem: nart_ir::Type,
    loc: nart_ir::Location,
) -> Result<Value, &'static str> {
    let t = Tensor::from_f64(dtype, shape.to_vec(), values).map_err(|_| "cannot build a tensor")?;
    let ty = rw
        .uniq()
        .tensor_type(shape.iter().map(|&d| d as i64).collect(), elem);
    util::build_constant(rw, &t, ty, loc).ok_or("cannot build a constant")
}

#[cfg(test)]
mod tests {
    use super::{scale_f32_bytes, Channels};
    use nart_tensor::{DType, Tensor};

    /// The weights through `Tensor`'s `f64` round trip, as the fold computes them for any
    /// other float type.
    fn through_f64(w: &[f32], s: &[f64], channels: Channels) -> Vec<u8> {
        let t = Tensor::from_f64(
            DType::F32,
            vec![w.len()],
            w.iter().map(|&x| f64::from(x)).collect(),
        )
        .unwrap();
        let wv = t.to_f64_vec().unwrap();
        let scaled: Vec<f64> = wv
            .iter()
            .enumerate()
            .map(|(i, &v)| v * s[channels.of(i)])
            .collect();
        Tensor::from_f64(DType::F32, vec![w.len()], scaled)
            .unwrap()
            .to_raw_bytes()
            .unwrap()
    }

    fn check(w: &[f32], s: &[f64], channels: Channels) {
        let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(
            scale_f32_bytes(&bytes, s, channels),
            through_f64(w, s, channels),
            "{channels:?}"
        );
    }

    /// Weights with awkward values: signed zeros, subnormals, infinities, NaN, products that
    /// round, overflow or underflow in f32.
    fn weights(n: usize, seed: u64) -> Vec<f32> {
        let special = [
            0.0,
            -0.0,
            1.0e-45,
            -3.0e-39,
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            0.1,
            -1.0 / 3.0,
        ];
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if i % 7 == 3 {
                    special[(x >> 33) as usize % special.len()]
                } else {
                    ((x >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 4.0
                }
            })
            .collect()
    }

    #[test]
    fn f32_bytes_match_the_f64_path() {
        let s = [0.3, -1.7e-5, 12345.678, 0.0, 1.0 / 3.0, 1e30, -2.5, 1e-40];
        for c in 1..=s.len() {
            for per in [1, 2, 9] {
                let w = weights(c * per, (c * 31 + per) as u64);
                check(&w, &s[..c], Channels::Runs(per));
            }
            for rows in [1, 3, 5] {
                let w = weights(rows * c, (c * 17 + rows) as u64);
                check(&w, &s[..c], Channels::Columns(c));
            }
        }
        check(&[], &s[..2], Channels::Runs(0));
        check(&[], &s[..2], Channels::Columns(2));
    }
}
