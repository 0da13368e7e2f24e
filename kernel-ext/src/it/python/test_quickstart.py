"""The quickstart notebook, executed with nbclient as CI and `bin/demo` run it: the live plot
is one display updated in place many times, the model it trains is good, and an HTML export
keeps the plot's last frame."""
import re
from collections import Counter

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from kernel_session import KERNEL_NAME, REPO_ROOT, STARTUP_TIMEOUT, require_kernelspec

QUICKSTART = REPO_ROOT / "notebooks" / "01-quickstart.ipynb"


class CountingClient(NotebookClient):
    """Counts display messages per display id as they arrive (the saved notebook only keeps
    the last frame of an updated display)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.displays = Counter()
        self.updates = Counter()

    def process_message(self, msg, cell, cell_index):
        display_id = msg["content"].get("transient", {}).get("display_id")
        if msg["msg_type"] == "display_data" and display_id:
            self.displays[display_id] += 1
        if msg["msg_type"] == "update_display_data":
            self.updates[display_id] += 1
        return super().process_message(msg, cell, cell_index)


def test_quickstart_trains_with_a_live_plot_and_a_good_model():
    require_kernelspec()
    nb = nbformat.read(QUICKSTART, as_version=4)
    client = CountingClient(nb, kernel_name=KERNEL_NAME, timeout=900,
                            startup_timeout=STARTUP_TIMEOUT,
                            resources={"metadata": {"path": str(QUICKSTART.parent)}})
    client.execute()
    cells = {cell.id: cell for cell in nb.cells}
    for cell in nb.cells:
        assert not [o for o in cell.get("outputs", []) if o.output_type == "error"], cell

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
