//! `nart compile --targets cpu` of tests/models/keyb_ops (scripts/models/make_keyb_ops.py):
//! GatherElements, Shape, ConstantOfShape, Range, Einsum and TopK all go to the cpu target,
//! and `nart run` of the package matches ONNX Runtime. Without a C compiler (to link the
//! code) the test skips, unless `NART_REQUIRE_CC=1`.

use std::process::Command;

mod common;

use common::{committed, max_diff, ort_outputs, read_pb, tmp};

#[test]
fn gather_elements_shape_constant_of_shape_range_einsum_and_top_k_all_run_on_cpu() {
    let name = "gather_elements_shape_constant_of_shape_range_einsum_and_top_k_all_run_on_cpu";
    let t = nart_target_cpu::CpuTarget::host();
    if !nart_target::harness::available(
        name,
        "NART_REQUIRE_CC",
        nart_target::Target::availability(&t),
    ) {
        return;
    }
    let dir = committed("keyb_ops");
    let pkg = tmp("cpu-tests", "keyb_ops-cpu.nartpkg");
    let nart = || Command::new(env!("CARGO_BIN_EXE_nart"));
    let out = nart()
        .arg("compile")
        .arg(dir.join("model.onnx"))
        .args(["--targets", "cpu", "-o"])
        .arg(&pkg)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (on_cpu, all) = common::placed_on(&report, "cpu");
    assert!(
        on_cpu == all && all > 0,
        "{on_cpu} of {all} ops on cpu\n{report}"
    );
    for op in [
        "GatherElements",
        "Shape",
        "ConstantOfShape",
        "Range",
        "Einsum",
        "TopK",
    ] {
        assert!(
            report.contains(op),
            "{op} is not in the placement\n{report}"
        );
    }
    let outputs = tmp("cpu-tests", "keyb_ops-cpu-out");
    let out = common::run_package(&pkg, &dir, &outputs, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = ort_outputs(&dir, 9);
    for (k, w) in want.iter().enumerate() {
        let got = read_pb(&outputs.join(format!("output_{k}.pb")));
        let (d, m) = max_diff(&[got], std::slice::from_ref(w));
        assert!(
            d <= 1e-5 * m.max(1.0),
            "output #{k} differs from ONNX Runtime by {d} (max |y| {m})"
        );
    }
}
