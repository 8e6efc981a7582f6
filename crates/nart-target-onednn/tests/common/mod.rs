//! Shared by the onednn target's tests: whether oneDNN is here (a test skips without it,
//! unless `NART_REQUIRE_ONEDNN=1`), a seeded generator, and a one-function check that runs a
//! function in the interpreter and, partitioned onto `onednn`, in oneDNN (through
//! `nart_target::harness`, which the openvino target's tests share).

#![allow(dead_code, unused_imports)]

pub mod int8;

pub use nart_target::harness::{constant, context, interpret, ty};
use nart_target_onednn::OnednnTarget;
use nart_tensor::Tensor;

/// Whether oneDNN can be loaded; panics when it cannot and `NART_REQUIRE_ONEDNN=1`.
pub fn onednn_here(test: &str) -> bool {
    nart_target::harness::available(
        test,
        "NART_REQUIRE_ONEDNN",
        nart_onednn_rt::availability().map(|_| ()),
    )
}

/// A small seeded generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    /// A float in `[lo, hi)`.
    pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.int(0, v.len() as i64 - 1) as usize]
    }
    pub fn tensor(&mut self, dims: &[i64], lo: f32, hi: f32) -> Tensor {
        let n: i64 = dims.iter().product();
        let v = (0..n).map(|_| self.float(lo, hi)).collect();
        Tensor::from_vec(dims.iter().map(|&d| d as usize).collect(), v).unwrap()
    }
}

/// What partitioning `text` (one op on its arguments and constants) onto `onednn` gives:
/// `Ok(results)` when every op went to onednn and ran there, `Err(the placement reasons)`
/// otherwise.
pub fn on_onednn(text: &str, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
    on_onednn_with_program(text, inputs).map(|(out, _)| out)
}

/// [`on_onednn`], with the op list the segment compiled into.
pub fn on_onednn_with_program(
    text: &str,
    inputs: &[Tensor],
) -> Result<(Vec<Tensor>, nart_onednn_rt::program::Program), String> {
    let (out, artifact) = nart_target::harness::on_target(
        &OnednnTarget::new(),
        nart_target_onednn::register,
        text,
        inputs,
    )?;
    let program = nart_onednn_rt::program::Program::decode(&artifact.bytes).unwrap();
    Ok((out, program))
}

/// Asserts `got` equals `want` within `atol + rtol * |want|` per element.
pub fn assert_close(case: &str, got: &[Tensor], want: &[Tensor], atol: f32, rtol: f32) {
    nart_target::harness::assert_close(case, "onednn", got, want, atol, rtol);
}
