//! Property tests (the `testing` harness) of the lowerings of `keya_ops`: LogSoftmax, Mod,
//! Pad in reflect/edge/wrap mode, Resize and ConvTranspose, on seeded random shapes,
//! attributes and values, compiled by the cpu target and compared with the interpreter.

use nart_target_cpu::testing::{cases, f32_literal, i64_array, seed, ty, Batch, Gen, Tol};
use nart_tensor::{DType, Tensor};

fn ints(v: &[i64]) -> Tensor {
    Tensor::from_vec(vec![v.len()], v.to_vec()).expect("a 1-D tensor")
}

fn floats(v: &[f32]) -> Tensor {
    Tensor::from_vec(vec![v.len()], v.to_vec()).expect("a 1-D tensor")
}

#[test]
fn log_softmax_along_any_axis() {
    let seed = seed("log_softmax_along_any_axis");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("log_softmax_along_any_axis", seed);
    for _ in 0..cases(16) {
        let rank = g.size(1, 4);
        let shape = g.shape(rank, 1, 6);
        let axis = g.int(-(rank as i64), rank as i64 - 1);
        let n = shape[axis.rem_euclid(rank as i64) as usize];
        let k = batch.case(format!("LogSoftmax {shape:?} axis={axis}"));
        let x = k.arg(g.tensor_f32(&shape, -8.0, 8.0));
        let t = ty(&shape, "f32");
        let y = k.op1(
            "graph.LogSoftmax",
            &[x],
            &format!("axis = {axis} : i64"),
            &t,
        );
        // The result is about as large as the inputs' spread, |x| up to 8 plus log n.
        k.output(y, Tol::Float { terms: 16 * n + 16 });
    }
    batch.check();
}

/// A shape that broadcasts to `out`: a suffix of it with some dimensions 1.
fn broadcast_operand(g: &mut Gen, out: &[usize]) -> Vec<usize> {
    let keep = g.size(0, out.len());
    out[out.len() - keep..]
        .iter()
        .map(|&d| if g.chance(1, 3) { 1 } else { d })
        .collect()
}

#[test]
fn mod_with_both_sign_rules_on_floats_and_integers() {
    let seed = seed("mod_with_both_sign_rules_on_floats_and_integers");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("mod_with_both_sign_rules_on_floats_and_integers", seed);
    for _ in 0..cases(24) {
        let rank = g.size(1, 3);
        let full = g.shape(rank, 1, 5);
        let sa = if g.chance(1, 2) {
            full.clone()
        } else {
            broadcast_operand(&mut g, &full)
        };
        let sb = broadcast_operand(&mut g, &full);
        // The result is the broadcast of the two shapes (trailing dimensions aligned).
        let r = sa.len().max(sb.len());
        let out: Vec<usize> = (0..r)
            .map(|i| {
                let get = |v: &[usize]| (i + v.len()).checked_sub(r).map_or(1, |j| v[j]);
                get(&sa).max(get(&sb))
            })
            .collect();
        let fmod = g.int(0, 1);
        let dtype = g.pick(&[DType::F32, DType::I32, DType::I64, DType::I8]);
        let k = batch.case(format!("Mod {sa:?} % {sb:?} fmod={fmod} {dtype:?}"));
        let props = format!("fmod = {fmod} : i64");
        if dtype == DType::F32 {
            let a = k.arg(g.tensor_f32(&sa, -10.0, 10.0));
            // Divisors away from 0, of both signs.
            let n: usize = sb.iter().product();
            let b: Vec<f32> = (0..n)
                .map(|_| {
                    let m = g.f32(0.5, 4.0);
                    if g.chance(1, 2) {
                        -m
                    } else {
                        m
                    }
                })
                .collect();
            let b = k.arg(Tensor::from_vec(sb.clone(), b).expect("divisors"));
            let y = k.op1("graph.Mod", &[a, b], &props, &ty(&out, "f32"));
            k.output(y, Tol::Float { terms: 1 });
        } else {
            let a = k.arg(g.tensor_int(dtype, &sa, -100, 100));
            let n: usize = sb.iter().product();
            let b: Vec<i64> = (0..n)
                .map(|_| {
                    let m = g.int(1, 9);
                    if g.chance(1, 2) {
                        -m
                    } else {
                        m
                    }
                })
                .collect();
            let bt = Tensor::from_vec(sb.clone(), b).expect("divisors");
            let b = k.arg(bt.cast(dtype).expect("a cast"));
            let y = k.op1("graph.Mod", &[a, b], &props, &ty(&out, dtype.name()));
            k.output(y, Tol::Exact);
        }
    }
    batch.check();
}

