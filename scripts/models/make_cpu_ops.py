"""Writes two small models with static shapes for the cpu target's end-to-end tests, each with
test_data_set_0 (seeded inputs, ONNX Runtime's outputs):

- tests/models/cpu_ops: one graph using the ops `convert-graph-to-linalg` lowers beyond the
  CNN set: Gather with run-time (negative) indices, MatMul with 1-D operands and broadcast
  batches, LayerNormalization over two axes, Reduce* (axes as inputs, keepdims 0 and 1),
  ArgMax/ArgMin, Slice with a negative step, Split, Pad, Expand, Where, comparisons, logic,
  Cast, Pow, Sqrt, Reciprocal, Neg, Abs, Floor, Ceil, Round, Sign, Gelu, HardSigmoid,
  HardSwish and the variadic Max/Min/Sum/Mean. Every op should run on cpu.
- tests/models/fallback_mix: MatMul, a Pad in reflect mode, a 1-D LpPool (between two
  Reshapes; the cpu target does not lower LpPool) and Relu, so the partitioner must place
  the LpPool on another target.

Seeded, so the files are reproducible; needs onnx, numpy and onnxruntime.
"""

import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

root = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "models")
rng = np.random.default_rng(12)


def const(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def save(name, nodes, inputs, outputs, inits, feeds, opset):
    here = os.path.join(root, name)
    os.makedirs(os.path.join(here, "test_data_set_0"), exist_ok=True)
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="nart")
    model.ir_version = 9
    onnx.checker.check_model(model, full_check=True)
    path = os.path.join(here, "model.onnx")
    onnx.save(model, path)
    for i, (k, v) in enumerate(feeds.items()):
        with open(os.path.join(here, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, k).SerializeToString())
    ys = ort.InferenceSession(path).run(None, feeds)
    for i, (o, y) in enumerate(zip(outputs, ys)):
        with open(os.path.join(here, "test_data_set_0", f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y, o.name).SerializeToString())


F, I64 = TensorProto.FLOAT, TensorProto.INT64
n = helper.make_node
inits = [
    const("table", rng.standard_normal((10, 8)).astype(np.float32)),
    const("w", (rng.standard_normal((8, 4)) * 0.5).astype(np.float32)),
    const("v", rng.standard_normal(8).astype(np.float32)),
    const("bb", (rng.standard_normal((4, 8, 5)) * 0.5).astype(np.float32)),
    const("ln_s", (1 + 0.1 * rng.standard_normal((3, 8))).astype(np.float32)),
    const("ln_b", (0.1 * rng.standard_normal(8)).astype(np.float32)),
    const("ax1", np.array([1], np.int64)),
    const("ax2", np.array([2], np.int64)),
    const("ax12", np.array([1, 2], np.int64)),
    const("s_start", np.array([-1], np.int64)),
    const("s_end", np.array([-100], np.int64)),
    const("s_step", np.array([-2], np.int64)),
    const("s2_start", np.array([1, 0], np.int64)),
    const("s2_end", np.array([3, 7], np.int64)),
    const("s2_axes", np.array([1, -1], np.int64)),
    const("split", np.array([3, 5], np.int64)),
    const("pads", np.array([0, 0, 1, 0, 1, 2], np.int64)),
    const("pad_v", np.array(0.5, np.float32)),
    const("shape", np.array([2, 3, 8], np.int64)),
    const("zero", np.array(0.0, np.float32)),
    const("half", np.array(0.5, np.float32)),
    const("p15", np.array(1.5, np.float32)),
    const("two", np.array(2.0, np.float32)),
    const("three", np.array(3.0, np.float32)),
]
nodes = [
    n("Gather", ["table", "ids"], ["g"], axis=0),
    n("ReduceSum", ["g", "ax2"], ["g_sum"], keepdims=0),
    n("MatMul", ["x", "w"], ["mm1"]),
    n("MatMul", ["x", "v"], ["mm2"]),
    n("Unsqueeze", ["x", "ax1"], ["x4"]),
    n("MatMul", ["x4", "bb"], ["mm3"]),
    n("LayerNormalization", ["x", "ln_s", "ln_b"], ["ln"], axis=1, epsilon=1e-5),
    n("ReduceMax", ["x", "ax1"], ["rmax"], keepdims=1),
    n("ReduceMin", ["x", "ax2"], ["rmin"], keepdims=0),
    n("ReduceMean", ["x", "ax12"], ["rmean"], keepdims=0),
    n("ReduceProd", ["x", "ax1"], ["rprod"], keepdims=0),
    n("ReduceL1", ["x", "ax2"], ["rl1"], keepdims=0),
    n("ReduceL2", ["x", "ax2"], ["rl2"], keepdims=0),
    n("ReduceSumSquare", ["x", "ax2"], ["rss"], keepdims=0),
    n("ReduceLogSumExp", ["x", "ax2"], ["rlse"], keepdims=0),
    n("Concat", ["rmin", "rl1", "rl2", "rss", "rlse", "rprod"], ["reds"], axis=1),
    n("ArgMax", ["x"], ["amax"], axis=2, keepdims=0),
    n("ArgMin", ["x"], ["amin"], axis=2, keepdims=1, select_last_index=1),
    n("ReduceMax", ["amin", "ax2"], ["amin_flat"], keepdims=0),
    n("Slice", ["x", "s_start", "s_end", "ax2", "s_step"], ["sl"]),
    n("Slice", ["x", "s2_start", "s2_end", "s2_axes"], ["sl2"]),
    n("Split", ["x", "split"], ["sp_a", "sp_b"], axis=2),
    n("Pad", ["sl", "pads", "pad_v"], ["pd"], mode="constant"),
    n("ReduceMean", ["x", "ax2"], ["m2"], keepdims=1),
    n("Expand", ["m2", "shape"], ["ex"]),
    n("Less", ["x", "rmax"], ["lt"]),
    n("Neg", ["x"], ["nx"]),
    n("Where", ["lt", "x", "nx"], ["wh"]),
    n("Greater", ["x", "zero"], ["c1"]),
    n("LessOrEqual", ["x", "half"], ["c2"]),
    n("GreaterOrEqual", ["x", "ex"], ["c3"]),
    n("Equal", ["amax", "amin_flat"], ["c4"]),
    n("Xor", ["c1", "c2"], ["c5"]),
    n("And", ["c5", "c3"], ["c6"]),
    n("Or", ["c6", "c2"], ["c7"]),
    n("Not", ["c7"], ["c8"]),
    n("Cast", ["c8"], ["c8f"], to=F),
    n("Cast", ["c4"], ["c4i"], to=TensorProto.INT32),
    n("Cast", ["c4i"], ["c4f"], to=F),
    n("Mul", ["x", "three"], ["x3"]),
    n("Cast", ["x3"], ["x3i"], to=TensorProto.INT32),
    n("Cast", ["x3i"], ["x3l"], to=I64),
    n("Cast", ["x3l"], ["x3f"], to=F),
    n("Floor", ["x3"], ["fl"]),
    n("Ceil", ["x3"], ["ce"]),
    n("Round", ["x3"], ["rd"]),
    n("Sign", ["fl"], ["sg"]),
    n("Abs", ["x"], ["ab"]),
    n("Pow", ["ab", "p15"], ["pw"]),
    n("Pow", ["x", "two"], ["pw2"]),
    n("Sqrt", ["ab"], ["sq"]),
    n("Add", ["sq", "half"], ["sqh"]),
    n("Reciprocal", ["sqh"], ["rc"]),
    n("Gelu", ["x"], ["ge"]),
    n("Gelu", ["x"], ["get"], approximate="tanh"),
    n("HardSigmoid", ["x"], ["hs"], alpha=0.3, beta=0.4),
    n("HardSwish", ["x"], ["hw"]),
    n("Max", ["x", "ex", "rmax"], ["vmax"]),
    n("Min", ["x", "ex"], ["vmin"]),
    n("Sum", ["fl", "ce", "rd"], ["vsum"]),
    n("Mean", ["x3f", "sg", "pw", "pw2"], ["vmean"]),
    n("Identity", ["rc"], ["id"]),
    n("Concat", ["wh", "c8f", "x3f", "fl", "ce", "rd", "sg", "vsum", "vmean", "id", "ge", "get", "hs", "hw",
                 "vmax", "vmin", "ex", "ln"], ["pointwise"], axis=2),
]
inputs = [helper.make_tensor_value_info("x", F, [2, 3, 8]),
          helper.make_tensor_value_info("ids", I64, [2, 5])]
