"""Builds tests/models/keya_ops: ConvTranspose, Resize (linear and nearest), Pad in reflect,
edge and wrap modes, LogSoftmax and Mod (float fmod=1, integer fmod=0), every op of which the
cpu target lowers; test_data_set_0 holds seeded inputs and ONNX Runtime's outputs.

Run from anywhere: python3 tests/models/keya_ops/make_model.py (needs onnx, numpy and
onnxruntime).
"""

import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(18)
F, I32 = TensorProto.FLOAT, TensorProto.INT32


def const(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


inits = [
    const("w", (rng.standard_normal((2, 3, 3, 3)) * 0.5).astype(np.float32)),
    const("b", rng.standard_normal(3).astype(np.float32)),
    const("half", np.array([1, 1, 0.5, 0.5], np.float32)),
    const("sizes", np.array([1, 2, 9, 7], np.int64)),
    const("pads_reflect", np.array([0, 0, 1, 1, 0, 0, 2, 2], np.int64)),
    const("pads_edge", np.array([0, 0, 2, -1, 0, 0, 1, 3], np.int64)),
    const("pads_wrap", np.array([1, 2], np.int64)),
    const("wrap_axes", np.array([-1], np.int64)),
    const("divisor", np.array([0.7], np.float32)),
    const("idiv", np.array([3, -4, 5, -2, 7, 3], np.int32)),
]
n = helper.make_node
nodes = [
    n("ConvTranspose", ["x", "w", "b"], ["ct"], strides=[2, 2], pads=[1, 1, 1, 1],
      output_padding=[1, 1]),
    n("Resize", ["ct", "", "half"], ["r"], mode="linear"),
    n("Pad", ["r", "pads_reflect"], ["p"], mode="reflect"),
    n("LogSoftmax", ["p"], ["ls"], axis=1),
    n("Mod", ["ls", "divisor"], ["y1"], fmod=1),
    n("Resize", ["x", "", "", "sizes"], ["rn"], mode="nearest",
      coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
    n("Pad", ["rn", "pads_edge"], ["pe"], mode="edge"),
    n("Pad", ["pe", "pads_wrap", "", "wrap_axes"], ["y2"], mode="wrap"),
    n("Mod", ["ids", "idiv"], ["y3"]),
]
graph = helper.make_graph(
    nodes, "keya_ops",
    [helper.make_tensor_value_info("x", F, [1, 2, 5, 5]),
     helper.make_tensor_value_info("ids", I32, [6])],
    [helper.make_tensor_value_info("y1", F, [1, 3, 8, 8]),
     helper.make_tensor_value_info("y2", F, [1, 2, 12, 12]),
     helper.make_tensor_value_info("y3", I32, [6])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)],
                          producer_name="nart")
model.ir_version = 9
onnx.checker.check_model(model, full_check=True)
onnx.save(model, os.path.join(here, "model.onnx"))

feeds = {
    "x": rng.standard_normal((1, 2, 5, 5)).astype(np.float32),
    "ids": np.array([17, -9, 0, 7, -13, 11], np.int32),
}
data = os.path.join(here, "test_data_set_0")
os.makedirs(data, exist_ok=True)
for i, (k, v) in enumerate(feeds.items()):
    with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(v, k).SerializeToString())
sess = ort.InferenceSession(os.path.join(here, "model.onnx"), providers=["CPUExecutionProvider"])
outs = sess.run(None, feeds)
for i, (o, info) in enumerate(zip(outs, sess.get_outputs())):
    with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(o, info.name).SerializeToString())
    print(info.name, o.shape, o.dtype)
