//! Ahead-of-time code: the same functions (scalar code in `cf` loops, and a matmul over
//! memrefs in `scf` loops) compiled for aarch64 (linked with
//! `aarch64-linux-gnu-gcc` into a shared library, called from a small C driver run under
//! `qemu-aarch64`) and for the host (linked with `cc`, run natively) print exactly what the
//! host JIT computes.
//!
//! Without the cross compiler or qemu the aarch64 part skips with a message; under
//! `NART_REQUIRE_AARCH64=1` (set by CI) it fails instead.

mod common;

use std::path::Path;
use std::process::Command;

use common::{context, have_tool, parse, require_aarch64};
use nart_llvm::{link_shared, Machine};

/// Scalar functions exercising loops, calls, integer and float arithmetic and casts.
const MODULE: &str = r#"
func.func private @term(%x: f64, %i: i64) -> f64 {
  %one = arith.constant 1 : i64
  %i1 = arith.addi %i, %one : i64
  %d = arith.sitofp %i1 : i64 to f64
  %t = arith.divf %x, %d : f64
  return %t : f64
}

// sum_{i<n} x / (i + 1), accumulated in a cf loop.
func.func @series(%n: i64, %x: f64) -> f64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %z = arith.constant 0.0 : f64
  cf.br ^head(%c0, %z : i64, f64)
^head(%i: i64, %acc: f64):
  %done = arith.cmpi sge, %i, %n : i64
  cf.cond_br %done, ^exit, ^body
^body:
  %t = func.call @term(%x, %i) : (f64, i64) -> f64
  %a = arith.addf %acc, %t : f64
  %j = arith.addi %i, %c1 : i64
  cf.br ^head(%j, %a : i64, f64)
^exit:
  return %acc : f64
}

// Integer mixing: divisions rounding every way, remainders, shifts, min/max, extensions.
func.func @mix(%a: i32, %b: i32) -> i64 {
  %c1 = arith.constant 1 : i32
  %b1 = arith.ori %b, %c1 : i32
  %q = arith.floordivsi %a, %b1 : i32
  %r = arith.ceildivsi %a, %b1 : i32
  %u = arith.ceildivui %a, %b1 : i32
  %m = arith.remsi %a, %b1 : i32
  %c7 = arith.constant 7 : i32
  %s = arith.andi %b, %c7 : i32
  %sh = arith.shrsi %a, %s : i32
  %x0 = arith.xori %q, %r : i32
  %x1 = arith.addi %x0, %u : i32
  %x2 = arith.muli %x1, %m : i32
  %x3 = arith.maxsi %x2, %sh : i32
  %lo, %hi = arith.mului_extended %x3, %a : i32
  %w0 = arith.extui %lo : i32 to i64
  %w1 = arith.extsi %hi : i32 to i64
  %c32 = arith.constant 32 : i64
  %w2 = arith.shli %w1, %c32 : i64
  %w = arith.xori %w0, %w2 : i64
  return %w : i64
}

// Float comparisons, NaN-aware min/max and conversions.
func.func @fmix(%x: f32, %y: f32) -> i32 {
  %mx = arith.maximumf %x, %y : f32
  %mn = arith.minnumf %x, %y : f32
  %d = arith.subf %mx, %mn : f32
  %big = arith.constant 1.0e6 : f32
  %c = arith.minnumf %d, %big : f32
  %i = arith.fptosi %c : f32 to i32
  %lt = arith.cmpf ult, %x, %y : f32
  %e = arith.extui %lt : i1 to i32
  %r = arith.addi %i, %e : i32
  return %r : i32
}
"#;

/// A matmul over memrefs, in scf loops.
const MATMUL: &str = r#"
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
"#;

/// The matmul's sizes; its inputs are `a[i] = ((37 i) mod 17 - 8) / 4` and
/// `b[i] = ((11 i) mod 13 - 6) / 2`, computed the same way by the C driver and by Rust.
const MKN: (usize, usize, usize) = (5, 7, 3);

fn a_elem(i: usize) -> f32 {
    ((i * 37) % 17) as f32 * 0.25 - 2.0
}

fn b_elem(i: usize) -> f32 {
    ((i * 11) % 13) as f32 * 0.5 - 3.0
}

