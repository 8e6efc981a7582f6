//! Conversions from IR types and attributes to tensors: element types, shapes, dense constants,
//! and locations rendered for messages.

use nart_dialect_graph::types::{OptType, SeqType, StringType};
use nart_dialect_quant::{QuantParams, UniformQuantizedType};
use nart_ir::{Attr, AttrData, Context, DenseData, LocData, Location, Signedness, Type, TypeData};
use nart_tensor::qnn::QParams;
use nart_tensor::{DType, Data, Storage, Tensor};

/// The element type of a scalar IR type (`f32`, `ui8`, `i1`, `complex<f32>`, `!onnx.string`).
pub fn dtype_of_elem(ctx: &Context, ty: Type) -> Option<DType> {
    match ctx.type_data(ty) {
        TypeData::Integer { width, signedness } => {
            let name = match signedness {
                Signedness::Unsigned => format!("ui{width}"),
                _ => format!("i{width}"),
            };
            DType::from_name(&name)
        }
        TypeData::Float(kind) => DType::from_name(kind.keyword()),
        TypeData::Complex(inner) => match ctx.type_data(*inner) {
            TypeData::Float(nart_ir::FloatKind::F32) => Some(DType::Complex64),
            TypeData::Float(nart_ir::FloatKind::F64) => Some(DType::Complex128),
            _ => None,
        },
        d if d.downcast::<StringType>().is_some() => Some(DType::String),
        d => d
            .downcast::<UniformQuantizedType>()
            .map(|q| storage_dtype(q.storage_width, q.signed)),
    }
}

/// The tensor element type holding a quantized storage type of `width` bits: the type of that
/// width (`I8`, `U4`, `I2`, ...), or the next wider one (`i3` in `I8`, `u12` in `U16`).
pub fn storage_dtype(width: u32, signed: bool) -> DType {
    match (width, signed) {
        (0..=2, true) => DType::I2,
        (0..=2, false) => DType::U2,
        (3..=4, true) => DType::I4,
        (3..=4, false) => DType::U4,
        (5..=8, true) => DType::I8,
        (5..=8, false) => DType::U8,
        (9..=16, true) => DType::I16,
        (9..=16, false) => DType::U16,
        (17..=32, true) => DType::I32,
        (17..=32, false) => DType::U32,
        (_, true) => DType::I64,
        (_, false) => DType::U64,
    }
}

/// The quantization of values of type `ty` (a uniform quantized type, or a tensor of one):
/// storage type and range, and scales and zero points per tensor, per axis or per block.
pub fn quant_params(ctx: &Context, ty: Type) -> Option<QParams> {
    let q = nart_dialect_quant::types::quantized_element(ctx, ty)?;
    let dtype = storage_dtype(q.storage_width, q.signed);
    let base = match &q.params {
        QuantParams::PerTensor { scale, zero_point } => {
            QParams::per_tensor(dtype, f64::from_bits(*scale), *zero_point)
        }
        QuantParams::PerAxis {
            axis,
            scales,
            zero_points,
        } => QParams::per_axis(
            dtype,
            *axis as usize,
            scales.iter().map(|&s| f64::from_bits(s)).collect(),
            zero_points.clone(),
        ),
        QuantParams::PerBlock {
            shape,
            scales,
            zero_points,
            ..
        } => QParams::per_block(
            dtype,
            shape.iter().map(|&d| d as usize).collect(),
            scales.iter().map(|&s| f64::from_bits(s)).collect(),
            zero_points.clone(),
        ),
    };
    Some(
        base.with_bits(q.storage_width)
            .with_range(q.storage_min, q.storage_max),
    )
}

/// Dimensions of a tensor type; `None` marks a dynamic dimension.
pub type Dims = Vec<Option<usize>>;

/// The element type and shape of a tensor type; dynamic dimensions are `None`, and an unranked
/// tensor has no shape.
pub fn tensor_type_info(ctx: &Context, ty: Type) -> Option<(Option<DType>, Option<Dims>)> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, elem, .. } => {
            let dims = shape
                .iter()
                .map(|&d| usize::try_from(d).ok())
                .collect::<Vec<_>>();
            Some((dtype_of_elem(ctx, *elem), Some(dims)))
        }
        TypeData::UnrankedTensor { elem } => Some((dtype_of_elem(ctx, *elem), None)),
        _ => None,
    }
}

/// What kind of value a type stands for at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A tensor.
    Tensor,
    /// A sequence of tensors (`!graph.seq<...>`).
    Sequence,
    /// An optional (`!graph.opt<...>`).
    Optional,
    /// Anything else.
    Other,
}

/// The run-time kind of values of type `ty`.
pub fn value_kind(ctx: &Context, ty: Type) -> ValueKind {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. } => ValueKind::Tensor,
        d if d.downcast::<SeqType>().is_some() => ValueKind::Sequence,
        d if d.downcast::<OptType>().is_some() => ValueKind::Optional,
        _ => ValueKind::Other,
    }
}

