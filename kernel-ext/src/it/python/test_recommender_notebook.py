"""notebooks/06-recommender.ipynb on the dml kernel: the mf family trains on 2 workers on a ratings
table with a planted rank-3 structure and predicts held-out ratings far better than the mean rating,
%dml predict scores them on 2 worker actors in the input's order, a user's top five unrated items
score above the average one, new users score alike, and save refuses in one line."""
import re

from kernel_session import REPO_ROOT, run_counting
from notebook_checks import cells_by_id, stream_text

NOTEBOOK = REPO_ROOT / "notebooks" / "06-recommender.ipynb"


def test_recommender_notebook_trains_predicts_and_recommends():
    nb, _ = run_counting(NOTEBOOK)
    cells = cells_by_id(nb)

    assert "finished" in cells["train"].outputs[-1].data["text/plain"]
    checked = stream_text(cells["train-check"])
    model, constant = map(float, re.search(
        r"held-out RMSE ([\d.]+), the mean rating's ([\d.]+)", checked).groups())
    assert model < 0.6 * constant and constant > 0.8, checked
    assert "user=(index), item=(index)" in checked, checked

    assert re.search(r"the cluster scored the same \d+ ratings, in order",
                     stream_text(cells["predict-check"]))
    assert "u7 has rated" in stream_text(cells["recommend"])
    assert "two new users" in stream_text(cells["newcomer"])
    assert "This mf model embeds the columns [user, item]" in stream_text(cells["save"])
