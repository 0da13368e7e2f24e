"""Soak: a long %dml train with live plots in the installed kernel, sampling the resident memory
(RSS) of the kernel, the job's driver and its workers, then fitting each one's growth after a
warm-up. Writes bench/results/S1.json. Run it with the dml kernel installed (bin/install):

    python3 bench/soak.py --minutes 20

The job trains until the soak ends, then the cell is interrupted as a user would stop it.
"""
import argparse
import json
import platform
import os
import queue
import re
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from jupyter_client import KernelManager

SETUP = """import dev.dml.ray.data.SyntheticFraud;
var fraud = SyntheticFraud.generate(50_000, 7);
"""
TRAIN = ("%dml train fraud --label is_fraud --hidden 64,32 --workers 2 --batch-size 256"
         " --epochs 100000 --cpus-per-worker 0.5")


def rss_mb(pid):
    """A process's resident set in MB, or None once it has ended."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def heap_mb(pid):
    """A JVM's heap in use in MB (survivors, eden and old generation, from jstat), or None."""
    try:
        out = subprocess.run(["jstat", "-gc", str(pid)], capture_output=True, text=True,
                             timeout=20).stdout.split("\n")
        cols = dict(zip(out[0].split(), out[1].split()))
        return sum(float(cols[k]) for k in ("S0U", "S1U", "EU", "OU")) / 1024
    except (OSError, subprocess.SubprocessError, IndexError, KeyError, ValueError):
        return None


def threads(pid):
    """A process's thread count, or None once it has ended."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return None


def native_settings(pid):
    """What a process was started with that bears on its native memory: glibc's arena cap and
    the JVM's periodic trim of the native heap."""
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    arenas = [e.decode().split("=", 1)[1] for e in env if e.startswith(b"MALLOC_ARENA_MAX=")]
    trim = re.findall(r"-XX:TrimNativeHeapInterval=(\d+)", cmdline(pid))
    return {"MALLOC_ARENA_MAX": arenas[0] if arenas else None,
            "TrimNativeHeapInterval_ms": int(trim[0]) if trim else None}


def mappings(pid):
    """{(start address, name): resident kB} of a process's memory mappings, from smaps."""
    out, key = {}, None
    try:
        lines = Path(f"/proc/{pid}/smaps").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        head = line.split()
        if "-" in head[0] and not head[0].endswith(":"):
            key = (head[0].split("-")[0], head[5] if len(head) > 5 else "[anon]")
        elif head[0] == "Rss:" and key:
            out[key] = out.get(key, 0) + int(head[1])
    return out


def grown_mappings(before, after, most=5):
    """The mappings whose resident memory grew most between two snapshots, in MB: where a
    process's growth lives (the Java heap's range, a malloc arena, a library, shared memory)."""
    grown = sorted(((after[k] - before.get(k, 0), k) for k in after), reverse=True)[:most]
    return [{"address": k[0], "mapping": k[1], "mb": round(kb / 1024, 2)}
            for kb, k in grown if kb > 0]


