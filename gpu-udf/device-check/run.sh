#!/usr/bin/env bash
# ZeroLayer GPU device check, for a GPU host with CUDA 12 and Python's ONNX Runtime (onnxruntime-gpu)
# but no JDK and no network. Build the bundle first, on a machine with the JDK:
#   ./zerolayer device-check            # writes gpu-udf/device-check/bundle (< 60 MiB)
# then, on the GPU host, from the repository root or this folder:
#   gpu-udf/device-check/run.sh         # results in $OUT, else gpu-udf/device-check/out
# It runs (1) the JavaCPP half on the bundled Java runtime: device discovery and profile mapping,
# pinned vs pageable host->device copies, the similarity stage on cuBLAS against the CPU; and
# (2) the Python half: every encoder tier of the catalog (structural copies: the real graphs, their
# weights zeroed) and each fp32 one as fp16, under ONNX Runtime's CUDA provider at the batch sizes
# the compiler plans for this GPU, and a measured hardware profile with a peak per precision.
set -euo pipefail
start=$(date +%s)
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUNDLE="${BUNDLE:-$HERE/bundle}"
OUT="${OUT:-$HERE/out}"
mkdir -p "$OUT"

if [[ ! -f "$BUNDLE/runtime.tar.gz" ]]; then
  echo "No bundle at $BUNDLE: build it with ./zerolayer device-check on a machine with a JDK" >&2
  exit 2
fi
RUNTIME="$OUT/.runtime"
rm -rf "$RUNTIME" && mkdir -p "$RUNTIME"
tar xzf "$BUNDLE/runtime.tar.gz" -C "$RUNTIME"

echo "== JavaCPP half: devices, pinned buffers, cuBLAS =="
set +e
"$RUNTIME/runtime/bin/java" -Xmx1g -cp "$BUNDLE/lib/*" \
  io.zerolayer.gpu.devicecheck.DeviceCheckMain "$BUNDLE/plan.json" "$OUT" 2>&1 | tee "$OUT/java.log"
java_rc=${PIPESTATUS[0]}

echo "== Python half: every tier (and fp32 ones as fp16) under ONNX Runtime's CUDA provider =="
python3 "$HERE/device_check.py" \
  --plan "$BUNDLE/plan.json" --bundle "$BUNDLE" \
  --report "$OUT/java-report.json" \
  --out "$OUT" 2>&1 | tee "$OUT/python.log"
python_rc=${PIPESTATUS[0]}
set -e

echo "== done in $(( $(date +%s) - start )) s: java exit $java_rc, python exit $python_rc; results in $OUT =="
exit $(( java_rc != 0 ? java_rc : python_rc ))
