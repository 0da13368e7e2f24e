"""Runs the official kernel conformance suite (jupyter_kernel_test) against the dml kernel.

The suite is Debian's package python3-jupyter-kernel-test, which is on no pip index here, and
its version (0.4.5) does not run on the jupyter_client 8 of dml's environment. So it runs under
Debian's python3, with Debian's jupyter_client, in a process of its own, and JUPYTER_PATH leads
it to the kernelspec of dml's environment (this one); this test reports its counts.
"""
import re
import os
import subprocess
import sys
from pathlib import Path

from kernel_session import require_kernelspec

HERE = Path(__file__).resolve().parent
DEBIAN_PYTHON = "/usr/bin/python3"


def test_official_conformance_suite(capsys):
    require_kernelspec()
    env = dict(os.environ, JUPYTER_PATH=str(Path(sys.prefix) / "share" / "jupyter"))
    proc = subprocess.run(
        [DEBIAN_PYTHON, "-m", "unittest", "-v", "conformance_dml"], cwd=HERE, env=env,
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900,
    )
    report = proc.stdout + proc.stderr
    outcomes = outcomes_by_test(report)
    assert outcomes, f"the conformance suite did not run:\n{report}"
    passed, failed, skipped = (sorted(name for name, outcome in outcomes.items() if outcome == kind)
                               for kind in ("passed", "failed", "skipped"))
    with capsys.disabled():
        print(f"\nconformance: {len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped")
        print(f"conformance details: failed {', '.join(failed) or '-'};"
              f" skipped {', '.join(skipped) or '-'}")
    exit_code = proc.returncode
    assert exit_code == 0 and not failed, f"conformance suite failed:\n{report}"
    assert passed, f"no conformance test passed:\n{report}"


# unittest -v prints "test_x (module.Class.test_x) ... ok" per test method, and one such line
# per failed or skipped subtest, "test_x (module.Class.test_x) (key='v') ... ERROR".
RESULT_LINE = re.compile(r"^\s*(test\w*) \([\w.]+\)(?: \(.*\))? \.\.\. *"
                         r"(ok|skipped|ERROR|FAIL|expected failure|unexpected success)",
                         re.MULTILINE)


def outcomes_by_test(report):
    """Test method name -> 'passed', 'failed' or 'skipped'; a method fails if any of its
    subtests does, and counts as skipped only when nothing in it ran."""
    seen = {}
    for name, result in RESULT_LINE.findall(report):
        seen.setdefault(name, set()).add(result)
    outcomes = {}
    for name, results in seen.items():
        if results & {"ERROR", "FAIL", "unexpected success"}:
            outcomes[name] = "failed"
        elif results <= {"skipped"}:
            outcomes[name] = "skipped"
        else:
            outcomes[name] = "passed"
    return outcomes
