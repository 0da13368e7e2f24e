"""pyarrow's side of P6's object-storage row: reads a Parquet prefix from an S3-compatible
server with pyarrow.dataset over pyarrow.fs.S3FileSystem, as a Python user would, and prints
the seconds of each read (the first is a warm-up) and the rows, as one JSON line.

Usage: python3 s3_read.py ENDPOINT KEY_ID SECRET BUCKET/PREFIX READS
"""
import json
import sys
import time
from urllib.parse import urlparse

import pyarrow.dataset as ds
from pyarrow import fs


def main(endpoint, key_id, secret, path, reads):
    url = urlparse(endpoint)
    s3 = fs.S3FileSystem(access_key=key_id, secret_key=secret, region="us-east-1",
                         endpoint_override=url.netloc, scheme=url.scheme)
    seconds, rows = [], 0
    for _ in range(int(reads)):
        t0 = time.perf_counter()
        table = ds.dataset(path, filesystem=s3, format="parquet").to_table()
        seconds.append(time.perf_counter() - t0)
        rows = table.num_rows
        del table
    print(json.dumps({"seconds": seconds, "rows": rows}))


if __name__ == "__main__":
    main(*sys.argv[1:])
