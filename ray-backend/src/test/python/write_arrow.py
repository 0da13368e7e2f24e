"""Writes Arrow data with pyarrow for Java to read.

Usage: python3 write_arrow.py SHARD_STREAM_FILE TABLE_FILE
  SHARD_STREAM_FILE: an IPC stream in dml's shard layout, written in two record batches, with
    pyarrow's default int64 labels: row i has features (i, 2 i, i / 4) and label i % 5.
  TABLE_FILE: an IPC file of a plain table: x float64 (i * 0.5), n int64 (i), flag bool (i odd),
    name string ("r<i>"); 6 rows, and x is null in row 3.
Called by dev.dml.ray.data.CrossLanguageTest.
"""
import sys

import pyarrow as pa
import pyarrow.ipc as ipc

WIDTH = 3
feature_field = pa.field(
    "features",
    pa.list_(pa.field("item", pa.float32(), nullable=False), WIDTH),
    nullable=False,
    metadata={"dml.feature_names": "i\ntwice\nquarter"},
)
schema = pa.schema([feature_field, pa.field("label", pa.int64(), nullable=False)])


def batch(start, stop):
    flat = []
    for i in range(start, stop):
        flat += [float(i), 2.0 * i, i / 4.0]
    values = pa.array(flat, type=pa.float32())
    feats = pa.FixedSizeListArray.from_arrays(values, WIDTH)
    labels = pa.array([i % 5 for i in range(start, stop)], type=pa.int64())
    return pa.record_batch([feats, labels], schema=schema)


with pa.OSFile(sys.argv[1], "wb") as sink:
    with ipc.new_stream(sink, schema) as writer:
        writer.write_batch(batch(0, 7))
        writer.write_batch(batch(7, 10))

rows = range(6)
table = pa.table({
    "x": pa.array([None if i == 3 else i * 0.5 for i in rows], type=pa.float64()),
    "n": pa.array(list(rows), type=pa.int64()),
    "flag": pa.array([i % 2 == 1 for i in rows]),
    "name": pa.array(["r%d" % i for i in rows]),
})
with pa.OSFile(sys.argv[2], "wb") as sink:
    with ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
print("ok")
