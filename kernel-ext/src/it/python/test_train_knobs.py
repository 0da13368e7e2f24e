"""%dml train's update options end to end, through the installed kernel: the help lists them,
bad values get one line each, and a real table stops early with the cell saying so."""
from pathlib import Path

import pytest

from kernel_session import error_text, execute, plain_result

CANCER = (Path(__file__).resolve().parents[4] / "ray-backend" / "src" / "test" / "resources"
          / "datasets" / "breast_cancer.csv")
JOB_TIMEOUT = 600


@pytest.fixture(scope="module")
def kc(shared_kernel):
    _, client = shared_kernel
    content, _ = execute(client, "var fraud = dev.dml.ray.data.SyntheticFraud.generate(2_000, 7);")
    assert content["status"] == "ok", content
    return client


def one_error_line(kc, code):
    content, outputs = execute(kc, code, 120)
    assert content["status"] == "error", (content, outputs)
    lines = content["traceback"]
    assert lines[0].startswith("dml: ") and len(lines) == 2, lines
    return "\n".join(lines)


def test_help_lists_the_update_options(kc):
    content, outputs = execute(kc, "%dml help train")
    assert content["status"] == "ok", content
    text = "\n".join(str(m["content"].get("data", {}).get("text/plain", ""))
                     + str(m["content"].get("text", "")) for m in outputs)
    for flag in ("--lr-schedule", "--warmup", "--weight-decay", "--clip-norm", "--early-stop"):
        assert flag in text, (flag, text)


def test_bad_values_get_one_line_each(kc):
    train = "%dml train fraud --label is_fraud "
    assert "--warmup must be a whole number of at least 0" in one_error_line(
        kc, train + "--warmup -1")
    assert "--lr-schedule must be constant, cosine, or step:EVERY:GAMMA" in one_error_line(
        kc, train + "--lr-schedule linear")
    assert "--early-stop watches the validation loss" in one_error_line(
        kc, train + "--early-stop 3")
    assert "--clip-norm clips the global norm" in one_error_line(
        kc, train + "--clip-norm 1 --strategy pipeline --hidden 16,8")


def test_a_real_table_stops_early_and_the_cell_says_when(kc):
    code = (f"%dml train {CANCER} --label diagnosis --hidden 128,128 --epochs 60"
            " --batch-size 16 --lr 0.01 --lr-schedule cosine --warmup 20 --weight-decay 0.0001"
            " --clip-norm 5 --validation 0.3 --early-stop 3 --no-plots --into model")
    content, outputs = execute(kc, code, timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)
    said = "\n".join(str(m["content"].get("data", {}).get("text/plain", "")) for m in outputs
                     if m["msg_type"] == "display_data")
    assert "--early-stop: the validation loss has not improved for 3 epochs; stopped after" \
        " epoch" in said, said
    content, outputs = execute(kc, "model.stoppedEarlyAfter() + \" \" + model.keptEpoch()"
                                   " + \" \" + model.metrics().columnNames()")
    stopped, kept, columns = plain_result(outputs).strip('"').split(" ", 2)
    assert 0 < int(stopped) < 60 and int(kept) == int(stopped) - 3, outputs
    assert "lr" in columns, columns
