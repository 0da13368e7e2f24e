"""Jobs that outlive the kernel: on a standalone Ray head that the test starts (not the kernel's
embedded one), %dml train --detach hands a job to a driver of its own; the job keeps training
after its kernel shuts down (its steps keep arriving in the run store, read here with sqlite3),
%dml attach in a new kernel redraws and follows it to its end and binds its model, and
%dml stop stops one. On the embedded cluster --detach is refused in one line."""
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from kernel_session import (REPO_ROOT, execute, plain_result, processes_mentioning,
                            running_kernel)
from s3_server import free_port

SETUP = """import dev.dml.ray.data.SyntheticFraud;
var fraud = SyntheticFraud.generate(4_000, 7);"""
# Small steps, so that the job runs well past a kernel's shutdown; --deadline ends it.
DETACH = ("%dml train fraud --label is_fraud --hidden 8 --epochs {epochs} --batch-size 16"
          " --validation 0.2 --no-plots --detach --cluster {address}{more}")
RUN_ID = re.compile(r"Run (fraud-\d{8}-\d{6}-[0-9a-f]{4}) is detached")
JOB_TIMEOUT = 600
HEAD_START = 180
# The head listens on loopback only, so its raylet is at 127.0.0.1; a driver would otherwise take
# the machine's first address for its node's (docs/clusters.md: a head on loopback)
ON_LOOPBACK = {"DML_JVM_OPTIONS": "-Dray.node-ip=127.0.0.1"}
LAUNCHER = (REPO_ROOT / "ray-backend" / "src" / "main" / "resources" / "dev" / "dml" / "ray"
            / "cluster" / "embedded_head.py")
ATTEMPTS = 5  # Ray gives a starting head 30 s to register, which a loaded machine can miss


