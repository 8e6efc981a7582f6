#!/usr/bin/env bash
# nart quantize vs ONNX Runtime's quantize_static on the same calibration data, evaluated in the
# same run (benches/quant/compare.py says what is measured). Not part of CI.
#
# Usage: benches/quant/run.sh [compare.py flags: --models, --calibrators, --n-calib, --n-eval, --keep]
# Skips (exit 0, with a message) when python3, onnx or onnxruntime is missing. Builds the zoo's
# ResNet-18 and MobileNetV2 (scripts/models/build_zoo.py) into ~/.cache/nart/models when they are
# missing, and `nart` in release mode.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${NART_MODEL_CACHE:-$HOME/.cache/nart/models}"
if ! command -v python3 >/dev/null 2>&1; then
  echo "skip: python3 is not installed"
  exit 0
fi
if ! python3 -c 'import numpy, onnx, onnxruntime, onnxruntime.quantization' >/dev/null 2>&1; then
  echo "skip: onnxruntime (with onnx and numpy) is not installed for python3"
  exit 0
fi
for m in resnet18 mobilenetv2; do
  if [ ! -f "$CACHE/$m/model.onnx" ]; then
    python3 "$ROOT/scripts/models/build_zoo.py" --only "$m" --cache "$CACHE"
  fi
done
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
(cd "$ROOT" && cargo build --release -q -p nart-cli --bin nart)
exec python3 "$ROOT/benches/quant/compare.py" --nart "$TARGET/release/nart" --cache "$CACHE" "$@"