/// A memref descriptor of rank 2 as the C interface takes it.
#[repr(C)]
struct D2 {
    allocated: *mut f32,
    aligned: *mut f32,
    offset: i64,
    sizes: [i64; 2],
    strides: [i64; 2],
}

fn d2(buf: &mut [f32], rows: usize, cols: usize) -> D2 {
    D2 {
        allocated: buf.as_mut_ptr(),
        aligned: buf.as_mut_ptr(),
        offset: 0,
        sizes: [rows as i64, cols as i64],
        strides: [cols as i64, 1],
    }
}

const SERIES: &[(i64, f64)] = &[(0, 1.0), (1, 2.5), (10, 1.0), (1000, -0.125), (37, 3.0e10)];
const MIX: &[(i32, i32)] = &[
    (0, 0),
    (7, 2),
    (-7, 2),
    (7, -2),
    (-7, -3),
    (i32::MIN, 5),
    (i32::MAX, -1),
    (123_456_789, 1000),
    (-1, i32::MIN),
];
const FMIX: &[(f32, f32)] = &[
    (1.0, 2.0),
    (2.5, -3.25),
    (f32::NAN, 1.0),
    (-0.0, 0.0),
    (1.0e9, -1.0e9),
    (f32::INFINITY, 0.5),
];

/// The C driver: one line per call, results as exact bit patterns.
fn driver() -> String {
    let mut s = String::from(
        "#include <stdio.h>\n#include <stdint.h>\n#include <string.h>\n\
         double _mlir_ciface_series(int64_t, double);\n\
         int64_t _mlir_ciface_mix(int32_t, int32_t);\n\
         int32_t _mlir_ciface_fmix(float, float);\n\
         static uint64_t bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }\n\
         static float f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }\n\
         static double f64(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }\n\
         int main(void) {\n",
    );
    for &(n, x) in SERIES {
        s += &format!(
            "  printf(\"series %016llx\\n\", (unsigned long long)bits(_mlir_ciface_series({n}LL, f64(0x{:016x}ULL))));\n",
            x.to_bits()
        );
    }
    for &(a, b) in MIX {
        s += &format!(
            "  printf(\"mix %lld\\n\", (long long)_mlir_ciface_mix((int32_t){}, (int32_t){}));\n",
            a as i64, b as i64
        );
    }
    for &(x, y) in FMIX {
        s += &format!(
            "  printf(\"fmix %d\\n\", (int)_mlir_ciface_fmix(f32(0x{:08x}u), f32(0x{:08x}u)));\n",
            x.to_bits(),
            y.to_bits()
        );
    }
    let (m, k, n) = MKN;
    s += &format!(
        "  {{\n    typedef struct {{ float *allocated, *aligned; int64_t offset, sizes[2], strides[2]; }} D2;\n\
         void _mlir_ciface_matmul(D2 *, D2 *, D2 *);\n\
         static float a[{mk}], b[{kn}], c[{mn}];\n\
         for (int i = 0; i < {mk}; i++) a[i] = (float)((i * 37) % 17) * 0.25f - 2.0f;\n\
         for (int i = 0; i < {kn}; i++) b[i] = (float)((i * 11) % 13) * 0.5f - 3.0f;\n\
         D2 da = {{a, a, 0, {{{m}, {k}}}, {{{k}, 1}}}};\n\
         D2 db = {{b, b, 0, {{{k}, {n}}}, {{{n}, 1}}}};\n\
         D2 dc = {{c, c, 0, {{{m}, {n}}}, {{{n}, 1}}}};\n\
         _mlir_ciface_matmul(&da, &db, &dc);\n\
         for (int i = 0; i < {mn}; i++) {{ uint32_t u; memcpy(&u, &c[i], 4); printf(\"matmul %08x\\n\", u); }}\n  }}\n",
        mk = m * k,
        kn = k * n,
        mn = m * n,
    );
    s += "  return 0;\n}\n";
    s
}

