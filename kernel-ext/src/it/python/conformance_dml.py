"""The official Jupyter kernel conformance suite (jupyter_kernel_test) for the "dml" kernel.

Run by test_conformance.py with Debian's python3, which carries the suite, and JUPYTER_PATH set
to the share/jupyter of dml's environment, where the kernelspec is:
    JUPYTER_PATH=$DML_VENV/share/jupyter /usr/bin/python3 -m unittest -v conformance_dml
Each sample below is Java as a user types it; the suite checks the kernel's replies.
"""
import unittest

import jupyter_kernel_test


class DmlKernelConformance(jupyter_kernel_test.KernelTests):
    kernel_name = "dml"

    # kernel_info_reply.language_info
    language_name = "java"
    file_extension = ".jshell"

    code_hello_world = 'System.out.println("hello, world");'
    code_stderr = 'System.err.println("oops");'

    completion_samples = [
        {"text": "Math.ab", "matches": {"abs(", "absExact("}},
        {"text": "String.valueO", "matches": {"valueOf("}},
    ]

    complete_code_samples = ["1 + 1;", "int x = 1;", "6 * 7", "void f() { }"]
    incomplete_code_samples = ["for (int i = 0; i < 3; i++) {", "String s = \"abc\" +"]
    invalid_code_samples = ["int x = ;"]

    # The cursor (at the end) sits inside the call, where the kernel looks up the method.
    code_inspect_sample = "Math.abs("

    code_generate_error = 'throw new RuntimeException("boom");'

    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": '"dml".toUpperCase()', "result": "DML"},
    ]

    code_display_data = [
        {"code": 'display("<b>hi</b>", "text/html");', "mime": "text/html"},
        {"code": "display(\"<svg xmlns='http://www.w3.org/2000/svg'/>\", \"image/svg+xml\");",
         "mime": "image/svg+xml"},
    ]

    # dml's DmlNotebook.clearOutput() (imported in every cell) sends clear_output.
    code_clear_output = "clearOutput();"

    # One of code_execute_result's codes; the kernel keeps a history of the session's cells.
    code_history_pattern = "6 * 7"
    supported_history_operations = ("tail", "range", "search")


if __name__ == "__main__":
    unittest.main()
