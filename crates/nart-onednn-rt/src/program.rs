//! The artifact of the `onednn` target: a versioned list of oneDNN operations over numbered
//! values, with the weights as blobs. [`Program::encode`] writes deterministic bytes (little
//! endian, no padding, no maps); [`Program::decode`] reads them back and checks every index,
//! count and size, so a truncated or corrupted artifact is an error, never a panic.
//!
//! Layout (version 3): `NDNN`, `u32` version, then the values (`u32` count; each a rank, its
//! dims as `i64`, a `u8` element type — 0 `f32`, 1 `u8`, 2 `s8`; version 1 has none and is
//! all `f32` — and a `u8` kind: 0 computed, 1 input, 2 constant followed by its `f32` data),
//! the input and output value lists, and the ops (`u32` count; each a `u8` kind, its
//! attributes, its operands and its results). An operand names a value and the dims (and,
//! optionally, the strides) the op sees it with, which is how reshapes and transposes cost
//! nothing. Version 3 adds op kinds 12 to 16 (the integer average pool, add, quantize,
//! dequantize and requantize) to version 2's layout, so that a runtime that predates them
//! reports the version instead of an unknown op kind.
//!
//! The integer ops ([`OpKind::QConv`], [`OpKind::QMatMul`], [`OpKind::QAvgPool`]) carry
//! their `s8` weights and their requantization ([`Requant`]) in the op itself: oneDNN
//! computes only the exact `s32` sums of products, and the runtime requantizes them as
//! `nart_tensor::qnn` does. A max [`OpKind::Pool`] also reads and writes one 8-bit type
//! (the largest stored value is exact); every other op is `f32`.

use std::fmt;
use std::sync::Arc;

use nart_tensor::qnn::Rounding;

/// The four bytes an artifact starts with.
pub const MAGIC: &[u8; 4] = b"NDNN";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 3;
/// The oldest format version this crate reads (version 1: every value `f32`).
pub const OLDEST_VERSION: u32 = 1;
/// The largest rank oneDNN takes.
pub const MAX_RANK: usize = 12;
/// A dynamic dim: the program's one size symbol (the batch), bound from the inputs at run
/// time. Every dynamic dim of a program is that same size; the compiler only emits ops for
/// which that holds.
pub const DYN: i64 = -1;

/// What a value is.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// The result of an op.
    Computed,
    /// An input of the segment.
    Input,
    /// A constant (weights), row-major `f32` (shared, so that specializing a program does
    /// not copy its weights).
    Constant(Arc<Vec<f32>>),
}

/// The element type of a value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Elem {
    /// `f32`.
    #[default]
    F32 = 0,
    /// Unsigned 8-bit integers (quantized).
    U8 = 1,
    /// Signed 8-bit integers (quantized).
    S8 = 2,
}

impl Elem {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Elem::F32 => 4,
            Elem::U8 | Elem::S8 => 1,
        }
    }

    /// The name in messages (`f32`, `u8`, `i8`, as nart-tensor names its dtypes).
    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::U8 => "u8",
            Elem::S8 => "i8",
        }
    }

    /// Whether it is an 8-bit integer type.
    pub fn is_int8(self) -> bool {
        matches!(self, Elem::U8 | Elem::S8)
    }

    fn decode(t: u8) -> Result<Elem, DecodeError> {
        match t {
            0 => Ok(Elem::F32),
            1 => Ok(Elem::U8),
            2 => Ok(Elem::S8),
            t => err(format!("unknown element type {t}")),
        }
    }
}

/// A value: a tensor of static shape.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueDef {
    /// Its dims (rank 0 for a scalar).
    pub dims: Vec<i64>,
    /// Its element type (constants are `f32`).
    pub elem: Elem,
    /// What it is.
    pub kind: ValueKind,
}

impl ValueDef {
    /// The number of elements.
    pub fn numel(&self) -> i64 {
        self.dims.iter().product()
    }
}

/// How an op sees a value: with these dims and, when given, these strides (in elements);
/// without strides, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// The value.
    pub value: u32,
    /// The dims the op sees.
    pub dims: Vec<i64>,
    /// The strides the op sees, if not row-major.
    pub strides: Option<Vec<i64>>,
}

impl Operand {
    /// The value seen with the given dims, row-major.
    pub fn new(value: u32, dims: Vec<i64>) -> Operand {
        Operand {
            value,
            dims,
            strides: None,
        }
    }
}

/// Pooling algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolAlg {
    /// Maximum.
    Max = 0,
    /// Average counting the padding.
    AvgIncludePad = 1,
    /// Average over the elements inside the input.
    AvgExcludePad = 2,
}

/// Element-wise functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eltwise {
    /// `x > 0 ? x : alpha * x`.
    Relu = 0,
    /// `tanh(x)`.
    Tanh = 1,
    /// `x > 0 ? x : alpha * (exp(x) - 1)`.
    Elu = 2,
    /// `|x|`.
    Abs = 3,
    /// `sqrt(x)`.
    Sqrt = 4,
    /// `alpha * x + beta`.
    Linear = 5,
    /// `1 / (1 + exp(-x))`.
    Logistic = 6,
    /// `exp(x)`.
    Exp = 7,
    /// `ln(x)`.
    Log = 8,
    /// `min(max(x, alpha), beta)`.
    Clip = 9,
    /// `0.5 x (1 + erf(x / sqrt 2))`.
    GeluErf = 10,
    /// The tanh approximation of GELU.
    GeluTanh = 11,
    /// `x * relu6(x + 3) / 6`.
    HardSwish = 12,
    /// `x * tanh(softplus(x))`.
    Mish = 13,
}

/// Binary functions (the second operand may broadcast).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryAlg {
    /// `a + b`.
    Add = 0,
    /// `a - b`.
    Sub = 1,
    /// `a * b`.
    Mul = 2,
    /// `a / b`.
    Div = 3,
    /// `max(a, b)`.
    Max = 4,
    /// `min(a, b)`.
    Min = 5,
}

