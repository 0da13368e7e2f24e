"""What any local process can send to a kernel's ports: a raw ZeroMQ client sends badly signed,
unsigned and malformed messages to the shell and control channels; each is dropped, and the
kernel goes on answering real requests on both (jjava-jupyter alone would let the first one end
its shell thread, leaving a kernel that looks alive but answers nothing)."""
import hashlib
import hmac
import json
import uuid

import zmq

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
