//! Windowed ops: `Conv` and `graph.fused_conv` (strides, asymmetric pads, dilations, groups
//! from 1 through depthwise, with and without bias), `MaxPool` and `AveragePool` (kernels,
//! strides, pads, dilations, `ceil_mode`, `count_include_pad`), `GlobalAveragePool`.

use nart_target_cpu::testing::{cases, i64_array, seed, ty, Batch, Gen, Tol};

use crate::{activation, dim, input};

/// The 2-D window attributes of a case.
#[derive(Clone, Debug)]
struct Window {
    kernel: [usize; 2],
    strides: [usize; 2],
    dilations: [usize; 2],
    /// `[top, left, bottom, right]`, as ONNX orders them.
    pads: [usize; 4],
    ceil: bool,
}

impl Window {
    /// Random strides (1 to 3), dilations (1 or 2, when `dilate`) and pads (0 to `max_pad`
    /// on each side, so asymmetric as often as not) around `kernel`.
    fn draw(g: &mut Gen, kernel: [usize; 2], dilate: bool, max_pad: [usize; 2]) -> Window {
        let dl = |g: &mut Gen| if dilate && g.chance(1, 3) { 2 } else { 1 };
        Window {
            kernel,
            strides: [g.size(1, 3), g.size(1, 3)],
            dilations: [dl(g), dl(g)],
            pads: [
                g.size(0, max_pad[0]),
                g.size(0, max_pad[1]),
                g.size(0, max_pad[0]),
                g.size(0, max_pad[1]),
            ],
            ceil: false,
        }
    }

    /// The extent of the dilated kernel along spatial axis `i`.
    fn extent(&self, i: usize) -> usize {
        (self.kernel[i] - 1) * self.dilations[i] + 1
    }

    /// An input size along axis `i` that leaves at least one output position.
    fn input_size(&self, g: &mut Gen, i: usize) -> usize {
        let pads = self.pads[i] + self.pads[i + 2];
        let least = self.extent(i).saturating_sub(pads).max(1);
        g.size(least, least + 7)
    }

    /// The output size along axis `i` for input size `d` (ONNX's rule, with `ceil_mode`
    /// dropping a last window that would start in the bottom or right padding).
    fn output_size(&self, i: usize, d: usize) -> usize {
        let span = d + self.pads[i] + self.pads[i + 2] - self.extent(i);
        let s = self.strides[i];
        let mut o = if self.ceil {
            span.div_ceil(s)
        } else {
            span / s
        } + 1;
        if self.ceil && (o - 1) * s >= d + self.pads[i] {
            o -= 1;
        }
        o
    }

    fn props(&self, with_kernel: bool) -> Vec<String> {
        let i = |v: &[usize]| i64_array(&v.iter().map(|&x| x as i64).collect::<Vec<_>>());
        let mut p = Vec::new();
        if self.dilations != [1, 1] {
            p.push(format!("dilations = {}", i(&self.dilations)));
        }
        if with_kernel {
            p.push(format!("kernel_shape = {}", i(&self.kernel)));
        }
        if self.pads != [0; 4] {
            p.push(format!("pads = {}", i(&self.pads)));
        }
        if self.strides != [1, 1] {
            p.push(format!("strides = {}", i(&self.strides)));
        }
        if self.ceil {
            p.push("ceil_mode = 1 : i64".into());
        }
        p
    }
}

