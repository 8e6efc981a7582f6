//! Pieces of an artifact's byte format that every chip would otherwise write again: a framed
//! payload (a 4-byte magic, a format version, the payload) checked on reading, quantization
//! parameters and integer tensors as plain serializable records, and the slot file a simple
//! runtime keeps its values in.
//!
//! ```
//! use nart_target_rt::wire::{frame, unframe};
//! let bytes = frame(b"CHIP", 2, b"{}");
//! assert_eq!(unframe("chip", b"CHIP", 2, &bytes).unwrap(), b"{}");
//! assert!(unframe("chip", b"CHIP", 3, &bytes).is_err()); // another version
//! assert!(unframe("chip", b"CHIP", 2, &bytes[..5]).is_err()); // truncated
//! ```

use nart_tensor::qnn::QParams;
use nart_tensor::{DType, Tensor};
use serde::{Deserialize, Serialize};

use crate::RtError;

/// [`RtError::Inputs`] unless `inputs` holds `want` tensors.
pub fn expect_inputs(want: usize, inputs: &[Tensor]) -> Result<(), RtError> {
    match inputs.len() {
        got if got == want => Ok(()),
        got => Err(RtError::inputs(format!(
            "expected {want} inputs, got {got}"
        ))),
    }
}

/// `magic`, `version` (`u32`, little-endian), then `payload`.
pub fn frame(magic: &[u8; 4], version: u32, payload: &[u8]) -> Vec<u8> {
    let mut b = magic.to_vec();
    b.extend_from_slice(&version.to_le_bytes());
    b.extend_from_slice(payload);
    b
}

/// The payload of what [`frame`] wrote, for `target`: [`RtError::Corrupt`] without the magic or
/// the version, [`RtError::Version`] for another version.
pub fn unframe<'a>(
    target: &str,
    magic: &[u8; 4],
    version: u32,
    bytes: &'a [u8],
) -> Result<&'a [u8], RtError> {
    let magic_text = String::from_utf8_lossy(magic);
    let rest = bytes
        .strip_prefix(magic)
        .ok_or_else(|| RtError::corrupt(target, format!("no {magic_text} magic")))?;
    let (v, payload) = rest
        .split_at_checked(4)
        .ok_or_else(|| RtError::corrupt(target, "truncated"))?;
    let v = u32::from_le_bytes(v.try_into().expect("invariant: 4 bytes"));
    if v != version {
        return Err(RtError::Version {
            target: target.into(),
            got: format!("{magic_text} v{v}"),
            supported: format!("{magic_text} v{version}"),
        });
    }
    Ok(payload)
}

/// [`QParams`] as data (per tensor or per axis; per-block parameters are not recorded).
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuantRecord {
    pub dtype: String,
    pub min: i64,
    pub max: i64,
    pub bits: u32,
    pub scales: Vec<f64>,
    pub zero_points: Vec<i64>,
    pub axis: Option<usize>,
}

impl QuantRecord {
    /// The record of `q`.
    pub fn of(q: &QParams) -> QuantRecord {
        QuantRecord {
            dtype: q.dtype.name().to_string(),
            min: q.min,
            max: q.max,
            bits: q.bits,
            scales: q.scales.clone(),
            zero_points: q.zero_points.clone(),
            axis: q.axis,
        }
    }

    /// The parameters again; an unknown dtype is [`RtError::Corrupt`] for `target`.
    pub fn params(&self, target: &str) -> Result<QParams, RtError> {
        let mut q =
            QParams::per_tensor(dtype(target, &self.dtype)?, 1.0, 0).with_range(self.min, self.max);
        (q.bits, q.scales, q.zero_points, q.axis) = (
            self.bits,
            self.scales.clone(),
            self.zero_points.clone(),
            self.axis,
        );
        Ok(q)
    }
}

fn dtype(target: &str, name: &str) -> Result<DType, RtError> {
    DType::from_name(name)
        .ok_or_else(|| RtError::corrupt(target, format!("unknown dtype '{name}'")))
}

/// An integer tensor as data: its dtype, shape and values.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntTensorRecord {
    pub dtype: String,
    pub shape: Vec<usize>,
    pub values: Vec<i64>,
}

impl IntTensorRecord {
    /// The record of `t`, an integer tensor whose values fit in `i64`.
    pub fn of(t: &Tensor) -> Result<IntTensorRecord, String> {
        let values = t.to_i128_vec().map_err(|e| e.to_string())?;
        let values = values
            .into_iter()
            .map(|x| i64::try_from(x).map_err(|_| format!("{x} does not fit in i64")))
            .collect::<Result<_, _>>()?;
        Ok(IntTensorRecord {
            dtype: t.dtype().name().to_string(),
            shape: t.shape().to_vec(),
            values,
        })
    }

