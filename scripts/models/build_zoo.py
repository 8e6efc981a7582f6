#!/usr/bin/env python3
"""Builds nart's model zoo: small real ONNX models with reference data.

Usage:
    python3 scripts/models/build_zoo.py [--out DIR] [--cache DIR]
                                        [--only NAME[,NAME...]] [--small-only]

Every model is built with the `onnx.helper` API and NumPy only (no torch), from
a fixed seed, so a rerun with the same onnx/onnxruntime/numpy versions on the
same machine writes identical files:

| name            | what                                             | goes to  |
|-----------------|--------------------------------------------------|----------|
| digits_mlp      | 64-64-10 MLP trained on scikit-learn's digits    | --out    |
| digits_cnn      | 2-conv CNN trained on scikit-learn's digits      | --out    |
| tiny_transformer| 2-layer transformer encoder, d_model 64, random  | --out    |
| resnet18        | torchvision ResNet-18 layout, random weights     | --cache  |
| mobilenetv2     | torchvision MobileNetV2 layout, random weights   | --cache  |

`--out` defaults to `tests/models` of the repository (small models, committed);
`--cache` defaults to `$NART_MODEL_CACHE` or `~/.cache/nart/models` (large
models, never committed).
Each model lands in `<dir>/<name>/model.onnx` with held-out inputs and
ONNX Runtime outputs in `<dir>/<name>/test_data_set_0/{input,output}_N.pb`,
and a `meta.json` describing it.
The digits models also get the whole held-out split (`heldout_inputs.pb`,
`heldout_labels.pb`) and calibration inputs drawn from the training split
(`calib_inputs.pb`).

The digits data (`sklearn.datasets.load_digits`) ships inside scikit-learn;
nothing is downloaded.
"""

import argparse
import json
import os
import sys
import time
from typing import Callable, Dict, List, Tuple

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ort_run import run_model, write_tensors  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPSET = 17
IR_VERSION = 8  # the IR version that goes with opset 17
SEED = 20240517

# ----------------------------------------------------------------------------
# Graph building helpers
# ----------------------------------------------------------------------------


class GraphBuilder:
    """Collects nodes and initializers with unique, readable names."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.nodes: List[onnx.NodeProto] = []
        self.inits: List[onnx.TensorProto] = []
        self.counts: Dict[str, int] = {}

    def const(self, name: str, arr: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name=name))
        return name

    def node(self, op: str, inputs: List[str], name: str, n_out: int = 1, **attrs) -> str:
        idx = self.counts.get(op, 0)
        self.counts[op] = idx + 1
        node_name = name or f"{op}_{idx}"
        outs = [node_name if n_out == 1 else f"{node_name}:{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=node_name, **attrs))
        return outs[0]

    def model(self, name: str, inputs, outputs, doc: str) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, name, inputs, outputs, initializer=self.inits)
        model = helper.make_model(
            graph,
            producer_name="nart-build-zoo",
            producer_version="1",
            opset_imports=[helper.make_opsetid("", OPSET)],
            doc_string=doc,
        )
        model.ir_version = IR_VERSION
        onnx.checker.check_model(model, full_check=True)
        return model


def he_normal(rng, shape, fan_in) -> np.ndarray:
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


# ----------------------------------------------------------------------------
# Digits data and NumPy training
# ----------------------------------------------------------------------------


def digits_split(seed: int):
    """Returns (x_train, y_train, x_test, y_test) with pixels scaled to [0, 1]."""
    from sklearn.datasets import load_digits

    data = load_digits()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.int64)
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = len(x) // 4  # 449 of 1797
    test, train = perm[:n_test], perm[n_test:]
    return x[train], y[train], x[test], y[test]


def softmax_xent(logits: np.ndarray, y: np.ndarray) -> Tuple[float, np.ndarray]:
    """Mean cross-entropy and its gradient with respect to the logits."""
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    n = len(y)
    loss = float(-np.log(p[np.arange(n), y] + 1e-12).mean())
    p[np.arange(n), y] -= 1.0
    return loss, p / n


def sgd_train(params: Dict[str, np.ndarray], grad_fn: Callable, x, y, rng,
              epochs: int, lr: float, batch: int = 32, momentum: float = 0.9,
              weight_decay: float = 1e-4) -> None:
    """Plain SGD with momentum; `grad_fn(params, xb, yb)` returns (loss, grads)."""
    vel = {k: np.zeros_like(v) for k, v in params.items()}
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        total = 0.0
        for start in range(0, len(x), batch):
            idx = order[start:start + batch]
            loss, grads = grad_fn(params, x[idx], y[idx])
            total += loss * len(idx)
            step_lr = lr * 0.5 * (1 + np.cos(np.pi * epoch / epochs))  # cosine decay
            for k in params:
                g = grads[k] + weight_decay * params[k]
                vel[k] = momentum * vel[k] - step_lr * g
                params[k] += vel[k].astype(np.float32)
        if epoch == epochs - 1 or epoch % 10 == 0:
            print(f"    epoch {epoch:3d} loss {total / len(x):.4f}")


def mlp_forward(p, x):
    h_pre = x @ p["fc1.weight"].T + p["fc1.bias"]
    h = np.maximum(h_pre, 0)
    return h @ p["fc2.weight"].T + p["fc2.bias"], (h_pre, h)


def mlp_grads(p, x, y):
    logits, (h_pre, h) = mlp_forward(p, x)
    loss, d = softmax_xent(logits, y)
    g = {"fc2.weight": d.T @ h, "fc2.bias": d.sum(0)}
    dh = (d @ p["fc2.weight"]) * (h_pre > 0)
    g["fc1.weight"] = dh.T @ x
    g["fc1.bias"] = dh.sum(0)
    return loss, g


def conv3x3_forward(x, w, b):
    """3x3 convolution, stride 1, padding 1, NCHW; returns (out, windows)."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    out = np.einsum("bchwkl,ockl->bohw", win, w, optimize=True) + b[None, :, None, None]
    return out, win