#[test]
fn conv_and_fused_conv() {
    let seed = seed("conv_and_fused_conv");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("conv_and_fused_conv", seed);
    for _ in 0..cases(20) {
        // Groups: none, depthwise, depthwise with a channel multiplier, or a few groups of
        // several channels each.
        let (group, cpg, fpg) = match g.size(0, 3) {
            0 => (1, dim(&mut g, 4).min(24), dim(&mut g, 4).min(24)),
            1 => {
                let c = g.size(2, 5);
                (c, 1, 1)
            }
            2 => (g.size(2, 4), 1, g.size(2, 3)),
            _ => (g.size(2, 3), g.size(1, 3), g.size(1, 3)),
        };
        let (c, f) = (group * cpg, group * fpg);
        let kernel = [g.size(1, 3), g.size(1, 3)];
        let win = Window::draw(&mut g, kernel, true, [2, 2]);
        let n = g.size(1, 2);
        let (h, w) = (win.input_size(&mut g, 0), win.input_size(&mut g, 1));
        let (oh, ow) = (win.output_size(0, h), win.output_size(1, w));
        let sx = [n, c, h, w];
        let sw = [f, cpg, kernel[0], kernel[1]];
        let so = [n, f, oh, ow];
        let bias = g.size(0, 2);
        let fused = g.chance(1, 3);
        let (act_props, act) = if fused {
            activation(&mut g)
        } else {
            (String::new(), "-".into())
        };
        let op = if fused { "fused_conv" } else { "Conv" };
        let mut props = win.props(g.chance(1, 2));
        if group != 1 {
            props.push(format!("group = {group} : i64"));
        }
        if fused {
            props.push(act_props);
        }
        props.sort();
        let k = batch.case(format!(
            "{op} x={sx:?} w={sw:?} -> {so:?} group={group} {win:?} bias={} activation={act}",
            ["none", "arg", "const"][bias]
        ));
        let x = g.tensor_f32(&sx, -1.0, 1.0);
        let x = k.arg(x);
        let wt = g.tensor_f32(&sw, -1.0, 1.0);
        let wt = input(k, &mut g, wt);
        let b = match bias {
            0 => k.none(),
            1 => k.arg(g.tensor_f32(&[f], -1.0, 1.0)),
            _ => k.constant(&g.tensor_f32(&[f], -1.0, 1.0)),
        };
        let y = k.op1(
            &format!("graph.{op}"),
            &[x, wt, b],
            &props.join(", "),
            &ty(&so, "f32"),
        );
        k.output(
            y,
            Tol::Float {
                terms: cpg * kernel[0] * kernel[1] + 1,
            },
        );
    }
    batch.check();
}

#[test]
fn max_and_average_pool() {
    let seed = seed("max_and_average_pool");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("max_and_average_pool", seed);
    for _ in 0..cases(24) {
        let max = g.chance(1, 2);
        let kernel = [g.size(1, 3), g.size(1, 3)];
        // Pads smaller than the kernel, as ONNX requires of pooling.
        let mut win = Window::draw(&mut g, kernel, true, [kernel[0] - 1, kernel[1] - 1]);
        win.ceil = g.chance(1, 3);
        let (n, c) = (g.size(1, 2), g.size(1, 3));
        let (h, w) = (win.input_size(&mut g, 0), win.input_size(&mut g, 1));
        let (oh, ow) = (win.output_size(0, h), win.output_size(1, w));
        let (sx, so) = ([n, c, h, w], [n, c, oh, ow]);
        let mut props = win.props(true);
        let include_pad = !max && g.chance(1, 2);
        if include_pad {
            props.push("count_include_pad = 1 : i64".into());
        }
        props.sort();
        let x = g.tensor_f32(&sx, -1.0, 1.0);
        if max {
            // The indices: `none`, or a tensor nothing reads.
            let indices = if g.chance(1, 2) {
                "none".to_owned()
            } else {
                ty(&so, "i64")
            };
            let k = batch.case(format!(
                "MaxPool x={sx:?} -> {so:?} {win:?} indices={indices}"
            ));
            let x = k.arg(x);
            let out = ty(&so, "f32");
            let r = k.op(
                "graph.MaxPool",
                &[x],
                &props.join(", "),
                &[out.as_str(), indices.as_str()],
            );
            k.output(r[0], Tol::Exact);
        } else {
            let k = batch.case(format!(
                "AveragePool x={sx:?} -> {so:?} {win:?} count_include_pad={include_pad}"
            ));
            let x = k.arg(x);
            let y = k.op1(
                "graph.AveragePool",
                &[x],
                &props.join(", "),
                &ty(&so, "f32"),
            );
            k.output(
                y,
                Tol::Float {
                    terms: kernel[0] * kernel[1],
                },
            );
        }
    }
    batch.check();
}

#[test]
fn global_average_pool() {
    let seed = seed("global_average_pool");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("global_average_pool", seed);
    for _ in 0..cases(12) {
        let sx = [g.size(1, 2), g.size(1, 4), g.size(1, 9), g.size(1, 9)];
        let k = batch.case(format!("GlobalAveragePool x={sx:?}"));
        let x = k.arg(g.tensor_f32(&sx, -1.0, 1.0));
        let y = k.op1(
            "graph.GlobalAveragePool",
            &[x],
            "",
            &ty(&[sx[0], sx[1], 1, 1], "f32"),
        );
        k.output(
            y,
            Tol::Float {
                terms: sx[2] * sx[3],
            },
        );
    }
    batch.check();
}