    /// The tensor again; a bad dtype or shape is [`RtError::Corrupt`] for `target`.
    pub fn tensor(&self, target: &str) -> Result<Tensor, RtError> {
        let v = self.values.iter().map(|&x| x.into()).collect();
        Tensor::from_i128(dtype(target, &self.dtype)?, self.shape.clone(), v)
            .map_err(|e| RtError::corrupt(target, e.to_string()))
    }
}

/// Numbered value slots for a runtime that runs a list of instructions: reading a slot out of
/// range or not yet written is an error naming it, never a panic.
#[derive(Clone, Debug)]
pub struct Slots {
    target: String,
    values: Vec<Option<Tensor>>,
}

impl Slots {
    /// `n` empty slots of `target`'s program.
    pub fn new(target: &str, n: usize) -> Slots {
        Slots {
            target: target.to_string(),
            values: vec![None; n],
        }
    }

    fn oob(&self, s: usize) -> RtError {
        let n = self.values.len();
        RtError::corrupt(&self.target, format!("slot {s} out of range ({n} slots)"))
    }

    /// Writes each (slot, value) of `values`.
    pub fn set_all(
        &mut self,
        values: impl IntoIterator<Item = (usize, Tensor)>,
    ) -> Result<(), RtError> {
        values.into_iter().try_for_each(|(s, t)| self.set(s, t))
    }

    /// Writes slot `s`.
    pub fn set(&mut self, s: usize, t: Tensor) -> Result<(), RtError> {
        let e = self.oob(s);
        *self.values.get_mut(s).ok_or(e)? = Some(t);
        Ok(())
    }

    /// The value of slot `s`.
    pub fn get(&self, s: usize) -> Result<&Tensor, RtError> {
        let t = self.values.get(s).ok_or_else(|| self.oob(s))?;
        t.as_ref()
            .ok_or_else(|| RtError::run(format!("slot {s} read before it is written")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let q = QParams::per_axis(DType::I8, 0, vec![0.5, 0.25], vec![0, 1]);
        assert_eq!(QuantRecord::of(&q).params("t").unwrap(), q);
        let mut bad = QuantRecord::of(&q);
        bad.dtype = "i99".into();
        assert_eq!(
            bad.params("t").unwrap_err().to_string(),
            "corrupt artifact for target 't': unknown dtype 'i99'"
        );
        let t = Tensor::from_i128(DType::I8, vec![2, 2], vec![1, -2, 3, -128]).unwrap();
        let r = IntTensorRecord::of(&t).unwrap();
        assert_eq!(r.tensor("t").unwrap(), t);
        let short = IntTensorRecord {
            values: vec![1],
            ..r
        };
        assert!(matches!(short.tensor("t"), Err(RtError::Corrupt { .. })));
    }

    #[test]
    fn input_counts_are_checked() {
        let x = [Tensor::vector(vec![1.0f32])];
        assert!(expect_inputs(1, &x).is_ok());
        assert_eq!(
            expect_inputs(2, &x).unwrap_err().to_string(),
            "bad inputs: expected 2 inputs, got 1"
        );
    }

    #[test]
    fn frames_are_checked() {
        let b = frame(b"ABCD", 1, b"x");
        assert_eq!(unframe("t", b"ABCD", 1, &b).unwrap(), b"x");
        let e = unframe("t", b"ABCD", 2, &b).unwrap_err();
        assert_eq!(
            e.to_string(),
            "target 't' cannot load an artifact of SDK version 'ABCD v1' (it loads ABCD v2)"
        );
        assert!(matches!(
            unframe("t", b"WXYZ", 1, &b),
            Err(RtError::Corrupt { .. })
        ));
        assert!(matches!(
            unframe("t", b"ABCD", 1, &b[..6]),
            Err(RtError::Corrupt { .. })
        ));
    }

    #[test]
    fn slots_name_what_is_wrong() {
        let mut s = Slots::new("t", 2);
        s.set_all([(1, Tensor::vector(vec![1.0f32]))]).unwrap();
        assert_eq!(s.get(1).unwrap(), &Tensor::vector(vec![1.0f32]));
        assert_eq!(
            s.get(0).unwrap_err().to_string(),
            "run failed: slot 0 read before it is written"
        );
        assert_eq!(
            s.set(2, Tensor::vector(vec![1.0f32]))
                .unwrap_err()
                .to_string(),
            "corrupt artifact for target 't': slot 2 out of range (2 slots)"
        );
    }
}
