"""Interrupt, restart and shutdown of the dml kernel, driven as JupyterLab drives them
(jupyter_client's KernelManager; interrupts go as interrupt_request on the control channel,
since the kernelspec says interrupt_mode "message")."""
import os
import signal
import subprocess
import sys
import time

import pytest

from kernel_session import (CELL_TIMEOUT, STARTUP_TIMEOUT, collect_outputs, execute,
                            plain_result, require_kernelspec, wait_shell_reply)

# Long enough for a loaded 2-core machine; the tests wait on conditions, never on timing.
INTERRUPT_TIMEOUT = 60
EXIT_TIMEOUT = 60


def test_kernelspec_asks_for_message_interrupts():
    spec = require_kernelspec()
    assert spec.interrupt_mode == "message", "SIGINT would end the JVM"
    assert spec.display_name == "Java (dml)" and spec.language == "java"


def wait_for_busy(kc, msg_id):
    """Waits until the kernel says it started on msg_id."""
    deadline = time.monotonic() + CELL_TIMEOUT
    while time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=CELL_TIMEOUT)
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "busy"):
            return
    raise AssertionError(f"kernel never went busy on {msg_id}")


@pytest.mark.parametrize("code", [
    "while (true) { }",
    "while (true) { Thread.sleep(50); }",
], ids=["busy-loop", "sleep-loop"])
def test_interrupt_stops_a_running_cell_and_the_kernel_lives_on(kernel, code):
    km, kc = kernel
    msg_id = kc.execute(code)
    wait_for_busy(kc, msg_id)
    time.sleep(1)  # let the loop get going; nothing below depends on how long this takes
    km.interrupt_kernel()

    reply = wait_shell_reply(kc, msg_id, timeout=INTERRUPT_TIMEOUT)
    assert reply["content"]["status"] in ("error", "aborted", "abort"), reply["content"]
    collect_outputs(kc, msg_id, timeout=INTERRUPT_TIMEOUT)

    content, outputs = execute(kc, "1 + 1")
    assert content["status"] == "ok", content
    assert plain_result(outputs) == "2"


def test_restart_gives_a_fresh_kernel(kernel):
    km, kc = kernel
    content, _ = execute(kc, "int beforeRestart = 7;")
    assert content["status"] == "ok", content
    old_pid = km.provisioner.pid

    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=CELL_TIMEOUT)
    assert km.provisioner.pid != old_pid

    content, outputs = execute(kc, "21 * 2")
    assert content["status"] == "ok", content
    assert plain_result(outputs) == "42"
    # The new JShell does not know the old session's variables.
    content, _ = execute(kc, "beforeRestart")
    assert content["status"] == "error", content


def test_shutdown_request_ends_the_process(kernel):
    km, kc = kernel
    process = km.provisioner.process
    content, _ = execute(kc, "1 + 1")
    assert content["status"] == "ok", content

    msg_id = kc.shutdown(restart=False)  # shutdown_request on the control channel
    deadline = time.monotonic() + EXIT_TIMEOUT
    while True:
        reply = kc.control_channel.get_msg(timeout=max(1, deadline - time.monotonic()))
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    assert reply["msg_type"] == "shutdown_reply", reply
    assert reply["content"].get("status", "ok") == "ok", reply["content"]
    assert reply["content"]["restart"] is False

    # The kernel exits by itself (no signal from us) and says it went well.
    assert process.wait(timeout=EXIT_TIMEOUT) == 0


LAUNCHER = """
import os, sys
from jupyter_client import KernelManager
km = KernelManager(kernel_name="dml")
km.start_kernel()
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=float(sys.argv[1]))
print(km.provisioner.process.pid, flush=True)
os._exit(0)  # dies without shutting the kernel down, as a crashed server would
"""


def is_running(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_kernel_exits_when_its_launcher_dies(tmp_path):
    """An orphaned kernel has no client left: it must not hold its memory (and any cluster it
    owns) forever. The launcher starts a kernel, then exits abruptly."""
    require_kernelspec()
    out, err = tmp_path / "launcher.out", tmp_path / "launcher.err"
    # Files, not pipes: the kernel inherits the launcher's stdout, and a pipe would stay open
    # for as long as the kernel lives.
    with open(out, "w") as stdout, open(err, "w") as stderr:
        launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(STARTUP_TIMEOUT)],
                                    stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
        assert launcher.wait(timeout=STARTUP_TIMEOUT + 60) == 0, err.read_text()
    pid = int(out.read_text().split()[-1])
    deadline = time.monotonic() + EXIT_TIMEOUT
    while is_running(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if is_running(pid):
        os.kill(pid, signal.SIGKILL)
        pytest.fail(f"kernel pid {pid} outlived its launcher by {EXIT_TIMEOUT} s")
