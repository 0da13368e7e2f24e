"""binder/ as repo2docker builds and starts it, on this machine, where Docker does not run:

1. a new non-root user gets a copy of the repository in its home (repo2docker's REPO_DIR);
2. binder/apt.txt is installed as root, as repo2docker does (--no-install-recommends);
3. as that user: a fresh Python environment (runtime.txt's Python, no system packages) gets
   binder/requirements.txt, then binder/postBuild runs (no sudo: the user has none);
4. binder/start launches each demo notebook, 00 to 03, on the kernel, run by nbclient, inside a
   memory cgroup capped at mybinder.org's 2 GB. The test reports each notebook's peak memory,
   per process, checks that none passed GOAL, checks the notebooks' outputs, and that start's
   caps reached every JVM and the Ray head.

nbclient's Python stands in for the Jupyter server a Binder session runs (about as large).
"""
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from kernel_session import REPO_ROOT
from memory_watch import MemoryCgroup, TreeSampler, wait_for_empty
from notebook_checks import (check_fashion_mnist, check_model_parallel, check_quickstart,
                             stream_text)

NOTEBOOKS = ["00-hello", "01-quickstart", "02-model-parallel", "03-fashion-mnist"]
LIMIT = 2 << 30  # the most memory mybinder.org gives a session
GOAL_MIB = 1600  # each notebook's peak, with room under LIMIT for a larger table or a worker
OVER_GOAL = set()  # notebooks known to peak over GOAL_MIB; they must still run in LIMIT
DEBIAN_PYTHON = "/usr/bin/python3"  # 3.11, which binder/runtime.txt names
REPORT = REPO_ROOT / "test-output" / "binder" / "memory.json"
# What binder/start sets, as the command lines of the processes must show it.
# (what the command line shows, whether it is a JVM's, the options it must have)
SMALL_JVM = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]  # start's DML_JVM_OPTIONS
CAPS = [("DmlKernelMain", True, ["-Xmx384m", *SMALL_JVM]),
        ("DriverMain", True, ["-Xmx256m", *SMALL_JVM]),
        ("DefaultWorker", True, ["-Xmx256m", *SMALL_JVM]),
        ("embedded_head.py start --head", False,
         ["--num-cpus=2", "--object-store-memory=104857600"])]
# Ray head processes that dml's embedded head leaves out (see embedded_head.py)
LEFT_OUT = ["ray.util.client.server", "dashboard/dashboard.py", "dashboard/agent.py",
            "ray::DashboardAgent"]


def copy_repository(home):
    """The files a clone has (tracked, and new ones git does not ignore), as repo2docker copies
    the repository into REPO_DIR."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO_ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO_ROOT / name
        if source.is_file():
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, home / name)


def end_processes_of(uid):
    """Kills what the test user left running (only that user's processes)."""
    for _ in range(3):
        pids = [int(p.name) for p in Path("/proc").iterdir()
                if p.name.isdigit() and _owner(p) == uid]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(1)


def _owner(proc):
    try:
        return proc.stat().st_uid
    except OSError:
        return None


@pytest.fixture
def binder_user():
    if os.geteuid() != 0:
        pytest.fail("the Binder test makes a user and installs apt.txt: run it as root (CI does)")
    name = "dmlb" + secrets.token_hex(4)
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", "--user-group", name],
                   check=True)
    user = pwd.getpwnam(name)
    # Outside /tmp, which the session gets a /tmp of its own over; like repo2docker's /srv/conda
    env_root = Path(tempfile.mkdtemp(prefix="dml-binder-", dir="/var/tmp"))
    (env_root / "tmp").mkdir(mode=0o1777)  # the session's /tmp
    (env_root / "tmp").chmod(0o1777)
    try:
        copy_repository(Path(user.pw_dir))
        subprocess.run(["chown", "-R", f"{name}:{name}", user.pw_dir, str(env_root)], check=True)
        yield user, env_root / "notebook", env_root / "tmp"
    finally:
        end_processes_of(user.pw_uid)
        subprocess.run(["userdel", "--remove", name], capture_output=True)
        shutil.rmtree(env_root, ignore_errors=True)


