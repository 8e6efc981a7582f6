#!/usr/bin/env bash
# Measures `egraph-optimize` on the model zoo: for each model, the cost and op count before
# and after (default FLOPs+bytes model, then the interp target's model), the e-graph's size,
# saturation and extraction time with the default limits, and the largest difference between
# the optimized and the original function's outputs in the interpreter (and against the
# model's stored reference output), all from one run of passes/nart-egraph/examples/egraph_bench.rs.
#
# Usage: benches/graph/egraph.sh
# Models: tests/models/{digits_cnn,tiny_transformer}, and ~/.cache/nart/models/{resnet18,
# mobilenetv2} when present (scripts/models/build_zoo.py builds them).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${NART_MODEL_CACHE:-$HOME/.cache/nart/models}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
(cd "$ROOT" && cargo build --release -q -p nart-egraph --example egraph_bench)
BIN="$TARGET/release/examples/egraph_bench"
MODELS=("$ROOT/tests/models/digits_cnn" "$ROOT/tests/models/tiny_transformer")
for m in resnet18 mobilenetv2; do
  if [ -f "$CACHE/$m/model.onnx" ]; then MODELS+=("$CACHE/$m"); else echo "# $m: not in $CACHE, skipped"; fi
done
for dir in "${MODELS[@]}"; do
  "$BIN" "$dir"
  "$BIN" "$dir" target=interp
done
