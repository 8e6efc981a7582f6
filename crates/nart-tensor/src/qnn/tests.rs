//! Hand-computed cases for every kernel (zero points, per-axis parameters, saturation, ties,
//! groups and depthwise), and seeded random cases against a slow float-domain formula.

use super::*;

fn t(dtype: DType, shape: &[usize], v: &[i64]) -> Tensor {
    Tensor::from_i128(
        dtype,
        shape.to_vec(),
        v.iter().map(|&x| i128::from(x)).collect(),
    )
    .expect("test data fits its shape")
}

fn ints(t: &Tensor) -> Vec<i64> {
    t.to_i128_vec()
        .unwrap()
        .into_iter()
        .map(|v| v as i64)
        .collect()
}

fn pt(dtype: DType, s: f64, z: i64) -> QParams {
    QParams::per_tensor(dtype, s, z)
}

fn out(q: &QParams, rounding: Rounding) -> Output<'_> {
    Output {
        q,
        act: Activation::None,
        rounding,
    }
}

const MODES: [Rounding; 3] = [Rounding::HalfEven, Rounding::HalfAway, Rounding::HalfUp];

#[test]
fn fixed_multipliers_as_gemmlowp_computes_them() {
    let fm = |r| FixedMultiplier::new("t", r).unwrap();
    assert_eq!(
        fm(0.5),
        FixedMultiplier {
            m: 1 << 30,
            shift: 0
        }
    );
    assert_eq!(
        fm(0.75),
        FixedMultiplier {
            m: 1_610_612_736,
            shift: 0
        }
    );
    assert_eq!(
        fm(1.0),
        FixedMultiplier {
            m: 1 << 30,
            shift: 1
        }
    );
    // 1/3 = 2/3 · 2^-1, and round(2/3 · 2^31) = 1431655765.
    assert_eq!(
        fm(1.0 / 3.0),
        FixedMultiplier {
            m: 1_431_655_765,
            shift: -1
        }
    );
    // A fraction that rounds up to 2^31 becomes 2^30 with the next exponent.
    assert_eq!(
        fm(1.0 - 2f64.powi(-40)),
        FixedMultiplier {
            m: 1 << 30,
            shift: 1
        }
    );
    assert_eq!(fm(0.0), FixedMultiplier { m: 0, shift: 0 });
    assert_eq!(fm(3.0e-320).shift, -1061);
    assert!(FixedMultiplier::new("t", -1.0).is_err());
    assert!(FixedMultiplier::new("t", f64::NAN).is_err());
    assert_eq!(fm(0.75).real(), 0.75);
    assert!((fm(0.1).real() - 0.1).abs() < 0.1 * 2f64.powi(-31));
}

#[test]
fn rounding_shift_ties() {
    // (p, k) → [half_even, half_away, half_up] of p / 2^k.
    for (p, k, want) in [
        (3, 1, [2, 2, 2]),
        (-3, 1, [-2, -2, -1]),
        (5, 1, [2, 3, 3]),
        (-5, 1, [-2, -3, -2]),
        (7, 2, [2, 2, 2]),
        (-7, 2, [-2, -2, -2]),
        (6, 2, [2, 2, 2]),
        (-6, 2, [-2, -2, -1]),
        (-2, 2, [0, -1, 0]),
        (3, -2, [12, 12, 12]),
        (3, 0, [3, 3, 3]),
    ] {
        for (mode, w) in MODES.iter().zip(want) {
            assert_eq!(rounding_shift(p, k, *mode), w, "{p} / 2^{k} {mode:?}");
        }
    }
    for (x, want) in [
        (2.5, [2.0, 3.0, 3.0]),
        (-2.5, [-2.0, -3.0, -2.0]),
        (0.4, [0.0; 3]),
    ] {
        for (mode, w) in MODES.iter().zip(want) {
            assert_eq!(round_f64(x, *mode), w, "{x} {mode:?}");
        }
    }
}

#[test]
fn half_up_is_tflite_single_rounding() {
    // TFLite's MultiplyByQuantizedMultiplier with TFLITE_SINGLE_ROUNDING:
    // (x · m + 2^(k − 1)) >> k with k = 31 − shift.
    let mut rng = Rng(7, false);
    for _ in 0..2000 {
        let real = 2f64.powf(rng.range(-20, 4) as f64) * (0.5 + rng.unit() * 0.5);
        let fm = FixedMultiplier::new("t", real).unwrap();
        let x = rng.range(-(1 << 30), 1 << 30) as i128;
        let k = fm.right_shift();
        let tflite = (x * i128::from(fm.m) + (1i128 << (k - 1))) >> k;
        assert_eq!(fm.apply(x, Rounding::HalfUp), tflite, "{x} · {real}");
    }
}