outputs = [
    helper.make_tensor_value_info("g_sum", F, [2, 5]),
    helper.make_tensor_value_info("mm1", F, [2, 3, 4]),
    helper.make_tensor_value_info("mm2", F, [2, 3]),
    helper.make_tensor_value_info("mm3", F, [2, 4, 3, 5]),
    helper.make_tensor_value_info("reds", F, [2, 5 * 3 + 8]),
    helper.make_tensor_value_info("rmean", F, [2]),
    helper.make_tensor_value_info("amax", I64, [2, 3]),
    helper.make_tensor_value_info("c4f", F, [2, 3]),
    helper.make_tensor_value_info("sl2", F, [2, 2, 7]),
    helper.make_tensor_value_info("sp_a", F, [2, 3, 3]),
    helper.make_tensor_value_info("sp_b", F, [2, 3, 5]),
    helper.make_tensor_value_info("pd", F, [2, 4, 7]),
    helper.make_tensor_value_info("pointwise", F, [2, 3, 8 * 18]),
]
x = rng.standard_normal((2, 3, 8)).astype(np.float32)
ids = np.array([[0, 3, -1, 9, 4], [-10, 2, 7, 7, 1]], np.int64)
save("cpu_ops", nodes, inputs, outputs, inits, {"x": x, "ids": ids}, 20)

# A model with one op the cpu target does not lower (a 1-D LpPool).
inits = [
    const("w", (rng.standard_normal((6, 8)) * 0.5).astype(np.float32)),
    const("pads", np.array([0, 1, 0, 2], np.int64)),
    const("rows", np.array([-1, 1, 11], np.int64)),
    const("flat", np.array([-1, 11], np.int64)),
]
nodes = [
    n("MatMul", ["x", "w"], ["h"]),
    n("Pad", ["h", "pads"], ["p"], mode="reflect"),
    n("Reshape", ["p", "rows"], ["p3"]),
    n("LpPool", ["p3"], ["m3"], kernel_shape=[3], pads=[1, 1], p=2),
    n("Reshape", ["m3", "flat"], ["m"]),
    n("Relu", ["m"], ["y"]),
]
x = rng.standard_normal((2, 6)).astype(np.float32)
save("fallback_mix", nodes, [helper.make_tensor_value_info("x", F, ["N", 6])],
     [helper.make_tensor_value_info("y", F, ["N", 11])], inits, {"x": x}, 18)