def conv3x3_backward(dout, win, w, x_shape):
    dw = np.einsum("bohw,bchwkl->ockl", dout, win, optimize=True)
    db = dout.sum(axis=(0, 2, 3))
    bsz, c, h, wd = x_shape
    dxp = np.zeros((bsz, c, h + 2, wd + 2), dtype=dout.dtype)
    for ki in range(3):
        for kj in range(3):
            dxp[:, :, ki:ki + h, kj:kj + wd] += np.einsum(
                "bohw,oc->bchw", dout, w[:, :, ki, kj], optimize=True)
    return dxp[:, :, 1:-1, 1:-1], dw, db


def maxpool2_forward(x):
    b, c, h, w = x.shape
    r = x.reshape(b, c, h // 2, 2, w // 2, 2)
    out = r.max(axis=(3, 5))
    return out, r


def maxpool2_backward(dout, r, out):
    mask = r == out[:, :, :, None, :, None]
    mask = mask / mask.sum(axis=(3, 5), keepdims=True)
    d = mask * dout[:, :, :, None, :, None]
    b, c, h2, _, w2, _ = r.shape
    return d.reshape(b, c, h2 * 2, w2 * 2)


def cnn_forward(p, x):
    c1, win1 = conv3x3_forward(x, p["conv1.weight"], p["conv1.bias"])
    a1 = np.maximum(c1, 0)
    m1, r1 = maxpool2_forward(a1)
    c2, win2 = conv3x3_forward(m1, p["conv2.weight"], p["conv2.bias"])
    a2 = np.maximum(c2, 0)
    m2, r2 = maxpool2_forward(a2)
    flat = m2.reshape(len(x), -1)
    logits = flat @ p["fc.weight"].T + p["fc.bias"]
    return logits, (x, c1, win1, m1, r1, c2, win2, m2, r2, flat)


def cnn_grads(p, x, y):
    logits, (x, c1, win1, m1, r1, c2, win2, m2, r2, flat) = cnn_forward(p, x)
    loss, d = softmax_xent(logits, y)
    g = {"fc.weight": d.T @ flat, "fc.bias": d.sum(0)}
    dm2 = (d @ p["fc.weight"]).reshape(m2.shape)
    dc2 = maxpool2_backward(dm2, r2, m2) * (c2 > 0)
    dm1, g["conv2.weight"], g["conv2.bias"] = conv3x3_backward(
        dc2, win2, p["conv2.weight"], m1.shape)
    dc1 = maxpool2_backward(dm1, r1, m1) * (c1 > 0)
    _, g["conv1.weight"], g["conv1.bias"] = conv3x3_backward(
        dc1, win1, p["conv1.weight"], x.shape)
    return loss, g


def accuracy(logits: np.ndarray, y: np.ndarray) -> float:
    return float((logits.argmax(axis=1) == y).mean())


# ----------------------------------------------------------------------------
# Models
# ----------------------------------------------------------------------------


def build_digits_mlp(rng):
    x_tr, y_tr, x_te, y_te = digits_split(SEED)
    p = {
        "fc1.weight": he_normal(rng, (64, 64), 64),
        "fc1.bias": np.zeros(64, np.float32),
        "fc2.weight": he_normal(rng, (10, 64), 64),
        "fc2.bias": np.zeros(10, np.float32),
    }
    sgd_train(p, mlp_grads, x_tr, y_tr, rng, epochs=60, lr=0.05)
    acc = accuracy(mlp_forward(p, x_te)[0], y_te)

    g = GraphBuilder(rng)
    for k, v in p.items():
        g.const(k, v)
    h = g.node("Gemm", ["input", "fc1.weight", "fc1.bias"], "fc1", transB=1)
    h = g.node("Relu", [h], "relu1")
    g.node("Gemm", [h, "fc2.weight", "fc2.bias"], "logits", transB=1)
    model = g.model(
        "digits_mlp",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 64])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        "MLP 64-64-10 on 8x8 digits scaled to [0, 1]; outputs logits.",
    )
    data = dict(x_tr=x_tr, y_tr=y_tr, x_te=x_te, y_te=y_te, acc=acc)
    return model, data


