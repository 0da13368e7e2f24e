"""Uploads files to an S3-compatible store with boto3, as users put their data in a bucket.

Usage: python3 s3_upload.py ENDPOINT KEY_ID SECRET BUCKET [FILE KEY]...
  Creates BUCKET when it does not exist, then puts each FILE under KEY (a KEY of "-" deletes
  FILE's key instead, FILE then being the key). Prints etag.KEY=ETAG for each object put.
Called by the S3 tests of dev.dml.ray.data.store and the worker-read S3 tests.
"""
import os
import sys

# Recent boto3 sends flexible-checksum headers that S3Proxy answers with NotImplemented;
# it needs them only when a request requires them.
os.environ.setdefault("AWS_REQUEST_CHECKSUM_CALCULATION", "when_required")
os.environ.setdefault("AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required")

import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402

endpoint, key_id, secret, bucket = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=key_id,
                  aws_secret_access_key=secret, region_name="us-east-1",
                  config=Config(s3={"addressing_style": "path"}))
if bucket not in [b["Name"] for b in s3.list_buckets().get("Buckets", [])]:
    s3.create_bucket(Bucket=bucket)
pairs = sys.argv[5:]
for path, key in zip(pairs[::2], pairs[1::2]):
    if key == "-":
        s3.delete_object(Bucket=bucket, Key=path)
        continue
    with open(path, "rb") as f:
        put = s3.put_object(Bucket=bucket, Key=key, Body=f.read())
    print(f"etag.{key}={put['ETag']}")
