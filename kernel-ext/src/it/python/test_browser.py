"""JupyterLab 4 in headless Debian Chromium: a person opens a notebook on the dml kernel, runs
a Java cell and reads its output. Leaves a screenshot in test-output/browser/.

Never downloads a browser: Playwright drives the chromium that bin/install takes from apt.
"""
import base64
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from kernel_session import (KERNEL_NAME, REPO_ROOT, STARTUP_TIMEOUT, processes_mentioning,
                            require_kernelspec)

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
from playwright.sync_api import expect, sync_playwright  # noqa: E402

SHOTS = REPO_ROOT / "test-output" / "browser"
SCREENSHOT = SHOTS / "jupyterlab-java-cell.png"
NOTEBOOK = "browser-check.ipynb"
QUICKSTART = REPO_ROOT / "notebooks" / "01-quickstart.ipynb"
# The quickstart's data and train cells, as its own notebook (the rest needs no browser).
TRAIN_NOTEBOOK = "quickstart-train.ipynb"
JAVA_CELL = 'System.out.println("hello from dml " + (6*7));'
EXPECTED = "hello from dml 42"
# Without the background-networking flags Chromium keeps dialling hosts this machine cannot
# reach; --no-sandbox because the tests run as root.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
UI_TIMEOUT_MS = 180_000


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(base, token, path, method="GET"):
    request = urllib.request.Request(f"{base}{path}", method=method,
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
        return json.loads(body) if body else None


def write_lab_settings(config_dir):
    # No "would you like news?" toast and no update check: nothing to dismiss, no network.
    path = config_dir / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    path.mkdir(parents=True)
    (path / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on a free loopback port, serving a folder with one dml notebook.
    Yields (base url, token). Stops the server and every kernel it started, even on failure."""
    require_kernelspec()
    root, config, runtime = (tmp_path / name for name in ("root", "config", "runtime"))
    for folder in (root, config, runtime):
        folder.mkdir()
    write_lab_settings(config)
    nb = new_notebook(cells=[new_code_cell(JAVA_CELL)])
    nb.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": "Java (dml)",
                                 "language": "java"}
    nbformat.write(nb, root / NOTEBOOK)
    quickstart = nbformat.read(QUICKSTART, as_version=4)
    quickstart.cells = [c for c in quickstart.cells if c.get("id") in ("load", "train")]
    nbformat.write(quickstart, root / TRAIN_NOTEBOOK)

    port, token = free_port(), secrets.token_hex(16)
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config), JUPYTER_RUNTIME_DIR=str(runtime))
    log_path = tmp_path / "jupyter-lab.log"
    command = [sys.executable, "-m", "jupyterlab", "--no-browser",
               "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
               "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={root}", "--LabApp.news_url="]
    if os.geteuid() == 0:
        command.append("--allow-root")  # CI and the dev machines run as root
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
            start_new_session=True)
    try:
        wait_for_server(server, base, token, log_path)
        yield base, token
    finally:
        stop_server(server, base, token)
        leaked = processes_mentioning(str(runtime))
        for pid in leaked:
            os.kill(pid, signal.SIGKILL)
        print(f"JupyterLab log: {log_path}")
        assert not leaked, f"kernel processes left running after the server stopped: {leaked}"


def wait_for_server(server, base, token, log_path):
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"jupyter lab exited with {server.returncode}:\n{log_path.read_text()}")
        try:
            api(base, token, "/api/status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    pytest.fail(f"jupyter lab did not answer within {STARTUP_TIMEOUT} s:\n{log_path.read_text()}")


def stop_server(server, base, token):
    """Shuts kernels down through the REST API, then the server; kills only as a last resort."""
    if server.poll() is None:
        try:
            for kernel in api(base, token, "/api/kernels"):
                api(base, token, f"/api/kernels/{kernel['id']}", method="DELETE")
            api(base, token, "/api/shutdown", method="POST")
        except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
            pass
    for stop in (None, signal.SIGTERM, signal.SIGKILL):
        if stop is not None and server.poll() is None:
            os.killpg(server.pid, stop)
        try:
            server.wait(timeout=30)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def notebook_page(base, token, notebook, height=800):
    """A headless Chromium page with the notebook open in JupyterLab."""
    chromium = shutil.which("chromium")
    assert chromium, "no chromium on PATH: run 'bash bin/install'"
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS,
                                    headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": height})
            page.goto(f"{base}/lab/tree/{notebook}?token={token}")
            wait_for_kernel(page)
            yield page
        finally:
            browser.close()


def test_java_cell_runs_in_jupyterlab(lab):
    base, token = lab
    with notebook_page(base, token, NOTEBOOK) as page:
        try:
            run_java_cell(page)
        finally:
            page.screenshot(path=str(SCREENSHOT))


def test_train_cell_updates_its_plot_in_place(lab):
    """The quickstart's %%dml train cell in JupyterLab: one output area holds the live plot,
    and its image changes while the job runs (screenshots mid-run and at the end)."""
    base, token = lab
    with notebook_page(base, token, TRAIN_NOTEBOOK, height=1400) as page:
        try:
            check_live_plot(page)
        except BaseException:
            page.screenshot(path=str(SHOTS / "quickstart-train-failure.png"))
            raise


def check_live_plot(page):
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    cells.nth(0).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")  # the data cell
    page.keyboard.press("Shift+Enter")  # the train cell
    train = cells.nth(1)
    # JupyterLab prefers a frame's HTML (charts as SVG images in a grid) to its single SVG
    plot = train.locator(".jp-OutputArea-output .dml-live")
    expect(plot).to_have_count(1, timeout=UI_TIMEOUT_MS)
    mid = wait_for_progress(plot)
    train.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "quickstart-train-mid-run.png"))
    expect(train.locator(".jp-InputPrompt")).to_have_text("[2]:", timeout=UI_TIMEOUT_MS)
    expect(train.locator(".jp-OutputArea-output").last).to_contain_text(
        "finished", timeout=UI_TIMEOUT_MS)
    train.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "quickstart-train-end.png"))
    # the README's picture of the dashboard: bin/lib/readme_picture.sh copies it to docs/images
    plot.screenshot(path=str(SHOTS / "dashboard.png"))
    assert plot.count() == 1, "the live plot must stay one output, redrawn in place"
    end = plot.inner_html()
    assert end != mid, "the plot did not change between mid-run and the end"
    assert "468/468" in plot.inner_text(), "the last frame must show the last step"
    wide = len({round(c["x"]) for c in rendered_charts(plot)})
    check_fits_a_narrow_pane(page, train, plot, wide)


def rendered_charts(plot):
    """Each chart image of the frame: where it is drawn, how wide, and its SVG."""
    return plot.locator("img").evaluate_all(
        "imgs => imgs.map(i => { const r = i.getBoundingClientRect();"
        " return {x: r.x, width: r.width, natural: i.naturalWidth, alt: i.alt, src: i.src}; })")


def check_fits_a_narrow_pane(page, cell, plot, wide_columns):
    """In a pane narrower than the frame's 900 px, the charts reflow into fewer columns
    instead of shrinking, so that every text of the frame reads at 10 px or more."""
    page.set_viewport_size({"width": 720, "height": 1400})
    cell.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    area = cell.locator(".jp-OutputArea-output").first.bounding_box()
    box = plot.bounding_box()
    page.screenshot(path=str(SHOTS / "quickstart-train-narrow.png"))
    assert box["width"] < 900, f"the frame kept its fixed width: {box}"
    assert box["x"] + box["width"] <= area["x"] + area["width"] + 1, f"cut off: {box} in {area}"
    charts = rendered_charts(plot)
    assert len(charts) == 6, [c["alt"] for c in charts]
    columns = len({round(c["x"]) for c in charts})
    assert columns < 3 and columns <= wide_columns, f"{columns} columns, {wide_columns} wide"
    for chart in charts:
        scale = chart["width"] / chart["natural"]
        assert scale >= 1, f"{chart['alt']} shrank to {scale:.2f}x instead of reflowing"
        sizes = [float(px) for px in re.findall(r"font-size: ?([\d.]+)px", svg_text(chart["src"]))]
        assert sizes and min(sizes) * scale >= 10, (
            f"{chart['alt']}: {min(sizes)} px text drawn at {scale:.2f}x")
    header = plot.evaluate(
        "el => Array.from(el.querySelectorAll('b, span, div'))"
        ".filter(e => e.childElementCount === 0 && e.textContent.trim())"
        ".map(e => [e.textContent, parseFloat(getComputedStyle(e).fontSize)])")
    assert header and all(px >= 10 for _, px in header), header


def wait_for_progress(plot):
    """Waits for a frame drawn after some steps (not the empty first one); returns its HTML."""
    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        match = re.search(r"step (\d+)/468", plot.inner_text())
        if match and 0 < int(match.group(1)) < 468:
            return plot.inner_html()
        time.sleep(0.2)
    pytest.fail("the live plot showed no progress mid-run")


def svg_text(src):
    """The SVG behind an <img src="data:image/svg+xml;..."> as text."""
    header, _, data = src.partition(",")
    return (base64.b64decode(data).decode() if header.endswith(";base64")
            else urllib.parse.unquote(data))


def wait_for_kernel(page):
    # The toolbar names the notebook's kernel, and the kernel reports idle once it started.
    expect(page.locator(".jp-NotebookPanel-toolbar .jp-KernelName")).to_have_text(
        "Java (dml)", timeout=UI_TIMEOUT_MS)
    expect(page.locator(".jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator")
           ).to_have_attribute("data-status", "idle", timeout=UI_TIMEOUT_MS)


def run_java_cell(page):
    editor = page.locator(".jp-Notebook .jp-CodeCell .cm-content").first
    expect(editor).to_have_text(JAVA_CELL, timeout=UI_TIMEOUT_MS)
    editor.click()
    page.keyboard.press("Shift+Enter")

    output = page.locator(".jp-Notebook .jp-CodeCell .jp-OutputArea-output").first
    expect(output).to_contain_text(EXPECTED, timeout=UI_TIMEOUT_MS)
    expect(page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt").first).to_have_text(
        "[1]:", timeout=UI_TIMEOUT_MS)
