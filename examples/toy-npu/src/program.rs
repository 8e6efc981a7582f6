//! The toy NPU's program: what `compile` writes and the simulator loads. Value slots (each
//! with its quantization), constants, the input and output slots, and one instruction per
//! `toynpu` op. The byte form is `TNPU`, the format version (`u32`, little-endian), then the
//! program as JSON.

use nart_target_rt::RtError;
use serde::{Deserialize, Serialize};

/// The format name of the artifacts.
pub const FORMAT: &str = "toynpu-program";
/// The version of the byte format this crate writes and reads.
pub const VERSION: u32 = 1;
const MAGIC: &[u8; 4] = b"TNPU";

/// How a slot's stored integers map to reals (`nart_tensor::qnn::QParams` as data).
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quant {
    pub dtype: String,
    pub min: i64,
    pub max: i64,
    pub bits: u32,
    pub scales: Vec<f64>,
    pub zero_points: Vec<i64>,
    pub axis: Option<usize>,
}

/// A constant: a slot and its stored integers.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Const {
    pub slot: usize,
    pub dtype: String,
    pub shape: Vec<usize>,
    pub values: Vec<i64>,
}

/// One instruction: the slots it reads and writes (`x`, `w`, `b`, `a`, `y`) and the attributes
/// of its `toynpu` op (`round` is `half_even`, `half_away` or `half_up`).
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Instr {
    Conv {
        x: usize,
        w: usize,
        b: Option<usize>,
        y: usize,
        strides: Vec<usize>,
        pads: Vec<usize>,
        dilations: Vec<usize>,
        group: usize,
        relu: bool,
        round: String,
    },
    Add {
        a: usize,
        b: usize,
        y: usize,
        relu: bool,
        round: String,
    },
    MaxPool {
        x: usize,
        y: usize,
        kernel: Vec<usize>,
        strides: Vec<usize>,
        pads: Vec<usize>,
        dilations: Vec<usize>,
    },
}

/// A compiled segment.
#[allow(missing_docs)]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub quant: Vec<Quant>,
    pub consts: Vec<Const>,
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
