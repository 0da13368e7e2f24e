"""The peak memory of a process tree, two ways, for the Binder test.

- A memory cgroup, where this machine lets a test make one (cgroup v2, else v1): it caps the
  tree as a container would (past the cap the kernel first drops page cache, then kills a
  process of the tree). Its working set, sampled, is what Kubernetes (so mybinder.org) counts:
  usage less the inactive file cache. It misses pages that processes outside it had already
  brought in (shared libraries, say).
- Sampled PSS: every 0.2 s, the sum over the tree of each process's proportional set size, in
  which a page shared by n processes counts 1/n in each (RSS would count libtorch once per
  worker).
- The cgroup's memory.stat at its working-set peak: anonymous memory, page cache (active and
  inactive), shared memory, kernel memory and socket buffers, which says what the cgroup holds
  that no process's PSS shows (page cache no process maps, say).
"""
import contextlib
import threading
import time
from pathlib import Path

MIB = 1 << 20
# What a process is, by a mark on its command line; the first that matches names it.
# The raylet's command line names the Java worker's class, so it comes first.
ROLES = [("raylet/raylet", "Ray head: raylet"), ("DmlKernelMain", "kernel JVM"),
         ("DriverMain", "driver JVM"), ("DefaultWorker", "worker JVM"),
         ("embedded_head.py", "Ray head: embedded_head.py (ray start)"),
         ("while os.getppid() == parent", "Ray head: dashboard agent's stand-in"),
         ("ray::DashboardAgent", "Ray head: dashboard agent"),
         ("ray::RuntimeEnvAgent", "Ray head: runtime-env agent"),
         ("ray start", "Ray head: ray start --block"), ("gcs_server", "Ray head: GCS server"),
         ("dashboard/agent.py", "Ray head: dashboard agent"),
         ("runtime_env/agent", "Ray head: runtime-env agent"),
         ("ray.util.client.server", "Ray head: Ray Client server"),
         ("dashboard/dashboard.py", "Ray head: API server"), ("ray::", "Ray worker"),
         ("run_notebooks.py", "nbclient (the Jupyter server's stand-in)")]


def role(command):
    """The ROLES name of a command line, else its program's name."""
    for mark, name in ROLES:
        if mark in command:
            return name
    return Path(command.split(" ", 1)[0]).name or "?"


def descendants(root):
    """root and every process below it, from /proc."""
    children = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(proc.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _kib(path, field):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace").replace("\0", " ")
    except OSError:
        return ""


class TreeSampler:
    """Samples a process tree (and its cgroup, if any) in a thread, from start() until stop().
    Keeps the peaks of the summed PSS and RSS and of the cgroup's working set, the processes at
    the PSS peak, and the last command line of every process seen."""

    def __init__(self, cgroup=None, interval=0.2):
        self.cgroup, self.interval = cgroup, interval
        self.peak_pss = self.peak_rss = self.peak_working_set = 0
        self.at_working_set_peak = {}  # the cgroup's breakdown() and summed PSS then
        self.at_peak = []  # (pss, rss, cmdline), largest first
        self.commands = {}  # pid -> command line
        self.process_peaks = {}  # pid -> [peak PSS, peak RSS]
        self._root = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self, root_pid):
        self._root = root_pid
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.wait(self.interval):
            pids = descendants(self._root)
            sizes = {p: (_kib(f"/proc/{p}/smaps_rollup", "Pss:"),
                         _kib(f"/proc/{p}/status", "VmRSS:")) for p in pids}
            total = sum(pss for pss, _ in sizes.values())
            self.peak_rss = max(self.peak_rss, sum(rss for _, rss in sizes.values()))
            if self.cgroup:
                working_set = self.cgroup.working_set()
                if working_set > self.peak_working_set:
                    self.peak_working_set = working_set
                    self.at_working_set_peak = {**self.cgroup.breakdown(), "pss": total}
            for pid, (pss, rss) in sizes.items():
                # the last one: a Ray worker starts as Python, then execs java
                self.commands[pid] = cmdline(pid) or self.commands.get(pid, "")
                peaks = self.process_peaks.setdefault(pid, [0, 0])
                peaks[0], peaks[1] = max(peaks[0], pss), max(peaks[1], rss)
            if total > self.peak_pss:
                self.peak_pss = total
                self.at_peak = sorted(((pss, rss, self.commands[p]) for p, (pss, rss)
                                       in sizes.items() if pss), reverse=True)

    def processes(self):
        """Every process seen, largest peak PSS first: what it is, its peak PSS and RSS in MiB,
        and the start of its command line."""
        rows = [{"what": role(self.commands.get(pid, "")), "pss_peak_mib": round(pss / MIB),
                 "rss_peak_mib": round(rss / MIB), "command": self.commands.get(pid, "")[:100]}
                for pid, (pss, rss) in self.process_peaks.items() if pss >= MIB]
        return sorted(rows, key=lambda r: -r["pss_peak_mib"])

    def breakdown_at_working_set_peak(self):
        """The cgroup's memory by kind (MiB) when its working set peaked; not_in_pss is the
        working set less the summed PSS of the tree at that moment."""
        if not self.at_working_set_peak:
            return {}
        out = {k + "_mib": round(v / MIB) for k, v in self.at_working_set_peak.items()}
        out["not_in_pss_mib"] = round((self.peak_working_set - self.at_working_set_peak["pss"])
                                      / MIB)
        return out

    def processes_at_peak(self):
        """The processes at the peak of the summed PSS, largest first, as processes() has them."""
        return [{"what": role(cmd), "pss_mib": round(pss / MIB), "rss_mib": round(rss / MIB),
                 "command": cmd[:100]} for pss, rss, cmd in self.at_peak if pss >= MIB]


