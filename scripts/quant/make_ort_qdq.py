#!/usr/bin/env python3
"""Writes two models of digits_cnn quantized by ONNX Runtime's `quantize_static` (u8
activations, s8 per-tensor weights, MinMax over the 128 rows of calib_inputs.pb), which
`crates/nart-quant/tests/onnx_qdq.rs` and `crates/nart-cli/tests/quant_onnx.rs` import:

- tests/models/digits_cnn/ort_qdq.onnx: the QDQ format (QuantizeLinear/DequantizeLinear around
  every op);
- tests/models/digits_cnn/ort_qop.onnx: the QOperator format for Conv and MaxPool only
  (QLinearConv; the Gemm stays float here — scripts/quant/make_ort_qop_contrib.py writes a
  model with com.microsoft QGemm and the other contrib ops).

Usage: python3 scripts/quant/make_ort_qdq.py   (needs onnx and onnxruntime; run from anywhere)
The committed file was written with onnx 1.23.2 and onnxruntime 1.32.0.
"""

import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper
from onnxruntime.quantization import (
    CalibrationDataReader,
    CalibrationMethod,
    QuantFormat,
    QuantType,
    quantize_static,
)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODEL_DIR = os.path.join(ROOT, "tests", "models", "digits_cnn")


class Rows(CalibrationDataReader):
    """The calibration batch, one row at a time."""

    def __init__(self, name, x):
        self.items = iter([{name: x[i : i + 1]} for i in range(x.shape[0])])

    def get_next(self):
        return next(self.items, None)


def write(dst, fmt, **kw):
    src = os.path.join(MODEL_DIR, "model.onnx")
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(MODEL_DIR, "calib_inputs.pb")))
    name = onnx.load(src).graph.input[0].name
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "q.onnx")
        quantize_static(
            src,
            out,
            Rows(name, x.astype(np.float32)),
            quant_format=fmt,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            per_channel=False,
            **kw,
        )
        m = onnx.load(out)
    m.producer_name = "onnxruntime.quantization (scripts/quant/make_ort_qdq.py)"
    dst = os.path.join(MODEL_DIR, dst)
    onnx.save(m, dst)
    print(f"wrote {dst} ({os.path.getsize(dst)} bytes)")


def main():
    write("ort_qdq.onnx", QuantFormat.QDQ)
    write("ort_qop.onnx", QuantFormat.QOperator, op_types_to_quantize=["Conv", "MaxPool"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
