"""Checks of the cluster-launcher configurations in clusters/: Ray's own schema and rules, the
pricing labels, what the clouds share, and the node scripts. Each check is also run on a
broken copy, to show that it can fail."""
import copy
import gzip
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest
import ray
import yaml
from ray._private.label_utils import validate_node_label_syntax, validate_node_labels
from ray.autoscaler._private.util import prepare_config, validate_config

from kernel_session import REPO_ROOT

CLUSTERS = REPO_ROOT / "clusters"
NODE_SCRIPTS = CLUSTERS / "node"
CONFIGS = sorted(CLUSTERS.glob("*.yaml"))
PRICING_LABELS = ("dml.dev/cloud", "dml.dev/region", "dml.dev/instance-type", "dml.dev/market")
# What the configurations' commands and file mounts must be, on every cloud: the slow launch
# test runs them for real on one config, so the others must not differ.
NODE_MOUNT = {"~/dml-cluster": "./clusters/node"}
SETUP = "bash ~/dml-cluster/setup.sh"
GPU_SETUP = SETUP + " --gpu"


def load(path):
    return yaml.safe_load(path.read_text())


@pytest.fixture(params=CONFIGS, ids=lambda p: p.name)
def config(request):
    return load(request.param)


def test_configs_cover_aws_and_gcp():
    assert sorted(load(p)["provider"]["type"] for p in CONFIGS) == ["aws", "gcp"]


# --- Ray's schema ---------------------------------------------------------------------------

RAY_SCHEMA = json.loads(
    (Path(ray.__file__).parent / "autoscaler" / "ray-schema.json").read_text())


def schema_errors(cfg):
    validator = jsonschema.Draft7Validator(RAY_SCHEMA)
    return sorted(f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                  for e in validator.iter_errors(cfg))


def test_config_validates_against_rays_schema(config):
    assert schema_errors(config) == []
    # What `ray up` does next: defaults filled in, setup commands merged, checked again.
    validate_config(prepare_config(copy.deepcopy(config)))


@pytest.mark.parametrize("break_it", [
    lambda c: c.update(setup_comands=c.pop("setup_commands")),
    lambda c: c["available_node_types"]["head"].update(min_worker=0),
    lambda c: c["available_node_types"]["gpu-spot"]["resources"].update(GPU="one"),
    lambda c: c["available_node_types"]["gpu-spot"]["labels"].update({"dml.dev/market": 1}),
    lambda c: c["provider"].pop("type"),
], ids=["misspelt key", "misspelt node type key", "resource not a number", "label not a string",
        "provider without type"])
def test_schema_check_fails_on_a_broken_config(config, break_it):
    broken = copy.deepcopy(config)
    break_it(broken)
    assert schema_errors(broken) != []


# --- pricing labels -------------------------------------------------------------------------

def launch_facts(provider, node_config):
    """(instance type, market) as the node_config launches them."""
    if provider == "aws":
        spot = node_config.get("InstanceMarketOptions", {}).get("MarketType") == "spot"
        return node_config.get("InstanceType"), "spot" if spot else "on-demand"
    scheduling = node_config.get("scheduling", {})
    spot = scheduling.get("provisioningModel") == "SPOT" or scheduling.get("preemptible")
    return node_config.get("machineType"), "spot" if spot else "on-demand"


def pricing_label_problems(cfg):
    provider = cfg["provider"]
    problems = []
    for name, node_type in cfg["available_node_types"].items():
        labels = node_type.get("labels", {})
        missing = [k for k in PRICING_LABELS if k not in labels]
        if missing:
            problems.append(f"{name}: no {', '.join(missing)}")
            continue
        instance_type, market = launch_facts(provider["type"], node_type["node_config"])
        expected = {"dml.dev/cloud": provider["type"], "dml.dev/region": provider["region"],
                    "dml.dev/instance-type": instance_type, "dml.dev/market": market}
        problems += [f"{name}: {k} is {labels[k]!r}, but the node launches {v!r}"
                     for k, v in expected.items() if labels[k] != v]
        try:  # Ray's own rules, which `ray start` applies to the labels it is given
            validate_node_labels(labels)
            validate_node_label_syntax(labels)
        except ValueError as e:
            problems.append(f"{name}: {e}")
    return problems


def test_every_node_type_carries_pricing_labels(config):
    assert pricing_label_problems(config) == []