/// An operation and its attributes.
#[derive(Clone, Debug, PartialEq)]
pub enum OpKind {
    /// Convolution: operands `x`, `w` (`[G, O/G, I/G, k...]` when grouped), optional bias;
    /// dilations as ONNX gives them (1 = dense).
    Conv {
        /// Group count.
        groups: i64,
        /// Strides per spatial axis.
        strides: Vec<i64>,
        /// Dilations per spatial axis.
        dilations: Vec<i64>,
        /// Padding before each spatial axis.
        pads_begin: Vec<i64>,
        /// Padding after each spatial axis.
        pads_end: Vec<i64>,
    },
    /// Matrix product over the last two dims, batch dims broadcast: `a`, `b`, optional bias.
    MatMul,
    /// Pooling over the spatial axes (dilations as ONNX gives them).
    Pool {
        /// Which.
        alg: PoolAlg,
        /// Window per spatial axis.
        kernel: Vec<i64>,
        /// Strides.
        strides: Vec<i64>,
        /// Dilations.
        dilations: Vec<i64>,
        /// Padding before.
        pads_begin: Vec<i64>,
        /// Padding after.
        pads_end: Vec<i64>,
    },
    /// An element-wise function.
    Eltwise {
        /// Which.
        alg: Eltwise,
        /// Its first parameter.
        alpha: f32,
        /// Its second parameter.
        beta: f32,
    },
    /// Softmax (or log-softmax) along one axis.
    Softmax {
        /// The axis.
        axis: i32,
        /// Log-softmax.
        log: bool,
    },
    /// Inference batch normalisation: `x`, scale, bias, mean, variance (channels on axis 1).
    BatchNorm {
        /// Epsilon.
        epsilon: f32,
    },
    /// Layer normalisation over the last axis: `x`, scale, optional bias.
    LayerNorm {
        /// Epsilon.
        epsilon: f32,
    },
    /// A binary function; the second operand may broadcast to the first's dims.
    Binary {
        /// Which.
        alg: BinaryAlg,
    },
    /// Copies the operand (seen through its dims and strides) into a row-major result.
    Reorder,
    /// The result is the operand's memory seen with other dims (no work).
    View,
    /// Integer convolution of a `u8`/`s8` operand (`[N, C, D...]`) with the op's `s8`
    /// weights, requantized to a `u8`/`s8` result by the runtime ([`Requant`]).
    QConv {
        /// Group count.
        groups: i64,
        /// Strides per spatial axis.
        strides: Vec<i64>,
        /// Dilations per spatial axis (1 = dense).
        dilations: Vec<i64>,
        /// Padding before each spatial axis.
        pads_begin: Vec<i64>,
        /// Padding after each spatial axis.
        pads_end: Vec<i64>,
        /// Weights and requantization.
        q: Requant,
    },
    /// Integer matrix product of a `u8`/`s8` operand seen as `[rows, K]` with the op's `s8`
    /// weights `[K, N]`, requantized to a `u8`/`s8` `[rows, N]` result by the runtime.
    QMatMul {
        /// Weights and requantization.
        q: Requant,
    },
    /// Integer average pooling of a `u8`/`s8` operand (`[N, C, D...]`): oneDNN sums each
    /// window exactly (a depthwise integer convolution with weights of 1, which `q` holds as
    /// `[C, 1, 1, k...]`), and the runtime requantizes each sum with the multiplier of the
    /// window's position count: `q.multipliers[n − 1]` for a window of `n` positions
    /// (`Sx / (Sy·n)`), `n` the positions inside the input unless `count_include_pad`.
    QAvgPool {
        /// Strides per spatial axis.
        strides: Vec<i64>,
        /// Padding before each spatial axis.
        pads_begin: Vec<i64>,
        /// Padding after each spatial axis.
        pads_end: Vec<i64>,
        /// Whether padded positions count in the divisor.
        count_include_pad: bool,
        /// The weights of 1, the input's zero point and the requantization.
        q: Requant,
    },
    /// Integer addition of two `u8`/`s8` operands of the result's dims, computed by the
    /// runtime with `qnn.add`'s exact rule ([`AddQuant`]; oneDNN's int8 binary ops scale and
    /// round in `f32`, which differs).
    QAdd {
        /// The operands' parameters and the requantization.
        q: AddQuant,
    },
    /// `qnn.requantize` of a `u8`/`s8` operand to a `u8`/`s8` result of its dims, computed by
    /// the runtime as `nart_tensor::qnn::requantize` does per tensor:
    /// `clamp(Zy + M ⊗ (q − Zx), lo, hi)` with `M = Sx/Sy` as a fixed-point multiplier.
    QRequantize {
        /// The operand's zero point.
        src_zero_point: i32,
        /// The fixed-point multiplier and exponent.
        multiplier: (i32, i32),
        /// The result's zero point.
        zero_point: i32,
        /// The smallest stored result.
        lo: i32,
        /// The largest stored result.
        hi: i32,
        /// How ties round.
        rounding: Rounding,
    },
    /// `quant.qcast` of an `f32` operand to a `u8`/`s8` result, computed by the runtime as
    /// `nart_tensor::qnn::quantize` does: `clamp(Z + round_half_even(x / S), lo, hi)`, the
    /// division in `f32` (NaN gives `Z`). oneDNN's reorders multiply by `1/S` instead.
    Quantize {
        /// The scale, as the `f32` the division uses.
        scale: f32,
        /// The zero point.
        zero_point: i32,
        /// The smallest stored value.
        lo: i32,
        /// The largest stored value.
        hi: i32,
    },
    /// `quant.dcast` of a `u8`/`s8` operand to an `f32` result, computed by the runtime as
    /// `nart_tensor::qnn::dequantize` does: `(q − Z) · S`, in `f32`.
    Dequantize {
        /// The scale, as the `f32` the product uses.
        scale: f32,
        /// The zero point.
        zero_point: i32,
    },
}

/// `qnn.add`'s rule: `clamp(Zy + round((qa − Za)·ma·2^(k−ra) + (qb − Zb)·mb·2^(k−rb), k))`,
/// with `(m, e)` each operand's fixed-point multiplier `S/Sy` (right shift `r = 31 − e`), `k`
/// the larger right shift and one rounding of the exact sum, as `nart_tensor::qnn::add`.
#[derive(Clone, Debug, PartialEq)]
pub struct AddQuant {
    /// Each operand's zero point.
    pub zero_points: [i32; 2],
    /// Each operand's fixed-point multiplier and exponent.
    pub multipliers: [(i32, i32); 2],
    /// The result's zero point.
    pub zero_point: i32,
    /// The smallest stored result (the storage range narrowed by the fused activation).
    pub lo: i32,
    /// The largest stored result.
    pub hi: i32,
    /// How ties round.
    pub rounding: Rounding,
}

impl AddQuant {
    fn encode(&self, w: &mut Writer) {
        for v in self.zero_points {
            w.i32(v);
        }
        for (m, e) in self.multipliers {
            w.i32(m);
            w.i32(e);
        }
        for v in [self.zero_point, self.lo, self.hi] {
            w.i32(v);
        }
        w.u8(rounding_tag(self.rounding));
    }

    fn decode(r: &mut Reader<'_>) -> Result<AddQuant, DecodeError> {
        let zero_points = [r.i32()?, r.i32()?];
        let multipliers = [(r.i32()?, r.i32()?), (r.i32()?, r.i32()?)];
        let (zero_point, lo, hi) = (r.i32()?, r.i32()?, r.i32()?);
        Ok(AddQuant {
            zero_points,
            multipliers,
            zero_point,
            lo,
            hi,
            rounding: decode_rounding(r.u8()?)?,
        })
    }

    /// The multipliers brought to one right shift: `(fa, fb, k)`, or `None` when their
    /// exponents differ by more than 64 (the interpreter refuses those too).
    pub fn common_shift(&self) -> Option<(i128, i128, i32)> {
        let [(ma, ea), (mb, eb)] = self.multipliers;
        let (ra, rb) = (31 - ea, 31 - eb);
        let k = ra.max(rb);
        let (da, db) = (k - ra, k - rb);
        if da > 64 || db > 64 {
            return None;
        }
        Some((i128::from(ma) << da, i128::from(mb) << db, k))
    }

    fn check(&self, k: usize, out: Elem) -> Result<(), DecodeError> {
        if self
            .multipliers
            .iter()
            .any(|&(m, e)| m < 0 || !(-64..=64).contains(&e))
            || self.common_shift().is_none()
        {
            return err(format!("op {k} has a malformed multiplier"));
        }
        check_range(k, out, self.zero_point, self.lo, self.hi)
    }
}

fn rounding_tag(r: Rounding) -> u8 {
    match r {
        Rounding::HalfEven => 0,
        Rounding::HalfAway => 1,
        Rounding::HalfUp => 2,
    }
}

fn decode_rounding(t: u8) -> Result<Rounding, DecodeError> {
    match t {
        0 => Ok(Rounding::HalfEven),
        1 => Ok(Rounding::HalfAway),
        2 => Ok(Rounding::HalfUp),
        t => err(format!("unknown rounding {t}")),
    }
}

/// Checks a result's clamp and zero point against its storage type.
fn check_range(k: usize, out: Elem, zero_point: i32, lo: i32, hi: i32) -> Result<(), DecodeError> {
    let (min, max) = if out == Elem::U8 {
        (0, 255)
    } else {
        (-128, 127)
    };
    if !(min <= lo && lo <= hi && hi <= max && (min..=max).contains(&zero_point)) {
        return err(format!(
            "op {k} clamps to [{lo}, {hi}] with zero point {zero_point}, outside {}",
            out.name()
        ));
    }
    Ok(())
}

