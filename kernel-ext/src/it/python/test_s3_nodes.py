"""The cloud case end to end: a notebook kernel connected (`%dml cluster connect`) to a Ray
cluster of two namespaced nodes, each with its own network and mount namespace as a separate
VM has, trains `%dml train s3://... --read-on-workers` from a real S3-compatible server
(S3Proxy on the head's bridge address, which every node reaches); its model equals the one
the same cell trains from the same files in the folder every node mounts. The nodes' Ray gets
the store's credentials from its environment, as a cloud node gets them from its instance
profile. The nodes come from the Java fixture the cluster ITs use (NamespacedNodesMain); the
test needs root and `ip netns`, and is skipped, saying why, without them."""
import contextlib
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from kernel_session import REPO_ROOT, error_text, execute, require_kernelspec, running_kernel
from s3_server import CREDENTIALS, assert_s3_model_equals_disk, running_s3proxy, upload, \
    write_cancer
from test_train_magic import status_text

TEST_CLASSES = REPO_ROOT / "ray-backend" / "target" / "test-classes"
LAUNCHER = "dev.dml.ray.cluster.NamespacedNodesMain"
NODES_START = 600  # the fixture gives each node 4 minutes on a busy machine
JOB_TIMEOUT = 600


def why_unavailable():
    if os.geteuid() != 0:
        return "not root (network and mount namespaces need it)"
    for tool in ("ip", "unshare", "setsid"):
        if shutil.which(tool) is None:
            return f"no `{tool}` command"
    return None


@contextlib.contextmanager
def namespaced_nodes(count, env, log_path):
    """Starts `count` namespaced nodes and a head on the bridge; yields what the launcher
    printed (address, bridge, shared, nodes); always tears them down (stdin closed, then
    SIGTERM, then SIGKILL)."""
    why = why_unavailable()
    if why:
        pytest.skip(why)
    if not (TEST_CLASSES / (LAUNCHER.replace(".", "/") + ".class")).is_file():
        pytest.fail(f"no {LAUNCHER} in {TEST_CLASSES}: build ray-backend's tests first"
                    " (mvn -pl ray-backend -am test-compile)")
    lib = Path(require_kernelspec().resource_dir) / "lib" / "*"
    java = shutil.which("java") or "java"
    path = f"{Path(sys.prefix) / 'bin'}:{os.environ.get('PATH', '')}"  # the kernel's Ray
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([java, "-cp", f"{TEST_CLASSES}:{lib}", LAUNCHER, str(count)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                env={**os.environ, **env, "PATH": path}, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout] + [lines.put(None)],
                     daemon=True).start()
    try:
        info = {}
        while "ready" not in info:
            try:
                line = lines.get(timeout=NODES_START)
            except queue.Empty:
                pytest.fail(f"the namespaced nodes did not start in {NODES_START} s;"
                            f" see {log_path}")
            if line is None:
                proc.wait(timeout=60)
                if proc.returncode == 3:
                    pytest.skip(info.get("unavailable", "namespaces unavailable"))
                pytest.fail(f"the namespaced nodes' launcher exited with {proc.returncode}:"
                            f" {log_path.read_text()[-3000:]}")
            key, _, value = line.strip().partition(" ")
            info[key] = value
        yield info
    finally:
        proc.stdin.close()  # the launcher tears the nodes down
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.terminate()  # its shutdown hook tears them down
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


@pytest.mark.slow
def test_a_cell_on_two_nodes_trains_from_s3_into_the_model_from_the_shared_folder(tmp_path):
    with namespaced_nodes(2, CREDENTIALS, tmp_path / "nodes.log") as nodes, \
            running_s3proxy(tmp_path / "s3proxy", nodes["bridge"]) as s3:
        shared = Path(nodes["shared"]) / "cancer"
        shared.mkdir()
        upload(s3.client(), "train", "cancer/", write_cancer(shared, ["a.parquet", "b.parquet"]))
        with running_kernel(CREDENTIALS) as (_, kc):
            content, _ = execute(kc, f"%dml cluster connect {nodes['address']}", timeout=300)
            assert content["status"] == "ok", error_text(content)
            common = (" --label diagnosis --read-on-workers --workers 2 --placement spread"
                      " --hidden 16 --epochs 2 --batch-size 64 --seed 11 --no-plots")
            assert_s3_model_equals_disk(kc, shared, s3.endpoint, common, JOB_TIMEOUT)
            hosts = set(re.findall(r"\d+@([^:\s]+):\d+", status_text(kc)))
            assert hosts == set(nodes["nodes"].split()), \
                f"workers ran on {hosts}, not one on each node {nodes['nodes']}"
