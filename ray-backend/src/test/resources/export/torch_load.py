"""Loads a folder that TrainResult.save wrote with PyTorch alone (no dml, no DJL) and prints the
predictions of every row of a CSV file, one line per row:

    python torch_load.py MODEL_DIR ROWS.csv

The network is an nn.Sequential rebuilt from dml-model.json; its weights come from
model.safetensors, whose first layer already applies the standardisation when it is folded.
Text columns are one-hot encoded with the categories that dml-model.json lists under one_hot.
"""
import csv
import json
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file


class Permute(torch.nn.Module):
    """Reorders the axes: channel-last pixels [B, H, W, C] to the [B, C, H, W] of Conv2d."""

    def __init__(self, dims):
        super().__init__()
        self.dims = tuple(dims)

    def forward(self, x):
        return x.permute(*self.dims)


def build(layers):
    modules = []
    for layer in layers:
        kind = layer["type"]
        if kind == "linear":
            modules.append(torch.nn.Linear(layer["in"], layer["out"]))
        elif kind == "relu":
            modules.append(torch.nn.ReLU())
        elif kind == "flatten":
            modules.append(torch.nn.Flatten())
        elif kind == "unflatten":
            modules.append(torch.nn.Unflatten(1, tuple(layer["shape"])))
        elif kind == "permute":
            modules.append(Permute(layer["dims"]))
        elif kind == "conv2d":
            modules.append(torch.nn.Conv2d(layer["in_channels"], layer["out_channels"],
                                           tuple(layer["kernel"]), padding=tuple(layer["padding"])))
        elif kind == "maxpool2d":
            modules.append(torch.nn.MaxPool2d(tuple(layer["kernel"]), tuple(layer["stride"])))
        else:
            raise ValueError(f"unknown layer {layer}")
    return torch.nn.Sequential(*modules)


def inputs(meta, row):
    """One row's inputs: numbers as they are, text columns one-hot as one_hot.rule says."""
    categories = meta.get("one_hot", {}).get("categories", {})
    out = []
    for name in meta.get("columns", meta["features"]):
        if name not in categories:
            out.append(float(row[name]))
            continue
        cats = categories[name]
        hot = [0.0] * (len(cats) + 1)  # the last is the other input: unseen or missing values
        hot[cats.index(row[name]) if row[name] in cats else len(cats)] = 1.0
        out.extend(hot)
    return out


def main(model_dir, rows_csv):
    model_dir = Path(model_dir)
    meta = json.loads((model_dir / "dml-model.json").read_text())
    net = build(meta["layers"])
    net.load_state_dict(load_file(model_dir / meta["safetensors"]["file"]))  # strict: all names
    net.eval()
    with open(rows_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    x = torch.tensor([inputs(meta, row) for row in rows], dtype=torch.float32)
    if "standardize" in meta and not meta["safetensors"]["standardization_folded"]:
        x = (x - torch.tensor(meta["standardize"]["mean"])) / torch.tensor(meta["standardize"]["std"])
    with torch.no_grad():
        y = net(x)
    if meta["output"] == "softmax":
        y = torch.softmax(y, dim=1)
    elif meta["output"] == "sigmoid":
        y = torch.sigmoid(y)
    for row in y.tolist():
        print(",".join(repr(v) for v in row))


if __name__ == "__main__":
    main(*sys.argv[1:])
