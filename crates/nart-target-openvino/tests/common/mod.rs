//! Shared by the openvino target's tests: whether OpenVINO is here (a test skips without it,
//! unless `NART_REQUIRE_OPENVINO=1`), a seeded generator of tensors, and a check that runs a
//! function in the interpreter and, partitioned onto `openvino`, compiled, loaded and run
//! twice in OpenVINO (through `nart_target::harness`, which the onednn target's tests share).

#![allow(dead_code, unused_imports)]

pub use nart_target::harness::{constant, context, interpret, main_func, ty};
use nart_target_openvino::OpenvinoTarget;
use nart_tensor::Tensor;

/// Whether OpenVINO can be loaded; panics when it cannot and `NART_REQUIRE_OPENVINO=1`.
pub fn openvino_here(test: &str) -> bool {
    nart_target::harness::available(
        test,
        "NART_REQUIRE_OPENVINO",
        nart_openvino_rt::availability().map(|_| ()),
    )
}

/// A seeded generator (fastrand's wyrand).
pub struct Rng(fastrand::Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }
    /// A number in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        self.0.i64(lo..=hi)
    }
    /// A float in `[lo, hi)`.
    pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.0.f32()
    }
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.0.usize(..v.len())]
    }
    /// A tensor of `dims` with elements in `[lo, hi)`.
    pub fn tensor(&mut self, dims: &[i64], lo: f32, hi: f32) -> Tensor {
        let n: i64 = dims.iter().product();
        let v = (0..n).map(|_| self.float(lo, hi)).collect();
        Tensor::from_vec(dims.iter().map(|&d| d as usize).collect(), v).unwrap()
    }
    /// Dims of rank `lo..=hi`, each in `1..=6`.
    pub fn dims(&mut self, lo: i64, hi: i64) -> Vec<i64> {
        let r = self.int(lo, hi);
        (0..r).map(|_| self.int(1, 6)).collect()
    }
}

/// `array<i64: 1, 2>`.
pub fn arr(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("array<i64: {}>", items.join(", "))
}

/// A `graph.constant` `%name` holding the i64 vector `v`.
pub fn i64_constant(name: &str, v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    let t = format!("tensor<{}xi64>", v.len());
    format!(
        "  %{name} = \"graph.constant\"() <{{value = dense<[{}]> : {t}}}> : () -> {t}\n",
        items.join(", ")
    )
}

/// Partitions `text` onto `openvino` alone; every op must go there, as one segment reading
/// the function's arguments in order. Compiles it (twice: the bytes must agree), loads it and
/// runs it twice on `inputs` (the runs must agree); returns the results.
pub fn on_openvino(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let (out, artifact) = nart_target::harness::on_target(
        &OpenvinoTarget::new(),
        nart_target_openvino::register,
        text,
        inputs,
    )
    .unwrap_or_else(|e| panic!("not run on openvino: {e}\n{text}"));
    assert_eq!(artifact.format, "openvino-blob");
    assert!(
        artifact.sdk_version.starts_with("OpenVINO 20"),
        "{}",
        artifact.sdk_version
    );
    out
}

/// Runs `text` both ways and compares within `atol + rtol * |want|` per element.
pub fn check(case: &str, text: &str, inputs: &[Tensor], atol: f32, rtol: f32) {
    let want = interpret(text, inputs);
    let got = on_openvino(text, inputs);
    nart_target::harness::assert_close(
        &format!("{case}\n{text}"),
        "openvino",
        &got,
        &want,
        atol,
        rtol,
    );
}