#[test]
fn requantize_zero_points_ties_and_saturation() {
    let x = t(DType::I32, &[7], &[10, 6, -6, 2, 1000, -1000, 0]);
    let xq = pt(DType::I32, 0.125, 0);
    let yq = pt(DType::I8, 0.5, -3);
    // M = 0.25: 2.5, 1.5, -1.5, 0.5, 250, -250, 0, plus the zero point -3.
    for (mode, want) in MODES.iter().zip([
        [-1, -1, -5, -3, 127, -128, -3],
        [0, -1, -5, -2, 127, -128, -3],
        [0, -1, -4, -2, 127, -128, -3],
    ]) {
        let y = requantize(&x, &xq, &yq, *mode).unwrap();
        assert_eq!(y.dtype(), DType::I8);
        assert_eq!(ints(&y), want, "{mode:?}");
    }
    // A narrowed storage range saturates at its bounds.
    let narrow = yq.clone().with_range(-127, 127);
    let y = requantize(&x, &xq, &narrow, Rounding::HalfEven).unwrap();
    assert_eq!(ints(&y)[5], -127);
    // Per-axis input (axis 1, scales [0.5, 0.25], zero points [1, -1]) to per-tensor u8.
    let x = t(DType::I8, &[2, 2], &[3, 3, 1, -3]);
    let xq = QParams::per_axis(DType::I8, 1, vec![0.5, 0.25], vec![1, -1]);
    let yq = pt(DType::U8, 0.5, 10);
    let y = requantize(&x, &xq, &yq, Rounding::HalfEven).unwrap();
    assert_eq!(ints(&y), [12, 12, 10, 9]);
    // Per-tensor input to a per-axis result.
    let x = t(DType::U8, &[2, 2], &[12, 12, 10, 9]);
    let back = requantize(&x, &yq, &xq, Rounding::HalfEven).unwrap();
    assert_eq!(ints(&back), [3, 3, 1, -3]);
}

/// x: reals [[1, 2, 3], [4, 5, 6], [7, 8, 9]] stored with zero point 2 (u8); w: reals
/// [[1, 0], [0, 1]] stored with zero point 1 (i8).
fn conv_case() -> (Tensor, QParams, Tensor, QParams) {
    let x = t(DType::U8, &[1, 1, 3, 3], &[3, 4, 5, 6, 7, 8, 9, 10, 11]);
    let w = t(DType::I8, &[1, 1, 2, 2], &[2, 1, 1, 2]);
    (x, pt(DType::U8, 1.0, 2), w, pt(DType::I8, 1.0, 1))
}

#[test]
fn conv_zero_points_padding_and_ties() {
    let (x, xq, w, wq) = conv_case();
    let raw = pt(DType::I32, 1.0, 0);
    let y = conv(
        &x,
        &xq,
        &w,
        &wq,
        None,
        &ConvAttrs::default(),
        out(&raw, Rounding::HalfEven),
    )
    .unwrap();
    assert_eq!(y.shape(), &[1, 1, 2, 2]);
    assert_eq!(ints(&y), [6, 8, 12, 14]);
    // Padded positions hold the input zero point, that is real zeros.
    let pads = ConvAttrs {
        pads: vec![1, 1, 1, 1],
        ..Default::default()
    };
    let y = conv(&x, &xq, &w, &wq, None, &pads, out(&raw, Rounding::HalfEven)).unwrap();
    let real = [1, 2, 3, 0, 4, 6, 8, 3, 7, 12, 14, 6, 0, 7, 8, 9];
    assert_eq!(ints(&y), real);
    // Into u8 with scale 2 and zero point 5: halves round as the mode says.
    let yq = pt(DType::U8, 2.0, 5);
    let even = conv(&x, &xq, &w, &wq, None, &pads, out(&yq, Rounding::HalfEven)).unwrap();
    assert_eq!(
        ints(&even),
        [5, 6, 7, 5, 7, 8, 9, 7, 9, 11, 12, 8, 5, 9, 9, 9]
    );
    let away = conv(&x, &xq, &w, &wq, None, &pads, out(&yq, Rounding::HalfAway)).unwrap();
    assert_eq!(
        ints(&away),
        [6, 6, 7, 5, 7, 8, 9, 7, 9, 11, 12, 8, 5, 9, 9, 10]
    );
    // A bias of 4 (scale Sx·Sw = 1), then relu6 on an i8 result of scale 1.
    let bias = t(DType::I32, &[1], &[4]);
    let y = conv(
        &x,
        &xq,
        &w,
        &wq,
        Some(&bias),
        &pads,
        out(&raw, Rounding::HalfEven),
    )
    .unwrap();
    assert_eq!(ints(&y), real.map(|r| r + 4));
    let yq = pt(DType::I8, 1.0, 0);
    let relu6 = Output {
        act: Activation::Relu6,
        ..out(&yq, Rounding::HalfEven)
    };
    let y = conv(&x, &xq, &w, &wq, None, &pads, relu6).unwrap();
    assert_eq!(ints(&y), real.map(|r| r.min(6)));
    // Saturation: scale 0.01 makes every nonzero result overflow u8.
    let yq = pt(DType::U8, 0.01, 0);
    let y = conv(
        &x,
        &xq,
        &w,
        &wq,
        None,
        &ConvAttrs::default(),
        out(&yq, Rounding::HalfEven),
    )
    .unwrap();
    assert_eq!(ints(&y), [255; 4]);
    // Strides and dilations: the 2x2 window dilated by 2 covers the corners of the input.
    let dilated = ConvAttrs {
        dilations: vec![2, 2],
        ..Default::default()
    };
    let y = conv(
        &x,
        &xq,
        &w,
        &wq,
        None,
        &dilated,
        out(&raw, Rounding::HalfEven),
    )
    .unwrap();
    assert_eq!(ints(&y), [1 + 9]);
    let strided = ConvAttrs {
        strides: vec![2, 2],
        pads: vec![1, 1, 1, 1],
        ..Default::default()
    };
    let y = conv(
        &x,
        &xq,
        &w,
        &wq,
        None,
        &strided,
        out(&raw, Rounding::HalfEven),
    )
    .unwrap();
    assert_eq!(ints(&y), [1, 3, 7, 14]);
}

