//! Vectors of `i1` in memory: a `memref` of `i1` holds one byte (0 or 1) per element, as a
//! scalar `memref.store` writes it, while LLVM lays out `<N x i1>` as packed bits. Vector reads
//! and writes of `i1` (full, masked, and strided) must go through bytes, or a comparison's
//! vectorized result lands as a bit mask in the first bytes.

mod common;

use common::{context, desc, parse, Desc};

const PROGRAM: &str = r#"
// lt[i] = a[i] < b[i] for 11 elements: one full vector of 8 and a masked one; then the
// flags read back as vectors, negated, and written to every other element of `odd`.
func.func @less(%a: memref<11xf32>, %b: memref<11xf32>, %lt: memref<11xi1>, %odd: memref<8xi1>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 0.0 : f32
  %f = arith.constant false
  %va = vector.transfer_read %a[%c0], %pad {in_bounds = [true]} : memref<11xf32>, vector<8xf32>
  %vb = vector.transfer_read %b[%c0], %pad {in_bounds = [true]} : memref<11xf32>, vector<8xf32>
  %m = arith.cmpf olt, %va, %vb : vector<8xf32>
  vector.transfer_write %m, %lt[%c0] {in_bounds = [true]} : vector<8xi1>, memref<11xi1>
  %ta = vector.transfer_read %a[%c8], %pad : memref<11xf32>, vector<8xf32>
  %tb = vector.transfer_read %b[%c8], %pad : memref<11xf32>, vector<8xf32>
  %tm = arith.cmpf olt, %ta, %tb : vector<8xf32>
  vector.transfer_write %tm, %lt[%c8] : vector<8xi1>, memref<11xi1>
  %back = vector.transfer_read %lt[%c0], %f : memref<11xi1>, vector<4xi1>
  %t = arith.constant dense<true> : vector<4xi1>
  %n = arith.xori %back, %t : vector<4xi1>
  %view = memref.subview %odd[1] [4] [2] : memref<8xi1> to memref<4xi1, strided<[2], offset: 1>>
  vector.transfer_write %n, %view[%c0] : vector<4xi1>, memref<4xi1, strided<[2], offset: 1>>
  return
}
"#;

#[test]
fn i1_vectors_are_stored_and_read_a_byte_per_element() {
    let mut ctx = context();
    let m = parse(&mut ctx, PROGRAM);
    let jit = nart_llvm::jit_module(&ctx, m).expect("the program compiles");
    let f: extern "C" fn(*mut Desc<f32, 1>, *mut Desc<f32, 1>, *mut Desc<u8, 1>, *mut Desc<u8, 1>) = unsafe {
        std::mem::transmute(
            jit.lookup(&format!("{}less", nart_llvm::CIFACE_PREFIX))
                .expect("the C interface is there"),
        )
    };
    let mut a: Vec<f32> = (0..11).map(|i| i as f32).collect();
    let mut b: Vec<f32> = (0..11).map(|i| [5.0, 1.0, 9.0][i % 3]).collect();
    let mut lt = vec![7u8; 11];
    let mut odd = vec![7u8; 8];
    f(
        &mut desc(&mut a, [11]),
        &mut desc(&mut b, [11]),
        &mut desc(&mut lt, [11]),
        &mut desc(&mut odd, [8]),
    );
    let want: Vec<u8> = (0..11).map(|i| u8::from(a[i] < b[i])).collect();
    assert_eq!(lt, want);
    let mut want_odd = vec![7u8; 8];
    for k in 0..4 {
        want_odd[2 * k + 1] = 1 - want[k];
    }
    assert_eq!(odd, want_odd);
}
