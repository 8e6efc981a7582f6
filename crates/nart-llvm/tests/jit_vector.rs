//! `vector` programs compiled by LLVM and run in the JIT against scalar Rust references:
//! masked transfers at the end of a buffer, strided (gathered and scattered) transfers, the
//! element and shuffle ops, reductions of every flavour, and a register-blocked matrix
//! product built from `vector.outerproduct` in `scf.for` iteration arguments.
//!
//! The references compute in the same order and with the same fused operations as the IR
//! (`f32::mul_add` for `fma` and `outerproduct`), so results are compared bit for bit.

mod common;

use common::{context, data, desc, parse, Desc};

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

const PROGRAM: &str = r#"
// y[i] = a * x[i] + y[i], 8 lanes at a time; the last, partial vector is masked.
func.func @axpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %pad = arith.constant 0.0 : f32
  %va = vector.broadcast %a : f32 to vector<8xf32>
  scf.for %i = %c0 to %n step %c8 {
    %vx = vector.transfer_read %x[%i], %pad : memref<?xf32>, vector<8xf32>
    %vy = vector.transfer_read %y[%i], %pad : memref<?xf32>, vector<8xf32>
    %r = vector.fma %va, %vx, %vy : vector<8xf32>
    vector.transfer_write %r, %y[%i] : vector<8xf32>, memref<?xf32>
  }
  return
}

