"""What any local process can send to a kernel's ports: a raw ZeroMQ client sends badly signed,
unsigned and malformed messages to the shell and control channels; each is dropped, and the
kernel goes on answering real requests on both (jjava-jupyter alone would let the first one end
its shell thread, leaving a kernel that looks alive but answers nothing). A frame over the
kernel's cap ends the sender's connection before it is allocated (issue 26 row 5)."""
import hashlib
import hmac
import json
import uuid

import zmq
from zmq.utils.monitor import recv_monitor_message

from kernel_session import execute, plain_result, wait_shell_reply


def frames(key, msg_type, content, sign=True, header_text=None):
    """The frames of a Jupyter message, signed with key unless sign is False."""
    header = header_text if header_text is not None else json.dumps({
        "msg_id": uuid.uuid4().hex, "username": "intruder", "session": uuid.uuid4().hex,
        "date": "2026-11-23T00:00:00.000000Z", "msg_type": msg_type, "version": "5.3"})
    parts = [p.encode() for p in (header, "{}", "{}", json.dumps(content))]
    signature = b""
    if sign:
        mac = hmac.new(key, digestmod=hashlib.sha256)
        for p in parts:
            mac.update(p)
        signature = mac.hexdigest().encode()
    return [b"<IDS|MSG>", signature] + parts


def send_hostile(port, key):
    """Sends the bad messages through a raw DEALER socket, as an attacker could."""
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 1000)
    sock.connect(f"tcp://127.0.0.1:{port}")
    request = {"code": "System.exit(3)", "silent": False}
    sock.send_multipart(frames(b"not-the-key", "execute_request", request))     # bad signature
    sock.send_multipart(frames(key, "execute_request", request, sign=False))    # unsigned
    sock.send_multipart(frames(key, "execute_request", request,
                               header_text="{this is not json"))                  # malformed
    sock.send_multipart([b"one lonely frame"])                                    # no message
    sock.send_multipart(frames(key, "no_such_request", {}))                       # unknown type
    sock.close()


def test_bad_messages_are_dropped_and_the_kernel_keeps_serving(kernel):
    km, kc = kernel
    key = km.session.key
    send_hostile(km.shell_port, key)
    send_hostile(km.control_port, key)
    content, outputs = execute(kc, "6 * 7")
    assert content["status"] == "ok", content
    assert plain_result(outputs) == "42"
    # the control channel answers too (what interrupts and shutdowns travel on)
    msg = kc.session.msg("kernel_info_request", {})
    kc.control_channel.send(msg)
    reply = kc.get_control_msg(timeout=60)
    assert reply["parent_header"]["msg_id"] == msg["header"]["msg_id"], reply
    assert reply["content"]["status"] == "ok", reply["content"]
    assert km.is_alive(), "a hostile message ended the kernel"


# SignedShellChannel.MAX_FRAME_BYTES: frames above it end their connection
MAX_FRAME_BYTES = 64 << 20


def monitor_event(monitor, wanted, seconds):
    """Waits for a socket monitor's event; False when it did not come in time."""
    if not monitor.poll(seconds * 1000):
        return False
    while True:
        if recv_monitor_message(monitor)["event"] == wanted:
            return True
        if not monitor.poll(seconds * 1000):
            return False


def send_oversized(port):
    """A real ZeroMQ client sends one frame over the cap; True when the kernel hung up on it."""
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RECONNECT_IVL, -1)
    monitor = sock.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
    try:
        sock.connect(f"tcp://127.0.0.1:{port}")
        assert monitor_event(monitor, zmq.EVENT_CONNECTED, 30), "could not connect"
        sock.send_multipart([b"<IDS|MSG>", b"", b"x" * (MAX_FRAME_BYTES + 1)])
        return monitor_event(monitor, zmq.EVENT_DISCONNECTED, 60)
    finally:
        sock.disable_monitor()
        monitor.close()
        sock.close()


def test_row5_an_oversized_frame_ends_its_connection_not_the_kernel(kernel):
    """Issue 26 row 5: without a cap, ZeroMQ allocates whatever a frame announces before the
    signature is checked; with it, the kernel drops the sender and answers the next request."""
    km, kc = kernel
    for port in (km.shell_port, km.control_port):
        assert send_oversized(port), f"the kernel read a {MAX_FRAME_BYTES + 1}-byte frame on" \
                                     f" port {port} instead of refusing it"
    content, outputs = execute(kc, "6 * 7")
    assert content["status"] == "ok", content
    assert plain_result(outputs) == "42"
    assert km.is_alive(), "an oversized frame ended the kernel"
