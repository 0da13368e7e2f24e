"""%dml train --block VAR end to end, through the installed kernel and a Ray cluster: a DJL block
whose factory class a cell defines trains on 2 worker JVMs (the class reaches them as bytecode),
beats the majority class on a real table, and a plain block is refused in one line."""
from pathlib import Path

import pytest

from kernel_session import error_text, execute

CANCER = (Path(__file__).resolve().parents[4] / "ray-backend" / "src" / "test" / "resources"
          / "datasets" / "breast_cancer.csv")
JOB_TIMEOUT = 600

NET = """
class Net implements dev.dml.ray.model.BlockFactory {
    final int hidden;
    Net(int hidden) { this.hidden = hidden; }
    public ai.djl.nn.Block newBlock(int inputs, int outputs) {
        return new ai.djl.nn.SequentialBlock()
                .add(ai.djl.nn.core.Linear.builder().setUnits(hidden).build())
                .add(ai.djl.nn.Activation.reluBlock())
                .add(ai.djl.nn.core.Linear.builder().setUnits(outputs).build());
    }
}
var net = new Net(16);
"""


@pytest.fixture(scope="module")
def kc(shared_kernel):
    client = shared_kernel[1]
    assert execute(client, NET)[0]["status"] == "ok"  # the cell that defines the class
    return client


def test_a_cells_block_trains_on_two_workers(kc):
    code = (f"%dml train {CANCER} --label diagnosis --block net --epochs 10 --batch-size 16"
            " --lr 0.01 --workers 2 --validation 0.25 --no-plots --into own")
    content, _ = execute(kc, code, timeout=JOB_TIMEOUT)
    assert content["status"] == "ok", error_text(content)
    content, outputs = execute(kc, """
var last = own.epochs().get(own.epochs().size() - 1);
System.out.println("family " + own.model().family() + ", workers " + own.workers().size()
        + ", accuracy " + last.validationAccuracy());
if (last.validationAccuracy() < 0.9) throw new AssertionError(last);
""")
    assert content["status"] == "ok", error_text(content)
    text = "".join(m["content"].get("text", "") for m in outputs)
    assert "family CUSTOM, workers 2" in text, text


def test_a_plain_block_is_refused_in_one_line(kc):
    content, _ = execute(kc, "var plain = new ai.djl.nn.SequentialBlock();")
    assert content["status"] == "ok", content
    content, _ = execute(kc, f"%dml train {CANCER} --label diagnosis --block plain", 120)
    assert content["status"] == "error", content
    lines = content["traceback"]
    assert lines[0] == ("dml: The variable 'plain' given as --block is a SequentialBlock, not a"
                        " dev.dml.ray.model.BlockFactory."), lines
