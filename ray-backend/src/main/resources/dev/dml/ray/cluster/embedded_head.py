"""`ray start ARGS` for dml's embedded head, less what a loopback head owned by one kernel never
serves: the Ray Client server (`ray://`, which `ray start` adds whenever grpc is installed), the
API server behind the dashboard (which `ray start` runs even with --include-dashboard=false),
and the dashboard agent (no dashboard reads it, its metrics are not exported, and no job is
submitted through it): the raylet, which stops when its agent exits, gets a stand-in that only
waits for the raylet to end. That is three Python processes of about 70 MB each fewer.

With --block, this script does not hold Ray's modules (about 80 MB) while the head runs: it
starts `ray start` without --block in a child and, as the Linux child subreaper, adopts the Ray
processes that child leaves. It stays their parent, stops them all when one of them fails (as
`ray start --block` does) and on SIGTERM, and ends when they have ended.

It also starts on a busy machine: the raylet gives the agent 15 s to write its port files, in
which a loaded 2-core machine cannot even import the agent, so they are written here first,
with the values a minimal agent writes (-1: no such service). Where this Ray lacks one of these
hooks, that part starts as `ray start` would start it.

    python embedded_head.py start --head --block ...
"""
import os
import signal
import subprocess
import sys
import time

BLOCK = "--block"
# How a Ray process that was stopped on purpose exits (as `ray start --block` counts them)
STOPPED = {0, signal.SIGTERM, -signal.SIGTERM, 128 + signal.SIGTERM}
GRACE_SECONDS = 10  # after SIGTERM, before SIGKILL
# The raylet's dashboard agent: waits while its parent, the raylet, lives (without site, small)
AGENT_STAND_IN = [sys.executable, "-S", "-c",
                  "import os, time\nparent = os.getppid()\n"
                  "while os.getppid() == parent:\n    time.sleep(1)"]


def _become_subreaper():
    """PR_SET_CHILD_SUBREAPER: orphans below this process are given to it, not to init."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _children():
    """The pids whose parent is this process, from /proc."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == me:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def _signal_children(signum):
    for pid in _children():
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def supervise(args):
    """Runs `ray start` (args without --block) in a child and keeps the processes it leaves;
    returns the exit code of the head."""
    starter = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                                *[a for a in args if a != BLOCK]])
    stop_at = []  # the time SIGKILL follows, once stopping

    def stop(signum, frame):
        if not stop_at:
            stop_at.append(time.monotonic() + GRACE_SECONDS)
            _signal_children(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    code = starter.wait()
    if code != 0:
        stop(None, None)
    failed = code != 0
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 1 if failed else 0
        if pid == 0:
            if stop_at and time.monotonic() > stop_at[0]:
                _signal_children(signal.SIGKILL)
            time.sleep(0.2)
            continue
        exit_code = os.waitstatus_to_exitcode(status)
        if not stop_at and exit_code not in STOPPED:
            print(f"embedded head: Ray process {pid} exited with {exit_code}; stopping the"
                  " others", flush=True)
            failed = True
            stop(None, None)


def start_ray():
    """`ray start` with the hooks of the module's docstring."""
    try:
        from ray import _raylet
        from ray._private import services, utils
        from ray._private.node import Node
    except ImportError:  # another Ray layout: everything starts as ray start starts it
        _raylet = services = utils = Node = None

    # The port files of a minimal dashboard agent, which writes -1 to each
    agent_ports = ["DASHBOARD_AGENT_LISTEN_PORT_NAME", "METRICS_AGENT_PORT_NAME",
                   "METRICS_EXPORT_PORT_NAME"]
    agent_option = "--dashboard_agent_command="

    def left_out(*args, **kwargs):
        return None

    def minimal_agent():
        return ImportError("dml's embedded head runs no dashboard agent")

    def hook(owner, name, replacement):
        if owner is not None and callable(getattr(owner, name, None)):
            setattr(owner, name, replacement)
            return True
        return False

    def with_agent_ports(start_raylet):
        def start(self, *args, **kwargs):
            for name in agent_ports:
                _raylet.persist_port(self._session_dir, self._node_id, getattr(_raylet, name),
                                     -1)
            return start_raylet(self, *args, **kwargs)
        return start

    def with_agent_stand_in(start_ray_process):
        def start(command, process_type, *args, **kwargs):
            if process_type == getattr(services.ray_constants, "PROCESS_TYPE_RAYLET", None):
                command = [agent_option + subprocess.list2cmdline(AGENT_STAND_IN)
                           if c.startswith(agent_option) else c for c in command]
            return start_ray_process(command, process_type, *args, **kwargs)
        return start

    hook(Node, "start_ray_client_server", left_out)
    hook(Node, "start_api_server", left_out)
    if (hook(utils, "get_dashboard_dependency_error", minimal_agent)
            and callable(getattr(_raylet, "persist_port", None))
            and all(hasattr(_raylet, name) for name in agent_ports)):
        hook(Node, "start_raylet", with_agent_ports(getattr(Node, "start_raylet", None)))
        hook(services, "start_ray_process",
             with_agent_stand_in(getattr(services, "start_ray_process", None)))

    from ray.scripts.scripts import main  # after the hooks, which it reads

    sys.argv[0] = "ray"
    return main()


if __name__ == "__main__":
    if BLOCK in sys.argv[1:] and sys.platform.startswith("linux") and _become_subreaper():
        sys.exit(supervise(sys.argv[1:]))
    sys.exit(start_ray())