/// An operation fused into a convolution or matmul, applied to its result in order (oneDNN's
/// post-ops).
#[derive(Clone, Debug, PartialEq)]
pub enum PostOp {
    /// An element-wise function.
    Eltwise {
        /// Which.
        alg: Eltwise,
        /// Its first parameter.
        alpha: f32,
        /// Its second parameter.
        beta: f32,
    },
    /// A binary function with the next of the op's extra operands (which may broadcast).
    Binary {
        /// Which.
        alg: BinaryAlg,
    },
}

/// What an integer convolution or matrix product holds besides its window: its weights and
/// how the runtime turns oneDNN's exact `s32` sums `Σ x·w` into stored results.
///
/// For output channel `c` (a convolution's output channel, a matmul's column) the runtime
/// computes, in wrapping `i32`, `acc = Σ x·w − Zx·Σ w + bias[c]`, the weight sum taken over
/// the window positions inside the input (padded positions stand for real zeros), and writes
/// `clamp(zero_point + M_c ⊗ acc, lo, hi)` with `M_c = (m, shift)` applied as
/// `nart_tensor::qnn::FixedMultiplier` does; the weights' zero point is 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Requant {
    /// The weights, row-major in `weight_dims`.
    pub weights: Arc<Vec<i8>>,
    /// The weights' dims as oneDNN sees them: `[O, I, k...]`, `[G, O/G, I/G, k...]` when
    /// grouped, `[K, N]` for a matmul.
    pub weight_dims: Vec<i64>,
    /// The `i32` bias of each output channel (zeros when the op has none).
    pub bias: Vec<i32>,
    /// The input's zero point `Zx`.
    pub src_zero_point: i32,
    /// The fixed-point multiplier and exponent of each output channel (or one for all).
    pub multipliers: Vec<(i32, i32)>,
    /// The result's zero point.
    pub zero_point: i32,
    /// The smallest stored result (the storage range narrowed by the fused activation).
    pub lo: i32,
    /// The largest stored result.
    pub hi: i32,
    /// How ties round.
    pub rounding: Rounding,
}

impl Requant {
    /// The number of output channels.
    pub fn channels(&self) -> usize {
        self.bias.len()
    }

    fn encode(&self, w: &mut Writer) {
        w.len(self.weights.len());
        w.0.extend(self.weights.iter().map(|&x| x as u8));
        w.i64s(&self.weight_dims);
        w.len(self.bias.len());
        for &b in &self.bias {
            w.i32(b);
        }
        w.i32(self.src_zero_point);
        w.len(self.multipliers.len());
        for &(m, e) in &self.multipliers {
            w.i32(m);
            w.i32(e);
        }
        for v in [self.zero_point, self.lo, self.hi] {
            w.i32(v);
        }
        w.u8(rounding_tag(self.rounding));
    }

    fn decode(r: &mut Reader<'_>) -> Result<Requant, DecodeError> {
        let n = r.count(1)?;
        let weights = Arc::new(r.take(n)?.iter().map(|&b| b as i8).collect());
        let weight_dims = r.rank_list("weights")?;
        let n = r.count(4)?;
        let bias = (0..n).map(|_| r.i32()).collect::<Result<_, _>>()?;
        let src_zero_point = r.i32()?;
        let n = r.count(8)?;
        let multipliers = (0..n)
            .map(|_| Ok((r.i32()?, r.i32()?)))
            .collect::<Result<_, DecodeError>>()?;
        let (zero_point, lo, hi) = (r.i32()?, r.i32()?, r.i32()?);
        let rounding = decode_rounding(r.u8()?)?;
        Ok(Requant {
            weights,
            weight_dims,
            bias,
            src_zero_point,
            multipliers,
            zero_point,
            lo,
            hi,
            rounding,
        })
    }

    /// Checks the parts against each other: weights for their dims, one or `channels`
    /// multipliers (`windows` of them for an average pooling's windows of 1 to `windows`
    /// positions), a range inside the result's, exponents a shift can take.
    fn check(&self, k: usize, out: Elem, windows: Option<usize>) -> Result<(), DecodeError> {
        let n = self
            .weight_dims
            .iter()
            .try_fold(1i64, |a, &d| a.checked_mul(d));
        if self.weight_dims.iter().any(|&d| d < 1) || n != Some(self.weights.len() as i64) {
            return err(format!(
                "op {k} has {} weights for dims {:?}",
                self.weights.len(),
                self.weight_dims
            ));
        }
        let c = self.channels();
        let count_ok = match windows {
            Some(w) => self.multipliers.len() == w,
            None => self.multipliers.len() == 1 || self.multipliers.len() == c,
        };
        if c == 0 || !count_ok {
            return err(format!(
                "op {k} has {} multipliers for {c} channels",
                self.multipliers.len()
            ));
        }
        if self
            .multipliers
            .iter()
            .any(|&(m, e)| m < 0 || !(-64..=64).contains(&e))
        {
            return err(format!("op {k} has a malformed multiplier"));
        }
        check_range(k, out, self.zero_point, self.lo, self.hi)
    }
}

/// One op: what it does, what it reads, what it writes.
#[derive(Clone, Debug, PartialEq)]
pub struct OpDef {
    /// The operation.
    pub kind: OpKind,
    /// What it reads: its own operands, then one per binary post-op.
    pub inputs: Vec<Operand>,
    /// What it writes (computed values, row-major; a matmul or reorder may write its value
    /// through strides that permute its row-major ones, as a transpose after it would).
    pub outputs: Vec<Operand>,
    /// What is fused after it (convolutions and matmuls; element-wise functions after binary
    /// ops).
    pub post: Vec<PostOp>,
}

impl OpDef {
    /// How many of the inputs are the operation's own (the rest feed binary post-ops).
    pub fn own_inputs(&self) -> usize {
        let extra = self
            .post
            .iter()
            .filter(|p| matches!(p, PostOp::Binary { .. }))
            .count();
        self.inputs.len().saturating_sub(extra)
    }
}

/// A compiled segment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// Every value.
    pub values: Vec<ValueDef>,
    /// The segment's inputs, in operand order.
    pub inputs: Vec<u32>,
    /// The segment's results, in order.
    pub outputs: Vec<u32>,
    /// The ops, in execution order.
    pub ops: Vec<OpDef>,
}

/// Why bytes are not a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(m: impl Into<String>) -> Result<T, DecodeError> {
    Err(DecodeError(m.into()))
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("invariant: counts fit in u32"));
    }
    fn i64s(&mut self, v: &[i64]) {
        self.len(v.len());
        for &x in v {
            self.i64(x);
        }
    }
    fn operand(&mut self, o: &Operand) {
        self.u32(o.value);
        self.i64s(&o.dims);
        match &o.strides {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.i64s(s);
            }
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        if self.bytes.len() - self.at < n {
            return err(format!(
                "truncated: needs {n} more bytes at offset {}, has {}",
                self.at,
                self.bytes.len() - self.at
            ));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i64(&mut self) -> Result<i64, DecodeError> {
        let b = self.take(8)?;
        let mut a = [0; 8];
        a.copy_from_slice(b);
        Ok(i64::from_le_bytes(a))
    }
    fn i32(&mut self) -> Result<i32, DecodeError> {
        let b = self.take(4)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn f32(&mut self) -> Result<f32, DecodeError> {
        Ok(f32::from_bits(self.u32()?))
    }
    /// A count of items of at least `min_bytes` each, checked against what is left.
    fn count(&mut self, min_bytes: usize) -> Result<usize, DecodeError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_bytes.max(1)) > self.bytes.len() - self.at {
            return err(format!(
                "count {n} at offset {} exceeds the artifact",
                self.at - 4
            ));
        }
        Ok(n)
    }
    fn i64s(&mut self) -> Result<Vec<i64>, DecodeError> {
        let n = self.count(8)?;
        (0..n).map(|_| self.i64()).collect()
    }
    fn rank_list(&mut self, what: &str) -> Result<Vec<i64>, DecodeError> {
        let v = self.i64s()?;
        if v.len() > MAX_RANK {
            return err(format!("{what} has rank {}, above {MAX_RANK}", v.len()));
        }
        Ok(v)
    }
    fn operand(&mut self) -> Result<Operand, DecodeError> {
        let value = self.u32()?;
        let dims = self.rank_list("an operand")?;
        let strides = match self.u8()? {
            0 => None,
            1 => Some(self.rank_list("an operand's strides")?),
            t => return err(format!("bad stride tag {t}")),
        };
        Ok(Operand {
            value,
            dims,
            strides,
        })
    }
}

