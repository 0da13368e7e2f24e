"""notebooks/03-fashion-mnist.ipynb on the dml kernel: the CNN trained data-parallel on real
images (Debian's dataset-fashion-mnist) with its live plot, a test accuracy above a floor,
and predicted images drawn inline."""
import re

import pytest

from kernel_session import REPO_ROOT, run_counting

NOTEBOOK = REPO_ROOT / "notebooks" / "03-fashion-mnist.ipynb"


@pytest.mark.slow
def test_fashion_mnist_notebook_trains_a_good_cnn():
    nb, client = run_counting(NOTEBOOK)
    cells = {cell.id: cell for cell in nb.cells}
    (live_id,) = client.updates  # one display is redrawn: the live plot
    assert client.updates[live_id] >= 3, client.updates
    text = "".join(o.text for o in cells["accuracy"].outputs if o.output_type == "stream")
    accuracy = float(re.search(r"test accuracy ([\d.]+)", text).group(1))
    assert accuracy > 0.75, text
    images = [o for o in cells["images"].outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, cells["images"].outputs
