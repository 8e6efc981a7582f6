//! Compiles `onnx.proto` into Rust types at build time.
//!
//! The schema is parsed by `protox`, a protobuf compiler written in Rust, so
//! building this crate needs no system `protoc`.
//! `prost-build` then turns the resulting file descriptor set into Rust code
//! in `OUT_DIR/onnx.rs`.

use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=onnx.proto");
    let fds = protox::compile(["onnx.proto"], ["."])?;
    let mut config = prost_build::Config::new();
    // Generated code is deterministic in its field order; keep map fields
    // (there are none today) ordered for byte-identical re-encoding.
    config.btree_map(["."]);
    config.compile_fds(fds)?;
    Ok(())
}
