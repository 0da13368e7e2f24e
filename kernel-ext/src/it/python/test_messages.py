"""Messages of the dml kernel at the protocol level: display_data, update_display_data in
place, SVG and PNG, and the execute_reply of a failed cell."""
import base64
import re
import time

from kernel_session import CELL_TIMEOUT, collect_outputs, execute, ok, wait_shell_reply

SVG_RED = ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'>"
           "<rect width='10' height='10' fill='red'/></svg>")
SVG_BLUE = SVG_RED.replace("red", "blue")


def messages(outputs, msg_type):
    return [msg for msg in outputs if msg["msg_type"] == msg_type]


def test_update_display_replaces_the_svg_in_place(shared_kernel):
    _, kc = shared_kernel
    code = (f'String id = display("{SVG_RED}", "image/svg+xml");\n'
            f'updateDisplay(id, "{SVG_BLUE}", "image/svg+xml");')
    content, outputs = execute(kc, code)
    assert content["status"] == "ok", content

    shown = messages(outputs, "display_data")
    updated = messages(outputs, "update_display_data")
    assert len(shown) == 1 and len(updated) == 1, outputs
    assert "fill='red'" in shown[0]["content"]["data"]["image/svg+xml"]
    assert "fill='blue'" in updated[0]["content"]["data"]["image/svg+xml"]
    display_id = shown[0]["content"]["transient"]["display_id"]
    assert display_id, shown[0]["content"]
    assert updated[0]["content"]["transient"]["display_id"] == display_id


def test_display_id_is_returned_to_the_cell(shared_kernel):
    _, kc = shared_kernel
    content, outputs = execute(kc, 'String shownId = display("<i>x</i>", "text/html");')
    assert content["status"] == "ok", content
    (shown,) = messages(outputs, "display_data")
    content, outputs = execute(kc, "shownId")
    (result,) = messages(outputs, "execute_result")
    assert shown["content"]["transient"]["display_id"] in result["content"]["data"]["text/plain"]


def test_buffered_image_renders_as_png(shared_kernel):
    _, kc = shared_kernel
    code = ("var img = new java.awt.image.BufferedImage(8, 8,"
            " java.awt.image.BufferedImage.TYPE_INT_RGB);\n"
            "img.setRGB(3, 3, 0xff0000);\n"
            "display(img);")
    outputs = ok(kc, code)
    images = [msg["content"]["data"]["image/png"] for msg in messages(outputs, "display_data")
              if "image/png" in msg["content"]["data"]]
    assert len(images) == 1, outputs
    assert base64.b64decode(images[0]).startswith(b"\x89PNG\r\n\x1a\n")


def test_error_reply_carries_the_short_error_not_the_kernel_stack(shared_kernel):
    """The execute_reply of a failed cell names the same error as the error output, and
    kernel and JShell internals stay out of it (they belong behind %dml trace)."""
    _, kc = shared_kernel
    content, outputs = execute(kc, 'throw new IllegalStateException("boom");')
    assert content["status"] == "error", content
    (error,) = messages(outputs, "error")
    shown = error["content"]
    assert (content["ename"], content["evalue"]) == (shown["ename"], shown["evalue"])
    internals = [line for line in content["traceback"]
                 if re.search(r"(jdk\.internal|jdk\.jshell|org\.dflib\.jjava|dev\.dml\.kernel)\.",
                              line)]
    assert not internals, f"kernel internals in the execute_reply:\n{content['traceback']}"


def test_stdout_streams_while_the_cell_is_still_running(shared_kernel, tmp_path):
    """The cell prints, then waits for a file that the test creates only after it has
    received the first line: without live streaming the cell would never finish."""
    _, kc = shared_kernel
    go = tmp_path / "go"
    code = ('System.out.println("first");\n'
            f'while (!java.nio.file.Files.exists(java.nio.file.Path.of("{go}"))) Thread.sleep(20);\n'
            'System.out.println("second");')
    msg_id = kc.execute(code)
    deadline = time.monotonic() + CELL_TIMEOUT
    seen_first = False
    while not seen_first:
        assert time.monotonic() < deadline, "the first line never arrived while the cell ran"
        msg = kc.get_iopub_msg(timeout=CELL_TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        assert msg["msg_type"] != "status" or msg["content"]["execution_state"] != "idle"
        seen_first = msg["msg_type"] == "stream" and "first" in msg["content"]["text"]
    go.write_text("go")
    reply = wait_shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "ok", reply["content"]
    rest = collect_outputs(kc, msg_id)
    assert any("second" in m["content"].get("text", "") for m in messages(rest, "stream")), rest
