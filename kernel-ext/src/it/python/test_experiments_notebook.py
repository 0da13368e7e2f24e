"""notebooks/07-experiments.ipynb on the dml kernel: two recorded runs compared in one chart,
a sweep whose live chart updates in place while ASHA stops weak trials early, the best trial
bound and saved, and the sweep's trials listed as runs."""
import re

from kernel_session import REPO_ROOT, run_counting
from notebook_checks import cells_by_id, stream_text

NOTEBOOK = REPO_ROOT / "notebooks" / "07-experiments.ipynb"


def test_experiments_notebook_compares_sweeps_and_saves_the_best():
    nb, client = run_counting(NOTEBOOK)
    cells = cells_by_id(nb)

    compare = cells["compare"].outputs
    assert compare[0].data["image/svg+xml"].startswith("<svg"), compare[0]
    assert re.search(r"lr\s+0\.01\s+(0\.0005|5\.0E-4)", compare[1].data["text/plain"]), compare[1]

    tune = cells["tune"].outputs
    chart, table = tune[0].data, tune[1].data
    assert chart["image/svg+xml"].startswith("<svg") and "stopped early" in chart["text/plain"]
    assert re.match(r"Sweep sweep-\S+: 6 trials, 2 at a time, ranked by val_loss", \
        table["text/plain"]), table["text/plain"]
    assert "stopped early" in table["text/plain"] and "done" in table["text/plain"]
    assert max(client.updates.values()) >= 3, client.updates  # drawn in place as trials ran
    summary = tune[-1].data["text/plain"]
    assert re.search(r"6 trials, [1-5] stopped early, 0 failed;.* bound to best\.", summary), \
        summary

    assert "the same probabilities" in stream_text(cells["save"])
    listed = cells["listed"].outputs[0].data["text/plain"]
    assert len(re.findall(r"fraud-\d{8}-\d{6}-[0-9a-f]{4}", listed)) == 6, listed