// The sum of column j, 4 rows at a time (a strided read, masked at the end), in row order;
// then the column scaled by 2 written back 4 rows at a time (a strided, masked write).
func.func @column(%A: memref<?x?xf32>, %j: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %pad = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %m step %c4 iter_args(%acc = %pad) -> (f32) {
    %v = vector.transfer_read %A[%i, %j], %pad {permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<?x?xf32>, vector<4xf32>
    %t = vector.reduction <add>, %v, %acc : vector<4xf32> into f32
    scf.yield %t : f32
  }
  %two = arith.constant dense<2.0> : vector<4xf32>
  scf.for %i = %c0 to %m step %c4 {
    %v = vector.transfer_read %A[%i, %j], %pad {permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<?x?xf32>, vector<4xf32>
    %w = arith.mulf %v, %two : vector<4xf32>
    vector.transfer_write %w, %A[%i, %j] {permutation_map = affine_map<(d0, d1) -> (d0)>} : vector<4xf32>, memref<?x?xf32>
  }
  return %s : f32
}

// Element and shuffle ops on one vector; returns its maximum.
func.func @shuffle_and_friends(%m: memref<8xf32>, %out: memref<8xf32>, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %v = vector.load %m[%c0] : memref<8xf32>, vector<8xf32>
  %mx = vector.reduction <maxnumf>, %v : vector<8xf32> into f32
  %e = vector.extract %v[3] : f32 from vector<8xf32>
  %w = vector.insert %mx, %v [%i] : f32 into vector<8xf32>
  %s = vector.shuffle %w, %v [7, 6, 5, 4, 11, 10, 9, 8] : vector<8xf32>, vector<8xf32>
  %p = vector.outerproduct %s, %e, %v : vector<8xf32>, f32
  vector.store %p, %out[%c0] : memref<8xf32>, vector<8xf32>
  return %mx : f32
}

// Every other element (a gather through a strided view), summed without an accumulator.
func.func @even_sum(%m: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %view = memref.subview %m[0] [4] [2] : memref<8xf32> to memref<4xf32, strided<[2]>>
  %v = vector.load %view[%c0] : memref<4xf32, strided<[2]>>, vector<4xf32>
  %s = vector.reduction <add>, %v : vector<4xf32> into f32
  %b = vector.broadcast %s : f32 to vector<4xf32>
  vector.store %b, %view[%c0] : memref<4xf32, strided<[2]>>, vector<4xf32>
  return %s : f32
}

// Integer reductions: [acc + sum, min, xor, max unsigned] written over the input.
func.func @int_reductions(%m: memref<4xi32>, %acc: i32) {
  %c0 = arith.constant 0 : index
  %v = vector.load %m[%c0] : memref<4xi32>, vector<4xi32>
  %a = vector.reduction <add>, %v, %acc : vector<4xi32> into i32
  %b = vector.reduction <minsi>, %v : vector<4xi32> into i32
  %c = vector.reduction <xor>, %v : vector<4xi32> into i32
  %d = vector.reduction <maxui>, %v : vector<4xi32> into i32
  %f = vector.from_elements %a, %b, %c, %d : vector<4xi32>
  vector.store %f, %m[%c0] : memref<4xi32>, vector<4xi32>
  return
}

// C += A * B on 2x8 register blocks: the accumulators stay in scf.for's iteration arguments
// across k, updated with outer products (broadcast A element times a row of B, fused).
func.func @gemm_2x8(%A: memref<4x5xf32>, %B: memref<5x16xf32>, %C: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c2 {
    scf.for %j = %c0 to %c16 step %c8 {
      %i1 = arith.addi %i, %c1 : index
      %acc0 = vector.load %C[%i, %j] : memref<4x16xf32>, vector<8xf32>
      %acc1 = vector.load %C[%i1, %j] : memref<4x16xf32>, vector<8xf32>
      %r:2 = scf.for %k = %c0 to %c5 step %c1 iter_args(%a0 = %acc0, %a1 = %acc1) -> (vector<8xf32>, vector<8xf32>) {
        %b = vector.load %B[%k, %j] : memref<5x16xf32>, vector<8xf32>
        %x0 = memref.load %A[%i, %k] : memref<4x5xf32>
        %x1 = memref.load %A[%i1, %k] : memref<4x5xf32>
        %n0 = vector.outerproduct %b, %x0, %a0 : vector<8xf32>, f32
        %n1 = vector.outerproduct %b, %x1, %a1 : vector<8xf32>, f32
        scf.yield %n0, %n1 : vector<8xf32>, vector<8xf32>
      }
      vector.store %r#0, %C[%i, %j] : memref<4x16xf32>, vector<8xf32>
      vector.store %r#1, %C[%i1, %j] : memref<4x16xf32>, vector<8xf32>
    }
  }
  return
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

type D1 = Desc<f32, 1>;
type D2 = Desc<f32, 2>;

#[test]
fn masked_transfers_at_the_end_of_a_buffer() {
    let c = Compiled::new();
    // SAFETY: the C interface of @axpy.
    let f: extern "C" fn(f32, *mut D1, *mut D1) = unsafe { std::mem::transmute(c.addr("axpy")) };
    for n in [0usize, 1, 7, 8, 13, 16, 29] {
        let mut x = data(n, 3);
        let y0 = data(n, 4);
        // A guard element after y: the masked write must leave it alone.
        let mut y = y0.clone();
        y.push(f32::NAN);
        let a = 0.375f32;
        f(
            a,
            &mut desc(&mut x, [n as i64]),
            &mut desc(&mut y[..n], [n as i64]),
        );
        let want: Vec<f32> = (0..n).map(|i| a.mul_add(x[i], y0[i])).collect();
        assert_eq!(bits(&y[..n]), bits(&want), "axpy n={n}");
        assert!(y[n].is_nan(), "axpy n={n} wrote past the end");
    }
}

#[test]
fn strided_masked_transfers_read_and_write_a_column() {
    let c = Compiled::new();
    // SAFETY: the C interface of @column.
    let f: extern "C" fn(*mut D2, i64) -> f32 = unsafe { std::mem::transmute(c.addr("column")) };
    for (m, n, j) in [(1usize, 3usize, 2usize), (4, 2, 0), (7, 5, 3), (9, 1, 0)] {
        let a0 = data(m * n, 5);
        let mut a = a0.clone();
        let got = f(&mut desc(&mut a, [m as i64, n as i64]), j as i64);
        let mut want = 0f32;
        for chunk in 0..m.div_ceil(4) {
            for lane in 0..4 {
                let r = chunk * 4 + lane;
                want += if r < m { a0[r * n + j] } else { 0.0 };
            }
        }
        assert_eq!(got.to_bits(), want.to_bits(), "column sum {m}x{n} j={j}");
        let mut want_a = a0.clone();
        for r in 0..m {
            want_a[r * n + j] *= 2.0;
        }
        assert_eq!(bits(&a), bits(&want_a), "column write {m}x{n} j={j}");
    }
}

#[test]
fn element_and_shuffle_ops() {
    let c = Compiled::new();
    // SAFETY: the C interface of @shuffle_and_friends.
    let f: extern "C" fn(*mut D1, *mut D1, i64) -> f32 =
        unsafe { std::mem::transmute(c.addr("shuffle_and_friends")) };
    for i in 0..8usize {
        let mut v = data(8, 6 + i as u64);
        let mut out = vec![f32::NAN; 8];
        let got = f(&mut desc(&mut v, [8]), &mut desc(&mut out, [8]), i as i64);
        let mx = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(got.to_bits(), mx.to_bits());
        let e = v[3];
        let mut w = v.clone();
        w[i] = mx;
        let both: Vec<f32> = w.iter().chain(&v).copied().collect();
        let s: Vec<f32> = [7, 6, 5, 4, 11, 10, 9, 8]
            .iter()
            .map(|&k| both[k])
            .collect();
        let want: Vec<f32> = (0..8).map(|k| s[k].mul_add(e, v[k])).collect();
        assert_eq!(bits(&out), bits(&want), "position {i}");
    }
}

#[test]
fn gather_and_scatter_through_a_strided_view() {
    let c = Compiled::new();
    // SAFETY: the C interface of @even_sum.
    let f: extern "C" fn(*mut D1) -> f32 = unsafe { std::mem::transmute(c.addr("even_sum")) };
    let v0 = data(8, 9);
    let mut v = v0.clone();
    let got = f(&mut desc(&mut v, [8]));
    let want = ((v0[0] + v0[2]) + v0[4]) + v0[6];
    assert_eq!(got.to_bits(), want.to_bits());
    for k in 0..8 {
        let w = if k % 2 == 0 { want } else { v0[k] };
        assert_eq!(v[k].to_bits(), w.to_bits(), "element {k}");
    }
}

#[test]
fn integer_reductions() {
    let c = Compiled::new();
    // SAFETY: the C interface of @int_reductions.
    let f: extern "C" fn(*mut Desc<i32, 1>, i32) =
        unsafe { std::mem::transmute(c.addr("int_reductions")) };
    for (v0, acc) in [
        ([3i32, -7, 12, 5], 100i32),
        ([i32::MAX, 1, -1, 0], -5),
        ([-2, -3, -4, -5], 0),
    ] {
        let mut v = v0.to_vec();
        f(&mut desc(&mut v, [4]), acc);
        let want = [
            v0.iter().fold(acc, |s, &x| s.wrapping_add(x)),
            *v0.iter().min().unwrap(),
            v0.iter().fold(0, |s, &x| s ^ x),
            v0.iter().map(|&x| x as u32).max().unwrap() as i32,
        ];
        assert_eq!(v, want, "{v0:?} acc {acc}");
    }
}

#[test]
fn register_blocked_matmul() {
    let c = Compiled::new();
    // SAFETY: the C interface of @gemm_2x8.
    let f: extern "C" fn(*mut D2, *mut D2, *mut D2) =
        unsafe { std::mem::transmute(c.addr("gemm_2x8")) };
    let (m, k, n) = (4usize, 5usize, 16usize);
    let mut a = data(m * k, 10);
    let mut b = data(k * n, 11);
    let c0 = data(m * n, 12);
    let mut got = c0.clone();
    f(
        &mut desc(&mut a, [m as i64, k as i64]),
        &mut desc(&mut b, [k as i64, n as i64]),
        &mut desc(&mut got, [m as i64, n as i64]),
    );
    let mut want = c0;
    for i in 0..m {
        for j in 0..n {
            for kk in 0..k {
                want[i * n + j] = b[kk * n + j].mul_add(a[i * k + kk], want[i * n + j]);
            }
        }
    }
    assert_eq!(bits(&got), bits(&want));
}