@pytest.mark.parametrize("break_it", [
    lambda t: t["gpu-spot"]["labels"].pop("dml.dev/market"),
    lambda t: t["gpu-on-demand"]["labels"].update({"dml.dev/market": "spot"}),
    lambda t: t["head"]["labels"].update({"dml.dev/instance-type": "t3.nano"}),
    lambda t: t["head"]["labels"].update({"ray.io/market-type": "spot"}),
    lambda t: t["head"]["labels"].update({"dml.dev/zone": "us west"}),
], ids=["missing market", "wrong market", "wrong instance type", "reserved prefix",
        "invalid value"])
def test_pricing_label_check_fails_on_a_broken_config(config, break_it):
    broken = copy.deepcopy(config)
    break_it(broken["available_node_types"])
    assert pricing_label_problems(broken) != []


# --- GPU node types -------------------------------------------------------------------------

def gpu_types(cfg):
    return {name: t for name, t in cfg["available_node_types"].items()
            if t.get("worker_setup_commands") == [GPU_SETUP]}


def test_gpu_types_come_spot_and_on_demand(config):
    types = gpu_types(config)
    markets = sorted(t["labels"]["dml.dev/market"] for t in types.values())
    assert markets == ["on-demand", "spot"]
    head = config["available_node_types"][config["head_node_type"]]
    assert "worker_setup_commands" not in head
    if config["provider"]["type"] == "gcp":  # Ray cannot read a GCP machine type's GPUs
        assert all(t["resources"].get("GPU", 0) >= 1 for t in types.values())


def s3_credential_problems(cfg):
    """Where a node would lack credentials for s3:// data, or a config holds a secret: AWS
    worker types need an instance profile (the head gets Ray's own)."""
    problems = [f"a secret in the config: {k}" for k in re.findall(
        r"(?i)aws_secret_access_key|aws_session_token|secret_access_key", yaml.safe_dump(cfg))]
    if cfg["provider"]["type"] == "aws":
        problems += [f"{name} has no IamInstanceProfile"
                     for name, t in cfg["available_node_types"].items()
                     if name != cfg["head_node_type"]
                     and "IamInstanceProfile" not in t["node_config"]]
    return problems


def test_nodes_get_s3_credentials_the_standard_way_and_no_secret(config):
    assert s3_credential_problems(config) == []


def test_s3_credential_check_fails_on_a_broken_config():
    aws = load(CLUSTERS / "aws.yaml")
    broken = copy.deepcopy(aws)
    del broken["available_node_types"]["gpu-spot"]["node_config"]["IamInstanceProfile"]
    broken["setup_commands"].append("export AWS_SECRET_ACCESS_KEY=x")
    assert s3_credential_problems(broken) == [
        "a secret in the config: AWS_SECRET_ACCESS_KEY", "gpu-spot has no IamInstanceProfile"]


def test_libtorch_flavor_is_one_djl_ships_a_jni_library_for():
    """setup.sh --gpu installs libtorch <pom's pytorch.native.version>-<LIBTORCH_FLAVOR>;
    DJL's pytorch-jni jar of the pom's version must hold a JNI library of that flavour."""
    setup = (NODE_SCRIPTS / "setup.sh").read_text()
    flavor = re.search(r"^LIBTORCH_FLAVOR=(\S+)$", setup, re.M).group(1)
    props = {e.tag.split("}")[1]: e.text for e in
             ElementTree.parse(REPO_ROOT / "pom.xml").getroot().find("{*}properties")}
    jni_version = props["pytorch.jni.version"]
    assert jni_version.startswith(props["pytorch.native.version"] + "-")
    jar = (Path.home() / ".m2" / "repository" / "ai" / "djl" / "pytorch" / "pytorch-jni"
           / jni_version / f"pytorch-jni-{jni_version}.jar")
    if not jar.is_file():
        pytest.fail(f"{jar} is missing: run 'bash bin/install' (mvn package) first")
    with zipfile.ZipFile(jar) as z:
        assert f"jnilib/linux-x86_64/{flavor}/libdjl_torch.so" in z.namelist()


# --- what every cloud shares ----------------------------------------------------------------

def test_clouds_share_the_node_scripts(config):
    assert config["file_mounts"] == NODE_MOUNT
    assert config["setup_commands"] == [SETUP]
    assert config["head_start_ray_commands"] == ["bash ~/dml-cluster/start.sh head"]
    assert config["worker_start_ray_commands"] == ["bash ~/dml-cluster/start.sh worker"]
    assert config.get("worker_setup_commands", [SETUP]) == [SETUP] or \
        config["worker_setup_commands"] == []
    for command in re.findall(r"~/dml-cluster/(\S+)", yaml.safe_dump(config)):
        assert (NODE_SCRIPTS / command).is_file(), command


