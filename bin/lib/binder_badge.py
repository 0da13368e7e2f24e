"""Writes the repository's own GitHub address into the README's Binder badge.

mybinder.org builds from a public GitHub repository, so the badge can only name one once the
copy has such a remote. Usage: python3 bin/lib/binder_badge.py [--remote NAME] [--repo DIR]
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

BADGE = re.compile(r"(https://mybinder\.org/v2/gh/)[\w.-]+/[\w.-]+(/HEAD\?urlpath=)")
# The README's note on the placeholder, which an address makes untrue.
NOTE = re.compile(r"\n\(`OWNER/REPO` because this copy has no public remote:[^)]*\)", re.S)
GITHUB = re.compile(r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)"
                    r"([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


def github_repo(repo: Path, remote: str) -> str:
    """OWNER/REPO of the remote, or exits with one line on what is missing and what to do."""
    url = subprocess.run(["git", "-C", str(repo), "remote", "get-url", remote],
                         capture_output=True, text=True).stdout.strip()
    match = GITHUB.match(url)
    if not match:
        found = f"'{url}'" if url else "no such remote"
        sys.exit(f"binder_badge: remote '{remote}' is not a GitHub repository ({found}).\n"
                 f"Push this copy to GitHub and add it as a remote: "
                 f"git remote add {remote} https://github.com/OWNER/REPO")
    return f"{match.group(1)}/{match.group(2)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", default="origin")
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[2])
    args = parser.parse_args()
    name = github_repo(args.repo, args.remote)
    readme = args.repo / "README.md"
    text = readme.read_text()
    if not BADGE.search(text):
        sys.exit("binder_badge: README.md has no Binder badge to fill in.\n"
                 "Restore the badge line from git (git checkout README.md) and run this again.")
    readme.write_text(NOTE.sub("", BADGE.sub(rf"\g<1>{name}\g<2>", text)))
    print(f"README.md: the Binder badge opens {name}")


if __name__ == "__main__":
    main()
