//! Helpers shared by the integration tests.

#![allow(dead_code)]

use nart_ir::{Context, Op};

/// A context with the dialects nart-llvm translates.
pub fn context() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_cf::register(&mut ctx);
    nart_dialect_arith::register(&mut ctx);
    nart_dialect_scf::register(&mut ctx);
    nart_dialect_memref::register(&mut ctx);
    nart_dialect_math::register(&mut ctx);
    nart_dialect_vector::register(&mut ctx);
    ctx
}

/// Parses and verifies a test module (a test's own text: failing is a bug in the test).
pub fn parse(ctx: &mut Context, text: &str) -> Op {
    let m = nart_ir::parser::parse_source(ctx, "test", text).unwrap_or_else(|d| {
        panic!(
            "test module does not parse: {:?}\n{text}",
            d.iter().map(|d| &d.message).collect::<Vec<_>>()
        )
    });
    nart_ir::verify::verify(ctx, m).unwrap_or_else(|d| {
        panic!(
            "test module does not verify: {:?}",
            d.iter().map(|d| &d.message).collect::<Vec<_>>()
        )
    });
    m
}

/// Whether `tool` runs (is on PATH).
pub fn have_tool(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok()
}

/// Whether the aarch64 tools are there; without them, skips with a message, or fails under
/// `NART_REQUIRE_AARCH64=1`.
pub fn require_aarch64(tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !have_tool(t)).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var_os("NART_REQUIRE_AARCH64").is_none(),
        "NART_REQUIRE_AARCH64 is set but {missing:?} cannot be run"
    );
    eprintln!("skipped: {missing:?} not found (install qemu-user and gcc-aarch64-linux-gnu)");
    false
}
