"""Parquet through the installed kernel: `%dml train FILE.parquet` reads it in the kernel, and
`--read-on-workers` has each worker read its own row groups; URL schemes other than file://
and s3:// get one line."""
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as csv
import pyarrow.parquet as pq
import pytest

from kernel_session import error_text, execute, plain_result

CANCER = (Path(__file__).resolve().parents[4] / "ray-backend" / "src" / "test" / "resources"
          / "datasets" / "breast_cancer.csv")
JOB_TIMEOUT = 600


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    """The breast-cancer table, 5 times over, as pandas users write it: 12 row groups."""
    table = csv.read_csv(CANCER)
    out = tmp_path_factory.mktemp("data") / "cancer.parquet"
    pq.write_table(pa.concat_tables([table] * 5), out, row_group_size=250)
    return out


@pytest.fixture(scope="module")
def kc(shared_kernel):
    _, client = shared_kernel
    content, _ = execute(client, "var check = dev.dml.ray.data.TableReaders.readCsv("
                                 f"java.nio.file.Path.of(\"{CANCER}\"));")
    assert content["status"] == "ok", content
    return client


def test_workers_read_their_row_groups_and_the_model_learns(kc, parquet):
    code = (f"%dml train {parquet} --label diagnosis --read-on-workers --workers 2"
            " --hidden 16 --epochs 3 --batch-size 64 --validation check --no-plots"
            " --into model")
    content, outputs = execute(kc, code, timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)
    content, outputs = execute(kc, "model.columns().classNames() + \" \" + model.epochs()"
                                   ".get(model.epochs().size() - 1).validationAccuracy()")
    names, accuracy = plain_result(outputs).strip('"').rsplit(" ", 1)
    assert names == "[benign, malignant]", names
    assert float(accuracy) >= 0.9, accuracy  # the majority class alone scores 0.627


def test_a_parquet_file_reads_in_the_kernel_too(kc, parquet):
    content, outputs = execute(kc, f"%dml train {parquet} --label diagnosis --epochs 1"
                                   " --no-plots --into small", timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)


def test_other_url_schemes_are_refused_in_one_line(kc):
    # s3:// is read since issue 29 (test_s3_read.py); other schemes are still refused
    content, outputs = execute(kc, "%dml train https://example.com/cancer.parquet --label"
                                   " diagnosis --read-on-workers", 120)
    assert content["status"] == "error", (content, outputs)
    lines = content["traceback"]
    assert lines[0].startswith("dml: ") and len(lines) == 2, lines
    assert "not https://" in lines[0], lines
