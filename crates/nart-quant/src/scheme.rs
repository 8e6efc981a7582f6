//! Quantization schemes as data, the registry that lists them, and how a scheme chooses scales
//! and zero points from a range or from a weight tensor.
//!
//! A scheme says, for activations, weights and biases, how a tensor is stored (integer bits,
//! signedness, symmetric or affine, narrow range, per tensor, per channel or per group,
//! power-of-two scales, or a float format such as `fp16`), how values are rounded, how wide the
//! accumulator is, and which ops it covers.
//! Nothing in the passes knows a scheme by name: they read these fields.
//! A target crate adds its own scheme with [`SchemeRegistry::register`].

use std::fmt::Write as _;

use crate::errors::QuantError;

/// How values are rounded to the integer grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Round half to even (ONNX `QuantizeLinear`, most runtimes).
    NearestEven,
    /// Round half away from zero (C's `round`).
    NearestAway,
    /// Round half up, toward +infinity (fixed-point chips: Vitis DPU, NNIE).
    HalfUp,
}

impl Rounding {
    /// Rounds `x`.
    #[inline]
    pub fn round(self, x: f64) -> f64 {
        match self {
            Rounding::NearestEven => nart_tensor::smallfloat::round_half_even(x),
            Rounding::NearestAway => x.round(),
            Rounding::HalfUp => (x + 0.5).floor(),
        }
    }

    /// The name used in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            Rounding::NearestEven => "nearest-even",
            Rounding::NearestAway => "nearest-away",
            Rounding::HalfUp => "half-up",
        }
    }
}

/// Which elements share a scale and zero point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Granularity {
    /// One for the whole tensor.
    PerTensor,
    /// One per output channel (weights) or per channel of dimension 1 (activations).
    PerChannel,
    /// One per group of this many consecutive elements along the reduction dimension of a
    /// weight, per output channel (ONNX Runtime's `MatMulNBits` blocks).
    PerGroup(u32),
}

/// What a scale may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScaleKind {
    /// Any positive float.
    Float,
    /// A power of two (fixed-point arithmetic: a shift instead of a multiply).
    PowerOfTwo,
}

/// Integer quantization of one kind of tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntSpec {
    /// Bits of the stored integer (2 to 32).
    pub bits: u32,
    /// Signed (`i8`) or unsigned (`u8`) storage.
    pub signed: bool,
    /// Zero point fixed at the middle of the range (0 for signed storage) instead of chosen.
    pub symmetric: bool,
    /// Signed storage leaves out its most negative value (`[-127, 127]` for 8 bits), so that
    /// the range is symmetric.
    pub narrow: bool,
    /// Which elements share parameters.
    pub granularity: Granularity,
    /// What the scale may be.
    pub scale: ScaleKind,
}

/// A float format a scheme casts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatFormat {
    /// IEEE half precision.
    F16,
    /// bfloat16.
    BF16,
}

impl FloatFormat {
    /// The MLIR keyword of the type.
    pub fn keyword(self) -> &'static str {
        match self {
            FloatFormat::F16 => "f16",
            FloatFormat::BF16 => "bf16",
        }
    }
}

/// How one kind of tensor (activations, weights, biases) is represented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorSpec {
    /// Left in the model's float type.
    Float,
    /// Quantized to integers.
    Int(IntSpec),
    /// Cast to a smaller float format; `subnormals: false` flushes subnormal values to zero.
    Cast {
        /// The format.
        format: FloatFormat,
        /// Whether subnormal values are kept.
        subnormals: bool,
    },
}

impl TensorSpec {
    /// The integer spec, if integer.
    pub fn int(&self) -> Option<&IntSpec> {
        match self {
            TensorSpec::Int(s) => Some(s),
            _ => None,
        }
    }

