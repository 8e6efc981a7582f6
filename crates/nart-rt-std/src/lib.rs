//! The target runtimes that ship with nart, for [`nart_rt`].
//!
//! `nart-rt` holds no compiler and no target; a deployment registers the runtimes of the
//! targets its packages use. This crate registers the ones nart ships: `interp`, whose
//! artifacts are MLIR text that it parses and plans with the reference interpreter (so this
//! crate links nart's IR, dialects and interpreter, which `nart-rt` itself does not), and
//! `onednn` (`nart-onednn-rt`, which loads the system's oneDNN when an artifact needs it) and
//! `openvino` (`nart-openvino-rt`, which loads OpenVINO's C API likewise) and `cpu` (`nart-cpu-rt`, which opens the shared object nart generated). A deployment that runs only compiled targets links
//! `nart-rt` and those targets' runtimes, without this crate.

#![deny(missing_docs)]

use nart_rt::RuntimeRegistry;
use nart_target::interp::InterpRuntime;

/// The runtimes of the targets nart ships: `interp` (with the `qnn` dialect, so that
/// integer segments load too), `onednn` and `openvino`.
pub fn runtimes() -> RuntimeRegistry {
    let mut r = RuntimeRegistry::new();
    r.register(Box::new(
        InterpRuntime::new().with_registration(nart_dialect_qnn::register),
    ));
    r.register(Box::new(nart_onednn_rt::OnednnRuntime));
    r.register(Box::new(nart_openvino_rt::OpenvinoRuntime));
    r.register(Box::new(nart_cpu_rt::CpuRuntime::new()));
    r
}

/// The runtimes of [`runtimes`] plus those of the test targets (`test-int8`, `test-f32`) of
/// `nart_target::testing`, for tests and test tools.
pub fn runtimes_with_test_targets() -> RuntimeRegistry {
    let mut r = nart_target::testing::registry_with_test_targets().runtimes();
    r.register(Box::new(
        InterpRuntime::new().with_registration(nart_dialect_qnn::register),
    ));
    r.register(Box::new(nart_onednn_rt::OnednnRuntime));
    r.register(Box::new(nart_openvino_rt::OpenvinoRuntime));
    r.register(Box::new(nart_cpu_rt::CpuRuntime::new()));
    r
}

#[cfg(test)]
mod tests {
    #[test]
    fn ships_interp() {
        assert_eq!(
            super::runtimes().targets(),
            ["interp", "onednn", "openvino", "cpu"]
        );
        assert_eq!(
            super::runtimes_with_test_targets().targets(),
            [
                "test-int8",
                "test-f32",
                "interp",
                "onednn",
                "openvino",
                "cpu"
            ]
        );
    }
}