def pip_settings():
    """This machine's pip configuration as PIP_* variables, so that the user's pip reaches the
    same index that root's does (mybinder.org reaches PyPI); no retries of an index that is out
    of reach."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"],
                            capture_output=True, text=True).stdout
    env = {k: v for k, v in os.environ.items() if k.startswith("PIP_")}
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        env["PIP_" + key.rsplit(".", 1)[-1].upper().replace("-", "_")] = value.strip("'\"")
    env["PIP_RETRIES"] = "0"
    return env


def user_env(user, python_env):
    """The environment of repo2docker's image: its Python first on PATH, then ~/.local/bin."""
    home = user.pw_dir
    return {"HOME": home, "USER": user.pw_name, "SHELL": "/bin/bash", "LANG": "C.UTF-8",
            "REPO_DIR": home, "NB_USER": user.pw_name, "NB_PYTHON_PREFIX": str(python_env),
            "PATH": f"{python_env}/bin:{home}/.local/bin:/usr/local/bin:/usr/bin:/bin",
            **pip_settings()}


def as_user(user, env, argv, log, cgroup=None, tmp=None):
    """Starts argv as the user, in its home, with exactly env; output goes to log. With tmp, a
    folder, the command sees it as /tmp, as a container has a /tmp of its own: Ray's Java
    driver unpacks its library into /tmp/ray/, which on this machine root made and owns."""
    command = ["runuser", "-u", user.pw_name, "--", "env", "-i",
               *[f"{k}={v}" for k, v in env.items()], *argv]
    if tmp:
        command = ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                   'mount --bind "$0" /tmp && exec "$@"', str(tmp), *command]
    if cgroup:
        command = cgroup.wrap(command)
    with open(log, "w") as out:
        return subprocess.Popen(command, cwd=user.pw_dir, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)


def finish(process, log, what, timeout):
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        code = f"a timeout ({timeout} s)"
    if code != 0:
        tail = "\n".join(Path(log).read_text(errors="replace").splitlines()[-40:])
        pytest.fail(f"{what} ended with {code}; the end of {log}:\n{tail}")


def install_apt_txt(log):
    """As repo2docker: apt-get install --no-install-recommends, as root. --no-upgrade leaves
    packages this machine already has as they are."""
    packages = [line.partition("#")[0].strip()
                for line in (REPO_ROOT / "binder" / "apt.txt").read_text().splitlines()]
    command = ["apt-get", "install", "--yes", "--no-install-recommends", "--no-upgrade",
               "-o", "DPkg::Lock::Timeout=300", *filter(None, packages)]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    with open(log, "w") as out:
        if subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env).returncode:
            subprocess.run(["apt-get", "update", "-q"], stdout=out, stderr=subprocess.STDOUT)
            finish(subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env),
                   log, "apt-get install of binder/apt.txt", 1800)


