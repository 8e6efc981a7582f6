"""Writes tests/models/nms, a small model for the cpu target's NonMaxSuppression, with
test_data_set_0 (seeded inputs, ONNX Runtime's outputs):

two NonMaxSuppression nodes over the same scores, one on corner boxes ([y1, x1, y2, x2], some
with flipped corners) with a constant IoU threshold, one on center boxes ([x, y, w, h]) with
the IoU threshold as a graph input; both with a constant max_output_boxes_per_class and score
threshold. Boxes lie on a coarse grid so that many overlap; scores are distinct, since ONNX
leaves the order of equal scores to the implementation.

Seeded, so the files are reproducible; needs onnx, numpy and onnxruntime.
"""

import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

here = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "models", "nms")
rng = np.random.default_rng(18)
B, C, N = 2, 3, 10

corners = rng.integers(0, 6, size=(B, N, 4)).astype(np.float32) * 0.5
centers = np.concatenate(
    [rng.integers(0, 6, size=(B, N, 2)) * 0.5, rng.integers(1, 5, size=(B, N, 2)) * 0.5], axis=2
).astype(np.float32)
scores = rng.permutation(B * C * N).reshape(B, C, N).astype(np.float32) / (B * C * N)
iou = np.array([0.25], np.float32)

F, I64 = TensorProto.FLOAT, TensorProto.INT64
inits = [
    numpy_helper.from_array(np.array([7], np.int64), "max_boxes"),
    numpy_helper.from_array(np.array([0.3], np.float32), "iou_const"),
    numpy_helper.from_array(np.array([0.2], np.float32), "score_min"),
]
nodes = [
    helper.make_node(
        "NonMaxSuppression", ["corners", "scores", "max_boxes", "iou_const", "score_min"], ["sel_corners"]
    ),
    helper.make_node(
        "NonMaxSuppression",
        ["centers", "scores", "max_boxes", "iou", "score_min"],
        ["sel_centers"],
        center_point_box=1,
    ),
]
inputs = [
    helper.make_tensor_value_info("corners", F, [B, N, 4]),
    helper.make_tensor_value_info("centers", F, [B, N, 4]),
    helper.make_tensor_value_info("scores", F, [B, C, N]),
    helper.make_tensor_value_info("iou", F, [1]),
]
outputs = [
    helper.make_tensor_value_info("sel_corners", I64, ["K1", 3]),
    helper.make_tensor_value_info("sel_centers", I64, ["K2", 3]),
]
graph = helper.make_graph(nodes, "nms", inputs, outputs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="nart")
model.ir_version = 9
onnx.checker.check_model(model, full_check=True)
os.makedirs(os.path.join(here, "test_data_set_0"), exist_ok=True)
path = os.path.join(here, "model.onnx")
onnx.save(model, path)
feeds = {"corners": corners, "centers": centers, "scores": scores, "iou": iou}
for i, (k, v) in enumerate(feeds.items()):
    with open(os.path.join(here, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(v, k).SerializeToString())
ys = ort.InferenceSession(path).run(None, feeds)
for i, (o, y) in enumerate(zip(outputs, ys)):
    with open(os.path.join(here, "test_data_set_0", f"output_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, o.name).SerializeToString())
    print(o.name, y.shape)
