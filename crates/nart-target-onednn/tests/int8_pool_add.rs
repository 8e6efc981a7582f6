//! `qnn.max_pool`, `qnn.avg_pool`, `qnn.add` and the `quant.qcast`/`quant.dcast` casts on the
//! onednn target, bit-identical to the interpreter: random shapes, windows, strides, padding (counted in the divisor or not),
//! dilations (max), zero points, scales, storage types, activations and roundings (seeded),
//! each op alone in a function, partitioned onto `onednn`, compiled twice (equal bytes),
//! loaded and run twice; and a convolution, pools and a residual addition in one segment.

mod common;

use common::int8::{interpret, on_onednn, qty};
use common::{onednn_here, Rng};
use nart_onednn_rt::program::{OpKind, PoolAlg};
use nart_tensor::Tensor;

/// A random 8-bit tensor of `dims`: `u8` or `i8`.
fn int8_tensor(rng: &mut Rng, dims: &[i64], unsigned: bool) -> Tensor {
    let n: i64 = dims.iter().product();
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    if unsigned {
        let v: Vec<u8> = (0..n).map(|_| rng.int(0, 255) as u8).collect();
        Tensor::from_vec(shape, v).unwrap()
    } else {
        let v: Vec<i8> = (0..n).map(|_| rng.int(-128, 127) as i8).collect();
        Tensor::from_vec(shape, v).unwrap()
    }
}

fn list(v: &[i64]) -> String {
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", s.join(", "))
}

/// A random window over `sp` spatial dims of `input`: kernel, strides, dilations (all 1
/// unless `dilated`), pads (each below the window) and the output dims.
struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    pads: Vec<i64>,
    out: Vec<i64>,
}

fn random_window(rng: &mut Rng, input: &[i64], dilated: bool) -> Window {
    let sp = input.len();
    let kernel: Vec<i64> = (0..sp).map(|_| rng.int(1, 3)).collect();
    let strides: Vec<i64> = (0..sp).map(|_| rng.int(1, 3)).collect();
    let dilations: Vec<i64> = (0..sp)
        .map(|_| if dilated { rng.int(1, 2) } else { 1 })
        .collect();
    let reach: Vec<i64> = (0..sp)
        .map(|i| (kernel[i] - 1) * dilations[i] + 1)
        .collect();
    // The verifier wants pads smaller than the window (before dilation).
    let pads: Vec<i64> = (0..2 * sp)
        .map(|j| rng.int(0, (kernel[j % sp] - 1).min(2)))
        .collect();
    let out = (0..sp)
        .map(|i| (input[i] + pads[i] + pads[sp + i] - reach[i]) / strides[i] + 1)
        .collect();
    Window {
        kernel,
        strides,
        dilations,
        pads,
        out,
    }
}

#[test]
fn random_max_pools_are_bit_identical() {
    if !onednn_here("random_max_pools_are_bit_identical") {
        return;
    }
    let mut rng = Rng::new(41);
    for case in 0..30 {
        let sp = rng.int(1, 3) as usize;
        let (n, c) = (rng.int(1, 2), rng.int(1, 5));
        let input: Vec<i64> = (0..sp).map(|_| rng.int(5, 9)).collect();
        let w = random_window(&mut rng, &input, true);
        let unsigned = rng.int(0, 1) == 0;
        let (storage, zp) = if unsigned {
            ("u8", rng.int(0, 255))
        } else {
            ("i8", rng.int(-128, 127))
        };
        let scale = f64::from(rng.float(0.005, 0.1));
        let x_dims: Vec<i64> = [n, c].into_iter().chain(input).collect();
        let y_dims: Vec<i64> = [n, c].into_iter().chain(w.out.clone()).collect();
        let (xt, yt) = (
            qty(&x_dims, storage, scale, zp),
            qty(&y_dims, storage, scale, zp),
        );
        let text = format!(
            "func.func @main(%x: {xt}) -> {yt} {{\n  %y = qnn.max_pool %x kernel {} strides {} \
             pads {} dilations {} : {xt} to {yt}\n  return %y : {yt}\n}}\n",
            list(&w.kernel),
            list(&w.strides),
            list(&w.pads),
            list(&w.dilations),
        );
        let x = int8_tensor(&mut rng, &x_dims, unsigned);
        let want = interpret(&text, std::slice::from_ref(&x));
        let (got, program) =
            on_onednn(&text, &[x]).unwrap_or_else(|e| panic!("max pool case {case}\n{text}\n{e}"));
        assert_eq!(got, want, "max pool case {case}: not bit-identical\n{text}");
        assert!(
            matches!(
                program.ops[..],
                [ref op] if matches!(op.kind, OpKind::Pool { alg: PoolAlg::Max, .. })
            ),
            "max pool case {case}: {:?}",
            program.ops
        );
    }
}