def build_digits_cnn(rng):
    x_tr, y_tr, x_te, y_te = digits_split(SEED)
    x_tr = x_tr.reshape(-1, 1, 8, 8)
    x_te = x_te.reshape(-1, 1, 8, 8)
    p = {
        "conv1.weight": he_normal(rng, (8, 1, 3, 3), 9),
        "conv1.bias": np.zeros(8, np.float32),
        "conv2.weight": he_normal(rng, (16, 8, 3, 3), 72),
        "conv2.bias": np.zeros(16, np.float32),
        "fc.weight": he_normal(rng, (10, 64), 64),
        "fc.bias": np.zeros(10, np.float32),
    }
    sgd_train(p, cnn_grads, x_tr, y_tr, rng, epochs=30, lr=0.05)
    acc = accuracy(cnn_forward(p, x_te)[0], y_te)

    g = GraphBuilder(rng)
    for k, v in p.items():
        g.const(k, v)
    h = g.node("Conv", ["input", "conv1.weight", "conv1.bias"], "conv1",
               kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    h = g.node("Relu", [h], "relu1")
    h = g.node("MaxPool", [h], "pool1", kernel_shape=[2, 2], strides=[2, 2])
    h = g.node("Conv", [h, "conv2.weight", "conv2.bias"], "conv2",
               kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    h = g.node("Relu", [h], "relu2")
    h = g.node("MaxPool", [h], "pool2", kernel_shape=[2, 2], strides=[2, 2])
    h = g.node("Flatten", [h], "flatten", axis=1)
    g.node("Gemm", [h, "fc.weight", "fc.bias"], "logits", transB=1)
    model = g.model(
        "digits_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 1, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        "CNN conv8-pool-conv16-pool-fc10 on 1x8x8 digits scaled to [0, 1]; outputs logits.",
    )
    data = dict(x_tr=x_tr, y_tr=y_tr, x_te=x_te, y_te=y_te, acc=acc)
    return model, data


def build_tiny_transformer(rng):
    """A 2-layer post-norm transformer encoder over token ids.

    input_ids [N, 16] int64 (vocabulary 100) -> hidden [N, 16, 64] float.
    Attention has 4 heads of 16; the feed-forward width is 128 with GELU
    written with Erf (opset 17 has no Gelu op).
    """
    vocab, seq, d, heads, ff, layers = 100, 16, 64, 4, 128, 2
    dh = d // heads
    g = GraphBuilder(rng)

    def lin_w(name, fan_in, fan_out):
        # Stored [in, out] for MatMul, as torch's exporter does.
        w = (rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32)
        b = (rng.standard_normal(fan_out) * 0.02).astype(np.float32)
        return g.const(f"{name}.weight", w), g.const(f"{name}.bias", b)

    def linear(x, name, fan_in, fan_out):
        w, b = lin_w(name, fan_in, fan_out)
        h = g.node("MatMul", [x, w], f"{name}.matmul")
        return g.node("Add", [h, b], f"{name}.add")

    def layer_norm(x, name):
        gamma = g.const(f"{name}.weight", (1 + 0.1 * rng.standard_normal(d)).astype(np.float32))
        beta = g.const(f"{name}.bias", (0.1 * rng.standard_normal(d)).astype(np.float32))
        return g.node("LayerNormalization", [x, gamma, beta], name, axis=-1, epsilon=1e-5)

    emb = g.const("embed.weight", (rng.standard_normal((vocab, d)) * 0.5).astype(np.float32))
    pos = g.const("pos.weight", (rng.standard_normal((seq, d)) * 0.1).astype(np.float32))
    split_shape = g.const("shape.split_heads", np.array([0, seq, heads, dh], np.int64))
    merge_shape = g.const("shape.merge_heads", np.array([0, seq, d], np.int64))
    scale = g.const("attn.scale", np.array(1.0 / np.sqrt(dh), np.float32))
    half = g.const("gelu.half", np.array(0.5, np.float32))
    one = g.const("gelu.one", np.array(1.0, np.float32))
    rsqrt2 = g.const("gelu.rsqrt2", np.array(1.0 / np.sqrt(2.0), np.float32))

    x = g.node("Gather", [emb, "input_ids"], "embed", axis=0)
    x = g.node("Add", [x, pos], "embed.add_pos")
    for li in range(layers):
        pre = f"layers.{li}"

        def heads_of(t, name):
            t = g.node("Reshape", [t, split_shape], f"{name}.reshape")
            return g.node("Transpose", [t], f"{name}.transpose", perm=[0, 2, 1, 3])

        q = heads_of(linear(x, f"{pre}.attn.q", d, d), f"{pre}.attn.q")
        k = heads_of(linear(x, f"{pre}.attn.k", d, d), f"{pre}.attn.k")
        v = heads_of(linear(x, f"{pre}.attn.v", d, d), f"{pre}.attn.v")
        kt = g.node("Transpose", [k], f"{pre}.attn.k_t", perm=[0, 1, 3, 2])
        s = g.node("MatMul", [q, kt], f"{pre}.attn.scores")
        s = g.node("Mul", [s, scale], f"{pre}.attn.scale")
        a = g.node("Softmax", [s], f"{pre}.attn.softmax", axis=-1)
        o = g.node("MatMul", [a, v], f"{pre}.attn.context")
        o = g.node("Transpose", [o], f"{pre}.attn.merge.transpose", perm=[0, 2, 1, 3])
        o = g.node("Reshape", [o, merge_shape], f"{pre}.attn.merge.reshape")
        o = linear(o, f"{pre}.attn.out", d, d)
        x = layer_norm(g.node("Add", [x, o], f"{pre}.attn.residual"), f"{pre}.norm1")
        h = linear(x, f"{pre}.ff1", d, ff)
        e = g.node("Mul", [h, rsqrt2], f"{pre}.gelu.scale")
        e = g.node("Erf", [e], f"{pre}.gelu.erf")
        e = g.node("Add", [e, one], f"{pre}.gelu.add")
        e = g.node("Mul", [h, e], f"{pre}.gelu.mul")
        h = g.node("Mul", [e, half], f"{pre}.gelu.half")
        h = linear(h, f"{pre}.ff2", ff, d)
        name = "hidden" if li == layers - 1 else f"{pre}.norm2"
        x = layer_norm(g.node("Add", [x, h], f"{pre}.ff.residual"), name)
    model = g.model(
        "tiny_transformer",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["N", seq])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["N", seq, d])],
        "Transformer encoder, 2 post-norm layers, d_model 64, 4 heads, ff 128, "
        "vocabulary 100, sequence 16; seeded random weights.",
    )
    ids = rng.integers(0, vocab, size=(2, seq), dtype=np.int64)
    return model, dict(inputs=[ids])