fn pool_alg(t: u8) -> Result<PoolAlg, DecodeError> {
    Ok(match t {
        0 => PoolAlg::Max,
        1 => PoolAlg::AvgIncludePad,
        2 => PoolAlg::AvgExcludePad,
        _ => return err(format!("unknown pooling algorithm {t}")),
    })
}

fn eltwise_alg(t: u8) -> Result<Eltwise, DecodeError> {
    use Eltwise::*;
    const ALL: [Eltwise; 14] = [
        Relu, Tanh, Elu, Abs, Sqrt, Linear, Logistic, Exp, Log, Clip, GeluErf, GeluTanh, HardSwish,
        Mish,
    ];
    ALL.get(t as usize)
        .copied()
        .ok_or_else(|| DecodeError(format!("unknown eltwise algorithm {t}")))
}

fn binary_alg(t: u8) -> Result<BinaryAlg, DecodeError> {
    use BinaryAlg::*;
    const ALL: [BinaryAlg; 6] = [Add, Sub, Mul, Div, Max, Min];
    ALL.get(t as usize)
        .copied()
        .ok_or_else(|| DecodeError(format!("unknown binary algorithm {t}")))
}

impl PostOp {
    /// The post-op's name in messages and profiles (`eltwise`, `binary`).
    pub fn name(&self) -> &'static str {
        match self {
            PostOp::Eltwise { .. } => "eltwise",
            PostOp::Binary { .. } => "binary",
        }
    }
}

impl OpKind {
    /// The op's name in messages.
    pub fn name(&self) -> &'static str {
        match self {
            OpKind::Conv { .. } => "convolution",
            OpKind::MatMul => "matmul",
            OpKind::Pool { .. } => "pooling",
            OpKind::Eltwise { .. } => "eltwise",
            OpKind::Softmax { .. } => "softmax",
            OpKind::BatchNorm { .. } => "batch normalization",
            OpKind::LayerNorm { .. } => "layer normalization",
            OpKind::Binary { .. } => "binary",
            OpKind::Reorder => "reorder",
            OpKind::View => "view",
            OpKind::QConv { .. } => "integer convolution",
            OpKind::QMatMul { .. } => "integer matmul",
            OpKind::QAvgPool { .. } => "integer average pooling",
            OpKind::QAdd { .. } => "integer addition",
            OpKind::QRequantize { .. } => "integer requantization",
            OpKind::Quantize { .. } => "quantization",
            OpKind::Dequantize { .. } => "dequantization",
        }
    }

    /// How many operands it reads: at least, at most.
    fn arity(&self) -> (usize, usize) {
        match self {
            OpKind::Conv { .. } | OpKind::MatMul => (2, 3),
            OpKind::BatchNorm { .. } => (5, 5),
            OpKind::LayerNorm { .. } => (2, 3),
            OpKind::Binary { .. } | OpKind::QAdd { .. } => (2, 2),
            _ => (1, 1),
        }
    }

    fn encode(&self, w: &mut Writer) {
        match self {
            OpKind::Conv {
                groups,
                strides,
                dilations,
                pads_begin,
                pads_end,
            } => {
                w.u8(0);
                w.i64(*groups);
                for v in [strides, dilations, pads_begin, pads_end] {
                    w.i64s(v);
                }
            }
            OpKind::MatMul => w.u8(1),
            OpKind::Pool {
                alg,
                kernel,
                strides,
                dilations,
                pads_begin,
                pads_end,
            } => {
                w.u8(2);
                w.u8(*alg as u8);
                for v in [kernel, strides, dilations, pads_begin, pads_end] {
                    w.i64s(v);
                }
            }
            OpKind::Eltwise { alg, alpha, beta } => {
                w.u8(3);
                w.u8(*alg as u8);
                w.f32(*alpha);
                w.f32(*beta);
            }
            OpKind::Softmax { axis, log } => {
                w.u8(4);
                w.i64(i64::from(*axis));
                w.u8(u8::from(*log));
            }
            OpKind::BatchNorm { epsilon } => {
                w.u8(5);
                w.f32(*epsilon);
            }
            OpKind::LayerNorm { epsilon } => {
                w.u8(6);
                w.f32(*epsilon);
            }
            OpKind::Binary { alg } => {
                w.u8(7);
                w.u8(*alg as u8);
            }
            OpKind::Reorder => w.u8(8),
            OpKind::View => w.u8(9),
            OpKind::QConv {
                groups,
                strides,
                dilations,
                pads_begin,
                pads_end,
                q,
            } => {
                w.u8(10);
                w.i64(*groups);
                for v in [strides, dilations, pads_begin, pads_end] {
                    w.i64s(v);
                }
                q.encode(w);
            }
            OpKind::QMatMul { q } => {
                w.u8(11);
                q.encode(w);
            }
            OpKind::QAvgPool {
                strides,
                pads_begin,
                pads_end,
                count_include_pad,
                q,
            } => {
                w.u8(12);
                for v in [strides, pads_begin, pads_end] {
                    w.i64s(v);
                }
                w.u8(u8::from(*count_include_pad));
                q.encode(w);
            }
            OpKind::QAdd { q } => {
                w.u8(13);
                q.encode(w);
            }
            OpKind::Quantize {
                scale,
                zero_point,
                lo,
                hi,
            } => {
                w.u8(14);
                w.f32(*scale);
                for v in [*zero_point, *lo, *hi] {
                    w.i32(v);
                }
            }
            OpKind::QRequantize {
                src_zero_point,
                multiplier: (m, e),
                zero_point,
                lo,
                hi,
                rounding,
            } => {
                w.u8(16);
                for v in [*src_zero_point, *m, *e, *zero_point, *lo, *hi] {
                    w.i32(v);
                }
                w.u8(rounding_tag(*rounding));
            }
            OpKind::Dequantize { scale, zero_point } => {
                w.u8(15);
                w.f32(*scale);
                w.i32(*zero_point);
            }
        }
    }

    fn decode(r: &mut Reader<'_>) -> Result<OpKind, DecodeError> {
        Ok(match r.u8()? {
            0 => OpKind::Conv {
                groups: r.i64()?,
                strides: r.rank_list("strides")?,
                dilations: r.rank_list("dilations")?,
                pads_begin: r.rank_list("pads")?,
                pads_end: r.rank_list("pads")?,
            },
            1 => OpKind::MatMul,
            2 => OpKind::Pool {
                alg: pool_alg(r.u8()?)?,
                kernel: r.rank_list("kernel")?,
                strides: r.rank_list("strides")?,
                dilations: r.rank_list("dilations")?,
                pads_begin: r.rank_list("pads")?,
                pads_end: r.rank_list("pads")?,
            },
            3 => OpKind::Eltwise {
                alg: eltwise_alg(r.u8()?)?,
                alpha: r.f32()?,
                beta: r.f32()?,
            },
            4 => OpKind::Softmax {
                axis: i32::try_from(r.i64()?).map_err(|_| DecodeError("bad axis".into()))?,
                log: r.u8()? != 0,
            },
            5 => OpKind::BatchNorm { epsilon: r.f32()? },
            6 => OpKind::LayerNorm { epsilon: r.f32()? },
            7 => OpKind::Binary {
                alg: binary_alg(r.u8()?)?,
            },
            8 => OpKind::Reorder,
            9 => OpKind::View,
            10 => OpKind::QConv {
                groups: r.i64()?,
                strides: r.rank_list("strides")?,
                dilations: r.rank_list("dilations")?,
                pads_begin: r.rank_list("pads")?,
                pads_end: r.rank_list("pads")?,
                q: Requant::decode(r)?,
            },
            11 => OpKind::QMatMul {
                q: Requant::decode(r)?,
            },
            12 => OpKind::QAvgPool {
                strides: r.rank_list("strides")?,
                pads_begin: r.rank_list("pads")?,
                pads_end: r.rank_list("pads")?,
                count_include_pad: match r.u8()? {
                    0 => false,
                    1 => true,
                    t => return err(format!("bad count_include_pad {t}")),
                },
                q: Requant::decode(r)?,
            },
            13 => OpKind::QAdd {
                q: AddQuant::decode(r)?,
            },
            14 => OpKind::Quantize {
                scale: r.f32()?,
                zero_point: r.i32()?,
                lo: r.i32()?,
                hi: r.i32()?,
            },
            15 => OpKind::Dequantize {
                scale: r.f32()?,
                zero_point: r.i32()?,
            },
            16 => OpKind::QRequantize {
                src_zero_point: r.i32()?,
                multiplier: (r.i32()?, r.i32()?),
                zero_point: r.i32()?,
                lo: r.i32()?,
                hi: r.i32()?,
                rounding: decode_rounding(r.u8()?)?,
            },
            t => return err(format!("unknown op kind {t}")),
        })
    }
}

