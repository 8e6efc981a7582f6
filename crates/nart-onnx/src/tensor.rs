//! Conversions between ONNX `TensorProto`s and dense elements attributes.
//!
//! Elements are stored as packed little-endian bytes of the element's storage width rounded up
//! to whole bytes (`DenseData`'s layout), so 4-bit types take one byte per element here while
//! ONNX packs two per byte; the conversion unpacks and packs them.

use std::path::{Component, Path};

use nart_ir::{AttrData, Context, DenseData, Type, TypeData};
use nart_onnx_proto::TensorProto;

use crate::errors::TensorError;

/// The storage width in bits of an ONNX element type code, or `None` for strings and unknowns.
pub fn code_bits(code: i32) -> Option<u32> {
    Some(match code {
        1 | 6 | 12 => 32,
        2 | 3 | 9 | 17 | 18 | 19 | 20 | 24 => 8,
        4 | 5 | 10 | 16 => 16,
        7 | 11 | 13 | 14 => 64,
        15 => 128,
        21..=23 => 4,
        25 | 26 => 2,
        _ => return None,
    })
}

/// Bytes per element in `DenseData`.
fn dense_bytes(code: i32) -> Option<usize> {
    code_bits(code).map(|b| (b as usize).div_ceil(8))
}

/// Element count of `dims`, checked for negative dims and overflow.
pub fn element_count(dims: &[i64]) -> Result<usize, TensorError> {
    let mut n: usize = 1;
    for &d in dims {
        if d < 0 {
            return Err(TensorError::NegativeDim(d));
        }
        n = n.checked_mul(d as usize).ok_or(TensorError::TooLarge)?;
    }
    Ok(n)
}

/// Reads a tensor into (tensor type, dense data).
///
/// `model_dir` is the directory of the model file, where external data files live.
pub fn tensor_to_dense(
    ctx: &mut Context,
    t: &TensorProto,
    model_dir: Option<&Path>,
) -> Result<(Type, DenseData), TensorError> {
    tensor_to_dense_raw(ctx, t, t.raw_data.clone(), model_dir)
}

/// [`tensor_to_dense`] of a tensor whose `raw_data` the caller has taken out of it: `raw`
/// stands for that field, and its bytes move into the dense data rather than being copied
/// (a model's weights are most of its bytes).
pub fn tensor_to_dense_raw(
    ctx: &mut Context,
    t: &TensorProto,
    raw: Option<Vec<u8>>,
    model_dir: Option<&Path>,
) -> Result<(Type, DenseData), TensorError> {
    let code = t.data_type();
    let elem = nart_dialect_graph::constraints::elem_type(ctx, code)
        .ok_or(TensorError::UnknownType(code))?;
    let ty = ctx.tensor_type(t.dims.clone(), elem);
    let count = element_count(&t.dims)?;
    if code == 8 {
        if t.string_data.len() != count {
            return Err(TensorError::Length {
                got: t.string_data.len(),
                want: count,
            });
        }
        return Ok((
            ty,
            DenseData::Strings {
                splat: false,
                values: t.string_data.clone(),
            },
        ));
    }
    let bits = code_bits(code).ok_or(TensorError::UnknownType(code))?;
    let width = dense_bytes(code).ok_or(TensorError::UnknownType(code))?;
    let external = t.data_location == Some(1) || !t.external_data.is_empty();
    let raw: Option<Vec<u8>> = if external {
        Some(read_external(t, model_dir)?)
    } else {
        raw
    };
    let bytes = if let Some(raw) = raw {
        let packed_len = (count as u128 * bits as u128).div_ceil(8);
        if raw.len() as u128 != packed_len {
            return Err(TensorError::Length {
                got: raw.len(),
                want: packed_len as usize,
            });
        }
        if bits < 8 {
            unpack_sub_byte(&raw, count, bits)
        } else {
            raw
        }
    } else {
        typed_fields(t, code, count, width, bits)?
    };
    debug_assert_eq!(
        bytes.len(),
        count * width,
        "dense data has one slot per element"
    );
    Ok((ty, DenseData::Elements(bytes)))
}