/// What the host JIT prints for the same calls.
fn jit_output() -> String {
    let mut ctx = context();
    let m = parse(&mut ctx, &format!("{MODULE}{MATMUL}"));
    let jit = nart_llvm::jit_module(&ctx, m).expect("the module compiles for the host");
    let addr = |n: &str| jit.lookup(n).expect("a public function");
    // SAFETY: the signatures are those of the functions in MODULE.
    let series: extern "C" fn(i64, f64) -> f64 = unsafe { std::mem::transmute(addr("series")) };
    let mix: extern "C" fn(i32, i32) -> i64 = unsafe { std::mem::transmute(addr("mix")) };
    let fmix: extern "C" fn(f32, f32) -> i32 = unsafe { std::mem::transmute(addr("fmix")) };
    let mut out = String::new();
    for &(n, x) in SERIES {
        out += &format!("series {:016x}\n", series(n, x).to_bits());
    }
    for &(a, b) in MIX {
        out += &format!("mix {}\n", mix(a, b));
    }
    for &(x, y) in FMIX {
        out += &format!("fmix {}\n", fmix(x, y));
    }
    // SAFETY: the C interface of @matmul.
    let matmul: extern "C" fn(*mut D2, *mut D2, *mut D2) =
        unsafe { std::mem::transmute(addr("_mlir_ciface_matmul")) };
    let (m, k, n) = MKN;
    let mut a: Vec<f32> = (0..m * k).map(a_elem).collect();
    let mut b: Vec<f32> = (0..k * n).map(b_elem).collect();
    let mut c = vec![f32::NAN; m * n];
    matmul(
        &mut d2(&mut a, m, k),
        &mut d2(&mut b, k, n),
        &mut d2(&mut c, m, n),
    );
    for x in c {
        out += &format!("matmul {:08x}\n", x.to_bits());
    }
    out
}

/// Compiles MODULE for `machine`, links it into `lib<name>.so` with `cc`, links the driver
/// against it with `cc`, and returns the driver's path.
fn build(machine: &Machine, cc: &str, dir: &Path, name: &str) -> std::path::PathBuf {
    let mut ctx = context();
    let m = parse(&mut ctx, &format!("{MODULE}{MATMUL}"));
    let ll = nart_llvm::inkwell::context::Context::create();
    let llmod = nart_llvm::translate_module(&ctx, m, &ll, name).expect("translates");
    machine.optimize(&llmod, "default<O2>").expect("optimizes");
    let obj = machine.emit(&llmod, true).expect("an object");
    let obj_path = dir.join(format!("{name}.o"));
    std::fs::write(&obj_path, obj).unwrap();
    let so = dir.join(format!("lib{name}.so"));
    link_shared(cc, &[&obj_path], &so).expect("links a shared library");
    let c = dir.join(format!("{name}-driver.c"));
    std::fs::write(&c, driver()).unwrap();
    let exe = dir.join(format!("{name}-driver"));
    let st = Command::new(cc)
        .arg("-o")
        .arg(&exe)
        .arg(&c)
        .arg(format!("-L{}", dir.display()))
        .arg(format!("-l{name}"))
        .status()
        .expect("runs the C compiler");
    assert!(st.success(), "{cc} could not link the driver");
    exe
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("runs the driver");
    assert!(
        out.status.success(),
        "the driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn aarch64_under_qemu_matches_host_jit() {
    if !require_aarch64(&["aarch64-linux-gnu-gcc", "qemu-aarch64"]) {
        return;
    }
    let dir = tempdir("aarch64");
    let machine = Machine::aarch64_linux(false).expect("an aarch64 target machine");
    let exe = build(&machine, "aarch64-linux-gnu-gcc", &dir, "nartaa");
    let got = run(Command::new("qemu-aarch64")
        .args(["-L", "/usr/aarch64-linux-gnu", "-E"])
        .arg(format!("LD_LIBRARY_PATH={}", dir.display()))
        .arg(&exe));
    let want = jit_output();
    assert_eq!(got, want, "aarch64 (qemu) and x86-64 JIT results differ");
    assert_eq!(
        got.lines().count(),
        SERIES.len() + MIX.len() + FMIX.len() + MKN.0 * MKN.2
    );
}

#[test]
fn host_shared_library_matches_host_jit() {
    if !have_tool("cc") {
        assert!(
            std::env::var_os("NART_REQUIRE_CC").is_none(),
            "NART_REQUIRE_CC is set but there is no cc"
        );
        eprintln!("skipped: no C compiler `cc`");
        return;
    }
    let dir = tempdir("host");
    let machine = Machine::host().expect("the host machine");
    let exe = build(&machine, "cc", &dir, "narthost");
    let got = run(Command::new(&exe).env("LD_LIBRARY_PATH", &dir));
    assert_eq!(got, jit_output());
}

fn tempdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("nart-llvm-aot-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
