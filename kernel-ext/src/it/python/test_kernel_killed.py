"""A kernel killed outright (SIGKILL: no shutdown request, no shutdown hook) must not leave the
embedded Ray head it started running: a watchdog beside the head stops it."""
import os
import re
import signal
import time

from kernel_session import execute, processes_mentioning, running_kernel


def test_a_killed_kernel_leaves_no_ray_head():
    with running_kernel() as (km, kc):
        content, outputs = execute(kc, "%dml cluster start", timeout=180)
        assert content["status"] == "ok", content
        shown = outputs[-1]["content"]["data"]["text/plain"]
        temp_dir = re.search(r"logs: (\S+)", shown).group(1)
        assert processes_mentioning(temp_dir), "the head is not running"
        os.kill(km.provisioner.process.pid, signal.SIGKILL)
        km.provisioner.process.wait(timeout=30)  # reaped, as a notebook server would
        deadline = time.monotonic() + 60
        while processes_mentioning(temp_dir) and time.monotonic() < deadline:
            time.sleep(1)
        assert not processes_mentioning(temp_dir), "the killed kernel's Ray head outlived it"
