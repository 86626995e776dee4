#!/usr/bin/env python3
"""Python half of the ZeroLayer GPU device check (see run.sh).

Times every encoder tier of the model catalog (plan.json's "tiers": each as shipped, and each fp32
one converted to fp16 here) under ONNX Runtime's CUDA execution provider, at the batch sizes and
sequence lengths the compiler plans for this GPU (read from the Java half's report). The bundle's
models are structural copies: the real graphs with their weights zeroed, which run as long as the
real ones. Writes a measured hardware profile (hardware-profiles.measured.yaml: a peak per
precision) and the raw figures per tier (python-report.json).

Exit codes: 0 measured; 3 ONNX Runtime or its CUDA provider is missing (nothing measured).
"""
import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import time


def sequence_flops(tier, seq_len):
    """FLOPs of one sequence of seq_len tokens, as EncoderModel.forwardFlops counts them: per token
    and layer the Q/K/V/O projections, the feed-forward pair and the two attention products."""
    d, ffn, layers = tier["hidden-size"], tier["ffn-size"], tier["layers"]
    return layers * seq_len * 2 * (4 * d * d + 2 * d * ffn + 2 * seq_len * d)


def to_fp16(path):
    """The fp32 model at path converted to fp16 (inputs and outputs kept), or None and why."""
    try:
        import onnx
        from onnxruntime.transformers.float16 import convert_float_to_float16
    except ImportError as e:
        return None, f"no fp16 converter here ({e})"
    model = convert_float_to_float16(onnx.load(path), keep_io_types=True)
    out = path.replace(".onnx", "-fp16.onnx")
    onnx.save(model, out)
    return out, None


def time_model(ort, path, shapes, runs):
    """Median time of each (batch, seq_len) in shapes under the CUDA provider."""
    import numpy as np

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(path, options, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}
    out = []
    for batch, seq_len in shapes:
        feed = {"input_ids": np.full((batch, seq_len), 2000, dtype=np.int64),
                "attention_mask": np.ones((batch, seq_len), dtype=np.int64)}
        if "token_type_ids" in inputs:
            feed["token_type_ids"] = np.zeros((batch, seq_len), dtype=np.int64)
        for _ in range(3):
            session.run(None, feed)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            session.run(None, feed)
            times.append(time.perf_counter() - start)
        out.append((batch, seq_len, statistics.median(times)))
    return session.get_providers(), out


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--plan", required=True, help="the bundle's plan.json")
    parser.add_argument("--bundle", required=True, help="the bundle folder (its model/ files)")
    parser.add_argument("--report", required=True, help="java-report.json from the Java half")
    parser.add_argument("--out", required=True)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    with open(args.report) as f:
        java = json.load(f)
    with open(args.plan) as f:
        plan = json.load(f)
    try:
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

    planned = java.get("planned") or {}
    batches = sorted(set(planned.get("batch-sizes", [])) | {1, 8, 32})
    seq_lens = sorted(set(planned.get("seq-lens", [])) | {52})
    shapes = [(b, n) for n in seq_lens for b in batches]
    work = tempfile.mkdtemp(prefix="zerolayer-tiers-")
    results = []
    skipped = []
    for tier in plan.get("tiers", []):
        path = os.path.join(work, tier["id"] + ".onnx")
        with gzip.open(os.path.join(args.bundle, tier["file"])) as src, open(path, "wb") as dst:
            dst.write(src.read())
        variants = [(tier["precision"], path)]
        if tier.get("also-fp16"):
            fp16, why = to_fp16(path)
            if fp16 is None:
                skipped.append({"tier": tier["id"], "precision": "fp16", "why": why})
                print(f"{tier['id']} fp16: skipped, {why}")
            else:
                variants.append(("fp16", fp16))
        for precision, model in variants:
            used, timed = time_model(ort, model, shapes, args.runs)
            print(f"{tier['id']} as {precision} on {used[0]}:")
            for batch, seq_len, median in timed:
                flops = batch * sequence_flops(tier, seq_len)
                results.append({"tier": tier["id"], "precision": precision, "provider": used[0],
                                "cuda-plannable": tier.get("cuda-plannable", True) or precision == "fp16",
                                "batch": batch, "seq_len": seq_len, "median_ms": median * 1e3,
                                "sequences_per_s": batch / median, "gops": flops / median / 1e9})
                print(f"  batch {batch:3d} x {seq_len:3d} tokens: {median * 1e3:8.2f} ms, "
                      f"{batch / median:9.1f} seq/s, {flops / median / 1e9:8.1f} GOP/s")

    if not results:
        print("plan.json lists no tier: nothing measured", file=sys.stderr)
        return 3
    smallest = min(results, key=lambda r: (r["batch"], r["seq_len"]))
    peaks = {}
    for r in results:
        peaks[r["precision"]] = max(peaks.get(r["precision"], 0), r["gops"])
    best = max(results, key=lambda r: r["gops"])
    name = java.get("normalised-name", "gpu")
    profile_id = f"measured-{name}"
    peak_line = ", ".join(f"{p}: {g / 1e3:.3f}" for p, g in sorted(peaks.items()))
    yaml = (
        "version: 1\nprofiles:\n"
        f"  {profile_id}:\n"
        "    kind: gpu\n"
        f"    match: [\"^{name}$\"]\n"
        f"    source: \"device_check.py on {java.get('device-name', '?')}: {len(plan.get('tiers', []))} tiers under ONNX Runtime "
        f"{ort.__version__} CUDA, best {best['gops']:.0f} GOP/s ({best['tier']} {best['precision']}) at batch {best['batch']}x{best['seq_len']}\"\n"
        f"    peak-tflops: {{{peak_line}}}\n"
        f"    memory-bandwidth-gbs: {java.get('profile-memory-bandwidth-gbs', 0):.0f}\n"
        f"    pcie-bandwidth-gbs: {java.get('pinned', {}).get('pinned-gbs', java.get('profile-pcie-bandwidth-gbs', 0)):.1f}\n"
        f"    launch-overhead-us: {smallest['median_ms'] * 1e3:.0f}\n"
        "    product-efficiency: 1.0\n"
    )
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "hardware-profiles.measured.yaml"), "w") as f:
        f.write(yaml)
    with open(os.path.join(args.out, "python-report.json"), "w") as f:
        json.dump({"onnxruntime": ort.__version__, "results": results, "skipped": skipped}, f, indent=2)
    print(f"wrote {profile_id} to {os.path.join(args.out, 'hardware-profiles.measured.yaml')}:\n{yaml}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
