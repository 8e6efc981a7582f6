//! Reading and writing tensors as ONNX `raw_data` bytes and as `.npy` files, and BitCast,
//! which reinterprets those bytes.

use crate::tensor::{checked_alloc, elem_bytes, Data};
use crate::{DType, KernelError, Result, Storage, Tensor};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::path::Path;

fn chunks<const N: usize>(b: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
    b.chunks_exact(N).map(|c| {
        let mut a = [0u8; N];
        a.copy_from_slice(c);
        a
    })
}

/// Unpacks LSB-first bit fields of `width` bits.
fn unpack_bits(bytes: &[u8], width: usize, n: usize) -> Vec<u8> {
    (0..n)
        .map(|k| {
            let mut v = 0u16;
            for b in 0..width {
                let bit = k * width + b;
                if bytes[bit / 8] >> (bit % 8) & 1 == 1 {
                    v |= 1 << b;
                }
            }
            v as u8
        })
        .collect()
}

/// Packs values into LSB-first bit fields of `width` bits.
fn pack_bits(vals: &[u8], width: usize) -> Vec<u8> {
    let mut out = vec![0u8; (vals.len() * width).div_ceil(8)];
    for (k, &v) in vals.iter().enumerate() {
        for b in 0..width {
            if v >> b & 1 == 1 {
                let bit = k * width + b;
                out[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    out
}

impl Tensor {
    /// Decodes ONNX `raw_data` (little-endian; sub-byte types packed LSB first).
    pub fn from_raw_bytes(dtype: DType, shape: Vec<usize>, bytes: &[u8]) -> Result<Tensor> {
        let n = checked_alloc("from_raw_bytes", &shape, elem_bytes(dtype))?;
        let bits = dtype.bit_width();
        if dtype == DType::String {
            return Err(KernelError::Decode(
                "strings cannot be stored in raw_data".into(),
            ));
        }
        let need = n.saturating_mul(bits).div_ceil(8);
        if bytes.len() != need {
            return Err(KernelError::Decode(format!(
                "raw_data for {n} elements of {dtype} needs {need} bytes, got {}",
                bytes.len()
            )));
        }
        let data = match dtype.storage() {
            Storage::F32 => Data::F32(chunks::<4>(bytes).map(f32::from_le_bytes).collect()),
            Storage::F64 => Data::F64(chunks::<8>(bytes).map(f64::from_le_bytes).collect()),
            Storage::F16 => Data::F16(
                chunks::<2>(bytes)
                    .map(|c| f16::from_bits(u16::from_le_bytes(c)))
                    .collect(),
            ),
            Storage::BF16 => Data::BF16(
                chunks::<2>(bytes)
                    .map(|c| bf16::from_bits(u16::from_le_bytes(c)))
                    .collect(),
            ),
            Storage::I16 => Data::I16(chunks::<2>(bytes).map(i16::from_le_bytes).collect()),
            Storage::I32 => Data::I32(chunks::<4>(bytes).map(i32::from_le_bytes).collect()),
            Storage::I64 => Data::I64(chunks::<8>(bytes).map(i64::from_le_bytes).collect()),
            Storage::U16 => Data::U16(chunks::<2>(bytes).map(u16::from_le_bytes).collect()),
            Storage::U32 => Data::U32(chunks::<4>(bytes).map(u32::from_le_bytes).collect()),
            Storage::U64 => Data::U64(chunks::<8>(bytes).map(u64::from_le_bytes).collect()),
            Storage::Bool => Data::Bool(bytes.iter().map(|&b| b != 0).collect()),
            Storage::C64 => Data::C64(
                chunks::<8>(bytes)
                    .map(|c| {
                        let re = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                        let im = f32::from_le_bytes([c[4], c[5], c[6], c[7]]);
                        Complex32::new(re, im)
                    })
                    .collect(),
            ),
            Storage::C128 => Data::C128(
                chunks::<16>(bytes)
                    .map(|c| {
                        let mut a = [0u8; 8];
                        a.copy_from_slice(&c[..8]);
                        let re = f64::from_le_bytes(a);
                        a.copy_from_slice(&c[8..]);
                        Complex64::new(re, f64::from_le_bytes(a))
                    })
                    .collect(),
            ),
            Storage::I8 if bits == 8 => Data::I8(bytes.iter().map(|&b| b as i8).collect()),
            Storage::I8 => {
                // Sign-extend each field.
                let shift = 8 - bits as u32;
                Data::I8(
                    unpack_bits(bytes, bits, n)
                        .into_iter()
                        .map(|v| ((v << shift) as i8) >> shift)
                        .collect(),
                )
            }
            Storage::U8 if bits == 8 => Data::U8(bytes.to_vec()),
            Storage::U8 => Data::U8(unpack_bits(bytes, bits, n)),
            Storage::Str => unreachable!("strings rejected above"),
        };
        Ok(Tensor::raw(dtype, shape, data))
    }

    /// ONNX BitCast: the same bits read as `to`, which must have the element width of this
    /// tensor's type (strings have no bits to reinterpret).
    pub fn bit_cast(&self, to: DType) -> Result<Tensor> {
        const OP: &str = "BitCast";
        for dt in [self.dtype(), to] {
            if dt == DType::String {
                return Err(KernelError::dtype(OP, dt));
            }
        }
        if to.bit_width() != self.dtype().bit_width() {
            return Err(KernelError::attr(
                OP,
                "to",
                format!(
                    "{} and {} have different bit widths",
                    self.dtype().name(),
                    to.name()
                ),
            ));
        }
        Tensor::from_raw_bytes(to, self.shape().to_vec(), &self.to_raw_bytes()?)
    }

    /// Encodes the tensor as ONNX `raw_data`; strings are rejected.
    pub fn to_raw_bytes(&self) -> Result<Vec<u8>> {
        let bits = self.dtype().bit_width();
        Ok(match self.data() {
            Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
            Data::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
            Data::I16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::U16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::Bool(v) => v.iter().map(|&b| b as u8).collect(),
            Data::C64(v) => v
                .iter()
                .flat_map(|c| [c.re.to_le_bytes(), c.im.to_le_bytes()].concat())
                .collect(),
            Data::C128(v) => v
                .iter()
                .flat_map(|c| [c.re.to_le_bytes(), c.im.to_le_bytes()].concat())
                .collect(),
            Data::I8(v) if bits == 8 => v.iter().map(|&x| x as u8).collect(),
            Data::I8(v) => {
                let mask = ((1u16 << bits) - 1) as u8;
                let codes: Vec<u8> = v.iter().map(|&x| x as u8 & mask).collect();
                pack_bits(&codes, bits)
            }
            Data::U8(v) if bits == 8 => v.clone(),
            Data::U8(v) => pack_bits(v, bits),
            Data::Str(_) => {
                return Err(KernelError::Decode(
                    "strings cannot be stored in raw_data".into(),
                ));
            }
        })
    }

    /// Reads a `.npy` file (see [`Tensor::from_npy_bytes`]).
    pub fn read_npy(path: impl AsRef<Path>) -> Result<Tensor> {
        let bytes = std::fs::read(path.as_ref()).map_err(|e| KernelError::Io(e.to_string()))?;
        Tensor::from_npy_bytes(&bytes)
    }

    /// Writes a `.npy` file (see [`Tensor::to_npy_bytes`]).
    pub fn write_npy(&self, path: impl AsRef<Path>) -> Result<()> {
        let bytes = self.to_npy_bytes()?;
        std::fs::write(path.as_ref(), bytes).map_err(|e| KernelError::Io(e.to_string()))
    }

    /// Parses `.npy` bytes: little-endian or byte-sized numeric types, bool, complex and `<U` strings, C order.
    pub fn from_npy_bytes(bytes: &[u8]) -> Result<Tensor> {
        let bad = |m: &str| KernelError::Decode(format!("npy: {m}"));
        if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
            return Err(bad("missing magic"));
        }
        let (hlen, start) = match bytes[6] {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
            2 | 3 => {
                if bytes.len() < 12 {
                    return Err(bad("truncated header"));
                }
                (
                    u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                    12,
                )
            }
            v => return Err(bad(&format!("unsupported version {v}"))),
        };
        let end = start
            .checked_add(hlen)
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| bad("truncated header"))?;
        let header =
            std::str::from_utf8(&bytes[start..end]).map_err(|_| bad("header is not text"))?;
        let descr = dict_str(header, "descr").ok_or_else(|| bad("no descr"))?;
        if header.contains("'fortran_order': True") {
            return Err(bad("fortran_order arrays are not supported"));
        }
        let shape = dict_shape(header).ok_or_else(|| bad("bad shape"))?;
        let body = &bytes[end..];
        let (order, code) = descr.split_at(1);
        if order == ">" && !matches!(code, "i1" | "u1" | "b1") {
            return Err(bad("big-endian data is not supported"));
        }
        let dtype = match code {
            "f4" => DType::F32,
            "f8" => DType::F64,
            "f2" => DType::F16,
            "i1" => DType::I8,
            "i2" => DType::I16,
            "i4" => DType::I32,
            "i8" => DType::I64,
            "u1" => DType::U8,
            "u2" => DType::U16,
            "u4" => DType::U32,
            "u8" => DType::U64,
            "b1" => DType::Bool,
            "c8" => DType::Complex64,
            "c16" => DType::Complex128,
            c if c.starts_with('U') => {
                let width: usize = c[1..].parse().map_err(|_| bad("bad string width"))?;
                let n = checked_alloc("from_npy", &shape, elem_bytes(DType::String))?;
                if Some(body.len()) != n.checked_mul(width).and_then(|v| v.checked_mul(4)) {
                    return Err(bad("string data length does not match the shape"));
                }
                let mut out = Vec::with_capacity(n);
                for k in 0..n {
                    let mut s = String::new();
                    for j in 0..width {
                        let o = (k * width + j) * 4;
                        let cp =
                            u32::from_le_bytes([body[o], body[o + 1], body[o + 2], body[o + 3]]);
                        if cp == 0 {
                            break;
                        }
                        s.push(char::from_u32(cp).ok_or_else(|| bad("bad code point"))?);
                    }
                    out.push(s);
                }
                return Tensor::new(DType::String, shape, Data::Str(out));
            }
            other => return Err(bad(&format!("unsupported descr {other:?}"))),
        };
        Tensor::from_raw_bytes(dtype, shape, body)
    }

    /// Serializes as `.npy` version 1.0; bf16, the small floats and sub-byte ints have no numpy type and are rejected.
    pub fn to_npy_bytes(&self) -> Result<Vec<u8>> {
        let descr = match self.dtype() {
            DType::F32 => "<f4".to_string(),
            DType::F64 => "<f8".into(),
            DType::F16 => "<f2".into(),
            DType::I8 => "|i1".into(),
            DType::I16 => "<i2".into(),
            DType::I32 => "<i4".into(),
            DType::I64 => "<i8".into(),
            DType::U8 => "|u1".into(),
            DType::U16 => "<u2".into(),
            DType::U32 => "<u4".into(),
            DType::U64 => "<u8".into(),
            DType::Bool => "|b1".into(),
            DType::Complex64 => "<c8".into(),
            DType::Complex128 => "<c16".into(),
            DType::String => {
                let v = self.as_slice::<String>().unwrap_or(&[]);
                let w = v
                    .iter()
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
                    .max(1);
                format!("<U{w}")
            }
            d => return Err(KernelError::dtype("write_npy", d)),
        };
        let shape = match self.shape() {
            [] => "()".to_string(),
            [d] => format!("({d},)"),
            s => format!(
                "({})",
                s.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        let total = 10 + header.len() + 1;
        header.push_str(&" ".repeat((64 - total % 64) % 64));
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        if let Some(v) = self.as_slice::<String>() {
            let w: usize = descr[2..].parse().unwrap_or(1);
            for s in v {
                let mut n = 0;
                for c in s.chars() {
                    out.extend_from_slice(&(c as u32).to_le_bytes());
                    n += 1;
                }
                out.extend(std::iter::repeat_n(0u8, (w - n) * 4));
            }
        } else {
            out.extend(self.to_raw_bytes()?);
        }
        Ok(out)
    }
}

fn dict_str<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("'{key}':");
    let rest = header[header.find(&pat)? + pat.len()..].trim_start();
    let rest = rest.strip_prefix('\'')?;
    Some(&rest[..rest.find('\'')?])
}

fn dict_shape(header: &str) -> Option<Vec<usize>> {
    let rest = &header[header.find("'shape':")? + 8..];
    let open = rest.find('(')?;
    let close = rest.find(')')?;
    rest[open + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_round_trip_and_packing() {
        // onnx.helper.make_tensor("t", TensorProto.INT4, [3], [1, -2, 7], raw=True).raw_data == b'\xe1\x07'
        let t = Tensor::new(DType::I4, vec![3], Data::I8(vec![1, -2, 7])).unwrap();
        let b = t.to_raw_bytes().unwrap();
        assert_eq!(b, vec![0xE1, 0x07]);
        assert_eq!(Tensor::from_raw_bytes(DType::I4, vec![3], &b).unwrap(), t);
        let u2 = Tensor::new(DType::U2, vec![5], Data::U8(vec![1, 2, 3, 0, 1])).unwrap();
        let b = u2.to_raw_bytes().unwrap();
        assert_eq!(b, vec![0b00_11_10_01, 0b01]);
        assert_eq!(Tensor::from_raw_bytes(DType::U2, vec![5], &b).unwrap(), u2);
        let f6 = Tensor::new(DType::F6E2M3, vec![4], Data::U8(vec![1, 2, 3, 63])).unwrap();
        let b = f6.to_raw_bytes().unwrap();
        assert_eq!(b.len(), 3);
        assert_eq!(
            Tensor::from_raw_bytes(DType::F6E2M3, vec![4], &b).unwrap(),
            f6
        );
        let f = Tensor::vector(vec![1.0f32, -2.5]);
        assert_eq!(
            Tensor::from_raw_bytes(DType::F32, vec![2], &f.to_raw_bytes().unwrap()).unwrap(),
            f
        );
        assert!(Tensor::from_raw_bytes(DType::F32, vec![3], &[0; 8]).is_err());
    }

    #[test]
    fn npy_round_trip() {
        for t in [
            Tensor::from_vec(vec![2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap(),
            Tensor::from_vec(vec![2], vec![true, false]).unwrap(),
            Tensor::from_vec(vec![1], vec![f16::from_f32(1.5)]).unwrap(),
            Tensor::scalar(7i64),
            Tensor::vector(vec!["ab".to_string(), "c".into()]),
        ] {
            let b = t.to_npy_bytes().unwrap();
            assert_eq!((10 + u16::from_le_bytes([b[8], b[9]]) as usize) % 64, 0);
            assert_eq!(Tensor::from_npy_bytes(&b).unwrap(), t);
        }
    }

    #[test]
    fn npy_from_numpy() {
        // np.save(f, np.array([[1, 2]], dtype=np.int16)); f.getvalue()
        let mut h = "{'descr': '<i2', 'fortran_order': False, 'shape': (1, 2), }".to_string();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(h.len() as u16).to_le_bytes());
        b.extend_from_slice(h.as_bytes());
        b.extend_from_slice(&[1, 0, 2, 0]);
        let t = Tensor::from_npy_bytes(&b).unwrap();
        assert_eq!(t.shape(), &[1, 2]);
        assert_eq!(t.as_slice::<i16>().unwrap(), &[1, 2]);
        assert!(Tensor::from_npy_bytes(b"garbage").is_err());
    }

    #[test]
    fn bit_cast_reinterprets_bits() {
        let x = Tensor::from_vec(vec![1], vec![1.0f32]).unwrap();
        let y = x.bit_cast(DType::I32).unwrap();
        assert_eq!(y.as_slice::<i32>().unwrap(), &[0x3f80_0000]);
        assert!(x.bit_cast(DType::F16).is_err());
    }
}
