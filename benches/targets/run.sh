#!/usr/bin/env bash
# Benchmarks the targets on the model zoo against ONNX Runtime, in one run: each model is
# compiled with `nart compile --targets interp`, `--targets onednn,interp` and, when OpenVINO is
# available, `--targets openvino,interp`, run with `nart bench --package`, and run in ONNX Runtime
# (and OpenVINO's own Python API) with the same thread count; the medians, the package load times
# and the ratios are printed.
#
# Usage: benches/targets/run.sh [--threads N] [--runs N] [--models a,b,...] [--lists "a,b;c"]
# The committed models (digits_cnn, tiny_transformer) always run; ResNet-18 and MobileNetV2 run
# when they are in the zoo cache (scripts/models/build_zoo.py --cache). Builds `nart` in release
# mode first.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
(cd "$ROOT" && cargo build --release -q -p nart-cli)
exec python3 "$ROOT/benches/targets/bench.py" --nart "$TARGET/release/nart" --root "$ROOT" "$@"
