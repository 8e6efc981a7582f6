//! The toy NPU's program: what `compile` writes and the simulator loads. Value slots (each
//! with its quantization), constants, the input and output slots, and one instruction per
//! `toynpu` op. The byte form is `TNPU`, the format version (`u32`, little-endian), then the
//! program as JSON (framed and checked by `nart_target_rt::wire`).

use std::collections::BTreeMap;

use nart_target_rt::wire::{frame, unframe, IntTensorRecord, QuantRecord};
use nart_target_rt::RtError;
use serde::{Deserialize, Serialize};

/// The format name of the artifacts.
pub const FORMAT: &str = "toynpu-program";
/// The version of the byte format this crate writes and reads.
pub const VERSION: u32 = 1;

/// One instruction: a `toynpu` op, the slots of its operands (`args`) and result (`y`), its
/// integer attributes (`strides`, `pads`, `dilations`, `group`, `kernel_shape`), whether a relu
/// is fused, and how it rounds (`half_even`, `half_away`, `half_up`).
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Instr {
    pub op: String,
    pub args: Vec<usize>,
    pub y: usize,
    pub ints: BTreeMap<String, Vec<i64>>,
    pub relu: bool,
    pub round: String,
}

/// A compiled segment: the quantization of each slot, the constants (slot, stored integers),
/// the input and output slots, the instructions.
#[allow(missing_docs)]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub quant: Vec<QuantRecord>,
    pub consts: Vec<(usize, IntTensorRecord)>,
    pub inputs: Vec<usize>,
    pub outputs: Vec<usize>,
    pub instrs: Vec<Instr>,
}

impl Program {
    /// The byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let json = serde_json::to_vec(self).expect("invariant: a program serializes");
        frame(b"TNPU", VERSION, &json)
    }

    /// Reads the byte form, checking the magic and the version.
    pub fn from_bytes(bytes: &[u8]) -> Result<Program, RtError> {
        let json = unframe(crate::NAME, b"TNPU", VERSION, bytes)?;
        serde_json::from_slice(json).map_err(|e| RtError::corrupt(crate::NAME, e.to_string()))
    }
}
