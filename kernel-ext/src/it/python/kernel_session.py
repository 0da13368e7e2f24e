"""Helpers for the end-to-end tests of the installed "dml" kernel.

The tests talk to the kernel the way a notebook front end does: through the kernelspec that
bin/install put in the user's Jupyter data dir, over ZeroMQ, with jupyter_client.
"""
import contextlib
import os
import queue
import sys
import time
from collections import Counter
from pathlib import Path

import nbformat
from nbclient import NotebookClient

import pytest
from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

REPO_ROOT = Path(__file__).resolve().parents[4]
KERNEL_NAME = "dml"
# Generous: the test machines have 2 busy cores and JShell takes a while to warm up.
STARTUP_TIMEOUT = 180
CELL_TIMEOUT = 120


def require_kernelspec():
    """Fails (never skips) unless bin/install installed the kernelspec into this Python's
    environment, which is dml's: the kernel under test then runs this environment's ray."""
    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    except NoSuchKernel:
        pytest.fail(f"no '{KERNEL_NAME}' kernelspec: run 'bash bin/install' first")
    if not Path(spec.resource_dir).is_relative_to(sys.prefix):
        pytest.fail(f"the '{KERNEL_NAME}' kernelspec found is {spec.resource_dir}, not the one in"
                    f" this environment ({sys.prefix}): run the tests with bin/test")
    return spec


@contextlib.contextmanager
def running_kernel(env=None):
    """Starts the dml kernel, with env's variables added to this process's; yields (manager,
    blocking client); always shuts it down."""
    require_kernelspec()
    km = KernelManager(kernel_name=KERNEL_NAME)
    km.start_kernel(**({"env": {**os.environ, **env}} if env else {}))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=STARTUP_TIMEOUT)
        yield km, kc
    finally:
        kc.stop_channels()
        if km.has_kernel:
            # A shutdown request, as a notebook's "Shut Down" sends: the kernel then stops the
            # Ray head its session started (a kill would leave the head running).
            km.shutdown_kernel(now=False)


def processes_mentioning(text):
    """Pids whose command line mentions text, e.g. a Ray head's temp dir or a runtime dir."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and text in (proc / "cmdline").read_text(errors="replace"):
                pids.append(int(proc.name))
        except OSError:
            pass
    return pids


def _replies(get, msg_id, timeout, missing):
    """The messages get() returns whose parent is msg_id, others dropped, for at most timeout
    seconds; then AssertionError(missing())."""
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(missing())
        try:
            msg = get(timeout=remaining)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") == msg_id:
            yield msg


def wait_shell_reply(kc, msg_id, timeout=CELL_TIMEOUT):
    """The shell reply whose parent is msg_id; other replies are dropped."""
    return next(_replies(kc.get_shell_msg, msg_id, timeout,
                         lambda: f"no shell reply to {msg_id} within {timeout} s"))


def collect_outputs(kc, msg_id, timeout=CELL_TIMEOUT):
    """IOPub messages of one request, up to its 'idle' status (status and input left out)."""
    outputs = []
    for msg in _replies(kc.get_iopub_msg, msg_id, timeout,
                        lambda: f"no idle status for {msg_id} within {timeout} s; got {outputs}"):
        kind = msg["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            return outputs
        if kind not in ("status", "execute_input"):
            outputs.append(msg)


def execute(kc, code, timeout=CELL_TIMEOUT):
    """Runs code; returns (execute_reply content, IOPub output messages)."""
    msg_id = kc.execute(code)
    reply = wait_shell_reply(kc, msg_id, timeout)
    return reply["content"], collect_outputs(kc, msg_id, timeout)


def ok(kc, code, timeout=CELL_TIMEOUT):
    """Runs code that must succeed; returns its IOPub output messages."""
    content, outputs = execute(kc, code, timeout)
    assert content["status"] == "ok", (code, content, outputs)
    return outputs


def interrupt(kc, msg_id, timeout):
    """Interrupts a running cell as JupyterLab does (interrupt_request on the control channel),
    waits for its reply and its outputs, and checks it ended in an error; returns the reply's
    content."""
    kc.session.send(kc.control_channel.socket, "interrupt_request", {})
    reply = wait_shell_reply(kc, msg_id, timeout=timeout)
    collect_outputs(kc, msg_id, timeout=60)
    assert reply["content"]["status"] == "error", reply["content"]
    return reply["content"]


def plain_result(outputs):
    """text/plain of the execute_result among outputs, or None."""
    for msg in outputs:
        if msg["msg_type"] == "execute_result":
            return msg["content"]["data"].get("text/plain")
    return None


def error_text(error_content):
    """One string from an error's ename, evalue and traceback, for assertions."""
    parts = [error_content.get("ename", ""), error_content.get("evalue", "")]
    parts += error_content.get("traceback", [])
    return "\n".join(parts)


class CountingClient(NotebookClient):
    """Counts display messages per display id as they arrive (the saved notebook only keeps
    the last frame of an updated display)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.displays = Counter()
        self.updates = Counter()

    def process_message(self, msg, cell, cell_index):
        display_id = msg["content"].get("transient", {}).get("display_id")
        if msg["msg_type"] == "display_data" and display_id:
            self.displays[display_id] += 1
        if msg["msg_type"] == "update_display_data":
            self.updates[display_id] += 1
        return super().process_message(msg, cell, cell_index)


def run_counting(path, timeout=900, nb=None):
    """Executes the notebook at path (or nb, a changed copy of it, in path's folder) on the dml
    kernel, failing on any error output; returns the executed notebook and the client, whose
    counters hold the display messages seen per display id."""
    require_kernelspec()
    if nb is None:
        nb = nbformat.read(path, as_version=4)
    client = CountingClient(nb, kernel_name=KERNEL_NAME, timeout=timeout,
                            startup_timeout=STARTUP_TIMEOUT,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    for cell in nb.cells:
        assert not [o for o in cell.get("outputs", []) if o.output_type == "error"], cell
    return nb, client