    /// A short description for listings: `u8 affine per-tensor`, `s8 sym per-channel narrow`,
    /// `f16 (no subnormals)`, `float`.
    pub fn describe(&self) -> String {
        match self {
            TensorSpec::Float => "float".into(),
            TensorSpec::Cast { format, subnormals } => format!(
                "{}{}",
                format.keyword(),
                if *subnormals { "" } else { " (no subnormals)" }
            ),
            TensorSpec::Int(s) => {
                let mut t = format!(
                    "{}{} {}",
                    if s.signed { "s" } else { "u" },
                    s.bits,
                    if s.symmetric { "sym" } else { "affine" }
                );
                match s.granularity {
                    Granularity::PerTensor => t.push_str(" per-tensor"),
                    Granularity::PerChannel => t.push_str(" per-channel"),
                    Granularity::PerGroup(g) => {
                        let _ = write!(t, " per-group({g})");
                    }
                }
                if s.narrow {
                    t.push_str(" narrow");
                }
                if s.scale == ScaleKind::PowerOfTwo {
                    t.push_str(" pow2");
                }
                t
            }
        }
    }
}

/// How biases of covered ops are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BiasSpec {
    /// Left in float.
    Float,
    /// `i32` with scale `input scale * weight scale` and zero point 0, so that it adds to the
    /// integer accumulator.
    Int32,
    /// Cast like the weights (float schemes).
    LikeWeights,
}

/// A quantization scheme.
#[derive(Clone, Debug, PartialEq)]
pub struct Scheme {
    /// The name on the command line (`onnx-qdq`).
    pub name: String,
    /// One line saying what it is for.
    pub summary: String,
    /// Activations.
    pub activations: TensorSpec,
    /// Weights (constant operands of covered ops).
    pub weights: TensorSpec,
    /// Biases.
    pub bias: BiasSpec,
    /// Bits of the integer accumulator (0 for float schemes).
    pub accumulator_bits: u32,
    /// Rounding of weights at compile time (activations round as `quant.qcast` does, half to
    /// even).
    pub rounding: Rounding,
    /// The widths a user may pick with `bits=N` (for `arm-lowbit`: 2 to 8); equal bounds when
    /// the width is fixed.
    pub bits_range: (u32, u32),
    /// The ONNX ops it covers (`Conv`, `MatMul`, ...).
    pub ops: Vec<String>,
}

/// The ops integer schemes cover by default: those that compute on weights, elementwise
/// arithmetic, pooling, and the data movement between them.
const DEFAULT_OPS: &[&str] = &[
    "Add",
    "AveragePool",
    "Clip",
    "Concat",
    "Conv",
    "ConvTranspose",
    "Flatten",
    "Gemm",
    "GlobalAveragePool",
    "LeakyRelu",
    "MatMul",
    "MaxPool",
    "Mul",
    "Relu",
    "Reshape",
    "Squeeze",
    "Transpose",
    "Unsqueeze",
];

/// The ops with weights (what weight-only schemes cover).
const WEIGHT_OPS: &[&str] = &["Conv", "ConvTranspose", "Gemm", "MatMul"];

