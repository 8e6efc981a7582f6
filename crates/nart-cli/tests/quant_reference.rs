//! The interpreter's ONNX integer operators (QuantizeLinear, DequantizeLinear, QLinearConv,
//! QLinearMatMul, ConvInteger, MatMulInteger) are bit-exact with ONNX's reference evaluator:
//! `scripts/quant/check_reference.py` draws seeded random cases, runs them through `nart
//! run-tests` and `onnx.reference`, and compares every element.
//!
//! Needs Python 3 with the pinned `onnx` (scripts/requirements.txt). Without it the test skips
//! with a message, unless `NART_REQUIRE_PYTHON_ORACLES=1` (CI sets it), where it fails.

use std::path::Path;
use std::process::Command;

fn python_has_onnx() -> bool {
    Command::new("python3")
        .args(["-c", "import onnx, onnx.reference, numpy, ml_dtypes"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn integer_operators_match_onnx_reference_bit_for_bit() {
    if !python_has_onnx() {
        assert!(
            std::env::var_os("NART_REQUIRE_PYTHON_ORACLES").is_none_or(|v| v != "1"),
            "NART_REQUIRE_PYTHON_ORACLES=1 but python3 cannot import onnx (pip install -r \
             scripts/requirements.txt)"
        );
        println!("SKIP: python3 with onnx not found (pip install -r scripts/requirements.txt)");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .arg(root.join("scripts/quant/check_reference.py"))
        .args(["--nart", env!("CARGO_BIN_EXE_nart"), "--cases", "100"])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "nart differs from onnx.reference:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("600 cases"), "{stdout}");
}