impl Program {
    /// The artifact's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        w.0.extend_from_slice(MAGIC);
        w.u32(VERSION);
        w.len(self.values.len());
        for v in &self.values {
            w.i64s(&v.dims);
            w.u8(v.elem as u8);
            match &v.kind {
                ValueKind::Computed => w.u8(0),
                ValueKind::Input => w.u8(1),
                ValueKind::Constant(data) => {
                    w.u8(2);
                    w.len(data.len());
                    for &x in data.iter() {
                        w.f32(x);
                    }
                }
            }
        }
        for list in [&self.inputs, &self.outputs] {
            w.len(list.len());
            for &v in list {
                w.u32(v);
            }
        }
        w.len(self.ops.len());
        for op in &self.ops {
            op.kind.encode(&mut w);
            for list in [&op.inputs, &op.outputs] {
                w.len(list.len());
                for o in list {
                    w.operand(o);
                }
            }
            w.len(op.post.len());
            for p in &op.post {
                match p {
                    PostOp::Eltwise { alg, alpha, beta } => {
                        w.u8(0);
                        w.u8(*alg as u8);
                        w.f32(*alpha);
                        w.f32(*beta);
                    }
                    PostOp::Binary { alg } => {
                        w.u8(1);
                        w.u8(*alg as u8);
                    }
                }
            }
        }
        w.0
    }

    /// Reads and checks a program.
    pub fn decode(bytes: &[u8]) -> Result<Program, DecodeError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4).ok() != Some(MAGIC.as_slice()) {
            return err("not a oneDNN op list (bad magic)");
        }
        let version = r.u32()?;
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return err(format!(
                "op list format version {version}; this runtime reads versions \
                 {OLDEST_VERSION} to {VERSION}"
            ));
        }
        let mut p = Program::default();
        let n = r.count(5)?;
        for _ in 0..n {
            let dims = r.rank_list("a value")?;
            let elem = if version >= 2 {
                Elem::decode(r.u8()?)?
            } else {
                Elem::F32
            };
            let kind = match r.u8()? {
                0 => ValueKind::Computed,
                1 => ValueKind::Input,
                2 => {
                    let n = r.count(4)?;
                    let bytes = r.take(n * 4)?;
                    ValueKind::Constant(Arc::new(
                        bytes
                            .chunks_exact(4)
                            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                            .collect(),
                    ))
                }
                t => return err(format!("unknown value kind {t}")),
            };
            p.values.push(ValueDef { dims, elem, kind });
        }
        for list in [&mut p.inputs, &mut p.outputs] {
            let n = r.count(4)?;
            for _ in 0..n {
                list.push(r.u32()?);
            }
        }
        let n = r.count(9)?;
        for _ in 0..n {
            let kind = OpKind::decode(&mut r)?;
            let mut lists = [Vec::new(), Vec::new()];
            for list in &mut lists {
                let n = r.count(13)?;
                for _ in 0..n {
                    list.push(r.operand()?);
                }
            }
            let [inputs, outputs] = lists;
            let n = r.count(2)?;
            let mut post = Vec::new();
            for _ in 0..n {
                post.push(match r.u8()? {
                    0 => PostOp::Eltwise {
                        alg: eltwise_alg(r.u8()?)?,
                        alpha: r.f32()?,
                        beta: r.f32()?,
                    },
                    1 => PostOp::Binary {
                        alg: binary_alg(r.u8()?)?,
                    },
                    t => return err(format!("unknown post-op {t}")),
                });
            }
            p.ops.push(OpDef {
                kind,
                inputs,
                outputs,
                post,
            });
        }
        if r.at != bytes.len() {
            return err(format!("{} bytes after the op list", bytes.len() - r.at));
        }
        p.check()?;
        Ok(p)
    }

    /// Whether some dim is [`DYN`].
    pub fn is_dynamic(&self) -> bool {
        let dynamic = |d: &[i64]| d.contains(&DYN);
        self.values.iter().any(|v| dynamic(&v.dims))
            || self
                .ops
                .iter()
                .flat_map(|o| o.inputs.iter().chain(&o.outputs))
                .any(|o| dynamic(&o.dims))
    }

    /// The program with every [`DYN`] dim set to `n`.
    pub fn specialize(&self, n: i64) -> Program {
        let set = |d: &mut Vec<i64>| {
            for x in d.iter_mut() {
                if *x == DYN {
                    *x = n;
                }
            }
        };
        let mut p = self.clone();
        for v in &mut p.values {
            set(&mut v.dims);
        }
        for op in &mut p.ops {
            for o in op.inputs.iter_mut().chain(op.outputs.iter_mut()) {
                set(&mut o.dims);
            }
        }
        p
    }

    /// Checks what decoding alone does not: indices in range, sizes that agree (for every
    /// size of the dynamic dim: sizes are products of it, so three sizes decide), every value
    /// defined once before it is read. Inputs alone may be dynamic where constants are not.
    pub fn check(&self) -> Result<(), DecodeError> {
        for v in &self.values {
            if matches!(v.kind, ValueKind::Constant(_)) && v.dims.contains(&DYN) {
                return err("a constant has a dynamic dim");
            }
        }
        for n in [1, 2, 3] {
            self.specialize(n).check_static()?;
        }
        Ok(())
    }

    /// [`Program::check`] for a program without dynamic dims.
    pub fn check_static(&self) -> Result<(), DecodeError> {
        let nv = self.values.len();
        let value = |v: u32| -> Result<&ValueDef, DecodeError> {
            self.values
                .get(v as usize)
                .ok_or_else(|| DecodeError(format!("value {v} out of range (has {nv})")))
        };
        for (i, v) in self.values.iter().enumerate() {
            if v.dims.iter().any(|&d| d < 1) {
                return err(format!("value {i} has dims {:?}", v.dims));
            }
            if let ValueKind::Constant(data) = &v.kind {
                if v.elem != Elem::F32 {
                    return err(format!("constant {i} is not f32"));
                }
                if data.len() as i64 != v.numel() {
                    return err(format!(
                        "constant {i} has {} elements for dims {:?}",
                        data.len(),
                        v.dims
                    ));
                }
            }
        }
        let mut defined: Vec<bool> = self
            .values
            .iter()
            .map(|v| !matches!(v.kind, ValueKind::Computed))
            .collect();
        for &i in &self.inputs {
            if value(i)?.kind != ValueKind::Input {
                return err(format!("segment input {i} is not an input value"));
            }
        }
        for (k, op) in self.ops.iter().enumerate() {
            let (lo, hi) = op.kind.arity();
            let own = op.own_inputs();
            let hosts = match op.kind {
                OpKind::Conv { .. } | OpKind::MatMul => true,
                OpKind::Binary { .. } => {
                    op.post.iter().all(|p| matches!(p, PostOp::Eltwise { .. }))
                }
                _ => op.post.is_empty(),
            };
            if !hosts {
                return err(format!(
                    "op {k} ({}) cannot hold its post-ops",
                    op.kind.name()
                ));
            }
            if own < lo || own > hi || op.outputs.len() != 1 {
                return err(format!(
                    "op {k} ({}) has {} operands and {} results",
                    op.kind.name(),
                    op.inputs.len(),
                    op.outputs.len()
                ));
            }
            check_elems(self, k, op)?;
            for (o, is_out) in op
                .inputs
                .iter()
                .map(|o| (o, false))
                .chain(op.outputs.iter().map(|o| (o, true)))
            {
                let v = value(o.value)?;
                if o.dims.iter().any(|&d| d < 1) {
                    return err(format!("op {k} sees value {} as {:?}", o.value, o.dims));
                }
                let seen: i64 = o.dims.iter().product();
                match &o.strides {
                    None if seen != v.numel() => {
                        return err(format!(
                            "op {k} sees value {} ({:?}) as {:?}",
                            o.value, v.dims, o.dims
                        ))
                    }
                    Some(s) => {
                        let last = o
                            .dims
                            .iter()
                            .zip(s)
                            .map(|(&d, &s)| (d - 1).checked_mul(s).filter(|x| *x >= 0))
                            .try_fold(0i64, |a, x| x.and_then(|x| a.checked_add(x)));
                        if s.len() != o.dims.len() || last.is_none_or(|l| l >= v.numel()) {
                            return err(format!(
                                "op {k} sees value {} through strides {s:?} outside it",
                                o.value
                            ));
                        }
                        if is_out
                            && (!matches!(op.kind, OpKind::MatMul | OpKind::Reorder)
                                || seen != v.numel()
                                || !is_dense(&o.dims, s))
                        {
                            return err(format!(
                                "op {k} ({}) writes through strides {s:?} that are not a \
                                 permutation of its value's row-major ones",
                                op.kind.name()
                            ));
                        }
                    }
                    None => {}
                }
                if is_out {
                    if defined[o.value as usize] {
                        return err(format!("value {} is defined twice", o.value));
                    }
                } else if !defined[o.value as usize] {
                    return err(format!(
                        "op {k} reads value {} before it is defined",
                        o.value
                    ));
                }
            }
            for o in &op.outputs {
                defined[o.value as usize] = true;
            }
        }
        for &o in &self.outputs {
            value(o)?;
            if !defined[o as usize] {
                return err(format!("segment result {o} is never defined"));
            }
        }
        Ok(())
    }
}

