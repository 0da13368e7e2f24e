"""`ray start ARGS` for dml's embedded head, less what a loopback head owned by one kernel never
serves: the Ray Client server (`ray://`, which `ray start` adds whenever grpc is installed), the
API server behind the dashboard (which `ray start` runs even with --include-dashboard=false),
and the dashboard agent's metrics, HTTP and reporter modules (the agent runs as in a minimal Ray
install). That is two Python processes fewer and a smaller agent, about 150 MB.

It also starts on a busy machine: the raylet gives the agent 15 s to write its port files, in
which a loaded 2-core machine cannot even import the agent, so they are written here first,
with the values a minimal agent writes (-1: no such service). Where this Ray lacks one of these
hooks, that part starts as `ray start` would start it.

    python embedded_head.py start --head --block ...
"""
import sys

try:
    from ray import _raylet
    from ray._private import utils
    from ray._private.node import Node
except ImportError:  # another Ray layout: everything starts as ray start starts it
    _raylet = utils = Node = None

# The port files of a minimal dashboard agent, which writes -1 to each
AGENT_PORTS = ["DASHBOARD_AGENT_LISTEN_PORT_NAME", "METRICS_AGENT_PORT_NAME",
               "METRICS_EXPORT_PORT_NAME"]


def _left_out(*args, **kwargs):
    return None


def _minimal_agent():
    return ImportError("dml's embedded head runs the dashboard agent as a minimal Ray would")


def _hook(owner, name, replacement):
    if owner is not None and callable(getattr(owner, name, None)):
        setattr(owner, name, replacement)
        return True
    return False


def _with_agent_ports(start_raylet):
    def start(self, *args, **kwargs):
        for name in AGENT_PORTS:
            _raylet.persist_port(self._session_dir, self._node_id, getattr(_raylet, name), -1)
        return start_raylet(self, *args, **kwargs)
    return start


_hook(Node, "start_ray_client_server", _left_out)
_hook(Node, "start_api_server", _left_out)
if (_hook(utils, "get_dashboard_dependency_error", _minimal_agent)
        and callable(getattr(_raylet, "persist_port", None))
        and all(hasattr(_raylet, name) for name in AGENT_PORTS)):
    _hook(Node, "start_raylet", _with_agent_ports(getattr(Node, "start_raylet", None)))

from ray.scripts.scripts import main  # noqa: E402 (after the hooks, which it reads)

sys.argv[0] = "ray"
sys.exit(main())