/// Decodes a dense elements attribute into a tensor.
pub fn tensor_from_attr(ctx: &Context, attr: Attr) -> Result<Tensor, String> {
    let AttrData::DenseElements { ty, data } = ctx.attr_data(attr) else {
        if let AttrData::DenseResource { key, ty } = ctx.attr_data(attr) {
            return tensor_from_resource(ctx, key, *ty);
        }
        return Err("expected a dense elements attribute".into());
    };
    let (dtype, shape) = static_shape(ctx, *ty)?;
    let n: usize = shape.iter().product();
    match data {
        DenseData::Strings { splat, values } => {
            let strings: Vec<String> = values
                .iter()
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .collect();
            let strings = if *splat {
                vec![strings.first().cloned().unwrap_or_default(); n]
            } else {
                strings
            };
            Tensor::new(DType::String, shape, Data::Str(strings)).map_err(|e| e.to_string())
        }
        DenseData::Splat(bytes) => {
            let all = bytes.repeat(n);
            decode_elements(dtype, shape, &all)
        }
        DenseData::Elements(bytes) => decode_elements(dtype, shape, bytes),
    }
}

fn tensor_from_resource(ctx: &Context, key: &str, ty: Type) -> Result<Tensor, String> {
    let (dtype, shape) = static_shape(ctx, ty)?;
    for entries in ctx.resources.dialect.values() {
        if let Some(nart_ir::ResourceValue::Blob { data, .. }) = entries.get(key) {
            return decode_elements(dtype, shape, data);
        }
    }
    Err(format!(
        "dense resource '{key}' is not in the module's resources"
    ))
}

fn static_shape(ctx: &Context, ty: Type) -> Result<(DType, Vec<usize>), String> {
    let Some((Some(dtype), Some(dims))) = tensor_type_info(ctx, ty) else {
        return Err("constant has no known element type or rank".into());
    };
    let shape = dims
        .into_iter()
        .collect::<Option<Vec<usize>>>()
        .ok_or("constant has a dynamic shape")?;
    Ok((dtype, shape))
}

/// Decodes packed little-endian elements as a dense attribute stores them: whole bytes per
/// element, so the sub-byte types take one byte each.
pub fn decode_elements(dtype: DType, shape: Vec<usize>, bytes: &[u8]) -> Result<Tensor, String> {
    if dtype.bit_width() >= 8 || dtype == DType::Bool {
        return Tensor::from_raw_bytes(dtype, shape, bytes).map_err(|e| e.to_string());
    }
    let bits = dtype.bit_width() as u32;
    let mask = ((1u16 << bits) - 1) as u8;
    let data = match dtype.storage() {
        Storage::I8 => {
            let shift = 8 - bits;
            Data::I8(
                bytes
                    .iter()
                    .map(|&b| (((b & mask) << shift) as i8) >> shift)
                    .collect(),
            )
        }
        _ => Data::U8(bytes.iter().map(|&b| b & mask).collect()),
    };
    Tensor::new(dtype, shape, data).map_err(|e| e.to_string())
}

/// A short text for a location: `file:line:col`, the name of a named location, or `unknown`.
pub fn loc_to_string(ctx: &Context, loc: Location) -> String {
    match ctx.loc_data(loc) {
        LocData::Unknown => "unknown location".into(),
        LocData::FileLineCol {
            file, line, col, ..
        } => {
            format!("{}:{line}:{col}", ctx.str(*file))
        }
        LocData::Name { name, child } => match child {
            Some(c) if !matches!(ctx.loc_data(*c), LocData::Unknown) => {
                format!("\"{}\" ({})", ctx.str(*name), loc_to_string(ctx, *c))
            }
            _ => format!("\"{}\"", ctx.str(*name)),
        },
        LocData::CallSite { callee, .. } => loc_to_string(ctx, *callee),
        LocData::Fused { locs, .. } => locs
            .iter()
            .map(|l| loc_to_string(ctx, *l))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_width() {
        let t = decode_elements(DType::I4, vec![3], &[0x0f, 0x07, 0x08]).unwrap();
        assert_eq!(t.to_i64_vec().unwrap(), vec![-1, 7, -8]);
        let t = decode_elements(DType::U4, vec![2], &[0x0f, 0x03]).unwrap();
        assert_eq!(t.to_i64_vec().unwrap(), vec![15, 3]);
        let t = decode_elements(DType::Bool, vec![2], &[1, 0]).unwrap();
        assert_eq!(t.to_bool_vec().unwrap(), vec![true, false]);
        let t = decode_elements(DType::F32, vec![1], &1.5f32.to_le_bytes()).unwrap();
        assert_eq!(t.as_f32().unwrap(), &[1.5]);
    }

    #[test]
    fn dense_attr_splat_and_types() {
        let mut ctx = Context::new();
        let f32t = ctx.f32_type();
        let ty = ctx.tensor_type(vec![2, 2], f32t);
        let attr = ctx.intern_attr(AttrData::DenseElements {
            ty,
            data: DenseData::Splat(2.0f32.to_le_bytes().to_vec()),
        });
        let t = tensor_from_attr(&ctx, attr).unwrap();
        assert_eq!(t.shape(), &[2, 2]);
        assert_eq!(t.as_f32().unwrap(), &[2.0; 4]);
        let u8t = ctx.int_type_signed(8, Signedness::Unsigned);
        assert_eq!(dtype_of_elem(&ctx, u8t), Some(DType::U8));
        let i1 = ctx.i1_type();
        assert_eq!(dtype_of_elem(&ctx, i1), Some(DType::Bool));
    }
}
