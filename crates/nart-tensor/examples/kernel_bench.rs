//! Times the convolution and pooling kernels on the layer shapes of ResNet-18 and MobileNetV2.
//!
//! Run with `cargo run --release -p nart-tensor --example kernel_bench [-- FILTER]`; each line is the
//! median (and minimum) of several runs of one kernel call on random data (batch 1).

use nart_tensor::conv::{conv, ConvAttrs};
use nart_tensor::pool::{max_pool, PoolAttrs};
use nart_tensor::Tensor;
use std::time::Instant;

fn rand(len: usize, seed: &mut u64) -> Vec<f32> {
    (0..len)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((*seed >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect()
}

/// Median and minimum of `runs` timed calls, in milliseconds.
fn time_ms(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    (t[runs / 2], t[0])
}

/// (name, c, m, group, h, k, stride, pad)
type ConvCase = (
    &'static str,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
);

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let mut seed = 1;
    let cases: &[ConvCase] = &[
        ("resnet conv1 7x7/2", 3, 64, 1, 224, 7, 2, 3),
        ("resnet 3x3 64@56", 64, 64, 1, 56, 3, 1, 1),
        ("resnet 3x3/2 128@28", 64, 128, 1, 56, 3, 2, 1),
        ("resnet 3x3 128@28", 128, 128, 1, 28, 3, 1, 1),
        ("resnet 3x3 256@14", 256, 256, 1, 14, 3, 1, 1),
        ("resnet 3x3 512@7", 512, 512, 1, 7, 3, 1, 1),
        ("resnet 1x1/2 128", 64, 128, 1, 56, 1, 2, 0),
        ("mbv2 dw 32@112", 32, 32, 32, 112, 3, 1, 1),
        ("mbv2 dw/2 96@112", 96, 96, 96, 112, 3, 2, 1),
        ("mbv2 dw 144@56", 144, 144, 144, 56, 3, 1, 1),
        ("mbv2 dw 192@28", 192, 192, 192, 28, 3, 1, 1),
        ("mbv2 dw 384@14", 384, 384, 384, 14, 3, 1, 1),
        ("mbv2 dw 960@7", 960, 960, 960, 7, 3, 1, 1),
        ("mbv2 pw 16->96@112", 16, 96, 1, 112, 1, 1, 0),
        ("mbv2 pw 144->24@56", 144, 24, 1, 56, 1, 1, 0),
        ("mbv2 pw 576->96@14", 576, 96, 1, 14, 1, 1, 0),
    ];
    for &(name, c, m, group, h, k, s, p) in cases {
        if !name.contains(&filter) {
            continue;
        }
        let x = Tensor::from_vec(vec![1, c, h, h], rand(c * h * h, &mut seed)).unwrap();
        let w = Tensor::from_vec(
            vec![m, c / group, k, k],
            rand(m * c / group * k * k, &mut seed),
        )
        .unwrap();
        let b = Tensor::vector(rand(m, &mut seed));
        let attrs = ConvAttrs {
            group,
            strides: vec![s, s],
            pads: vec![p; 4],
            ..Default::default()
        };
        let (ms, min) = time_ms(15, || {
            conv(&x, &w, Some(&b), &attrs).unwrap();
        });
        let oh = (h + 2 * p - k) / s + 1;
        let macs = (m * oh * oh * (c / group) * k * k) as f64;
        println!(
            "{name:24} {ms:8.3} ms (min {min:.3})  {:7.2} GMAC/s",
            macs / ms / 1e6
        );
    }
    if "maxpool".contains(&filter) || filter.is_empty() {
        let x = Tensor::from_vec(vec![1, 64, 112, 112], rand(64 * 112 * 112, &mut seed)).unwrap();
        let a = PoolAttrs {
            kernel_shape: vec![3, 3],
            strides: vec![2, 2],
            pads: vec![1; 4],
            ..Default::default()
        };
        let (ms, min) = time_ms(15, || {
            max_pool(&x, &a).unwrap();
        });
        println!("{:24} {ms:8.3} ms (min {min:.3})", "resnet maxpool 3x3/2");
    }
}
