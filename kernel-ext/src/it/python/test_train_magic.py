"""%dml train end to end, through the installed kernel, the way a notebook drives it: live
plots updated in place, the result bound to a variable, job control, interrupts and the error
lines. One kernel (and so one embedded Ray head) serves the whole module."""
import os
import re
import signal
import time

import pytest

from kernel_session import error_text, execute, interrupt, plain_result

SETUP = """import dev.dml.ray.data.SyntheticFraud;
var fraud = SyntheticFraud.generate(20_000, 7);
var holdout = SyntheticFraud.generate(2_000, 8);
var notATable = "fraud";"""
TRAIN = ("%dml train fraud --label is_fraud --hidden 32 --workers 2 --epochs 2"
         " --batch-size 256 --lr 0.01 --validation holdout --into model")
# Long enough to interrupt or stop: small batches, many epochs.
LONG = "%dml train fraud --label is_fraud --workers 2 --epochs 50 --batch-size 16"
JOB_TIMEOUT = 600


@pytest.fixture(scope="module")
def kc(shared_kernel):
    _, client = shared_kernel
    content, _ = execute(client, SETUP)
    assert content["status"] == "ok", content
    return client


def error_of(kc, code, timeout=120):
    content, outputs = execute(kc, code, timeout)
    assert content["status"] == "error", (content, outputs)
    return content


def assert_one_error_line(content, *expected):
    lines = content["traceback"]
    assert lines[0].startswith("dml: "), lines
    assert len(lines) == 2, lines  # what went wrong, how to fix it: no stack trace
    for text in expected:
        assert text in "\n".join(lines), lines


def alive(pid):
    try:
        os.kill(int(pid), 0)
        return True
    except ProcessLookupError:
        return False


def wait_until(condition, timeout=60, every=0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return False


def wait_for_live_plot(kc, msg_id):
    """Waits until the running cell msg_id has updated its live plot once; an error from the cell
    fails at once."""
    seen_update = False
    deadline = time.monotonic() + 300
    while not seen_update and time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=300)
        mine = msg["parent_header"].get("msg_id") == msg_id
        assert not (mine and msg["msg_type"] == "error"), msg["content"]
        seen_update = mine and msg["msg_type"] == "update_display_data"
    assert seen_update, "the live plot never updated"


def status_text(kc):
    content, outputs = execute(kc, "%dml status")
    assert content["status"] == "ok", content
    return "\n".join(m["content"]["data"]["text/plain"] for m in outputs
                     if m["msg_type"] == "display_data")


def worker_pids(text, job):
    line = next(l for l in text.splitlines() if l.strip().startswith(job))
    return re.findall(r"\d+@[^:\s]+:(\d+)", line)


def test_bad_input_gets_one_line_each(kc):
    assert_one_error_line(error_of(kc, "%dml train fraud --label is_fraud --wrokers 2"),
                          "unknown option --wrokers", "Did you mean --workers?")
    assert_one_error_line(error_of(kc, "%dml train fruad --label is_fraud"),
                          "no variable or file 'fruad'", "Did you mean 'fraud'?")
    assert_one_error_line(error_of(kc, "%dml train notATable --label is_fraud"),
                          "is a String, not a Tablesaw Table")
    assert_one_error_line(error_of(kc, "%dml train fraud --label is_frad"),
                          "'is_frad' is not in the table", "Did you mean 'is_fraud'?")
    assert_one_error_line(error_of(kc, "%dml train fraud --label is_fraud --epochs 0"),
                          "--epochs must be a whole number of at least 1")
    debug = error_of(kc, "%dml train fraud --label is_frad --debug")
    assert any(line.startswith("\tat ") for line in debug["traceback"]), debug
    content, outputs = execute(kc, "1 + 1")
    assert plain_result(outputs) == "2"


def test_an_unreachable_cluster_fails_within_ten_seconds(kc):
    started = time.monotonic()
    content = error_of(kc, "%dml train fraud --label is_fraud --cluster 192.0.2.1:6379")
    assert time.monotonic() - started < 10, "the probe took too long"
    assert_one_error_line(content, "192.0.2.1:6379")
    content, outputs = execute(kc, "1 + 1")
    assert plain_result(outputs) == "2"


