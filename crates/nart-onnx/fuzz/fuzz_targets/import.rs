//! Fuzz target for the ONNX importer: any bytes either import (and then export) or give
//! diagnostics; nothing panics.
//!
//! `cd crates/nart-onnx/fuzz && cargo +nightly fuzz run import ../tests/data`

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut ctx = nart_ir::Context::new();
    match nart_onnx::import_model(&mut ctx, data, None) {
        Ok(module) => {
            let _ = nart_onnx::export_model(&ctx, module);
        }
        Err(errors) => assert!(!errors.is_empty()),
    }
});
