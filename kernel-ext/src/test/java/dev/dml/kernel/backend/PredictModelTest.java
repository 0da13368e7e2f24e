package dev.dml.kernel.backend;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/** {@code %dml predict}'s MODEL: a variable holding a trained model; anything else is one line. */
class PredictModelTest {

    private final NotebookData data = new NotebookData(
            name -> Optional.ofNullable(Map.<String, Object>of("test", Table.create("test"),
                    "model", "a string").get(name)), () -> List.of("model", "test"), Map::of);

    private static String failure(Runnable r) {
        return assertThrows(DmlException.class, r::run).getMessage();
    }

    @Test
    void anUnknownNameSaysWhichVariablesThereAre() {
        String m = failure(() -> data.model("modle"));
        assertTrue(m.startsWith("There is no variable or model folder 'modle' for the model."),
                m);
        assertTrue(m.contains("Did you mean 'model'?") && m.contains("Train one with %dml"
                + " train ... --into modle"), m);
    }

    @Test
    void aVariableThatIsNoModelSaysWhatItIs() {
        String table = failure(() -> data.model("test"));
        assertTrue(table.startsWith("The variable 'test' given as the model is a Table, not a"
                + " trained model (TrainResult)."), table);
        assertTrue(failure(() -> data.model("model")).contains("is a String, not a trained"
                + " model"));
    }

    @Test
    void aFolderWithoutASavedModelSaysSo() {
        String m = failure(() -> data.model(System.getProperty("java.io.tmpdir")));
        assertTrue(m.contains("holds no model saved by dml"), m);
    }
}
