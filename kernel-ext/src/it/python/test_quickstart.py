"""The quickstart notebook, executed with nbclient as CI and `bin/demo` run it: the live plot
is one display updated in place many times, the model it trains is good, and an HTML export
keeps the plot's last frame."""
import re
import nbformat
from nbconvert import HTMLExporter

from kernel_session import REPO_ROOT, run_counting

QUICKSTART = REPO_ROOT / "notebooks" / "01-quickstart.ipynb"


def test_quickstart_trains_with_a_live_plot_and_a_good_model():
    nb, client = run_counting(QUICKSTART)
    cells = {cell.id: cell for cell in nb.cells}

    assert len(client.displays) == 1, client.displays  # one live display...
    (live_id,) = client.displays
    assert client.updates[live_id] >= 5, client.updates  # ...redrawn in place many times
    assert set(client.updates) == {live_id}, client.updates

    train = cells["train"].outputs
    assert train[0].output_type == "display_data" and "image/svg+xml" in train[0].data
    assert "step 468/468" in train[0].data["text/plain"], train[0].data["text/plain"]
    assert "finished" in train[-1].data["text/plain"], train[-1].data

    scores = "".join(o.text for o in cells["scores"].outputs if o.output_type == "stream")
    accuracy, auc = map(float, re.search(r"accuracy ([\d.]+), ROC AUC ([\d.]+)", scores).groups())
    assert accuracy > 0.985 and auc > 0.9, scores
    assert "Crosstab Counts" in cells["confusion"].outputs[0].data["text/plain"]
    assert re.search(r"\d+@[^:\s]+:\d+, \d+@", cells["status"].outputs[0].data["text/plain"])

    html, _ = HTMLExporter().from_notebook_node(nb)
    assert "data:image/svg+xml" in html  # the last frame survives the export
