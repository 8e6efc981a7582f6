//! `linalg-vectorize` end to end: each program is compiled twice, by `convert-linalg-to-loops`
//! alone (scalar loops) and by `linalg-vectorize` first, translated by `nart-llvm` and run in
//! its JIT on the same inputs. The vectorized code computes each element with the same scalar
//! operations in the same order, so the outputs must agree bit for bit, for shapes that leave
//! partial vectors, partial row blocks and partial column blocks, and for several vector
//! widths and block shapes.

mod common;

use common::{desc, Desc};
use nart_ir::Context;

fn context() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_cf::register(&mut ctx);
    nart_dialect_arith::register(&mut ctx);
    nart_dialect_math::register(&mut ctx);
    nart_dialect_scf::register(&mut ctx);
    nart_dialect_memref::register(&mut ctx);
    nart_dialect_vector::register(&mut ctx);
    nart_dialect_linalg::register(&mut ctx);
    ctx
}

fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // Full mantissas, so that any change of order or fusion shows in the bits.
            (s >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0
        })
        .collect()
}

/// `text` compiled through `pipeline`; also returns the printed IR after the passes.
fn compile(text: &str, pipeline: &str) -> (nart_llvm::Jit, String) {
    let mut ctx = context();
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", text)
        .unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    nart_ir::verify::verify(&ctx, m).unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    let mut registry = nart_pass::PassRegistry::new();
    nart_linalg_lowering::register(&mut registry);
    let mut pm = nart_pass::PassManager::parse(pipeline, &registry).expect("pipeline parses");
    let mut out = Vec::new();
    pm.run(&mut ctx, m, &mut out)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)));
    let ir = nart_ir::printer::print_op(&ctx, m, &nart_ir::printer::PrintOptions::default());
    (
        nart_llvm::jit_module(&ctx, m).expect("the loops compile"),
        ir,
    )
}

fn addr(jit: &nart_llvm::Jit, name: &str) -> u64 {
    jit.lookup(&format!("{}{name}", nart_llvm::CIFACE_PREFIX))
        .expect("the C interface is there")
}

const SCALAR: &str = "builtin.module(func.func(convert-linalg-to-loops))";

fn vectorized(vw: i64, rows: i64, cols: i64) -> String {
    format!(
        "builtin.module(func.func(linalg-vectorize{{vector-width={vw} rows={rows} cols={cols}}},convert-linalg-to-loops))"
    )
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn matmul_micro_kernels_match_scalar_loops() {
    for &(m, k, n) in &[(1, 1, 1), (7, 5, 6), (4, 16, 32), (13, 9, 37), (6, 3, 17)] {
        let text = format!(
            r#"func.func @mm(%a: memref<{m}x{k}xf32>, %b: memref<{k}x{n}xf32>, %c: memref<{m}x{n}xf32>) {{
  linalg.matmul ins(%a, %b : memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) outs(%c : memref<{m}x{n}xf32>)
  return
}}"#
        );
        let a = data(m * k, 1);
        let b = data(k * n, 2);
        let c0 = data(m * n, 3);
        let run = |pipeline: &str| {
            let (jit, ir) = compile(&text, pipeline);
            // SAFETY: the C interface of @mm, three rank-2 descriptors.
            let f: extern "C" fn(*mut Desc<2>, *mut Desc<2>, *mut Desc<2>) =
                unsafe { std::mem::transmute(addr(&jit, "mm")) };
            let (mut a, mut b, mut c) = (a.clone(), b.clone(), c0.clone());
            f(
                &mut desc(&mut a, [m, k]),
                &mut desc(&mut b, [k, n]),
                &mut desc(&mut c, [m, n]),
            );
            (c, ir)
        };
        let (want, _) = run(SCALAR);
        for &(vw, rows, cols) in &[(8, 4, 2), (4, 3, 1), (16, 2, 2), (1, 1, 1)] {
            let (got, ir) = run(&vectorized(vw, rows, cols));
            assert!(
                ir.contains("vector.transfer_read"),
                "{m}x{k}x{n}: not vectorized:\n{ir}"
            );
            assert!(
                !ir.contains("linalg.matmul"),
                "{m}x{k}x{n}: matmul left:\n{ir}"
            );
            assert_eq!(
                bits(&got),
                bits(&want),
                "{m}x{k}x{n} with vector-width={vw} rows={rows} cols={cols}"
            );
        }
    }
}

#[test]
fn parallel_generics_match_scalar_loops() {
    // relu(x + bias[j]) * scale[i] on 3x19 (a partial vector at the end of each row), a fill,
    // and a copy from a transposed view-like map that is left to the scalar loops.
    let text = r#"func.func @ew(%x: memref<3x19xf32>, %bias: memref<19xf32>, %scale: memref<3xf32>, %y: memref<3x19xf32>, %t: memref<19x3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %bias, %scale : memref<3x19xf32>, memref<19xf32>, memref<3xf32>) outs(%y : memref<3x19xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32, %o: f32):
    %sum = arith.addf %a, %b : f32
    %r = arith.maximumf %sum, %zero : f32
    %p = arith.mulf %r, %s : f32
    linalg.yield %p : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<3x19xf32>) outs(%t : memref<19x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}"#;
    let x = data(57, 4);
    let bias = data(19, 5);
    let scale = data(3, 6);
    let run = |pipeline: &str| {
        let (jit, ir) = compile(text, pipeline);
        // SAFETY: the C interface of @ew: rank-2, rank-1, rank-1, rank-2 and rank-2 descriptors.
        let f: extern "C" fn(*mut Desc<2>, *mut Desc<1>, *mut Desc<1>, *mut Desc<2>, *mut Desc<2>) =
            unsafe { std::mem::transmute(addr(&jit, "ew")) };
        let (mut x, mut bias, mut scale) = (x.clone(), bias.clone(), scale.clone());
        let mut y = vec![f32::NAN; 57];
        let mut t = vec![f32::NAN; 57];
        f(
            &mut desc(&mut x, [3, 19]),
            &mut desc(&mut bias, [19]),
            &mut desc(&mut scale, [3]),
            &mut desc(&mut y, [3, 19]),
            &mut desc(&mut t, [19, 3]),
        );
        (y, t, ir)
    };
    let (want_y, want_t, _) = run(SCALAR);
    for vw in [4, 8, 16] {
        let (y, t, ir) = run(&vectorized(vw, 4, 2));
        assert!(
            ir.contains("vector.transfer_write"),
            "not vectorized:\n{ir}"
        );
        assert_eq!(
            bits(&y),
            bits(&want_y),
            "relu(x + bias) * scale, vector-width={vw}"
        );
        assert_eq!(
            bits(&t),
            bits(&want_t),
            "exp of the transpose, vector-width={vw}"
        );
    }
}

