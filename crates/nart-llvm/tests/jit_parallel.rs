//! Outermost `scf.parallel` loops run through the runtime interface: with no interface (the
//! global null) the body runs on the calling thread; with one, the loop hands its body, its
//! captures and its linearized trip count to `parallel_for`, and any split of the space into
//! slices gives the same bits as the sequential loop.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};

use common::{context, desc, parse, Desc};

const PROGRAM: &str = r#"
// out[i, j] = a[i, j] * k + (i - j), over a 2-D parallel space with an inner reduction loop
// adding row i's first four elements (n is at least 4).
func.func @rows(%a: memref<?x?xf32>, %out: memref<?x?xf32>, %k: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %a, %c0 : memref<?x?xf32>
  %n = memref.dim %a, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x?xf32>
    %y = arith.mulf %x, %k : f32
    %d = arith.subi %i, %j : index
    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %z = arith.addf %y, %df : f32
    %s = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (f32) {
      %v = memref.load %a[%i, %t] : memref<?x?xf32>
      %w = arith.addf %acc, %v : f32
      scf.yield %w : f32
    }
    memref.store %s, %out[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// out[i] = i for i = 2, 5, 8, ... below n: a lower bound and a step other than 0 and 1.
func.func @strided(%out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c2) to (%n) step (%c3) {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    memref.store %f, %out[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
"#;

type Body = unsafe extern "C" fn(*mut u8, i64, i64);

#[repr(C)]
struct Interface {
    version: u64,
    ctx: *const u8,
    parallel_for: unsafe extern "C" fn(*const u8, Body, *mut u8, i64, i64),
}

static CALLS: AtomicU64 = AtomicU64::new(0);

/// Runs the slices of 7 iterations (the grain when larger) from the last to the first, and
/// each slice's second half before its first half, on the calling thread.
unsafe extern "C" fn backwards(_: *const u8, body: Body, cap: *mut u8, n: i64, grain: i64) {
    CALLS.fetch_add(1, Ordering::Relaxed);
    assert!(grain >= 1 && n >= 2 * grain);
    let c = grain.max(7);
    let mut end = n;
    while end > 0 {
        let begin = (end - c).max(0);
        let mid = begin + (end - begin) / 2;
        // SAFETY: the generated code's body, on disjoint slices covering [0, n).
        unsafe {
            body(cap, mid, end);
            body(cap, begin, mid);
        }
        end = begin;
    }
}

static IFACE: Interface = Interface {
    version: nart_llvm::RUNTIME_INTERFACE_VERSION,
    ctx: std::ptr::null(),
    parallel_for: backwards,
};

// SAFETY: the interface is immutable and its context null.
unsafe impl Sync for Interface {}

fn compile() -> nart_llvm::Jit {
    let mut ctx = context();
    let m = parse(&mut ctx, PROGRAM);
    nart_llvm::jit_module(&ctx, m).expect("the program compiles")
}

fn run_rows(jit: &nart_llvm::Jit, m: usize, n: usize) -> Vec<u32> {
    let rows: extern "C" fn(*mut Desc<f32, 2>, *mut Desc<f32, 2>, f32) = unsafe {
        std::mem::transmute(
            jit.lookup(&format!("{}rows", nart_llvm::CIFACE_PREFIX))
                .unwrap(),
        )
    };
    let mut a: Vec<f32> = (0..m * n).map(|i| (i % 13) as f32 * 0.37 - 2.0).collect();
    let mut out = vec![f32::NAN; m * n];
    rows(
        &mut desc(&mut a, [m as i64, n as i64]),
        &mut desc(&mut out, [m as i64, n as i64]),
        1.5,
    );
    out.iter().map(|x| x.to_bits()).collect()
}

fn reference_rows(m: usize, n: usize) -> Vec<u32> {
    let a: Vec<f32> = (0..m * n).map(|i| (i % 13) as f32 * 0.37 - 2.0).collect();
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut s = a[i * n + j] * 1.5 + (i as i64 - j as i64) as f32;
            for t in 0..4 {
                s += a[i * n + t];
            }
            out.push(s.to_bits());
        }
    }
    out
}

#[test]
fn parallel_loops_run_inline_without_an_interface_and_sliced_with_one() {
    let jit = compile();
    let global = jit.lookup(nart_llvm::RUNTIME_GLOBAL).unwrap() as *mut *const Interface;
    // Without an interface: the body over the whole space.
    for (m, n) in [(3, 5), (1, 4), (40, 9)] {
        assert_eq!(run_rows(&jit, m, n), reference_rows(m, n), "{m}x{n}");
    }
    // SAFETY: the global is the module's pointer-sized `nart_parallel_runtime`.
    unsafe { global.write(&IFACE) };
    let before = CALLS.load(Ordering::Relaxed);
    // A large space goes to the interface, sliced across rows; a small one stays inline.
    assert_eq!(run_rows(&jit, 300, 70), reference_rows(300, 70));
    let after = CALLS.load(Ordering::Relaxed);
    assert_eq!(after, before + 1);
    assert_eq!(run_rows(&jit, 2, 4), reference_rows(2, 4));
    assert_eq!(CALLS.load(Ordering::Relaxed), after);

    let strided: extern "C" fn(*mut Desc<f32, 1>) = unsafe {
        std::mem::transmute(
            jit.lookup(&format!("{}strided", nart_llvm::CIFACE_PREFIX))
                .unwrap(),
        )
    };
    for n in [0usize, 2, 3, 4, 100_000] {
        let mut out = vec![-1.0f32; n];
        strided(&mut desc(&mut out, [n as i64]));
        for (i, &x) in out.iter().enumerate() {
            let want = if i >= 2 && (i - 2) % 3 == 0 {
                i as f32
            } else {
                -1.0
            };
            assert_eq!(x, want, "n {n}, i {i}");
        }
    }
    assert!(
        CALLS.load(Ordering::Relaxed) > after,
        "the long strided loop was sliced"
    );
    // SAFETY: as above.
    unsafe { global.write(std::ptr::null()) };
}
