# Sourced by bin/install, bin/test, bin/demo and bin/lab: where dml's Python environment is.
#
# DML_VENV is the Python environment (a venv, or on Binder the image's own environment) that
# holds JupyterLab, Ray (the `ray` command and its ray_dist.jar) and the "dml" kernelspec.
# Default: ~/.local/share/dml/venv, beside the kernel's logs, outside the checkout, so that
# neither `git clean` nor `mvn clean` breaks an installed kernel.
DML_VENV="${DML_VENV:-${XDG_DATA_HOME:-$HOME/.local/share}/dml/venv}"
# An absolute path: the kernelspec's launcher names it.
case $DML_VENV in /*) ;; *) DML_VENV="$PWD/$DML_VENV" ;; esac
export DML_VENV
DML_PYTHON="$DML_VENV/bin/python"