#[test]
fn conv_channels_groups_and_depthwise() {
    // Two input channels, zero points 10 (u8) and -1 (i8): reals [1, 2 | 3, 4] and [1, 2].
    let x = t(DType::U8, &[1, 2, 1, 2], &[11, 12, 13, 14]);
    let w = t(DType::I8, &[1, 2, 1, 1], &[0, 1]);
    let raw = pt(DType::I16, 1.0, 0);
    let y = conv(
        &x,
        &pt(DType::U8, 1.0, 10),
        &w,
        &pt(DType::I8, 1.0, -1),
        None,
        &ConvAttrs::default(),
        out(&raw, Rounding::HalfEven),
    )
    .unwrap();
    assert_eq!(ints(&y), [1 + 3 * 2, 2 + 4 * 2]);
    // Two groups of two output channels: channels 0 and 1 see input 0, channels 2 and 3 input 1.
    let x = t(DType::I8, &[1, 2, 1, 1], &[2, 3]);
    let w = t(DType::I8, &[4, 1, 1, 1], &[1, 2, 3, 4]);
    let groups = ConvAttrs {
        group: 2,
        ..Default::default()
    };
    let one = pt(DType::I8, 1.0, 0);
    let y = conv(
        &x,
        &one,
        &w,
        &one,
        None,
        &groups,
        out(&raw, Rounding::HalfEven),
    )
    .unwrap();
    assert_eq!(ints(&y), [2, 4, 9, 12]);
    // Depthwise with per-channel weights (scales [0.5, 0.25], zero points [0, 2]): reals 2 and 1.
    let x = t(DType::I8, &[1, 2, 2, 2], &[1, 2, 3, 4, -1, -2, -3, -4]);
    let xq = pt(DType::I8, 0.5, 0);
    let w = t(DType::I8, &[2, 1, 1, 1], &[4, 6]);
    let wq = QParams::per_axis(DType::I8, 0, vec![0.5, 0.25], vec![0, 2]);
    let yq = pt(DType::I8, 0.25, 0);
    let y = conv(
        &x,
        &xq,
        &w,
        &wq,
        None,
        &groups,
        out(&yq, Rounding::HalfEven),
    )
    .unwrap();
    assert_eq!(ints(&y), [4, 8, 12, 16, -2, -4, -6, -8]);
    // Per-channel bias: scales Sx·Sw = [0.25, 0.125]; stored 4 and -8 are reals 1 and -1.
    let bias = t(DType::I32, &[2], &[4, -8]);
    let y = conv(
        &x,
        &xq,
        &w,
        &wq,
        Some(&bias),
        &groups,
        out(&yq, Rounding::HalfEven),
    )
    .unwrap();
    assert_eq!(ints(&y), [8, 12, 16, 20, -6, -8, -10, -12]);
    // Channel counts that groups do not split are an error, not a panic.
    let bad = ConvAttrs {
        group: 3,
        ..Default::default()
    };
    assert!(conv(&x, &xq, &w, &wq, None, &bad, out(&yq, Rounding::HalfEven)).is_err());
}