def test_train_updates_one_display_in_place_and_binds_the_result(kc):
    content, outputs = execute(kc, TRAIN, timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)
    displays = [m for m in outputs if m["msg_type"] == "display_data"]
    updates = [m for m in outputs if m["msg_type"] == "update_display_data"]
    live_id = displays[0]["content"]["transient"]["display_id"]
    assert "image/svg+xml" in displays[0]["content"]["data"]
    assert len(updates) >= 3, [m["msg_type"] for m in outputs]
    assert {u["content"]["transient"]["display_id"] for u in updates} == {live_id}
    last = updates[-1]["content"]["data"]
    assert last["image/svg+xml"].lstrip().startswith(("<svg", "<?xml")), last
    assert "epoch 2/2" in last["text/plain"], last["text/plain"]
    summary = displays[-1]["content"]["data"]
    assert "<table" in summary["text/html"] and "final loss" in summary["text/plain"], summary

    content, outputs = execute(kc, "model.predict(holdout).columnNames()")
    assert plain_result(outputs) == "[p0, p1, predicted]", (content, outputs)
    content, outputs = execute(kc, "model.metrics().rowCount() + \" \" + model.metrics()"
                                   ".columnNames().get(2)")
    rows, column = plain_result(outputs).strip('"').split()
    assert int(rows) > 0 and column == "loss"
    content, outputs = execute(kc, "model.epochMetrics().doubleColumn(\"val_auc\").get(1)")
    assert float(plain_result(outputs)) > 0.8, outputs

    text = status_text(kc)
    assert "finished" in text and len(set(worker_pids(text, "fraud-"))) == 2, text
    content, outputs = execute(kc, "%dml cluster")
    cluster = outputs[0]["content"]["data"]["text/plain"]
    assert "embedded head, owned by this kernel" in cluster and "alive" in cluster, cluster


def test_more_gpus_than_the_cluster_has_fails_fast(kc):
    # CI has no GPU: asking for one refuses in one line, before any worker, and the kernel lives.
    # (No timing here: run alone, the cell also starts the cluster; the driver's check before
    # placement is what makes it fast.)
    content = error_of(kc, "%dml train fraud --label is_fraud --gpus-per-worker 1")
    assert_one_error_line(content, "but the cluster has 0 GPU in all.",
                          "Lower --gpus-per-worker or --workers, or add GPU nodes")
    content, outputs = execute(kc, "1 + 1")
    assert content["status"] == "ok" and plain_result(outputs) == "2", outputs


def test_interrupt_stops_the_job_and_frees_its_workers(kc):
    msg_id = kc.execute(LONG)
    wait_for_live_plot(kc, msg_id)
    content = interrupt(kc, msg_id, timeout=120)
    assert "interrupted and stopped" in error_text(content), content
    text = status_text(kc)
    job_line = [l for l in text.splitlines() if "stopped" in l]
    assert job_line, text
    pids = re.findall(r"\d+@[^:\s]+:(\d+)", job_line[-1])
    assert pids and wait_until(lambda: not any(alive(p) for p in pids), 30), pids
    content, outputs = execute(kc, "1 + 1")
    assert plain_result(outputs) == "2"


def test_background_job_refuses_a_second_and_stops_on_request(kc):
    content, outputs = execute(kc, LONG + " --background", timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)
    job = re.search(r"Job (\S+) runs in the background",
                    outputs[-1]["content"]["data"]["text/plain"]).group(1)
    assert_one_error_line(error_of(kc, TRAIN), f"Job {job} is still running",
                          f"%dml stop {job}")
    assert wait_until(lambda: worker_pids(status_text(kc), job), 120)
    pids = worker_pids(status_text(kc), job)
    content, outputs = execute(kc, f"%dml stop {job}", timeout=120)
    assert content["status"] == "ok", error_text(content)
    assert f"Stopped job {job}" in outputs[-1]["content"]["data"]["text/plain"]
    assert wait_until(lambda: not any(alive(p) for p in pids), 30), pids
    assert "stopped" in status_text(kc)


def test_a_worker_that_dies_mid_job_leaves_the_kernel_alive(kc):
    content, outputs = execute(kc, LONG + " --background", timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)
    job = re.search(r"Job (\S+) runs", outputs[-1]["content"]["data"]["text/plain"]).group(1)
    assert wait_until(lambda: worker_pids(status_text(kc), job), 120)
    os.kill(int(worker_pids(status_text(kc), job)[1]), signal.SIGKILL)
    assert wait_until(lambda: "failed" in next(
        l for l in status_text(kc).splitlines() if job in l), 120)
    content, outputs = execute(kc, "1 + 1")
    assert plain_result(outputs) == "2"
    # and the session still trains
    content, outputs = execute(kc, TRAIN.replace("--epochs 2", "--epochs 1"),
                               timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)
