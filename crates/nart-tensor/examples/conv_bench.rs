//! Measures the f32 convolution kernel: a 3x3 conv 64->64 on 56x56, and every conv of a ResNet-18
//! forward through both paths (im2col and `matrixmultiply`, and the packed kernels), per layer.
//!
//! Run with `cargo run --release -p nart-tensor --example conv_bench`.
//! `MATMUL_NUM_THREADS` sets the GEMM threads (default: physical cores, at most 4).

use nart_tensor::conv::{conv, ConvAttrs};
use nart_tensor::Tensor;
use std::time::Instant;

fn filled(shape: &[usize], seed: u32) -> Tensor {
    let n: usize = shape.iter().product();
    let mut s = seed.wrapping_mul(2_654_435_761).max(1);
    let v = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 1000) as f32 / 1000.0 - 0.5
        })
        .collect();
    Tensor::from_vec(shape.to_vec(), v).expect("shape and data agree")
}

/// One conv layer: (in channels, out channels, kernel, stride, input size).
type Layer = (usize, usize, usize, usize, usize);

fn run_layer(l: Layer, x: &Tensor, w: &Tensor) -> Tensor {
    let (_, _, k, s, _) = l;
    let attrs = ConvAttrs {
        strides: vec![s, s],
        pads: vec![k / 2; 4],
        ..Default::default()
    };
    conv(x, w, None, &attrs).expect("valid conv")
}

fn flops(l: Layer) -> f64 {
    let (ci, co, k, s, h) = l;
    let o = (h + 2 * (k / 2) - k) / s + 1;
    2.0 * (ci * co * k * k * o * o) as f64
}

fn main() {
    let single: Layer = (64, 64, 3, 1, 56);
    let x = filled(&[1, 64, 56, 56], 1);
    let w = filled(&[64, 64, 3, 3], 2);
    run_layer(single, &x, &w);
    let reps = 20;
    let t = Instant::now();
    for _ in 0..reps {
        run_layer(single, &x, &w);
    }
    let dt = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "conv 3x3 64->64 56x56: {:.3} ms, {:.1} GFLOP/s",
        dt * 1e3,
        flops(single) / dt / 1e9
    );

    let mut layers: Vec<Layer> = vec![(3, 64, 7, 2, 224)];
    layers.extend([(64, 64, 3, 1, 56); 4]);
    layers.extend([
        (64, 128, 3, 2, 56),
        (128, 128, 3, 1, 28),
        (64, 128, 1, 2, 56),
    ]);
    layers.extend([(128, 128, 3, 1, 28); 2]);
    layers.extend([
        (128, 256, 3, 2, 28),
        (256, 256, 3, 1, 14),
        (128, 256, 1, 2, 28),
    ]);
    layers.extend([(256, 256, 3, 1, 14); 2]);
    layers.extend([
        (256, 512, 3, 2, 14),
        (512, 512, 3, 1, 7),
        (256, 512, 1, 2, 14),
    ]);
    layers.extend([(512, 512, 3, 1, 7); 2]);
    let inputs: Vec<(Tensor, Tensor)> = layers
        .iter()
        .enumerate()
        .map(|(i, &(ci, co, k, _, h))| {
            (
                filled(&[1, ci, h, h], i as u32 + 3),
                filled(&[co, ci, k, k], i as u32 + 50),
            )
        })
        .collect();
    let total: f64 = layers.iter().map(|&l| flops(l)).sum();
    // Both paths in one run: im2col + matrixmultiply, then the packed kernels (the default),
    // best of 5 per layer.
    let mut times = [
        vec![f64::INFINITY; layers.len()],
        vec![f64::INFINITY; layers.len()],
    ];
    for (path, on) in [false, true].into_iter().enumerate() {
        nart_tensor::conv::use_packed_kernels(on);
        for _ in 0..5 {
            for (i, (l, (x, w))) in layers.iter().zip(&inputs).enumerate() {
                let t = Instant::now();
                run_layer(*l, x, w);
                times[path][i] = times[path][i].min(t.elapsed().as_secs_f64());
            }
        }
    }
    println!(
        "layer (in, out, kernel, stride, size) | im2col+matrixmultiply ms | packed ms | ratio"
    );
    for (i, l) in layers.iter().enumerate() {
        let (a, b) = (times[0][i], times[1][i]);
        println!("{l:?} | {:.3} | {:.3} | {:.2}x", a * 1e3, b * 1e3, a / b);
    }
    for (path, name) in ["im2col+matrixmultiply", "packed"].iter().enumerate() {
        let sum: f64 = times[path].iter().sum();
        println!(
            "ResNet-18 convs, {name} ({} layers, {:.2} GFLOP): {:.1} ms, {:.1} GFLOP/s",
            layers.len(),
            total / 1e9,
            sum * 1e3,
            total / sum / 1e9
        );
    }
}