#[test]
fn matmul_zero_points_per_column_and_bias() {
    // a: reals [[1, 2, 3], [-1, 0, -2]] (u8, zero point 128).
    let a = t(DType::U8, &[2, 3], &[129, 130, 131, 127, 128, 126]);
    let aq = pt(DType::U8, 1.0, 128);
    // b: per column, scales [1, 0.5] and zero points [0, 2]: reals [[1, 1], [0, 0], [2, -1]].
    let b = t(DType::I8, &[3, 2], &[1, 4, 0, 2, 2, 0]);
    let bq = QParams::per_axis(DType::I8, 1, vec![1.0, 0.5], vec![0, 2]);
    // Product: [[7, -2], [-5, 1]]; into scale 0.5, zero point 1.
    let yq = pt(DType::I8, 0.5, 1);
    let y = matmul(&a, &aq, &b, &bq, None, out(&yq, Rounding::HalfEven)).unwrap();
    assert_eq!(ints(&y), [15, -3, -9, 3]);
    // Bias per column with scales [1, 0.5]: stored [2, -2] are reals [2, -1].
    let c = t(DType::I32, &[2], &[2, -2]);
    let y = matmul(&a, &aq, &b, &bq, Some(&c), out(&yq, Rounding::HalfEven)).unwrap();
    assert_eq!(ints(&y), [19, -5, -5, 1]);
    // Batches broadcast: a is 2 × 1 × 3, b one matrix.
    let a3 = a.reshaped(vec![2, 1, 3]).unwrap();
    let y = matmul(&a3, &aq, &b, &bq, None, out(&yq, Rounding::HalfEven)).unwrap();
    assert_eq!(y.shape(), &[2, 1, 2]);
    assert_eq!(ints(&y), [15, -3, -9, 3]);
    // Inner dimensions must agree.
    assert!(matmul(&b, &bq, &b, &bq, None, out(&yq, Rounding::HalfEven)).is_err());
}

#[test]
fn add_and_mul_ties_broadcasting_and_activations() {
    // a reals -0.5, 0.5, 2.5 plus b real 0: results on the ties.
    let a = t(DType::I8, &[3], &[-1, 1, 5]);
    let half = pt(DType::I8, 0.5, 0);
    let b = t(DType::I8, &[1], &[0]);
    let yq = pt(DType::I8, 1.0, 0);
    for (mode, want) in MODES.iter().zip([[0, 0, 2], [-1, 1, 3], [0, 1, 3]]) {
        assert_eq!(
            ints(&add(&a, &half, &b, &half, out(&yq, *mode)).unwrap()),
            want
        );
    }
    // Different scales and zero points, broadcast over rows: [0.5, 1, 1.5] + 0.5.
    let a = t(DType::I8, &[2, 3], &[1, 2, 3, -1, -2, -3]);
    let b = t(DType::I8, &[1], &[3]);
    let bq = pt(DType::I8, 0.25, 1);
    let y = add(&a, &half, &b, &bq, out(&half, Rounding::HalfEven)).unwrap();
    assert_eq!(y.shape(), &[2, 3]);
    assert_eq!(ints(&y), [2, 3, 4, 0, -1, -2]);
    // relu on the sum.
    let relu = Output {
        act: Activation::Relu,
        ..out(&half, Rounding::HalfEven)
    };
    assert_eq!(
        ints(&add(&a, &half, &b, &bq, relu).unwrap()),
        [2, 3, 4, 0, 0, 0]
    );
    // Products 1.5 and -1.5 from u8 operands with zero point 128.
    let a = t(DType::U8, &[2], &[130, 126]);
    let b = t(DType::U8, &[2], &[131, 131]);
    let q = pt(DType::U8, 0.5, 128);
    for (mode, want) in MODES.iter().zip([[2, -2], [2, -2], [2, -1]]) {
        assert_eq!(ints(&mul(&a, &q, &b, &q, out(&yq, *mode)).unwrap()), want);
    }
    let clip = Output {
        act: Activation::Clip {
            min: -1.0,
            max: 1.0,
        },
        ..out(&yq, Rounding::HalfEven)
    };
    assert_eq!(ints(&mul(&a, &q, &b, &q, clip).unwrap()), [1, -1]);
    // Saturation of a product into i8.
    let big = t(DType::I8, &[1], &[127]);
    assert_eq!(
        ints(&mul(&big, &yq, &big, &yq, out(&yq, Rounding::HalfEven)).unwrap()),
        [127]
    );
}

#[test]
fn concat_requantizes_what_differs() {
    let a = t(DType::I8, &[1, 2], &[2, 4]);
    let aq = pt(DType::I8, 0.5, 0);
    let b = t(DType::I8, &[1, 1], &[3]);
    let yq = pt(DType::I8, 1.0, 1);
    let y = concat(&[(&a, &aq), (&b, &yq)], 1, &yq, Rounding::HalfEven).unwrap();
    assert_eq!(y.shape(), &[1, 3]);
    assert_eq!(ints(&y), [2, 3, 3]);
    let y = concat(&[(&b, &yq), (&b, &yq)], 0, &yq, Rounding::HalfEven).unwrap();
    assert_eq!((y.shape(), ints(&y)), (&[2usize, 1][..], vec![3, 3]));
    assert!(concat(&[(&a, &aq), (&b, &yq)], 0, &yq, Rounding::HalfEven).is_err());
}

