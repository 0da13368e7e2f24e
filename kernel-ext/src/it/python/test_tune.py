"""%dml tune from one cell: a small sweep on a real table whose trials are ordinary jobs; ASHA
stops the weak ones at their first rung, the cell shows every trial's curve and a ranked table,
the best trial's model is bound and predicts, and each trial is a run of the run store that
%dml runs finds by its sweep. An interrupt stops the sweep and frees every worker."""
import json
import re
import sqlite3
import time

import pytest

from kernel_session import error_text, interrupt, ok, plain_result, running_kernel
from test_runs import one_error, shown
from test_train_magic import alive, wait_until

SETUP = """import dev.dml.ray.data.SyntheticFraud;
var fraud = SyntheticFraud.generate(2_000, 7);"""
# Six learning rates, the strongest first: each later, weaker trial meets the values recorded
# at the first rung (epoch 1) and ASHA stops it there.
SWEEP = ("%dml tune fraud --label is_fraud --validation 0.2 --hidden 8 --epochs 4"
         " --batch-size 32 --lr 3e-2|1e-2|3e-3|1e-3|3e-4|1e-4 --scheduler asha"
         " --metric val_loss --concurrent 2 --cpus-per-worker 0.5 --into top")
SWEEP_ID = re.compile(r"sweep-\d{8}-\d{6}-[0-9a-f]{4}")
RUN_ID = re.compile(r"fraud-\d{8}-\d{6}-[0-9a-f]{4}")
JOB_TIMEOUT = 900


@pytest.mark.slow
def test_a_sweep_stops_weak_trials_early_and_binds_the_best(tmp_path):
    with running_kernel(env={"DML_RUNS_DIR": str(tmp_path / "runs")}) as (km, kc):
        ok(kc, SETUP)
        one_error(kc, "%dml tune fraud --label is_fraud --lr 1e-2..1e-4",
                  "%dml tune: --lr '1e-2..1e-4': the range's low end is not below its high",
                  "Write LOW..HIGH, e.g. --lr 1e-4..1e-2.")
        outputs = ok(kc, SWEEP, JOB_TIMEOUT)
        updates = [m for m in outputs if m["msg_type"] == "update_display_data"]
        assert updates, "the sweep's chart never updated while it ran"
        text = shown(outputs)
        svg = [m["content"]["data"]["image/svg+xml"] for m in outputs
               if m["msg_type"] in ("display_data", "update_display_data")
               and "image/svg+xml" in m["content"]["data"]]
        assert svg and svg[-1].startswith("<svg") and "t01" in svg[-1], svg[-1][:300]
        final_table = [m["content"]["data"]["text/plain"] for m in outputs
                       if m["msg_type"] in ("display_data", "update_display_data")
                       and " ranked by " in m["content"]["data"].get("text/plain", "")][-1]
        rows = [l.split() for l in final_table.splitlines()[2:]]
        assert len(rows) == 6, (final_table, text)
        status = " ".join(final_table.splitlines()[2:])
        assert "stopped early" in status and "done" in status, final_table
        assert "failed" not in status, text
        # ranked by each trial's last val_loss, lowest first; the rung's survivor ran all four
        # epochs. Which trial reaches a rung first depends on timing, so a trial stopped at a
        # later rung may still rank first, as in Ray Tune's get_best_result(scope="last").
        losses = [float(r[3]) for r in rows]
        assert [r[0] for r in rows] == [str(i) for i in range(1, 7)], final_table
        assert losses == sorted(losses), final_table
        assert any(r[4] == "4" and r[5] == "done" for r in rows), final_table
        sweep = SWEEP_ID.search(text).group(0)
        assert re.search(r"Best: t0\d \(val_loss \d\.\d{4}; lr=\S+\), bound to top\.", text), \
            text

        probabilities = plain_result(ok(kc, "java.util.Arrays.toString("
                                            "top.probabilities(fraud.first(5), 1))"))
        assert re.fullmatch(r"\[([\d.]+(E-\d+)?, ){4}[\d.]+(E-\d+)?\]", probabilities), \
            probabilities

        listed = shown(ok(kc, f"%dml runs --where 'sweep = {sweep}'"))
        assert len(RUN_ID.findall(listed)) == 6, listed
        assert "stopped" in listed and "finished" in listed, listed


def worker_pids(store):
    """Each recorded run's worker pids, from the run store as the trials wrote it."""
    with sqlite3.connect(store / "runs.db", timeout=10) as db:
        rows = db.execute("SELECT workers FROM runs WHERE workers IS NOT NULL").fetchall()
    return [w["pid"] for (workers,) in rows for w in json.loads(workers)]


def test_an_interrupt_stops_the_sweep_and_frees_every_worker(tmp_path):
    store = tmp_path / "runs"
    with running_kernel(env={"DML_RUNS_DIR": str(store)}) as (km, kc):
        ok(kc, SETUP)
        msg_id = kc.execute("%dml tune fraud --label is_fraud --hidden 8 --epochs 500"
                            " --batch-size 128 --lr 1e-2|1e-3|1e-4 --concurrent 2"
                            " --cpus-per-worker 0.5")
        deadline = time.monotonic() + 300
        running = 0
        while running < 2 and time.monotonic() < deadline:
            msg = kc.get_iopub_msg(timeout=300)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            assert msg["msg_type"] != "error", msg["content"]
            table = msg["content"].get("data", {}).get("text/plain", "")
            if table.startswith("Sweep "):  # two trials past their first epoch at once
                running = len(re.findall(r" t0\d +\S+ +\S+ +[1-9]\d* +running", table))
        assert running == 2, "two trials never ran at once"
        assert wait_until(lambda: len(worker_pids(store)) == 2, 30), worker_pids(store)
        pids = worker_pids(store)
        assert len(pids) == 2 and all(alive(p) for p in pids), pids

        content = interrupt(kc, msg_id, timeout=240)
        assert "was interrupted: its running trials were stopped and their workers have" \
               " ended" in error_text(content), content
        assert wait_until(lambda: not any(alive(p) for p in pids), 30), pids
        assert plain_result(ok(kc, "1 + 1")) == "2"