fn ops(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

const fn int(bits: u32, signed: bool, symmetric: bool, granularity: Granularity) -> TensorSpec {
    TensorSpec::Int(IntSpec {
        bits,
        signed,
        symmetric,
        narrow: false,
        granularity,
        scale: ScaleKind::Float,
    })
}

const fn narrow(spec: TensorSpec) -> TensorSpec {
    match spec {
        TensorSpec::Int(mut s) => {
            s.narrow = true;
            TensorSpec::Int(s)
        }
        other => other,
    }
}

const fn pow2(spec: TensorSpec) -> TensorSpec {
    match spec {
        TensorSpec::Int(mut s) => {
            s.scale = ScaleKind::PowerOfTwo;
            TensorSpec::Int(s)
        }
        other => other,
    }
}

use Granularity::{PerChannel, PerGroup, PerTensor};

/// The built-in schemes.
pub fn builtin_schemes() -> Vec<Scheme> {
    let s = |name: &str,
             summary: &str,
             activations: TensorSpec,
             weights: TensorSpec,
             bias: BiasSpec,
             accumulator_bits: u32,
             rounding: Rounding,
             bits_range: (u32, u32),
             covered: &[&str]| Scheme {
        name: name.into(),
        summary: summary.into(),
        activations,
        weights,
        bias,
        accumulator_bits,
        rounding,
        bits_range,
        ops: ops(covered),
    };
    let fp = |format| TensorSpec::Cast {
        format,
        subnormals: false,
    };
    vec![
        s(
            "onnx-qdq",
            "ONNX Runtime's QDQ format: u8 affine activations, s8 symmetric per-channel weights",
            int(8, false, false, PerTensor),
            int(8, true, true, PerChannel),
            BiasSpec::Int32,
            32,
            Rounding::NearestEven,
            (8, 8),
            DEFAULT_OPS,
        ),
        s(
            "tensorrt",
            "TensorRT explicit quantization: s8 symmetric, per-channel weights, per-tensor activations",
            narrow(int(8, true, true, PerTensor)),
            narrow(int(8, true, true, PerChannel)),
            BiasSpec::Float,
            32,
            Rounding::NearestEven,
            (8, 8),
            DEFAULT_OPS,
        ),
        s(
            "snpe",
            "Qualcomm SNPE: u8 affine per-tensor activations and weights",
            int(8, false, false, PerTensor),
            int(8, false, false, PerTensor),
            BiasSpec::Int32,
            32,
            Rounding::NearestEven,
            (8, 8),
            DEFAULT_OPS,
        ),
        s(
            "sigmastar",
            "SigmaStar NPUs: u8 affine per-channel activations, s8 symmetric per-channel weights",
            int(8, false, false, PerChannel),
            int(8, true, true, PerChannel),
            BiasSpec::Int32,
            32,
            Rounding::NearestEven,
            (8, 8),
            DEFAULT_OPS,
        ),
        s(
            "pow2",
            "fixed point for Vitis DPU / NNIE-style chips: s8 symmetric, power-of-two scales",
            pow2(int(8, true, true, PerTensor)),
            pow2(int(8, true, true, PerTensor)),
            BiasSpec::Int32,
            32,
            Rounding::HalfUp,
            (8, 8),
            DEFAULT_OPS,
        ),
        s(
            "arm-lowbit",
            "ARM low-bit kernels: 2-8 bit affine per-tensor activations and weights (bits=N, default 4)",
            int(4, false, false, PerTensor),
            int(4, true, false, PerTensor),
            BiasSpec::Int32,
            32,
            Rounding::NearestEven,
            (2, 8),
            DEFAULT_OPS,
        ),
        s(
            "w4-group",
            "4-bit weight-only, affine per group of 32 (ONNX Runtime's MatMulNBits); float activations",
            TensorSpec::Float,
            int(4, false, false, PerGroup(32)),
            BiasSpec::Float,
            0,
            Rounding::NearestEven,
            (4, 4),
            &["Gemm", "MatMul"],
        ),
        s(
            "w4a8",
            "W4A8: s4 symmetric per-channel weights, u8 affine per-tensor activations (4-bit weight, 8-bit activation integer kernels)",
            int(8, false, false, PerTensor),
            int(4, true, true, PerChannel),
            BiasSpec::Int32,
            32,
            Rounding::NearestEven,
            (4, 4),
            DEFAULT_OPS,
        ),
        s(
            "w8a16",
            "s8 symmetric per-channel weights, u16 affine per-tensor activations",
            int(16, false, false, PerTensor),
            int(8, true, true, PerChannel),
            BiasSpec::Int32,
            32,
            Rounding::NearestEven,
            (8, 8),
            DEFAULT_OPS,
        ),
        s(
            "fp16",
            "IEEE half precision activations and weights, subnormals flushed to zero",
            fp(FloatFormat::F16),
            fp(FloatFormat::F16),
            BiasSpec::LikeWeights,
            0,
            Rounding::NearestEven,
            (16, 16),
            WEIGHT_OPS,
        ),
        s(
            "bf16",
            "bfloat16 activations and weights",
            TensorSpec::Cast {
                format: FloatFormat::BF16,
                subnormals: true,
            },
            TensorSpec::Cast {
                format: FloatFormat::BF16,
                subnormals: true,
            },
            BiasSpec::LikeWeights,
            0,
            Rounding::NearestEven,
            (16, 16),
            WEIGHT_OPS,
        ),
    ]
}

impl Scheme {
    /// Whether the scheme covers the ONNX op `onnx` (`Conv`).
    pub fn covers(&self, onnx: &str) -> bool {
        self.ops.iter().any(|o| o == onnx)
    }

    /// The scheme with integer activations and weights of `bits` bits (`arm-lowbit` with
    /// `bits=2`), or an error when the scheme's width is fixed or `bits` is out of its range.
    pub fn with_bits(&self, bits: u32) -> Result<Scheme, QuantError> {
        let (lo, hi) = self.bits_range;
        if bits < lo || bits > hi {
            return Err(QuantError::Scheme(if lo == hi {
                format!(
                    "scheme '{}' has a fixed width of {lo} bits; bits={bits} cannot be used",
                    self.name
                )
            } else {
                format!("scheme '{}' takes {lo} to {hi} bits, not {bits}", self.name)
            }));
        }
        let mut s = self.clone();
        if lo == hi {
            // A fixed width (w4a8's weights and activations differ): nothing to change.
            return Ok(s);
        }
        for spec in [&mut s.activations, &mut s.weights] {
            if let TensorSpec::Int(i) = spec {
                i.bits = bits;
            }
        }
        Ok(s)
    }
}

/// The schemes a tool knows: the built-in ones and those a target crate registers.
#[derive(Clone, Debug)]
pub struct SchemeRegistry {
    schemes: Vec<Scheme>,
}

impl Default for SchemeRegistry {
    fn default() -> Self {
        SchemeRegistry::with_builtins()
    }
}

impl SchemeRegistry {
    /// The built-in schemes.
    pub fn with_builtins() -> SchemeRegistry {
        SchemeRegistry {
            schemes: builtin_schemes(),
        }
    }

    /// Adds a scheme, replacing one of the same name.
    pub fn register(&mut self, scheme: Scheme) {
        match self.schemes.iter_mut().find(|s| s.name == scheme.name) {
            Some(s) => *s = scheme,
            None => self.schemes.push(scheme),
        }
    }

    /// The scheme called `name`.
    pub fn get(&self, name: &str) -> Result<&Scheme, QuantError> {
        self.schemes.iter().find(|s| s.name == name).ok_or_else(|| {
            QuantError::Scheme(format!(
                "unknown scheme '{name}'; the schemes are: {}",
                self.names().join(", ")
            ))
        })
    }

    /// The names, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.schemes.iter().map(|s| s.name.as_str()).collect()
    }

    /// Every scheme.
    pub fn iter(&self) -> impl Iterator<Item = &Scheme> {
        self.schemes.iter()
    }

    /// The table `nart quantize --list-schemes` prints: one row per scheme, then what it covers.
    pub fn listing(&self) -> String {
        let mut rows = vec![[
            "scheme".to_string(),
            "activations".into(),
            "weights".into(),
            "bias".into(),
            "acc".into(),
            "rounding".into(),
            "bits".into(),
        ]];
        for s in &self.schemes {
            rows.push([
                s.name.clone(),
                s.activations.describe(),
                s.weights.describe(),
                match s.bias {
                    BiasSpec::Float => "float".into(),
                    BiasSpec::Int32 => "i32".into(),
                    BiasSpec::LikeWeights => "as weights".into(),
                },
                if s.accumulator_bits == 0 {
                    "-".into()
                } else {
                    format!("i{}", s.accumulator_bits)
                },
                s.rounding.as_str().into(),
                if s.bits_range.0 == s.bits_range.1 {
                    s.bits_range.0.to_string()
                } else {
                    format!("{}-{}", s.bits_range.0, s.bits_range.1)
                },
            ]);
        }
        let widths: Vec<usize> = (0..7)
            .map(|c| rows.iter().map(|r| r[c].len()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for r in &rows {
            let line: Vec<String> = r
                .iter()
                .zip(&widths)
                .map(|(cell, w)| format!("{cell:<w$}"))
                .collect();
            out.push_str(line.join("  ").trim_end());
            out.push('\n');
        }
        out.push('\n');
        for s in &self.schemes {
            let _ = writeln!(out, "{}: {}", s.name, s.summary);
            let _ = writeln!(out, "  ops: {}", s.ops.join(", "));
        }
        out
    }
}

/// The schemes the passes and the `nart` tool see: the built-in ones plus those registered with
/// [`register_scheme`].
static SCHEMES: std::sync::RwLock<Option<SchemeRegistry>> = std::sync::RwLock::new(None);

/// The registry the passes use (the built-in schemes and every registered one).
pub fn registry() -> SchemeRegistry {
    let guard = SCHEMES.read().unwrap_or_else(|e| e.into_inner());
    guard.clone().unwrap_or_default()
}

/// Adds a scheme for every later `quant-apply` and `nart quantize` in this process (a target
/// crate calls this from its registration function).
pub fn register_scheme(scheme: Scheme) {
    let mut guard = SCHEMES.write().unwrap_or_else(|e| e.into_inner());
    guard
        .get_or_insert_with(SchemeRegistry::with_builtins)
        .register(scheme);
}

/// Chosen quantization parameters of one tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct QParams {
    /// Storage bits.
    pub bits: u32,
    /// Signed storage.
    pub signed: bool,
    /// Smallest stored value.
    pub qmin: i64,
    /// Largest stored value.
    pub qmax: i64,
    /// One scale per tensor, channel or block.
    pub scales: Vec<f64>,
    /// One zero point per scale.
    pub zero_points: Vec<i64>,
    /// The channel dimension (per channel), or `None` for per tensor.
    pub axis: Option<u32>,
    /// `(dimension, block size)` for per-group parameters; the scales then form a tensor of
    /// the quantized tensor's shape divided by the blocks.
    pub block: Option<(u32, u32)>,
}

impl QParams {
    /// Quantizes `x` with parameter set `i`.
    #[inline]
    pub fn quantize(&self, i: usize, x: f64, rounding: Rounding) -> i64 {
        let q = rounding.round(x / self.scales[i]) + self.zero_points[i] as f64;
        (q.clamp(self.qmin as f64, self.qmax as f64)) as i64
    }

    /// The real value stored `q` stands for, with parameter set `i`.
    pub fn dequantize(&self, i: usize, q: i64) -> f64 {
        self.scales[i] * (q - self.zero_points[i]) as f64
    }
}

impl IntSpec {
    /// The stored range: `[-2^(b-1), 2^(b-1) - 1]` (narrow: from `-2^(b-1) + 1`) or
    /// `[0, 2^b - 1]`.
    pub fn storage_range(&self) -> (i64, i64) {
        if self.signed {
            let lo = -(1i64 << (self.bits - 1));
            (
                if self.narrow { lo + 1 } else { lo },
                (1i64 << (self.bits - 1)) - 1,
            )
        } else {
            (0, (1i64 << self.bits) - 1)
        }
    }

    /// The scale and zero point for values in `[lo, hi]`.
    ///
    /// The range is first widened to hold 0, so that 0 is exact (zero padding, ReLU).
    /// Symmetric: zero point the middle of the storage range (0 when signed) and
    /// `scale = max(|lo|, |hi|) / h`, with `h` the number of steps on the shorter side of the
    /// zero point (127 for `i8`, narrow or not; 7 for `i4`), so that both ends of the range are
    /// representable and the largest magnitude is never clipped. (`(qmax - qmin) / 2 = 127.5`,
    /// PyTorch's observers' choice, clips the positive end by half a step; on ResNet-18 with
    /// per-channel weights that cost 0.9 dB of output SQNR against ONNX Runtime, which divides
    /// by 127.) Affine: `scale = (hi - lo) / (qmax - qmin)`,
    /// `zero_point = round(qmin - lo / scale)`. Power-of-two scales are rounded up to the next
    /// power of two, so that the range is still covered. An empty range gets scale 1.
    pub fn choose(&self, lo: f64, hi: f64) -> (f64, i64) {
        let (qmin, qmax) = self.storage_range();
        let (lo, hi) = (lo.min(0.0), hi.max(0.0));
        let span = (qmax - qmin) as f64;
        let (mut scale, zp) = if self.symmetric {
            let amax = lo.abs().max(hi.abs());
            let zp = if self.signed {
                0
            } else {
                (qmin + qmax + 1) / 2
            };
            let steps = (qmax - zp).min(zp - qmin).max(1) as f64;
            (amax / steps, zp)
        } else {
            let scale = (hi - lo) / span;
            let zp = if scale > 0.0 {
                ((qmin as f64 - lo / scale).round_ties_even() as i64).clamp(qmin, qmax)
            } else {
                qmin.max(0).min(qmax)
            };
            (scale, zp)
        };
        if scale.is_nan() || scale <= f64::from(f32::MIN_POSITIVE) || !scale.is_finite() {
            return (
                1.0,
                if self.symmetric {
                    zp
                } else {
                    qmin.max(0).min(qmax)
                },
            );
        }
        if self.scale == ScaleKind::PowerOfTwo {
            scale = 2f64.powi(scale.log2().ceil() as i32);
            if !self.symmetric {
                let zp = ((qmin as f64 - lo / scale).round_ties_even() as i64).clamp(qmin, qmax);
                return (scale, zp);
            }
        }
        (scale, zp)
    }

    /// Parameters for an activation with range `[lo, hi]` (per tensor), or per-channel ranges
    /// along `axis`.
    pub fn params_for_ranges(&self, ranges: &[(f64, f64)], axis: Option<u32>) -> QParams {
        let (qmin, qmax) = self.storage_range();
        let (scales, zero_points) = ranges.iter().map(|&(lo, hi)| self.choose(lo, hi)).unzip();
        QParams {
            bits: self.bits,
            signed: self.signed,
            qmin,
            qmax,
            scales,
            zero_points,
            axis,
            block: None,
        }
    }

    /// Parameters for a weight of `shape` holding `data` (row-major): per tensor, per channel
    /// of `channel_axis`, or per group of the reduction dimension `reduce_axis` (falling back to
    /// per channel when the group size does not divide it).
    pub fn params_for_weight(
        &self,
        data: &[f64],
        shape: &[usize],
        channel_axis: usize,
        reduce_axis: usize,
    ) -> QParams {
        let range = |it: &mut dyn Iterator<Item = f64>| {
            it.fold((0.0f64, 0.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)))
        };
        match self.granularity {
            Granularity::PerTensor => {
                self.params_for_ranges(&[range(&mut data.iter().copied())], None)
            }
            Granularity::PerChannel => {
                let ranges = per_axis_ranges(data, shape, channel_axis);
                self.params_for_ranges(&ranges, Some(channel_axis as u32))
            }
            Granularity::PerGroup(g) => {
                let k = shape.get(reduce_axis).copied().unwrap_or(0);
                if g == 0 || k == 0 || k % g as usize != 0 || shape.len() != 2 {
                    let ranges = per_axis_ranges(data, shape, channel_axis);
                    return self.params_for_ranges(&ranges, Some(channel_axis as u32));
                }
                // Scales form a tensor of shape[reduce_axis] / g by the other dimension.
                let g = g as usize;
                let mut scale_shape = shape.to_vec();
                scale_shape[reduce_axis] /= g;
                let n_blocks: usize = scale_shape.iter().product();
                let mut ranges = vec![(0.0f64, 0.0f64); n_blocks];
                for (i, &x) in data.iter().enumerate() {
                    let (r, c) = (i / shape[1], i % shape[1]);
                    let (br, bc) = if reduce_axis == 0 {
                        (r / g, c)
                    } else {
                        (r, c / g)
                    };
                    let b = br * scale_shape[1] + bc;
                    ranges[b] = (ranges[b].0.min(x), ranges[b].1.max(x));
                }
                let mut p = self.params_for_ranges(&ranges, None);
                p.block = Some((reduce_axis as u32, g as u32));
                p
            }
        }
    }
}

