//! Normalizations: `Softmax` along any axis, inference `BatchNormalization` with constant
//! parameters (folded at compile time) and with parameters given at run time.

use nart_target_cpu::testing::{cases, f32_literal, seed, ty, Batch, Gen, Tol};
use nart_tensor::Tensor;

#[test]
fn softmax_along_any_axis() {
    let seed = seed("softmax_along_any_axis");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("softmax_along_any_axis", seed);
    for _ in 0..cases(16) {
        let rank = g.size(1, 4);
        let mut shape = g.shape(rank, 1, 6);
        if let Some(last) = shape.last_mut() {
            *last = crate::dim(&mut g, 6);
        }
        let axis = g.int(-(rank as i64), rank as i64 - 1);
        // The default axis (-1) when the property is left off.
        let explicit = axis != -1 || g.chance(1, 2);
        let k = batch.case(format!(
            "Softmax {shape:?} axis={axis}{}",
            if explicit { "" } else { " (default)" }
        ));
        let x = k.arg(g.tensor_f32(&shape, -5.0, 5.0));
        let props = if explicit {
            format!("axis = {axis} : i64")
        } else {
            String::new()
        };
        let t = ty(&shape, "f32");
        let y = k.op1("graph.Softmax", &[x], &props, &t);
        let len = shape[axis.rem_euclid(rank as i64) as usize];
        k.output(y, Tol::Float { terms: len + 2 });
    }
    batch.check();
}

#[test]
fn batch_normalization() {
    let seed = seed("batch_normalization");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("batch_normalization", seed);
    for _ in 0..cases(16) {
        let rank = g.size(2, 4);
        let shape = g.shape(rank, 1, 5);
        let c = shape[1];
        let eps = if g.chance(1, 2) {
            None
        } else {
            Some(g.f32(1e-5, 0.1))
        };
        // All parameters constant (the lowering folds them), or some given at run time.
        let constant = g.chance(1, 2);
        let extra = if g.chance(1, 2) { 0 } else { 2 };
        let k = batch.case(format!(
            "BatchNormalization {shape:?} epsilon={eps:?} params={} results={}",
            if constant { "constant" } else { "mixed" },
            1 + extra
        ));
        let x = k.arg(g.tensor_f32(&shape, -2.0, 2.0));
        let mut params = Vec::new();
        for (lo, hi) in [(0.5, 1.5), (-1.0, 1.0), (-1.0, 1.0), (0.2, 2.0)] {
            let t: Tensor = g.tensor_f32(&[c], lo, hi);
            params.push(if constant || g.chance(1, 2) {
                k.constant(&t)
            } else {
                k.arg(t)
            });
        }
        let props = eps
            .map(|e| format!("epsilon = {} : f32", f32_literal(e)))
            .unwrap_or_default();
        let mut results = vec![ty(&shape, "f32")];
        results.extend((0..extra).map(|_| "none".to_owned()));
        let results: Vec<&str> = results.iter().map(String::as_str).collect();
        let operands = [vec![x], params].concat();
        let y = k.op("graph.BatchNormalization", &operands, &props, &results);
        k.output(y[0], Tol::Float { terms: 4 });
    }
    batch.check();
}
