"""`ray up` with Ray's local provider on two machines made of Linux namespaces (cluster_nodes.py):
the AWS configuration's file mounts, setup and start commands run for real on them, and a
notebook on the head's JupyterLab trains with %dml train across both nodes.

What the local provider cannot take from clusters/aws.yaml: node types (it has one of its own)
and so the launcher's per-type labels; the worker gets the GPU spot type's labels in the
variable through which the launcher passes them (RAY_OVERRIDE_LABELS). The nodes fetch dml from
a snapshot of this working tree, uncommitted changes included.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

import cluster_nodes
from kernel_session import REPO_ROOT

pytestmark = pytest.mark.slow

AWS = REPO_ROOT / "clusters" / "aws.yaml"
GCP = REPO_ROOT / "clusters" / "gcp.yaml"
CLUSTER_NAME = cluster_nodes.PREFIX + "launch"
RAY_VERSION = "2.58.0"
# Setup on a fresh node: a Python environment, dml's build and kernelspec (minutes each).
UP_TIMEOUT = 1800
WORKER_TIMEOUT = 1200
CELL_TIMEOUT = 600


def snapshot_of_working_tree(scratch):
    """A commit of the working tree as it is (tracked and untracked files git does not
    ignore), made with a scratch index so that neither HEAD nor the real index moves."""
    env = {**os.environ, "GIT_INDEX_FILE": str(scratch / "index")}

    def git(*args):
        return subprocess.run(["git", "-C", str(REPO_ROOT), *args], env=env, check=True,
                              capture_output=True, text=True).stdout.strip()

    git("read-tree", "HEAD")
    git("add", "-A")
    return git("commit-tree", "-p", "HEAD", "-m", "dml13 launch test snapshot",
               git("write-tree"))


def local_config(key, head, worker):
    """clusters/aws.yaml as Ray's local provider takes it: the provider, the SSH login and no
    node types; every command and file mount as they are. GCP's head setup commands run too,
    so that both clouds' autoscaler packages are installed at their pins."""
    cfg = yaml.safe_load(AWS.read_text())
    for key_name in ("available_node_types", "head_node_type", "max_workers"):
        cfg.pop(key_name)
    cfg["head_setup_commands"] += yaml.safe_load(GCP.read_text())["head_setup_commands"]
    cfg["cluster_name"] = CLUSTER_NAME
    cfg["provider"] = {"type": "local", "head_ip": head.ip, "worker_ips": [worker.ip]}
    cfg["auth"] = {"ssh_user": "root", "ssh_private_key": str(key)}
    return cfg


def ray_cli(*args, timeout, log):
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0",
           # Autoscaler v2, ray up's default since 2.50, never launches a local provider's
           # workers in 2.58 (ray-project/ray#59905); v1 does. Clouds keep the default.
           "RAY_UP_enable_autoscaler_v2": "0"}
    with open(log, "ab") as out:
        return subprocess.run([sys.executable, "-m", "ray.scripts.scripts", *args],
                              cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out,
                              stderr=subprocess.STDOUT, timeout=timeout).returncode


def tail(path, lines=40):
    return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])


class Launched:
    def __init__(self, nodes, config_path, log):
        self.nodes, self.config_path, self.log = nodes, config_path, log
        self.head, self.worker = nodes.nodes

    def on(self, node, command, timeout=300, stdin=None):
        """Runs command on node in an interactive login shell, as the launcher runs its own."""
        result = subprocess.run(
            ["ssh", "-i", str(self.nodes.key), *cluster_nodes.SSH_OPTIONS, f"root@{node.ip}",
             "bash --login -c -i " + cluster_nodes._quote(command)],
            input=stdin, capture_output=True, text=True, timeout=timeout)
        assert result.returncode == 0, (f"{node.name}: {command} exited with "
                                        f"{result.returncode}:\n{result.stdout}{result.stderr}")
        return result.stdout

    def alive_nodes(self):
        out = self.on(self.head, "python3 -c 'import json, ray; ray.init(address=\"auto\","
                                 " logging_level=\"ERROR\"); print(json.dumps(ray.nodes()))'")
        return [n for n in json.loads(out.strip().splitlines()[-1]) if n["Alive"]]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    reason = cluster_nodes.missing_requirement()
    if reason:
        pytest.skip(f"the launch test makes machines of Linux namespaces, and this host {reason}")
    root = tmp_path_factory.mktemp("launch")
    commit = snapshot_of_working_tree(root)
    spot_labels = yaml.safe_load(AWS.read_text())["available_node_types"]["gpu-spot"]["labels"]
    common = {"DML_REPO": "file:///root/.node/dml.git", "DML_REF": "under-test",
              "PIP_RETRIES": "0"}
    log = root / "ray-up.log"
    with cluster_nodes.Nodes(root, ["head", "w1"], {
            "head": common,
            "w1": {**common, "RAY_OVERRIDE_LABELS": json.dumps(spot_labels)}}) as nodes:
        head, worker = nodes.nodes
        for node in nodes.nodes:
            origin = node.home / ".node" / "dml.git"
            subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
            subprocess.run(["git", "-C", str(REPO_ROOT), "push", "-q", str(origin),
                            f"{commit}:refs/heads/under-test"], check=True)
        config_path = root / "cluster.yaml"
        config_path.write_text(yaml.safe_dump(local_config(nodes.key, head, worker)))
        print(f"ray up log: {log}", flush=True)
        launched = Launched(nodes, config_path, log)
        try:
            rc = ray_cli("up", "-y", "--no-config-cache", "--disable-usage-stats",
                         str(config_path), timeout=UP_TIMEOUT, log=log)
            assert rc == 0, f"ray up exited with {rc}:\n{tail(log)}"
            wait_for_worker(launched)
            yield launched
        finally:
            # Ends Ray on the nodes; leaving `with` then ends every process they ran.
            ray_cli("down", "-y", str(config_path), timeout=300, log=log)


