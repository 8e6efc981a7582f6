#!/usr/bin/env bash
# Graph optimization benchmark: nart's graph-optimize pipeline against onnxslim and ONNX
# Runtime's extended-level saved model, on the same models in the same run.
#
# Usage: benches/graph/run.sh [--no-build] [MODEL.onnx ...]
# Without models: tests/models/{digits_cnn,tiny_transformer} and, when present,
# ~/.cache/nart/models/{resnet18,mobilenetv2} (built by scripts/models/build_zoo.py).
# Needs python3 with onnx, onnxruntime and onnxslim (`pip install onnxslim`).
# Prints one Markdown table (node counts, op counts per type, FLOPs and bytes from nart's cost
# model, the optimized model's max abs difference from ONNX Runtime on the original) and
# writes the optimized models under $OUT (default: a temporary directory).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${NART_MODEL_CACHE:-$HOME/.cache/nart/models}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
BUILD=1
MODELS=()
for a in "$@"; do
  case "$a" in
    --no-build) BUILD=0 ;;
    *) MODELS+=("$a") ;;
  esac
done
if [ ${#MODELS[@]} -eq 0 ]; then
  MODELS=("$ROOT/tests/models/digits_cnn/model.onnx" "$ROOT/tests/models/tiny_transformer/model.onnx")
  for m in resnet18 mobilenetv2; do
    if [ -f "$CACHE/$m/model.onnx" ]; then MODELS+=("$CACHE/$m/model.onnx"); fi
  done
fi
if [ "$BUILD" = 1 ]; then
  (cd "$ROOT" && cargo build --release -q -p nart-opt)
fi
NART_OPT="${NART_OPT:-$TARGET/release/nart-opt}"
exec python3 "$ROOT/benches/graph/compare.py" --nart-opt "$NART_OPT" "${MODELS[@]}"
