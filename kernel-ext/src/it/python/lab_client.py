"""Runs cells on a kernel that a running JupyterLab starts, as its notebook page does: the REST
API starts the kernel, the kernel's websocket carries execute requests and their outputs.

    python3 lab_client.py URL_WITH_TOKEN KERNEL_NAME TIMEOUT_S < cells.json

reads a JSON list of cell sources and prints a JSON list of each cell's outputs, as
{"type": ..., "text": ...}. Standard library and tornado (a JupyterLab dependency) only: it
runs with the Python that runs JupyterLab.
"""
import asyncio
import json
import sys
import uuid
from urllib.parse import urlsplit

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect


def output_text(msg):
    kind, content = msg["msg_type"], msg["content"]
    if kind == "stream":
        return content["text"]
    if kind in ("execute_result", "display_data", "update_display_data"):
        data = content.get("data", {})
        return data.get("text/plain") or data.get("text/html") or ""
    if kind == "error":
        return f"{content['ename']}: {content['evalue']}"
    return None


async def run(url, kernel_name, cells, timeout):
    parts = urlsplit(url)
    token = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p)["token"]
    base = f"{parts.scheme}://{parts.netloc}"
    headers = {"Authorization": f"token {token}"}
    http = AsyncHTTPClient()
    response = await http.fetch(HTTPRequest(
        f"{base}/api/kernels", method="POST", headers=headers,
        body=json.dumps({"name": kernel_name}), request_timeout=timeout))
    kernel_id = json.loads(response.body)["id"]
    results = []
    try:
        ws = await websocket_connect(HTTPRequest(
            f"ws://{parts.netloc}/api/kernels/{kernel_id}/channels", headers=headers,
            request_timeout=timeout))
        session = uuid.uuid4().hex
        for source in cells:
            msg_id = uuid.uuid4().hex
            ws.write_message(json.dumps({
                "header": {"msg_id": msg_id, "msg_type": "execute_request", "session": session,
                           "username": "test", "version": "5.3"},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": source, "silent": False, "store_history": True,
                            "user_expressions": {}, "allow_stdin": False}}))
            outputs = []
            while True:
                raw = await asyncio.wait_for(ws.read_message(), timeout)
                if raw is None:
                    raise RuntimeError("the kernel's websocket closed")
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    break
                text = output_text(msg)
                if text is not None:
                    outputs.append({"type": msg["msg_type"], "text": text})
            results.append(outputs)
        ws.close()
    finally:
        await http.fetch(HTTPRequest(f"{base}/api/kernels/{kernel_id}", method="DELETE",
                                     headers=headers, request_timeout=timeout))
    return results


if __name__ == "__main__":
    lab_url, name, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    print(json.dumps(asyncio.run(run(lab_url, name, json.load(sys.stdin), seconds))))
