"""Writes P9.json (stdout) from what bench/gpu/p9-on-device measured in its work folder.

For MLP i the folder holds djl-i.json (GpuStep's line), torch-i.json (torch_step.py's) and,
where nvidia-smi ran, djl-i.smi and torch-i.smi: lines "epoch_ms,utilization %,memory MiB".
The ratio is the lower of the MLPs' DJL / PyTorch examples/s; the GPU's utilisation is the
median of the samples taken during each side's timed steps.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path

GOAL = 0.9


def samples(path, t0, t1):
    """The (utilisation, memory) samples taken between t0 and t1 (ms)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3 and parts[1].isdigit() and t0 <= int(parts[0]) <= t1:
            out.append((int(parts[1]), int(parts[2])))
    return out


def side(work, name):
    r = json.loads((work / f"{name}.json").read_text().strip().splitlines()[-1])
    s = samples(work / f"{name}.smi", r["t0_ms"], r["t1_ms"])
    return {
        "engine": r["engine"],
        "examples_per_s": round(r["examples_per_s"], 1),
        "seconds": round((r["t1_ms"] - r["t0_ms"]) / 1000, 3),
        "first_loss": r["losses"][0],
        "last_loss": r["losses"][-1],
        "gpu_util_median_pct": statistics.median(u for u, _ in s) if s else None,
        "gpu_mem_max_mib": max(m for _, m in s) if s else None,
        "gpu_samples": len(s),
        # base names only: where the libraries lay is no part of the result
        "loaded": " ".join(os.path.basename(p) for p in r.get("loaded", "").split()),
        "cudart_gpu_count": r.get("cudart_gpu_count"),
    }


def gpu():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                               "--format=csv,noheader"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--configs", type=int, required=True)
    p.add_argument("--jni", required=True)
    p.add_argument("--command", required=True)
    a = p.parse_args()
    mlps = []
    for i in range(a.configs):
        djl, torch = side(a.work, f"djl-{i}"), side(a.work, f"torch-{i}")
        r = json.loads((a.work / f"djl-{i}.json").read_text().strip().splitlines()[-1])
        mlps.append({"hidden": r["hidden"], "batch": r["batch"], "steps": r["steps"],
                     "device": r["device"], "cuda": r["cuda"],
                     "ratio": round(djl["examples_per_s"] / torch["examples_per_s"], 3),
                     "djl": djl, "pytorch": torch})
    ratio = min(m["ratio"] for m in mlps)
    print(json.dumps({
        "id": "P9",
        "what": "a dml worker's step through DJL (ModelStage, Adam) / the same MLP step in"
                " PyTorch, examples/s, lower of the MLPs",
        "ratio": ratio, "goal": GOAL, "met": ratio >= GOAL,
        "command": a.command,
        "jni_build": a.jni,
        "machine": {"gpu": gpu(), "cpus": os.cpu_count(), "os": platform.platform()},
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "mlps": mlps,
    }, indent=2))


if __name__ == "__main__":
    main()
