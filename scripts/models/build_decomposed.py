#!/usr/bin/env python3
"""Builds tests/models/decomposed_transformer: a small pre-norm transformer encoder whose
LayerNorm, GELU and attention are written as decomposed node sequences, the way PyTorch's
TorchScript exporter writes them below opset 17 (torch is not needed: the exact node
sequences are written with onnx.helper).

Usage:
    python3 scripts/models/build_decomposed.py [--out DIR]

Forms, as torch.onnx.export(opset_version=13) writes them:

- nn.LayerNorm: ReduceMean(axes=[-1]) -> Sub -> Pow(2.0) -> ReduceMean(axes=[-1]) ->
  Add(eps) -> Sqrt -> Div -> Mul(weight) -> Add(bias)  (ReduceMean takes axes as an
  attribute before opset 18);
- nn.GELU(): Div(x, 1.4142135381698608) -> Erf -> Add(1.0) -> Mul(x, .) -> Mul(., 0.5);
- nn.GELU(approximate="tanh"): Pow(x, 3.0) -> Mul(0.044715) -> Add(x, .) ->
  Mul(0.7978845834732056) -> Tanh -> Add(1.0) -> Mul(x, .) -> Mul(., 0.5);
- attention written by hand (q @ k.transpose(-2, -1) / sqrt(d), + mask, softmax(-1), @ v):
  MatMul -> Div -> Add -> Softmax(axis=-1) -> MatMul, with Reshape/Transpose around it;
  layer 1 scales with Mul by 1/sqrt(d) and has no mask.

Two layers, d_model 32, 2 heads, ff 64, sequence 8, batch dynamic ("N"); input `x`
[N, 8, 32] float, output `y`. Reference outputs come from ONNX Runtime (all
optimizations), as scripts/models/build_zoo.py writes them.
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from build_zoo import GraphBuilder  # noqa: E402
from ort_run import run_model, write_tensors  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPSET = 13
IR_VERSION = 7  # the IR version that goes with opset 13
SEED = 20261124


def build(rng):
    seq, d, heads, ff = 8, 32, 2, 64
    dh = d // heads
    g = GraphBuilder(rng)
    f32 = lambda v: np.array(v, np.float32)  # noqa: E731

    def linear(x, name, fan_in, fan_out):
        w = (rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32)
        b = (rng.standard_normal(fan_out) * 0.02).astype(np.float32)
        h = g.node("MatMul", [x, g.const(f"{name}.weight", w)], f"{name}.matmul")
        return g.node("Add", [h, g.const(f"{name}.bias", b)], f"{name}.add")

    def layer_norm(x, name):
        gamma = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
        beta = (0.1 * rng.standard_normal(d)).astype(np.float32)
        m = g.node("ReduceMean", [x], f"{name}.mean", axes=[-1])
        c = g.node("Sub", [x, m], f"{name}.sub")
        p = g.node("Pow", [c, g.const(f"{name}.two", f32(2.0))], f"{name}.pow")
        v = g.node("ReduceMean", [p], f"{name}.var", axes=[-1])
        v = g.node("Add", [v, g.const(f"{name}.eps", f32(1e-5))], f"{name}.add_eps")
        s = g.node("Sqrt", [v], f"{name}.sqrt")
        n = g.node("Div", [c, s], f"{name}.div")
        n = g.node("Mul", [n, g.const(f"{name}.weight", gamma)], f"{name}.mul")
        return g.node("Add", [n, g.const(f"{name}.bias", beta)], f"{name}.add")

    def gelu_erf(x, name):
        e = g.node("Div", [x, g.const(f"{name}.sqrt2", f32(1.4142135381698608))], f"{name}.div")
        e = g.node("Erf", [e], f"{name}.erf")
        e = g.node("Add", [e, g.const(f"{name}.one", f32(1.0))], f"{name}.add")
        e = g.node("Mul", [x, e], f"{name}.mul")
        return g.node("Mul", [e, g.const(f"{name}.half", f32(0.5))], f"{name}.out")

    def gelu_tanh(x, name):
        c = g.node("Pow", [x, g.const(f"{name}.three", f32(3.0))], f"{name}.cube")
        c = g.node("Mul", [c, g.const(f"{name}.coef", f32(0.044715))], f"{name}.coef_mul")
        c = g.node("Add", [x, c], f"{name}.inner")
        c = g.node("Mul", [c, g.const(f"{name}.k", f32(0.7978845834732056))], f"{name}.scale")
        c = g.node("Tanh", [c], f"{name}.tanh")
        c = g.node("Add", [c, g.const(f"{name}.one", f32(1.0))], f"{name}.add")
        c = g.node("Mul", [x, c], f"{name}.mul")
        return g.node("Mul", [c, g.const(f"{name}.half", f32(0.5))], f"{name}.out")

    split_shape = g.const("shape.split_heads", np.array([0, seq, heads, dh], np.int64))
    merge_shape = g.const("shape.merge_heads", np.array([0, seq, d], np.int64))
    # A causal mask as an additive constant [S, S] (0 on and below the diagonal).
    mask = np.triu(np.full((seq, seq), -1e4, np.float32), k=1)
    mask_c = g.const("attn.mask", mask)

    x = "x"
    for li in range(2):
        pre = f"layers.{li}"

        def heads_of(t, name):
            t = g.node("Reshape", [t, split_shape], f"{name}.reshape")
            return g.node("Transpose", [t], f"{name}.transpose", perm=[0, 2, 1, 3])

        h = layer_norm(x, f"{pre}.norm1")
        q = heads_of(linear(h, f"{pre}.attn.q", d, d), f"{pre}.attn.q")
        k = heads_of(linear(h, f"{pre}.attn.k", d, d), f"{pre}.attn.k")
        v = heads_of(linear(h, f"{pre}.attn.v", d, d), f"{pre}.attn.v")
        kt = g.node("Transpose", [k], f"{pre}.attn.k_t", perm=[0, 1, 3, 2])
        s = g.node("MatMul", [q, kt], f"{pre}.attn.scores")
        if li == 0:
            s = g.node("Div", [s, g.const(f"{pre}.attn.sqrt_d", f32(np.sqrt(dh)))],
                       f"{pre}.attn.scale")
            s = g.node("Add", [s, mask_c], f"{pre}.attn.mask")
        else:
            s = g.node("Mul", [s, g.const(f"{pre}.attn.rsqrt_d", f32(1 / np.sqrt(dh)))],
                       f"{pre}.attn.scale")
        a = g.node("Softmax", [s], f"{pre}.attn.softmax", axis=-1)
        o = g.node("MatMul", [a, v], f"{pre}.attn.context")
        o = g.node("Transpose", [o], f"{pre}.attn.merge.transpose", perm=[0, 2, 1, 3])
        o = g.node("Reshape", [o, merge_shape], f"{pre}.attn.merge.reshape")
        x = g.node("Add", [x, linear(o, f"{pre}.attn.out", d, d)], f"{pre}.attn.residual")
        h = layer_norm(x, f"{pre}.norm2")
        h = linear(h, f"{pre}.ff1", d, ff)
        h = (gelu_erf if li == 0 else gelu_tanh)(h, f"{pre}.gelu")
        h = linear(h, f"{pre}.ff2", ff, d)
        x = g.node("Add", [x, h], f"{pre}.ff.residual")
    y = layer_norm(x, "norm")
    g.nodes.append(helper.make_node("Identity", [y], ["y"], name="output"))

    graph = helper.make_graph(
        g.nodes, "decomposed_transformer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", seq, d])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", seq, d])],
        initializer=g.inits,
    )
    model = helper.make_model(
        graph, producer_name="nart-build-decomposed", producer_version="1",
        opset_imports=[helper.make_opsetid("", OPSET)],
        doc_string="Pre-norm transformer encoder, 2 layers, d_model 32, 2 heads, ff 64, "
                   "sequence 8, with LayerNorm, GELU (erf, then tanh) and attention "
                   "decomposed as torch.onnx.export writes them at opset 13; seeded "
                   "random weights.",
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    xin = rng.standard_normal((2, seq, d)).astype(np.float32)
    return model, [xin]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "models"))
    args = ap.parse_args(argv)
    rng = np.random.default_rng(SEED)
    model, inputs = build(rng)
    mdir = os.path.join(args.out, "decomposed_transformer")
    os.makedirs(mdir, exist_ok=True)
    mpath = os.path.join(mdir, "model.onnx")
    with open(mpath, "wb") as f:
        f.write(model.SerializeToString(deterministic=True))
    tds = os.path.join(mdir, "test_data_set_0")
    for stale in os.listdir(tds) if os.path.isdir(tds) else []:
        os.remove(os.path.join(tds, stale))
    write_tensors(tds, "input", [numpy_helper.from_array(inputs[0], name="x")])
    write_tensors(tds, "output", run_model(mpath, inputs))
    ops = {}
    for n in model.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    meta = {
        "name": "decomposed_transformer",
        "doc": model.doc_string,
        "opset": OPSET,
        "ir_version": IR_VERSION,
        "seed": SEED,
        "inputs": ["x"],
        "outputs": ["y"],
        "n_nodes": len(model.graph.node),
        "n_params": int(sum(np.prod(t.dims) for t in model.graph.initializer)),
        "op_counts": dict(sorted(ops.items())),
        "onnx": onnx.__version__,
        "model_bytes": os.path.getsize(mpath),
    }
    with open(os.path.join(mdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"decomposed_transformer: {meta['n_nodes']} nodes -> {mdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