#[test]
fn random_average_pools_are_bit_identical() {
    if !onednn_here("random_average_pools_are_bit_identical") {
        return;
    }
    let mut rng = Rng::new(43);
    let mut padded = [0usize; 2];
    for case in 0..40 {
        let sp = rng.int(1, 3) as usize;
        let (n, c) = (rng.int(1, 2), rng.int(1, 5));
        let input: Vec<i64> = (0..sp).map(|_| rng.int(3, 8)).collect();
        let w = random_window(&mut rng, &input, false);
        let include = rng.int(0, 1) == 0;
        if w.pads.iter().any(|&p| p > 0) {
            padded[usize::from(include)] += 1;
        }
        let x_unsigned = rng.int(0, 1) == 0;
        let (xs, xz) = if x_unsigned {
            ("u8", rng.int(0, 255))
        } else {
            ("i8", rng.int(-128, 127))
        };
        let (ys, yz) = if rng.int(0, 1) == 0 {
            ("u8", rng.int(0, 255))
        } else {
            ("i8", rng.int(-128, 127))
        };
        let x_dims: Vec<i64> = [n, c].into_iter().chain(input).collect();
        let y_dims: Vec<i64> = [n, c].into_iter().chain(w.out.clone()).collect();
        let xt = qty(&x_dims, xs, f64::from(rng.float(0.005, 0.1)), xz);
        let yt = qty(&y_dims, ys, f64::from(rng.float(0.005, 0.1)), yz);
        let round = *rng.pick(&["", " round<half_away>", " round<half_up>"]);
        let text = format!(
            "func.func @main(%x: {xt}) -> {yt} {{\n  %y = qnn.avg_pool %x kernel {} strides {} \
             pads {}{}{round} : {xt} to {yt}\n  return %y : {yt}\n}}\n",
            list(&w.kernel),
            list(&w.strides),
            list(&w.pads),
            if include { " count_include_pad" } else { "" },
        );
        let x = int8_tensor(&mut rng, &x_dims, x_unsigned);
        let want = interpret(&text, std::slice::from_ref(&x));
        let (got, program) =
            on_onednn(&text, &[x]).unwrap_or_else(|e| panic!("avg pool case {case}\n{text}\n{e}"));
        assert_eq!(got, want, "avg pool case {case}: not bit-identical\n{text}");
        assert!(
            matches!(program.ops[..], [ref op] if matches!(op.kind, OpKind::QAvgPool { .. })),
            "avg pool case {case}: {:?}",
            program.ops
        );
    }
    // Both divisors met padded windows.
    assert!(padded.iter().all(|&k| k > 0), "{padded:?}");
}

/// A convolution, a max pooling and an average pooling in one segment, each reading the
/// one before in oneDNN's channels-last layout.
#[test]
fn a_convolution_then_pools_is_one_bit_identical_segment() {
    if !onednn_here("a_convolution_then_pools_is_one_bit_identical_segment") {
        return;
    }
    let mut rng = Rng::new(47);
    let xt = qty(&[2, 3, 8, 8], "u8", 0.02, 120);
    let ht = qty(&[2, 4, 8, 8], "u8", 0.05, 3);
    let pt = qty(&[2, 4, 4, 4], "u8", 0.05, 3);
    let yt = qty(&[2, 4, 2, 2], "i8", 0.03, -7);
    let w: Vec<u8> = (0..4 * 3 * 9)
        .map(|_| rng.int(-127, 127) as i8 as u8)
        .collect();
    let hex: String = w.iter().map(|b| format!("{b:02X}")).collect();
    let wt = "tensor<4x3x3x3x!quant.uniform<i8:f32, 0.01>>";
    let text = format!(
        "func.func @main(%x: {xt}) -> {yt} {{\n  %wi = \"graph.constant\"() <{{value = \
         dense<\"0x{hex}\"> : tensor<4x3x3x3xi8>}}> : () -> tensor<4x3x3x3xi8>\n  %w = \
         quant.scast %wi : tensor<4x3x3x3xi8> to {wt}\n  %h = qnn.conv %x, %w pads [1, 1, 1, 1] \
         act<relu> : ({xt}, {wt}) -> {ht}\n  %p = qnn.max_pool %h kernel [2, 2] strides [2, 2] \
         : {ht} to {pt}\n  %y = qnn.avg_pool %p kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] \
         : {pt} to {yt}\n  return %y : {yt}\n}}\n"
    );
    let x = int8_tensor(&mut rng, &[2, 3, 8, 8], true);
    let want = interpret(&text, std::slice::from_ref(&x));
    let (got, program) = on_onednn(&text, &[x]).unwrap_or_else(|e| panic!("{text}\n{e}"));
    assert_eq!(got, want, "not bit-identical\n{text}");
    let kinds: Vec<&str> = program.ops.iter().map(|o| o.kind.name()).collect();
    assert_eq!(
        kinds,
        ["integer convolution", "pooling", "integer average pooling"]
    );
}