class MemoryCgroup:
    """A memory cgroup made for one test: its limit, peak, OOM kills; None where none can be
    made (not root, or no writable memory controller)."""

    def __init__(self, path, version):
        self.path, self.version = path, version

    @classmethod
    def create(cls, name):
        v2 = Path("/sys/fs/cgroup")
        if "memory" in _read(v2 / "cgroup.controllers").split():
            made = _make(v2 / name, 2)
            if made:
                return made
        return _make(Path("/sys/fs/cgroup/memory") / name, 1)

    def describe(self):
        kind = "memory.max" if self.version == 2 else "memory.limit_in_bytes"
        return f"cgroup v{self.version} {self.path} ({kind})"

    def wrap(self, argv):
        """argv run inside this cgroup: a shell joins it, then becomes argv."""
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs"),
                *argv]

    def limit(self, size):
        """Caps memory at size bytes, swap included."""
        if self.version == 2:
            self._write("memory.max", size)
            self._write("memory.swap.max", 0, optional=True)
        else:
            self._write("memory.limit_in_bytes", size)
            self._write("memory.memsw.limit_in_bytes", size, optional=True)

    def reclaim(self):
        """Evicts the page cache charged so far (what setting the tree up read and wrote), so
        that what the tree then reads is charged again; needs no live process in the cgroup."""
        if self.version == 2:
            self._write("memory.reclaim", 1 << 40, optional=True)
        else:
            self._write("memory.force_empty", 0, optional=True)

    def working_set(self):
        """Bytes in use less the inactive file cache, which the kernel drops first."""
        usage = "memory.current" if self.version == 2 else "memory.usage_in_bytes"
        inactive = "inactive_file" if self.version == 2 else "total_inactive_file"
        stat = dict(line.split() for line in _read(self.path / "memory.stat").splitlines())
        return int(_read(self.path / usage) or 0) - int(stat.get(inactive, 0))

    def breakdown(self):
        """Bytes by kind, the same names in cgroup v1 and v2: anon, file (page cache, of which
        active_file, inactive_file, and file_mapped mapped by a process), shmem (tmpfs and shared
        memory, counted in file), kernel (slab, stacks, page tables) and sock (socket buffers)."""
        stat = dict(line.split() for line in _read(self.path / "memory.stat").splitlines())
        if self.version == 2:
            names = {"anon": "anon", "file": "file", "active_file": "active_file",
                     "inactive_file": "inactive_file", "file_mapped": "file_mapped",
                     "shmem": "shmem", "kernel": "kernel", "sock": "sock"}
            out = {k: int(stat.get(v, 0)) for k, v in names.items()}
            if "kernel" not in stat:  # before Linux 5.18: its parts
                out["kernel"] = sum(int(stat.get(k, 0)) for k in
                                    ["slab", "kernel_stack", "pagetables", "percpu"])
            return out
        names = {"anon": "total_rss", "file": "total_cache", "active_file": "total_active_file",
                 "inactive_file": "total_inactive_file", "file_mapped": "total_mapped_file",
                 "shmem": "total_shmem"}
        out = {k: int(stat.get(v, 0)) for k, v in names.items()}
        out["kernel"] = int(_read(self.path / "memory.kmem.usage_in_bytes") or 0)
        out["sock"] = int(_read(self.path / "memory.kmem.tcp.usage_in_bytes") or 0)
        return out

    def oom_kills(self):
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        for line in _read(self.path / name).splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        return 0

    def remove(self):
        with contextlib.suppress(OSError):
            self.path.rmdir()

    def _write(self, name, value, optional=False):
        try:
            (self.path / name).write_text(str(value))
        except OSError:
            if not optional:
                raise


def _read(path):
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _make(path, version):
    try:
        path.mkdir()
    except OSError:
        return None
    group = MemoryCgroup(path, version)
    try:
        group.limit(64 << 30)  # proves the controller is writable; the test sets the real cap
    except OSError:
        group.remove()
        return None
    return group


def wait_for_empty(group, timeout=30):
    """Waits until no process is left in the cgroup (a killed tree takes a moment)."""
    deadline = time.monotonic() + timeout
    while _read(group.path / "cgroup.procs").split() and time.monotonic() < deadline:
        time.sleep(0.2)


def mib(size):
    return f"{size / MIB:,.0f} MiB"
