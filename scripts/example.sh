#!/usr/bin/env bash
# The main job on the bundled example model (a digits classifier trained on scikit-learn's digits
# data, tests/models/digits_mlp): import the ONNX file into the graph dialect, run the
# optimization pipeline, and print the IR; then execute the model with the reference interpreter
# on its held-out sample and compare with the ONNX Runtime output shipped beside it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nart/target}"
model=tests/models/digits_mlp/model.onnx

cargo build --release -q -p nart-opt
bin="$CARGO_TARGET_DIR/release"

echo "== nart-opt $model --pass-pipeline='builtin.module(func.func(canonicalize,cse))'"
"$bin/nart-opt" "$model" --pass-pipeline='builtin.module(func.func(canonicalize,cse))' \
  --mlir-elide-elementsattrs-if-larger=16
