"""Writes the Palmer penguins as a pandas user does, for dml to train on.

Usage: python3 write_penguins_pandas.py PENGUINS_CSV OUT_DIR
Reads the CSV with pandas, drops the rows without measurements, shuffles them (df.sample, so
the index is no longer a range and pandas stores it as a column), makes species, island and
sex categoricals, and writes penguins.feather (to_feather's defaults: LZ4, large strings,
dictionary-encoded categoricals) and penguins.parquet (compression="brotli").
Prints rows=N.
Called by dev.dml.ray.train.PandasTrainingTest.
"""
import os
import sys

import pandas as pd

src, out = sys.argv[1], sys.argv[2]
df = pd.read_csv(src)
df = df.dropna(subset=["bill_length_mm"]).sample(frac=1, random_state=3)
for c in ["species", "island", "sex"]:
    df[c] = df[c].astype("category")
df.to_feather(os.path.join(out, "penguins.feather"))
df.to_parquet(os.path.join(out, "penguins.parquet"), compression="brotli")
print("rows=%d" % len(df))