@pytest.mark.slow
def test_binder_builds_and_runs_the_demos_within_2_gb(binder_user, tmp_path, capsys):
    user, python_env, session_tmp = binder_user
    home = Path(user.pw_dir)
    env = user_env(user, python_env)
    cgroup = MemoryCgroup.create(f"dml-binder-{user.pw_name}")
    version = subprocess.run([DEBIAN_PYTHON, "-V"], capture_output=True, text=True).stdout
    runtime = (REPO_ROOT / "binder" / "runtime.txt").read_text().strip()
    assert version.split()[1].startswith(runtime.removeprefix("python-") + "."), (version, runtime)
    try:
        install_apt_txt(tmp_path / "apt.log")
        # The build runs in the cgroup too, uncapped, so that its page cache can be evicted
        # before the run: what the session then reads is charged to it, as in a new container.
        for what, argv, timeout in [
                ("python -m venv", [DEBIAN_PYTHON, "-m", "venv", str(python_env)], 300),
                ("pip install -r binder/requirements.txt",
                 [f"{python_env}/bin/pip", "install", "--no-cache-dir", "-r",
                  "binder/requirements.txt"], 1800),
                ("binder/postBuild", ["./binder/postBuild"], 2400)]:
            log = tmp_path / (what.split()[0].replace("/", "-") + ".log")
            finish(as_user(user, env, argv, log, cgroup), log, what, timeout)

        # postBuild kept the image small
        left = [p for p in [home / ".m2", home / ".cache" / "pip", home / "build"] if p.exists()]
        left += list(home.glob("*/target"))
        assert not left, f"postBuild left build caches in the image: {left}"

        if cgroup:
            wait_for_empty(cgroup)
            cgroup.reclaim()
            cgroup.limit(LIMIT)
        out = home / "binder-out"
        report = {"goal_mib": GOAL_MIB, "limit_mib": LIMIT >> 20 if cgroup else None,
                  "cgroup": cgroup.describe() if cgroup else "none could be made: sampled PSS only",
                  "notebooks": {}}
        commands = {}
        for notebook in NOTEBOOKS:  # one at a time, as a session runs them
            if cgroup:
                wait_for_empty(cgroup)  # the last notebook's kernel and head are gone
            log = tmp_path / f"start-{notebook}.log"
            sampler = TreeSampler(cgroup)
            run = as_user(user, env, ["./binder/start", f"{python_env}/bin/python",
                                      "bin/lib/run_notebooks.py", str(out),
                                      f"notebooks/{notebook}.ipynb"], log, cgroup, session_tmp)
            sampler.start(run.pid)
            try:
                run.wait(timeout=1800)
            finally:
                sampler.stop()
            report["notebooks"][notebook] = notebook_report(sampler)
            commands.update(sampler.commands)
            finish(run, log, f"binder/start with {notebook}", 1)
        report.update(summary(report["notebooks"], cgroup))
        write_report(report, capsys)

        assert report["oom_kills"] == 0, report
        over = {n: r["peak_mib"] for n, r in report["notebooks"].items()
                if r["peak_mib"] > GOAL_MIB and n not in OVER_GOAL}
        assert not over, f"over {GOAL_MIB} MiB: {over}; per process in {REPORT}"
        check_caps(commands)
        executed = {n: nbformat.read(out / f"{n}.ipynb", as_version=4) for n in NOTEBOOKS}
        assert "hello from dml" in "".join(stream_text(c) for c in executed["00-hello"].cells)
        check_quickstart(executed["01-quickstart"])
        check_model_parallel(executed["02-model-parallel"])
        check_fashion_mnist(executed["03-fashion-mnist"])
    finally:
        end_processes_of(user.pw_uid)
        if cgroup:
            wait_for_empty(cgroup)
            cgroup.remove()


def check_caps(commands):
    """Each cap of binder/start is on the command line of the processes it is for, and the
    embedded head started none of the processes it leaves out."""
    for marker, jvm, options in CAPS:
        matching = [cmd for cmd in commands.values() if marker in cmd
                    and (not jvm or Path(cmd.split()[0]).name == "java")]
        assert matching, f"no {marker} process was seen"
        for option in options:
            assert all(option in cmd.split() for cmd in matching), (option, matching)
    started = [cmd for cmd in commands.values() if any(m in cmd for m in LEFT_OUT)]
    assert not started, started


def notebook_report(sampler):
    """One notebook's peaks (MiB): the larger of the cgroup's working set and the summed PSS
    is its peak; what the cgroup held by kind at its working-set peak; then each process, at
    the PSS peak and at its own peak."""
    return {
        "peak_mib": round(max(sampler.peak_working_set, sampler.peak_pss) / (1 << 20)),
        "cgroup_working_set_peak_mib": round(sampler.peak_working_set / (1 << 20)),
        "pss_peak_mib": round(sampler.peak_pss / (1 << 20)),
        "rss_peak_mib": round(sampler.peak_rss / (1 << 20)),
        "cgroup_at_working_set_peak": sampler.breakdown_at_working_set_peak(),
        "at_pss_peak": sampler.processes_at_peak(),
        "process_peaks": sampler.processes(),
    }


def summary(notebooks, cgroup):
    highest = max(notebooks, key=lambda n: notebooks[n]["peak_mib"])
    return {"peak_mib": notebooks[highest]["peak_mib"], "peak_notebook": highest,
            "oom_kills": cgroup.oom_kills() if cgroup else 0,
            "load_average": [round(x, 1) for x in os.getloadavg()]}


def write_report(report, capsys):
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=1) + "\n")
    with capsys.disabled():
        for name, r in report["notebooks"].items():
            print(f"\nbinder: {name} peaked at {r['peak_mib']} MiB (cgroup working set"
                  f" {r['cgroup_working_set_peak_mib']} MiB, summed PSS {r['pss_peak_mib']} MiB,"
                  f" summed RSS {r['rss_peak_mib']} MiB)")
        print(f"binder: highest {report['peak_mib']} MiB ({report['peak_notebook']}), goal"
              f" {report['goal_mib']} MiB, under a {report['limit_mib']} MiB limit"
              f" ({report['cgroup']}); OOM kills {report['oom_kills']}; load average"
              f" {report['load_average']}; per process in {REPORT}")
