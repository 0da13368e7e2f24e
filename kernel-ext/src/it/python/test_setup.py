"""The set-up itself: bin/install's check of the pinned requirements, the Binder files against
repo2docker's rules, and the installed kernel taking Ray from dml's own Python environment."""
import importlib.util
import json
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kernel_session import REPO_ROOT, execute, require_kernelspec
from memory_watch import cmdline, descendants

CHECKER = REPO_ROOT / "bin" / "lib" / "requirements.py"
BINDER = REPO_ROOT / "binder"


def checker(tmp_path, *lines, command="missing"):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("\n".join(lines) + "\n")
    return subprocess.run([sys.executable, str(CHECKER), command, str(requirements)],
                          capture_output=True, text=True)


def test_an_absent_package_is_missing_and_a_wrong_version_too(tmp_path):
    from importlib.metadata import version
    have = version("pytest")
    proc = checker(tmp_path, f"pytest=={have}", "pytest==0.0.1  # wrong version",
                   "dml-no-such-package==1.0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["pytest==0.0.1", "dml-no-such-package==1.0"], proc.stdout
    assert f"pytest==0.0.1: {have} installed" in proc.stderr, proc.stderr
    assert "dml-no-such-package==1.0: not installed" in proc.stderr, proc.stderr


def test_an_unpinned_requirement_is_refused(tmp_path):
    proc = checker(tmp_path, "pytest", command="list")
    assert proc.returncode != 0
    assert "requirements.txt:1: 'pytest' is not pinned; write it as name==version" in proc.stderr


def test_every_requirement_is_pinned_and_installed_here():
    """dml's environment (this one) holds exactly what requirements-test.txt pins."""
    proc = subprocess.run([sys.executable, str(CHECKER), "missing",
                           str(REPO_ROOT / "requirements-test.txt")],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stdout, proc.stdout + proc.stderr


def pins(path):
    out = subprocess.run([sys.executable, str(CHECKER), "list", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def test_binder_installs_the_one_list_of_requirements():
    assert pins(BINDER / "requirements.txt") == pins(REPO_ROOT / "requirements.txt")
    assert "ray==2.58.0" in pins(REPO_ROOT / "requirements.txt")
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"


def test_binder_scripts_follow_repo2dockers_rules():
    for name in ("postBuild", "start"):
        mode = (BINDER / name).stat().st_mode
        assert mode & stat.S_IXUSR, f"binder/{name} is not executable"
    post_build = (BINDER / "postBuild").read_text().splitlines()
    commands = [line for line in post_build if line.strip() and not line.startswith("#")]
    assert commands[0] == "set -euo pipefail", "postBuild must stop on the first error"
    assert "sudo" not in "\n".join(commands), "postBuild runs without sudo"
    start = [line for line in (BINDER / "start").read_text().splitlines() if line.strip()]
    assert start[-1] == 'exec "$@"', "start must end by running the command it was given"
    # repo2docker's own check of apt.txt: comments dropped, then one package name a line
    names = [line.partition("#")[0].strip() for line in (BINDER / "apt.txt").read_text()
             .splitlines()]
    names = [n for n in names if n]
    assert names and all(re.fullmatch(r"[a-z0-9.+-]+", n) for n in names), names


def test_readme_has_the_launch_binder_badge():
    assert_badge((REPO_ROOT / "README.md").read_text())


def assert_badge(readme):
    assert re.search(r"\[!\[launch binder\]\(https://mybinder\.org/badge_logo\.svg\)\]"
                     r"\(https://mybinder\.org/v2/gh/[\w.-]+/[\w.-]+/HEAD"
                     r"\?urlpath=lab/tree/notebooks/01-quickstart\.ipynb\)", readme), readme


def badge_copy(tmp_path, remote):
    """A git folder holding this README, with origin set to remote (or none)."""
    (tmp_path / "README.md").write_text((REPO_ROOT / "README.md").read_text())
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    if remote:
        subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", remote],
                       check=True)
    return subprocess.run([sys.executable, str(REPO_ROOT / "bin" / "lib" / "binder_badge.py"),
                           "--repo", str(tmp_path)], capture_output=True, text=True)


@pytest.mark.parametrize("remote", ["git@github.com:ada/dml.git", "https://github.com/ada/dml"])
def test_the_binder_badge_script_writes_the_remotes_address(tmp_path, remote):
    proc = badge_copy(tmp_path, remote)
    assert proc.returncode == 0, proc.stderr
    readme = (tmp_path / "README.md").read_text()
    assert "https://mybinder.org/v2/gh/ada/dml/HEAD?urlpath=" in readme, readme[:800]
    assert "OWNER/REPO" not in readme, "the note on the placeholder must go with it"
    assert_badge(readme)


def test_the_binder_badge_script_refuses_a_copy_without_a_github_remote(tmp_path):
    proc = badge_copy(tmp_path, None)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2 and "not a GitHub repository" in lines[0], proc.stderr
    assert "git remote add origin" in lines[1], proc.stderr
    assert "OWNER/REPO/HEAD" in (tmp_path / "README.md").read_text(), "README must be untouched"


def test_readme_fits_on_a_screen_and_its_links_resolve():
    readme = (REPO_ROOT / "README.md").read_text()
    assert readme.count("\n") < 150, "the README is a front page: move detail into docs/"
    assert "bash bin/demo" in readme and "bash bin/test" in readme
    picture = REPO_ROOT / "docs" / "images" / "dashboard.png"
    assert "](docs/images/dashboard.png)" in readme
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", picture
    targets = re.findall(r"\]\(((?:docs|bench)/[^)#]+)", readme)
    assert len(targets) > 15, targets
    missing = [t for t in targets if not (REPO_ROOT / t).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_kernelspec_launches_java_with_this_environments_bin_first():
    spec = require_kernelspec()
    launcher = Path(spec.resource_dir) / "launch"
    assert spec.argv == ["/bin/sh", str(launcher), "{connection_file}"], spec.argv
    text = launcher.read_text()
    assert f"PATH={Path(sys.prefix) / 'bin'}:$PATH" in text, text
    assert f"-cp '{Path(spec.resource_dir) / 'lib' / '*'}'" in text, text


def test_a_bad_kernel_heap_is_one_clear_line(tmp_path):
    spec = require_kernelspec()
    proc = subprocess.run(["/bin/sh", str(Path(spec.resource_dir) / "launch"),
                           str(tmp_path / "none.json")], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "DML_KERNEL_HEAP": "2 GB"}, timeout=60)
    assert proc.returncode == 2, proc
    assert proc.stderr.strip() == ("dml kernel: DML_KERNEL_HEAP=2 GB is not a heap size;"
                                   " set it to a size such as 384m or 1g, or unset it")


def test_a_word_of_dml_jvm_options_that_is_no_option_is_one_clear_line(tmp_path):
    spec = require_kernelspec()
    proc = subprocess.run(["/bin/sh", str(Path(spec.resource_dir) / "launch"),
                           str(tmp_path / "none.json")], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "DML_JVM_OPTIONS": "-XX:+UseSerialGC *"},
                          timeout=60)
    assert proc.returncode == 2, proc
    assert proc.stderr.strip() == ("dml kernel: DML_JVM_OPTIONS has *, which is not a JVM option;"
                                   " write java's options separated by spaces, such as"
                                   " -XX:+UseSerialGC, or unset it")


@pytest.fixture
def ray_package():
    found = importlib.util.find_spec("ray")
    assert found, "ray is not installed in dml's environment"
    return Path(found.origin).parent


def test_the_kernel_runs_ray_from_its_environment(kernel, ray_package):
    """The embedded head's processes and the driver's ray_dist.jar come from the ray package of
    this environment, whatever other Ray the machine has on PATH."""
    km, kc = kernel
    content, _ = execute(kc, "%dml cluster start", timeout=300)
    assert content["status"] == "ok", content
    tree = {pid: cmdline(pid) for pid in descendants(km.provisioner.process.pid)}
    heads = [pid for pid, cmd in tree.items() if re.search(r"(^|/)gcs_server ", cmd)]
    assert heads, json.dumps(tree, indent=1)
    for pid in heads:
        exe = Path(f"/proc/{pid}/exe").resolve()
        assert exe.is_relative_to(ray_package), f"{exe} is not from {ray_package}"
    drivers = [cmd for cmd in tree.values() if "dev.dml.ray.cluster.DriverMain" in cmd]
    assert drivers, json.dumps(tree, indent=1)
    jar = re.search(r"-cp (\S*ray_dist\.jar)", drivers[0]).group(1)
    assert Path(jar).is_relative_to(ray_package), jar
