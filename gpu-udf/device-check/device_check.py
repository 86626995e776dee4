#!/usr/bin/env python3
"""Python half of the ZeroLayer GPU device check (see run.sh).

Times the int8 MiniLM encoder under ONNX Runtime's CUDA execution provider at the batch sizes and
sequence lengths the compiler plans for this GPU (read from the Java half's report), and writes a
measured hardware profile (hardware-profiles.measured.yaml) and the raw figures (python-report.json).

Exit codes: 0 measured; 3 ONNX Runtime or its CUDA provider is missing (nothing measured).
"""
import argparse
import json
import os
import statistics
import sys
import time

# FLOPs of one sequence of n tokens through the encoder: 2 x 10.6 M weights per token (21.2 MFLOP,
# read from the ONNX graph by OnnxCostModel) plus the two attention products per layer
# (2 x 2 x n x 384 per token, 6 layers).
WEIGHT_FLOPS_PER_TOKEN = 21_233_664
HIDDEN, LAYERS = 384, 6


def sequence_flops(seq_len):
    return seq_len * WEIGHT_FLOPS_PER_TOKEN + LAYERS * 2 * 2 * seq_len * seq_len * HIDDEN


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--report", required=True, help="java-report.json from the Java half")
    parser.add_argument("--out", required=True)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    with open(args.report) as f:
        java = json.load(f)
    try:
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:
        print(f"ONNX Runtime for Python is not importable here ({e}): nothing measured", file=sys.stderr)
        return 3
    providers = ort.get_available_providers()
    print(f"onnxruntime {ort.__version__}, providers {providers}")
    if "CUDAExecutionProvider" not in providers:
        print("This ONNX Runtime has no CUDAExecutionProvider (install onnxruntime-gpu): nothing measured",
              file=sys.stderr)
        return 3

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(args.model, options, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}
    print(f"session providers: {session.get_providers()}")

    planned = java.get("planned") or {}
    batches = sorted(set(planned.get("batch-sizes", [])) | {1, 8, 32})
    seq_lens = sorted(set(planned.get("seq-lens", [])) | {52})
    results = []
    for seq_len in seq_lens:
        for batch in batches:
            feed = {"input_ids": np.full((batch, seq_len), 2000, dtype=np.int64),
                    "attention_mask": np.ones((batch, seq_len), dtype=np.int64)}
            if "token_type_ids" in inputs:
                feed["token_type_ids"] = np.zeros((batch, seq_len), dtype=np.int64)
            for _ in range(3):
                session.run(None, feed)
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                session.run(None, feed)
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
            flops = batch * sequence_flops(seq_len)
            results.append({"batch": batch, "seq_len": seq_len, "median_ms": median * 1e3,
                            "sequences_per_s": batch / median, "gops": flops / median / 1e9})
            print(f"  batch {batch:3d} x {seq_len:3d} tokens: {median * 1e3:8.2f} ms, "
                  f"{batch / median:9.1f} seq/s, {flops / median / 1e9:8.1f} GOP/s")

    smallest = min(results, key=lambda r: (r["batch"], r["seq_len"]))
    best = max(results, key=lambda r: r["gops"])
    name = java.get("normalised-name", "gpu")
    profile_id = f"measured-{name}"
    yaml = (
        "version: 1\nprofiles:\n"
        f"  {profile_id}:\n"
        "    kind: gpu\n"
        f"    match: [\"^{name}$\"]\n"
        f"    source: \"device_check.py on {java.get('device-name', '?')}: int8 MiniLM under ONNX Runtime "
        f"{ort.__version__} CUDA, best {best['gops']:.0f} GOP/s at batch {best['batch']}x{best['seq_len']}\"\n"
        f"    peak-tflops: {{int8: {best['gops'] / 1e3:.3f}, fp32: {best['gops'] / 1e3:.3f}}}\n"
        f"    memory-bandwidth-gbs: {java.get('profile-memory-bandwidth-gbs', 0):.0f}\n"
        f"    pcie-bandwidth-gbs: {java.get('pinned', {}).get('pinned-gbs', java.get('profile-pcie-bandwidth-gbs', 0)):.1f}\n"
        f"    launch-overhead-us: {smallest['median_ms'] * 1e3:.0f}\n"
        "    product-efficiency: 1.0\n"
    )
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "hardware-profiles.measured.yaml"), "w") as f:
        f.write(yaml)
    with open(os.path.join(args.out, "python-report.json"), "w") as f:
        json.dump({"onnxruntime": ort.__version__, "providers": session.get_providers(),
                   "results": results}, f, indent=2)
    print(f"wrote {profile_id} to {os.path.join(args.out, 'hardware-profiles.measured.yaml')}:\n{yaml}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
