"""Runs notebooks on the dml kernel with nbclient, as `jupyter nbconvert --execute` would,
and checks what each cell left in the notebook."""
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from kernel_session import (CELL_TIMEOUT, KERNEL_NAME, REPO_ROOT, STARTUP_TIMEOUT,
                            error_text, require_kernelspec)

HELLO = REPO_ROOT / "notebooks" / "00-hello.ipynb"
# Lines of a Java stack trace ("\tat pkg.Class.method(File.java:12)").
STACK_FRAME = re.compile(r"^\s*at [\w$.]+\(", re.MULTILINE)


def run_notebook(nb, workdir, allow_errors=False):
    """Executes nb in place; returns its cells by id."""
    require_kernelspec()
    NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=CELL_TIMEOUT,
                   startup_timeout=STARTUP_TIMEOUT, allow_errors=allow_errors,
                   resources={"metadata": {"path": str(workdir)}}).execute()
    return {cell.id: cell for cell in nb.cells}


def outputs_of(cell, output_type):
    return [out for out in cell.outputs if out.output_type == output_type]


def shown_text(cell):
    """Everything a person would read in the cell's output area, as one string."""
    parts = []
    for out in cell.outputs:
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            for mime in ("text/plain", "text/markdown", "text/html"):
                parts.append(str(out.data.get(mime, "")))
        elif out.output_type == "error":
            parts.append(error_text(out))
    return "\n".join(parts)


def plain_result(cell):
    results = outputs_of(cell, "execute_result")
    assert len(results) == 1, f"expected one execute_result, got {cell.outputs}"
    return results[0].data["text/plain"]


def assert_no_errors(cell):
    assert not outputs_of(cell, "error"), f"cell {cell.id} failed: {cell.outputs}"


def project_version():
    pom = (REPO_ROOT / "pom.xml").read_text()
    match = re.search(r"<artifactId>dml-parent</artifactId>\s*<version>([^<]+)</version>", pom)
    return match.group(1).removesuffix("-SNAPSHOT")


@pytest.fixture(scope="module")
def hello(tmp_path_factory):
    nb = nbformat.read(HELLO, as_version=4)
    return run_notebook(nb, tmp_path_factory.mktemp("hello"))


def test_println_goes_to_stdout(hello):
    cell = hello["println"]
    assert_no_errors(cell)
    stdout = "".join(out.text for out in outputs_of(cell, "stream") if out.name == "stdout")
    assert "hello from dml" in stdout


def test_last_expression_is_the_cell_result(hello):
    assert plain_result(hello["expression"]) == "42"


def test_record_declared_in_one_cell_is_used_in_the_next(hello):
    assert_no_errors(hello["record-declare"])
    assert plain_result(hello["record-use"]) == "5.0"


def test_dml_help_lists_its_subcommands(hello):
    cell = hello["dml-help"]
    assert_no_errors(cell)
    text = shown_text(cell)
    assert re.search(r"\bhelp\b", text) and re.search(r"\bversion\b", text), text


def test_dml_version_shows_the_project_version(hello):
    cell = hello["dml-version"]
    assert_no_errors(cell)
    assert project_version() in shown_text(cell)


def test_display_sends_html(hello):
    cell = hello["display-html"]
    assert_no_errors(cell)
    html = [out.data["text/html"] for out in outputs_of(cell, "display_data")
            if "text/html" in out.data]
    assert html and "<b>dml</b>" in html[0], cell.outputs


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """A notebook whose cells fail in the ways a user's cells do, then one that works."""
    def cell(cell_id, source):
        c = new_code_cell(source)
        c.id = cell_id
        return c

    nb = new_notebook(cells=[
        cell("unknown-subcommand", "%dml trian"),
        cell("compile-error", 'int n = "text";'),
        cell("runtime-error",
             'void explode() { throw new IllegalStateException("boom"); }\nexplode();'),
        cell("still-alive", "1 + 2"),
    ])
    nb.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": "Java (dml)",
                                 "language": "java"}
    return run_notebook(nb, tmp_path_factory.mktemp("failing"), allow_errors=True)


def the_error(cell):
    errors = outputs_of(cell, "error")
    assert len(errors) == 1, f"expected one error output, got {cell.outputs}"
    return error_text(errors[0])


def test_unknown_subcommand_is_one_short_error(failing):
    text = the_error(failing["unknown-subcommand"])
    assert "trian" in text
    assert not STACK_FRAME.search(text), f"stack frames in a usage error:\n{text}"


def test_compile_error_marks_the_offending_code(failing):
    text = the_error(failing["compile-error"])
    assert "incompatible types" in text, text
    # The offending expression is quoted and marked (a caret line or terminal colours).
    assert '"text"' in text and ("^" in text or "\x1b[" in text), text


def test_runtime_exception_shows_a_short_trace(failing):
    text = the_error(failing["runtime-error"])
    assert "IllegalStateException" in text and "boom" in text, text
    internal = [line for line in text.splitlines()
                if STACK_FRAME.search(line) and not re.search(r"\bexplode\b", line)]
    assert not internal, f"kernel/JShell frames in the trace:\n{text}"
    # Line numbers in the trace are the cell's own (it has two lines), not JShell's wrapper's.
    lines = [int(n) for n in re.findall(r"\bline (\d+)", text)]
    assert all(1 <= n <= 2 for n in lines), f"line numbers outside the 2-line cell:\n{text}"
    assert len(text.splitlines()) <= 12, f"trace too long:\n{text}"


def test_kernel_goes_on_after_errors(failing):
    assert plain_result(failing["still-alive"]) == "3"