def troughs(points, window):
    """The lowest value of each window of `window` seconds: a heap's level just after its
    collections, which is what grows when objects leak, and not the garbage between them."""
    out = {}
    for t, v in points:
        k = int(t // window)
        if k not in out or v < out[k][1]:
            out[k] = (t, v)
    return [out[k] for k in sorted(out)]


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def parent(pid):
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


DRIVER_MAIN = "dev.dml.ray.cluster.DriverMain"
WORKER_MAIN = "io.ray.runtime.runner.worker.DefaultWorker"
# Ray's own daemons under the embedded head: sampled and fitted beside dml's processes, and
# reported apart from the ratio, which is about the kernel, the driver and the workers.
RAY_DAEMONS = ("raylet", "gcs_server")


def job_processes(kernel_pid):
    """{'kernel': pid, 'driver': pid, 'worker <pid>': pid} of this kernel's job: the driver is
    the kernel's DriverMain child; the workers are the Ray Java workers among the kernel's
    descendants (its embedded head's raylet starts them)."""
    out = {"kernel": kernel_pid}
    pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
    children = {}
    for p in pids:
        children.setdefault(parent(p), []).append(p)
    todo, mine = [kernel_pid], []
    while todo:
        for c in children.get(todo.pop(), []):
            mine.append(c)
            todo.append(c)
    for p in mine:
        argv = cmdline(p).split("\0")
        program = Path(argv[0]).name
        if DRIVER_MAIN in argv and parent(p) == kernel_pid:
            out["driver"] = p
        elif program == "java" and WORKER_MAIN in argv:
            out[f"worker {p}"] = p
        elif program in RAY_DAEMONS:
            # The raylet's own arguments name DefaultWorker (the command it starts workers
            # with), so a worker is told by the program and main class, not by a substring.
            out[program] = p
    return out


def slope(points):
    """Least-squares slope (MB per hour) and mean of (seconds, MB) points."""
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    sxx = sum((t - mx) ** 2 for t, _ in points)
    sxy = sum((t - mx) * (v - my) for t, v in points)
    return (sxy / sxx * 3600 if sxx else 0.0), my


def drain(kc, seen, errors, stop):
    """Reads IOPub as a front end would, counting live-plot updates, so nothing backs up."""
    while not stop.is_set():
        try:
            msg = kc.get_iopub_msg(timeout=1)
        except queue.Empty:
            continue
        seen[msg["msg_type"]] = seen.get(msg["msg_type"], 0) + 1
        if msg["msg_type"] in ("error", "stream"):
            # A cell that fails would otherwise end the soak as silently as one that trains.
            print(msg["msg_type"], json.dumps(msg["content"])[:2000], file=sys.stderr, flush=True)
        if msg["msg_type"] == "error":
            errors.append(msg["content"].get("evalue", ""))


def start_job(kc, km, errors, tries=6, wait=600):
    """Runs the training cell until its driver is up. On a machine loaded by other builds the
    embedded head can miss its 120 s start; that is retried (the soak measures memory, not
    start time), any other failure ends the soak."""
    for attempt in range(1, tries + 1):
        errors.clear()
        msg_id = kc.execute(TRAIN)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if "driver" in job_processes(km.provisioner.pid):
                return msg_id
            if errors:
                break
            time.sleep(2)
        if errors and "did not start within" in errors[-1] and attempt < tries:
            print(f"the head missed its start (try {attempt}); running the cell again",
                  file=sys.stderr, flush=True)
            continue
        raise SystemExit(f"the training cell did not start: {errors[-1:] or 'no driver'}")
    raise SystemExit("unreachable")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--warmup-minutes", type=float, default=5)
    ap.add_argument("--every", type=float, default=10, help="seconds between samples")
    ap.add_argument("--heap-window", type=float, default=120,
                    help="seconds per window whose lowest heap sample is fitted")
    ap.add_argument("--out", default="bench/results/S1.json")
    ap.add_argument("--stop-at", type=float, default=None,
                    help="a Unix time at which to stop sampling early (the result says the"
                         " minutes sampled)")
    args = ap.parse_args()

    km = KernelManager(kernel_name="dml")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    seen, stop = {}, threading.Event()
    try:
        kc.wait_for_ready(timeout=180)
        reply = kc.execute_interactive(SETUP, timeout=300)
        assert reply["content"]["status"] == "ok", reply["content"]
        errors = []
        threading.Thread(target=drain, args=(kc, seen, errors, stop), daemon=True).start()
        msg_id = start_job(kc, km, errors)
        samples, t0 = [], time.monotonic()
        load_start, thread_counts, settings = os.getloadavg(), {}, {}
        end = args.minutes * 60
        if args.stop_at is not None:
            end = min(end, args.stop_at - time.time())
        warm_maps, grown = None, {}
        while (t := time.monotonic() - t0) < end:
            procs = job_processes(km.provisioner.pid)
            if warm_maps is None and t >= args.warmup_minutes * 60:
                warm_maps = {name: mappings(pid) for name, pid in procs.items()}
            row = {"t": round(t, 1)}
            for name, pid in procs.items():
                n = threads(pid)
                if n is not None:
                    thread_counts.setdefault(name, [n, n])[1] = n
                if name not in settings:
                    settings[name] = native_settings(pid)
                mb = rss_mb(pid)
                if mb is not None:
                    row[name] = round(mb, 1)
                heap = heap_mb(pid)
                if heap is not None:
                    row[name + " heap"] = round(heap, 1)
            samples.append(row)
            print(json.dumps(row), flush=True)
            time.sleep(args.every)
        load_end = os.getloadavg()
        for name, pid in job_processes(km.provisioner.pid).items():
            if warm_maps and name in warm_maps:
                grown[name] = grown_mappings(warm_maps[name], mappings(pid))
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=300)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = kc.get_shell_msg(timeout=300)
    finally:
        stop.set()
        kc.stop_channels()
        km.shutdown_kernel(now=False)

    warm = args.warmup_minutes * 60
    names = sorted({k for s in samples for k in s if k != "t"})
    fits = {}
    for name in names:
        pts = [(s["t"], s[name]) for s in samples if s["t"] >= warm and name in s]
        if name.endswith(" heap"):
            pts = troughs(pts, args.heap_window)
        if len(pts) >= 3:
            mb_per_hour, mean = slope(pts)
            fits[name] = {"mb_per_hour": round(mb_per_hour, 2), "mean_mb": round(mean, 1),
                          "percent_per_hour": round(100 * mb_per_hour / mean, 2)}
    # The goal is about RSS; the heap troughs tell a leak in Java objects from a heap or an
    # allocator that is still settling.
    worst = max(f["percent_per_hour"] for n, f in fits.items()
                if not n.endswith(" heap") and n not in RAY_DAEMONS)
    result = {
        "id": "S1",
        "what": "RSS growth after warm-up of the kernel, driver and workers during a %dml train"
                " with live plots; the largest growth, in percent of the process's RSS per hour",
        "ratio": worst, "goal": 1.0, "smaller_is_better": True, "met": worst <= 1.0,
        "command": f"python3 bench/soak.py --minutes {args.minutes:g}"
                   f" --warmup-minutes {args.warmup_minutes:g}",
        "cell": TRAIN, "minutes": round(samples[-1]["t"] / 60, 1), "warmup_minutes": args.warmup_minutes,
        "heap_window_seconds": args.heap_window, "fits": fits,
        "ray_daemons": "fitted in fits, not in ratio: Ray's own processes (" + ", ".join(RAY_DAEMONS)
                       + "), not dml's kernel, driver or workers",
        "grown_mappings_after_warmup": grown, "threads_first_last": thread_counts, "native_memory_settings": settings,
        "load_average_1_5_15": {"start": [round(x, 2) for x in load_start],
                                "end": [round(x, 2) for x in load_end]},
        "iopub_messages": seen, "samples": samples,
        "machine": {"cores": os.cpu_count(), "os": platform.system() + " " + platform.release()},
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(fits, indent=1))


if __name__ == "__main__":
    main()