def conv_bn(g: GraphBuilder, x, name, c_in, c_out, k, stride, act, groups=1):
    """Conv (no bias) + BatchNormalization + optional activation, torchvision style."""
    rng = g.rng
    w = g.const(f"{name}.weight",
                he_normal(rng, (c_out, c_in // groups, k, k), c_in // groups * k * k))
    bn = f"{name.replace('conv', 'bn')}" if "conv" in name else f"{name}.bn"
    gamma = g.const(f"{bn}.weight", rng.uniform(0.5, 1.0, c_out).astype(np.float32))
    beta = g.const(f"{bn}.bias", (0.1 * rng.standard_normal(c_out)).astype(np.float32))
    mean = g.const(f"{bn}.running_mean", (0.1 * rng.standard_normal(c_out)).astype(np.float32))
    var = g.const(f"{bn}.running_var", rng.uniform(0.5, 1.5, c_out).astype(np.float32))
    p = k // 2
    h = g.node("Conv", [x, w], name, kernel_shape=[k, k], strides=[stride, stride],
               pads=[p, p, p, p], group=groups)
    h = g.node("BatchNormalization", [h, gamma, beta, mean, var], bn, epsilon=1e-5)
    if act == "relu":
        h = g.node("Relu", [h], f"{bn}.relu")
    elif act == "relu6":
        h = g.node("Clip", [h, "relu6.min", "relu6.max"], f"{bn}.relu6")
    return h


def classifier_head(g: GraphBuilder, x, c_in, n_classes=1000):
    rng = g.rng
    h = g.node("GlobalAveragePool", [x], "avgpool")
    h = g.node("Flatten", [h], "flatten", axis=1)
    bound = 1.0 / np.sqrt(c_in)
    w = g.const("fc.weight", rng.uniform(-bound, bound, (n_classes, c_in)).astype(np.float32))
    b = g.const("fc.bias", rng.uniform(-bound, bound, n_classes).astype(np.float32))
    return g.node("Gemm", [h, w, b], "logits", transB=1)


def image_io():
    return (
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 1000])],
    )