/// The `(min, max)` of each index of dimension `axis` of a row-major tensor.
pub fn per_axis_ranges(data: &[f64], shape: &[usize], axis: usize) -> Vec<(f64, f64)> {
    let c = shape.get(axis).copied().unwrap_or(1).max(1);
    let inner: usize = shape.iter().skip(axis + 1).product();
    let mut ranges = vec![(f64::INFINITY, f64::NEG_INFINITY); c];
    // Row-major: runs of `inner` values belong to one index, the indices cycling.
    for (k, run) in data.chunks(inner.max(1)).enumerate() {
        let r = &mut ranges[k % c];
        *r = run.iter().fold(*r, |(lo, hi), &x| (lo.min(x), hi.max(x)));
    }
    for r in &mut ranges {
        if r.0 > r.1 {
            *r = (0.0, 0.0);
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(bits: u32, signed: bool, symmetric: bool) -> IntSpec {
        IntSpec {
            bits,
            signed,
            symmetric,
            narrow: false,
            granularity: Granularity::PerTensor,
            scale: ScaleKind::Float,
        }
    }

    #[test]
    fn affine_u8_maps_the_range_onto_0_255() {
        let (s, zp) = spec(8, false, false).choose(-1.0, 3.0);
        assert!((s - 4.0 / 255.0).abs() < 1e-12);
        assert_eq!(zp, 64); // round(0 - (-1) / (4/255)) = round(63.75)
                            // A range that does not hold 0 is widened to hold it: 0 is exact.
        let (s, zp) = spec(8, false, false).choose(2.0, 5.1);
        assert_eq!(zp, 0);
        assert!((s - 0.02).abs() < 1e-12);
    }

    #[test]
    fn symmetric_signed_has_zero_point_0_and_narrow_range_uses_127() {
        let (s, zp) = spec(8, true, true).choose(-0.5, 2.0);
        assert_eq!(zp, 0);
        // Full range: 2.0 maps to 127 exactly, not to 127.5 (clipped); -128 is unused.
        assert!((s - 2.0 / 127.0).abs() < 1e-12);
        let (s4, _) = spec(4, true, true).choose(-0.5, 2.0);
        assert!((s4 - 2.0 / 7.0).abs() < 1e-12);
        let mut n = spec(8, true, true);
        n.narrow = true;
        assert_eq!(n.storage_range(), (-127, 127));
        let (s, zp) = n.choose(-0.5, 2.0);
        assert_eq!(zp, 0);
        assert!((s - 2.0 / 127.0).abs() < 1e-12);
        // Unsigned symmetric puts the zero point in the middle.
        assert_eq!(spec(8, false, true).choose(-1.0, 1.0).1, 128);
    }

    #[test]
    fn power_of_two_scales_cover_the_range() {
        let mut p = spec(8, true, true);
        p.scale = ScaleKind::PowerOfTwo;
        let (s, zp) = p.choose(-3.0, 3.0);
        // 3 / 127 = 0.0236..., next power of two is 2^-5.
        assert_eq!(s, 2f64.powi(-5));
        assert_eq!(zp, 0);
        assert!(s * 127.0 >= 3.0);
    }

    #[test]
    fn empty_range_gets_scale_one() {
        assert_eq!(spec(8, false, false).choose(0.0, 0.0), (1.0, 0));
    }

    #[test]
    fn per_channel_weights_get_a_scale_per_output_channel() {
        let mut p = spec(8, true, true);
        p.granularity = Granularity::PerChannel;
        // Two output channels of 3 values: amax 1 and 4.
        let w = [0.5, -1.0, 0.25, 4.0, 2.0, -3.0];
        let q = p.params_for_weight(&w, &[2, 3], 0, 1);
        assert_eq!(q.axis, Some(0));
        assert_eq!(q.zero_points, vec![0, 0]);
        assert!((q.scales[0] - 1.0 / 127.0).abs() < 1e-12);
        assert!((q.scales[1] - 4.0 / 127.0).abs() < 1e-12);
        assert_eq!(q.quantize(1, 4.0, Rounding::NearestEven), 127);
        // -1.0 maps to -127 exactly: both ends of the symmetric range are codes.
        assert_eq!(q.quantize(0, -1.0, Rounding::NearestEven), -127);
        assert_eq!(q.quantize(0, 1.0, Rounding::NearestEven), 127);
    }

    #[test]
    fn per_group_weights_get_a_scale_per_block_of_the_reduction_dimension() {
        let mut p = spec(4, false, false);
        p.granularity = Granularity::PerGroup(2);
        // K = 4 rows, N = 2 columns; blocks of 2 rows per column.
        let w = [0.0, 1.0, 1.5, -2.0, 3.0, 0.5, -1.0, 0.25];
        let q = p.params_for_weight(&w, &[4, 2], 1, 0);
        assert_eq!(q.block, Some((0, 2)));
        assert_eq!(q.scales.len(), 4);
        // Block (0, 0) holds 0.0 and 1.5: range [0, 1.5] over 15 steps.
        assert!((q.scales[0] - 0.1).abs() < 1e-12);
        assert_eq!(q.zero_points[0], 0);
        // Block (0, 1) holds 1.0 and -2.0: range [-2, 1], zero point round(2 / 0.2) = 10.
        assert!((q.scales[1] - 0.2).abs() < 1e-12);
        assert_eq!(q.zero_points[1], 10);
        // A group size that does not divide K falls back to per channel.
        p.granularity = Granularity::PerGroup(3);
        let q = p.params_for_weight(&w, &[4, 2], 1, 0);
        assert_eq!((q.axis, q.block, q.scales.len()), (Some(1), None, 2));
    }

    #[test]
    fn rounding_modes_differ_on_halves() {
        assert_eq!(Rounding::NearestEven.round(2.5), 2.0);
        assert_eq!(Rounding::NearestAway.round(2.5), 3.0);
        assert_eq!(Rounding::HalfUp.round(-2.5), -2.0);
        assert_eq!(Rounding::NearestAway.round(-2.5), -3.0);
    }

    #[test]
    fn registry_lists_every_scheme_and_takes_new_ones() {
        let mut r = SchemeRegistry::with_builtins();
        for name in [
            "onnx-qdq",
            "tensorrt",
            "snpe",
            "sigmastar",
            "pow2",
            "arm-lowbit",
            "w4-group",
            "w8a16",
            "fp16",
            "bf16",
        ] {
            assert!(r.get(name).is_ok(), "{name}");
            assert!(r.listing().contains(name));
        }
        let mut mine = r.get("snpe").unwrap().clone();
        mine.name = "my-npu".into();
        mine.ops = vec!["Conv".into()];
        r.register(mine);
        assert!(r.get("my-npu").unwrap().covers("Conv"));
        assert!(!r.get("my-npu").unwrap().covers("MatMul"));
        let err = r.get("nope").unwrap_err().to_string();
        assert!(
            err.contains("unknown scheme 'nope'") && err.contains("my-npu"),
            "{err}"
        );
    }

    #[test]
    fn bits_are_chosen_within_the_scheme_range() {
        let r = SchemeRegistry::with_builtins();
        let low = r.get("arm-lowbit").unwrap().with_bits(2).unwrap();
        let a = low.activations.int().unwrap();
        assert_eq!((a.bits, a.storage_range()), (2, (0, 3)));
        assert_eq!(low.weights.int().unwrap().storage_range(), (-2, 1));
        assert!(r.get("arm-lowbit").unwrap().with_bits(9).is_err());
        let e = r
            .get("onnx-qdq")
            .unwrap()
            .with_bits(4)
            .unwrap_err()
            .to_string();
        assert!(e.contains("fixed width of 8 bits"), "{e}");
    }
}
