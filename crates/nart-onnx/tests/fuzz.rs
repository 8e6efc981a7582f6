//! A fuzz-style test: seeded mutations (truncation, byte flips, insertions, splices) of the
//! test models, each imported and, when the import succeeds, exported; nothing may panic.
//!
//! The coverage-guided fuzz target is `fuzz/fuzz_targets/import.rs` (cargo-fuzz).

use std::path::PathBuf;

const SEEDS: &[&str] = &[
    "mlp.onnx",
    "cnn.onnx",
    "transformer_ops.onnx",
    "detection.onnx",
    "quant.onnx",
    "old_opset.onnx",
    "control_flow.onnx",
    "function.onnx",
    "typed_fields.onnx",
    "bad/cycle.onnx",
    "bad/unknown_ops.onnx",
];

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, base: &[u8], other: &[u8]) -> Vec<u8> {
    let mut b = base.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        match rng.below(6) {
            0 => b.truncate(rng.below(b.len() + 1)),
            1 => {
                for _ in 0..1 + rng.below(8) {
                    if !b.is_empty() {
                        let k = rng.below(b.len());
                        b[k] ^= 1 << rng.below(8);
                    }
                }
            }
            2 => {
                let k = rng.below(b.len() + 1);
                let n = 1 + rng.below(8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                b.splice(k..k, bytes);
            }
            3 => {
                if !b.is_empty() {
                    let k = rng.below(b.len());
                    b[k] = [0x00, 0xff, 0x7f, 0x80, 0x01][rng.below(5)];
                }
            }
            4 => {
                // Splice a chunk of another model in.
                if !other.is_empty() && !b.is_empty() {
                    let s = rng.below(other.len());
                    let e = (s + 1 + rng.below(64)).min(other.len());
                    let k = rng.below(b.len());
                    b.splice(k..k, other[s..e].iter().copied());
                }
            }
            _ => {
                if b.len() > 2 {
                    let s = rng.below(b.len());
                    let e = (s + 1 + rng.below(16)).min(b.len());
                    b.drain(s..e);
                }
            }
        }
    }
    b
}

#[test]
fn ten_thousand_mutated_models_import_without_panicking() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let seeds: Vec<Vec<u8>> = SEEDS
        .iter()
        .map(|s| std::fs::read(dir.join(s)).expect("seed model exists"))
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut failed) = (0usize, 0usize);
    for i in 0..10_000 {
        let base = &seeds[i % seeds.len()];
        let other = &seeds[rng.below(seeds.len())];
        let bytes = mutate(&mut rng, base, other);
        let mut ctx = nart_ir::Context::new();
        match nart_onnx::import_model(&mut ctx, &bytes, None) {
            Ok(m) => {
                ok += 1;
                let _ = nart_onnx::export_model(&ctx, m);
            }
            Err(errs) => {
                failed += 1;
                assert!(
                    !errs.is_empty(),
                    "a failed import reports at least one error"
                );
            }
        }
    }
    assert_eq!(ok + failed, 10_000);
    eprintln!("{ok} mutated models imported, {failed} were rejected with diagnostics");
}

/// Structural mutations of decoded models (op types swapped, inputs dropped, attribute values
/// and dims changed), which reach inference and the verifier rather than the protobuf decoder.
#[test]
fn structurally_mutated_models_import_without_panicking() {
    use nart_onnx_proto::{decode_model, encode_model};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let seeds: Vec<_> = SEEDS
        .iter()
        .map(|s| decode_model(&std::fs::read(dir.join(s)).unwrap()).unwrap())
        .collect();
    let names: Vec<&str> = nart_dialect_graph::SCHEMAS.iter().map(|s| s.name).collect();
    let mut rng = Rng(42);
    let values = [-3i64, -1, 0, 1, 2, 7, i64::MAX, i64::MIN, 1 << 40];
    let (mut ok, mut failed) = (0usize, 0usize);
    for i in 0..5_000 {
        let mut m = seeds[i % seeds.len()].clone();
        let Some(g) = m.graph.as_mut() else { continue };
        for _ in 0..1 + rng.below(3) {
            if g.node.is_empty() {
                break;
            }
            let k = rng.below(g.node.len());
            let node = &mut g.node[k];
            match rng.below(6) {
                0 => node.op_type = Some(names[rng.below(names.len())].to_string()),
                1 => {
                    if !node.input.is_empty() {
                        let j = rng.below(node.input.len());
                        node.input[j] = String::new();
                    }
                }
                2 => {
                    for a in node.attribute.iter_mut() {
                        if a.i.is_some() {
                            a.i = Some(values[rng.below(values.len())]);
                        }
                        for v in a.ints.iter_mut() {
                            *v = values[rng.below(values.len())];
                        }
                    }
                }
                3 => {
                    let n_init = g.initializer.len();
                    if let Some(t) = g.initializer.get_mut(rng.below(n_init)) {
                        if let Some(d) = t.dims.first_mut() {
                            *d = values[rng.below(values.len())];
                        }
                    }
                }
                4 => {
                    let j = rng.below(g.node.len());
                    let out = g.node[j].output.first().cloned().unwrap_or_default();
                    g.node[k].input.push(out);
                }
                _ => node.attribute.clear(),
            }
        }
        let bytes = encode_model(&m);
        let mut ctx = nart_ir::Context::new();
        match nart_onnx::import_model(&mut ctx, &bytes, None) {
            Ok(module) => {
                ok += 1;
                let _ = nart_onnx::export_model(&ctx, module);
            }
            Err(_) => failed += 1,
        }
    }
    eprintln!("{ok} structurally mutated models imported, {failed} rejected");
}