def test_repository_url_is_one_variable_at_the_top_of_setup():
    lines = (NODE_SCRIPTS / "setup.sh").read_text().splitlines()
    assigned = [i for i, line in enumerate(lines) if line.startswith("DML_REPO=")]
    assert len(assigned) == 1 and assigned[0] < 15, assigned
    for path in CONFIGS:
        assert "DML_REPO" not in "".join(
            line for line in path.read_text().splitlines(True) if not line.startswith("#"))


def run_script(name, *args, env=None, cwd=None):
    return subprocess.run(["bash", str(NODE_SCRIPTS / name), *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, cwd=cwd, timeout=60)


def test_setup_stops_before_installing_anything_without_a_repository():
    result = run_script("setup.sh", env={"DML_REPO": ""})
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "dml node setup: DML_REPO is empty: the nodes do not know where to get dml from.",
        "dml node setup: Set DML_REPO at the top of clusters/node/setup.sh to your copy's"
        " git URL, then ray up again."]


def test_setup_refuses_an_unknown_option():
    result = run_script("setup.sh", "--cpu", env={"DML_REPO": "file:///nowhere"})
    assert result.returncode == 1
    assert "unknown option '--cpu'" in result.stderr


def test_start_needs_a_set_up_node(tmp_path):
    result = run_script("start.sh", "head", env={"HOME": str(tmp_path)})
    assert result.returncode == 1
    assert f"{tmp_path}/.dml/node.env is missing: this node was not set up." in result.stderr


# --- libtorch.py against a web server with DJL's layout ---------------------------------------

@pytest.fixture
def djl_publish(tmp_path):
    """Serves <root>/2.7.1/files.txt and gzipped files, as publish.djl.ai lays them out."""
    root = tmp_path / "publish"
    files = {
        "cu128/linux-x86_64/native/lib/libtorch.so.gz": b"torch",
        "cu128/linux-x86_64/native/lib/libc10_cuda.so.gz": b"c10 cuda",
        "cu128/linux-x86_64/native/lib/libnvrtc-builtins%2Bcu128.so.gz": b"nvrtc",
        "cpu/linux-x86_64/native/lib/libtorch.so.gz": b"cpu torch",
        "cu128/osx-aarch64/native/lib/libtorch.dylib.gz": b"mac",
    }
    for name, data in files.items():
        path = root / "2.7.1" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(data))
    (root / "2.7.1" / "files.txt").write_text("\n".join(files) + "\n")
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=str(root), **k)

        def translate_path(self, path):  # serve "%2B" names as they are stored
            return str(root / path.lstrip("/"))

        def log_message(self, *a):
            requests.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root, requests
    finally:
        server.shutdown()


def fetch_libtorch(base_url, dest, flavor="cu128"):
    return subprocess.run(
        [sys.executable, str(NODE_SCRIPTS / "libtorch.py"), "--version", "2.7.1", "--flavor",
         flavor, "--dest", str(dest), "--base-url", base_url],
        capture_output=True, text=True, timeout=60)


def test_libtorch_fetches_one_flavor_as_djl_names_it(djl_publish, tmp_path):
    url, _, requests = djl_publish
    dest = tmp_path / "libtorch" / "2.7.1-cu128"
    result = fetch_libtorch(url, dest)
    assert result.returncode == 0, result.stderr
    assert {p.name: p.read_bytes() for p in dest.iterdir()} == {
        "libtorch.so": b"torch", "libc10_cuda.so": b"c10 cuda",
        "libnvrtc-builtins+cu128.so": b"nvrtc"}
    assert [p.name for p in dest.parent.iterdir()] == ["2.7.1-cu128"]
    served = len(requests)
    assert fetch_libtorch(url, dest).returncode == 0
    assert len(requests) == served  # a second run finds it in place and downloads nothing


def test_libtorch_names_the_flavors_there_are(djl_publish, tmp_path):
    url, _, _ = djl_publish
    dest = tmp_path / "libtorch" / "2.7.1-cu126"
    result = fetch_libtorch(url, dest, flavor="cu126")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "dml libtorch: DJL publishes no cu126 build of PyTorch 2.7.1 for linux-x86_64"
        " (it has: cpu, cu128).")
    assert not dest.exists()


def test_libtorch_leaves_nothing_half_downloaded(djl_publish, tmp_path):
    url, root, _ = djl_publish
    (root / "2.7.1" / "cu128/linux-x86_64/native/lib/libc10_cuda.so.gz").unlink()
    dest = tmp_path / "libtorch" / "2.7.1-cu128"
    result = fetch_libtorch(url, dest)
    assert result.returncode == 1
    assert "HTTP Error 404" in result.stderr
    assert list(dest.parent.iterdir()) == []
