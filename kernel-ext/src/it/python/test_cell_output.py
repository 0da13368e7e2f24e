"""A cell's stdout and stderr reach the notebook as IPython's kernel sends them: batched, so
that a printed line is one stream message and a loop of prints is a handful of messages, with
the order between stdout, stderr, displays, results and errors kept."""
from kernel_session import execute, ok


def streams(outputs):
    return [m for m in outputs if m["msg_type"] == "stream"]


def test_a_printf_line_is_one_stream_message(shared_kernel):
    """The quickstart's first cell: printf writes its line in seven pieces."""
    _, kc = shared_kernel
    content, outputs = execute(
        kc, 'System.out.printf("%,d rows x %d columns; fraud rate %.2f%%%n", 40000, 32, 0.98);')
    assert content["status"] == "ok", content
    assert [(m["content"]["name"], m["content"]["text"]) for m in streams(outputs)] == [
        ("stdout", "40,000 rows x 32 columns; fraud rate 0.98%\n")], outputs


def test_a_hundred_thousand_lines_are_a_few_hundred_messages_at_most(shared_kernel):
    _, kc = shared_kernel
    content, outputs = execute(kc, 'for (int i = 0; i < 100_000; i++) System.out.println(i);')
    assert content["status"] == "ok", content
    sent = streams(outputs)
    assert len(sent) <= 300, f"{len(sent)} stream messages for 100,000 lines"
    text = "".join(m["content"]["text"] for m in sent)
    assert text == "".join(f"{i}\n" for i in range(100_000))


def test_stdout_stderr_displays_and_the_error_keep_their_order(shared_kernel):
    _, kc = shared_kernel
    code = ('System.out.print("a1 "); System.out.println("a2");\n'
            'System.err.println("b");\n'
            'System.out.println("c");\n'
            'display("<i>d</i>", "text/html");\n'
            'System.out.println("e");\n'
            'if (true) throw new IllegalStateException("f");')
    content, outputs = execute(kc, code)
    assert content["status"] == "error", content
    seen = []
    for m in outputs:
        c = m["content"]
        if m["msg_type"] == "stream":
            # a stall on a busy machine may let a flush fall between two writes to one stream;
            # front ends join such neighbours, and only the order is asserted here (the
            # batching is test_a_printf_line_is_one_stream_message's)
            if seen and seen[-1][0] == c["name"]:
                seen[-1] = (c["name"], seen[-1][1] + c["text"])
            else:
                seen.append((c["name"], c["text"]))
        elif m["msg_type"] == "display_data":
            seen.append(("display", c["data"]["text/html"]))
        elif m["msg_type"] == "error":
            seen.append(("error", c["evalue"]))
    assert seen == [("stdout", "a1 a2\n"), ("stderr", "b\n"), ("stdout", "c\n"),
                    ("display", "<i>d</i>"), ("stdout", "e\n"), ("error", "f")], outputs


def test_printed_text_comes_before_the_cell_result(shared_kernel):
    _, kc = shared_kernel
    content, outputs = execute(kc, 'System.out.print("before");\n"result"')
    assert content["status"] == "ok", content
    kinds = [m["msg_type"] for m in outputs]
    assert kinds == ["stream", "execute_result"], outputs
    assert outputs[0]["content"]["text"] == "before"


def test_a_batch_never_cuts_a_character_in_two(shared_kernel):
    """Byte by byte, 3-byte characters past the batch's size limit: each message is whole."""
    _, kc = shared_kernel
    code = ('byte[] euros = "\\u20ac".repeat(40_000).getBytes('
            'java.nio.charset.StandardCharsets.UTF_8);\n'
            'for (byte b : euros) System.out.write(b);\n'
            'System.out.flush();')
    outputs = ok(kc, code)
    texts = [m["content"]["text"] for m in streams(outputs)]
    assert len(texts) > 1, "expected the size limit to split the output"
    assert all(set(t) == {"\u20ac"} for t in texts), [set(t) for t in texts]
    assert sum(len(t) for t in texts) == 40_000
