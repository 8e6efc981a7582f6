#!/usr/bin/env bash
# Benchmarks nart against ONNX Runtime on ResNet-18: import + shape inference, and one run.
#
# Usage: benches/onnx/run.sh [--repeats N] [--model NAME]
# Builds the model zoo's ResNet-18 (scripts/models/build_zoo.py) into ~/.cache/nart/models if it
# is missing, builds `nart` in release mode, then runs benches/onnx/bench.py, which prints both
# runtimes' medians and their ratios.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${NART_MODEL_CACHE:-$HOME/.cache/nart/models}"
MODEL=resnet18
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL="$2"; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
if [ ! -f "$CACHE/$MODEL/model.onnx" ]; then
  python3 "$ROOT/scripts/models/build_zoo.py" --only "$MODEL" --cache "$CACHE"
fi
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
(cd "$ROOT" && cargo build --release -q -p nart-cli)
exec python3 "$ROOT/benches/onnx/bench.py" --nart "$TARGET/release/nart" \
  --model "$CACHE/$MODEL/model.onnx" --inputs "$CACHE/$MODEL/test_data_set_0" "${ARGS[@]}"
