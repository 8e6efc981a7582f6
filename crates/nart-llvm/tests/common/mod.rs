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

/// A memref descriptor as the C interface passes it (pointer to this struct).
#[repr(C)]
pub struct Desc<T, const R: usize> {
    pub allocated: *mut T,
    pub aligned: *mut T,
    pub offset: i64,
    pub sizes: [i64; R],
    pub strides: [i64; R],
}

/// A row-major descriptor of `buf` with `sizes`.
pub fn desc<T, const R: usize>(buf: &mut [T], sizes: [i64; R]) -> Desc<T, R> {
    assert_eq!(sizes.iter().product::<i64>() as usize, buf.len());
    let mut strides = [1i64; R];
    for i in (0..R.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * sizes[i + 1];
    }
    Desc {
        allocated: buf.as_mut_ptr(),
        aligned: buf.as_mut_ptr(),
        offset: 0,
        sizes,
        strides,
    }
}

/// Deterministic pseudo-random floats in [-1, 1) with few mantissa bits, so that products
/// are exact and sums depend on order only through rounding.
pub fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) % 2048) as f32 / 1024.0 - 1.0
        })
        .collect()
}
