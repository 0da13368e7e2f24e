"""Puts DJL's build of libtorch for one CUDA flavour into a folder, as DJL's own download would.

DJL publishes each PyTorch version at https://publish.djl.ai/pytorch/<version>/: a files.txt
that lists <flavor>/<classifier>/native/lib/<name>.gz, and those gzipped libraries. DJL's
engine (ai.djl.pytorch.jni.LibUtils) downloads them when it may; dml's workers run offline
(-Dai.djl.offline=true), so a GPU node gets them here, once, at setup. DJL then finds them
through PYTORCH_LIBRARY_PATH, PYTORCH_VERSION and PYTORCH_FLAVOR.

    python3 libtorch.py --version 2.7.1 --flavor cu128 --dest /opt/dml/libtorch/2.7.1-cu128
"""
import argparse
import gzip
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

DJL_PUBLISH = "https://publish.djl.ai/pytorch"


def log(message):
    print(f"dml libtorch: {message}", file=sys.stderr)


def fetch(version, flavor, classifier, dest, base_url=DJL_PUBLISH, timeout=60):
    """Downloads the libraries into dest (made whole, or not at all); returns their names."""
    if (dest / "libtorch.so").is_file():
        log(f"{dest} already holds libtorch")
        return sorted(p.name for p in dest.iterdir())
    root = f"{base_url}/{version}"
    with urllib.request.urlopen(f"{root}/files.txt", timeout=timeout) as response:
        listing = response.read().decode("utf-8").split()
    prefix = f"{flavor}/{classifier}/native/lib/"
    entries = [line for line in listing if line.startswith(prefix) and line.endswith(".gz")]
    if not entries:
        flavors = sorted({line.split("/")[0] for line in listing if f"/{classifier}/" in line})
        raise SystemExit(f"dml libtorch: DJL publishes no {flavor} build of PyTorch {version}"
                         f" for {classifier} (it has: {', '.join(flavors) or 'none'}).")
    dest.parent.mkdir(parents=True, exist_ok=True)
    names = []
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        for entry in entries:
            # DJL's own rule: the name after the last slash, less ".gz", URL-decoded.
            name = urllib.parse.unquote(entry.rsplit("/", 1)[1][:-3])
            log(f"{root}/{entry}")
            with urllib.request.urlopen(f"{root}/{entry}", timeout=timeout) as response, \
                    gzip.GzipFile(fileobj=response) as unzipped, \
                    open(tmp / name, "wb") as out:
                shutil.copyfileobj(unzipped, out, 1 << 20)
            names.append(name)
        if "libtorch.so" not in names:
            raise SystemExit(f"dml libtorch: {root}/files.txt lists no libtorch.so.gz"
                             f" under {prefix}.")
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log(f"{len(names)} libraries in {dest}")
    return sorted(names)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True, help="PyTorch version, e.g. 2.7.1")
    parser.add_argument("--flavor", required=True, help="DJL's CUDA flavour, e.g. cu128")
    parser.add_argument("--classifier", default="linux-x86_64")
    parser.add_argument("--dest", required=True, type=Path)
    parser.add_argument("--base-url", default=DJL_PUBLISH)
    args = parser.parse_args(argv)
    fetch(args.version, args.flavor, args.classifier, args.dest, args.base_url)


if __name__ == "__main__":
    main()
