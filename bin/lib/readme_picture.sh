#!/usr/bin/env bash
# Refreshes docs/images/dashboard.png, the README's picture of the live dashboard: runs the
# browser test that trains the quickstart in JupyterLab (it screenshots the plot at the job's
# end into test-output/browser/dashboard.png) and copies that screenshot into docs/images.
# Needs what `bash bin/install --for-tests` installs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
source bin/lib/env.sh
export PATH="$DML_VENV/bin:$PATH"

PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$DML_PYTHON" -m pytest -q -p no:cacheprovider \
  "kernel-ext/src/it/python/test_browser.py::test_train_cell_updates_its_plot_in_place" </dev/null
mkdir -p docs/images
cp test-output/browser/dashboard.png docs/images/dashboard.png
echo "docs/images/dashboard.png refreshed from the quickstart's train cell"
