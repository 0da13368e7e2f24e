"""Writes the files a pandas user writes, with pandas' and pyarrow's defaults, for Java to read.

Usage: python3 write_pandas.py OUT_DIR
Every frame has 12 rows; row i holds x = i / 2, k = i * 10 (pandas' nullable Int64), name =
"r<i % 3>" (text), cat = "u" or "v" (a pandas categorical, i % 2) and y = i % 2 (the label).
  shuffled.parquet, shuffled.feather: the frame after df.sample(frac=1, random_state=0), whose
    index pandas stores as the column __index_level_0__; prints order=<the x values in file order>
  codec_<c>.parquet: df.to_parquet(compression=c) for every codec pandas offers
  codec_<c>.feather: df.to_feather(compression=c) for lz4 (the default), zstd and uncompressed
  types.feather, types.parquet: one column of each other type pandas writes for flat frames
    (see TYPES below); prints the expected stored numbers as key=value
  big.feather: 200000 rows, n = i % 97 and s = "s<i % 13>", so that each LZ4 frame holds many
    blocks whose matches reach back into the blocks before them
  nested.feather, nested.parquet: a list column, "tags"
  header_only.csv: a CSV with a header and no rows (a filter that kept nothing)
Called by dev.dml.ray.data.PandasFilesTest.
"""
import datetime
import decimal
import os
import sys

import pandas as pd
import pyarrow as pa

out = sys.argv[1]
rows = range(12)
df = pd.DataFrame({
    "x": [i / 2 for i in rows],
    "k": pd.array([i * 10 for i in rows], dtype="Int64"),
    "name": ["r%d" % (i % 3) for i in rows],
    "cat": pd.Categorical(["u" if i % 2 == 0 else "v" for i in rows]),
    "y": [i % 2 for i in rows],
})


def path(name):
    return os.path.join(out, name)


shuffled = df.sample(frac=1, random_state=0)
shuffled.to_parquet(path("shuffled.parquet"))
shuffled.to_feather(path("shuffled.feather"))
print("order=" + ",".join(repr(v) for v in shuffled["x"]))

for codec in ["snappy", "gzip", "brotli", "lz4", "zstd", None]:
    df.to_parquet(path("codec_%s.parquet" % (codec or "none")), compression=codec)
for codec in ["lz4", "zstd", "uncompressed"]:
    df.to_feather(path("codec_%s.feather" % codec), compression=codec)

TYPES = pd.DataFrame({
    "ts": pd.to_datetime(["2024-01-01 00:00:01", "2024-03-01 00:00:00", "2024-05-01 00:00:00"]),
    "ts_utc": pd.to_datetime(["2024-01-01", "2024-03-01", "2024-05-01"], utc=True),
    "day": [datetime.date(2024, 1, 2), datetime.date(2024, 3, 1), None],
    "gap": pd.to_timedelta([1, 2, 3], unit="s"),
    "small": pd.array([1, 2, 250], dtype="uint8"),
    "f32": pd.array([0.5, 1.5, 2.5], dtype="float32"),
    "flag": [True, False, True],
    "maybe": pd.array([7, None, 9], dtype="Int64"),
    "blob": [b"ab", b"cd", b"ef"],
    "text": ["a", "b", None],
    "cat": pd.Categorical(["lo", "hi", "lo"]),
    "price": [decimal.Decimal("1.25"), decimal.Decimal("-3.50"), None],
    "y": [0, 1, 0],
})
TYPES.to_feather(path("types.feather"))
TYPES.to_parquet(path("types.parquet"))
for col in ["ts", "ts_utc", "gap"]:
    print("%s0=%d" % (col, TYPES[col].astype("int64").iloc[0]))
print("day0=%d" % (datetime.date(2024, 1, 2) - datetime.date(1970, 1, 1)).days)

BIG = 200_000
pd.DataFrame({"n": [i % 97 for i in range(BIG)], "s": ["s%d" % (i % 13) for i in range(BIG)]}) \
    .to_feather(path("big.feather"))

nested = pd.DataFrame({"tags": [[1, 2], [3]], "y": [0, 1]})
nested.to_feather(path("nested.feather"))
nested.to_parquet(path("nested.parquet"))

df.iloc[0:0].to_csv(path("header_only.csv"), index=False)
print("pandas=" + pd.__version__)
print("pyarrow=" + pa.__version__)
