"""P3's PyTorch side: the same training as a dml job, with DistributedDataParallel (gloo).

One run trains dml's MLP or small CNN on the first rows of Fashion-MNIST, exactly as dml's
TrainWorker does: rank r holds the contiguous rows [r*R/N, (r+1)*R/N), step t of an epoch
trains rows [t*B, (t+1)*B) of the shard, the loss is the batch-mean softmax cross-entropy,
the optimizer is Adam with bias correction, and the weights start as dml's do
(ParameterBuffers.initialize: He-uniform from java.util.SplittableRandom(seed), biases 0), so
both sides start bitwise alike. With --workers 2 it starts 2 processes (torch.multiprocessing)
joined by gloo and wraps the model in DistributedDataParallel; with --workers 1 it is one plain
process. Every process runs with one intra-op thread.

Rank 0 writes a JSON file (--out) with the wall-clock time (time.time()) at which training
started and at which each step ended, each step's loss, and, with --eval-every E, the test
accuracy of the parameters after every E-th step (copied during training, evaluated after it,
so evaluation is not in the step times).

Run by dev.dml.bench.DdpTorchSide; by hand:
    bench/.venv/bin/python bench/torch/p3_ddp.py --model mlp --workers 2 --out /tmp/p3.json
"""

import argparse
import gzip
import json
import os
import socket
import struct
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path, magic, limit):
    """Reads the first `limit` items of an idx file (what FashionMnist.load reads)."""
    with gzip.open(path, "rb") as f:
        m, n = struct.unpack(">ii", f.read(8))
        if m != magic:
            raise ValueError(f"{path} has magic {m}, expected {magic}")
        keep = n if limit <= 0 else min(limit, n)
        if magic == 2051:
            rows, cols = struct.unpack(">ii", f.read(8))
            raw = np.frombuffer(f.read(keep * rows * cols), dtype=np.uint8)
            return (raw.astype(np.float32) / np.float32(255)).reshape(keep, rows * cols)
        return np.frombuffer(f.read(keep), dtype=np.uint8).astype(np.int64)


def load(split, limit):
    x = read_idx(os.path.join(DATA, f"{split}-images-idx3-ubyte.gz"), 2051, limit)
    y = read_idx(os.path.join(DATA, f"{split}-labels-idx1-ubyte.gz"), 2049, limit)
    return torch.from_numpy(x), torch.from_numpy(y)


class Standardize(nn.Module):
    """(x - mean) / std per feature, as dml builds into an MLP (FeatureStats.of)."""

    def __init__(self, x):
        super().__init__()
        v = x.numpy().astype(np.float64)
        mean = v.mean(axis=0)
        std = np.sqrt(((v - mean) ** 2).mean(axis=0))
        std = np.where(std > 1e-12, std, 1.0)
        self.register_buffer("mean", torch.from_numpy(mean.astype(np.float32)))
        self.register_buffer("std", torch.from_numpy(std.astype(np.float32)))

    def forward(self, x):
        return (x - self.mean) / self.std


