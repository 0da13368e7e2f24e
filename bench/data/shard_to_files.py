"""Turns a dml shard (an Arrow IPC stream: a FixedSizeList `features` column and a `label`)
into the plain tables a user would have on disk, for the worker-read benchmarks (P6, P12).

Usage: python3 shard_to_files.py SHARD_STREAM LABEL ROWS_PER_GROUP OUT_PARQUET [OUT_ARROW]
  Writes one float32 column per feature (named as the shard's dml.feature_names) and the label
  as int32, as Parquet (snappy, row groups of ROWS_PER_GROUP rows) and, if named, as an Arrow
  IPC file in record batches of that size.
"""
import sys

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

src, label, per_group, out_parquet = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
out_arrow = sys.argv[5] if len(sys.argv) > 5 else None
shard = ipc.open_stream(src).read_all()
field = shard.schema.field("features")
names = field.metadata[b"dml.feature_names"].decode().split("\n")
flat = shard.column("features").combine_chunks().flatten().to_numpy()
flat = flat.reshape(-1, len(names))
columns = {n: pa.array(flat[:, i]) for i, n in enumerate(names)}
columns[label] = shard.column("label").combine_chunks().cast(pa.int32())
table = pa.table(columns)
pq.write_table(table, out_parquet, row_group_size=per_group, compression="snappy")
if out_arrow:
    with ipc.new_file(out_arrow, table.schema) as out:
        for batch in table.to_batches(max_chunksize=per_group):
            out.write_batch(batch)
print(f"rows={table.num_rows}")
