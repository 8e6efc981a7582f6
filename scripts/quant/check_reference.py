#!/usr/bin/env python3
"""Checks nart's ONNX integer operators against `onnx.reference`, element for element.

Usage:
    python3 scripts/quant/check_reference.py --nart PATH [--cases N] [--seed S] [--keep DIR]

For each of QuantizeLinear, DequantizeLinear, QLinearConv, QLinearMatMul, ConvInteger and
MatMulInteger, it draws `--cases` random cases from a seeded generator (shapes, element types,
per-tensor, per-axis and blocked parameters, zero points, groups, strides, pads, dilations,
bias, values that saturate and values on rounding ties), writes each as a one-node model with
its inputs and the outputs of ONNX's Python reference evaluator (`onnx.reference`) in the
backend-test layout (`model.onnx`, `test_data_set_0/input_N.pb`, `output_N.pb`), runs them all
through one `nart run-tests`, and compares every output exactly: same element type, same shape,
same values (floats bit for bit).

Cases stay inside what the reference evaluator computes as the ONNX specification says:
values whose quotient by the scale fits in int32 (NumPy's float-to-int32 conversion of larger
values is undefined), per-row scales and zero points of QLinearMatMul and MatMulInteger's first
input left out (the reference broadcasts them along the wrong axis), and per-channel weight
parameters only for 2-D convolutions (the reference reshapes them for 4-D tensors only).

Exit status 0 when every element agrees, 1 otherwise (the first differences are printed).
"""

import argparse
import os
import warnings
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

# Most cases use opset 21 (blocked quantization, 4-bit types); cases of QuantizeLinear's
# `precision` and of 2-bit types use 25.
OPSET = 21

INT_TYPES = {
    "int8": (np.int8, -128, 127),
    "uint8": (np.uint8, 0, 255),
    "int16": (np.int16, -32768, 32767),
    "uint16": (np.uint16, 0, 65535),
    "int4": (ml_dtypes.int4, -8, 7),
    "uint4": (ml_dtypes.uint4, 0, 15),
    "int32": (np.int32, -(2**31), 2**31 - 1),
    "int2": (ml_dtypes.int2, -2, 1),
    "uint2": (ml_dtypes.uint2, 0, 3),
}


