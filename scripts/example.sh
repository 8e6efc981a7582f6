#!/usr/bin/env bash
# The main job on the bundled example model (a digits classifier trained on scikit-learn's digits
# data, tests/models/digits_mlp): import the ONNX file into the graph dialect, run the
# optimization pipeline, and print the IR; then execute the model with the reference interpreter
# on its held-out sample and compare with the ONNX Runtime output shipped beside it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nart/target}"
model=tests/models/digits_mlp/model.onnx

cargo build --release -q -p nart-opt -p nart-cli
bin="$CARGO_TARGET_DIR/release"

echo "== nart-opt $model --pass-pipeline='builtin.module(func.func(canonicalize,cse))'"
"$bin/nart-opt" "$model" --pass-pipeline='builtin.module(func.func(canonicalize,cse))' \
  --mlir-elide-elementsattrs-if-larger=16

data=tests/models/digits_mlp/test_data_set_0
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo
echo "== nart run --model $model --inputs $data --outputs $out"
"$bin/nart" run --model "$model" --inputs "$data" --outputs "$out"
python3 - "$data" "$out" <<'PY'
import sys, numpy as np, onnx
from onnx import numpy_helper
ref = numpy_helper.to_array(onnx.load_tensor(f"{sys.argv[1]}/output_0.pb"))
got = numpy_helper.to_array(onnx.load_tensor(f"{sys.argv[2]}/output_0.pb"))
print(f"output_0: shape {got.shape}, max |nart - onnxruntime| = {np.abs(got - ref).max():.3g}, "
      f"predicted classes agree on {(got.argmax(-1) == ref.argmax(-1)).mean() * 100:.0f}% of {got.shape[0]} samples")
PY
