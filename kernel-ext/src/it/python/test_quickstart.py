"""The quickstart notebook, executed with nbclient as CI and `bin/demo` run it: the live plot
is one display updated in place many times, the model it trains is a good fraud model (see
notebook_checks), and an HTML export keeps the plot's last frame."""
import re

import pytest
from nbconvert import HTMLExporter

from kernel_session import REPO_ROOT, run_counting
from notebook_checks import assert_rejects_untrained, check_quickstart

QUICKSTART = REPO_ROOT / "notebooks" / "01-quickstart.ipynb"


def test_quickstart_trains_with_a_live_plot_and_a_good_model():
    nb, client = run_counting(QUICKSTART)

    assert len(client.displays) == 1, client.displays  # one live display...
    (live_id,) = client.displays
    assert client.updates[live_id] >= 5, client.updates  # ...redrawn in place many times
    assert set(client.updates) == {live_id}, client.updates
    train = nb.cells[[c.id for c in nb.cells].index("train")].outputs
    assert train[0].output_type == "display_data" and "image/svg+xml" in train[0].data

    check_quickstart(nb)
    # printf writes its line in pieces; the kernel sends the line as one stream output
    load = nb.cells[[c.id for c in nb.cells].index("load")].outputs
    assert [(o.output_type, o.name) for o in load] == [("stream", "stdout")], load
    line = re.fullmatch(r"([\d,]+ rows x \d+ columns; fraud rate [\d.]+%)\n", load[0].text)
    assert line, load[0].text

    html, _ = HTMLExporter().from_notebook_node(nb)
    assert "data:image/svg+xml" in html  # the last frame survives the export
    assert line.group(1) in html  # ...and the printed line is whole, on one line


@pytest.mark.slow
def test_quickstart_checks_reject_an_untrained_model(capsys):
    assert_rejects_untrained(QUICKSTART, check_quickstart, "under its floors", capsys)
