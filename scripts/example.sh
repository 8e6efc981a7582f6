#!/usr/bin/env bash
# The main job on the bundled example model (a digits classifier trained on scikit-learn's digits
# data, tests/models/digits_mlp): import the ONNX file into the graph dialect, run the graph
# optimization pipeline (graph-optimize), and print the IR; execute the model with the reference interpreter on
# its held-out sample and compare with the ONNX Runtime output shipped beside it; quantize it to
# int8 under the accuracy guard (top-1 on held-out digits); compile it, quantized, into a package
# of native int8 code for the cpu target (LLVM); inspect the package, run it with the runtime and compare with the float model;
# compile the float model with --targets auto (nart picks among interp, oneDNN and OpenVINO) and
# run that package too.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nart/target}"
model=tests/models/digits_mlp/model.onnx

cargo build --release -q -p nart-opt -p nart-cli
bin="$CARGO_TARGET_DIR/release"

echo "== nart-opt $model --pass-pipeline='builtin.module(graph-optimize)'"
"$bin/nart-opt" "$model" --pass-pipeline='builtin.module(graph-optimize)' \
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

calib=tests/models/digits_mlp/calib_inputs.pb
echo
echo "== nart quantize $model --calib $calib --scheme onnx-qdq --eval ... --labels ... --max-drop 1.0 -o q.mlir"
"$bin/nart" quantize "$model" --calib "$calib" --scheme onnx-qdq \
  --eval tests/models/digits_mlp/heldout_inputs.pb --labels tests/models/digits_mlp/heldout_labels.pb \
  --max-drop 1.0 --report "$out/report.json" -o "$out/q.mlir"

echo
echo "== nart compile $model --targets cpu,interp --dim N=16 --quant onnx-qdq --calib $calib -o digits.nartpkg (int8, nart's own code)"
"$bin/nart" compile "$model" --targets cpu,interp --dim N=16 --quant onnx-qdq --calib "$calib" -o "$out/digits.nartpkg"
echo
echo "== nart inspect digits.nartpkg"
"$bin/nart" inspect "$out/digits.nartpkg"
echo
echo "== nart run --package digits.nartpkg --inputs $data (int8) vs the float model"
mkdir -p "$out/pkg"
"$bin/nart" run --package "$out/digits.nartpkg" --inputs "$data" --outputs "$out/pkg"
python3 - "$out" "$out/pkg" <<'PY'
import sys, numpy as np, onnx
from onnx import numpy_helper
ref = numpy_helper.to_array(onnx.load_tensor(f"{sys.argv[1]}/output_0.pb")).astype(np.float64)
got = numpy_helper.to_array(onnx.load_tensor(f"{sys.argv[2]}/output_0.pb")).astype(np.float64)
sqnr = 10 * np.log10((ref ** 2).sum() / max(((ref - got) ** 2).sum(), 1e-300))
print(f"package (int8) vs float: output SQNR {sqnr:.1f} dB, "
      f"predicted classes agree on {(got.argmax(-1) == ref.argmax(-1)).mean() * 100:.0f}% of {got.shape[0]} samples")
PY

echo
echo "== nart compile $model --targets auto --goal latency -o auto.nartpkg (float), then run it"
"$bin/nart" compile "$model" --targets auto --goal latency -o "$out/auto.nartpkg"
mkdir -p "$out/auto"
"$bin/nart" run --package "$out/auto.nartpkg" --inputs "$data" --outputs "$out/auto"
python3 - "$out" "$out/auto" <<'PY'
import sys, numpy as np, onnx
from onnx import numpy_helper
ref = numpy_helper.to_array(onnx.load_tensor(f"{sys.argv[1]}/output_0.pb")).astype(np.float64)
got = numpy_helper.to_array(onnx.load_tensor(f"{sys.argv[2]}/output_0.pb")).astype(np.float64)
print(f"auto package vs the interpreter: max |diff| = {np.abs(got - ref).max():.3g}, "
      f"predicted classes agree on {(got.argmax(-1) == ref.argmax(-1)).mean() * 100:.0f}% of {got.shape[0]} samples")
PY

echo
echo "== nart compile $model --targets cpu --dim N=16 --emit asm -o cpu.nartpkg (nart's own code), then run it"
"$bin/nart" compile "$model" --targets cpu --dim N=16 --emit asm -o "$out/cpu.nartpkg"
echo "generated code: $(grep -c . "$out/cpu.nartpkg.0.s") lines of $(uname -m) assembly (cpu.nartpkg.0.s)"
mkdir -p "$out/cpu"
"$bin/nart" run --package "$out/cpu.nartpkg" --inputs "$data" --outputs "$out/cpu"
python3 - "$out" "$out/cpu" "$data" <<'PY'
import sys, numpy as np, onnx
from onnx import numpy_helper
ref = numpy_helper.to_array(onnx.load_tensor(f"{sys.argv[1]}/output_0.pb")).astype(np.float64)
got = numpy_helper.to_array(onnx.load_tensor(f"{sys.argv[2]}/output_0.pb")).astype(np.float64)
ort = numpy_helper.to_array(onnx.load_tensor(f"{sys.argv[3]}/output_0.pb")).astype(np.float64)
print(f"cpu package vs the interpreter: max |diff| = {np.abs(got - ref).max():.3g}; "
      f"vs onnxruntime: {np.abs(got - ort).max():.3g}; "
      f"predicted classes agree on {(got.argmax(-1) == ort.argmax(-1)).mean() * 100:.0f}% of {got.shape[0]} samples")
PY
