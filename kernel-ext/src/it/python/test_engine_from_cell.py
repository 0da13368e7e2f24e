"""The engine from a notebook cell: a Tablesaw table trained data-parallel on two Ray actors
(the embedded local cluster), with the live metric stream reaching the cell's listener, and
predictions coming back as a table. Nothing of the cluster outlives the job."""
import re
import subprocess
import time
from pathlib import Path

from kernel_session import execute, plain_result

TRAIN = """import tech.tablesaw.api.Table;
import dev.dml.ray.Dml;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.*;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.events.*;
Table fraud = SyntheticFraud.generate(20_000, 7);
var liveSteps = new java.util.concurrent.atomic.AtomicInteger();
TrainSpec spec = TrainSpec.builder()
        .setTable(fraud).setColumns(SyntheticFraud.selection())
        .setModel(ModelSpec.Family.MLP, 32).optEpochs(2)
        .optWorkers(2).optBatchSize(256).optLearningRate(0.01f)
        .addListener(new TrainingListener() {
            public void onStep(StepMetrics m) { liveSteps.incrementAndGet(); }
        })
        .build();
TrainResult result = Dml.train(spec);
System.out.println("live " + liveSteps.get() + " pids " + result.workers());
"""


def ray_processes():
    """Pids of Ray heads and dml drivers on this machine."""
    out = subprocess.run(["pgrep", "-f", "raylet|gcs_server|dev.dml.ray.cluster.DriverMain"],
                         capture_output=True, text=True).stdout
    return set(out.split())


def ours(pids, kernel_pid):
    """The pids of a head this kernel opened: a child of the kernel (its driver), or a process
    of an embedded head whose temp dir is gone (closed by this job). Other engineers' and
    tests' Ray processes on the same machine are neither."""
    mine = set()
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
        dirs = re.findall(r"(/[^\s\x00=:]*dml-ray-[0-9]+)", cmd)
        if ppid == kernel_pid or (dirs and not any(Path(d).exists() for d in dirs)):
            mine.add(pid)
    return mine


def describe(pids):
    lines = []
    for pid in pids:
        try:
            lines.append(pid + ": " + Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
                         .replace("\x00", " ")[:300])
        except OSError:
            lines.append(pid + ": (ended)")
    return "\n".join(lines)


def test_a_cell_trains_on_two_actors_and_predicts(shared_kernel):
    km, kc = shared_kernel
    before = ray_processes()
    content, outputs = execute(kc, TRAIN, timeout=600)
    assert content["status"] == "ok", content
    printed = "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")
    live = int(re.search(r"live (\d+)", printed).group(1))
    assert live > 0, printed  # step events reached the kernel while the job ran
    pids = set(re.findall(r"pid (\d+)", printed))
    assert len(pids) == 2, printed  # two workers, in two separate JVMs

    content, outputs = execute(kc, "result.predict(SyntheticFraud.generate(500, 8))"
                                   ".columnNames()")
    assert content["status"] == "ok", content
    assert plain_result(outputs) == "[p0, p1, predicted]", outputs

    # Processes of a closed head take a moment to exit after the cell returns.
    deadline = time.monotonic() + 30
    while (left := ours(ray_processes() - before, km.provisioner.pid)) and time.monotonic() < deadline:
        time.sleep(1)
    assert not left, f"the job left Ray processes behind: {describe(left)}"
