"""Writes the "dml" kernelspec into a staging folder: kernel.json and its launcher.

    python kernelspec.py STAGE DEST JAVA VENV

DEST is where `jupyter kernelspec install --sys-prefix` will put STAGE (the launcher names its
own jars there), JAVA the java to run, VENV dml's Python environment, whose bin/ goes first on
the kernel's PATH: that is where the kernel finds `ray`, and through it ray_dist.jar.
"""
import json
import shlex
import subprocess
import sys
from pathlib import Path

JVM_OPTIONS = [
    "-Djava.awt.headless=true",  # images render to PNG; no display needed
    "-Dai.djl.offline=true",  # DJL must never try to download engines
    "--add-opens=java.base/java.nio=ALL-UNNAMED",  # Arrow's direct buffers
]
# Gives the native memory glibc keeps after a free back every 30 s (JDK 17.0.9 and later; the
# launcher adds it only where the JVM knows it). The driver and workers get the same (JobJvms).
TRIM_NATIVE_HEAP = "-XX:TrimNativeHeapInterval=30000"
# The kernel's own work (live plots, the job's events) makes about 9 MB/s of short-lived
# garbage. G1 sizes its young generation to the pause goal, so with pauses far below it the
# young generation grew to 470 MB and the kernel's memory jumped by 350 MB in one step, at
# minute 25 of the S1 soak. 128 MB keeps a young collection every few seconds, of a few tens of
# milliseconds; the user's data lives in the old generation as before. It comes before
# DML_JVM_OPTIONS, so a user's -Xmn or -XX:MaxNewSize wins.
YOUNG_GENERATION = "-XX:MaxNewSize=128m"

LAUNCHER = """#!/bin/sh
# Starts the dml kernel; written by bin/install, run by Jupyter with the connection file.
# Ray (the `ray` command and its ray_dist.jar) comes from dml's Python environment:
PATH={venv_bin}:$PATH
export PATH
# Two malloc arenas, not glibc's 8 per core: each arena keeps what was freed in it, so a JVM
# with many native threads (Ray's) grows with no more in use. The job's driver and workers
# inherit it. A value set before the kernel starts wins.
MALLOC_ARENA_MAX=${{MALLOC_ARENA_MAX:-2}}
export MALLOC_ARENA_MAX
# DML_KERNEL_HEAP caps this JVM's heap, as a java -Xmx size such as 384m (Binder's start sets it).
heap=
if [ -n "${{DML_KERNEL_HEAP:-}}" ]; then
  case $DML_KERNEL_HEAP in
    *[!0-9kKmMgG]* | [!0-9]* | *[kKmMgG]?*)
      echo "dml kernel: DML_KERNEL_HEAP=$DML_KERNEL_HEAP is not a heap size;" \\
           "set it to a size such as 384m or 1g, or unset it" >&2
      exit 2 ;;
  esac
  heap=-Xmx$DML_KERNEL_HEAP
fi
# DML_JVM_OPTIONS: options for every JVM dml starts, this one too (Binder's start sets them).
set -f  # the options are split at spaces, never expanded as file names
for option in ${{DML_JVM_OPTIONS:-}}; do
  case $option in
    -*) ;;
    *) echo "dml kernel: DML_JVM_OPTIONS has $option, which is not a JVM option;" \\
            "write java's options separated by spaces, such as -XX:+UseSerialGC, or unset it" >&2
       exit 2 ;;
  esac
done
exec {java} $heap {young} ${{DML_JVM_OPTIONS:-}} {options} -cp {classpath} dev.dml.kernel.DmlKernelMain "$@"
"""


def knows(java, option):
    """Whether `java` starts with `option` (an older JVM refuses an option it does not know)."""
    try:
        return subprocess.run([java, option, "-version"], capture_output=True,
                              timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def main(stage, dest, java, venv):
    stage, dest = Path(stage), Path(dest)
    launcher = stage / "launch"
    options = JVM_OPTIONS + ([TRIM_NATIVE_HEAP] if knows(java, TRIM_NATIVE_HEAP) else [])
    launcher.write_text(LAUNCHER.format(
        venv_bin=shlex.quote(str(Path(venv) / "bin")), java=shlex.quote(java),
        young=YOUNG_GENERATION,
        options=" ".join(options), classpath=shlex.quote(str(dest / "lib" / "*"))))
    launcher.chmod(0o755)
    spec = {
        # sh, not the script itself: the launcher works even where a copy lost its mode bits.
        "argv": ["/bin/sh", str(dest / "launch"), "{connection_file}"],
        "display_name": "Java (dml)",
        "language": "java",
        # SIGINT would end the JVM: interrupts go as interrupt_request on the control channel.
        "interrupt_mode": "message",
        "metadata": {"debugger": False},
    }
    (stage / "kernel.json").write_text(json.dumps(spec, indent=2) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: kernelspec.py STAGE DEST JAVA VENV")
    main(*sys.argv[1:])
