"""What the demo notebooks must show, as checks on an executed notebook: shared by the notebook
tests and the Binder test, and run against deliberately bad models to show that they can fail.

The fraud data has about 1% positives, so a model that always says "not fraud" is 99% accurate.
The notebooks judge a fraud model instead by its ROC AUC (0.5 for a constant score) and by the
recall of the fraud class at precision 0.5 (0 for a constant score): the share of fraud caught at
the alarm threshold that catches the most while at least half of the alarms are fraud.
"""
import re

import nbformat

from kernel_session import run_counting

# Floors under what each notebook's model reaches and far over what a constant or untrained
# model scores. Measured on a 2-core machine (the runs are deterministic):
#   01-quickstart: ROC AUC 0.9739, fraud recall 0.5965 at precision 0.5
#   02-model-parallel, both jobs: ROC AUC 0.9496, fraud recall 0.3158 at precision 0.5
QUICKSTART_FLOORS = {"ROC AUC": 0.95, "fraud recall": 0.4}
MODEL_PARALLEL_FLOORS = {"ROC AUC": 0.9, "fraud recall": 0.2}
# 03's CNN reaches a test accuracy of 0.8755; a logistic model trained on the same images for
# the same steps reaches 0.8365 at best (lr 0.002, 2 or 4 epochs).
CNN_ACCURACY_FLOOR = 0.86


def stream_text(cell):
    return "".join(o.text for o in cell.get("outputs", []) if o.output_type == "stream")


def fraud_scores(text):
    """{"ROC AUC": a, "fraud recall": r} of a printed 'ROC AUC a, fraud recall r at precision
    0.5' (nbclient may split the line into several stream outputs; they are joined)."""
    match = re.search(r"ROC AUC ([\d.]+), fraud recall ([\d.]+) at precision 0\.5", text)
    assert match, f"no 'ROC AUC .., fraud recall .. at precision 0.5' in: {text}"
    return {"ROC AUC": float(match.group(1)), "fraud recall": float(match.group(2))}


def assert_good_fraud_model(text, floors):
    """Fails, naming each metric at or under its floor, unless all are over."""
    scores = fraud_scores(text)
    low = {name: value for name, value in scores.items() if value <= floors[name]}
    assert not low, f"fraud model under its floors {floors}: {low}\n{text}"


def cells_by_id(nb):
    return {cell.id: cell for cell in nb.cells}


def check_quickstart(nb):
    """notebooks/01-quickstart.ipynb, executed: a trained, good model and its session."""
    cells = cells_by_id(nb)
    train = cells["train"].outputs
    assert "step 468/468" in train[0].data["text/plain"], train[0].data["text/plain"]
    assert "finished" in train[-1].data["text/plain"], train[-1].data
    check_quickstart_cost(cells)
    assert_good_fraud_model(stream_text(cells["scores"]), QUICKSTART_FLOORS)
    assert "Crosstab Counts" in cells["confusion"].outputs[0].data["text/plain"]
    assert re.search(r"\d+@[^:\s]+:\d+, \d+@", cells["status"].outputs[0].data["text/plain"])


def check_quickstart_cost(cells):
    """A notebook that prices its local node as an m5.xlarge (the quickstart, Fashion-MNIST):
    live dollars, then the totals."""
    assert "m5.xlarge" in cells["price"].outputs[0].data["text/plain"]
    frame = cells["train"].outputs[0].data["text/plain"]
    assert re.search(r"\$[\d.,]+ spent · \$0\.1920/h · projected \$[\d.,]+ at this rate",
                     frame), frame
    summary = cells["train"].outputs[-1].data["text/plain"]
    spent = re.search(r"\ncost +\$([\d.,]+) at \$0\.1920/h \(1 node: \$0\.192/h: aws m5\.xlarge",
                      summary)
    assert spent and float(spent.group(1).replace(",", "")) > 0, summary
    assert re.search(r"\ncost/epoch +\$[\d.,]+\n", summary), summary


def check_model_parallel(nb):
    """notebooks/02-model-parallel.ipynb, executed: both split models are good fraud models."""
    cells = cells_by_id(nb)
    for cell_id in ("pipeline", "model"):
        assert "finished" in cells[cell_id].outputs[-1].data["text/plain"], cell_id
    text = stream_text(cells["pipeline-check"])
    assert re.search(r"; 3 stage actors", text), text
    assert_good_fraud_model(text, MODEL_PARALLEL_FLOORS)
    text = stream_text(cells["model-check"])
    assert re.search(r"; 2 stage actors", text), text
    assert_good_fraud_model(text, MODEL_PARALLEL_FLOORS)


def check_fashion_mnist(nb):
    """notebooks/03-fashion-mnist.ipynb, executed: the CNN beats a linear model, and the
    run is priced as on an m5.xlarge."""
    check_quickstart_cost(cells_by_id(nb))
    text = stream_text(cells_by_id(nb)["accuracy"])
    accuracy = float(re.search(r"test accuracy ([\d.]+)", text).group(1))
    assert accuracy > CNN_ACCURACY_FLOOR, (
        f"CNN test accuracy {accuracy} is not over {CNN_ACCURACY_FLOOR}: {text}")


def assert_rejects_untrained(path, check, reason, capsys):
    """Runs the notebook at path with untrained models: check must fail on it, for reason (not
    for a missing output); prints what the bad model scored."""
    nb, _ = run_counting(path, nb=untrained(path))
    try:
        check(nb)
    except AssertionError as failure:
        first = str(failure).splitlines()[0]
        assert reason in first, first
        with capsys.disabled():
            print(f"\n{path.name} with untrained models, rejected: {first}")
        return
    raise AssertionError(f"{check.__name__} passed a deliberately bad model")


def untrained(path, learning_rate="0.000000001"):
    """The notebook at path with every %dml train cell's learning rate set so low that its
    model stays as initialised: the deliberately bad model the checks must reject."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.source.startswith("%%dml train"):
            cell.source = re.sub(r"(?m)^lr: .*$", f"lr: {learning_rate}", cell.source)
        elif cell.source.startswith("%dml train"):
            cell.source = re.sub(r"--lr \S+", f"--lr {learning_rate}", cell.source)
        else:
            continue
        assert learning_rate in cell.source, f"no learning rate to change in {cell.source}"
    return nb
