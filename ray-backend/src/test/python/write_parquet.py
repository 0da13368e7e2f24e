"""Writes a CSV table as Parquet with pyarrow, for Java to read, as pandas users write theirs.

Usage: python3 write_parquet.py CSV_FILE OUT_FILE ROWS_PER_GROUP COMPRESSION [COPIES]
  OUT_FILE ending in .arrow is written as an Arrow IPC file instead, in record batches of
  ROWS_PER_GROUP rows (COMPRESSION is then ignored).
  The CSV's columns keep the types pyarrow infers (strings, int64, double, nulls for empty
  cells). COPIES (default 1) repeats the rows that many times, to make a bigger file.
Prints rows=N and groups=G.
Called by dev.dml.ray.data.ParquetFilesTest and the worker-read data tests.
"""
import sys

import pyarrow as pa
import pyarrow.csv as csv
import pyarrow.parquet as pq

src, dst, per_group, codec = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
copies = int(sys.argv[5]) if len(sys.argv) > 5 else 1
# empty and NA cells become nulls, as pandas.read_csv makes them
table = csv.read_csv(src, convert_options=csv.ConvertOptions(strings_can_be_null=True))
if copies > 1:
    table = pa.concat_tables([table] * copies)
if dst.endswith(".arrow"):
    with pa.ipc.new_file(dst, table.schema) as out:
        for batch in table.to_batches(max_chunksize=per_group):
            out.write_batch(batch)
    print(f"rows={table.num_rows}")
    print(f"groups={len(table.to_batches(max_chunksize=per_group))}")
else:
    pq.write_table(table, dst, row_group_size=per_group, compression=codec)
    meta = pq.ParquetFile(dst).metadata
    print(f"rows={meta.num_rows}")
    print(f"groups={meta.num_row_groups}")
