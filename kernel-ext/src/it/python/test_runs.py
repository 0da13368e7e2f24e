"""Every %dml train is recorded in the run store: after a kernel restart, %dml runs lists the
runs with their settings and results, %dml compare overlays their curves and shows the settings
that differ, and TrainResult.open(runId) reopens a run's model. Bad input is one line on what
was wrong and one on how to fix it, and the kernel lives on."""
import re

from kernel_session import CELL_TIMEOUT, error_text, execute, ok, plain_result, running_kernel

SETUP = """import dev.dml.ray.data.SyntheticFraud;
var fraud = SyntheticFraud.generate(2_000, 7);"""
# Tiny jobs: two epochs of a few steps each on one worker.
TRAIN = ("%dml train fraud --label is_fraud --hidden 8 --epochs 2 --batch-size 256"
         " --validation 0.2 --no-plots --lr {lr}")
PREDICT = "java.util.Arrays.toString({model}.probabilities(fraud.first(5), 1))"
JOB_TIMEOUT = 600
RUN_ID = re.compile(r"fraud-\d{8}-\d{6}-[0-9a-f]{4}")


def shown(outputs, mime="text/plain"):
    return "\n".join(m["content"]["data"].get(mime, "") for m in outputs
                     if m["msg_type"] == "display_data")


def one_error(kc, code, *expected):
    content, outputs = execute(kc, code)
    assert content["status"] == "error", (code, content, outputs)
    lines = content["traceback"]
    assert lines[0].startswith("dml: ") and len(lines) == 2, lines  # what, and the fix
    for text in expected:
        assert text in "\n".join(lines), lines
    assert plain_result(ok(kc, "1 + 1")) == "2"  # the kernel lives on


def test_runs_survive_a_restart_compare_and_reopen(tmp_path):
    store = tmp_path / "runs"
    with running_kernel(env={"DML_RUNS_DIR": str(store)}) as (km, kc):
        ok(kc, SETUP)
        ok(kc, TRAIN.format(lr=0.01) + " --into fast", JOB_TIMEOUT)
        ok(kc, TRAIN.format(lr=0.001), JOB_TIMEOUT)
        ok(kc, TRAIN.format(lr=0.005) + " --no-record", JOB_TIMEOUT)
        before = plain_result(ok(kc, PREDICT.format(model="fast")))

        km.restart_kernel(now=False)
        kc.wait_for_ready(timeout=CELL_TIMEOUT)
        ok(kc, SETUP)

        listed = shown(ok(kc, "%dml runs"))
        assert listed.startswith(f"2 of 2 runs in {store}, newest first"), listed
        ids = RUN_ID.findall(listed)
        assert len(ids) == 2, listed
        slow, fast = ids  # newest first
        for column in ("lr", "val_loss", "val_accuracy", "usd", "finished"):
            assert column in listed, listed
        assert RUN_ID.findall(shown(ok(kc, "%dml runs --where 'lr > 0.005'"))) == [fast]
        assert RUN_ID.findall(shown(ok(kc, "%dml runs --last 1"))) == [slow]
        for run in ids:
            files = {p.name for p in (store / run).iterdir()}
            assert any(f.startswith("events.out.tfevents.") for f in files), files
            assert "model" in files, files

        compared = ok(kc, f"%dml compare {fast} {slow} --metric val_loss")
        svg = shown(compared, "image/svg+xml")
        assert svg.startswith("<svg") and fast in svg and slow in svg, svg[:300]
        table = shown(compared)
        assert "Settings that differ" in table and re.search(r"lr\s+0\.01\s+0\.001", table), \
            table

        ok(kc, f'var back = dev.dml.ray.train.result.TrainResult.open("{fast}");')
        assert plain_result(ok(kc, PREDICT.format(model="back"))) == before

        one_error(kc, "%dml runs --where 'val_acuracy > 0.9'",
                  "no column 'val_acuracy'", "Did you mean 'val_accuracy'?")
        one_error(kc, f"%dml compare {fast} nope-1", "No run 'nope-1' in the run store",
                  "Take an id from %dml runs.")
        content, _ = execute(kc, 'dev.dml.ray.train.result.TrainResult.open("nope-1")')
        assert content["status"] == "error" and "No run 'nope-1'" in error_text(content), content
