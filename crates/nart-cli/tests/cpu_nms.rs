//! NonMaxSuppression on the code-level `cpu` target end to end: the committed model
//! `tests/models/nms` (two NonMaxSuppression nodes, corner and center boxes, one IoU threshold
//! a graph input; written by `scripts/models/make_nms.py` with ONNX Runtime's outputs) compiled
//! with `--targets cpu` by the `nart` binary, every op on cpu, run with `nart run --package`,
//! and its selected indices (fewer rows than the compiled bound) equal to ONNX Runtime's.
//! Without a C compiler the test skips, unless `NART_REQUIRE_CC=1`.

use std::process::Command;

mod common;

use common::{committed, ort_outputs, read_pb, tmp};

#[test]
fn nms_runs_in_generated_code_and_selects_what_onnx_runtime_selects() {
    let t = nart_target_cpu::CpuTarget::host();
    if !nart_target::harness::available(
        "nms_runs_in_generated_code_and_selects_what_onnx_runtime_selects",
        "NART_REQUIRE_CC",
        nart_target::Target::availability(&t),
    ) {
        return;
    }
    let nart = || Command::new(env!("CARGO_BIN_EXE_nart"));
    let ok = |out: &std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let dir = committed("nms");
    let pkg = tmp("cpu-nms-tests", "nms.nartpkg");
    let report = ok(&nart()
        .arg("compile")
        .arg(dir.join("model.onnx"))
        .args(["--targets", "cpu", "-o"])
        .arg(&pkg)
        .output()
        .unwrap());
    let (on, all) = common::placed_on(&report, "cpu");
    assert!(on == all && all == 2, "{on} of {all} ops on cpu\n{report}");
    let outputs = tmp("cpu-nms-tests", "nms-out");
    let _ = std::fs::remove_dir_all(&outputs);
    ok(&common::run_package(&pkg, &dir, &outputs, &[]));
    let want = ort_outputs(&dir, 2);
    for (k, w) in want.iter().enumerate() {
        let got = read_pb(&outputs.join(format!("output_{k}.pb")));
        assert_eq!(got.shape(), w.shape(), "output {k}");
        // Fewer rows than the bound, 2 batches * 3 classes * 7 boxes: the runtime truncated.
        assert!(
            w.shape()[0] < 42,
            "output {k}: the model no longer tests truncation"
        );
        assert_eq!(got.as_i64().unwrap(), w.as_i64().unwrap(), "output {k}");
    }
}
