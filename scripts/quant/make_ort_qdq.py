#!/usr/bin/env python3
"""Writes tests/models/digits_cnn/ort_qdq.onnx: digits_cnn quantized by ONNX Runtime's
`quantize_static` in the QDQ format (u8 activations, s8 per-tensor weights, MinMax over the 128
rows of calib_inputs.pb), the model `crates/nart-quant/tests/onnx_qdq.rs` imports and lifts.

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


def main():
    src = os.path.join(MODEL_DIR, "model.onnx")
    dst = os.path.join(MODEL_DIR, "ort_qdq.onnx")
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(MODEL_DIR, "calib_inputs.pb")))
    name = onnx.load(src).graph.input[0].name
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "q.onnx")
        quantize_static(
            src,
            out,
            Rows(name, x.astype(np.float32)),
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            per_channel=False,
        )
        m = onnx.load(out)
    m.producer_name = "onnxruntime.quantization (scripts/quant/make_ort_qdq.py)"
    onnx.save(m, dst)
    print(f"wrote {dst} ({os.path.getsize(dst)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
