"""Reads a dml shard (Arrow IPC stream) with pyarrow and prints what it found, one key=value a line.

Usage: python3 read_shard.py SHARD_FILE
Called by dev.dml.ray.data.CrossLanguageTest.
"""
import sys

import pyarrow as pa
import pyarrow.ipc as ipc

with open(sys.argv[1], "rb") as f:
    reader = ipc.open_stream(f)
    table = reader.read_all()

schema = table.schema
features = table.column("features").combine_chunks()
width = schema.field("features").type.list_size
values = features.flatten().to_numpy(zero_copy_only=False).reshape(-1, width)
labels = table.column("label").to_numpy()
meta = {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}
names = schema.field("features").metadata[b"dml.feature_names"].decode().split("\n")

print("rows=%d" % table.num_rows)
print("width=%d" % width)
print("feature_type=%s" % schema.field("features").type.value_type)
print("names=%s" % ",".join(names))
print("label_type=%s" % schema.field("label").type)
print("classes=%s" % meta.get("dml.classes"))
print("label_kind=%s" % meta.get("dml.label_kind"))
print("row4=%s" % ",".join(repr(float(v)) for v in values[4]))
print("labels=%s" % ",".join(str(int(v)) for v in labels))
print("sum=%r" % float(values.astype("float64").sum()))
