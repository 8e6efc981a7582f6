//! Loop-level programs (scf, memref, math) compiled by LLVM and run in the JIT against Rust
//! references: a matmul, a 2-D convolution with stride and padding, subviews, allocation and
//! copies, globals, `scf.while`, `scf.if` and `scf.parallel` reductions, and math functions.
//!
//! The references compute in the same order as the IR, without fast-math, so results are
//! compared bit for bit (math functions, which come from libm or LLVM's expansions, within a
//! few ulps).

mod common;

use common::{context, data, desc, parse, Desc};

const PROGRAM: &str = r#"
func.func @matmul(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf32>
  %N = memref.dim %B, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %M step %c1 {
    scf.for %j = %c0 to %N step %c1 {
      %acc = scf.for %k = %c0 to %K step %c1 iter_args(%s = %zero) -> (f32) {
        %a = memref.load %A[%i, %k] : memref<?x?xf32>
        %b = memref.load %B[%k, %j] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %t = arith.addf %s, %p : f32
        scf.yield %t : f32
      }
      memref.store %acc, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// out[co, oy, ox] = bias[co] + sum over ci, ky, kx of in[ci, oy*s+ky-p, ox*s+kx-p] * w[co, ci, ky, kx],
// reading zero outside the input.
func.func @conv2d(%in: memref<?x?x?xf32>, %w: memref<?x?x?x?xf32>, %bias: memref<?xf32>,
                  %out: memref<?x?x?xf32>, %stride: index, %pad: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %CI = memref.dim %in, %c0 : memref<?x?x?xf32>
  %H = memref.dim %in, %c1 : memref<?x?x?xf32>
  %W = memref.dim %in, %c2 : memref<?x?x?xf32>
  %CO = memref.dim %w, %c0 : memref<?x?x?x?xf32>
  %KH = memref.dim %w, %c2 : memref<?x?x?x?xf32>
  %KW = memref.dim %w, %c3 : memref<?x?x?x?xf32>
  %OH = memref.dim %out, %c1 : memref<?x?x?xf32>
  %OW = memref.dim %out, %c2 : memref<?x?x?xf32>
  scf.for %co = %c0 to %CO step %c1 {
    %b = memref.load %bias[%co] : memref<?xf32>
    scf.for %oy = %c0 to %OH step %c1 {
      scf.for %ox = %c0 to %OW step %c1 {
        %r0 = scf.for %ci = %c0 to %CI step %c1 iter_args(%s0 = %b) -> (f32) {
          %r1 = scf.for %ky = %c0 to %KH step %c1 iter_args(%s1 = %s0) -> (f32) {
            %r2 = scf.for %kx = %c0 to %KW step %c1 iter_args(%s2 = %s1) -> (f32) {
              %ys = arith.muli %oy, %stride : index
              %yk = arith.addi %ys, %ky : index
              %y = arith.subi %yk, %pad : index
              %xs = arith.muli %ox, %stride : index
              %xk = arith.addi %xs, %kx : index
              %x = arith.subi %xk, %pad : index
              %y0 = arith.cmpi sge, %y, %c0 : index
              %y1 = arith.cmpi slt, %y, %H : index
              %x0 = arith.cmpi sge, %x, %c0 : index
              %x1 = arith.cmpi slt, %x, %W : index
              %iny = arith.andi %y0, %y1 : i1
              %inx = arith.andi %x0, %x1 : i1
              %inside = arith.andi %iny, %inx : i1
              %v = scf.if %inside -> (f32) {
                %l = memref.load %in[%ci, %y, %x] : memref<?x?x?xf32>
                scf.yield %l : f32
              } else {
                scf.yield %zero : f32
              }
              %wv = memref.load %w[%co, %ci, %ky, %kx] : memref<?x?x?x?xf32>
              %p = arith.mulf %v, %wv : f32
              %t = arith.addf %s2, %p : f32
              scf.yield %t : f32
            }
            scf.yield %r2 : f32
          }
          scf.yield %r1 : f32
        }
        memref.store %r0, %out[%co, %oy, %ox] : memref<?x?x?xf32>
      }
    }
  }
  return
}

// Writes %v into the 2x3 window at [1, 1] of %m with column stride 2.
func.func @fill_view(%m: memref<?x?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sub = memref.subview %m[1, 1] [2, 3] [1, 2] : memref<?x?xf32> to memref<2x3xf32, strided<[?, 2], offset: ?>>
  // Forget what the type knows, so that every size and stride comes from the descriptor.
  %view = memref.cast %sub : memref<2x3xf32, strided<[?, 2], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %r = memref.dim %view, %c0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %c = memref.dim %view, %c1 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  scf.for %i = %c0 to %r step %c1 {
    scf.for %j = %c0 to %c step %c1 {
      memref.store %v, %view[%i, %j] : memref<?x?xf32, strided<[?, ?], offset: ?>>
    }
  }
  return
}

// dst = 2 * src through an aligned heap buffer and a copy.
func.func @double_via_copy(%src: memref<?xf32>, %dst: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %src, %c0 : memref<?xf32>
  %tmp = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  memref.copy %src, %tmp : memref<?xf32> to memref<?xf32>
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %tmp[%i] : memref<?xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %dst[%i] : memref<?xf32>
  }
  memref.dealloc %tmp : memref<?xf32>
  return
}

// dst[i] = m[i, 2]: a column as a rank-reducing strided subview, copied element by element.
func.func @column(%m: memref<?x?xf32>, %dst: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %m, %c0 : memref<?x?xf32>
  %col = memref.subview %m[0, 2] [%n, 1] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[?], offset: ?>>
  memref.copy %col, %dst : memref<?xf32, strided<[?], offset: ?>> to memref<?xf32>
  return
}

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 4.0, 8.0]>

// sum_i table[i] * x, with the table on the stack after a copy.
func.func @dot_table(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %g = memref.get_global @table : memref<4xf32>
  %s = memref.alloca() {alignment = 16 : i64} : memref<4xf32>
  memref.copy %g, %s : memref<4xf32> to memref<4xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
    %t = memref.load %s[%i] : memref<4xf32>
    %p = arith.mulf %t, %x : f32
    %a = arith.addf %acc, %p : f32
    scf.yield %a : f32
  }
  return %r : f32
}

