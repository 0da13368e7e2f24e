"""`%dml train s3://...` through the installed kernel, against a real S3-compatible server
(S3Proxy) that the test starts on loopback: files pyarrow writes, uploaded with boto3, trained
with --read-on-workers into the same model as the same files on disk; a missing bucket is one
line naming the URL and the fix."""
import os
import shutil
import socket
import subprocess
import time

import pyarrow as pa
import pyarrow.csv as csv
import pyarrow.parquet as pq
import pytest

from kernel_session import REPO_ROOT, error_text, execute, plain_result, running_kernel

CANCER = REPO_ROOT / "ray-backend" / "src" / "test" / "resources" / "datasets" / "breast_cancer.csv"
CLASSPATH = REPO_ROOT / "ray-backend" / "test-servers" / "target" / "s3proxy.classpath"
KEY_ID, SECRET = "dml-test", "dml-test-secret"  # a test server's, not secrets
JOB_TIMEOUT = 600


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """S3Proxy with its filesystem backend, its own port and folder; stopped after."""
    if not CLASSPATH.is_file():
        pytest.fail(f"no {CLASSPATH}: build first (mvn -pl ray-backend/test-servers package, or bin/install)")
    base = tmp_path_factory.mktemp("s3proxy")
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    props = base / "s3proxy.properties"
    props.write_text(f"s3proxy.endpoint={endpoint}\ns3proxy.authorization=aws-v2-or-v4\n"
                     f"s3proxy.identity={KEY_ID}\ns3proxy.credential={SECRET}\n"
                     f"jclouds.provider=filesystem\njclouds.filesystem.basedir={base / 'data'}\n")
    (base / "data").mkdir()
    java = shutil.which("java") or "java"
    with open(base / "s3proxy.log", "wb") as log:
        proc = subprocess.Popen([java, "-Xmx256m", "-cp", CLASSPATH.read_text().strip(),
                                 "org.gaul.s3proxy.Main", "--properties", str(props)],
                                stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (base / "s3proxy.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "S3Proxy did not listen within 60 s"
                time.sleep(0.2)
        yield endpoint
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def files(s3, tmp_path_factory):
    """Two Parquet files pyarrow writes with its defaults, on disk and uploaded with boto3."""
    os.environ.setdefault("AWS_REQUEST_CHECKSUM_CALCULATION", "when_required")
    os.environ.setdefault("AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required")
    import boto3
    from botocore.config import Config
    folder = tmp_path_factory.mktemp("cancer")
    table = csv.read_csv(CANCER)
    client = boto3.client("s3", endpoint_url=s3, aws_access_key_id=KEY_ID,
                          aws_secret_access_key=SECRET, region_name="us-east-1",
                          config=Config(s3={"addressing_style": "path"}))
    client.create_bucket(Bucket="train")
    for name in ("a.parquet", "b.parquet"):
        pq.write_table(pa.concat_tables([table] * 2), folder / name, row_group_size=250)
        client.put_object(Bucket="train", Key=f"cancer/{name}",
                          Body=(folder / name).read_bytes())
    return folder


@pytest.fixture(scope="module")
def kc(s3):
    """A kernel (and its workers) whose AWS default chain finds the server's credentials."""
    env = {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET,
           "AWS_REGION": "us-east-1"}
    with running_kernel(env) as (_, client):
        yield client


@pytest.mark.slow
def test_a_cell_trains_from_s3_into_the_model_trained_from_disk(kc, s3, files):
    common = (" --label diagnosis --read-on-workers --workers 2 --hidden 16 --epochs 2"
              " --batch-size 64 --seed 11 --no-plots")
    content, _ = execute(kc, f"%dml train {files}{common} --into disk", timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)
    content, _ = execute(kc, f"%dml train s3://train/cancer/{common} --s3-endpoint {s3}"
                             " --into remote", timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)
    content, outputs = execute(kc, "java.util.Arrays.equals(disk.parameters(),"
                                   " remote.parameters()) + \" \" + remote.globalSteps()")
    same, steps = plain_result(outputs).strip('"').split(" ")
    assert same == "true", "the model trained from s3:// differs from the one from disk"
    assert int(steps) > 0


def test_a_missing_bucket_is_one_line_naming_the_url_and_the_fix(kc, s3):
    content, outputs = execute(kc, "%dml train s3://no-such-bucket/x/ --label diagnosis"
                                   f" --read-on-workers --s3-endpoint {s3}", 120)
    assert content["status"] == "error", (content, outputs)
    lines = content["traceback"]
    assert len(lines) == 2, lines
    assert lines[0].startswith("dml: The bucket no-such-bucket of s3://no-such-bucket/x/ does"
                               " not exist"), lines
    assert "--s3-endpoint" in lines[1], lines
