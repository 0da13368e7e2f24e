"""notebooks/02-model-parallel.ipynb on the dml kernel: a pipeline-parallel and a
model-parallel job from %dml train, each with its live plot showing the stages, and each a good
fraud model (see notebook_checks)."""
import pytest

from kernel_session import REPO_ROOT, run_counting
from notebook_checks import assert_rejects_untrained, check_model_parallel

NOTEBOOK = REPO_ROOT / "notebooks" / "02-model-parallel.ipynb"


@pytest.mark.slow
def test_model_parallel_notebook_trains_split_models():
    nb, client = run_counting(NOTEBOOK)
    assert len(client.displays) == 2, client.displays  # one live plot per train cell
    assert all(client.updates[d] >= 2 for d in client.displays), client.updates
    for cell in nb.cells:
        if cell.id in ("pipeline", "model"):
            assert "stage" in cell.outputs[0].data["image/svg+xml"], f"{cell.id}: no stage chart"
    check_model_parallel(nb)


@pytest.mark.slow
def test_model_parallel_checks_reject_untrained_models(capsys):
    assert_rejects_untrained(NOTEBOOK, check_model_parallel, "under its floors", capsys)