#[test]
fn pooling() {
    let one = pt(DType::I8, 1.0, 0);
    // The average 2.75 rounds to 3; the tie 2.5 as the mode says.
    let x = t(DType::I8, &[1, 1, 2, 2], &[1, 2, 3, 5]);
    let k2 = PoolAttrs {
        kernel: vec![2, 2],
        ..Default::default()
    };
    assert_eq!(
        ints(&avg_pool(&x, &one, &k2, &one, Rounding::HalfEven).unwrap()),
        [3]
    );
    let x = t(DType::I8, &[1, 1, 2, 2], &[1, 2, 3, 4]);
    for (mode, want) in MODES.iter().zip([2, 3, 3]) {
        assert_eq!(ints(&avg_pool(&x, &one, &k2, &one, *mode).unwrap()), [want]);
    }
    // Padding: zero point 2 stands for real zero, so padded positions add nothing; they count in
    // the divisor only with count_include_pad.
    let x = t(DType::U8, &[1, 1, 2, 2], &[6, 10, 14, 18]);
    let xq = pt(DType::U8, 1.0, 2);
    let padded = PoolAttrs {
        kernel: vec![2, 2],
        pads: vec![1, 1, 1, 1],
        ..Default::default()
    };
    let y = avg_pool(&x, &xq, &padded, &one, Rounding::HalfEven).unwrap();
    assert_eq!(y.shape(), &[1, 1, 3, 3]);
    assert_eq!(ints(&y), [4, 6, 8, 8, 10, 12, 12, 14, 16]);
    let incl = PoolAttrs {
        count_include_pad: true,
        ..padded.clone()
    };
    let y = avg_pool(&x, &xq, &incl, &one, Rounding::HalfEven).unwrap();
    assert_eq!(ints(&y), [1, 3, 2, 4, 10, 6, 3, 7, 4]);
    // Max pooling ignores padded positions, even below every value.
    let x = t(DType::I8, &[1, 1, 2, 2], &[-5, -3, -4, -7]);
    let y = max_pool(&x, &one, &padded).unwrap();
    assert_eq!(ints(&y), [-5, -3, -3, -4, -3, -3, -4, -4, -7]);
    let strided = PoolAttrs {
        kernel: vec![1, 2],
        strides: vec![1, 2],
        ..Default::default()
    };
    assert_eq!(ints(&max_pool(&x, &one, &strided).unwrap()), [-3, -4]);
}

#[test]
fn lookup_and_casts() {
    // A u2 table and an i4 table indexed from -8.
    let x = t(DType::U2, &[4], &[0, 1, 2, 3]);
    assert_eq!(
        ints(&lut(&x, &[1, 0, 1, 4], 0, DType::U8).unwrap()),
        [1, 0, 1, 4]
    );
    let x = t(DType::I4, &[3], &[-8, 0, 7]);
    let table: Vec<i64> = (0..16).map(|i| 15 - i).collect();
    let y = lut(&x, &table, -8, DType::U4).unwrap();
    assert_eq!((y.dtype(), ints(&y)), (DType::U4, vec![15, 7, 0]));
    assert!(lut(&x, &[0, 1], -8, DType::U4).is_err());
    // qcast rounds ties to even and saturates; dcast inverts it; scast keeps the bits.
    let xf = Tensor::vector(vec![0.25f32, 0.75, -0.25, 100.0, f32::NAN]);
    let q = pt(DType::I8, 0.5, 3);
    let y = quantize(&xf, &q).unwrap();
    assert_eq!(ints(&y), [3, 5, 3, 127, 3]);
    let back = dequantize(&y, &q, DType::F32).unwrap();
    assert_eq!(back.as_f32().unwrap(), &[0.0, 1.0, 0.0, 62.0, 0.0]);
    // Per-axis and sub-byte: u4 along axis 0.
    let xf = Tensor::from_vec(vec![2, 2], vec![1.0f32, 2.0, 1.0, 2.0]).unwrap();
    let q4 = QParams::per_axis(DType::U4, 0, vec![1.0, 0.5], vec![8, 0]);
    let y = quantize(&xf, &q4).unwrap();
    assert_eq!((y.dtype(), ints(&y)), (DType::U4, vec![9, 10, 2, 4]));
    assert_eq!(
        dequantize(&y, &q4, DType::F32).unwrap().as_f32().unwrap(),
        &[1.0, 2.0, 1.0, 2.0]
    );
    // Per block: a 2x4 tensor cut into 1x2 blocks (a 2x2 scale tensor), u4 storage.
    let xf = Tensor::from_vec(
        vec![2, 4],
        vec![1.0f32, 2.0, 1.0, 2.0, 3.0, -3.0, 0.5, 0.25],
    )
    .unwrap();
    let qb = QParams::per_block(
        DType::U4,
        vec![2, 2],
        vec![1.0, 0.5, 1.0, 0.25],
        vec![8, 0, 8, 4],
    );
    let y = quantize(&xf, &qb).unwrap();
    assert_eq!(
        (y.dtype(), ints(&y)),
        (DType::U4, vec![9, 10, 2, 4, 11, 5, 6, 5])
    );
    assert_eq!(
        dequantize(&y, &qb, DType::F32).unwrap().as_f32().unwrap(),
        &[1.0, 2.0, 1.0, 2.0, 3.0, -3.0, 0.5, 0.25]
    );
    // Blocks that do not cut the tensor evenly, and a compute kernel given blocks, are errors.
    let odd = Tensor::from_vec(vec![2, 3], vec![0.0f32; 6]).unwrap();
    assert!(quantize(&odd, &qb).is_err());
    assert!(requantize(&y, &qb, &pt(DType::U8, 1.0, 0), Rounding::HalfEven).is_err());
    let u = t(DType::U8, &[2], &[200, 5]);
    let s = storage_cast(&u, DType::I8).unwrap();
    assert_eq!(ints(&s), [-56, 5]);
    assert_eq!(ints(&storage_cast(&s, DType::U8).unwrap()), [200, 5]);
}

