"""Writes tests/models/keyb_ops, a small model with static shapes for the cpu target's
end-to-end test of GatherElements (run-time indices, negative ones included), Shape (with
start), ConstantOfShape, Range (f32 and i64), Einsum (a product with a transposed operand and
a diagonal) and TopK (largest and smallest), with test_data_set_0 (seeded inputs, ONNX
Runtime's outputs). Every op should run on cpu.

Seeded, so the files are reproducible; needs onnx, numpy and onnxruntime.
"""

import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

root = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "models")
rng = np.random.default_rng(18)


def const(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


F, I64 = TensorProto.FLOAT, TensorProto.INT64
n = helper.make_node
inits = [
    const("w", rng.standard_normal((3, 6)).astype(np.float32)),
    const("sq", rng.standard_normal((4, 4)).astype(np.float32)),
    const("shape26", np.array([2, 6], np.int64)),
    const("r0", np.array(0.5, np.float32)),
    const("r1", np.array(3.25, np.float32)),
    const("rd", np.array(0.5, np.float32)),
    const("i0", np.array(10, np.int64)),
    const("i1", np.array(-2, np.int64)),
    const("id", np.array(-3, np.int64)),
    const("k3", np.array([3], np.int64)),
    const("k2", np.array([2], np.int64)),
]
nodes = [
    n("GatherElements", ["x", "idx"], ["g"], axis=1),
    n("Shape", ["x"], ["shape_tail"], start=1),
    n("ConstantOfShape", ["shape26"], ["half"], value=numpy_helper.from_array(np.array([0.5], np.float32))),
    n("Range", ["r0", "r1", "rd"], ["rf"]),
    n("Range", ["i0", "i1", "id"], ["ri"]),
    n("Add", ["g", "half"], ["gh"]),
    n("Add", ["gh", "rf"], ["sum"]),
    n("Einsum", ["x", "w"], ["e"], equation="ij,kj->ik"),
    n("Einsum", ["sq"], ["diag"], equation="ii->i"),
    n("TopK", ["sum", "k3"], ["top_v", "top_i"], axis=1),
    n("TopK", ["x", "k2"], ["low_v", "low_i"], axis=0, largest=0),
]
inputs = [
    helper.make_tensor_value_info("x", F, [2, 6]),
    helper.make_tensor_value_info("idx", I64, [2, 6]),
]
outputs = [
    helper.make_tensor_value_info("sum", F, [2, 6]),
    helper.make_tensor_value_info("shape_tail", I64, [1]),
    helper.make_tensor_value_info("ri", I64, [4]),
    helper.make_tensor_value_info("e", F, [2, 3]),
    helper.make_tensor_value_info("diag", F, [4]),
    helper.make_tensor_value_info("top_v", F, [2, 3]),
    helper.make_tensor_value_info("top_i", I64, [2, 3]),
    helper.make_tensor_value_info("low_v", F, [2, 6]),
    helper.make_tensor_value_info("low_i", I64, [2, 6]),
]
x = rng.standard_normal((2, 6)).astype(np.float32)
idx = rng.integers(-6, 6, (2, 6)).astype(np.int64)
feeds = {"x": x, "idx": idx}

here = os.path.join(root, "keyb_ops")
os.makedirs(os.path.join(here, "test_data_set_0"), exist_ok=True)
graph = helper.make_graph(nodes, "keyb_ops", inputs, outputs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], producer_name="nart")
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