def build_resnet18(rng):
    g = GraphBuilder(rng)
    x = conv_bn(g, "input", "conv1", 3, 64, 7, 2, "relu")
    x = g.node("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c_in = 64
    for stage, c_out in enumerate([64, 128, 256, 512], start=1):
        for block in range(2):
            stride = 2 if stage > 1 and block == 0 else 1
            pre = f"layer{stage}.{block}"
            h = conv_bn(g, x, f"{pre}.conv1", c_in, c_out, 3, stride, "relu")
            h = conv_bn(g, h, f"{pre}.conv2", c_out, c_out, 3, 1, None)
            skip = x
            if stride != 1 or c_in != c_out:
                skip = conv_bn(g, x, f"{pre}.downsample", c_in, c_out, 1, stride, None)
            h = g.node("Add", [h, skip], f"{pre}.add")
            x = g.node("Relu", [h], f"{pre}.relu")
            c_in = c_out
    classifier_head(g, x, 512)
    ins, outs = image_io()
    model = g.model("resnet18", ins, outs,
                    "ResNet-18 (torchvision layout, BatchNorm unfused), seeded random weights.")
    img = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
    return model, dict(inputs=[img])


def build_mobilenetv2(rng):
    g = GraphBuilder(rng)
    g.const("relu6.min", np.array(0.0, np.float32))
    g.const("relu6.max", np.array(6.0, np.float32))
    x = conv_bn(g, "input", "features.0.conv", 3, 32, 3, 2, "relu6")
    c_in = 32
    idx = 1
    # (expansion t, channels c, repeats n, first stride s), as in the paper.
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            pre = f"features.{idx}"
            hidden = c_in * t
            h = x
            if t != 1:
                h = conv_bn(g, h, f"{pre}.expand.conv", c_in, hidden, 1, 1, "relu6")
            h = conv_bn(g, h, f"{pre}.dw.conv", hidden, hidden, 3, stride, "relu6", groups=hidden)
            h = conv_bn(g, h, f"{pre}.project.conv", hidden, c, 1, 1, None)
            if stride == 1 and c_in == c:
                h = g.node("Add", [h, x], f"{pre}.add")
            x = h
            c_in = c
            idx += 1
    x = conv_bn(g, x, f"features.{idx}.conv", c_in, 1280, 1, 1, "relu6")
    classifier_head(g, x, 1280)
    ins, outs = image_io()
    model = g.model("mobilenetv2", ins, outs,
                    "MobileNetV2 (torchvision layout, BatchNorm unfused, ReLU6 as Clip), "
                    "seeded random weights.")
    img = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
    return model, dict(inputs=[img])


# ----------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------

SMALL = ["digits_mlp", "digits_cnn", "tiny_transformer"]
LARGE = ["resnet18", "mobilenetv2"]
BUILDERS = {
    "digits_mlp": build_digits_mlp,
    "digits_cnn": build_digits_cnn,
    "tiny_transformer": build_tiny_transformer,
    "resnet18": build_resnet18,
    "mobilenetv2": build_mobilenetv2,
}


def tensor_file(path: str, arr: np.ndarray, name: str) -> None:
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(arr, name=name).SerializeToString(deterministic=True))