/// Runs `@f(%x, %w, %y)` through `pipeline`: `x` and `y` rank 4, `w` of rank `R`; returns `y`
/// (which starts as `inputs.2`) and the IR.
fn run_window<const R: usize>(
    text: &str,
    pipeline: &str,
    (sx, sw, sy): ([usize; 4], [usize; R], [usize; 4]),
    inputs: (&[f32], &[f32], &[f32]),
) -> (Vec<f32>, String) {
    let (jit, ir) = compile(text, pipeline);
    // SAFETY: the C interface of @f: rank-4, rank-R and rank-4 descriptors.
    let f: extern "C" fn(*mut Desc<4>, *mut Desc<R>, *mut Desc<4>) =
        unsafe { std::mem::transmute(addr(&jit, "f")) };
    let (mut x, mut w, mut y) = (inputs.0.to_vec(), inputs.1.to_vec(), inputs.2.to_vec());
    f(
        &mut desc(&mut x, sx),
        &mut desc(&mut w, sw),
        &mut desc(&mut y, sy),
    );
    (y, ir)
}

fn memref(s: &[usize]) -> String {
    let dims: Vec<String> = s.iter().map(|d| d.to_string()).collect();
    format!("memref<{}xf32>", dims.join("x"))
}

/// Compiles `linalg.NAME` on `x`, `w`, `y` of the given shapes with the scalar loops and with
/// `linalg-vectorize` at several widths and row blocks; the outputs must agree bit for bit.
fn check_window_op<const R: usize>(
    case: usize,
    name: &str,
    (stride, dilation): (usize, usize),
    shapes: ([usize; 4], [usize; R], [usize; 4]),
) {
    let (sx, sw, sy) = shapes;
    let attrs = format!(
        "{{dilations = dense<{dilation}> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}}"
    );
    let text = format!(
        "func.func @f(%x: {tx}, %w: {tw}, %y: {ty}) {{\n  linalg.{name} {attrs} ins(%x, %w : {tx}, {tw}) outs(%y : {ty})\n  return\n}}",
        tx = memref(&sx),
        tw = memref(&sw),
        ty = memref(&sy),
    );
    let x = data(sx.iter().product(), 10 * case as u64 + 1);
    let w = data(sw.iter().product(), 10 * case as u64 + 2);
    let y0 = data(sy.iter().product(), 10 * case as u64 + 3);
    let (want, _) = run_window(&text, SCALAR, shapes, (&x, &w, &y0));
    for &(vw, rows) in &[(8, 4), (4, 3), (16, 2), (1, 1)] {
        let (got, ir) = run_window(&text, &vectorized(vw, rows, 1), shapes, (&x, &w, &y0));
        assert!(
            !ir.contains(&format!("linalg.{name}")),
            "case {case} {name}: left unvectorized:\n{ir}"
        );
        assert_eq!(
            bits(&got),
            bits(&want),
            "case {case} {name} with vector-width={vw} rows={rows}"
        );
    }
}

#[test]
fn convolutions_and_poolings_match_scalar_loops() {
    // (batch, channels, filters, out h, out w, kernel h, kernel w, stride, dilation): output
    // widths that leave partial vectors, filter counts that leave partial row blocks, strides
    // (read through strided views).
    let cases = [
        (1, 3, 5, 4, 19, 3, 3, 1, 1),
        (2, 2, 8, 3, 16, 1, 1, 1, 1),
        (1, 4, 7, 2, 5, 3, 2, 1, 2),
        (1, 1, 1, 1, 1, 1, 1, 1, 1),
        (1, 5, 6, 3, 33, 2, 3, 1, 1),
        (1, 3, 6, 3, 17, 3, 3, 2, 1),
        (1, 2, 4, 2, 9, 7, 7, 2, 1),
        (1, 2, 5, 2, 6, 3, 3, 3, 2),
    ];
    for (case, &(n, c, f, oh, ow, kh, kw, s, d)) in cases.iter().enumerate() {
        let sx = [
            n,
            c,
            (oh - 1) * s + (kh - 1) * d + 1,
            (ow - 1) * s + (kw - 1) * d + 1,
        ];
        let (ty, sd) = ([n, f, oh, ow], (s, d));
        check_window_op(case, "conv_2d_nchw_fchw", sd, (sx, [f, c, kh, kw], ty));
        let ty = [n, c, oh, ow];
        check_window_op(
            case,
            "depthwise_conv_2d_nchw_chw",
            sd,
            (sx, [c, kh, kw], ty),
        );
        check_window_op(case, "pooling_nchw_max", sd, (sx, [kh, kw], ty));
        check_window_op(case, "pooling_nchw_sum", sd, (sx, [kh, kw], ty));
    }
}
