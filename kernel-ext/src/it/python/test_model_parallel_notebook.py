"""notebooks/02-model-parallel.ipynb on the dml kernel: a pipeline-parallel and a
model-parallel job from %dml train, each with its live plot showing the stages."""
import re

import pytest

from kernel_session import REPO_ROOT, run_counting

NOTEBOOK = REPO_ROOT / "notebooks" / "02-model-parallel.ipynb"


@pytest.mark.slow
def test_model_parallel_notebook_trains_split_models():
    nb, client = run_counting(NOTEBOOK)
    cells = {cell.id: cell for cell in nb.cells}
    assert len(client.displays) == 2, client.displays  # one live plot per train cell
    assert all(client.updates[d] >= 2 for d in client.displays), client.updates

    for cell_id in ("pipeline", "model"):
        frame = cells[cell_id].outputs[0]
        assert "stage" in frame.data["image/svg+xml"], f"{cell_id}: no stage chart"
        assert "finished" in cells[cell_id].outputs[-1].data["text/plain"]

    text = "".join(o.text for o in cells["pipeline-check"].outputs if o.output_type == "stream")
    accuracy, actors = re.search(r"accuracy ([\d.]+), (\d+) stage actors", text).groups()
    assert float(accuracy) > 0.985 and int(actors) == 3, text
    text = "".join(o.text for o in cells["model-check"].outputs if o.output_type == "stream")
    assert re.search(r"model-parallel: 2 stage actors", text), text
