#!/usr/bin/env python3
"""Writes tests/models/qop_contrib: a small float CNN (seeded random weights) that uses every op
ONNX Runtime's quantizer writes as a com.microsoft QOperator contrib op, and its QOperator model
from `quantize_static`, which `crates/nart-cli/tests/quant_onnx.rs` imports and runs against
ONNX Runtime:

- float.onnx (not model.onnx, so that the zoo tests, which read every tests/models/*/model.onnx
  with its test_data_set_0, leave it alone): Conv, LeakyRelu, Conv, Add, Sigmoid, Mul, Concat, AveragePool, GlobalAveragePool,
  Flatten, Gemm (input 1x4x8x8);
- ort_qop.onnx: QOperator format, u8 activations, s8 per-tensor weights, MinMax over 16 seeded
  random inputs: QLinearConv plus com.microsoft QLinearLeakyRelu, QLinearAdd, QLinearSigmoid,
  QLinearMul, QLinearConcat, QLinearAveragePool, QLinearGlobalAveragePool and QGemm;
- input_0.pb: one more seeded random input.

Usage: python3 scripts/quant/make_ort_qop_contrib.py   (needs onnx and onnxruntime)
The committed files were written with onnx 1.23.2 and onnxruntime 1.32.0.
"""

import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (
    CalibrationDataReader,
    CalibrationMethod,
    QuantFormat,
    QuantType,
    quantize_static,
)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "tests", "models", "qop_contrib")


def model(rng):
    def w(name, *shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    inits = [w("w1", 8, 4, 3, 3), w("b1", 8), w("w2", 8, 8, 1, 1), w("b2", 8), w("fc", 5, 16),
             w("fcb", 5)]
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        n("LeakyRelu", ["c1"], ["l1"], name="leaky", alpha=0.1),
        n("Conv", ["l1", "w2", "b2"], ["c2"], name="conv2"),
        n("Add", ["c2", "c1"], ["a"], name="add"),
        n("Sigmoid", ["a"], ["s"], name="sigmoid"),
        n("Mul", ["a", "s"], ["m"], name="mul"),
        n("Concat", ["m", "a"], ["cat"], name="concat", axis=1),
        n("AveragePool", ["cat"], ["p"], name="avgpool", kernel_shape=[2, 2], strides=[2, 2]),
        n("GlobalAveragePool", ["p"], ["g"], name="gap"),
        n("Flatten", ["g"], ["f"], name="flatten"),
        n("Gemm", ["f", "fc", "fcb"], ["y"], name="fc", transB=1),
    ]
    g = helper.make_graph(
        nodes, "qop_contrib",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    m.producer_name = "scripts/quant/make_ort_qop_contrib.py"
    onnx.checker.check_model(m)
    return m


class Samples(CalibrationDataReader):
    def __init__(self, xs):
        self.items = iter([{"x": x} for x in xs])

    def get_next(self):
        return next(self.items, None)


def main():
    rng = np.random.default_rng(20261124)
    os.makedirs(OUT, exist_ok=True)
    m = model(rng)
    src = os.path.join(OUT, "float.onnx")
    onnx.save(m, src)
    xs = [rng.standard_normal((1, 4, 8, 8)).astype(np.float32) for _ in range(16)]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "q.onnx")
        quantize_static(src, out, Samples(xs), quant_format=QuantFormat.QOperator,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax, per_channel=False)
        q = onnx.load(out)
    q.producer_name = "onnxruntime.quantization (scripts/quant/make_ort_qop_contrib.py)"
    onnx.save(q, os.path.join(OUT, "ort_qop.onnx"))
    x = rng.standard_normal((1, 4, 8, 8)).astype(np.float32)
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(OUT, "input_0.pb"))
    ops = sorted({(n.domain or "ai.onnx") + "." + n.op_type for n in q.graph.node})
    print("wrote", OUT, ":", ", ".join(ops))
    return 0


if __name__ == "__main__":
    sys.exit(main())
