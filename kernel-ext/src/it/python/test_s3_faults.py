"""Faults of an S3-compatible store while a `%dml train s3://... --read-on-workers` cell runs,
through the installed kernel, against a real server (S3Proxy) the test starts: the server
stopped once the workers have begun reading, and the objects rewritten with boto3 at that
moment. Each cell ends in one line naming the URL and the fix; the kernel lives on and no
worker outlives the job. "Begun reading" is seen in the workers' node cache (DML_DATA_CACHE),
where each row group lands as it is read: the files have a hundred small row groups each, so
the workers are still reading when the fault comes."""
import re
import threading
import time

import pyarrow.parquet as pq
import pytest

from kernel_session import error_text, execute, plain_result, running_kernel
from s3_server import CREDENTIALS, running_s3proxy, upload, write_cancer
from test_train_magic import alive, status_text, wait_until

JOB_TIMEOUT = 600
COMMON = (" --label diagnosis --read-on-workers --workers 2 --hidden 16 --epochs 2"
          " --batch-size 64 --seed 11 --no-plots")


@pytest.fixture
def s3(tmp_path):
    """A server of this test's own, which the test may stop; always stopped after."""
    with running_s3proxy(tmp_path / "s3proxy") as server:
        yield server


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("node-cache")


@pytest.fixture(scope="module")
def kc(cache):
    """A kernel whose workers find the server's credentials and cache in `cache`."""
    with running_kernel({**CREDENTIALS, "DML_DATA_CACHE": str(cache)}) as (_, client):
        yield client


def small_row_groups(s3, tmp_path, prefix):
    """Two files of 1,138 rows in row groups of 10, uploaded under prefix; their paths."""
    folder = tmp_path / prefix.strip("/")
    folder.mkdir()
    paths = write_cancer(folder, ["a.parquet", "b.parquet"], row_group_size=10)
    upload(s3.client(), "train", prefix, paths)
    return paths


def on_first_read(cache, action):
    """Runs action in a thread once a new entry appears in the node cache, that is once a
    worker has read its first row group; returns (thread, event set when action ran)."""
    before = {p for p in cache.rglob("*")}
    done = threading.Event()

    def watch():
        deadline = time.monotonic() + JOB_TIMEOUT
        while time.monotonic() < deadline:
            if any(p.is_file() and p not in before for p in cache.rglob("*")):
                action()
                done.set()
                return
            time.sleep(0.02)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    return t, done


def train_with_a_fault(kc, s3, cache, prefix, fault, into):
    """Runs the cell on s3://train/PREFIX, with fault run once the workers began reading;
    returns the cell's error lines, after checking it failed in two lines."""
    watcher, done = on_first_read(cache, fault)
    content, _ = execute(kc, f"%dml train s3://train/{prefix}{COMMON}"
                             f" --s3-endpoint {s3.endpoint} --into {into}", timeout=JOB_TIMEOUT)
    watcher.join(timeout=1)
    assert done.is_set(), ("the workers never began reading; the cell: "
                           + (error_text(content) if content["status"] == "error" else "ok"))
    assert content["status"] == "error", "the job read on, past the fault"
    assert len(content["traceback"]) == 2, error_text(content)
    return content["traceback"]


def assert_kernel_alive_and_no_worker_left(kc):
    content, outputs = execute(kc, "1 + 1")
    assert plain_result(outputs) == "2", (content, outputs)
    pids = re.findall(r"\d+@[^:\s]+:(\d+)", status_text(kc))
    assert pids, status_text(kc)
    assert wait_until(lambda: not any(alive(p) for p in pids), 30), \
        f"workers still running after the job failed: {pids}"


@pytest.mark.slow
def test_a_store_that_stops_while_the_workers_read_fails_the_cell_in_one_line(kc, s3, cache,
                                                                               tmp_path):
    small_row_groups(s3, tmp_path, "down/")
    lines = train_with_a_fault(kc, s3, cache, "down/", s3.stop, "down")
    assert re.search(r"Could not reach the S3 endpoint " + re.escape(s3.endpoint)
                     + r" for s3://train/down/[ab]\.parquet after 4 tries", lines[0]), lines
    assert "--s3-endpoint" in lines[1], lines
    assert_kernel_alive_and_no_worker_left(kc)


@pytest.mark.slow
def test_an_object_rewritten_while_the_workers_read_fails_the_cell_naming_it(kc, s3, cache,
                                                                              tmp_path):
    paths = small_row_groups(s3, tmp_path, "swap/")
    newer = tmp_path / "newer"
    newer.mkdir()
    for p in paths:  # the same rows in the other order: other contents
        table = pq.read_table(p)
        pq.write_table(table.take(list(range(table.num_rows - 1, -1, -1))), newer / p.name,
                       row_group_size=10)
    client = s3.client()
    heads = {p.name: client.head_object(Bucket="train", Key=f"swap/{p.name}") for p in paths}
    etags = {name: h["ETag"] for name, h in heads.items()}
    sizes = {name: h["ContentLength"] for name, h in heads.items()}

    lines = train_with_a_fault(kc, s3, cache, "swap/",
                               lambda: upload(client, "train", "swap/", sorted(newer.iterdir())),
                               "swapped")
    # the HEAD before a unit sees the new size or ETag, or the GET's If-Match is refused
    match = re.search(r"The file s3://train/swap/([ab]\.parquet) changed after the job checked"
                      r" its rows \((\d+ bytes|ETag \S+) then, (\S+) now\)", lines[0])
    assert match, lines
    name, then, now = match.groups()
    assert then in (f"{sizes[name]} bytes", f"ETag {etags[name]}"), (then, sizes, etags)
    assert "leave the files unchanged while a job reads them" in lines[1], lines
    content, _ = execute(kc, "swapped")
    assert content["status"] == "error", "a model of the failed job was bound"
    assert_kernel_alive_and_no_worker_left(kc)