/// A window whose sums oneDNN could not keep exact is refused with the reason: 255 · the
/// window's positions must stay below 2^24.
#[test]
fn an_average_over_too_many_positions_is_refused() {
    if !onednn_here("an_average_over_too_many_positions_is_refused") {
        return;
    }
    let xt = qty(&[1, 1, 300, 300], "u8", 0.02, 0);
    let yt = qty(&[1, 1, 1, 1], "u8", 0.02, 0);
    let text = format!(
        "func.func @main(%x: {xt}) -> {yt} {{\n  %y = qnn.avg_pool %x kernel [300, 300] : \
         {xt} to {yt}\n  return %y : {yt}\n}}\n"
    );
    let err = on_onednn(&text, &[]).unwrap_err();
    assert!(err.contains("2^24"), "{err}");
}

#[test]
fn random_additions_are_bit_identical() {
    if !onednn_here("random_additions_are_bit_identical") {
        return;
    }
    let mut rng = Rng::new(53);
    for case in 0..40 {
        let rank = rng.int(1, 4) as usize;
        let dims: Vec<i64> = (0..rank).map(|_| rng.int(1, 6)).collect();
        let mut storage = || {
            if rng.int(0, 1) == 0 {
                ("u8", rng.int(0, 255))
            } else {
                ("i8", rng.int(-128, 127))
            }
        };
        let ((sa, za), (sb, zb), (sy, zy)) = (storage(), storage(), storage());
        // Scales a few binades apart, so that the common shift moves one multiplier.
        let at = f64::from(rng.float(0.005, 0.1));
        let bt = at * *rng.pick(&[1.0, 0.37, 3.1, 17.0, 0.02]);
        let yt = f64::from(rng.float(0.01, 0.2));
        let (ta, tb, ty) = (
            qty(&dims, sa, at, za),
            qty(&dims, sb, bt, zb),
            qty(&dims, sy, yt, zy),
        );
        let act = *rng.pick(&[
            "",
            " act<relu>",
            " act<relu6>",
            " act<clip> bounds(-0.5, 1.5)",
        ]);
        let round = *rng.pick(&["", " round<half_away>", " round<half_up>"]);
        let text = format!(
            "func.func @main(%a: {ta}, %b: {tb}) -> {ty} {{\n  %y = qnn.add %a, %b{act}{round} : \
             ({ta}, {tb}) -> {ty}\n  return %y : {ty}\n}}\n"
        );
        let xs = [
            int8_tensor(&mut rng, &dims, sa == "u8"),
            int8_tensor(&mut rng, &dims, sb == "u8"),
        ];
        let want = interpret(&text, &xs);
        let (got, program) =
            on_onednn(&text, &xs).unwrap_or_else(|e| panic!("add case {case}\n{text}\n{e}"));
        assert_eq!(got, want, "add case {case}: not bit-identical\n{text}");
        assert!(
            matches!(program.ops[..], [ref op] if matches!(op.kind, OpKind::QAdd { .. })),
            "add case {case}: {:?}",
            program.ops
        );
    }
}