def build(model, hidden, train_x):
    """dml's ModelBlocks for 784 inputs and 10 classes."""
    if model == "mlp":
        layers = [Standardize(train_x)]
        width = 784
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        return nn.Sequential(*layers, nn.Linear(width, 10))
    return nn.Sequential(
        nn.Unflatten(1, (1, 28, 28)),
        nn.Conv2d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(8, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(),
        nn.Linear(16 * 7 * 7, 64), nn.ReLU(),
        nn.Linear(64, 10))


def initialize(net, seed):
    """dml's ParameterBuffers.initialize: one SplittableRandom(seed) stream over the
    parameters in order, weights uniform in +-sqrt(6 / fan_in) (float32 bound), biases 0."""
    gamma = np.uint64(0x9E3779B97F4A7C15)
    state = np.uint64(seed)
    with torch.no_grad(), np.errstate(over="ignore"):
        for p in net.parameters():
            n = p.numel()
            if p.dim() == 1:
                p.zero_()
                continue
            fan_in = int(np.prod(p.shape[1:]))
            bound = np.float64(np.float32(np.sqrt(6.0 / max(1, fan_in))))
            z = state + gamma * np.arange(1, n + 1, dtype=np.uint64)
            state = state + gamma * np.uint64(n)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            u = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
            w = ((u * 2 - 1) * bound).astype(np.float32)
            p.copy_(torch.from_numpy(w.reshape(tuple(p.shape))))


def accuracy(net, test_x, test_y):
    with torch.no_grad():
        correct = 0
        for i in range(0, len(test_y), 4096):
            correct += (net(test_x[i:i + 4096]).argmax(1) == test_y[i:i + 4096]).sum().item()
    return correct / len(test_y)


def worker(rank, a, port):
    torch.set_num_threads(1)
    if a.workers > 1:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=a.workers)
    rows = a.workers * a.batch * a.steps_per_epoch
    x, y = load("train", rows)
    net = build(a.model, a.hidden, x)
    initialize(net, a.seed)
    lo, hi = rank * rows // a.workers, (rank + 1) * rows // a.workers
    sx, sy = x[lo:hi].contiguous(), y[lo:hi].contiguous()
    model = DistributedDataParallel(net) if a.workers > 1 else net
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-8)
    loss_fn = nn.CrossEntropyLoss()
    snapshots = {}
    ends = []
    losses = []
    if a.workers > 1:
        dist.barrier()
    # each step's phases, as dml's workers time theirs (dev.dml.events.StepPhase)
    phases = {k: [] for k in ("batch", "forward", "loss", "backward", "optimizer")}
    start = time.time()
    for s in range(a.steps):
        t = s % a.steps_per_epoch
        c0 = time.perf_counter()
        xb, yb = sx[t * a.batch:(t + 1) * a.batch], sy[t * a.batch:(t + 1) * a.batch]
        c1 = time.perf_counter()
        opt.zero_grad()
        out = model(xb)
        c2 = time.perf_counter()
        loss = loss_fn(out, yb)
        value = loss.item()
        c3 = time.perf_counter()
        loss.backward()  # with DDP, the bucketed all-reduce it overlaps too
        c4 = time.perf_counter()
        opt.step()
        c5 = time.perf_counter()
        for k, v in zip(phases, (c1 - c0, c2 - c1, c3 - c2, c4 - c3, c5 - c4)):
            phases[k].append(v)
        losses.append(value)
        ends.append(time.time())
        if rank == 0 and a.eval_every > 0 and (s + 1) % a.eval_every == 0:
            snapshots[s + 1] = [p.detach().clone() for p in net.parameters()]
    if rank != 0:
        dist.destroy_process_group()
        return
    acc = {}
    if snapshots:
        test_x, test_y = load("t10k", 0)
        for step, params in snapshots.items():
            with torch.no_grad():
                for p, v in zip(net.parameters(), params):
                    p.copy_(v)
            acc[str(step)] = accuracy(net, test_x, test_y)
    out = {"torch": torch.__version__, "threads": torch.get_num_threads(),
           "workers": a.workers, "start": start, "step_ends": ends, "losses": losses,
           "accuracy": acc,
           # ms per step after the warm-up steps the throughput leaves out, rank 0's
           "phase_ms": {k: 1e3 * sum(v[a.warm_steps:]) / max(1, len(v) - a.warm_steps)
                        for k, v in phases.items()}}
    with open(a.out, "w") as f:
        json.dump(out, f)
    if a.workers > 1:
        dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=["mlp", "cnn"], required=True)
    p.add_argument("--hidden", type=int, nargs="*", default=[1024, 1024])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=128, help="per worker")
    p.add_argument("--steps-per-epoch", type=int, default=50)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--eval-every", type=int, default=0)
    p.add_argument("--warm-steps", type=int, default=20, help="left out of phase_ms")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if a.workers == 1:
        worker(0, a, 0)
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(a, port), nprocs=a.workers, join=True)


if __name__ == "__main__":
    main()
