"""The engine from a notebook cell: a Tablesaw table trained data-parallel on two Ray actors
(the embedded local cluster), with the live metric stream reaching the cell's listener, and
predictions coming back as a table. Nothing of the cluster outlives the job."""
import re
import subprocess

from kernel_session import execute, plain_result

TRAIN = """import tech.tablesaw.api.Table;
import dev.dml.ray.Dml;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.*;
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


def test_a_cell_trains_on_two_actors_and_predicts(shared_kernel):
    _, kc = shared_kernel
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

    assert ray_processes() <= before, "the job left Ray processes behind"
