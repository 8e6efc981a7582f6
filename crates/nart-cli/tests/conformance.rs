//! The ONNX backend node tests through `nart run-tests`, as a ratchet: fails if a test that
//! passes in the committed `tests/conformance/results.tsv` fails now, or if a node test of an
//! operator issue #4 lists fails without being listed in `tests/conformance/key_op_gaps.tsv`.
//!
//! Needs Python 3 with the pinned `onnx` (scripts/conformance/requirements.txt); the tests are
//! generated once into `~/.cache/nart/node-tests-<onnx version>` (about 10 s) and the run takes
//! about 10 s with a debug build.

use std::path::Path;
use std::process::Command;

#[test]
fn onnx_backend_node_tests_do_not_regress() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = root.join("scripts/conformance/run_suite.py");
    let out = Command::new("python3")
        .arg(&script)
        .args([
            "--nart",
            env!("CARGO_BIN_EXE_nart"),
            "--check",
            "--no-write",
        ])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}");
    assert!(
        out.status.success(),
        "conformance ratchet failed:\n{stdout}\n{stderr}"
    );
}
