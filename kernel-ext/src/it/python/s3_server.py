"""A real S3-compatible server for the notebook tests: S3Proxy (its filesystem backend) in a
JVM of its own, with its own port and data folder, started and stopped by the test; files
reach it through boto3, as users upload theirs."""
import contextlib
import os
import shutil
import socket
import subprocess
import time

import pyarrow as pa
import pyarrow.csv as csv
import pyarrow.parquet as pq
import pytest

from kernel_session import REPO_ROOT, error_text, execute, plain_result

CANCER = REPO_ROOT / "ray-backend" / "src" / "test" / "resources" / "datasets" / "breast_cancer.csv"
CLASSPATH = REPO_ROOT / "ray-backend" / "test-servers" / "target" / "s3proxy.classpath"
KEY_ID, SECRET = "dml-test", "dml-test-secret"  # a test server's, not secrets
# What the kernel (its scan) and every worker need to sign as the server's identity.
CREDENTIALS = {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET,
               "AWS_REGION": "us-east-1"}


def free_port(host):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class S3Proxy:
    """One S3Proxy process; start() waits until it listens (at most 60 s), stop() ends it."""

    def __init__(self, base, host="127.0.0.1"):
        if not CLASSPATH.is_file():
            pytest.fail(f"no {CLASSPATH}: build first (mvn -pl ray-backend/test-servers"
                        " package, or bin/install)")
        self.base, self.host = base, host
        self.port = free_port(host)
        self.endpoint = f"http://{host}:{self.port}"
        self.proc = None
        (base / "data").mkdir(parents=True, exist_ok=True)
        self.props = base / "s3proxy.properties"
        self.props.write_text(
            f"s3proxy.endpoint={self.endpoint}\ns3proxy.authorization=aws-v2-or-v4\n"
            f"s3proxy.identity={KEY_ID}\ns3proxy.credential={SECRET}\n"
            f"jclouds.provider=filesystem\njclouds.filesystem.basedir={base / 'data'}\n")

    def start(self):
        java = shutil.which("java") or "java"
        with open(self.base / "s3proxy.log", "ab") as log:
            self.proc = subprocess.Popen(
                [java, "-Xmx256m", "-cp", CLASSPATH.read_text().strip(),
                 "org.gaul.s3proxy.Main", "--properties", str(self.props)],
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, (self.base / "s3proxy.log").read_text()
            try:
                socket.create_connection((self.host, self.port), timeout=0.5).close()
                return self
            except OSError:
                assert time.monotonic() < deadline, "S3Proxy did not listen within 60 s"
                time.sleep(0.2)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def client(self):
        """A boto3 client of this server (S3Proxy answers flexible checksums NotImplemented)."""
        os.environ.setdefault("AWS_REQUEST_CHECKSUM_CALCULATION", "when_required")
        os.environ.setdefault("AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required")
        import boto3
        from botocore.config import Config
        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=KEY_ID,
                            aws_secret_access_key=SECRET, region_name="us-east-1",
                            config=Config(s3={"addressing_style": "path"}))


@contextlib.contextmanager
def running_s3proxy(base, host="127.0.0.1"):
    """Yields a started server; always stops it."""
    server = S3Proxy(base, host)
    try:
        yield server.start()
    finally:
        server.stop()


def write_cancer(folder, names, copies=2, row_group_size=250):
    """Parquet files pyarrow writes with its defaults from the breast-cancer table, each the
    table `copies` times in row groups of row_group_size; returns their paths."""
    table = pa.concat_tables([csv.read_csv(CANCER)] * copies)
    paths = []
    for name in names:
        pq.write_table(table, folder / name, row_group_size=row_group_size)
        paths.append(folder / name)
    return paths


def upload(client, bucket, prefix, paths):
    """put_object of each file under prefix, creating the bucket where it is missing."""
    if bucket not in [b["Name"] for b in client.list_buckets().get("Buckets", [])]:
        client.create_bucket(Bucket=bucket)
    for p in paths:
        client.put_object(Bucket=bucket, Key=f"{prefix}{p.name}", Body=p.read_bytes())


def assert_s3_model_equals_disk(kc, folder, endpoint, common, timeout=600):
    """Trains the cell `common` from folder (--into disk), then from s3://train/cancer/ at
    endpoint (--into remote), and checks the two models are equal."""
    content, _ = execute(kc, f"%dml train {folder}{common} --into disk", timeout=timeout)
    assert content["status"] == "ok", error_text(content)
    content, _ = execute(kc, f"%dml train s3://train/cancer/{common} --s3-endpoint {endpoint}"
                             " --into remote", timeout=timeout)
    assert content["status"] == "ok", error_text(content)
    content, outputs = execute(kc, "java.util.Arrays.equals(disk.parameters(),"
                                   " remote.parameters()) + \" \" + remote.globalSteps()")
    same, steps = plain_result(outputs).strip('"').split(" ")
    assert same == "true", "the model trained from s3:// differs from the one from disk"
    assert int(steps) > 0