/// Whether `strides` lay `dims` out densely in some order of the dims (each element at its own
/// offset, every offset below the element count used): sorted by stride, the dims larger
/// than 1 each step by the size of those inside them.
pub fn is_dense(dims: &[i64], strides: &[i64]) -> bool {
    let mut order: Vec<(i64, i64)> = strides
        .iter()
        .zip(dims)
        .filter(|(_, &d)| d != 1)
        .map(|(&s, &d)| (s, d))
        .collect();
    order.sort_unstable();
    let mut next = 1i64;
    for (s, d) in order {
        if s != next {
            return false;
        }
        let Some(n) = next.checked_mul(d) else {
            return false;
        };
        next = n;
    }
    true
}

/// Checks the element types an op reads and writes, and an integer op's shapes against its
/// weights: `f32` throughout for the float ops, one type in and out for views and reorders,
/// 8-bit integers for the integer ops.
fn check_elems(p: &Program, k: usize, op: &OpDef) -> Result<(), DecodeError> {
    let elem = |o: &Operand| p.values.get(o.value as usize).map(|v| v.elem);
    let (Some(x), Some(y)) = (elem(&op.inputs[0]), elem(&op.outputs[0])) else {
        return err(format!("op {k} names a value out of range"));
    };
    let mismatch = || {
        err(format!(
            "op {k} ({}) reads {} and writes {}",
            op.kind.name(),
            x.name(),
            y.name()
        ))
    };
    match &op.kind {
        // A view may see 8-bit integers with the other signedness (a quantized value's stored
        // integers); a reorder copies one type.
        OpKind::View if x.is_int8() && y.is_int8() => {}
        OpKind::View | OpKind::Reorder => {
            if x != y {
                return mismatch();
            }
        }
        OpKind::QConv {
            groups, strides, q, ..
        } => {
            if !x.is_int8() || !y.is_int8() {
                return mismatch();
            }
            q.check(k, y, None)?;
            let (xd, yd, wd) = (&op.inputs[0].dims, &op.outputs[0].dims, &q.weight_dims);
            let sp = strides.len();
            let grouped = usize::from(*groups > 1);
            let fits = xd.len() == sp + 2
                && yd.len() == sp + 2
                && wd.len() == sp + 2 + grouped
                && *groups >= 1
                && (grouped == 0 || wd[0] == *groups)
                && wd[grouped].checked_mul(*groups) == Some(yd[1])
                && wd[grouped + 1].checked_mul(*groups) == Some(xd[1])
                && yd[0] == xd[0]
                && q.channels() as i64 == yd[1];
            if !fits {
                return err(format!(
                    "op {k} convolves {xd:?} with weights {wd:?} in {groups} groups into {yd:?}"
                ));
            }
        }
        OpKind::QMatMul { q } => {
            if !x.is_int8() || !y.is_int8() {
                return mismatch();
            }
            q.check(k, y, None)?;
            let (xd, yd, wd) = (&op.inputs[0].dims, &op.outputs[0].dims, &q.weight_dims);
            let fits = xd.len() == 2
                && yd.len() == 2
                && wd.len() == 2
                && xd[1] == wd[0]
                && yd == &vec![xd[0], wd[1]]
                && q.channels() as i64 == wd[1];
            if !fits {
                return err(format!(
                    "op {k} multiplies {xd:?} by weights {wd:?} into {yd:?}"
                ));
            }
        }
        OpKind::QAvgPool {
            strides,
            pads_begin,
            pads_end,
            q,
            ..
        } => {
            if !x.is_int8() || !y.is_int8() {
                return mismatch();
            }
            let (xd, yd, wd) = (&op.inputs[0].dims, &op.outputs[0].dims, &q.weight_dims);
            let sp = strides.len();
            let windows = wd
                .get(3..)
                .map_or(0, |k| k.iter().product::<i64>().max(0) as usize);
            q.check(k, y, Some(windows))?;
            let fits = xd.len() == sp + 2
                && yd.len() == sp + 2
                && wd.len() == sp + 3
                && wd[0] == xd[1]
                && wd[1] == 1
                && wd[2] == 1
                && yd[..2] == xd[..2]
                && pads_begin.len() == sp
                && pads_end.len() == sp
                && q.channels() as i64 == xd[1]
                && q.weights.iter().all(|&w| w == 1)
                && q.bias.iter().all(|&b| b == 0);
            if !fits {
                return err(format!(
                    "op {k} pools {xd:?} with windows {wd:?} into {yd:?}"
                ));
            }
        }
        OpKind::Quantize {
            scale,
            zero_point,
            lo,
            hi,
        } => {
            if x != Elem::F32 || !y.is_int8() {
                return mismatch();
            }
            if !(scale.is_finite() && *scale > 0.0) {
                return err(format!("op {k} quantizes with scale {scale}"));
            }
            check_range(k, y, *zero_point, *lo, *hi)?;
            if op.inputs[0].dims != op.outputs[0].dims {
                return err(format!("op {k} (quantization) changes the dims"));
            }
        }
        OpKind::QRequantize {
            src_zero_point,
            multiplier: (m, e),
            zero_point,
            lo,
            hi,
            ..
        } => {
            if !x.is_int8() || !y.is_int8() {
                return mismatch();
            }
            let range = if x == Elem::U8 { 0..=255 } else { -128..=127 };
            if *m < 0 || !(-64..=64).contains(e) || !range.contains(src_zero_point) {
                return err(format!("op {k} has a malformed multiplier or zero point"));
            }
            check_range(k, y, *zero_point, *lo, *hi)?;
            if op.inputs[0].dims != op.outputs[0].dims {
                return err(format!("op {k} (integer requantization) changes the dims"));
            }
        }
        OpKind::Dequantize { scale, zero_point } => {
            if !x.is_int8() || y != Elem::F32 {
                return mismatch();
            }
            let range = if x == Elem::U8 { 0..=255 } else { -128..=127 };
            if !scale.is_finite() || !range.contains(zero_point) {
                return err(format!(
                    "op {k} dequantizes with scale {scale} and zero point {zero_point}"
                ));
            }
            if op.inputs[0].dims != op.outputs[0].dims {
                return err(format!("op {k} (dequantization) changes the dims"));
            }
        }
        OpKind::QAdd { q } => {
            let other = elem(&op.inputs[1]);
            if !x.is_int8() || !y.is_int8() || !other.is_some_and(Elem::is_int8) {
                return mismatch();
            }
            q.check(k, y)?;
            let (a, b, yd) = (&op.inputs[0].dims, &op.inputs[1].dims, &op.outputs[0].dims);
            if a != yd || b != yd {
                return err(format!("op {k} adds {a:?} and {b:?} into {yd:?}"));
            }
        }
        OpKind::Pool {
            alg: PoolAlg::Max, ..
        } if x.is_int8() => {
            if x != y {
                return mismatch();
            }
        }
        _ => {
            let all_f32 = op
                .inputs
                .iter()
                .chain(&op.outputs)
                .all(|o| elem(o) == Some(Elem::F32));
            if !all_f32 {
                return err(format!(
                    "op {k} ({}) reads or writes integers",
                    op.kind.name()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An integer convolution of a `u8` input into an `i8` result.
    fn qconv() -> Program {
        let q = Requant {
            weights: Arc::new(vec![1, -2, 3, -4, 5, -6, 7, -8]),
            weight_dims: vec![2, 1, 2, 2],
            bias: vec![10, -10],
            src_zero_point: 3,
            multipliers: vec![(1 << 30, 0), (1 << 30, -1)],
            zero_point: -5,
            lo: -128,
            hi: 127,
            rounding: Rounding::HalfUp,
        };
        Program {
            values: vec![
                ValueDef {
                    dims: vec![DYN, 1, 3, 3],
                    elem: Elem::U8,
                    kind: ValueKind::Input,
                },
                ValueDef {
                    dims: vec![DYN, 2, 2, 2],
                    elem: Elem::S8,
                    kind: ValueKind::Computed,
                },
            ],
            inputs: vec![0],
            outputs: vec![1],
            ops: vec![OpDef {
                kind: OpKind::QConv {
                    groups: 1,
                    strides: vec![1, 1],
                    dilations: vec![1, 1],
                    pads_begin: vec![0, 0],
                    pads_end: vec![0, 0],
                    q,
                },
                inputs: vec![Operand::new(0, vec![DYN, 1, 3, 3])],
                outputs: vec![Operand::new(1, vec![DYN, 2, 2, 2])],
                post: Vec::new(),
            }],
        }
    }

    /// `p` passes its checks, decodes to itself, and every truncation of its bytes is an error,
    /// never a panic.
    fn assert_round_trips(p: Program) {
        p.check().unwrap();
        let bytes = p.encode();
        assert_eq!(Program::decode(&bytes), Ok(p));
        for n in 0..bytes.len() {
            assert!(Program::decode(&bytes[..n]).is_err(), "{n} bytes");
        }
    }

    #[test]
    fn integer_ops_round_trip() {
        assert_round_trips(qconv());
    }

    #[test]
    fn integer_ops_are_checked() {
        let mut p = qconv();
        p.values[1].elem = Elem::F32;
        assert!(p.check().unwrap_err().0.contains("reads u8 and writes f32"));
        let mut p = qconv();
        if let OpKind::QConv { q, .. } = &mut p.ops[0].kind {
            q.lo = -129;
        }
        assert!(p.check().unwrap_err().0.contains("clamps to"));
        let mut p = qconv();
        if let OpKind::QConv { q, .. } = &mut p.ops[0].kind {
            q.bias.push(0);
        }
        assert!(p.check().unwrap_err().0.contains("multipliers"));
        let mut p = qconv();
        p.ops[0].outputs[0].dims = vec![DYN, 8, 1, 1];
        p.values[1].dims = vec![DYN, 8, 1, 1];
        assert!(p.check().unwrap_err().0.contains("convolves"));
    }

    /// An integer average pooling of a `u8` `[N, 2, 3, 3]` input, windows of 2 × 2.
    fn qavg() -> Program {
        let q = Requant {
            weights: Arc::new(vec![1; 8]),
            weight_dims: vec![2, 1, 1, 2, 2],
            bias: vec![0, 0],
            src_zero_point: 3,
            multipliers: vec![(1 << 30, 1), (1 << 30, 0), (1 << 30, 0), (1 << 30, -1)],
            zero_point: 0,
            lo: 0,
            hi: 255,
            rounding: Rounding::HalfEven,
        };
        let value = |dims: Vec<i64>, kind: ValueKind| ValueDef {
            dims,
            elem: Elem::U8,
            kind,
        };
        Program {
            values: vec![
                value(vec![DYN, 2, 3, 3], ValueKind::Input),
                value(vec![DYN, 2, 2, 2], ValueKind::Computed),
            ],
            inputs: vec![0],
            outputs: vec![1],
            ops: vec![OpDef {
                kind: OpKind::QAvgPool {
                    strides: vec![2, 2],
                    pads_begin: vec![1, 1],
                    pads_end: vec![0, 0],
                    count_include_pad: false,
                    q,
                },
                inputs: vec![Operand::new(0, vec![DYN, 2, 3, 3])],
                outputs: vec![Operand::new(1, vec![DYN, 2, 2, 2])],
                post: Vec::new(),
            }],
        }
    }

    #[test]
    fn average_poolings_round_trip_and_are_checked() {
        assert_round_trips(qavg());
        // One multiplier per window size, weights of 1 only.
        let mut p = qavg();
        if let OpKind::QAvgPool { q, .. } = &mut p.ops[0].kind {
            q.multipliers.pop();
        }
        assert!(p.check().unwrap_err().0.contains("multipliers"));
        let mut p = qavg();
        if let OpKind::QAvgPool { q, .. } = &mut p.ops[0].kind {
            q.weights = Arc::new(vec![2; 8]);
        }
        assert!(p.check().unwrap_err().0.contains("pools"));
        // Max pooling keeps its 8-bit type; average pooling of integers is its own op.
        let mut p = qavg();
        p.ops[0].kind = OpKind::Pool {
            alg: PoolAlg::Max,
            kernel: vec![2, 2],
            strides: vec![2, 2],
            dilations: vec![1, 1],
            pads_begin: vec![1, 1],
            pads_end: vec![0, 0],
        };
        p.check().unwrap();
        p.values[1].elem = Elem::S8;
        assert!(p.check().unwrap_err().0.contains("reads u8 and writes i8"));
        if let OpKind::Pool { alg, .. } = &mut p.ops[0].kind {
            *alg = PoolAlg::AvgExcludePad;
        }
        p.values[1].elem = Elem::U8;
        assert!(p.check().unwrap_err().0.contains("integers"));
    }

    /// `f32 → quantize → requantize → add (with itself) → dequantize`, on `[2, 3]`.
    fn runtime_steps() -> Program {
        let value = |elem: Elem, kind: ValueKind| ValueDef {
            dims: vec![2, 3],
            elem,
            kind,
        };
        let op = |kind: OpKind, inputs: &[u32], out: u32| OpDef {
            kind,
            inputs: inputs
                .iter()
                .map(|&v| Operand::new(v, vec![2, 3]))
                .collect(),
            outputs: vec![Operand::new(out, vec![2, 3])],
            post: Vec::new(),
        };
        Program {
            values: vec![
                value(Elem::F32, ValueKind::Input),
                value(Elem::U8, ValueKind::Computed),
                value(Elem::S8, ValueKind::Computed),
                value(Elem::U8, ValueKind::Computed),
                value(Elem::F32, ValueKind::Computed),
            ],
            inputs: vec![0],
            outputs: vec![4],
            ops: vec![
                op(
                    OpKind::Quantize {
                        scale: 0.5,
                        zero_point: 3,
                        lo: 0,
                        hi: 255,
                    },
                    &[0],
                    1,
                ),
                op(
                    OpKind::QRequantize {
                        src_zero_point: 3,
                        multiplier: (1 << 30, 1),
                        zero_point: -2,
                        lo: -127,
                        hi: 127,
                        rounding: Rounding::HalfUp,
                    },
                    &[1],
                    2,
                ),
                op(
                    OpKind::QAdd {
                        q: AddQuant {
                            zero_points: [-2, 3],
                            multipliers: [(1 << 30, 0), (1 << 30, -3)],
                            zero_point: 0,
                            lo: 0,
                            hi: 255,
                            rounding: Rounding::HalfAway,
                        },
                    },
                    &[2, 1],
                    3,
                ),
                op(
                    OpKind::Dequantize {
                        scale: 0.25,
                        zero_point: 0,
                    },
                    &[3],
                    4,
                ),
            ],
        }
    }

    #[test]
    fn runtime_steps_round_trip_and_are_checked() {
        assert_round_trips(runtime_steps());
        let mut p = runtime_steps();
        p.values[1].elem = Elem::F32;
        assert!(p.check().is_err());
        let mut p = runtime_steps();
        if let OpKind::Quantize { scale, .. } = &mut p.ops[0].kind {
            *scale = 0.0;
        }
        assert!(p.check().unwrap_err().0.contains("scale"));
        let mut p = runtime_steps();
        if let OpKind::QRequantize { lo, .. } = &mut p.ops[1].kind {
            *lo = -129;
        }
        assert!(p.check().unwrap_err().0.contains("clamps to"));
        let mut p = runtime_steps();
        if let OpKind::QAdd { q } = &mut p.ops[2].kind {
            // Right shifts of 30 and 95: more than 64 apart.
            q.multipliers[0].1 = 1;
            q.multipliers[1].1 = -64;
        }
        assert!(p.check().unwrap_err().0.contains("multiplier"));
        let mut p = runtime_steps();
        p.ops[2].inputs[1].dims = vec![3, 2];
        assert!(p.check().unwrap_err().0.contains("adds"));
    }

    #[test]
    fn dense_strides_are_permutations_of_row_major_ones() {
        assert!(is_dense(&[2, 3, 4], &[12, 4, 1]));
        assert!(is_dense(&[2, 3, 4], &[12, 1, 3]));
        assert!(is_dense(&[2, 1, 4], &[4, 99, 1]));
        assert!(is_dense(&[], &[]));
        assert!(!is_dense(&[2, 3, 4], &[12, 4, 2]));
        assert!(!is_dense(&[2, 3, 4], &[4, 4, 1]));
        assert!(!is_dense(&[2, 3], &[0, 1]));
    }

    /// A matmul writing its `[2, 3]` result transposed into a `[3, 2]` value.
    fn transposed_matmul(strides: Vec<i64>, kind: OpKind) -> Program {
        let value = |dims: Vec<i64>, kind: ValueKind| ValueDef {
            dims,
            elem: Elem::F32,
            kind,
        };
        Program {
            values: vec![
                value(vec![2, 4], ValueKind::Input),
                value(vec![4, 3], ValueKind::Input),
                value(vec![3, 2], ValueKind::Computed),
            ],
            inputs: vec![0, 1],
            outputs: vec![2],
            ops: vec![OpDef {
                kind,
                inputs: vec![Operand::new(0, vec![2, 4]), Operand::new(1, vec![4, 3])],
                outputs: vec![Operand {
                    value: 2,
                    dims: vec![2, 3],
                    strides: Some(strides),
                }],
                post: Vec::new(),
            }],
        }
    }

    #[test]
    fn matmuls_write_through_permuted_strides_only() {
        let p = transposed_matmul(vec![1, 2], OpKind::MatMul);
        p.check().unwrap();
        assert_eq!(Program::decode(&p.encode()), Ok(p));
        let e = transposed_matmul(vec![1, 1], OpKind::MatMul)
            .check()
            .unwrap_err();
        assert!(e.0.contains("writes through strides"), "{e:?}");
        let e = transposed_matmul(vec![2, 1], OpKind::MatMul)
            .check()
            .unwrap_err();
        assert!(e.0.contains("writes through strides"), "{e:?}");
        let binary = OpKind::Binary {
            alg: BinaryAlg::Add,
        };
        let e = transposed_matmul(vec![1, 2], binary).check().unwrap_err();
        assert!(e.0.contains("writes through strides"), "{e:?}");
    }

    #[test]
    fn version_1_programs_are_all_f32() {
        let p = Program {
            values: vec![
                ValueDef {
                    dims: vec![2],
                    elem: Elem::F32,
                    kind: ValueKind::Input,
                },
                ValueDef {
                    dims: vec![2],
                    elem: Elem::F32,
                    kind: ValueKind::Computed,
                },
            ],
            inputs: vec![0],
            outputs: vec![1],
            ops: vec![OpDef {
                kind: OpKind::Eltwise {
                    alg: Eltwise::Relu,
                    alpha: 0.0,
                    beta: 0.0,
                },
                inputs: vec![Operand::new(0, vec![2])],
                outputs: vec![Operand::new(1, vec![2])],
                post: Vec::new(),
            }],
        };
        // Version 1: no element type byte after each value's dims.
        let v2 = p.encode();
        let mut v1 = v2[..4].to_vec();
        v1.extend_from_slice(&1u32.to_le_bytes());
        let mut at = 8;
        v1.extend_from_slice(&v2[at..at + 4]);
        at += 4;
        for _ in 0..2 {
            // rank (u32), one dim (i64), then the element type byte v1 lacks.
            v1.extend_from_slice(&v2[at..at + 12]);
            at += 13;
            v1.push(v2[at]);
            at += 1;
        }
        v1.extend_from_slice(&v2[at..]);
        assert_eq!(Program::decode(&v1), Ok(p));
        let mut v4 = v2.clone();
        v4[4..8].copy_from_slice(&4u32.to_le_bytes());
        assert!(Program::decode(&v4).unwrap_err().0.contains("version 4"));
    }
}
