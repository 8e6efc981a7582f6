//! Property tests (the `testing` harness) of the lowerings of `pools_ops`: MaxPool and
//! AveragePool on 1 to 3 spatial dimensions with every window attribute, MaxPool's Indices
//! (both storage orders, ties included), integer Pow (integer and float exponents, negative
//! exponents, overflow), boolean ReduceMax/ReduceMin, reductions whose axes are an argument,
//! and training-mode BatchNormalization, on seeded random cases compiled by the cpu target and
//! compared with the interpreter.

use nart_target_cpu::testing::{cases, f32_literal, i64_array, seed, ty, Batch, Gen, Tol};
use nart_tensor::{DType, Tensor};

/// The window attributes of a random pool and its result's spatial sizes.
struct Pool {
    input: Vec<usize>,
    props: Vec<String>,
    out: Vec<usize>,
    /// Taps per window.
    volume: usize,
}

/// A random pool over `nd` spatial dimensions: sizes, kernel, strides, dilations, pads (at
/// times as large as the window's reach, so that a window lies wholly in the padding),
/// `ceil_mode` (with explicit pads) and `auto_pad`; the result's sizes by the interpreter's
/// rules.
fn random_pool(g: &mut Gen, nd: usize) -> Pool {
    let kernel: Vec<i64> = (0..nd).map(|_| g.int(1, 3)).collect();
    let strides: Vec<i64> = (0..nd).map(|_| g.int(1, 3)).collect();
    let dilations: Vec<i64> = (0..nd).map(|_| g.int(1, 2)).collect();
    let reach: Vec<i64> = (0..nd)
        .map(|i| (kernel[i] - 1) * dilations[i] + 1)
        .collect();
    let auto = g.pick(&[
        "NOTSET",
        "NOTSET",
        "NOTSET",
        "VALID",
        "SAME_UPPER",
        "SAME_LOWER",
    ]);
    // ceil_mode only with explicit pads: with auto_pad the graph's shape inference ignores it
    // (ONNX), while the interpreter applies it to VALID.
    let ceil = auto == "NOTSET" && g.chance(1, 3);
    let mut begin = vec![0; nd];
    let mut end = vec![0; nd];
    if auto == "NOTSET" && g.chance(2, 3) {
        for i in 0..nd {
            begin[i] = g.int(0, reach[i]);
            end[i] = g.int(0, reach[i]);
        }
    }
    let input: Vec<usize> = (0..nd)
        .map(|i| {
            let least = (reach[i] - begin[i] - end[i]).max(1);
            g.int(least, least + 5) as usize
        })
        .collect();
    let mut out = Vec::new();
    for i in 0..nd {
        let n = input[i] as i64;
        if auto.starts_with("SAME") {
            let o = (n + strides[i] - 1) / strides[i];
            let total = ((o - 1) * strides[i] + reach[i] - n).max(0);
            let (small, big) = (total / 2, total - total / 2);
            (begin[i], end[i]) = if auto == "SAME_LOWER" {
                (big, small)
            } else {
                (small, big)
            };
        }
        let span = n + begin[i] + end[i] - reach[i];
        let s = strides[i];
        let mut o = if ceil {
            (span + s - 1) / s + 1
        } else {
            span / s + 1
        };
        if ceil && (o - 1) * s >= n + begin[i] {
            o -= 1;
        }
        out.push(o as usize);
    }
    let mut props = vec![
        format!("kernel_shape = {}", i64_array(&kernel)),
        format!("strides = {}", i64_array(&strides)),
        format!("dilations = {}", i64_array(&dilations)),
        format!("ceil_mode = {} : i64", i64::from(ceil)),
    ];
    if auto == "NOTSET" {
        props.push(format!("pads = {}", i64_array(&[begin, end].concat())));
    } else {
        props.push(format!("auto_pad = \"{auto}\""));
    }
    Pool {
        input,
        props,
        out,
        volume: kernel.iter().product::<i64>() as usize,
    }
}