fn unpack_sub_byte(raw: &[u8], count: usize, bits: u32) -> Vec<u8> {
    let per = (8 / bits) as usize;
    let mask = ((1u16 << bits) - 1) as u8;
    (0..count)
        .map(|k| (raw[k / per] >> ((k % per) as u32 * bits)) & mask)
        .collect()
}

/// Packs one-byte-per-element sub-byte data the way ONNX `raw_data` stores it.
pub fn pack_sub_byte(bytes: &[u8], bits: u32) -> Vec<u8> {
    let per = (8 / bits) as usize;
    let mask = ((1u16 << bits) - 1) as u8;
    let mut out = vec![0u8; bytes.len().div_ceil(per)];
    for (k, b) in bytes.iter().enumerate() {
        out[k / per] |= (b & mask) << ((k % per) as u32 * bits);
    }
    out
}

fn typed_fields(
    t: &TensorProto,
    code: i32,
    count: usize,
    width: usize,
    bits: u32,
) -> Result<Vec<u8>, TensorError> {
    let check = |got: usize, want: usize| {
        if got == want {
            Ok(())
        } else {
            Err(TensorError::Length { got, want })
        }
    };
    // Allocated as the data is checked, never from the (untrusted) shape alone.
    let mut out = Vec::new();
    let _ = width;
    match code {
        1 => {
            check(t.float_data.len(), count)?;
            t.float_data
                .iter()
                .for_each(|v| out.extend(v.to_le_bytes()));
        }
        14 => {
            check(t.float_data.len(), 2 * count)?;
            t.float_data
                .iter()
                .for_each(|v| out.extend(v.to_le_bytes()));
        }
        11 => {
            check(t.double_data.len(), count)?;
            t.double_data
                .iter()
                .for_each(|v| out.extend(v.to_le_bytes()));
        }
        15 => {
            check(t.double_data.len(), 2 * count)?;
            t.double_data
                .iter()
                .for_each(|v| out.extend(v.to_le_bytes()));
        }
        7 => {
            check(t.int64_data.len(), count)?;
            t.int64_data
                .iter()
                .for_each(|v| out.extend(v.to_le_bytes()));
        }
        12 | 13 => {
            check(t.uint64_data.len(), count)?;
            t.uint64_data
                .iter()
                .for_each(|v| out.extend(&v.to_le_bytes()[..width]));
        }
        21..=26 => {
            // 4-bit and 2-bit types pack several elements into each int32_data entry.
            let per = (8 / bits) as usize;
            check(t.int32_data.len(), count.div_ceil(per))?;
            let raw: Vec<u8> = t.int32_data.iter().map(|v| *v as u8).collect();
            out = unpack_sub_byte(&raw, count, bits);
        }
        _ => {
            check(t.int32_data.len(), count)?;
            t.int32_data
                .iter()
                .for_each(|v| out.extend(&v.to_le_bytes()[..width]));
        }
    }
    Ok(out)
}

fn read_external(t: &TensorProto, model_dir: Option<&Path>) -> Result<Vec<u8>, TensorError> {
    let mut location = None;
    let mut offset = 0u64;
    let mut length = None;
    for kv in &t.external_data {
        match kv.key() {
            "location" => location = Some(kv.value().to_string()),
            "offset" => {
                offset = kv
                    .value()
                    .parse()
                    .map_err(|_| TensorError::External(format!("bad offset '{}'", kv.value())))?
            }
            "length" => {
                length =
                    Some(kv.value().parse::<u64>().map_err(|_| {
                        TensorError::External(format!("bad length '{}'", kv.value()))
                    })?)
            }
            _ => {}
        }
    }
    let location = location.ok_or_else(|| TensorError::External("no 'location' entry".into()))?;
    let rel = Path::new(&location);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(TensorError::External(format!(
            "location '{location}' escapes the model's directory"
        )));
    }
    let dir = model_dir.ok_or_else(|| {
        TensorError::External(format!(
            "data file '{location}' cannot be found without the model's path"
        ))
    })?;
    let path = dir.join(rel);
    let data = std::fs::read(&path)
        .map_err(|e| TensorError::External(format!("cannot read '{}': {e}", path.display())))?;
    let start = usize::try_from(offset).map_err(|_| TensorError::TooLarge)?;
    let end = match length {
        Some(l) => start
            .checked_add(usize::try_from(l).map_err(|_| TensorError::TooLarge)?)
            .ok_or(TensorError::TooLarge)?,
        None => data.len(),
    };
    if start > end || end > data.len() {
        return Err(TensorError::External(format!(
            "range {start}..{end} is outside '{location}' ({} bytes)",
            data.len()
        )));
    }
    Ok(data[start..end].to_vec())
}

