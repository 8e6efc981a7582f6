//! `f16` and `bf16` through the translation: the LLVM IR types (`half`, `bfloat`), loads and
//! stores of 16-bit elements, `arith.extf`/`arith.truncf` on scalars and vectors, and 16-bit
//! constants, compiled by LLVM and run in the JIT against references written here (rounding to
//! nearest, ties to even, as IEEE 754 and upstream's `arith.truncf` without a rounding mode
//! say), bit for bit.

mod common;

use common::{context, desc, parse, Desc};

const PROGRAM: &str = r#"
// Each element of x rounded to f16 and to bf16.
func.func @round(%x: memref<64xf32>, %h: memref<64xf16>, %b: memref<64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 64 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %vh = arith.truncf %v : f32 to f16
    %vb = arith.truncf %v : f32 to bf16
    memref.store %vh, %h[%i] : memref<64xf16>
    memref.store %vb, %b[%i] : memref<64xbf16>
  }
  return
}

// c = a + b + 0.1 in f16 for 8 lanes, computed in f32 and rounded once; the constant is an f16.
func.func @vadd(%a: memref<8xf16>, %b: memref<8xf16>, %c: memref<8xf16>) {
  %c0 = arith.constant 0 : index
  %va = vector.load %a[%c0] : memref<8xf16>, vector<8xf16>
  %vb = vector.load %b[%c0] : memref<8xf16>, vector<8xf16>
  %wa = arith.extf %va : vector<8xf16> to vector<8xf32>
  %wb = arith.extf %vb : vector<8xf16> to vector<8xf32>
  %s = arith.addf %wa, %wb : vector<8xf32>
  %k = arith.constant 0.1 : f16
  %kw = arith.extf %k : f16 to f32
  %kv = vector.broadcast %kw : f32 to vector<8xf32>
  %t = arith.addf %s, %kv : vector<8xf32>
  %r = arith.truncf %t : vector<8xf32> to vector<8xf16>
  vector.store %r, %c[%c0] : memref<8xf16>, vector<8xf16>
  return
}
"#;

/// `x` rounded to bf16 (to nearest, ties to even), as bits; `x` is not NaN.
fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

/// `x` rounded to f16 (to nearest, ties to even), as bits; `x` is not NaN.
fn f16_bits(x: f32) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = f64::from(x.abs());
    // Half the distance between 65504 and the next power of two rounds up to infinity.
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // The spacing of f16 values around a: 2^(e - 10), subnormals spaced as at 2^-14.
    let e = if a == 0.0 {
        -14
    } else {
        (a.log2().floor() as i32).max(-14)
    };
    let q = 2f64.powi(e - 10);
    let n = (a / q).round_ties_even();
    let v = n * q;
    if v < 2f64.powi(-14) {
        return sign | n as u16;
    }
    let e = v.log2().floor() as i32;
    let m = (v / 2f64.powi(e) - 1.0) * 1024.0;
    sign | (((e + 15) as u16) << 10) | m as u16
}

fn f16_value(h: u16) -> f32 {
    nart_ir::util::f16_bits_to_f64(h) as f32
}

#[test]
fn the_ir_uses_half_and_bfloat() {
    let mut ctx = context();
    let m = parse(&mut ctx, PROGRAM);
    let ll = nart_llvm::inkwell::context::Context::create();
    let module = nart_llvm::translate_module(&ctx, m, &ll, "halves").expect("it translates");
    let text = module.print_to_string().to_string();
    for want in [
        "fptrunc float",
        "to half",
        "to bfloat",
        "store half",
        "store bfloat",
        "fpext <8 x half>",
        "to <8 x float>",
        "fptrunc <8 x float>",
        "to <8 x half>",
    ] {
        assert!(text.contains(want), "no '{want}' in\n{text}");
    }
}

#[test]
fn rounding_to_16_bit_floats_is_to_nearest_even() {
    let mut ctx = context();
    let m = parse(&mut ctx, PROGRAM);
    let jit = nart_llvm::jit_module(&ctx, m).expect("the program compiles");
    let addr = |name: &str| {
        jit.lookup(&format!("{}{name}", nart_llvm::CIFACE_PREFIX))
            .expect("the C interface is there")
    };

    // Ties and near-ties of both formats, overflow, subnormals, signed zero, and a spread.
    let mut x: Vec<f32> = vec![
        1.0 + 2f32.powi(-11),
        1.0 + 3.0 * 2f32.powi(-11),
        1.0 + 2f32.powi(-11) + 2f32.powi(-23),
        1.0 + 2f32.powi(-8),
        1.0 + 3.0 * 2f32.powi(-8),
        1.0 + 2f32.powi(-8) + 2f32.powi(-23),
        65504.0,
        65519.0,
        65520.0,
        1.0e6,
        -1.0e6,
        3.0e38,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2f32.powi(-24),
        3.0 * 2f32.powi(-26),
        2f32.powi(-25),
        1.0e-30,
        -0.0,
        0.0,
    ];
    let mut s = 0x2545_f491_u32;
    while x.len() < 64 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        // Any finite f32 of magnitude below about 2^30.
        let v = f32::from_bits(s & 0xcfff_ffff);
        x.push(v);
    }
    let (mut h, mut b) = (vec![0u16; 64], vec![0u16; 64]);
    type D = Desc<u16, 1>;
    let f: extern "C" fn(*mut Desc<f32, 1>, *mut D, *mut D) =
        unsafe { std::mem::transmute(addr("round")) };
    let (mut dx, mut dh, mut db) = (desc(&mut x, [64]), desc(&mut h, [64]), desc(&mut b, [64]));
    f(&mut dx, &mut dh, &mut db);
    for i in 0..64 {
        assert_eq!(h[i], f16_bits(x[i]), "f16 of {:e} (#{i})", x[i]);
        assert_eq!(b[i], bf16_bits(x[i]), "bf16 of {:e} (#{i})", x[i]);
    }

    let mut a: Vec<u16> = (0..8).map(|i| f16_bits(0.37 * i as f32 - 1.1)).collect();
    let mut c: Vec<u16> = (0..8)
        .map(|i| f16_bits(1000.0 / (i as f32 + 3.0)))
        .collect();
    let mut out = vec![0u16; 8];
    let f: extern "C" fn(*mut D, *mut D, *mut D) = unsafe { std::mem::transmute(addr("vadd")) };
    let (mut da, mut dc, mut dout) = (desc(&mut a, [8]), desc(&mut c, [8]), desc(&mut out, [8]));
    f(&mut da, &mut dc, &mut dout);
    let k = f16_value(f16_bits(0.1));
    for i in 0..8 {
        let want = f16_bits(f16_value(a[i]) + f16_value(c[i]) + k);
        assert_eq!(out[i], want, "lane {i}");
    }
}
