"""Runs notebooks on the "dml" kernel with nbclient, each in its own folder as JupyterLab runs
it, and writes each executed notebook (with --html also an HTML copy) to OUT_DIR:

    python run_notebooks.py [--html] OUT_DIR NOTEBOOK...

A cell that fails stops the run (exit 1) after its notebook is written, so the error is there.
"""
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def run(source, out_dir, html):
    nb = nbformat.read(source, as_version=4)
    client = NotebookClient(nb, kernel_name="dml", timeout=900, startup_timeout=180,
                            resources={"metadata": {"path": str(source.parent)}})
    failure = None
    try:
        client.execute()
    except CellExecutionError as e:
        failure = e
    executed = out_dir / source.name
    nbformat.write(nb, executed)
    shown = f"executed notebook {executed}"
    if html:
        from nbconvert import HTMLExporter
        page = executed.with_suffix(".html")
        page.write_text(HTMLExporter().from_notebook_node(nb)[0], encoding="utf-8")
        shown += f"; HTML {page.resolve()}"
    if failure:
        print(f"{source}: a cell failed; {shown}\n{failure}", file=sys.stderr)
        sys.exit(1)
    print(f"ran {source}; {shown}")


def main(args):
    html = "--html" in args
    args = [a for a in args if a != "--html"]
    if len(args) < 2:
        sys.exit("usage: run_notebooks.py [--html] OUT_DIR NOTEBOOK...")
    out_dir = Path(args[0])
    out_dir.mkdir(parents=True, exist_ok=True)
    for source in args[1:]:
        run(Path(source), out_dir, html)


if __name__ == "__main__":
    main(sys.argv[1:])