#[test]
fn pad_in_reflect_edge_and_wrap_modes() {
    let seed = seed("pad_in_reflect_edge_and_wrap_modes");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("pad_in_reflect_edge_and_wrap_modes", seed);
    for _ in 0..cases(24) {
        let rank = g.size(1, 4);
        let shape = g.shape(rank, 1, 5);
        let mode = g.pick(&["reflect", "edge", "wrap"]);
        // Pads on a random subset of the axes (all of them without `axes`), in -1..=4 (more
        // than the axis for reflect and wrap, which repeat), keeping each axis non-empty.
        let with_axes = g.chance(1, 2);
        let axes: Vec<usize> = if with_axes {
            (0..rank).filter(|_| g.chance(2, 3)).collect()
        } else {
            (0..rank).collect()
        };
        let mut pads = vec![0i64; 2 * axes.len()];
        let mut out = shape.clone();
        for (k, &a) in axes.iter().enumerate() {
            let (lo, hi) = (g.int(-1, 4), g.int(-1, 4));
            if shape[a] as i64 + lo + hi >= 1 {
                pads[k] = lo;
                pads[k + axes.len()] = hi;
                out[a] = (shape[a] as i64 + lo + hi) as usize;
            }
        }
        let k = batch.case(format!(
            "Pad {shape:?} mode={mode} axes={axes:?} pads={pads:?}"
        ));
        let dtype = g.pick(&[DType::F32, DType::I32]);
        let x = if dtype == DType::F32 {
            k.arg(g.tensor_f32(&shape, -4.0, 4.0))
        } else {
            k.arg(g.tensor_int(dtype, &shape, -50, 50))
        };
        let p = k.constant(&ints(&pads));
        let none = k.none();
        let a = if with_axes {
            let v: Vec<i64> = axes
                .iter()
                .map(|&a| {
                    if g.chance(1, 2) {
                        a as i64 - rank as i64
                    } else {
                        a as i64
                    }
                })
                .collect();
            k.constant(&ints(&v))
        } else {
            k.none()
        };
        let props = format!("mode = \"{mode}\"");
        let y = k.op1(
            "graph.Pad",
            &[x, p, none, a],
            &props,
            &ty(&out, dtype.name()),
        );
        k.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn resize_in_every_mode_and_coordinate_mapping() {
    let seed = seed("resize_in_every_mode_and_coordinate_mapping");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("resize_in_every_mode_and_coordinate_mapping", seed);
    let coords = [
        "half_pixel",
        "half_pixel_symmetric",
        "pytorch_half_pixel",
        "align_corners",
        "asymmetric",
        "tf_crop_and_resize",
    ];
    let nearest_modes = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"];
    for _ in 0..cases(32) {
        let rank = g.size(1, 4);
        let shape = g.shape(rank, 1, 5);
        let mode = g.pick(&["nearest", "linear", "cubic"]);
        let coord = g.pick(&coords);
        let nearest = g.pick(&nearest_modes);
        let exclude = g.int(0, 1);
        let antialias = if mode == "nearest" { 0 } else { g.int(0, 1) };
        // The resized axes: up to three, possibly named by `axes`.
        let axes: Vec<usize> = {
            let mut a: Vec<usize> = (0..rank).filter(|_| g.chance(2, 3)).collect();
            if a.is_empty() {
                a.push(rank - 1);
            }
            a.truncate(3);
            a
        };
        let with_axes = axes.len() != rank || g.chance(1, 2);
        let by_sizes = g.chance(1, 2);
        let mut out = shape.clone();
        let mut scales = Vec::new();
        let mut sizes = Vec::new();
        for &a in &axes {
            if by_sizes {
                let s = g.int(1, 9);
                sizes.push(s);
                out[a] = s as usize;
            } else {
                let s = g.pick(&[0.5f32, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0]);
                scales.push(s);
                out[a] = (shape[a] as f64 * f64::from(s)).floor() as usize;
            }
        }
        if out.contains(&0) {
            continue;
        }
        let roi: Vec<f32> = if coord == "tf_crop_and_resize" {
            let starts: Vec<f32> = axes.iter().map(|_| g.f32(-0.3, 0.5)).collect();
            let ends: Vec<f32> = axes.iter().map(|_| g.f32(0.5, 1.3)).collect();
            [starts, ends].concat()
        } else {
            vec![]
        };
        let extrap = g.f32(-2.0, 2.0);
        let cubic_a = g.pick(&[-0.75f32, -0.5]);
        let k = batch.case(format!(
            "Resize {shape:?} -> {out:?} axes={axes:?} mode={mode} coord={coord} \
             nearest={nearest} exclude_outside={exclude} antialias={antialias} roi={roi:?} \
             sizes={sizes:?} scales={scales:?}"
        ));
        let x = k.arg(g.tensor_f32(&shape, -2.0, 2.0));
        let none = k.none();
        let r = if roi.is_empty() {
            none
        } else {
            k.constant(&floats(&roi))
        };
        let full = |v: &[f32], fill: f32| -> Vec<f32> {
            let mut f = vec![fill; rank];
            for (i, &a) in axes.iter().enumerate() {
                f[a] = v[i];
            }
            f
        };
        let (s, z, axes_prop) = if with_axes {
            let s = if by_sizes {
                none
            } else {
                k.constant(&floats(&scales))
            };
            let z = if by_sizes {
                k.constant(&ints(&sizes))
            } else {
                none
            };
            let a: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            (s, z, format!(", axes = {}", i64_array(&a)))
        } else if by_sizes {
            let all: Vec<i64> = out.iter().map(|&d| d as i64).collect();
            (none, k.constant(&ints(&all)), String::new())
        } else {
            (
                k.constant(&floats(&full(&scales, 1.0))),
                none,
                String::new(),
            )
        };
        // roi covers the named axes, or all of them without `axes`.
        let r = if !with_axes && !roi.is_empty() {
            let st = full(&roi[..axes.len()], 0.0);
            let en = full(&roi[axes.len()..], 1.0);
            k.constant(&floats(&[st, en].concat()))
        } else {
            r
        };
        let props = format!(
            "mode = \"{mode}\", coordinate_transformation_mode = \"{coord}\", \
             nearest_mode = \"{nearest}\", exclude_outside = {exclude} : i64, \
             antialias = {antialias} : i64, extrapolation_value = {} : f32, \
             cubic_coeff_a = {} : f32{axes_prop}",
            f32_literal(extrap),
            f32_literal(cubic_a)
        );
        let y = k.op1("graph.Resize", &[x, r, s, z], &props, &ty(&out, "f32"));
        let tol = if mode == "nearest" && coord != "tf_crop_and_resize" {
            Tol::Exact
        } else {
            // Each resized axis sums a few taps whose weights (cubic, antialiased) may reach
            // past 1 in magnitude.
            Tol::Float {
                terms: 8usize.pow(axes.len() as u32),
            }
        };
        k.output(y, tol);
    }
    batch.check();
}

#[test]
fn conv_transpose_with_strides_pads_dilations_groups_and_output_padding() {
    let name = "conv_transpose_with_strides_pads_dilations_groups_and_output_padding";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(24) {
        let nd = g.size(1, 3);
        let n = g.size(1, 2);
        let group = g.size(1, 3);
        let cg = g.size(1, 3);
        let mg = g.size(1, 3);
        let input = g.shape(nd, 1, if nd == 3 { 3 } else { 5 });
        let kernel = g.shape(nd, 1, 3);
        let strides: Vec<i64> = (0..nd).map(|_| g.int(1, 3)).collect();
        let dilations: Vec<i64> = (0..nd).map(|_| g.int(1, 2)).collect();
        // output_padding must stay below the stride or the dilation.
        let out_pad: Vec<i64> = (0..nd)
            .map(|i| g.int(0, strides[i].max(dilations[i]) - 1))
            .collect();
        let style = g.pick(&["pads", "output_shape", "same_upper", "same_lower", "valid"]);
        let mut pads = vec![0i64; 2 * nd];
        let mut out = Vec::new();
        for i in 0..nd {
            let reach = (kernel[i] as i64 - 1) * dilations[i] + 1;
            let full = strides[i] * (input[i] as i64 - 1) + out_pad[i] + reach;
            let o = match style {
                "pads" => {
                    let (b, e) = (g.int(0, 2), g.int(0, 2));
                    if full - b - e >= 1 {
                        pads[i] = b;
                        pads[nd + i] = e;
                    }
                    full - pads[i] - pads[nd + i]
                }
                // Anything up to the full extent, or a little past it (zeros there).
                "output_shape" => g.int(1, full + 1),
                "same_upper" | "same_lower" => input[i] as i64 * strides[i],
                _ => full,
            };
            out.push(o);
        }
        // SAME and output_shape need a non-negative begin pad.
        if style != "pads" && style != "valid" {
            let ok = (0..nd).all(|i| {
                let reach = (kernel[i] as i64 - 1) * dilations[i] + 1;
                let full = strides[i] * (input[i] as i64 - 1) + out_pad[i] + reach;
                let total = full - out[i];
                let half = total.div_euclid(2);
                let begin = if style == "same_upper" {
                    half
                } else {
                    total - half
                };
                begin >= 0
            });
            if !ok {
                continue;
            }
        }
        let bias = g.chance(1, 2);
        let (c, m) = (group * cg, group * mg);
        let xs = [vec![n, c], input.clone()].concat();
        let ws = [vec![c, mg], kernel.clone()].concat();
        let os: Vec<usize> = [vec![n as i64, m as i64], out.clone()]
            .concat()
            .iter()
            .map(|&v| v as usize)
            .collect();
        let k = batch.case(format!(
            "ConvTranspose x {xs:?} w {ws:?} group={group} strides={strides:?} \
             dilations={dilations:?} output_padding={out_pad:?} {style} pads={pads:?} \
             -> {os:?} bias={bias}"
        ));
        let x = k.arg(g.tensor_f32(&xs, -1.0, 1.0));
        let w = k.arg(g.tensor_f32(&ws, -1.0, 1.0));
        let b = if bias {
            k.arg(g.tensor_f32(&[m], -1.0, 1.0))
        } else {
            k.none()
        };
        let mut props = format!(
            "group = {group} : i64, strides = {}, dilations = {}, output_padding = {}",
            i64_array(&strides),
            i64_array(&dilations),
            i64_array(&out_pad)
        );
        match style {
            "pads" => props += &format!(", pads = {}", i64_array(&pads)),
            "output_shape" => props += &format!(", output_shape = {}", i64_array(&out)),
            "same_upper" => props += ", auto_pad = \"SAME_UPPER\"",
            "same_lower" => props += ", auto_pad = \"SAME_LOWER\"",
            _ => props += ", auto_pad = \"VALID\"",
        }
        let y = k.op1("graph.ConvTranspose", &[x, w, b], &props, &ty(&os, "f32"));
        let terms = cg * kernel.iter().product::<usize>() + 1;
        k.output(y, Tol::Float { terms });
    }
    batch.check();
}
