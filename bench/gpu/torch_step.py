"""P9's PyTorch side: the MLP of dev.dml.bench.GpuStep, trained as a PyTorch user would.

Same shapes and steps as GpuStep: 784 inputs, ReLU hidden layers, 10 classes, softmax
cross-entropy, Adam (lr 1e-3); 8 distinct batches of synthetic rows kept on the host and cycled,
each copied to the device at its step, as a dml worker's shard is; the loss read back after
every step (loss.item()), as dml reads it. Prints one JSON line like GpuStep's.

    python3 bench/gpu/torch_step.py --device cuda --hidden 1024,1024 --batch 512 --steps 200
"""
import argparse
import json
import time

import torch
from torch import nn

INPUTS, CLASSES, BATCHES = 784, 10, 8


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--hidden", default="1024,1024")
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(11)

    gen = torch.Generator().manual_seed(7)
    x = torch.randn(a.batch * BATCHES, INPUTS, generator=gen)
    y = (x @ torch.randn(INPUTS, CLASSES, generator=gen)).argmax(1)

    layers, width = [], INPUTS
    for h in (int(v) for v in a.hidden.split(",")):
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    net = nn.Sequential(*layers, nn.Linear(width, CLASSES)).to(a.device)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    losses, t0, t0_ms = [], 0.0, 0
    for i in range(a.warmup + a.steps):
        if i == a.warmup:
            t0, t0_ms = time.perf_counter(), int(time.time() * 1000)
        rows = slice((i % BATCHES) * a.batch, (i % BATCHES + 1) * a.batch)
        xb, yb = x[rows].to(a.device), y[rows].to(a.device)
        opt.zero_grad()
        loss = loss_fn(net(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - t0
    print(json.dumps({
        "engine": "PyTorch " + torch.__version__,
        "cuda": torch.cuda.is_available(),
        "device": a.device,
        "hidden": a.hidden, "batch": a.batch, "warmup": a.warmup, "steps": a.steps,
        "examples_per_s": a.steps * a.batch / seconds,
        "t0_ms": t0_ms, "t1_ms": int(time.time() * 1000),
        "losses": losses,
    }))


if __name__ == "__main__":
    main()