// ----- against a slow float-domain formula -----

/// A small deterministic generator (xorshift64*), drawing scales at random or, with `decimal`,
/// from the round decimal numbers quantizers often pick (where exact ties are common).
struct Rng(u64, bool);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn scale(&mut self) -> f64 {
        const DECIMAL: [f64; 8] = [0.1, 0.05, 0.02, 0.01, 0.2, 0.004, 0.025, 0.0125];
        if self.1 {
            DECIMAL[self.range(0, 7) as usize]
        } else {
            // Scales in [2^-10, 2^-2), not round numbers.
            2f64.powf(-10.0 + 8.0 * self.unit())
        }
    }
    fn fill(&mut self, dtype: DType, shape: &[usize]) -> Tensor {
        let (lo, hi) = full_range(dtype);
        let v: Vec<i64> = (0..shape.iter().product::<usize>())
            .map(|_| self.range(lo, hi))
            .collect();
        t(dtype, shape, &v)
    }
}

/// The float-domain result of a real value, `clamp(Z + round(r / S))`, and whether `r / S`
/// lies within `1e-6` of a tie (where the float formula's own rounding errors, or the
/// fixed-point multiplier's `2^-31`, decide which way it goes).
#[derive(Clone, Copy)]
struct Want {
    q: i64,
    near_tie: bool,
}

fn quantize_real(r: f64, q: &QParams, act: Activation, mode: Rounding) -> Want {
    let (lo, hi) = match act {
        Activation::None => (f64::NEG_INFINITY, f64::INFINITY),
        Activation::Relu => (0.0, f64::INFINITY),
        Activation::Relu6 => (0.0, 6.0),
        Activation::Clip { min, max } => (min, max),
    };
    let v = r.clamp(lo, hi) / q.scales[0];
    let near_tie = ((v - v.floor()) - 0.5).abs() <= 1e-6;
    let v = round_f64(v, mode) + q.zero_points[0] as f64;
    Want {
        q: v.clamp(q.min as f64, q.max as f64) as i64,
        near_tie,
    }
}

/// Counts of elements one step from the float-domain result (near a tie, or not) and further.
#[derive(Default, Debug)]
struct Diff {
    total: usize,
    one_at_tie: usize,
    one_elsewhere: usize,
    more: usize,
}

impl Diff {
    fn add(&mut self, got: &[i64], want: &[Want]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            self.total += 1;
            match ((g - w.q).abs(), w.near_tie) {
                (0, _) => {}
                (1, true) => self.one_at_tie += 1,
                (1, false) => self.one_elsewhere += 1,
                _ => self.more += 1,
            }
        }
    }
    fn check(&self, what: &str) {
        println!(
            "{what}: {} elements, {} one step from the float-domain result (all within 1e-6 of a \
             tie: {}), {} further",
            self.total,
            self.one_at_tie + self.one_elsewhere,
            self.one_elsewhere == 0,
            self.more
        );
        assert_eq!((self.more, self.one_elsewhere), (0, 0), "{what}: {self:?}");
        assert!(self.one_at_tie * 50 <= self.total, "{what}: {self:?}");
    }
}

fn dq(v: i64, q: &QParams, c: usize) -> f64 {
    q.scale(c) * (v - q.zero_point(c)) as f64
}

#[test]
fn random_convolutions_match_the_float_formula() {
    for decimal in [false, true] {
        let mut rng = Rng(0x5eed, decimal);
        let what = if decimal {
            "qnn.conv (decimal scales)"
        } else {
            "qnn.conv"
        };
        random_convolutions(&mut rng).check(what);
    }
}

