#!/usr/bin/env python3
"""Writes the tiny ONNX files that nart-onnx-proto's unit tests decode.

Run from anywhere: `python3 proto/tests/data/make_tiny.py`.
The output is deterministic (no random data, fixed producer fields), so
re-running it leaves the committed files byte-identical for a given onnx
version.

Files written next to this script:
- `tiny.onnx`: a small model that uses many schema features at once
  (initializers with raw and typed data, attributes of every simple kind,
  a subgraph attribute, symbolic dimensions, metadata, a model-local
  function and a sparse initializer).
- `tensor_f32.pb`: one serialized TensorProto (2x3 float, raw_data).
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def tiny_model() -> onnx.ModelProto:
    # Initializers: one with raw_data, one with typed int64_data.
    w = numpy_helper.from_array(
        np.arange(6, dtype=np.float32).reshape(2, 3) / 4.0, name="W"
    )
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [-1, 3], raw=False)
    sparse = helper.make_sparse_tensor(
        helper.make_tensor("S_values", TensorProto.FLOAT, [2], [1.5, -2.0]),
        helper.make_tensor("S_indices", TensorProto.INT64, [2], [0, 5]),
        [2, 3],
    )

    then_graph = helper.make_graph(
        [helper.make_node("Identity", ["W"], ["then_out"])],
        "then_branch",
        [],
        [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, [2, 3])],
    )
    else_graph = helper.make_graph(
        [helper.make_node("Neg", ["W"], ["else_out"])],
        "else_branch",
        [],
        [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, [2, 3])],
    )

    nodes = [
        helper.make_node("Reshape", ["X", "shape"], ["Xr"], name="reshape"),
        helper.make_node("Add", ["Xr", "W"], ["sum"], name="add"),
        helper.make_node(
            "LeakyRelu", ["sum"], ["act"], name="leaky", alpha=0.125
        ),
        helper.make_node(
            "Transpose", ["act"], ["t"], name="transpose", perm=[1, 0]
        ),
        helper.make_node("If", ["cond"], ["branch"], name="if",
                         then_branch=then_graph, else_branch=else_graph),
        helper.make_node("ScaleBy2", ["t"], ["Y"], name="call", domain="nart.test"),
    ]
    # Attributes of the remaining simple kinds, on a node carrying docs.
    nodes[1].doc_string = "adds the weight"
    nodes[5].attribute.append(helper.make_attribute("note", "string attr"))
    nodes[5].attribute.append(helper.make_attribute("weights", [0.5, 0.25]))
    nodes[5].attribute.append(helper.make_attribute("names", ["a", "b"]))

    fn = helper.make_function(
        "nart.test",
        "ScaleBy2",
        ["x"],
        ["y"],
        [
            helper.make_node("Add", ["x", "x"], ["y"]),
        ],
        [helper.make_opsetid("", 17)],
        attributes=["note", "weights", "names"],
    )

    graph = helper.make_graph(
        nodes,
        "tiny",
        [
            helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 3]),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
        ],
        [
            helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, "batch"]),
            helper.make_tensor_value_info("branch", TensorProto.FLOAT, [2, 3]),
        ],
        initializer=[w, shape],
        sparse_initializer=[sparse],
        doc_string="tiny test graph",
    )
    model = helper.make_model(
        graph,
        producer_name="nart-make-tiny",
        producer_version="1",
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("nart.test", 1)],
        functions=[fn],
    )
    model.ir_version = 8
    model.model_version = 3
    helper.set_model_props(model, {"author": "nart", "purpose": "unit tests"})
    onnx.checker.check_model(model)
    return model


def main() -> None:
    model = tiny_model()
    with open(os.path.join(HERE, "tiny.onnx"), "wb") as f:
        f.write(model.SerializeToString(deterministic=True))
    t = numpy_helper.from_array(
        np.array([[1.0, -2.0, 3.5], [0.0, 0.25, -1.0]], dtype=np.float32),
        name="t",
    )
    with open(os.path.join(HERE, "tensor_f32.pb"), "wb") as f:
        f.write(t.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
