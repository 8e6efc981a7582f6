//! The toy NPU's program: what `compile` writes and the simulator loads. Value slots (each
//! with its quantization), constants, the input and output slots, and one instruction per
//! `toynpu` op. The byte form is `TNPU`, the format version (`u32`, little-endian), then the
//! program as JSON.

use std::collections::BTreeMap;

use nart_target_rt::RtError;
use serde::{Deserialize, Serialize};

/// The format name of the artifacts.
pub const FORMAT: &str = "toynpu-program";
/// The version of the byte format this crate writes and reads.
pub const VERSION: u32 = 1;
const MAGIC: &[u8; 4] = b"TNPU";

/// One instruction: a `toynpu` op, the slots of its operands (`args`) and result (`y`), its
/// integer attributes (`strides`, `pads`, `dilations`, `group`, `kernel_shape`), whether a relu
/// is fused, and how it rounds (`half_even`, `half_away`, `half_up`).
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Instr {
    pub op: String,
    pub args: Vec<usize>,
    pub y: usize,
    pub ints: BTreeMap<String, Vec<usize>>,
    pub relu: bool,
    pub round: String,
}

/// A slot's quantization (`nart_tensor::qnn::QParams` as data): dtype, min, max, bits,
/// scales, zero points, axis.
pub type Quant = (String, i64, i64, u32, Vec<f64>, Vec<i64>, Option<usize>);

/// A compiled segment: the quantization of each slot, the constants (slot, dtype, shape,
/// stored integers), the input and output slots, the instructions.
#[allow(missing_docs)]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub quant: Vec<Quant>,
    pub consts: Vec<(usize, String, Vec<usize>, Vec<i64>)>,
    pub inputs: Vec<usize>,
    pub outputs: Vec<usize>,
    pub instrs: Vec<Instr>,
}

impl Program {
    /// The byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend(serde_json::to_vec(self).expect("invariant: a program serializes"));
        b
    }

    /// Reads the byte form, checking the magic and the version.
    pub fn from_bytes(bytes: &[u8]) -> Result<Program, RtError> {
        let bad = |m: String| RtError::corrupt(crate::NAME, m);
        let rest = bytes
            .strip_prefix(MAGIC)
            .ok_or_else(|| bad("no TNPU magic".into()))?;
        let (v, json) = rest
            .split_at_checked(4)
            .ok_or_else(|| bad("truncated".into()))?;
        let v = u32::from_le_bytes(v.try_into().expect("invariant: 4 bytes"));
        if v != VERSION {
            return Err(RtError::Version {
                target: crate::NAME.into(),
                got: format!("program v{v}"),
                supported: format!("program v{VERSION}"),
            });
        }
        serde_json::from_slice(json).map_err(|e| bad(e.to_string()))
    }
}