fn random_convolutions(rng: &mut Rng) -> Diff {
    let mut diff = Diff::default();
    for case in 0..200 {
        let group = [1, 2, 3][case % 3];
        let depthwise = case % 5 == 0;
        let cg = if depthwise {
            1
        } else {
            rng.range(1, 3) as usize
        };
        let c = cg * group;
        let m = if depthwise {
            group * rng.range(1, 2) as usize
        } else {
            group * rng.range(1, 3) as usize
        };
        let (h, wd) = (rng.range(3, 7) as usize, rng.range(3, 7) as usize);
        let (kh, kw) = (rng.range(1, 3) as usize, rng.range(1, 3) as usize);
        let attrs = ConvAttrs {
            strides: vec![rng.range(1, 2) as usize, rng.range(1, 2) as usize],
            pads: (0..4).map(|_| rng.range(0, 1) as usize).collect(),
            dilations: vec![rng.range(1, 2) as usize, 1],
            group,
        };
        let xdt = if case % 2 == 0 { DType::U8 } else { DType::I8 };
        let x = rng.fill(xdt, &[1, c, h, wd]);
        let (lo, hi) = full_range(xdt);
        let xq = pt(xdt, rng.scale(), rng.range(lo, hi));
        let w = rng.fill(DType::I8, &[m, cg, kh, kw]);
        let wq = if case % 4 == 0 {
            pt(DType::I8, rng.scale(), rng.range(-3, 3))
        } else {
            QParams::per_axis(
                DType::I8,
                0,
                (0..m).map(|_| rng.scale()).collect(),
                (0..m).map(|_| rng.range(-3, 3)).collect(),
            )
        };
        let bias = rng.fill(DType::I32, &[m]);
        let bias: Vec<i64> = ints(&bias).iter().map(|b| b % 5000).collect();
        let bt = t(DType::I32, &[m], &bias);
        let yq = pt(DType::U8, rng.scale() * 4.0, rng.range(0, 255));
        let act = [
            Activation::None,
            Activation::Relu,
            Activation::Clip {
                min: -0.5,
                max: 0.75,
            },
        ][case % 3];
        let mode = MODES[case % 3];
        let o = Output {
            q: &yq,
            act,
            rounding: mode,
        };
        let Ok(got) = conv(&x, &xq, &w, &wq, Some(&bt), &attrs, o) else {
            continue; // A window larger than the padded input.
        };
        // The float formula, one output element at a time.
        let (xv, wv) = (ints(&x), ints(&w));
        let (oh, ow) = (got.shape()[2], got.shape()[3]);
        let mut want = Vec::new();
        let mg = m / group;
        for oc in 0..m {
            let g = oc / mg;
            for i in 0..oh {
                for j in 0..ow {
                    let mut r = xq.scales[0] * wq.scale(oc) * bias[oc] as f64;
                    for ci in 0..cg {
                        for a in 0..kh {
                            for b in 0..kw {
                                let y = (i * attrs.strides[0] + a * attrs.dilations[0]) as i64
                                    - attrs.pads[0] as i64;
                                let z = (j * attrs.strides[1] + b * attrs.dilations[1]) as i64
                                    - attrs.pads[1] as i64;
                                if y < 0 || z < 0 || y >= h as i64 || z >= wd as i64 {
                                    continue;
                                }
                                let xval = xv[((g * cg + ci) * h + y as usize) * wd + z as usize];
                                let wval = wv[((oc * cg + ci) * kh + a) * kw + b];
                                r += dq(xval, &xq, 0) * dq(wval, &wq, oc);
                            }
                        }
                    }
                    want.push(quantize_real(r, &yq, act, mode));
                }
            }
        }
        diff.add(&ints(&got), &want);
    }
    diff
}

#[test]
fn random_matmuls_and_elementwise_match_the_float_formula() {
    for decimal in [false, true] {
        let mut rng = Rng(42, decimal);
        let names = [
            "qnn.matmul",
            "qnn.add",
            "qnn.mul",
            "qnn.requantize",
            "qnn.avg_pool",
        ];
        for (d, name) in random_others(&mut rng).iter().zip(names) {
            d.check(&format!(
                "{name}{}",
                if decimal { " (decimal scales)" } else { "" }
            ));
        }
    }
}