def write_model(name: str, out_root: str, seed: int) -> dict:
    rng = np.random.default_rng([seed, sorted(BUILDERS).index(name)])
    start = time.perf_counter()
    model, data = BUILDERS[name](rng)
    build_s = time.perf_counter() - start
    mdir = os.path.join(out_root, name)
    os.makedirs(mdir, exist_ok=True)
    mpath = os.path.join(mdir, "model.onnx")
    with open(mpath, "wb") as f:
        f.write(model.SerializeToString(deterministic=True))
    input_names = [i.name for i in model.graph.input]

    meta = {
        "name": name,
        "doc": model.doc_string,
        "opset": OPSET,
        "ir_version": IR_VERSION,
        "seed": seed,
        "inputs": [i.name for i in model.graph.input],
        "outputs": [o.name for o in model.graph.output],
        "n_params": int(sum(np.prod(t.dims) for t in model.graph.initializer)),
        "n_nodes": len(model.graph.node),
        "model_bytes": os.path.getsize(mpath),
        "onnx": onnx.__version__,
    }
    if "x_te" in data:
        # A held-out batch of 16 images for the differential tests, plus the
        # whole held-out split with labels and 128 calibration images.
        inputs = [data["x_te"][:16]]
        tensor_file(os.path.join(mdir, "heldout_inputs.pb"), data["x_te"], "input")
        tensor_file(os.path.join(mdir, "heldout_labels.pb"), data["y_te"], "labels")
        tensor_file(os.path.join(mdir, "calib_inputs.pb"), data["x_tr"][:128], "input")
        ort_logits = numpy_helper.to_array(run_model(mpath, [data["x_te"]])[0])
        meta["heldout_accuracy_numpy"] = round(data["acc"], 4)
        meta["heldout_accuracy_ort"] = round(accuracy(ort_logits, data["y_te"]), 4)
        meta["n_heldout"] = int(len(data["y_te"]))
        meta["n_train"] = int(len(data["y_tr"]))
    else:
        inputs = data["inputs"]
    tds = os.path.join(mdir, "test_data_set_0")
    for stale in os.listdir(tds) if os.path.isdir(tds) else []:
        os.remove(os.path.join(tds, stale))
    write_tensors(tds, "input", [numpy_helper.from_array(a, name=n)
                                 for a, n in zip(inputs, input_names)])
    write_tensors(tds, "output", run_model(mpath, inputs))
    with open(os.path.join(mdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"  {name}: {meta['n_nodes']} nodes, {meta['n_params']} params, "
          f"{meta['model_bytes']} bytes, built in {build_s:.1f}s -> {mdir}")
    if "heldout_accuracy_ort" in meta:
        print(f"    held-out accuracy: numpy {meta['heldout_accuracy_numpy']:.4f}, "
              f"onnxruntime {meta['heldout_accuracy_ort']:.4f} on {meta['n_heldout']} digits")
    return meta


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "models"),
                    help="folder for the small models (default: tests/models)")
    ap.add_argument("--cache", default=os.environ.get(
        "NART_MODEL_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "nart", "models")),
        help="folder for the large models (default: $NART_MODEL_CACHE or ~/.cache/nart/models)")
    ap.add_argument("--only", default="", help="comma-separated model names to build")
    ap.add_argument("--small-only", action="store_true", help="skip ResNet-18 and MobileNetV2")
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    names = SMALL + ([] if args.small_only else LARGE)
    if args.only:
        names = [n for n in args.only.split(",") if n]
        unknown = [n for n in names if n not in BUILDERS]
        if unknown:
            raise SystemExit(f"error: unknown model(s) {unknown}; known: {sorted(BUILDERS)}")
    for name in names:
        root = args.out if name in SMALL else args.cache
        print(f"building {name}")
        write_model(name, root, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
