"""An interrupt of a running %dml train cell, sent as JupyterLab sends it (interrupt_request on
the control channel): dml's own code stops the job and ends the cell; the kernel's forced stop,
its last resort for code that ignores interrupts, never fires. The kernel's log says which way
each interrupted cell ended. A kernel of its own, so that its log is this test's alone."""
import re

from kernel_session import error_text, execute, interrupt, plain_result, running_kernel
from test_train_magic import LONG, SETUP, alive, status_text, wait_for_live_plot, wait_until

COOPERATIVE = re.compile(r"cell (\S+) ended by itself \d+ ms after its interrupt"
                         r" \(cooperative code\)")


def test_an_interrupted_train_cell_ends_by_itself_and_frees_its_workers(tmp_path):
    log = tmp_path / "kernel.log"
    with running_kernel(env={"DML_LOG_DIR": str(tmp_path)}) as (km, kc):
        content, _ = execute(kc, SETUP)
        assert content["status"] == "ok", content
        msg_id = kc.execute(LONG)
        wait_for_live_plot(kc, msg_id)

        content = interrupt(kc, msg_id, timeout=240)
        assert "interrupted and stopped" in error_text(content), content

        assert wait_until(lambda: COOPERATIVE.search(log.read_text()), 30), log.read_text()
        assert "stopping it by force" not in log.read_text(), log.read_text()

        job_line = [l for l in status_text(kc).splitlines() if "stopped" in l]
        assert job_line
        pids = re.findall(r"\d+@[^:\s]+:(\d+)", job_line[-1])
        assert pids and wait_until(lambda: not any(alive(p) for p in pids), 30), pids
        content, outputs = execute(kc, "1 + 1")
        assert plain_result(outputs) == "2"
