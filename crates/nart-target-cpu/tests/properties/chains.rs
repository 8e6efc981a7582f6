//! Chains: random programs of several lowered ops on `[n, n]` tensors, each op reading any
//! earlier value, and outputs drawn among all values (arguments and intermediates included,
//! the same value twice at times). Single ops do not show whether the compiled code keeps an
//! intermediate alive while a later op still reads it, nor whether an output survives the
//! scratch arena's reuse; these do.
//!
//! The tolerance of each output is a forward error bound, in units of `f32::EPSILON` and
//! carried along the chain: each op adds its own rounding (its terms times its result's
//! magnitude bound) to the errors of its operands, scaled by how much the op can amplify
//! them (the magnitude of the other factor, or `n` for a product's sum). Ops are drawn only
//! while magnitudes stay small, so the bound stays meaningful.

use nart_target_cpu::testing::{cases, i64_array, seed, ty, Batch, Case, Gen, Tol, Val};

/// A value of the chain with bounds on its magnitude and on its error (in epsilons).
#[derive(Clone, Copy)]
struct Node {
    v: Val,
    mag: f64,
    err: f64,
}

/// `x` reshaped from `[n, n]` to `to` or back.
fn reshape(k: &mut Case, x: Val, to: &[usize]) -> Val {
    let s: Vec<i64> = to.iter().map(|&d| d as i64).collect();
    let shape = k.constant(&nart_tensor::Tensor::from_vec(vec![s.len()], s).unwrap());
    k.op1("graph.Reshape", &[x, shape], "", &ty(to, "f32"))
}

#[test]
fn chains_of_ops_share_the_arena() {
    let seed = seed("chains_of_ops_share_the_arena");
    let mut g = Gen::new(seed);
    let mut batch = Batch::new("chains_of_ops_share_the_arena", seed);
    for c in 0..cases(12) {
        let n = g.size(2, 6);
        let sq = ty(&[n, n], "f32");
        let steps = g.size(3, 10);
        let k = batch.case(format!("chain {c}: {steps} ops on {n}x{n}"));
        let mut nodes: Vec<Node> = Vec::new();
        for _ in 0..g.size(1, 3) {
            let t = g.tensor_f32(&[n, n], -1.0, 1.0);
            nodes.push(Node {
                v: k.arg(t),
                mag: 1.0,
                err: 0.0,
            });
        }
        let nf = n as f64;
        while nodes.len() < steps + 3 {
            let a = nodes[g.size(0, nodes.len() - 1)];
            let b = nodes[g.size(0, nodes.len() - 1)];
            let node = match g.size(0, 10) {
                0 => Node {
                    v: k.op1("graph.Relu", &[a.v], "", &sq),
                    ..a
                },
                1 => Node {
                    v: k.op1("graph.Tanh", &[a.v], "", &sq),
                    mag: 1.0,
                    err: a.err + 2.0,
                },
                2 => Node {
                    v: k.op1("graph.Sigmoid", &[a.v], "", &sq),
                    mag: 1.0,
                    err: a.err + 4.0,
                },
                3 | 4 if a.mag + b.mag <= 16.0 => {
                    let op = if g.chance(1, 2) {
                        "graph.Add"
                    } else {
                        "graph.Sub"
                    };
                    let mag = a.mag + b.mag;
                    Node {
                        v: k.op1(op, &[a.v, b.v], "", &sq),
                        mag,
                        err: a.err + b.err + mag,
                    }
                }
                5 if a.mag * b.mag <= 16.0 => {
                    let mag = a.mag * b.mag;
                    Node {
                        v: k.op1("graph.Mul", &[a.v, b.v], "", &sq),
                        mag,
                        err: a.err * b.mag + b.err * a.mag + mag,
                    }
                }
                6 if nf * a.mag * b.mag <= 16.0 => {
                    let mag = nf * a.mag * b.mag;
                    Node {
                        v: k.op1("graph.MatMul", &[a.v, b.v], "", &sq),
                        mag,
                        err: nf * (a.err * b.mag + b.err * a.mag) + (nf + 1.0) * mag,
                    }
                }
                7 => Node {
                    v: k.op1("graph.Transpose", &[a.v], "", &sq),
                    ..a
                },
                8 => {
                    let axis = g.int(-2, 1);
                    Node {
                        v: k.op1(
                            "graph.Softmax",
                            &[a.v],
                            &format!("axis = {axis} : i64"),
                            &sq,
                        ),
                        mag: 1.0,
                        err: a.err + nf + 4.0,
                    }
                }
                9 if 9.0 * a.mag + 1.0 <= 16.0 => {
                    // A 3x3 convolution, padded to keep the size, with a bias, through
                    // reshapes to NCHW and back.
                    let x = reshape(k, a.v, &[1, 1, n, n]);
                    let w = g.tensor_f32(&[1, 1, 3, 3], -1.0, 1.0);
                    let w = k.constant(&w);
                    let bias = g.tensor_f32(&[1], -1.0, 1.0);
                    let bias = k.arg(bias);
                    let y = k.op1(
                        "graph.Conv",
                        &[x, w, bias],
                        &format!("pads = {}", i64_array(&[1, 1, 1, 1])),
                        &ty(&[1, 1, n, n], "f32"),
                    );
                    let mag = 9.0 * a.mag + 1.0;
                    Node {
                        v: reshape(k, y, &[n, n]),
                        mag,
                        err: 9.0 * a.err + 10.0 * mag,
                    }
                }
                10 => {
                    // A 3x3 max pool with stride 1 and pads 1, also through reshapes.
                    let x = reshape(k, a.v, &[1, 1, n, n]);
                    let props = format!(
                        "kernel_shape = {}, pads = {}",
                        i64_array(&[3, 3]),
                        i64_array(&[1, 1, 1, 1])
                    );
                    let out = ty(&[1, 1, n, n], "f32");
                    let y = k.op("graph.MaxPool", &[x], &props, &[out.as_str(), "none"])[0];
                    Node {
                        v: reshape(k, y, &[n, n]),
                        ..a
                    }
                }
                _ => continue,
            };
            nodes.push(node);
        }
        // The last value, and one to three others (arguments and repeats allowed).
        let mut outs = vec![*nodes.last().unwrap()];
        for _ in 0..g.size(1, 3) {
            outs.push(nodes[g.size(0, nodes.len() - 1)]);
        }
        for o in outs {
            k.output(
                o.v,
                Tol::Float {
                    terms: o.err.ceil() as usize,
                },
            );
        }
    }
    batch.check();
}