def start_head(temp, port, log):
    """`ray start --head` on loopback with its own ports (as the embedded head starts, so that
    it listens on 127.0.0.1 only, and through the same launcher, which starts on a busy
    machine); the process, once Ray says it started, or None."""
    cmd = [sys.executable, str(LAUNCHER), "start", "--head", "--block",
           "--node-ip-address=127.0.0.1", f"--temp-dir={temp}", f"--port={port}",
           "--num-cpus=4", "--object-store-memory=200000000", "--include-dashboard=false",
           "--include-log-monitor=false", "--no-monitor", "--disable-usage-stats",
           "--log-style=record", "--log-color=false"]
    for flag in ("node-manager-port", "object-manager-port", "dashboard-agent-listen-port",
                 "dashboard-agent-grpc-port", "runtime-env-agent-port", "metrics-export-port"):
        cmd.append(f"--{flag}={free_port('127.0.0.1')}")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(RAY_USAGE_STATS_ENABLED="0", RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    with open(log, "wb") as out:
        head = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    deadline = time.monotonic() + HEAD_START
    while "Ray runtime started." not in log.read_text(errors="replace"):
        if head.poll() is not None or time.monotonic() > deadline:
            stop_group(head)
            return None
        time.sleep(0.5)
    return head


def stop_group(head):
    try:
        os.killpg(head.pid, signal.SIGTERM)
        head.wait(timeout=30)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(head.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def standalone_head():
    """A Ray head of the test's own (own ports and temp dir), as a user starts one with
    `ray start --head`; several tries on a busy machine, where a head may miss Ray's start-up
    time; torn down with every process that mentions its temp dir."""
    temp = Path(tempfile.mkdtemp(prefix="dmldt-", dir="/tmp"))
    head = None
    try:
        for attempt in range(ATTEMPTS):
            port = free_port("127.0.0.1")
            head = start_head(temp, port, temp / f"head-{attempt}.log")
            if head:
                break
        assert head, (temp / f"head-{ATTEMPTS - 1}.log").read_text(errors="replace")[-3000:]
        yield f"127.0.0.1:{port}"
    finally:
        if head:
            stop_group(head)
        for pid in processes_mentioning(str(temp)):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        subprocess.run(["rm", "-rf", str(temp)])


def ok(kc, code, timeout=JOB_TIMEOUT):
    content, outputs = execute(kc, code, timeout)
    assert content["status"] == "ok", (code, content, outputs)
    return outputs


def shown(outputs):
    return "\n".join(m["content"]["data"].get("text/plain", "") for m in outputs
                     if m["msg_type"] == "display_data")


def one_error(kc, code, *expected):
    content, outputs = execute(kc, code, JOB_TIMEOUT)
    assert content["status"] == "error", (code, content, outputs)
    lines = content["traceback"]
    assert lines[0].startswith("dml: ") and len(lines) == 2, lines  # what, and the fix
    for text in expected:
        assert text in "\n".join(lines), lines
    return lines


def recorded(store, run):
    """(status, steps) of a run, read from the store's SQLite file as any client reads it."""
    with sqlite3.connect(store / "runs.db", timeout=10) as db:
        return db.execute("SELECT status, steps FROM runs WHERE id = ?", (run,)).fetchone()


def detach(kc, address, epochs, more=""):
    outputs = ok(kc, DETACH.format(epochs=epochs, address=address, more=more))
    found = RUN_ID.search(shown(outputs))
    assert found, shown(outputs)
    return found.group(1)


def driver_pid(store, run):
    """The process recording the run: the detached driver, once it took the run over."""
    with sqlite3.connect(store / "runs.db", timeout=10) as db:
        return db.execute("SELECT pid FROM runs WHERE id = ?", (run,)).fetchone()[0]


def wait_gone(pid, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(1)
    return False


def wait_for_steps(store, run, above, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = recorded(store, run)
        if row and row[1] > above:
            return row[1]
        time.sleep(1)
    pytest.fail(f"run {run} recorded no step past {above} within {timeout} s: {row}")


@pytest.mark.slow
def test_a_detached_job_outlives_its_kernel_and_is_attached_from_a_new_one(
        standalone_head, tmp_path):
    store = tmp_path / "runs"
    env = {"DML_RUNS_DIR": str(store), **ON_LOOPBACK}
    with running_kernel(env=env) as (km, kc):
        ok(kc, SETUP)
        run = detach(kc, standalone_head, 200, " --deadline 100s")
        kernel_pid = km.provisioner.pid
        wait_for_steps(store, run, 0)
    # the kernel has shut down (a notebook's "Shut Down"): the job trains on without it
    at_shutdown = recorded(store, run)[1]
    assert recorded(store, run)[0] == "running"
    wait_for_steps(store, run, at_shutdown + 20)

    with running_kernel(env=env) as (km, kc):
        ok(kc, SETUP)
        outputs = ok(kc, f"%dml attach {run} --into model")
        text = shown(outputs)
        # it ends at its --deadline, or before it on a fast machine: either way after the
        # kernel that started it is gone
        ended = recorded(store, run)[0]
        assert ended in ("stopped", "finished"), ended
        assert f"Run {run} {ended}; its model is bound to model." in text, text
        rows = plain_result(ok(kc, "model.predict(fraud.first(3)).rowCount()"))
        assert rows == "3"
        # a run that has ended is followed at once, and stopping it says it has ended
        said = shown(ok(kc, f"%dml stop {run}"))
        assert f"Run {run} has already ended ({ended})." in said, said
    driver = driver_pid(store, run)
    assert driver != kernel_pid, "the kernel, not the detached driver, recorded the run"
    assert wait_gone(driver, 120), f"the detached driver {driver} outlived its job"


@pytest.mark.slow
def test_dml_stop_stops_a_detached_job(standalone_head, tmp_path):
    store = tmp_path / "runs"
    with running_kernel(env={"DML_RUNS_DIR": str(store), **ON_LOOPBACK}) as (km, kc):
        ok(kc, SETUP)
        run = detach(kc, standalone_head, 200)
        wait_for_steps(store, run, 5)
        asked = shown(ok(kc, f"%dml stop {run}"))
        assert f"Asked run {run} to stop" in asked, asked
        ok(kc, f"%dml attach {run} --into partial")
        assert recorded(store, run)[0] == "stopped", recorded(store, run)
        assert plain_result(ok(kc, "partial.stopped()")) == "true"
        assert wait_gone(driver_pid(store, run), 120)


def test_detach_is_refused_on_the_embedded_cluster_and_bad_runs_in_one_line(tmp_path):
    env = {"DML_RUNS_DIR": str(tmp_path / "runs"), "RAY_ADDRESS": ""}
    with running_kernel(env=env) as (km, kc):
        ok(kc, SETUP)
        lines = one_error(kc, "%dml train fraud --label is_fraud --epochs 1 --detach",
                          "--detach needs a cluster that outlives this kernel",
                          "--cluster HOST:PORT")
        assert "No cluster is open yet" in shown(ok(kc, "%dml cluster")), "a head started"
        one_error(kc, "%dml attach fraud-20260101-000000-abcd", "No run",
                  "%dml runs")
        one_error(kc, "%dml stop fraud-20260101-000000-abcd", "No run", "%dml runs")
        one_error(kc, "%dml train fraud --label is_fraud --detach --into m --cluster"
                  " 127.0.0.1:1", "--into binds a result", "%dml attach RUN --into NAME")
        assert plain_result(ok(kc, "1 + 1")) == "2"
