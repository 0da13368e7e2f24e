"""Writes the "dml" kernelspec into a staging folder: kernel.json and its launcher.

    python kernelspec.py STAGE DEST JAVA VENV

DEST is where `jupyter kernelspec install --sys-prefix` will put STAGE (the launcher names its
own jars there), JAVA the java to run, VENV dml's Python environment, whose bin/ goes first on
the kernel's PATH: that is where the kernel finds `ray`, and through it ray_dist.jar.
"""
import json
import shlex
import sys
from pathlib import Path

JVM_OPTIONS = [
    "-Djava.awt.headless=true",  # images render to PNG; no display needed
    "-Dai.djl.offline=true",  # DJL must never try to download engines
    "--add-opens=java.base/java.nio=ALL-UNNAMED",  # Arrow's direct buffers
]

LAUNCHER = """#!/bin/sh
# Starts the dml kernel; written by bin/install, run by Jupyter with the connection file.
# Ray (the `ray` command and its ray_dist.jar) comes from dml's Python environment:
PATH={venv_bin}:$PATH
export PATH
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
exec {java} $heap ${{DML_JVM_OPTIONS:-}} {options} -cp {classpath} dev.dml.kernel.DmlKernelMain "$@"
"""


def main(stage, dest, java, venv):
    stage, dest = Path(stage), Path(dest)
    launcher = stage / "launch"
    launcher.write_text(LAUNCHER.format(
        venv_bin=shlex.quote(str(Path(venv) / "bin")), java=shlex.quote(java),
        options=" ".join(JVM_OPTIONS), classpath=shlex.quote(str(dest / "lib" / "*"))))
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