// The number of Collatz steps from %n to 1.
func.func @collatz(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %r:2 = scf.while (%x = %n, %k = %c0) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi ne, %x, %c1 : i64
    scf.condition(%more) %x, %k : i64, i64
  } do {
  ^bb0(%y: i64, %j: i64):
    %odd = arith.andi %y, %c1 : i64
    %isodd = arith.cmpi eq, %odd, %c1 : i64
    %next = scf.if %isodd -> (i64) {
      %t = arith.muli %y, %c3 : i64
      %u = arith.addi %t, %c1 : i64
      scf.yield %u : i64
    } else {
      %h = arith.divui %y, %c2 : i64
      scf.yield %h : i64
    }
    %j1 = arith.addi %j, %c1 : i64
    scf.yield %next, %j1 : i64, i64
  }
  return %r#1 : i64
}

// The sum and the maximum of a matrix, as scf.parallel reductions.
func.func @sum_max(%A: memref<?x?xf32>) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %N = memref.dim %A, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %r:2 = scf.parallel (%i, %j) = (%c0, %c0) to (%M, %N) step (%c1, %c1) init (%zero, %ninf) -> (f32, f32) {
    %v = memref.load %A[%i, %j] : memref<?x?xf32>
    scf.reduce(%v, %v : f32, f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }, {
    ^bb0(%l: f32, %r: f32):
      %m = arith.maximumf %l, %r : f32
      scf.reduce.return %m : f32
    }
  }
  return %r#0, %r#1 : f32, f32
}

// Math functions on a vector.
func.func @math4(%x: vector<4xf32>) -> vector<4xf32> {
  %a = math.absf %x : vector<4xf32>
  %s = math.sqrt %a : vector<4xf32>
  %e = math.exp %x : vector<4xf32>
  %l = math.log1p %a : vector<4xf32>
  %t = math.tanh %x : vector<4xf32>
  %f = math.fma %s, %e, %l : vector<4xf32>
  %r = arith.addf %f, %t : vector<4xf32>
  return %r : vector<4xf32>
}
"#;

struct Compiled {
    jit: nart_llvm::Jit,
}

