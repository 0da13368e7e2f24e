"""The launcher of dml's embedded Ray head (embedded_head.py), run as EmbeddedHead runs it: the
head's processes stay below it while it holds none of Ray's modules, the dashboard agent is a
stand-in, SIGTERM to the launcher stops them all, and a Ray process that fails stops the rest."""
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from memory_watch import cmdline, descendants
from s3_server import free_port
from test_detach import start_head

STOP_WAIT = 30  # the launcher gives Ray's processes 10 s after SIGTERM, then kills them


@pytest.fixture
def head():
    temp = Path(tempfile.mkdtemp(prefix="dmleh-", dir="/tmp"))
    started = None
    try:
        for attempt in range(3):  # a loaded machine can miss Ray's registration time
            started = start_head(temp, free_port("127.0.0.1"), temp / f"head-{attempt}.log")
            if started:
                break
        assert started, (temp / "head-2.log").read_text(errors="replace")[-3000:]
        yield started
    finally:
        for pid in descendants(started.pid) if started else []:  # what a test left
            _kill(pid)
        subprocess.run(["rm", "-rf", str(temp)])


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _parent(pid):
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _tree(root):
    """Every process below root (not root itself), pid -> command line, once the child that ran
    `ray start` has ended (it prints that Ray started, then writes the address and exits)."""
    deadline = time.monotonic() + STOP_WAIT
    while True:
        tree = {pid: cmdline(pid) for pid in descendants(root) if pid != root}
        if not [c for c in tree.values() if "embedded_head.py" in c or not c]:  # or exiting
            return tree
        assert time.monotonic() < deadline, f"ray start did not end: {tree}"
        time.sleep(0.2)


def _find(tree, *marks):
    found = [pid for pid, cmd in tree.items() if any(m in cmd for m in marks)]
    assert found, (marks, tree)
    return found[0]


def _program(tree, name):
    """The process whose program is name (others' command lines may mention it)."""
    return _find({p: c for p, c in tree.items() if Path(c.split(" ", 1)[0]).name == name}, "")


def _alive(pids):
    return [p for p in pids if Path(f"/proc/{p}").exists() and cmdline(p)]


def _wait_exit(process):
    try:
        return process.wait(timeout=STOP_WAIT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the launcher did not end within {STOP_WAIT} s")


def test_the_heads_processes_stay_below_a_launcher_that_holds_no_ray(head):
    tree = _tree(head.pid)
    gcs, raylet = _program(tree, "gcs_server"), _program(tree, "raylet")
    assert _parent(gcs) == head.pid and _parent(raylet) == head.pid, tree
    # the raylet's agents (its own command line names them too)
    agents = {pid: cmd for pid, cmd in tree.items() if _parent(pid) == raylet}
    _find(agents, "ray::RuntimeEnvAgent", "runtime_env/agent")
    _find(agents, "while os.getppid() == parent")  # the dashboard agent's stand-in
    assert not [c for c in agents.values() if "dashboard/agent.py" in c
                or "ray::DashboardAgent" in c], agents
    # the launcher has not imported Ray: no _raylet.so mapped, a small Python
    maps = Path(f"/proc/{head.pid}/maps").read_text()
    assert "_raylet" not in maps
    rss_kib = int(next(line.split()[1] for line in
                       Path(f"/proc/{head.pid}/status").read_text().splitlines()
                       if line.startswith("VmRSS:")))
    assert rss_kib < 40 << 10, rss_kib

    head.send_signal(signal.SIGTERM)
    assert _wait_exit(head) == 0
    assert not _alive(tree), {p: tree[p] for p in _alive(tree)}


def test_a_ray_process_that_fails_stops_the_head(head):
    tree = _tree(head.pid)
    os.kill(_program(tree, "raylet"), signal.SIGKILL)
    assert _wait_exit(head) == 1  # as ray start --block ends when one of its processes fails
    assert not _alive(tree), {p: tree[p] for p in _alive(tree)}