#[test]
fn max_pool_on_one_to_three_spatial_dimensions_with_indices() {
    let name = "max_pool_on_one_to_three_spatial_dimensions_with_indices";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(32) {
        let nd = g.size(1, 3);
        let pool = random_pool(&mut g, nd);
        let (n, c) = (g.size(1, 2), g.size(1, 3));
        let shape = [vec![n, c], pool.input.clone()].concat();
        let out = [vec![n, c], pool.out.clone()].concat();
        let order = g.int(0, 1);
        let int = g.chance(1, 4);
        let indices = g.chance(3, 4);
        let mut props = pool.props.clone();
        props.push(format!("storage_order = {order} : i64"));
        let props = props.join(", ");
        let k = batch.case(format!(
            "MaxPool {shape:?} -> {out:?} {props} int={int} indices={indices}"
        ));
        // Few distinct values, so that windows hold ties.
        let x = if int {
            k.arg(g.tensor_int(DType::I8, &shape, -4, 4))
        } else {
            let v: Vec<f32> = (0..shape.iter().product::<usize>())
                .map(|_| g.int(-3, 3) as f32 * 0.5)
                .collect();
            k.arg(Tensor::from_vec(shape.clone(), v).expect("a tensor"))
        };
        let elem = if int { "i8" } else { "f32" };
        let y = k.op(
            "graph.MaxPool",
            &[x],
            &props,
            &[&ty(&out, elem), &ty(&out, "i64")],
        );
        k.output(y[0], Tol::Exact);
        if indices {
            k.output(y[1], Tol::Exact);
        }
    }
    batch.check();
}

#[test]
fn average_pool_on_one_to_three_spatial_dimensions() {
    let name = "average_pool_on_one_to_three_spatial_dimensions";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(32) {
        let nd = g.size(1, 3);
        let pool = random_pool(&mut g, nd);
        let (n, c) = (g.size(1, 2), g.size(1, 3));
        let shape = [vec![n, c], pool.input.clone()].concat();
        let out = [vec![n, c], pool.out.clone()].concat();
        let include = g.int(0, 1);
        let mut props = pool.props.clone();
        props.push(format!("count_include_pad = {include} : i64"));
        let props = props.join(", ");
        let k = batch.case(format!("AveragePool {shape:?} -> {out:?} {props}"));
        let x = k.arg(g.tensor_f32(&shape, -1.0, 1.0));
        let y = k.op1("graph.AveragePool", &[x], &props, &ty(&out, "f32"));
        k.output(y, Tol::Float { terms: pool.volume });
    }
    batch.check();
}

/// An integer tensor of `shape` from `values`.
fn int_tensor(dtype: DType, shape: &[usize], values: Vec<i128>) -> Tensor {
    Tensor::from_i128(dtype, shape.to_vec(), values).expect("an integer tensor")
}

#[test]
fn integer_pow_is_exact_for_integer_and_float_exponents() {
    let name = "integer_pow_is_exact_for_integer_and_float_exponents";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    let types = [
        (DType::I32, DType::I32),
        (DType::I64, DType::I64),
        (DType::I32, DType::I64),
        (DType::I64, DType::I32),
        (DType::I32, DType::F32),
        (DType::I64, DType::F32),
    ];
    for _ in 0..cases(24) {
        let (bt, et) = g.pick(&types);
        let len = g.size(1, 12);
        let shape = [len];
        // Bases around 0 (1, -1 and 0 have their own negative-exponent results) and large
        // ones; exponents negative, small, and large enough to wrap.
        let base: Vec<i128> = (0..len)
            .map(|_| match g.int(0, 3) {
                0 => i128::from(g.int(-100_000, 100_000)),
                1 => i128::from(g.int(-1, 1)),
                _ => i128::from(g.int(-4, 4)),
            })
            .collect();
        let k = batch.case(format!("Pow {bt:?} ** {et:?} [{len}]"));
        let x = k.arg(int_tensor(bt, &shape, base));
        let y = if et == DType::F32 {
            let e: Vec<f32> = (0..len)
                .map(|_| match g.int(0, 3) {
                    0 => g.int(-3, 12) as f32,
                    1 => g.f32(-3.0, 8.0),
                    2 => g.int(20, 140) as f32,
                    _ => g.f32(0.0, 3.0).round() + 0.5,
                })
                .collect();
            k.arg(Tensor::from_vec(shape.to_vec(), e).expect("a tensor"))
        } else {
            let e: Vec<i128> = (0..len)
                .map(|_| {
                    if g.chance(1, 3) {
                        i128::from(g.int(-70, -1))
                    } else {
                        i128::from(g.int(0, 70))
                    }
                })
                .collect();
            k.arg(int_tensor(et, &shape, e))
        };
        let z = k.op1("graph.Pow", &[x, y], "", &ty(&shape, bt.name()));
        k.output(z, Tol::Exact);
    }
    batch.check();
}

