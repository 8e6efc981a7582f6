//! The quantized types, with upstream MLIR's syntax and checks.
//!
//! - `!quant.uniform<i8:f32, 0.0125:-3>`: storage `i8`, expressed `f32`, one scale and zero
//!   point (the zero point is left out when it is 0);
//! - `!quant.uniform<i8<-127:127>:f32:1, {0.1,0.2:3}>`: a narrowed storage range, and one
//!   scale and zero point per index of dimension 1 (per axis, as for per-channel weights);
//! - `!quant.uniform<i4:f32:{1:32}, {{0.1, 0.2}, ...}>`: one scale per block of 32 along
//!   dimension 1 (MLIR's sub-channel form, for grouped 4-bit weights); the scales form a tensor
//!   whose shape is the quantized tensor's divided by the block sizes;
//! - `!quant.any<i8:f32>`: storage and expressed type chosen, parameters not yet;
//! - `!quant.calibrated<f32<-1.0:1.0>>`: a float range measured by calibration.
//!
//! Storage is a signless (`iN`) or unsigned (`uN`) integer of 1 to 32 bits.
//! Scales are stored as `f64` bits so that types hash and compare exactly.

use nart_ir::extensible::{AsmPrinter, DialectType, DialectTypeDef};
use nart_ir::parser::AsmParser;
use nart_ir::{Context, Diagnostic, FloatKind, Type, TypeData};

type PResult<T> = Result<T, Diagnostic>;

/// How a uniform quantized type maps stored integers to reals.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum QuantParams {
    /// One scale and zero point for the whole tensor.
    PerTensor {
        /// The scale, as `f64` bits.
        scale: u64,
        /// The zero point.
        zero_point: i64,
    },
    /// One scale and zero point per index of dimension `axis`.
    PerAxis {
        /// The quantized dimension.
        axis: u32,
        /// The scales, as `f64` bits.
        scales: Vec<u64>,
        /// The zero points.
        zero_points: Vec<i64>,
    },
    /// One scale and zero point per block (MLIR's sub-channel quantization).
    PerBlock {
        /// `(dimension, block size)` for the blocked dimensions.
        block_sizes: Vec<(u32, i64)>,
        /// The shape of the scale tensor.
        shape: Vec<i64>,
        /// The scales in row-major order, as `f64` bits of values of the expressed type.
        scales: Vec<u64>,
        /// The zero points, in the same order.
        zero_points: Vec<i64>,
    },
}

/// `!quant.uniform<...>`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct UniformQuantizedType {
    /// Bits of the storage integer.
    pub storage_width: u32,
    /// Whether the storage is read as signed (`i8`) or unsigned (`u8`).
    pub signed: bool,
    /// The smallest stored value.
    pub storage_min: i64,
    /// The largest stored value.
    pub storage_max: i64,
    /// The float type the values stand for.
    pub expressed: Type,
    /// Scales and zero points.
    pub params: QuantParams,
}

/// `!quant.any<i8:f32>`: a quantized type whose parameters are not chosen yet.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AnyQuantizedType {
    /// Bits of the storage integer.
    pub storage_width: u32,
    /// Whether the storage is read as signed.
    pub signed: bool,
    /// The float type the values stand for.
    pub expressed: Type,
}

/// `!quant.calibrated<f32<-1.0:1.0>>`: a float value with the range calibration measured.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct CalibratedQuantizedType {
    /// The float type.
    pub expressed: Type,
    /// The smallest value seen, as `f64` bits.
    pub min: u64,
    /// The largest value seen, as `f64` bits.
    pub max: u64,
}