class Case:
    """One node, its inputs (data inputs are graph inputs, the rest initializers)."""

    def __init__(self, op, attrs=None, opset=OPSET):
        self.op = op
        self.attrs = attrs or {}
        self.opset = opset
        self.inputs = []  # (name, array or None, is_initializer)

    def add(self, name, value, init=False):
        self.inputs.append((name, value, init))
        return self

    def model(self, outputs=None):
        names = [n if v is not None else "" for n, v, _ in self.inputs]
        while names and names[-1] == "":
            names.pop()
        node = helper.make_node(self.op, names, ["y"], **self.attrs)
        graph_inputs, inits = [], []
        for name, value, init in self.inputs:
            if value is None:
                continue
            if init:
                inits.append(numpy_helper.from_array(value, name))
            else:
                ty = helper.np_dtype_to_tensor_dtype(value.dtype)
                graph_inputs.append(helper.make_tensor_value_info(name, ty, value.shape))
        if outputs is None:
            out = helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)
        else:
            y = outputs[0]
            out = helper.make_tensor_value_info(
                "y", helper.np_dtype_to_tensor_dtype(y.dtype), y.shape
            )
        graph = helper.make_graph([node], "g", graph_inputs, [out], initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 10
        return model

    def feeds(self):
        return {n: v for n, v, init in self.inputs if v is not None and not init}


def ints(rng, tname, shape, lo=None, hi=None):
    dt, tlo, thi = INT_TYPES[tname]
    lo = tlo if lo is None else lo
    hi = thi if hi is None else hi
    return rng.integers(lo, hi, size=shape, endpoint=True).astype(np.int64).astype(dt)


def scalar(value, dtype):
    return np.array(value).astype(dtype)


DECIMAL = [0.1, 0.05, 0.02, 0.01, 0.2, 0.004, 0.025, 0.0125, 0.5, 0.25]


def scales(rng, n, pow2=False):
    """Random scales: powers of two (exact ties), round decimals (ties up to float error, where
    the order of float operations decides), or anything."""
    kind = "pow2" if pow2 else ["decimal", "any"][int(rng.integers(0, 1, endpoint=True))]
    if kind == "pow2":
        return (2.0 ** rng.integers(-8, 0, size=n)).astype(np.float32)
    if kind == "decimal":
        return np.array([DECIMAL[j] for j in rng.integers(0, len(DECIMAL), size=n)], np.float32)
    return (2.0 ** rng.uniform(-9, -1, size=n)).astype(np.float32)


def rand_shape(rng, rank, lo=1, hi=5):
    return tuple(int(v) for v in rng.integers(lo, hi, size=rank, endpoint=True))


# ----- generators -----


def gen_quantize(rng, i):
    rank = int(rng.integers(1, 4, endpoint=True))
    shape = rand_shape(rng, rank)
    # Every 7th case is an opset-25 one: 2-bit outputs, mixed input and scale types,
    # `precision`.
    late = i % 7 == 6
    out = ["uint8", "int8", "uint16", "int16", "int4", "uint4"][i % 6]
    if late and i % 3 == 0:
        out = ["int2", "uint2"][(i // 3) % 2]
    _, lo, hi = INT_TYPES[out]
    mode = ["tensor", "axis", "block"][i % 3]
    axis = int(rng.integers(-rank, rank))
    a = axis % rank
    attrs = {}
    if mode == "tensor":
        sshape = ()
    elif mode == "axis":
        sshape = (shape[a],)
        attrs["axis"] = axis
    else:
        block = int(rng.integers(1, 3, endpoint=True))
        sshape = tuple(-(-d // block) if k == a else d for k, d in enumerate(shape))
        attrs["axis"] = axis
        attrs["block_size"] = block
    n = int(np.prod(sshape)) if sshape else 1
    pow2 = i % 4 == 0
    s = scales(rng, n, pow2).reshape(sshape)
    zp = ints(rng, out, sshape, lo // 2, hi // 2 if hi > 1 else hi)
    # Values around the representable range, with some beyond it (saturation) and, for
    # power-of-two scales, exact ties.
    x = rng.normal(0.0, 0.5, size=shape) * (hi - lo)
    if pow2:
        x = np.round(x * 2) / 2
    srep = s
    if mode == "axis" and rank > 1:
        srep = s.reshape([shape[a] if k == a else 1 for k in range(rank)])
    elif mode == "block":
        srep = np.repeat(s, attrs["block_size"], axis=a).take(range(shape[a]), axis=a)
    if i % 7 in (5, 6):
        # Quotients that float16 holds (beyond it NumPy's conversion to int32 is undefined).
        x = np.clip(x, -30000, 30000)
    x = (x * srep).astype(np.float32)
    if i % 7 == 5:
        # 16-bit floats: NumPy divides in float16.
        x, s = x.astype(np.float16), s.astype(np.float16)
    if late:
        x = x.astype([np.float32, np.float16, np.int32][int(rng.integers(0, 2, endpoint=True))])
        s = s.astype([np.float32, np.float16][int(rng.integers(0, 1, endpoint=True))])
        precision = [None, TensorProto.FLOAT, TensorProto.FLOAT16][int(rng.integers(0, 2, endpoint=True))]
        if precision is not None:
            attrs["precision"] = precision
    case = Case("QuantizeLinear", attrs, 25 if late else OPSET).add("x", x).add("s", s, True)
    if i % 5 == 4 and out in ("uint8", "int8", "int16"):
        # No zero point: the type comes from output_dtype.
        case.attrs["output_dtype"] = helper.np_dtype_to_tensor_dtype(np.dtype(INT_TYPES[out][0]))
    else:
        case.add("z", zp, True)
    return case


def gen_dequantize(rng, i):
    rank = int(rng.integers(1, 4, endpoint=True))
    shape = rand_shape(rng, rank)
    late = i % 6 == 5
    xt = ["uint8", "int8", "uint16", "int16", "int4", "uint4", "int32"][i % 7]
    if late and i % 4 == 1:
        xt = ["int2", "uint2"][(i // 4) % 2]
    mode = ["tensor", "axis", "block"][i % 3]
    axis = int(rng.integers(-rank, rank))
    a = axis % rank
    attrs = {}
    if mode == "tensor":
        sshape = ()
    elif mode == "axis":
        sshape = (shape[a],)
        attrs["axis"] = axis
    else:
        block = int(rng.integers(1, 3, endpoint=True))
        sshape = tuple(-(-d // block) if k == a else d for k, d in enumerate(shape))
        attrs["axis"] = axis
        attrs["block_size"] = block
    n = int(np.prod(sshape)) if sshape else 1
    s = scales(rng, n).reshape(sshape)
    if i % 4 == 1:
        s = s.astype(np.float16)
    x = ints(rng, xt, shape)
    if late and i % 3 == 0:
        attrs["output_dtype"] = [TensorProto.FLOAT, TensorProto.FLOAT16][(i // 3) % 2]
    case = Case("DequantizeLinear", attrs, 25 if late else OPSET).add("x", x).add("s", s, True)
    if i % 5 != 4:
        _, lo, hi = INT_TYPES[xt]
        case.add("z", ints(rng, xt, sshape, lo // 4, hi // 4), True)
    return case


def gen_qlinear_matmul(rng, i):
    at = ["uint8", "int8"][i % 2]
    bt = ["uint8", "int8"][(i // 2) % 2]
    yt = ["uint8", "int8"][(i // 4) % 2]
    m, k, n = (int(v) for v in rng.integers(1, 8, size=3, endpoint=True))
    batch_a = [(), (2,), (2, 1)][i % 3]
    batch_b = [(), (1,), (3,)][(i // 3) % 3] if batch_a else ()
    a = ints(rng, at, batch_a + (m, k))
    b = ints(rng, bt, batch_b + (k, n))
    sa = scales(rng, 1)[0]
    per_col = i % 2 == 0 and not batch_b
    sb = scales(rng, n) if per_col else scales(rng, 1)[0]
    _, blo, bhi = INT_TYPES[bt]
    zb = ints(rng, bt, (n,) if per_col else (), blo // 4, bhi // 4)
    _, alo, ahi = INT_TYPES[at]
    za = scalar(int(rng.integers(alo // 2, ahi // 2)), INT_TYPES[at][0])
    # The output scale puts typical results inside the range, some beyond.
    sy = np.float32(sa * np.max(sb) * np.sqrt(k) * 40.0 * rng.uniform(0.5, 2.0))
    if i % 2 == 1:
        sy = np.float32(DECIMAL[int(rng.integers(0, len(DECIMAL)))])
    _, ylo, yhi = INT_TYPES[yt]
    zy = scalar(int(rng.integers(ylo // 2, yhi // 2)), INT_TYPES[yt][0])
    # Every 5th case has float16 scales: the multiplier is computed in float16.
    ts = np.float16 if i % 5 == 4 else np.float32
    case = Case("QLinearMatMul")
    case.add("a", a).add("sa", np.asarray(sa, ts), True).add("za", za, True)
    case.add("b", b, i % 3 == 0).add("sb", np.asarray(sb, ts), True).add("zb", zb, True)
    case.add("sy", np.asarray(sy, ts), True).add("zy", zy, True)
    return case


def conv_shapes(rng, i, rank):
    group = [1, 1, 2, 3][i % 4]
    depthwise = i % 7 == 3
    cg = 1 if depthwise else int(rng.integers(1, 3, endpoint=True))
    c = cg * group
    m = group * int(rng.integers(1, 2 if depthwise else 3, endpoint=True))
    spatial = rand_shape(rng, rank, 3, 7)
    kernel = rand_shape(rng, rank, 1, 3)
    attrs = {"group": group}
    if i % 2 == 0:
        attrs["strides"] = [int(v) for v in rng.integers(1, 2, size=rank, endpoint=True)]
    if i % 3 != 0:
        attrs["dilations"] = [int(v) for v in rng.integers(1, 2, size=rank, endpoint=True)]
    if i % 5 == 1:
        attrs["auto_pad"] = ["SAME_UPPER", "SAME_LOWER", "VALID"][i % 3]
    elif i % 2 == 1:
        attrs["pads"] = [int(v) for v in rng.integers(0, 1, size=2 * rank, endpoint=True)]
    if i % 4 == 0:
        attrs["kernel_shape"] = list(kernel)
    eff = [(k - 1) * d + 1 for k, d in zip(kernel, attrs.get("dilations", [1] * rank))]
    spatial = tuple(max(s, e) for s, e in zip(spatial, eff))
    return group, c, m, cg, spatial, kernel, attrs


def gen_qlinear_conv(rng, i):
    rank = [2, 2, 1, 2, 3][i % 5]
    group, c, m, cg, spatial, kernel, attrs = conv_shapes(rng, i, rank)
    xt = ["uint8", "int8"][i % 2]
    wt = ["uint8", "int8"][(i // 2) % 2]
    yt = ["uint8", "int8"][(i // 3) % 2]
    n = int(rng.integers(1, 2, endpoint=True))
    x = ints(rng, xt, (n, c) + spatial)
    w = ints(rng, wt, (m, cg) + kernel)
    sx = np.float32(scales(rng, 1)[0])
    per_channel = rank == 2 and i % 2 == 0
    sw = scales(rng, m) if per_channel else np.float32(scales(rng, 1)[0])
    _, wlo, whi = INT_TYPES[wt]
    zw = ints(rng, wt, (m,) if per_channel and wt == "int8" else (), wlo // 8, whi // 8)
    _, xlo, xhi = INT_TYPES[xt]
    zx = scalar(int(rng.integers(xlo // 2, xhi // 2)), INT_TYPES[xt][0])
    k = cg * int(np.prod(kernel))
    sy = np.float32(sx * np.max(sw) * np.sqrt(k) * 40.0 * rng.uniform(0.5, 2.0))
    if i % 2 == 1:
        sy = np.float32(DECIMAL[int(rng.integers(0, len(DECIMAL)))])
    _, ylo, yhi = INT_TYPES[yt]
    zy = scalar(int(rng.integers(ylo // 2, yhi // 2)), INT_TYPES[yt][0])
    case = Case("QLinearConv", attrs)
    case.add("x", x).add("sx", sx, True).add("zx", zx, True)
    case.add("w", w, True).add("sw", np.asarray(sw, np.float32), True).add("zw", zw, True)
    case.add("sy", sy, True).add("zy", zy, True)
    if i % 3 != 2:
        case.add("b", rng.integers(-5000, 5000, size=m).astype(np.int32), True)
    return case


def gen_conv_integer(rng, i):
    rank = [2, 1, 2, 3][i % 4]
    group, c, m, cg, spatial, kernel, attrs = conv_shapes(rng, i, rank)
    xt = ["uint8", "int8"][i % 2]
    wt = ["uint8", "int8"][(i // 2) % 2]
    x = ints(rng, xt, (1, c) + spatial)
    w = ints(rng, wt, (m, cg) + kernel)
    case = Case("ConvInteger", attrs).add("x", x).add("w", w, i % 2 == 0)
    if i % 5 != 4:
        _, xlo, xhi = INT_TYPES[xt]
        case.add("zx", scalar(int(rng.integers(xlo // 2, xhi // 2)), INT_TYPES[xt][0]), True)
        _, wlo, whi = INT_TYPES[wt]
        per_channel = rank == 2 and i % 3 == 0
        case.add("zw", ints(rng, wt, (m,) if per_channel else (), wlo // 8, whi // 8), True)
    return case


def gen_matmul_integer(rng, i):
    at = ["uint8", "int8"][i % 2]
    bt = ["uint8", "int8"][(i // 2) % 2]
    m, k, n = (int(v) for v in rng.integers(1, 8, size=3, endpoint=True))
    batch_a = [(), (2,), (2, 3)][i % 3]
    batch_b = [(), (3,), (1, 3)][(i // 3) % 3] if len(batch_a) == 2 else ()
    case = Case("MatMulInteger")
    case.add("a", ints(rng, at, batch_a + (m, k))).add("b", ints(rng, bt, batch_b + (k, n)))
    if i % 4 != 3:
        _, alo, ahi = INT_TYPES[at]
        case.add("za", scalar(int(rng.integers(alo // 2, ahi // 2)), INT_TYPES[at][0]), True)
        _, blo, bhi = INT_TYPES[bt]
        per_col = i % 2 == 0 and not batch_b
        case.add("zb", ints(rng, bt, (n,) if per_col else (), blo // 4, bhi // 4), True)
    return case


GENERATORS = {
    "QuantizeLinear": gen_quantize,
    "DequantizeLinear": gen_dequantize,
    "QLinearConv": gen_qlinear_conv,
    "QLinearMatMul": gen_qlinear_matmul,
    "ConvInteger": gen_conv_integer,
    "MatMulInteger": gen_matmul_integer,
}


def same(got, want):
    """Exact equality: element type, shape, and values (floats bit for bit)."""
    if got.dtype != want.dtype:
        return f"element type {got.dtype} != {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if want.dtype.kind == "f":
        bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[want.dtype.itemsize]
        bad = np.flatnonzero(got.view(bits) != want.view(bits))
    else:
        bad = np.flatnonzero(got.astype(np.int64) != want.astype(np.int64))
    if bad.size:
        j = bad[0]
        return (
            f"{bad.size} of {want.size} elements differ; first at {j}: "
            f"{got.reshape(-1)[j]!r} != {want.reshape(-1)[j]!r}"
        )
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nart", required=True, help="the nart binary")
    ap.add_argument("--cases", type=int, default=60, help="random cases per operator")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--keep", help="write the cases here and keep them")
    args = ap.parse_args()
    # The reference overflows float16 on some drawn cases (to infinity, as nart does); its
    # warnings are noise here.
    warnings.simplefilter("ignore", RuntimeWarning)

    root = args.keep or tempfile.mkdtemp(prefix="nart-qref-")
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    dirs, expected = [], {}
    for op, gen in GENERATORS.items():
        made = 0
        attempt = 0
        while made < args.cases:
            attempt += 1
            case = gen(rng, attempt)
            try:
                want = ReferenceEvaluator(case.model()).run(None, case.feeds())
            except Exception as e:  # A drawn case the reference rejects is drawn again.
                if attempt > 20 * args.cases:
                    sys.exit(f"{op}: the reference rejects the generated cases: {e}")
                continue
            name = f"{op}_{made:03d}"
            d = os.path.join(root, name)
            data = os.path.join(d, "test_data_set_0")
            os.makedirs(data, exist_ok=True)
            with open(os.path.join(d, "model.onnx"), "wb") as f:
                f.write(case.model(want).SerializeToString())
            for k, (n, v) in enumerate(case.feeds().items()):
                with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(v, n).SerializeToString())
            expected[name] = (op, want)
            dirs.append(d)
            made += 1

    out_root = os.path.join(root, "nart-out")
    run = subprocess.run(
        [args.nart, "run-tests", "--outputs", out_root] + dirs,
        capture_output=True,
        text=True,
    )
    status = {}
    for line in run.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            status[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    counts = defaultdict(lambda: [0, 0, 0])  # cases, elements, failed cases
    failures = []
    for name, (op, want) in expected.items():
        c = counts[op]
        c[0] += 1
        c[1] += sum(w.size for w in want)
        st, msg = status.get(name, ("missing", run.stderr.strip()[-300:]))
        if st != "ok":
            c[2] += 1
            failures.append(f"{name}: nart {st}: {msg}")
            continue
        for k, w in enumerate(want):
            path = os.path.join(out_root, name, "test_data_set_0", f"output_{k}.pb")
            t = onnx.TensorProto()
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
            problem = same(numpy_helper.to_array(t), w)
            if problem:
                c[2] += 1
                failures.append(f"{name}: output {k}: {problem}")
                break
    total = [0, 0, 0]
    print(f"onnx {onnx.__version__} reference vs nart, opset {OPSET}, seed {args.seed}:")
    for op in GENERATORS:
        cases, elems, bad = counts[op]
        total = [t + v for t, v in zip(total, (cases, elems, bad))]
        print(f"  {op:17} {cases:4} cases {elems:7} elements  {cases - bad:4} exact")
    print(f"  {'all':17} {total[0]:4} cases {total[1]:7} elements  {total[0] - total[2]:4} exact")
    for f in failures[:20]:
        print("  FAIL " + f)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
