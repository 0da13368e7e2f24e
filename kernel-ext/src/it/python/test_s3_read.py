"""`%dml train s3://...` through the installed kernel, against a real S3-compatible server
(S3Proxy) that the test starts on loopback: files pyarrow writes, uploaded with boto3, trained
with --read-on-workers into the same model as the same files on disk; a missing bucket is one
line naming the URL and the fix."""
import pytest

from kernel_session import execute, running_kernel
from s3_server import CREDENTIALS, assert_s3_model_equals_disk, running_s3proxy, upload, \
    write_cancer

JOB_TIMEOUT = 600


@pytest.fixture(scope="module")
def s3_server(tmp_path_factory):
    """S3Proxy with its filesystem backend, its own port and folder; stopped after."""
    with running_s3proxy(tmp_path_factory.mktemp("s3proxy")) as server:
        yield server


@pytest.fixture(scope="module")
def s3(s3_server):
    return s3_server.endpoint


@pytest.fixture(scope="module")
def files(s3_server, tmp_path_factory):
    """Two Parquet files pyarrow writes with its defaults, on disk and uploaded with boto3."""
    folder = tmp_path_factory.mktemp("cancer")
    upload(s3_server.client(), "train", "cancer/",
           write_cancer(folder, ["a.parquet", "b.parquet"]))
    return folder


@pytest.fixture(scope="module")
def kc(s3):
    """A kernel (and its workers) whose AWS default chain finds the server's credentials."""
    with running_kernel(CREDENTIALS) as (_, client):
        yield client


@pytest.mark.slow
def test_a_cell_trains_from_s3_into_the_model_trained_from_disk(kc, s3, files):
    common = (" --label diagnosis --read-on-workers --workers 2 --hidden 16 --epochs 2"
              " --batch-size 64 --seed 11 --no-plots")
    assert_s3_model_equals_disk(kc, files, s3, common, JOB_TIMEOUT)


def test_a_missing_bucket_is_one_line_naming_the_url_and_the_fix(kc, s3):
    content, outputs = execute(kc, "%dml train s3://no-such-bucket/x/ --label diagnosis"
                                   f" --read-on-workers --s3-endpoint {s3}", 120)
    assert content["status"] == "error", (content, outputs)
    lines = content["traceback"]
    assert len(lines) == 2, lines
    assert lines[0].startswith("dml: The bucket no-such-bucket of s3://no-such-bucket/x/ does"
                               " not exist"), lines
    assert "--s3-endpoint" in lines[1], lines