/// A broadcast addition is refused with the reason.
#[test]
fn a_broadcast_addition_is_refused() {
    if !onednn_here("a_broadcast_addition_is_refused") {
        return;
    }
    let (ta, tb) = (qty(&[2, 3], "u8", 0.1, 3), qty(&[3], "u8", 0.2, 0));
    let text = format!(
        "func.func @main(%a: {ta}, %b: {tb}) -> {ta} {{\n  %y = qnn.add %a, %b : ({ta}, {tb}) \
         -> {ta}\n  return %y : {ta}\n}}\n"
    );
    let err = on_onednn(&text, &[]).unwrap_err();
    assert!(err.contains("without broadcasting"), "{err}");
}

/// A residual block: two convolutions, the second's result added to the block's input, then
/// a max pooling, all in one segment (the addition reads the convolution's channels-last
/// result through a reorder).
#[test]
fn a_residual_block_is_one_bit_identical_segment() {
    if !onednn_here("a_residual_block_is_one_bit_identical_segment") {
        return;
    }
    let mut rng = Rng::new(59);
    let xt = qty(&[1, 4, 6, 6], "u8", 0.02, 10);
    let ht = qty(&[1, 4, 6, 6], "u8", 0.04, 0);
    let rt = qty(&[1, 4, 6, 6], "i8", 0.05, 2);
    let st = qty(&[1, 4, 6, 6], "u8", 0.06, 0);
    let yt = qty(&[1, 4, 3, 3], "u8", 0.06, 0);
    let wt = "tensor<4x4x3x3x!quant.uniform<i8:f32, 0.01>>";
    let mut body = String::new();
    for name in ["w1", "w2"] {
        let w: Vec<u8> = (0..4 * 4 * 9)
            .map(|_| rng.int(-100, 100) as i8 as u8)
            .collect();
        let hex: String = w.iter().map(|b| format!("{b:02X}")).collect();
        body.push_str(&format!(
            "  %{name}i = \"graph.constant\"() <{{value = dense<\"0x{hex}\"> : \
             tensor<4x4x3x3xi8>}}> : () -> tensor<4x4x3x3xi8>\n  %{name} = quant.scast \
             %{name}i : tensor<4x4x3x3xi8> to {wt}\n"
        ));
    }
    let text = format!(
        "func.func @main(%x: {xt}) -> {yt} {{\n{body}  %h = qnn.conv %x, %w1 pads [1, 1, 1, 1] \
         act<relu> : ({xt}, {wt}) -> {ht}\n  %r = qnn.conv %h, %w2 pads [1, 1, 1, 1] : ({ht}, \
         {wt}) -> {rt}\n  %s = qnn.add %r, %x act<relu> : ({rt}, {xt}) -> {st}\n  %y = \
         qnn.max_pool %s kernel [2, 2] strides [2, 2] : {st} to {yt}\n  return %y : {yt}\n}}\n"
    );
    let x = int8_tensor(&mut rng, &[1, 4, 6, 6], true);
    let want = interpret(&text, std::slice::from_ref(&x));
    let (got, program) = on_onednn(&text, &[x]).unwrap_or_else(|e| panic!("{text}\n{e}"));
    assert_eq!(got, want, "not bit-identical\n{text}");
    let kinds: Vec<&str> = program.ops.iter().map(|o| o.kind.name()).collect();
    assert_eq!(
        kinds,
        [
            "integer convolution",
            "integer convolution",
            "integer addition",
            "pooling"
        ]
    );
}

