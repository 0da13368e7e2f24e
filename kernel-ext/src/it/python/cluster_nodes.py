"""Machines for the cluster-launcher test, made of Linux namespaces on this one host.

Each node has its own network namespace (an address on a bridge), PID namespace (so `ray stop`
on a node sees only that node's processes) and mount namespace (its own folders cover /root,
its home, and /tmp). sshd, from Debian's openssh-server, is the PID namespace's first process:
killing it ends everything the node ran. Names start with dml13-, addresses are in
10.77.13.0/24, and traffic goes only to those addresses.

    python3 cluster_nodes.py clean    removes what a crashed run left
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PREFIX = "dml13-"
BRIDGE = PREFIX + "br"
SUBNET = "10.77.13."
HOST_IP = SUBNET + "1"
SSHD = "/usr/sbin/sshd"
SSH_OPTIONS = ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
               "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10"]


def missing_requirement():
    """Why this host cannot make the nodes, or None."""
    if os.geteuid() != 0:
        return "needs root, to make network, PID and mount namespaces"
    for tool in ("ip", "unshare", "ssh", "ssh-keygen", "rsync", "git"):
        if shutil.which(tool) is None:
            return f"needs `{tool}` on PATH"
    if not os.access(SSHD, os.X_OK):
        return f"needs {SSHD} (Debian's openssh-server; bin/install installs it)"
    probe = subprocess.run(["ip", "netns", "add", PREFIX + "probe"], capture_output=True,
                           text=True)
    if probe.returncode != 0:
        return f"cannot make a network namespace: {probe.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", PREFIX + "probe"], check=True)
    return None


def run(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def pids_mentioning(text):
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and text in (proc / "cmdline").read_text(errors="replace"):
                pids.append(int(proc.name))
        except OSError:
            pass
    return [p for p in pids if p != os.getpid()]


def kill_and_wait(pids, timeout=30):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = [p for p in pids if Path(f"/proc/{p}").exists()
                 and "Z" not in _state(p)]
        if not alive:
            return
        time.sleep(0.1)
    raise RuntimeError(f"processes {alive} outlived SIGKILL for {timeout} s")


def _state(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def clean():
    """Removes every dml13- namespace, link and process; processes first, as they outlive
    `ip netns del`."""
    namespaces = [line.split()[0] for line in run("ip", "netns", "list").stdout.splitlines()
                  if line.startswith(PREFIX)]
    for ns in namespaces:
        kill_and_wait([int(p) for p in run("ip", "netns", "pids", ns).stdout.split()])
    # The launcher's SSH connections (ControlPersist masters) to the nodes, on this host.
    kill_and_wait(pids_mentioning(SUBNET))
    for ns in namespaces:
        run("ip", "netns", "del", ns)
    for line in run("ip", "-o", "link", "show").stdout.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name.startswith(PREFIX):
            run("ip", "link", "del", name, check=False)
    # The local provider's record of a cluster's nodes, on the launching host.
    for state in Path("/tmp/ray").glob(f"cluster-{PREFIX}*"):
        state.unlink(missing_ok=True)


class Node:
    """One machine: a name (its namespace), an address and a home folder of its own."""

    def __init__(self, name, ip, root):
        self.name, self.ip, self.root = PREFIX + name, ip, root
        self.home = root / "home"
        self.tmp = root / "tmp"
        self.init_pid = None

    def ssh(self, key, command, timeout=600):
        """Runs command in a login shell on the node, as Ray's launcher does."""
        return subprocess.run(
            ["ssh", "-i", str(key), *SSH_OPTIONS, f"root@{self.ip}",
             "bash --login -c -i " + _quote(command)],
            capture_output=True, text=True, timeout=timeout)


def _quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


