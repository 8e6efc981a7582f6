//! `nart compile --targets cpu` of tests/models/keya_ops (ConvTranspose, linear and nearest
//! Resize, Pad in reflect/edge/wrap modes, LogSoftmax, float and integer Mod; built by the
//! generator script next to it) places every op on cpu, and the package's outputs match ONNX
//! Runtime's. Skips without a C compiler unless `NART_REQUIRE_CC=1`.

mod common;

use common::{committed, max_diff, ort_outputs, tmp};

#[test]
fn the_key_ops_of_keya_all_run_on_cpu_and_match_onnx_runtime() {
    use nart_cli::package::{compile, load_package, read_package_inputs, CompileRequest};
    let t = nart_target_cpu::CpuTarget::host();
    if !nart_target::harness::available(
        "the_key_ops_of_keya_all_run_on_cpu_and_match_onnx_runtime",
        "NART_REQUIRE_CC",
        nart_target::Target::availability(&t),
    ) {
        return;
    }
    let dir = committed("keya_ops");
    let pkg = tmp("cpu-tests", "keya_ops-cpu.nartpkg");
    let req = CompileRequest {
        model: dir.join("model.onnx"),
        targets: vec!["cpu".into()],
        output: pkg.clone(),
        ..CompileRequest::default()
    };
    let mut report = Vec::new();
    compile(&req, &nart_cli::partition::registry(), &mut report)
        .unwrap_or_else(|e| panic!("keya_ops: {e:#}"));
    let report = String::from_utf8(report).unwrap();
    let (on, all) = common::placed_on(&report, "cpu");
    assert!(on == all && all >= 9, "{on} of {all} ops on cpu\n{report}");
    for op in ["ConvTranspose", "Resize", "Pad", "LogSoftmax", "Mod"] {
        assert!(
            report.contains(op),
            "{op} is not in the placement\n{report}"
        );
    }
    let s = load_package(&pkg, &nart_rt_std::runtimes()).unwrap();
    let xs = read_package_inputs(&s, &dir.join("test_data_set_0")).unwrap();
    let got = s.run(xs).unwrap();
    let want = ort_outputs(&dir, 3);
    assert_eq!(got.len(), 3);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let (d, m) = max_diff(std::slice::from_ref(g), std::slice::from_ref(w));
        eprintln!("keya_ops: output #{k}: max |cpu - onnxruntime| = {d:e} (max |y| {m:e})");
        // The integer Mod (output 2) is exact.
        let tol = if k == 2 { 0.0 } else { 1e-4 * m.max(1.0) };
        assert!(d <= tol, "output #{k} differs from ONNX Runtime by {d}");
    }
}
