//! Seeded mutation fuzzing of the parser: valid inputs are mutated (byte flips, truncations,
//! token insertions, deletions, duplications) and parsed; the parser must never panic, and
//! whatever it accepts must print and parse back.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use nart_ir::parser::parse_source;
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::Context;

const CORPUS: &[&str] = &[
    r#"%r:2, %s = "d.op"() : () -> (i32, f32, i64)
"d.use"(%r#1, %s, %r#0) : (f32, i64, i32) -> ()"#,
    r#""d.op"() ({
^bb0(%a: i32, %b: f32):
  "d.br"(%a)[^bb1] : (i32) -> ()
^bb1(%x: i32):
  "d.ret"(%x) : (i32) -> ()
}, {
}) {attr = 2 : i32} : () -> () loc("f":1:2)"#,
    r#"module @m attributes {d.x = 1 : i32} {
  %0 = "d.def"() : () -> tensor<2x?x3xf32>
  "d.p"(%0) <{prop = [1, "x", @a::@b]}> : (tensor<2x?x3xf32>) -> ()
}"#,
    r#"!alias = memref<2x4xf32, strided<[4, 1], offset: ?>, 1>
#map = affine_map<(d0, d1)[s0] -> (d0 + s0 * 2, d0 mod 4, d1 floordiv 2 - 3)>
"d.t"() {a = !alias, b = #map, c = vector<4x[8]xf32>, d = tuple<i32, complex<f32>>, e = !quant.uniform<i8:f32, 0.5>} : () -> ()"#,
    r#""d.a"() {a = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>, b = dense<"0x0100000002000000"> : tensor<2xi32>, c = dense<1.5> : tensor<4xf16>, d = array<i64: 1, 2>, e = 0x7FC00000 : f32, f = "s\n\"\41", g = dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>} : () -> ()"#,
    r#""d.a"() {a = dense_resource<blob1> : tensor<3xi64>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x08000000010000000000000002000000000000000300000000000000"
    }
  }
#-}"#,
    r#""d.a"() : () -> () loc(fused<"m">["a", callsite("b" at "c":1:2), "n"("f":3:4 to 5:6)])
"d.b"() : () -> () loc(#l)
#l = loc(unknown)"#,
    r#"module {
  module {
    "d.z"() ({
      %x = "d.y"(%x) : (i32) -> i32
    }) : () -> ()
  }
}"#,
];

const TOKENS: &[&str] = &[
    "%",
    "%0",
    "%x#1",
    "^bb0",
    "^bb1:",
    "#map",
    "!alias",
    "@s",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    ",",
    ":",
    "::",
    "=",
    "->",
    "?",
    "*",
    "-",
    "\"",
    "\"d.op\"",
    "0x",
    "1.5e",
    "dense<",
    "tensor<",
    "x",
    "loc(",
    "{-#",
    "#-}",
    "module",
    "i32",
    "f32",
    "affine_map<(d0) -> (",
    "array<i64:",
    "\\",
    "\n",
    " ",
    "// c\n",
    "9999999999999999999999999999999999999999",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(3) {
        let len = v.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                v[i] ^= 1 << rng.below(8);
            }
            1 => v.truncate(rng.below(len + 1)),
            2 => {
                let i = rng.below(len + 1);
                let t = TOKENS[rng.below(TOKENS.len())];
                v.splice(i..i, t.bytes());
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let j = (i + 1 + rng.below(16)).min(len);
                v.drain(i..j);
            }
            4 if len > 0 => {
                let i = rng.below(len);
                let j = (i + 1 + rng.below(32)).min(len);
                let chunk: Vec<u8> = v[i..j].to_vec();
                let k = rng.below(len + 1);
                v.splice(k..k, chunk);
            }
            _ if len > 0 => {
                let i = rng.below(len);
                v[i] = b"(){}[]<>,:=%^#!@\"x0-"[rng.below(20)];
            }
            _ => {}
        }
    }
    v
}

#[test]
fn mutated_inputs_never_panic() {
    let iterations: usize = std::env::var("NART_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let seed: u64 = std::env::var("NART_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng(seed.max(1));
    let start = Instant::now();
    let mut accepted = 0usize;
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    for i in 0..iterations {
        // A fresh context now and then keeps memory bounded.
        if i % 5_000 == 0 {
            ctx = Context::new();
            ctx.allow_unregistered = true;
        }
        let seed = CORPUS[rng.below(CORPUS.len())];
        let bytes = mutate(&mut rng, seed.as_bytes());
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let r = catch_unwind(AssertUnwindSafe(|| {
            ctx.resources = Default::default();
            match parse_source(&mut ctx, "fuzz.mlir", &text) {
                Ok(m) => {
                    let out = print_op(&ctx, m, &PrintOptions::default());
                    let mut c2 = Context::new();
                    c2.allow_unregistered = true;
                    if let Err(e) = parse_source(&mut c2, "re.mlir", &out) {
                        panic!(
                            "printed output does not parse back: {:?}\n{out}",
                            e[0].message
                        );
                    }
                    true
                }
                Err(errs) => {
                    assert!(
                        !errs.is_empty(),
                        "a failed parse reports at least one error"
                    );
                    false
                }
            }
        }));
        match r {
            Ok(true) => accepted += 1,
            Ok(false) => {}
            Err(_) => panic!("parser panicked on input #{i}:\n{text:?}"),
        }
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!("parser fuzz: {iterations} executions ({accepted} accepted) in {secs:.2} s");
    assert!(iterations < 100_000 || accepted > 0);
}
