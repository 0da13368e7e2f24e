"""What a JJava or IJava user types first, in the installed kernel: %maven brings a library and
its dependencies into the next cell, and a Tablesaw table shows as an HTML table."""
import re

from kernel_session import REPO_ROOT, error_text, execute, plain_result


def junit_version():
    """A library the build itself resolved into the local Maven repository (its tests use it),
    but the kernel does not run with: %maven finds it without a network."""
    pom = (REPO_ROOT / "pom.xml").read_text()
    return re.search(r"<junit.version>([^<]+)</junit.version>", pom).group(1)


def displayed(outputs, mime):
    return [m["content"]["data"][mime] for m in outputs
            if m["msg_type"] in ("display_data", "execute_result") and mime in m["content"]["data"]]


def test_maven_adds_a_library_and_its_dependencies(shared_kernel):
    _, kc = shared_kernel
    before, _ = execute(kc, "org.opentest4j.AssertionFailedError.class.getName()")
    assert before["status"] == "error", "opentest4j is already on the kernel's class path"
    version = junit_version()
    reply, outputs = execute(kc, f"%maven org.junit.jupiter:junit-jupiter-api:{version}")
    assert reply["status"] == "ok", outputs
    shown = "\n".join(displayed(outputs, "text/plain"))
    assert f"junit-jupiter-api-{version}.jar" in shown and "opentest4j-" in shown, shown
    # the artifact and a class of its dependency, in the next cell
    reply, outputs = execute(kc, """String outcome;
try {
    org.junit.jupiter.api.Assertions.assertEquals(1, 2);
    outcome = "no failure";
} catch (org.opentest4j.AssertionFailedError e) {
    outcome = "failed: " + e.getMessage();
}
outcome""")
    assert reply["status"] == "ok", outputs
    assert "failed: expected: <1> but was: <2>" in plain_result(outputs), outputs


def test_maven_names_bad_coordinates_on_one_line(shared_kernel):
    _, kc = shared_kernel
    reply, outputs = execute(kc, "%maven junit")
    assert reply["status"] == "error"
    assert reply["traceback"] == [
        "dml: 'junit' is not a Maven artifact.",
        "Write GROUP:ARTIFACT:VERSION, as in %maven org.apache.commons:commons-text:1.12.0"
    ], error_text(reply)


def test_a_tablesaw_table_shows_as_html_with_a_row_limit(shared_kernel):
    _, kc = shared_kernel
    reply, outputs = execute(kc, 'tech.tablesaw.api.Table.create("squares",'
                                 ' tech.tablesaw.api.IntColumn.create("n",'
                                 ' java.util.stream.IntStream.range(0, 1000).map(i -> i * i).toArray()))')
    assert reply["status"] == "ok", outputs
    html = displayed(outputs, "text/html")
    assert len(html) == 1, outputs
    assert "<caption>squares</caption>" in html[0] and "<p>1000 rows × 1 columns</p>" in html[0]
    assert html[0].split("<tbody>")[1].count("<tr>") == 21, html[0]  # 10, "…", 10
    assert "<td>998001</td>" in html[0] and "<td>250000</td>" not in html[0]
    text = plain_result(outputs)
    assert "998001" in text and len(text.splitlines()) < 30, text