/// Writes a dense elements attribute back into a `TensorProto` (with `raw_data`).
pub fn dense_to_tensor(ctx: &Context, attr: nart_ir::Attr, name: &str) -> Option<TensorProto> {
    let AttrData::DenseElements { ty, data } = ctx.attr_data(attr) else {
        return None;
    };
    let TypeData::RankedTensor { shape, elem, .. } = ctx.type_data(*ty) else {
        return None;
    };
    let code = nart_dialect_graph::constraints::onnx_code(ctx, *elem)?;
    let count = element_count(shape).ok()?;
    let mut t = TensorProto {
        name: Some(name.to_string()),
        dims: shape.clone(),
        data_type: Some(code),
        ..Default::default()
    };
    match data {
        DenseData::Strings { splat, values } => {
            t.string_data = if *splat {
                vec![values.first()?.clone(); count]
            } else {
                values.clone()
            };
        }
        DenseData::Splat(b) => {
            let all: Vec<u8> = b.iter().copied().cycle().take(b.len() * count).collect();
            t.raw_data = Some(pack_if_needed(code, all));
        }
        DenseData::Elements(b) => t.raw_data = Some(pack_if_needed(code, b.clone())),
    }
    Some(t)
}

fn pack_if_needed(code: i32, bytes: Vec<u8>) -> Vec<u8> {
    match code_bits(code) {
        Some(b) if b < 8 => pack_sub_byte(&bytes, b),
        _ => bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_byte_packing_round_trips() {
        let v = vec![1u8, 15, 7, 0, 9];
        let packed = pack_sub_byte(&v, 4);
        assert_eq!(packed, vec![0xF1, 0x07, 0x09]);
        assert_eq!(unpack_sub_byte(&packed, 5, 4), v);
    }

    #[test]
    fn typed_and_raw_fields_agree() {
        let mut ctx = Context::new();
        let typed = TensorProto {
            dims: vec![2],
            data_type: Some(1),
            float_data: vec![1.5, -2.0],
            ..Default::default()
        };
        let raw = TensorProto {
            dims: vec![2],
            data_type: Some(1),
            raw_data: Some([1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat()),
            ..Default::default()
        };
        let a = tensor_to_dense(&mut ctx, &typed, None).unwrap();
        let b = tensor_to_dense(&mut ctx, &raw, None).unwrap();
        assert_eq!(a, b);
        let short = TensorProto {
            dims: vec![3],
            ..typed
        };
        assert!(matches!(
            tensor_to_dense(&mut ctx, &short, None),
            Err(TensorError::Length { got: 2, want: 3 })
        ));
    }

    #[test]
    fn external_paths_may_not_escape() {
        let mut ctx = Context::new();
        let t = TensorProto {
            dims: vec![1],
            data_type: Some(1),
            data_location: Some(1),
            external_data: vec![nart_onnx_proto::StringStringEntryProto {
                key: Some("location".into()),
                value: Some("../secret.bin".into()),
            }],
            ..Default::default()
        };
        let err = tensor_to_dense(&mut ctx, &t, Some(Path::new("/tmp"))).unwrap_err();
        assert!(err.to_string().contains("escapes"), "{err}");
    }
}