/// `quant.qcast` and `quant.dcast` on onednn (the runtime's steps), bit-identical to the
/// interpreter on values around the rounding ties, out of range, infinite and NaN.
#[test]
fn random_casts_are_bit_identical() {
    if !onednn_here("random_casts_are_bit_identical") {
        return;
    }
    let mut rng = Rng::new(67);
    for case in 0..20 {
        let dims = [1, rng.int(1, 3), rng.int(1, 40)];
        let unsigned = rng.int(0, 1) == 0;
        // `i8<-127:127>` narrows the storage range (and its zero point's).
        let narrow = !unsigned && rng.int(0, 1) == 0;
        let (storage, zp) = if unsigned {
            ("u8", rng.int(0, 255))
        } else {
            ("i8", rng.int(-127, 127))
        };
        let scale = f64::from(rng.float(0.001, 0.2));
        let qt = qty(&dims, storage, scale, zp);
        let qt = if narrow {
            qt.replace("<i8:", "<i8<-127:127>:")
        } else {
            qt
        };
        let ft = format!("tensor<1x{}x{}xf32>", dims[1], dims[2]);
        let text = format!(
            "func.func @main(%x: {ft}) -> {ft} {{\n  %q = quant.qcast %x : {ft} to {qt}\n  %p = \
             qnn.max_pool %q kernel [1] : {qt} to {qt}\n  %y = quant.dcast %p : {qt} to {ft}\n  \
             return %y : {ft}\n}}\n"
        );
        let n = (dims[1] * dims[2]) as usize;
        let s = scale as f32;
        let v: Vec<f32> = (0..n)
            .map(|i| match i % 8 {
                // Exactly halfway between two steps, and just beside.
                0 => (rng.int(-300, 300) as f32 + 0.5) * s,
                1 => (rng.int(-300, 300) as f32 + 0.5) * s * (1.0 + f32::EPSILON),
                2 => f32::INFINITY,
                3 => f32::NEG_INFINITY,
                4 => f32::NAN,
                5 => rng.float(-1e6, 1e6),
                _ => rng.float(-300.0, 300.0) * s,
            })
            .collect();
        let x = Tensor::from_vec(vec![1, dims[1] as usize, dims[2] as usize], v).unwrap();
        let want = interpret(&text, std::slice::from_ref(&x));
        let (got, program) =
            on_onednn(&text, &[x]).unwrap_or_else(|e| panic!("cast case {case}\n{text}\n{e}"));
        assert_eq!(got, want, "cast case {case}: not bit-identical\n{text}");
        let kinds: Vec<&str> = program.ops.iter().map(|o| o.kind.name()).collect();
        assert_eq!(kinds, ["quantization", "pooling", "dequantization"]);
    }
}

/// A `quant.dcast` that a float op reads stays off onednn, with the reason (the float ops
/// after it would otherwise follow it onto oneDNN's f32 kernels).
#[test]
fn a_dequantization_read_by_float_ops_is_refused() {
    if !onednn_here("a_dequantization_read_by_float_ops_is_refused") {
        return;
    }
    let qt = qty(&[1, 2, 4], "u8", 0.1, 3);
    let ft = "tensor<1x2x4xf32>";
    let text = format!(
        "func.func @main(%x: {qt}) -> {ft} {{\n  %d = quant.dcast %x : {qt} to {ft}\n  %y = \
         \"graph.Relu\"(%d) : ({ft}) -> {ft}\n  return %y : {ft}\n}}\n"
    );
    let err = on_onednn(&text, &[]).unwrap_err();
    assert!(
        err.contains("a dequantization that other ops read"),
        "{err}"
    );
}

#[test]
fn random_requantizations_are_bit_identical() {
    if !onednn_here("random_requantizations_are_bit_identical") {
        return;
    }
    let mut rng = Rng::new(71);
    for case in 0..30 {
        let dims = [rng.int(1, 2), rng.int(1, 5), rng.int(1, 9)];
        let mut storage = |narrow_ok: bool| {
            if rng.int(0, 1) == 0 {
                ("u8".to_string(), rng.int(0, 255))
            } else if narrow_ok && rng.int(0, 1) == 0 {
                ("i8<-127:127>".to_string(), rng.int(-127, 127))
            } else {
                ("i8".to_string(), rng.int(-128, 127))
            }
        };
        let ((xs, xz), (ys, yz)) = (storage(false), storage(true));
        let sx = f64::from(rng.float(0.005, 0.1));
        // Up and down by a few binades, and equal scales.
        let sy = sx * *rng.pick(&[1.0, 0.3, 2.5, 0.01, 40.0]);
        let (xt, yt) = (qty(&dims, &xs, sx, xz), qty(&dims, &ys, sy, yz));
        let round = *rng.pick(&["", " round<half_away>", " round<half_up>"]);
        let text = format!(
            "func.func @main(%x: {xt}) -> {yt} {{\n  %y = qnn.requantize %x{round} : {xt} to \
             {yt}\n  return %y : {yt}\n}}\n"
        );
        let x = int8_tensor(&mut rng, &dims, xs == "u8");
        let want = interpret(&text, std::slice::from_ref(&x));
        let (got, program) = on_onednn(&text, &[x])
            .unwrap_or_else(|e| panic!("requantize case {case}\n{text}\n{e}"));
        assert_eq!(
            got, want,
            "requantize case {case}: not bit-identical\n{text}"
        );
        assert!(
            matches!(program.ops[..], [ref op] if matches!(op.kind, OpKind::QRequantize { .. })),
            "requantize case {case}: {:?}",
            program.ops
        );
    }
}
