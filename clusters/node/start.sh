#!/usr/bin/env bash
# (Re)starts Ray on one node of a dml cluster; the cluster configurations' start commands run it.
#   start.sh head     Ray's head, with the launcher's autoscaler, then JupyterLab for notebooks
#   start.sh worker   a worker node that joins the head at $RAY_HEAD_IP (the launcher sets it)
# The launcher passes each node type's labels and resources to `ray start` in the environment
# (RAY_OVERRIDE_LABELS, RAY_OVERRIDE_RESOURCES); nothing here may drop them.
set -euo pipefail

RAY_PORT=6379
LAB_PORT=8888
STATE="$HOME/.dml"

log() { echo "dml node start: $*" >&2; }
fail() { log "$1"; [[ -z ${2:-} ]] || log "$2"; exit 1; }

[[ -f $STATE/node.env ]] || fail "$STATE/node.env is missing: this node was not set up." \
  "Run clusters/node/setup.sh on it (ray up does)."
# shellcheck disable=SC1091
source "$STATE/node.env"

# Notebooks on the head run the dml kernel, whose jobs then use this cluster (RAY_ADDRESS=auto:
# the cluster `ray start` last started here). JupyterLab listens on loopback only; reach it
# through the launcher's SSH tunnel (ray attach CONFIG -p 8888).
start_lab() {
  local pid_file="$STATE/lab.pid" log_file="$STATE/lab.log" old args
  old=$(cat "$pid_file" 2>/dev/null || true)
  if [[ -n $old ]] && grep -qa jupyter "/proc/$old/cmdline" 2>/dev/null; then
    kill "$old"
    while kill -0 "$old" 2>/dev/null; do sleep 0.2; done
  fi
  mkdir -p "$HOME/notebooks"
  cp -n "$HOME"/dml/notebooks/*.ipynb "$HOME/notebooks/" 2>/dev/null || true
  args=(lab --no-browser --ip=127.0.0.1 "--port=$LAB_PORT" --port-retries=0
        "--ServerApp.root_dir=$HOME/notebooks")
  if [[ $(id -u) -eq 0 ]]; then args+=(--allow-root); fi
  # Without what the launcher meant for this node's `ray start` (its labels, resources, ids):
  # a kernel's own embedded head must not pose as this node. setsid and no inherited
  # descriptors: the launcher's SSH command returns while Lab runs on.
  RAY_ADDRESS=auto setsid env -u RAY_OVERRIDE_LABELS -u RAY_OVERRIDE_RESOURCES \
    -u RAY_CLOUD_INSTANCE_ID -u RAY_NODE_TYPE_NAME -u RAY_enable_autoscaler_v2 \
    jupyter "${args[@]}" </dev/null >"$log_file" 2>&1 &
  local pid=$! info url=""
  echo "$pid" >"$pid_file"
  # The server writes this file once it listens (setsid and env exec, so $! is Lab's pid).
  info="$(jupyter --runtime-dir)/jpserver-$pid.json"
  local deadline=$((SECONDS + 120))
  while [[ ! -f $info ]] && ((SECONDS < deadline)) && kill -0 "$pid" 2>/dev/null; do
    sleep 0.5
  done
  [[ -f $info ]] && url=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(s["url"] + "lab?token=" + s["token"])' "$info")
  [[ -n $url ]] || fail "JupyterLab did not start; its log:" "$(tail -n 20 "$log_file")"
  echo "$url" >"$STATE/lab.url"
  log "JupyterLab: $url (on your machine: ray attach CONFIG -p $LAB_PORT, then open it)"
}

# Fixed ports for the agents next to each raylet: a firewall can name them, and the raylet does
# not wait for the agents to report ports of their own choosing. It still waits for the
# dashboard agent to start, 15 s at most in Ray 2.58, which a busy machine can miss: a start
# that fails is tried again.
PORTS=(--object-manager-port=8076 --dashboard-agent-grpc-port=8077 --runtime-env-agent-port=8078
       --metrics-export-port=8079 --dashboard-agent-listen-port=52365)
ATTEMPTS=5
ray_start() {
  local attempt
  for ((attempt = 1; attempt <= ATTEMPTS; attempt++)); do
    ray start "${PORTS[@]}" --disable-usage-stats "$@" && return 0
    log "ray start failed (attempt $attempt of $ATTEMPTS)"
    ray stop >/dev/null
  done
  fail "ray start failed $ATTEMPTS times; see /tmp/ray/session_latest/logs on this node."
}

role=${1:-}
# A node is a machine of its own: `ray stop` ends the Ray of an earlier start on it.
ray stop >/dev/null
ulimit -n 65536 2>/dev/null || log "open files stay limited to $(ulimit -n)"
case $role in
  head)
    ray_start --head --port=$RAY_PORT --autoscaling-config="$HOME/ray_bootstrap_config.yaml"
    start_lab
    ;;
  worker)
    [[ -n ${RAY_HEAD_IP:-} ]] || fail "RAY_HEAD_IP is not set." "The cluster launcher sets it."
    ray_start --address="$RAY_HEAD_IP:$RAY_PORT"
    ;;
  *) fail "usage: start.sh head|worker" ;;
esac
