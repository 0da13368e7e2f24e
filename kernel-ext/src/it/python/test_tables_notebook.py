"""notebooks/05-tables-train-predict.ipynb on the dml kernel: a real table with a text label and
text features (the Palmer penguins) trains with its class names, %dml predict scores the held-out
rows on 2 worker actors (progress and rows/s in the cell, the scored table bound and shown, class
names well above the majority rate, the local predictions in the input's order), the model saves
and reopens with the same predictions, and %dml scale shows 1 and 2 workers."""
import re

from kernel_session import REPO_ROOT, run_counting
from notebook_checks import cells_by_id, stream_text

NOTEBOOK = REPO_ROOT / "notebooks" / "05-tables-train-predict.ipynb"


def texts(cell):
    return [o.get("data", {}).get("text/plain", "") for o in cell.outputs]


def test_tables_notebook_trains_predicts_saves_and_scales():
    nb, client = run_counting(NOTEBOOK)
    cells = cells_by_id(nb)

    assert "finished" in cells["train"].outputs[-1].data["text/plain"]
    assert "classes: [Adelie, Chinstrap, Gentoo]" in stream_text(cells["train-check"])

    shown = texts(cells["predict"])
    summary = next(t for t in shown if t.startswith("Scored "))
    assert re.match(r"Scored 86 rows on 2 workers in [\d.]+ s \([\d,]+ rows/s while scoring\);"
                    r" the table is bound to 'scored'\.", summary), summary
    head = next(o for o in cells["predict"].outputs
                if "<table" in o.get("data", {}).get("text/html", ""))
    html = head.data["text/html"]
    assert "<th" in html and "predicted" in html and "p2" in html, html
    assert re.search(r"Adelie|Chinstrap|Gentoo", html), html
    # the status line was replaced in place while the workers scored
    status = [t for t in shown if t.startswith(("Starting", "Scoring", "Scored"))]
    assert status, shown

    checked = stream_text(cells["predict-check"])
    accuracy, majority = map(float, re.search(
        r"held-out accuracy ([\d.]+), always predicting the commonest species ([\d.]+)",
        checked).groups())
    assert accuracy >= 0.85 and majority < 0.5, checked

    assert "dml-result.ser" in stream_text(cells["save"])
    assert "model.safetensors" in stream_text(cells["save"])
    assert "predicts the same 86 classes" in stream_text(cells["save-check"])

    scale = texts(cells["scale"])
    table = next(t for t in scale if t.startswith("Scaling of"))
    assert "efficiency" in table and "final accuracy" in table, table
    assert re.search(r"2 workers: \d+ examples/s, speedup [\d.]+x", stream_text(cells["scale-check"]))
