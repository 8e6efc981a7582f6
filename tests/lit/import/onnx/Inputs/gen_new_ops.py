#!/usr/bin/env python3
"""Writes new_ops.onnx (run from this folder): operators and element types newer than opset 21."""
import onnx
from onnx import TensorProto as T, helper as h

nodes = [
    h.make_node("RMSNormalization", ["x", "scale"], ["n"], axis=-1),
    h.make_node("Attention", ["n", "n", "n"], ["y"], q_num_heads=2, kv_num_heads=2),
    h.make_node("Cast", ["y"], ["q"], to=T.INT2),
    h.make_node("SequenceConstruct", ["x", "x"], ["s"]),
    h.make_node("Identity", ["s"], ["s2"]),
    h.make_node("SequenceLength", ["s2"], ["len"]),
]
g = h.make_graph(
    nodes,
    "new_ops",
    [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 4])],
    [h.make_tensor_value_info("q", T.INT2, [1, 3, 4]),
     h.make_tensor_value_info("len", T.INT64, [])],
    [h.make_tensor("scale", T.FLOAT, [4], [1.0, 1.0, 1.0, 1.0])],
)
m = h.make_model(g, opset_imports=[h.make_opsetid("", 28)], ir_version=11)
onnx.checker.check_model(m)
onnx.save(m, "new_ops.onnx")