def wait_for_worker(launched):
    """The head's autoscaler sets the worker up and starts it; waits until it has joined."""
    deadline = time.monotonic() + WORKER_TIMEOUT
    while time.monotonic() < deadline:
        if len(launched.alive_nodes()) == 2:
            return
        time.sleep(5)
    monitor = launched.on(launched.head, "tail -n 60 /tmp/ray/session_latest/logs/monitor.out")
    pytest.fail(f"the worker did not join within {WORKER_TIMEOUT} s; the autoscaler's log:\n"
                + monitor)


def test_every_node_has_a_jdk_dml_and_the_pinned_ray(cluster):
    for node in (cluster.head, cluster.worker):
        out = cluster.on(node, "java -version 2>&1 | head -1; javac -version; ray --version;"
                               " command -v ray; ls ~/.local/share/jupyter/kernels/dml/lib"
                               " | grep -c jar")
        lines = out.strip().splitlines()
        assert lines[0].startswith("openjdk version \"17") and lines[1].startswith("javac 17")
        assert lines[2] == f"ray, version {RAY_VERSION}", out
        assert lines[3] == "/root/.local/share/dml/venv/bin/ray", out
        assert int(lines[4]) > 10, out


def test_head_can_run_both_clouds_autoscalers(cluster):
    cluster.on(cluster.head, "python3 -c 'import ray.autoscaler._private.aws.node_provider,"
                             " ray.autoscaler._private.gcp.node_provider'")


def test_worker_joins_with_the_pricing_labels_the_launcher_passed(cluster):
    nodes = {n["NodeManagerAddress"]: n for n in cluster.alive_nodes()}
    assert sorted(nodes) == [cluster.head.ip, cluster.worker.ip]
    spot = yaml.safe_load(AWS.read_text())["available_node_types"]["gpu-spot"]["labels"]
    labels = nodes[cluster.worker.ip]["Labels"]
    assert {k: labels.get(k) for k in spot} == spot, labels
    assert not any(k.startswith("dml.dev/") for k in nodes[cluster.head.ip]["Labels"])


def test_jupyterlab_on_the_head_uses_this_cluster(cluster):
    url = cluster.on(cluster.head, "cat ~/.dml/lab.url").strip()
    assert url.startswith("http://127.0.0.1:8888/lab?token=")
    status = cluster.on(cluster.head, "python3 -c 'import sys, urllib.request;"
                        " print(urllib.request.urlopen(sys.argv[1]).status)' "
                        + url.replace("/lab?", "/api/status?"))
    assert status.strip() == "200"
    environ = cluster.on(cluster.head, "tr '\\0' '\\n' < /proc/$(cat ~/.dml/lab.pid)/environ")
    variables = dict(line.split("=", 1) for line in environ.splitlines() if "=" in line)
    assert variables.get("RAY_ADDRESS") == "auto"
    assert variables["PATH"].startswith("/root/.local/share/dml/venv/bin:")
    assert "RAY_OVERRIDE_LABELS" not in variables and "RAY_CLOUD_INSTANCE_ID" not in variables


def test_dml_train_in_a_notebook_on_the_head_uses_both_nodes(cluster):
    # lab_client.py runs on the head, with the Python that runs JupyterLab; the head's home is
    # a folder of this host, so it is put there directly.
    client = Path(__file__).with_name("lab_client.py")
    (cluster.head.home / "lab_client.py").write_text(client.read_text())
    cells = [
        "import dev.dml.ray.data.SyntheticFraud;\n"
        "var fraud = SyntheticFraud.generate(4_000, 7);",
        # Two CPUs a worker, two CPUs a node: one worker on each node.
        "%dml train fraud --label is_fraud --hidden 16 --workers 2 --cpus-per-worker 2"
        " --epochs 1 --no-plots --into model",
        "%dml status",
        "%dml cluster",
    ]
    out = cluster.on(cluster.head,
                     f"python3 ~/lab_client.py $(cat ~/.dml/lab.url) dml {CELL_TIMEOUT}",
                     timeout=CELL_TIMEOUT * len(cells), stdin=json.dumps(cells))
    results = json.loads(out.strip().splitlines()[-1])
    errors = [o["text"] for cell in results for o in cell if o["type"] == "error"]
    assert errors == []
    status, shown = "\n".join(o["text"] for o in results[2]), "\n".join(
        o["text"] for o in results[3])
    # Workers show as rank@host:pid, and each node has a host name of its own.
    assert f"@{cluster.head.name}:" in status and f"@{cluster.worker.name}:" in status, status
    assert f"{cluster.head.ip}:6379" in shown, shown