impl Compiled {
    fn new() -> Compiled {
        let mut ctx = context();
        let m = parse(&mut ctx, PROGRAM);
        Compiled {
            jit: nart_llvm::jit_module(&ctx, m).expect("the program compiles"),
        }
    }
    fn addr(&self, name: &str) -> u64 {
        self.jit
            .lookup(&format!("{}{name}", nart_llvm::CIFACE_PREFIX))
            .expect("the C interface is there")
    }
}

type D2 = Desc<f32, 2>;
type D3 = Desc<f32, 3>;
type D4 = Desc<f32, 4>;
type D1 = Desc<f32, 1>;

#[test]
fn matmul_matches_rust() {
    let c = Compiled::new();
    // SAFETY: the C interface of @matmul.
    let f: extern "C" fn(*mut D2, *mut D2, *mut D2) =
        unsafe { std::mem::transmute(c.addr("matmul")) };
    for &(m, k, n) in &[(1, 1, 1), (3, 5, 7), (16, 33, 9), (64, 64, 64)] {
        let mut a = data(m * k, 1);
        let mut b = data(k * n, 2);
        let mut got = vec![f32::NAN; m * n];
        let (mi, ki, ni) = (m as i64, k as i64, n as i64);
        f(
            &mut desc(&mut a, [mi, ki]),
            &mut desc(&mut b, [ki, ni]),
            &mut desc(&mut got, [mi, ni]),
        );
        let mut want = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut s = 0f32;
                for kk in 0..k {
                    s += a[i * k + kk] * b[kk * n + j];
                }
                want[i * n + j] = s;
            }
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want), "matmul {m}x{k}x{n}");
    }
}

#[test]
fn conv2d_matches_rust() {
    let c = Compiled::new();
    // SAFETY: the C interface of @conv2d.
    let f: extern "C" fn(*mut D3, *mut D4, *mut D1, *mut D3, i64, i64) =
        unsafe { std::mem::transmute(c.addr("conv2d")) };
    for &(ci, h, w, co, kh, kw, stride, pad) in &[
        (1, 5, 5, 1, 3, 3, 1, 0),
        (3, 8, 7, 4, 3, 3, 1, 1),
        (2, 9, 9, 3, 3, 2, 2, 1),
        (4, 6, 6, 2, 1, 1, 1, 0),
    ] {
        let oh = (h + 2 * pad - kh) / stride + 1;
        let ow = (w + 2 * pad - kw) / stride + 1;
        let mut input = data(ci * h * w, 3);
        let mut weight = data(co * ci * kh * kw, 4);
        let mut bias = data(co, 5);
        let mut got = vec![f32::NAN; co * oh * ow];
        let l = |v: usize| v as i64;
        f(
            &mut desc(&mut input, [l(ci), l(h), l(w)]),
            &mut desc(&mut weight, [l(co), l(ci), l(kh), l(kw)]),
            &mut desc(&mut bias, [l(co)]),
            &mut desc(&mut got, [l(co), l(oh), l(ow)]),
            l(stride),
            l(pad),
        );
        let mut want = vec![0f32; co * oh * ow];
        for o in 0..co {
            for oy in 0..oh {
                for ox in 0..ow {
                    let mut s = bias[o];
                    for c_in in 0..ci {
                        for ky in 0..kh {
                            for kx in 0..kw {
                                let y = (oy * stride + ky) as i64 - pad as i64;
                                let x = (ox * stride + kx) as i64 - pad as i64;
                                let v = if y >= 0 && y < h as i64 && x >= 0 && x < w as i64 {
                                    input[(c_in * h + y as usize) * w + x as usize]
                                } else {
                                    0.0
                                };
                                s += v * weight[((o * ci + c_in) * kh + ky) * kw + kx];
                            }
                        }
                    }
                    want[(o * oh + oy) * ow + ox] = s;
                }
            }
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&got),
            bits(&want),
            "conv {ci}x{h}x{w} -> {co}, k {kh}x{kw}, s {stride}, p {pad}"
        );
    }
}