fn random_others(rng: &mut Rng) -> [Diff; 5] {
    let (mut dm, mut da, mut dmul, mut dr, mut dp) = (
        Diff::default(),
        Diff::default(),
        Diff::default(),
        Diff::default(),
        Diff::default(),
    );
    for case in 0..200 {
        let mode = MODES[case % 3];
        // matmul, per-column rhs.
        let (m, k, n) = (
            rng.range(1, 6) as usize,
            rng.range(1, 40) as usize,
            rng.range(1, 6) as usize,
        );
        let a = rng.fill(DType::U8, &[2, m, k]);
        let aq = pt(DType::U8, rng.scale(), rng.range(0, 255));
        let b = rng.fill(DType::I8, &[k, n]);
        let bq = QParams::per_axis(
            DType::I8,
            1,
            (0..n).map(|_| rng.scale()).collect(),
            (0..n).map(|_| rng.range(-5, 5)).collect(),
        );
        let yq = pt(DType::I8, rng.scale() * 8.0, rng.range(-20, 20));
        let got = matmul(&a, &aq, &b, &bq, None, out(&yq, mode)).unwrap();
        let (av, bv) = (ints(&a), ints(&b));
        let mut want = Vec::new();
        for bi in 0..2 {
            for i in 0..m {
                for j in 0..n {
                    let r: f64 = (0..k)
                        .map(|p| dq(av[(bi * m + i) * k + p], &aq, 0) * dq(bv[p * n + j], &bq, j))
                        .sum();
                    want.push(quantize_real(r, &yq, Activation::None, mode));
                }
            }
        }
        dm.add(&ints(&got), &want);
        // add and mul, broadcasting a row.
        let x = rng.fill(DType::I8, &[4, 8]);
        let xq = pt(DType::I8, rng.scale(), rng.range(-10, 10));
        let y = rng.fill(DType::U8, &[8]);
        let yq2 = pt(DType::U8, rng.scale(), rng.range(100, 150));
        let oq = pt(DType::I8, rng.scale(), rng.range(-10, 10));
        let (xv, yv) = (ints(&x), ints(&y));
        let sum = add(&x, &xq, &y, &yq2, out(&oq, mode)).unwrap();
        let want: Vec<Want> = (0..32)
            .map(|i| {
                quantize_real(
                    dq(xv[i], &xq, 0) + dq(yv[i % 8], &yq2, 0),
                    &oq,
                    Activation::None,
                    mode,
                )
            })
            .collect();
        da.add(&ints(&sum), &want);
        let oq = pt(DType::I8, rng.scale() * rng.scale() * 64.0, 0);
        let prod = mul(&x, &xq, &y, &yq2, out(&oq, mode)).unwrap();
        let want: Vec<Want> = (0..32)
            .map(|i| {
                quantize_real(
                    dq(xv[i], &xq, 0) * dq(yv[i % 8], &yq2, 0),
                    &oq,
                    Activation::None,
                    mode,
                )
            })
            .collect();
        dmul.add(&ints(&prod), &want);
        // requantize an i32 accumulator, and average-pool.
        let acc = rng.fill(DType::I32, &[64]);
        let accv: Vec<i64> = ints(&acc).iter().map(|v| v >> 12).collect();
        let acc = t(DType::I32, &[64], &accv);
        let sq = pt(DType::I32, rng.scale() * rng.scale(), 0);
        let got = requantize(&acc, &sq, &oq, mode).unwrap();
        let want: Vec<Want> = accv
            .iter()
            .map(|&v| quantize_real(dq(v, &sq, 0), &oq, Activation::None, mode))
            .collect();
        dr.add(&ints(&got), &want);
        let img = rng.fill(DType::U8, &[1, 2, 5, 5]);
        let iq = pt(DType::U8, rng.scale(), rng.range(0, 255));
        let pq = pt(DType::U8, rng.scale(), rng.range(0, 255));
        let attrs = PoolAttrs {
            kernel: vec![3, 3],
            strides: vec![2, 2],
            pads: vec![1, 1, 1, 1],
            dilations: vec![],
            count_include_pad: case % 2 == 0,
        };
        let got = avg_pool(&img, &iq, &attrs, &pq, mode).unwrap();
        let iv = ints(&img);
        let mut want = Vec::new();
        for ch in 0..2 {
            for i in 0..3 {
                for j in 0..3 {
                    let (mut s, mut cnt) = (0.0, 0);
                    for a in 0..3 {
                        for b in 0..3 {
                            let (y, z) = ((i * 2 + a) as i64 - 1, (j * 2 + b) as i64 - 1);
                            if (0..5).contains(&y) && (0..5).contains(&z) {
                                s += dq(iv[(ch * 5 + y as usize) * 5 + z as usize], &iq, 0);
                                cnt += 1;
                            }
                        }
                    }
                    let cnt = if attrs.count_include_pad { 9 } else { cnt };
                    want.push(quantize_real(s / cnt as f64, &pq, Activation::None, mode));
                }
            }
        }
        dp.add(&ints(&got), &want);
    }
    [dm, da, dmul, dr, dp]
}

#[test]
fn rounding_modes_by_name() {
    assert_eq!(Rounding::from_name("half_even"), Some(Rounding::HalfEven));
    assert_eq!(Rounding::from_name("half_away"), Some(Rounding::HalfAway));
    assert_eq!(Rounding::from_name("half_up"), Some(Rounding::HalfUp));
    assert_eq!(Rounding::from_name("half_down"), None);
}
