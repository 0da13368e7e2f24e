"""notebooks/03-fashion-mnist.ipynb on the dml kernel: the CNN trained data-parallel on real
images (Debian's dataset-fashion-mnist) with its live plot, a test accuracy over what a linear
model reaches (see notebook_checks), and predicted images drawn inline."""
import pytest

from kernel_session import REPO_ROOT, run_counting
from notebook_checks import assert_rejects_untrained, check_fashion_mnist

NOTEBOOK = REPO_ROOT / "notebooks" / "03-fashion-mnist.ipynb"


@pytest.mark.slow
def test_fashion_mnist_notebook_trains_a_good_cnn():
    nb, client = run_counting(NOTEBOOK)
    (live_id,) = client.updates  # one display is redrawn: the live plot
    assert client.updates[live_id] >= 3, client.updates
    check_fashion_mnist(nb)
    images = [o for c in nb.cells if c.id == "images" for o in c.outputs
              if "image/png" in o.get("data", {})]
    assert len(images) == 1, images


@pytest.mark.slow
def test_fashion_mnist_check_rejects_an_untrained_cnn(capsys):
    assert_rejects_untrained(NOTEBOOK, check_fashion_mnist, "CNN test accuracy", capsys)