#[test]
fn subview_writes_the_window() {
    let c = Compiled::new();
    // SAFETY: the C interface of @fill_view.
    let f: extern "C" fn(*mut D2, f32) = unsafe { std::mem::transmute(c.addr("fill_view")) };
    let mut m = vec![0f32; 4 * 8];
    f(&mut desc(&mut m, [4, 8]), 7.0);
    let mut want = vec![0f32; 4 * 8];
    for i in 0..2 {
        for j in 0..3 {
            want[(1 + i) * 8 + 1 + 2 * j] = 7.0;
        }
    }
    assert_eq!(m, want);
}

#[test]
fn alloc_copy_dealloc_and_globals() {
    let c = Compiled::new();
    // SAFETY: the C interfaces of @double_via_copy and @dot_table.
    let f: extern "C" fn(*mut D1, *mut D1) =
        unsafe { std::mem::transmute(c.addr("double_via_copy")) };
    let mut src = data(37, 6);
    let mut dst = vec![0f32; 37];
    f(&mut desc(&mut src, [37]), &mut desc(&mut dst, [37]));
    assert_eq!(dst, src.iter().map(|x| x * 2.0).collect::<Vec<_>>());
    let col: extern "C" fn(*mut D2, *mut D1) = unsafe { std::mem::transmute(c.addr("column")) };
    let mut m = data(5 * 4, 8);
    let mut out = vec![0f32; 5];
    col(&mut desc(&mut m, [5, 4]), &mut desc(&mut out, [5]));
    assert_eq!(out, (0..5).map(|i| m[i * 4 + 2]).collect::<Vec<_>>());
    let g: extern "C" fn(f32) -> f32 = unsafe { std::mem::transmute(c.addr("dot_table")) };
    assert_eq!(g(0.5), 7.5);
    assert_eq!(g(-2.0), -30.0);
}

#[test]
fn while_if_and_parallel_reductions() {
    let c = Compiled::new();
    // SAFETY: the C interfaces of @collatz and @sum_max.
    let collatz: extern "C" fn(i64) -> i64 = unsafe { std::mem::transmute(c.addr("collatz")) };
    let reference = |mut n: i64| {
        let mut k = 0;
        while n != 1 {
            n = if n % 2 == 1 { 3 * n + 1 } else { n / 2 };
            k += 1;
        }
        k
    };
    for n in [1, 2, 3, 7, 27, 97, 871] {
        assert_eq!(collatz(n), reference(n), "collatz({n})");
    }
    #[repr(C)]
    struct Pair(f32, f32);
    let sum_max: extern "C" fn(*mut Pair, *mut D2) =
        unsafe { std::mem::transmute(c.addr("sum_max")) };
    let mut a = data(6 * 11, 7);
    let mut out = Pair(f32::NAN, f32::NAN);
    sum_max(&mut out, &mut desc(&mut a, [6, 11]));
    let sum = a.iter().fold(0f32, |s, x| s + x);
    let max = a.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
    assert_eq!(
        (out.0.to_bits(), out.1.to_bits()),
        (sum.to_bits(), max.to_bits())
    );
}

#[test]
fn math_functions_match_rust() {
    let c = Compiled::new();
    // @math4 takes and returns <4 x float>, which the x86-64 C ABI passes in one SSE
    // register, as `__m128`.
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128, _mm_loadu_ps, _mm_storeu_ps};
        // SAFETY: @math4 takes and returns <4 x float>, an __m128 in the C ABI.
        let f: extern "C" fn(__m128) -> __m128 =
            unsafe { std::mem::transmute(c.jit.lookup("math4").expect("@math4")) };
        for xs in [[0.5f32, -1.25, 3.0, 0.0], [-0.0, 10.0, -7.5, 1e-3]] {
            let mut out = [0f32; 4];
            // SAFETY: both arrays hold four floats.
            unsafe { _mm_storeu_ps(out.as_mut_ptr(), f(_mm_loadu_ps(xs.as_ptr()))) };
            for (x, got) in xs.iter().zip(out) {
                let a = x.abs();
                let want = a.sqrt().mul_add(x.exp(), a.ln_1p()) + x.tanh();
                let ulps = (got.to_bits() as i64 - want.to_bits() as i64).abs();
                assert!(ulps <= 4, "math4({x}) = {got}, Rust says {want}");
            }
        }
    }
}
