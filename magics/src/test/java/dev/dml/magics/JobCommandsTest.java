package dev.dml.magics;

import dev.dml.DmlException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Test;

/** Job control before any job ran, and %dml train where no backend is installed. */
class JobCommandsTest {

    private final RecordingKernel kernel = new RecordingKernel();
    private final DmlMagics magics = DmlMagics.standard();

    private String run(String... words) {
        magics.eval(kernel, List.of(words));
        return (String) kernel.displayed.get(kernel.displayed.size() - 1)
                .getData(MIMEType.TEXT_PLAIN);
    }

    private String failure(String... words) {
        return assertThrows(DmlException.class, () -> magics.eval(kernel, List.of(words)))
                .getMessage();
    }

    @Test
    void statusAndClusterSayWhatToDoFirst() {
        assertTrue(run("status").startsWith("No jobs yet in this session."));
        assertTrue(run("cluster").startsWith("No cluster is open yet"));
    }

    @Test
    void stopNamesTheJobsThereAre() {
        assertTrue(failure("stop").startsWith("No job is running."));
        assertTrue(failure("stop", "fraud-1").contains("this session has run none"));
    }

    @Test
    void clusterActionsAreChecked() {
        assertTrue(failure("cluster", "strat").contains("Did you mean '%dml cluster start'?"));
        assertTrue(failure("cluster", "connect").contains("needs the cluster's address"));
        assertTrue(failure("cluster", "stop", "10.0.0.1:6379").contains("takes no address"));
        assertTrue(failure("cluster", "show", "--region", "us-east-1")
                .startsWith("%dml cluster show takes no options."));
        assertTrue(failure("cluster", "price", "m5.xlarge").startsWith("No dml backend"));
    }

    @Test
    void trainWithoutABackendSaysWhichKernelToUse() {
        String message = failure("train", "fraud", "--label", "is_fraud");
        assertTrue(message.startsWith("No dml backend is on this kernel's class path"), message);
        assertTrue(message.contains("'Java (dml)' kernel"), message);
        assertEquals(0, kernel.displayed.size(), "no live plot for a job that never started");
    }

    @Test
    void everyCommandHasHelp() {
        for (String name : List.of("train", "status", "stop", "cluster")) {
            assertTrue(run("help", name).startsWith("%dml " + name + ": "), name);
        }
        assertTrue(run("help", "train").contains("--strategy data|model|pipeline|hybrid"));
    }

    @Test
    void runsAndCompareAreListedAndCheckTheirWordsBeforeAnyBackend() {
        for (String name : List.of("runs", "compare")) {
            assertTrue(run("help", name).startsWith("%dml " + name + ": "), name);
            assertTrue(run("help").contains(name), name);
        }
        assertTrue(failure("runs", "--last", "x").startsWith("--last takes a count of runs,"
                + " not 'x'."));
        assertTrue(failure("runs", "--where").startsWith("--where needs a condition."));
        assertTrue(failure("runs", "--lats", "3").startsWith("%dml runs: unexpected '--lats'."));
        assertTrue(failure("compare").startsWith("%dml compare needs the ids of the runs"));
        assertTrue(failure("compare", "a", "--metrc", "val_loss")
                .startsWith("%dml compare: unknown option '--metrc'."));
        assertTrue(failure("runs").startsWith("No dml backend"), "the words are fine");
    }
}
