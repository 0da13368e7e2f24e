"""Checks pinned requirement files against a Python environment (run with its python).

    python requirements.py missing FILE   prints each requirement that is absent or at another
                                          version, one per line (for pip); why goes to stderr
    python requirements.py list FILE      prints every requirement of FILE, includes resolved

Every line must be `name==version` or `-r other-file` (relative to the file it is in): one
list of exact pins, checked by presence and version, never a range that an old install passes.
"""
import re
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!_-]+)$")


def read(path, seen=()):
    """[(name, version)] of a requirements file, following -r includes."""
    path = Path(path).resolve()
    if path in seen:
        sys.exit(f"requirements: {path} includes itself")
    pins = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r "):
            pins += read(path.parent / line[3:].strip(), (*seen, path))
            continue
        match = PIN.match(line)
        if not match:
            sys.exit(f"requirements: {path.name}:{number}: '{line}' is not pinned;"
                     f" write it as name==version")
        pins.append(match.groups())
    return pins


def missing(pins):
    """The pins this interpreter's environment does not satisfy, with why."""
    out = []
    for name, wanted in pins:
        try:
            found = version(name)
        except PackageNotFoundError:
            out.append((name, wanted, "not installed"))
            continue
        if found != wanted:
            out.append((name, wanted, f"{found} installed"))
    return out


def main(argv):
    if len(argv) != 3 or argv[1] not in ("missing", "list"):
        sys.exit("usage: requirements.py missing|list FILE")
    pins = read(argv[2])
    if argv[1] == "list":
        for name, wanted in pins:
            print(f"{name}=={wanted}")
        return
    for name, wanted, why in missing(pins):
        print(f"{name}=={wanted}")
        print(f"  {name}=={wanted}: {why}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
