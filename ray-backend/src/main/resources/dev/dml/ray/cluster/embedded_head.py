"""`ray start ARGS` for dml's embedded head, less what a loopback head owned by one kernel never
serves: the Ray Client server (`ray://`, which `ray start` adds whenever grpc is installed), the
API server behind the dashboard (which `ray start` runs even with --include-dashboard=false),
and the dashboard agent's metrics, HTTP and reporter modules (the agent runs as in a minimal Ray
install). That is two Python processes fewer and a smaller agent, about 150 MB, and a sooner
start: `ray start` waits for the API server, and the raylet gives the agent 15 s to start. Where
this Ray lacks one of these hooks, that part starts as `ray start` would start it.

    python embedded_head.py start --head --block ...
"""
import sys

try:
    from ray._private import utils
    from ray._private.node import Node
except ImportError:  # another Ray layout: everything starts as ray start starts it
    utils = Node = None


def _left_out(*args, **kwargs):
    return None


def _minimal_agent():
    return ImportError("dml's embedded head runs the dashboard agent as a minimal Ray would")


for owner, hook, replacement in [(Node, "start_ray_client_server", _left_out),
                                 (Node, "start_api_server", _left_out),
                                 (utils, "get_dashboard_dependency_error", _minimal_agent)]:
    if owner is not None and callable(getattr(owner, hook, None)):
        setattr(owner, hook, replacement)

from ray.scripts.scripts import main  # noqa: E402 (after the hooks, which it reads)

sys.argv[0] = "ray"
sys.exit(main())
