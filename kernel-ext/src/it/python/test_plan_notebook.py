"""notebooks/04-plan-and-budget.ipynb on the dml kernel: %dml plan probes 1 and 2 workers on the
embedded cluster and shows its table and time-against-dollars plot, %dml train --plan BEST runs
the chosen row, --budget stops a job before its cost passes the limit, and %dml scale shows
the table of speedup and efficiency."""
import re

import pytest

from kernel_session import REPO_ROOT, run_counting
from notebook_checks import cells_by_id, stream_text

NOTEBOOK = REPO_ROOT / "notebooks" / "04-plan-and-budget.ipynb"


@pytest.mark.slow
def test_plan_notebook_plans_runs_the_best_row_and_stops_on_budget():
    nb, _ = run_counting(NOTEBOOK)
    cells = cells_by_id(nb)

    plan = cells["plan"].outputs
    text = next(o.data["text/plain"] for o in plan
                if o.get("data", {}).get("text/plain", "").startswith("Plan for"))
    assert text.startswith("Plan for transactions, 4 epochs. Best (*): the cheapest that"
                           " finishes within 10.0 min is row"), text
    assert "time not measured: the cluster has no g5.xlarge node" in text, text
    assert re.search(r"1 x m5\.xlarge spot", text), text  # the same node, bought spot
    chart = next(o for o in plan if "image/svg+xml" in o.get("data", {}))
    assert "Pareto front" in chart.data["image/svg+xml"]
    assert "Best: the cheapest" in stream_text(cells["plan-check"])

    run = cells["run-best"].outputs
    assert any(re.match(r"Running row \d of the plan: [12] workers? on 1 x m5\.xlarge"
                        r" on-demand, predicted \d+ s and \$0\.\d+\.",
                        o.get("data", {}).get("text/plain", "")) for o in run), run
    assert "finished" in run[-1].data["text/plain"], run[-1]
    assert re.search(r"predicted [\d.]+ s, took [\d.]+ s", stream_text(cells["run-check"]))

    budget = cells["budget"].outputs
    said = "\n".join(o.get("data", {}).get("text/plain", "") for o in budget).lower()
    assert "budget" in said and "stopped" in said, said
    assert "stopped by its budget" in stream_text(cells["budget-check"])

    scale = cells["scale"].outputs
    text = next(o.data["text/plain"] for o in scale
                if o.get("data", {}).get("text/plain", "").startswith("Scaling of"))
    assert "time to accuracy 0.990" in text and "efficiency" in text, text
    assert any("grey dashes: ideal" in o.get("data", {}).get("image/svg+xml", "")
               for o in scale), scale
    assert re.search(r"2 workers: [\d.]+x the throughput of 1", stream_text(cells["scale-check"]))