/// The storage range of `width` bits: `[-2^(w-1), 2^(w-1) - 1]` signed, `[0, 2^w - 1]`
/// unsigned.
pub fn default_range(width: u32, signed: bool) -> (i64, i64) {
    if signed {
        (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
    } else {
        (0, (1i64 << width) - 1)
    }
}

impl UniformQuantizedType {
    /// A per-tensor type with the full storage range.
    pub fn per_tensor(
        storage_width: u32,
        signed: bool,
        expressed: Type,
        scale: f64,
        zero_point: i64,
    ) -> UniformQuantizedType {
        let (storage_min, storage_max) = default_range(storage_width, signed);
        UniformQuantizedType {
            storage_width,
            signed,
            storage_min,
            storage_max,
            expressed,
            params: QuantParams::PerTensor {
                scale: scale.to_bits(),
                zero_point,
            },
        }
    }

    /// A per-axis type with the full storage range.
    pub fn per_axis(
        storage_width: u32,
        signed: bool,
        expressed: Type,
        axis: u32,
        scales: &[f64],
        zero_points: &[i64],
    ) -> UniformQuantizedType {
        let (storage_min, storage_max) = default_range(storage_width, signed);
        UniformQuantizedType {
            storage_width,
            signed,
            storage_min,
            storage_max,
            expressed,
            params: QuantParams::PerAxis {
                axis,
                scales: scales.iter().map(|s| s.to_bits()).collect(),
                zero_points: zero_points.to_vec(),
            },
        }
    }

    /// The signless integer type the values are stored in (`i8` for `u8` too, as MLIR's
    /// `getStorageType`).
    pub fn storage_type(&self, ctx: &mut nart_ir::Uniquer) -> Type {
        ctx.int_type(self.storage_width)
    }

    /// The scale of a per-tensor type.
    pub fn scale(&self) -> Option<f64> {
        match self.params {
            QuantParams::PerTensor { scale, .. } => Some(f64::from_bits(scale)),
            _ => None,
        }
    }

    /// The zero point of a per-tensor type.
    pub fn zero_point(&self) -> Option<i64> {
        match self.params {
            QuantParams::PerTensor { zero_point, .. } => Some(zero_point),
            _ => None,
        }
    }

    /// The scales (one for a per-tensor type).
    pub fn scales(&self) -> Vec<f64> {
        match &self.params {
            QuantParams::PerTensor { scale, .. } => vec![f64::from_bits(*scale)],
            QuantParams::PerAxis { scales, .. } | QuantParams::PerBlock { scales, .. } => {
                scales.iter().map(|&s| f64::from_bits(s)).collect()
            }
        }
    }

    /// The zero points (one for a per-tensor type).
    pub fn zero_points(&self) -> Vec<i64> {
        match &self.params {
            QuantParams::PerTensor { zero_point, .. } => vec![*zero_point],
            QuantParams::PerAxis { zero_points, .. }
            | QuantParams::PerBlock { zero_points, .. } => zero_points.clone(),
        }
    }

    /// Checks the type against the shape of a tensor holding it (MLIR's checks in the casts):
    /// the quantized dimension exists and has one scale per index, or the blocks divide the
    /// dimensions into the scale tensor's shape.
    pub fn check_shape(&self, shape: &[i64]) -> Result<(), String> {
        match &self.params {
            QuantParams::PerTensor { .. } => Ok(()),
            QuantParams::PerAxis { axis, scales, .. } => {
                let Some(&dim) = shape.get(*axis as usize) else {
                    return Err("quantized dimension must be less than tensor rank".into());
                };
                if dim != nart_ir::DYNAMIC && dim != scales.len() as i64 {
                    return Err("quantized dimension size does not match number of scales".into());
                }
                Ok(())
            }
            QuantParams::PerBlock {
                block_sizes,
                shape: scale_shape,
                ..
            } => {
                if scale_shape.len() != shape.len() {
                    return Err(format!(
                        "rank of scales {} must match the rank of the tensor {}",
                        scale_shape.len(),
                        shape.len()
                    ));
                }
                for (d, (&dim, &n)) in shape.iter().zip(scale_shape).enumerate() {
                    if dim == nart_ir::DYNAMIC {
                        continue;
                    }
                    let block = block_sizes
                        .iter()
                        .find(|(a, _)| *a as usize == d)
                        .map_or(dim, |&(_, b)| b);
                    if block <= 0 || dim % block != 0 || dim / block != n {
                        return Err(format!(
                            "tensor shape dimension {d} of size {dim} is not {n} blocks of {block}"
                        ));
                    }
                }
                Ok(())
            }
        }
    }
}

fn float_kind(ctx: &Context, t: Type) -> Option<FloatKind> {
    match ctx.type_data(t) {
        TypeData::Float(k) => Some(*k),
        _ => None,
    }
}

/// The smallest positive (subnormal) and the largest finite value of a float format, as MLIR
/// bounds scales by them.
fn float_range(kind: FloatKind) -> (f64, f64) {
    match kind {
        FloatKind::F16 => (5.960464477539063e-8, 65504.0),
        FloatKind::BF16 => (9.183549615799121e-41, 3.3895313892515355e38),
        FloatKind::F64 => (f64::from_bits(1), f64::MAX),
        _ => (f64::from(f32::from_bits(1)), f64::from(f32::MAX)),
    }
}

fn check_storage(width: u32, signed: bool, min: i64, max: i64) -> Result<(), String> {
    if !(1..=32).contains(&width) {
        return Err(format!("illegal storage type size: {width}"));
    }
    let (lo, hi) = default_range(width, signed);
    if min < lo || max > hi || min > max {
        return Err(format!(
            "illegal storage min and storage max: ({min}:{max})"
        ));
    }
    Ok(())
}

fn check_scale(ctx: &Context, expressed: Type, scale: f64) -> Result<(), String> {
    let kind = float_kind(ctx, expressed).ok_or("expressed type must be a float type")?;
    let (lo, hi) = float_range(kind);
    if !(scale >= lo && scale <= hi) {
        return Err(format!(
            "scale {} out of expressed type range [{}, {}]",
            mlir_e(scale),
            mlir_e(lo),
            mlir_e(hi)
        ));
    }
    Ok(())
}

/// `%e` as MLIR prints it in messages (`1.401298e-45`).
fn mlir_e(v: f64) -> String {
    let s = format!("{v:.6e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = e.strip_prefix('-').map_or(('+', e), |d| ('-', d));
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

impl DialectType for UniformQuantizedType {
    fn def(&self) -> &'static DialectTypeDef {
        &UNIFORM
    }

    fn print(&self, p: &mut AsmPrinter<'_>) {
        p.write_str("<");
        print_storage(p, self.storage_width, self.signed);
        if (self.storage_min, self.storage_max) != default_range(self.storage_width, self.signed) {
            p.write_str(&format!("<{}:{}>", self.storage_min, self.storage_max));
        }
        p.write_str(":");
        p.print_type(self.expressed);
        let kind = float_kind(p.ctx(), self.expressed).unwrap_or(FloatKind::F32);
        match &self.params {
            QuantParams::PerTensor { scale, zero_point } => {
                p.write_str(", ");
                print_scale_zp(p, FloatKind::F64, *scale, *zero_point);
            }
            QuantParams::PerAxis {
                axis,
                scales,
                zero_points,
            } => {
                p.write_str(&format!(":{axis}, {{"));
                for (i, (&s, &z)) in scales.iter().zip(zero_points).enumerate() {
                    if i > 0 {
                        p.write_str(",");
                    }
                    print_scale_zp(p, FloatKind::F64, s, z);
                }
                p.write_str("}");
            }
            QuantParams::PerBlock {
                block_sizes,
                shape,
                scales,
                zero_points,
            } => {
                let blocks: Vec<String> = block_sizes
                    .iter()
                    .map(|(a, b)| format!("{a}:{b}"))
                    .collect();
                p.write_str(&format!(":{{{}}}, ", blocks.join(", ")));
                print_nested(p, kind, shape, scales, zero_points);
            }
        }
        p.write_str(">");
    }

    fn verify(&self, ctx: &Context) -> Result<(), String> {
        check_storage(
            self.storage_width,
            self.signed,
            self.storage_min,
            self.storage_max,
        )?;
        for s in self.scales() {
            check_scale(ctx, self.expressed, s)?;
        }
        match &self.params {
            QuantParams::PerAxis {
                scales,
                zero_points,
                ..
            } if scales.is_empty() || scales.len() != zero_points.len() => {
                Err("per-axis quantization needs one or more scales".into())
            }
            QuantParams::PerBlock {
                shape,
                scales,
                block_sizes,
                ..
            } => {
                let n: i64 = shape.iter().product();
                if n as usize != scales.len() {
                    return Err("the scales do not form a rectangular tensor".into());
                }
                if block_sizes.iter().any(|&(_, b)| b <= 0) {
                    return Err("block sizes must be positive".into());
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

fn print_storage(p: &mut AsmPrinter<'_>, width: u32, signed: bool) {
    p.write_str(&format!("{}{width}", if signed { "i" } else { "u" }));
}

fn print_scale_zp(p: &mut AsmPrinter<'_>, kind: FloatKind, scale: u64, zp: i64) {
    p.print_float_of(kind, f64::from_bits(scale));
    if zp != 0 {
        p.write_str(&format!(":{zp}"));
    }
}

/// Writes a row-major tensor of scales and zero points as nested braces.
fn print_nested(
    p: &mut AsmPrinter<'_>,
    kind: FloatKind,
    shape: &[i64],
    scales: &[u64],
    zps: &[i64],
) {
    let Some((&n, rest)) = shape.split_first() else {
        if let (Some(&s), Some(&z)) = (scales.first(), zps.first()) {
            print_scale_zp(p, kind, s, z);
        }
        return;
    };
    let stride: usize = rest.iter().product::<i64>().max(0) as usize;
    p.write_str("{");
    for i in 0..n.max(0) as usize {
        if i > 0 {
            p.write_str(", ");
        }
        let (lo, hi) = (i * stride, (i + 1) * stride);
        if rest.is_empty() {
            print_scale_zp(p, kind, scales[i], zps[i]);
        } else {
            print_nested(p, kind, rest, &scales[lo..hi], &zps[lo..hi]);
        }
    }
    p.write_str("}");
}

/// Reads `i8`, `u4`, ... into (width, signed).
fn parse_storage(p: &mut AsmParser<'_, '_>) -> PResult<(u32, bool)> {
    let kw = p.parse_keyword_any()?;
    let (signed, digits) = match kw.split_at_checked(1) {
        Some(("i", d)) => (true, d),
        Some(("u", d)) => (false, d),
        _ => return Err(p.emit_error("expected storage type")),
    };
    match digits.parse::<u32>() {
        Ok(w) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            if !(1..=32).contains(&w) {
                return Err(p.emit_error(format!("illegal storage type size: {w}")));
            }
            Ok((w, signed))
        }
        _ => Err(p.emit_error("expected storage type")),
    }
}

fn parse_expressed(p: &mut AsmParser<'_, '_>) -> PResult<Type> {
    let t = p.parse_type()?;
    if float_kind(p.ctx(), t).is_none() {
        return Err(p.emit_error("invalid kind of type specified"));
    }
    Ok(t)
}

fn parse_scale(p: &mut AsmParser<'_, '_>) -> PResult<f64> {
    if p.peek_is_integer_literal() {
        return Err(p.emit_error("unexpected decimal integer literal for a floating point value"));
    }
    p.parse_float()
}

/// `scale` or `scale:zero_point`.
fn parse_scale_zp(p: &mut AsmParser<'_, '_>) -> PResult<(f64, i64)> {
    let s = parse_scale(p)?;
    let z = if p.parse_optional_colon() {
        i64::try_from(p.parse_integer()?).map_err(|_| p.emit_error("zero point out of range"))?
    } else {
        0
    };
    Ok((s, z))
}

/// Nested braces of `scale[:zp]` forming a rectangular tensor; returns (shape, scales, zps).
fn parse_nested(p: &mut AsmParser<'_, '_>) -> PResult<(Vec<i64>, Vec<f64>, Vec<i64>)> {
    p.parse_literal("{")?;
    let mut shape_of_elems: Option<Vec<i64>> = None;
    let (mut scales, mut zps) = (Vec::new(), Vec::new());
    let mut n = 0;
    loop {
        if p.peek_is("{") {
            let (inner, s, z) = parse_nested(p)?;
            match &shape_of_elems {
                Some(prev) if *prev != inner => {
                    return Err(p.emit_error("the scales do not form a rectangular tensor"))
                }
                _ => shape_of_elems = Some(inner),
            }
            scales.extend(s);
            zps.extend(z);
        } else {
            if shape_of_elems.as_ref().is_some_and(|s| !s.is_empty()) {
                return Err(p.emit_error("the scales do not form a rectangular tensor"));
            }
            shape_of_elems = Some(Vec::new());
            let (s, z) = parse_scale_zp(p)?;
            scales.push(s);
            zps.push(z);
        }
        n += 1;
        if !p.parse_optional_comma() {
            break;
        }
    }
    p.parse_literal("}")?;
    let mut shape = vec![n];
    shape.extend(shape_of_elems.unwrap_or_default());
    Ok((shape, scales, zps))
}

fn parse_uniform(p: &mut AsmParser<'_, '_>) -> PResult<Type> {
    p.parse_less()?;
    let (width, signed) = parse_storage(p)?;
    let (mut min, mut max) = default_range(width, signed);
    if p.parse_optional_less() {
        min = i64::try_from(p.parse_integer()?)
            .map_err(|_| p.emit_error("storage min out of range"))?;
        p.parse_colon()?;
        max = i64::try_from(p.parse_integer()?)
            .map_err(|_| p.emit_error("storage max out of range"))?;
        p.parse_greater()?;
    }
    p.parse_colon()?;
    let expressed = parse_expressed(p)?;
    enum Kind {
        Tensor,
        Axis(u32),
        Blocks(Vec<(u32, i64)>),
    }
    let kind = if p.parse_optional_colon() {
        if p.parse_optional_literal("{") {
            let mut blocks = Vec::new();
            loop {
                let a = p.parse_integer()?;
                p.parse_colon()?;
                let b = p.parse_integer()?;
                let (Ok(a), Ok(b)) = (u32::try_from(a), i64::try_from(b)) else {
                    return Err(p.emit_error("block sizes must be non-negative"));
                };
                blocks.push((a, b));
                if !p.parse_optional_comma() {
                    break;
                }
            }
            p.parse_literal("}")?;
            Kind::Blocks(blocks)
        } else {
            let axis = p.parse_integer()?;
            let axis = u32::try_from(axis).map_err(|_| p.emit_error("expected a dimension"))?;
            Kind::Axis(axis)
        }
    } else {
        Kind::Tensor
    };
    p.parse_comma()?;
    let params = match kind {
        Kind::Tensor => {
            let (s, z) = parse_scale_zp(p)?;
            QuantParams::PerTensor {
                scale: s.to_bits(),
                zero_point: z,
            }
        }
        Kind::Axis(axis) => {
            p.parse_literal("{")?;
            let (mut scales, mut zps) = (Vec::new(), Vec::new());
            loop {
                let (s, z) = parse_scale_zp(p)?;
                scales.push(s.to_bits());
                zps.push(z);
                if !p.parse_optional_comma() {
                    break;
                }
            }
            p.parse_literal("}")?;
            QuantParams::PerAxis {
                axis,
                scales,
                zero_points: zps,
            }
        }
        Kind::Blocks(block_sizes) => {
            let (shape, scales, zero_points) = parse_nested(p)?;
            // Block scales are values of the expressed type.
            let kind = float_kind(p.ctx(), expressed).unwrap_or(FloatKind::F32);
            let scales = scales
                .iter()
                .map(|&s| nart_ir::util::round_to_float_kind(s, kind).to_bits())
                .collect();
            QuantParams::PerBlock {
                block_sizes,
                shape,
                scales,
                zero_points,
            }
        }
    };
    p.parse_greater()?;
    Ok(p.ctx().dialect_type(UniformQuantizedType {
        storage_width: width,
        signed,
        storage_min: min,
        storage_max: max,
        expressed,
        params,
    }))
}

/// The declaration of `!quant.uniform`.
pub static UNIFORM: DialectTypeDef = DialectTypeDef {
    dialect: "quant",
    mnemonic: "uniform",
    summary: "uniform quantization: r = scale * (q - zero_point), per tensor, axis or block",
    syntax: "!quant.uniform<storage[<min:max>]:expressed[:axis | :{dim:block, ...}], params>",
    parse: parse_uniform,
};

impl DialectType for AnyQuantizedType {
    fn def(&self) -> &'static DialectTypeDef {
        &ANY
    }
    fn print(&self, p: &mut AsmPrinter<'_>) {
        p.write_str("<");
        print_storage(p, self.storage_width, self.signed);
        p.write_str(":");
        p.print_type(self.expressed);
        p.write_str(">");
    }
}

/// The declaration of `!quant.any`.
pub static ANY: DialectTypeDef = DialectTypeDef {
    dialect: "quant",
    mnemonic: "any",
    summary: "a quantized type whose parameters are not chosen yet",
    syntax: "!quant.any<storage:expressed>",
    parse: |p| {
        p.parse_less()?;
        let (storage_width, signed) = parse_storage(p)?;
        p.parse_colon()?;
        let expressed = parse_expressed(p)?;
        p.parse_greater()?;
        Ok(p.ctx().dialect_type(AnyQuantizedType {
            storage_width,
            signed,
            expressed,
        }))
    },
};

impl DialectType for CalibratedQuantizedType {
    fn def(&self) -> &'static DialectTypeDef {
        &CALIBRATED
    }
    fn print(&self, p: &mut AsmPrinter<'_>) {
        p.write_str("<");
        p.print_type(self.expressed);
        p.write_str("<");
        p.print_float(f64::from_bits(self.min));
        p.write_str(":");
        p.print_float(f64::from_bits(self.max));
        p.write_str(">>");
    }
    fn verify(&self, _: &Context) -> Result<(), String> {
        let (lo, hi) = (f64::from_bits(self.min), f64::from_bits(self.max));
        // NaN bounds are illegal too: only an ordered `lo <= hi` passes.
        if !matches!(
            lo.partial_cmp(&hi),
            Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
        ) {
            return Err(format!(
                "illegal min and max: ({}:{})",
                mlir_e(lo),
                mlir_e(hi)
            ));
        }
        Ok(())
    }
}

/// The declaration of `!quant.calibrated`.
pub static CALIBRATED: DialectTypeDef = DialectTypeDef {
    dialect: "quant",
    mnemonic: "calibrated",
    summary: "a float value with the range calibration measured",
    syntax: "!quant.calibrated<expressed<min:max>>",
    parse: |p| {
        p.parse_less()?;
        let expressed = parse_expressed(p)?;
        p.parse_less()?;
        let min = p.parse_float()?;
        p.parse_colon()?;
        let max = p.parse_float()?;
        p.parse_greater()?;
        p.parse_greater()?;
        Ok(p.ctx().dialect_type(CalibratedQuantizedType {
            expressed,
            min: min.to_bits(),
            max: max.to_bits(),
        }))
    },
};

/// Every type of the dialect.
pub static TYPES: [&DialectTypeDef; 3] = [&UNIFORM, &ANY, &CALIBRATED];

/// The quantized element type of `ty` (a quantized type, or a shaped type of one).
pub fn quantized_element(ctx: &Context, ty: Type) -> Option<&UniformQuantizedType> {
    ctx.type_as::<UniformQuantizedType>(ctx.element_type(ty))
}