class Nodes:
    """Makes the nodes with sshd running, each trusting key.pub; close() removes them all."""

    def __init__(self, root, names, environment=None):
        """environment: per node name, variables its SSH sessions get (~/.ssh/environment)."""
        self.root = root
        self.key = root / "key"
        self.nodes = [Node(n, f"{SUBNET}{i + 2}", root / n) for i, n in enumerate(names)]
        self.environment = environment or {}

    def __enter__(self):
        clean()
        try:
            self._make()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _make(self):
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.key))
        run("ip", "link", "add", BRIDGE, "type", "bridge")
        run("ip", "addr", "add", f"{HOST_IP}/24", "dev", BRIDGE)
        run("ip", "link", "set", BRIDGE, "up")
        # sshd's privilege separation folder; Debian's service makes it at start.
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        for node in self.nodes:
            self._network(node)
            self._home(node)
            self._start_sshd(node)
        for node in self.nodes:
            self._wait_for_sshd(node)

    def _network(self, node):
        host_end, node_end = node.name + "-h", node.name + "-n"
        run("ip", "netns", "add", node.name)
        run("ip", "link", "add", host_end, "type", "veth", "peer", "name", node_end)
        run("ip", "link", "set", node_end, "netns", node.name)
        run("ip", "link", "set", host_end, "master", BRIDGE, "up")
        inside = ("ip", "netns", "exec", node.name)
        run(*inside, "ip", "addr", "add", f"{node.ip}/24", "dev", node_end)
        run(*inside, "ip", "link", "set", node_end, "up")
        run(*inside, "ip", "link", "set", "lo", "up")

    def _home(self, node):
        # A fresh machine's home: the skeleton files, the test's key, the host's pip settings
        # (its package index), and a mount point for the host's Maven repository.
        shutil.copytree("/etc/skel", node.home, symlinks=True)
        node.tmp.mkdir(mode=0o1777)
        ssh_dir = node.home / ".ssh"
        ssh_dir.mkdir(mode=0o700)
        shutil.copy(f"{self.key}.pub", ssh_dir / "authorized_keys")
        env = {k: v for k, v in os.environ.items() if k.startswith("PIP_")}
        env.update(self.environment.get(node.name[len(PREFIX):], {}))
        (ssh_dir / "environment").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
        pip_conf = Path.home() / ".config" / "pip" / "pip.conf"
        if pip_conf.is_file():
            (node.home / ".config" / "pip").mkdir(parents=True)
            shutil.copy(pip_conf, node.home / ".config" / "pip" / "pip.conf")
        (node.home / ".m2").mkdir()
        etc = node.home / ".node"
        etc.mkdir()
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(etc / "host_key"))
        (etc / "sshd_config").write_text("\n".join([
            f"ListenAddress {node.ip}",
            "HostKey /root/.node/host_key",
            "PidFile /root/.node/sshd.pid",
            "AuthorizedKeysFile /root/.ssh/authorized_keys",
            "PermitRootLogin prohibit-password",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "StrictModes no",
            "PermitUserEnvironment yes",
            "PrintMotd no",
            "",
        ]))

    def _start_sshd(self, node):
        m2 = Path.home() / ".m2"
        m2.mkdir(exist_ok=True)
        # Its own host name, which resolves to its address, as on a cloud VM: Ray's node falls
        # back to it to learn its address when it has no route to the internet.
        hosts = node.root / "hosts"
        hosts.write_text(Path("/etc/hosts").read_text()
                         + "".join(f"{n.ip} {n.name}\n" for n in self.nodes))
        script = "; ".join([
            "set -e",
            f"hostname {node.name}",
            f"mount --bind {hosts} /etc/hosts",
            f"mount --bind {m2} {node.home / '.m2'}",
            f"mount --rbind {node.home} /root",
            f"mount --bind {node.tmp} /tmp",
            f"exec {SSHD} -D -e -f /root/.node/sshd_config",
        ])
        log = open(node.root / "sshd.log", "wb")
        launcher = subprocess.Popen(
            ["ip", "netns", "exec", node.name, "unshare", "--mount", "--propagation", "private",
             "--uts", "--pid", "--fork", "--mount-proc", "sh", "-c", script],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        node.launcher = launcher
        # The PID namespace's first process is unshare's child.
        deadline = time.monotonic() + 30
        while node.init_pid is None and time.monotonic() < deadline:
            children = Path(f"/proc/{launcher.pid}/task/{launcher.pid}/children")
            try:
                found = children.read_text().split()
            except OSError:
                found = []
            if found:
                node.init_pid = int(found[0])
            elif launcher.poll() is not None:
                break
            else:
                time.sleep(0.05)
        if node.init_pid is None:
            raise RuntimeError(f"{node.name}: sshd did not start: "
                               + (node.root / "sshd.log").read_text(errors="replace"))

    def _wait_for_sshd(self, node, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if node.launcher.poll() is not None:
                break
            try:
                with socket.create_connection((node.ip, 22), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{node.name}: sshd does not answer on {node.ip}:22: "
                           + (node.root / "sshd.log").read_text(errors="replace"))

    def close(self):
        """Ends every node's processes, then its namespace and links."""
        for node in self.nodes:
            if node.init_pid is not None:
                kill_and_wait([node.init_pid])
        clean()


if __name__ == "__main__":
    if sys.argv[1:] == ["clean"]:
        clean()
    else:
        sys.exit(__doc__)
