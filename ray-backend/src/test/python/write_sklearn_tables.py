"""Writes small real tables from scikit-learn's own package, split as a user would, with
scikit-learn's LogisticRegression score on the same split for dml to be compared with.

Usage: python3 write_sklearn_tables.py OUT_DIR NAME...
NAME is digits (8x8 grey images: p0..p63), iris, wine or breast_cancer (their feature names),
or rgb32 (a synthetic 32x32x3 image table: class = the colour channel of a bright square at a
random place; pixels flattened with numpy's reshape(n, -1) of [n, 32, 32, 3] images, so
channel-last). Each NAME becomes NAME_train.parquet and NAME_test.parquet (train_test_split,
test_size=0.25, stratified, random_state=0; pandas' to_parquet defaults) with a "label"
column of class names. Prints NAME_rows=N, NAME_features=F and NAME_logreg=ACCURACY
(LogisticRegression with its defaults, max_iter=5000, on the same split).
Called by dev.dml.ray.data.SklearnTables.
"""
import os
import sys

import numpy as np
import pandas as pd
from sklearn import datasets
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def rgb32(n=900, seed=0):
    rng = np.random.default_rng(seed)
    images = rng.uniform(0, 0.5, size=(n, 32, 32, 3)).astype(np.float32)
    labels = rng.integers(0, 3, size=n)
    for i in range(n):
        r, c = rng.integers(0, 24, size=2)
        images[i, r:r + 8, c:c + 8, labels[i]] += 0.5
    x = images.reshape(n, -1)
    names = ["red", "green", "blue"]
    return x, np.array([names[k] for k in labels]), [f"p{i}" for i in range(x.shape[1])]


def load(name):
    if name == "rgb32":
        return rgb32()
    bunch = getattr(datasets, "load_" + name)()
    x = bunch.data.astype(np.float32)
    names = [f"p{i}" for i in range(x.shape[1])] if name == "digits" else [
        str(f).replace(" ", "_").replace("(", "").replace(")", "").replace("/", "_")
        for f in bunch.feature_names]
    classes = [str(c) for c in bunch.target_names]
    return x, np.array([classes[k] for k in bunch.target]), names


out = sys.argv[1]
for name in sys.argv[2:]:
    x, y, columns = load(name)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.25, stratify=y, random_state=0)
    for part, xs, ys in (("train", xtr, ytr), ("test", xte, yte)):
        df = pd.DataFrame(xs, columns=columns)
        df["label"] = ys
        df.to_parquet(os.path.join(out, f"{name}_{part}.parquet"))
    logreg = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
    print(f"{name}_rows={len(y)}")
    print(f"{name}_features={x.shape[1]}")
    print(f"{name}_logreg={logreg.fit(xtr, ytr).score(xte, yte)}")
