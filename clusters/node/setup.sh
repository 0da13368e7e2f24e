#!/usr/bin/env bash
# Sets up one node of a dml cluster; the cluster configurations' setup commands run it (ray up).
#   setup.sh          a JDK, dml (git clone, then bin/install) and its Python environment,
#                     with the Ray version that dml pins
#   setup.sh --gpu    the same, plus DJL's CUDA build of libtorch (see docs/gpu.md)
# Safe to run again: a second `ray up` updates the checkout and reinstalls what changed.
set -euo pipefail

# The git repository and revision that every node installs dml from: set DML_REPO to the URL
# of your copy of dml (https, or any URL that `git clone` takes on the nodes).
DML_REPO="${DML_REPO:-}"
DML_REF="${DML_REF:-main}"

# Where the checkout and the node's settings go.
DML_CHECKOUT="$HOME/dml"
NODE_ENV="$HOME/.dml/node.env"
# dml's Python environment; a checkout that has bin/lib/env.sh names it there instead.
DML_VENV="${DML_VENV:-$HOME/.local/share/dml/venv}"
# DJL 0.35.1 runs PyTorch 2.7.1, and its pytorch-jni jar holds a CUDA JNI library for cu128 only.
LIBTORCH_FLAVOR=cu128
LIBTORCH_ROOT=/opt/dml/libtorch

NODE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

log() { echo "dml node setup: $*" >&2; }
fail() { log "$1"; [[ -z ${2:-} ]] || log "$2"; exit 1; }

gpu=false
for arg in "$@"; do
  case $arg in
    --gpu) gpu=true ;;
    *) fail "unknown option '$arg'." "Use --gpu on GPU node types, or nothing." ;;
  esac
done

[[ -n $DML_REPO ]] || fail "DML_REPO is empty: the nodes do not know where to get dml from." \
  "Set DML_REPO at the top of clusters/node/setup.sh to your copy's git URL, then ray up again."

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo -n "$@"; fi
}

install_system_packages() {
  # git fetches dml, python3-venv makes its environment, rsync carries Ray's file mounts, and
  # the JDK runs the kernel, its drivers and every worker (`java` on PATH on every node).
  local pkg missing=()
  for pkg in git python3-venv rsync openjdk-17-jdk-headless; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  log "apt-get install ${missing[*]}"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" </dev/null
}

fetch_dml() {
  if [[ ! -d $DML_CHECKOUT/.git ]]; then
    log "git clone $DML_REPO"
    GIT_TERMINAL_PROMPT=0 git clone -q "$DML_REPO" "$DML_CHECKOUT"
  else
    git -C "$DML_CHECKOUT" remote set-url origin "$DML_REPO"
    GIT_TERMINAL_PROMPT=0 git -C "$DML_CHECKOUT" fetch -q --tags origin \
      '+refs/heads/*:refs/remotes/origin/*'
  fi
  # A branch name means the remote's branch; a tag or a commit is taken as it is.
  local commit
  commit=$(git -C "$DML_CHECKOUT" rev-parse -q --verify "origin/$DML_REF^{commit}" ||
           git -C "$DML_CHECKOUT" rev-parse -q --verify "$DML_REF^{commit}") ||
    fail "$DML_REPO has no branch, tag or commit '$DML_REF'." "Set DML_REF to one it has."
  git -C "$DML_CHECKOUT" checkout -q --detach "$commit"
  log "dml at $DML_REF ($commit)"
}

install_dml() {
  cd "$DML_CHECKOUT"
  if [[ -f bin/lib/env.sh ]]; then
    # shellcheck disable=SC1091
    source bin/lib/env.sh
  fi
  [[ -x $DML_VENV/bin/python ]] || python3 -m venv "$DML_VENV"
  # bin/install pip-installs the pinned packages, Ray among them, for the python3 on PATH.
  PATH="$DML_VENV/bin:$PATH" bash bin/install
  local ray_version
  ray_version=$("$DML_VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("ray"))') ||
    fail "bin/install left no Ray in $DML_VENV."
  log "Ray $ray_version in $DML_VENV"
}

# Prints the node's record of it, three export lines.
install_libtorch() {
  local version dir
  version=$(sed -n 's:.*<pytorch.native.version>\(.*\)</pytorch.native.version>.*:\1:p' \
    "$DML_CHECKOUT/pom.xml")
  [[ -n $version ]] || fail "no <pytorch.native.version> in $DML_CHECKOUT/pom.xml."
  dir="$LIBTORCH_ROOT/$version-$LIBTORCH_FLAVOR"
  as_root mkdir -p "$LIBTORCH_ROOT"
  as_root chown "$(id -u):$(id -g)" "$LIBTORCH_ROOT"
  python3 "$NODE_DIR/libtorch.py" --version "$version" --flavor "$LIBTORCH_FLAVOR" --dest "$dir"
  # What a job's runtime environment sets for DJL, as PYTORCH_LIBRARY_PATH, PYTORCH_VERSION and
  # PYTORCH_FLAVOR, on the workers it places here. Not DJL's own names: a CPU job stays on the
  # CPU build that the jars carry.
  printf 'export DML_PYTORCH_LIBRARY_PATH=%q\nexport DML_PYTORCH_VERSION=%q\n' "$dir" "$version"
  printf 'export DML_PYTORCH_FLAVOR=%q\n' "$LIBTORCH_FLAVOR"
}

write_node_env() {
  local gpu_env=""
  if $gpu; then gpu_env=$(install_libtorch); fi
  mkdir -p "$(dirname "$NODE_ENV")"
  {
    echo "# Written by dml's clusters/node/setup.sh; start.sh and login shells read it."
    printf 'export DML_VENV=%q\n' "$DML_VENV"
    # shellcheck disable=SC2016
    printf 'export PATH=%q:"$PATH"\n' "$DML_VENV/bin"
    [[ -z $gpu_env ]] || echo "$gpu_env"
  } >"$NODE_ENV.tmp"
  mv "$NODE_ENV.tmp" "$NODE_ENV"
  # Ray's commands run in interactive login shells: ~/.profile reads ~/.bashrc, which reads this.
  local hook="[ -f $NODE_ENV ] && . $NODE_ENV"
  touch "$HOME/.bashrc"
  grep -qxF "$hook" "$HOME/.bashrc" || echo "$hook" >>"$HOME/.bashrc"
}

install_system_packages
fetch_dml
install_dml
write_node_env
log "done: $(. "$NODE_ENV" && java -version 2>&1 | head -1); ray and jupyter from $DML_VENV"