#[test]
fn boolean_max_and_min_and_axes_given_at_run_time() {
    let name = "boolean_max_and_min_and_axes_given_at_run_time";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(24) {
        let rank = g.size(1, 3);
        let shape = g.shape(rank, 1, 4);
        let axis = g.size(0, rank - 1);
        let mut out = shape.clone();
        out[axis] = 1;
        let op = g.pick(&["graph.ReduceMax", "graph.ReduceMin"]);
        let boolean = g.chance(1, 2);
        // The axes: a constant for booleans, an argument (read from the shapes) otherwise,
        // with keepdims.
        let at_run_time = !boolean || g.chance(1, 2);
        let k = batch.case(format!(
            "{op} {shape:?} axis={axis} bool={boolean} run_time_axes={at_run_time}"
        ));
        let x = if boolean {
            k.arg(g.tensor_int(DType::Bool, &shape, 0, 1))
        } else {
            k.arg(g.tensor_f32(&shape, -1.0, 1.0))
        };
        let axes = Tensor::from_vec(vec![1], vec![axis as i64]).expect("axes");
        let a = if at_run_time {
            k.arg(axes)
        } else {
            k.constant(&axes)
        };
        let elem = if boolean { "i1" } else { "f32" };
        let y = k.op1(op, &[x, a], "keepdims = 1 : i64", &ty(&out, elem));
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn batch_normalization_in_training_mode() {
    let name = "batch_normalization_in_training_mode";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(16) {
        let rank = g.size(2, 4);
        let shape = g.shape(rank, 1, 5);
        let c = shape[1];
        let eps = g.f32(1e-5, 1e-2);
        let momentum = g.f32(0.0, 1.0);
        let props = format!(
            "training_mode = 1 : i64, epsilon = {} : f32, momentum = {} : f32",
            f32_literal(eps),
            f32_literal(momentum)
        );
        let k = batch.case(format!("BatchNormalization training {shape:?} {props}"));
        let x = k.arg(g.tensor_f32(&shape, -2.0, 2.0));
        let s = k.arg(g.tensor_f32(&[c], 0.5, 1.5));
        let b = k.arg(g.tensor_f32(&[c], -1.0, 1.0));
        let m = k.arg(g.tensor_f32(&[c], -1.0, 1.0));
        let v = k.arg(g.tensor_f32(&[c], 0.5, 1.5));
        let t = ty(&shape, "f32");
        let tc = ty(&[c], "f32");
        let y = k.op(
            "graph.BatchNormalization",
            &[x, s, b, m, v],
            &props,
            &[&t, &tc, &tc],
        );
        let count = shape.iter().product::<usize>() / c;
        k.output(
            y[0],
            Tol::Float {
                terms: 2 * count + 4,
            },
        );
        k.output(y[1], Tol::Float { terms: count + 2 });
        k.output(
            y[2],
            Tol::Float {
                terms: 2 * count + 2,
            },
        );
    }
    batch.check();
}
