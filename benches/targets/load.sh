#!/usr/bin/env bash
# Package load time of the openvino target: OpenVINO's compiled blob (what `nart compile` stores)
# against the ONNX model compiled at load, and OpenVINO's Python API compiling and importing the
# same model, in one run (benches/targets/load.py says what is timed).
#
# Usage: benches/targets/load.sh [--threads N] [--reps N] [--models a,b,...]
# ResNet-18 and MobileNetV2 run when they are in the zoo cache (scripts/models/build_zoo.py
# --cache). Builds `nart` in release mode first.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
(cd "$ROOT" && cargo build --release -q -p nart-cli)
exec python3 "$ROOT/benches/targets/load.py" --nart "$TARGET/release/nart" --root "$ROOT" "$@"
