"""Writes tests/models/static_cnn: a small CNN with static shapes (batch 1), the cpu target's
end-to-end test model: Conv (pads, stride) + Relu, MaxPool, Conv + Clip, GlobalAveragePool,
Flatten, Gemm, Softmax. Seeded, so the file is reproducible; needs only onnx and numpy."""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "models", "static_cnn")
os.makedirs(os.path.join(here, "test_data_set_0"), exist_ok=True)
rng = np.random.default_rng(7)


def w(name, *shape, scale=0.3):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


inits = [
    w("c1.w", 8, 3, 3, 3), w("c1.b", 8),
    w("c2.w", 16, 8, 3, 3), w("c2.b", 16),
    w("fc.w", 10, 16), w("fc.b", 10),
    numpy_helper.from_array(np.array(0.0, np.float32), "lo"),
    numpy_helper.from_array(np.array(6.0, np.float32), "hi"),
]
nodes = [
    helper.make_node("Conv", ["x", "c1.w", "c1.b"], ["c1"], name="conv1", pads=[1, 1, 1, 1], strides=[1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "c2.w", "c2.b"], ["c2"], name="conv2", pads=[1, 1, 1, 1], strides=[2, 2]),
    helper.make_node("Clip", ["c2", "lo", "hi"], ["r2"], name="relu6"),
    helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
    helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=1),
]
graph = helper.make_graph(
    nodes,
    "static_cnn",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
    inits,
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="nart")
onnx.checker.check_model(model, full_check=True)
onnx.save(model, os.path.join(here, "model.onnx"))
x = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
with open(os.path.join(here, "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
try:
    import onnxruntime as ort

    y = ort.InferenceSession(os.path.join(here, "model.onnx")).run(None, {"x": x})[0]
    with open(os.path.join(here, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
except ImportError:
    pass
