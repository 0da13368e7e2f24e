package dev.dml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class VocabularyTest {

    @Test
    void optionsAreNamedInTheWordsOfEachSurface() {
        String t = "Lower {batch-size} or {workers}, or set {lr=0.01}.";
        assertEquals("Lower --batch-size or --workers, or set --lr 0.01.",
                Vocabulary.NOTEBOOK.render(t));
        assertEquals("Lower optBatchSize or optWorkers, or set optLearningRate(0.01).",
                Vocabulary.JAVA.render(t));
    }

    @Test
    void switchesAndNotebookOnlyOptionsReadAsFlags() {
        assertEquals("--resume", Vocabulary.NOTEBOOK.render("{resume=true}"));
        assertEquals("optResume(true)", Vocabulary.JAVA.render("{resume=true}"));
        assertEquals("--into", Vocabulary.JAVA.render("{into}"));
    }

    @Test
    void unknownNamesAndEscapedBracesStayAsWritten() {
        assertEquals("{nope} {} {x=1} {batch-size} }",
                Vocabulary.JAVA.render("{nope} {} {x=1} {{batch-size}} }}"));
        assertEquals("column '{lr}'",
                Vocabulary.NOTEBOOK.render("column '" + DmlException.literal("{lr}") + "'"));
    }

    @Test
    void anExceptionRendersInTheVocabularyItSpeaks() {
        DmlException e = new DmlException("Each worker gets 3 rows, fewer than {batch-size}.",
                "Lower {batch-size}.");
        assertEquals("Each worker gets 3 rows, fewer than optBatchSize.\nLower optBatchSize.",
                e.getMessage());
        e.speaking(Vocabulary.NOTEBOOK);
        assertEquals("Each worker gets 3 rows, fewer than --batch-size.", e.what());
        assertEquals("Lower --batch-size.", e.hint());
        assertEquals("Lower {batch-size}.", e.hintTemplate());
    }

    @Test
    void aMessageWithoutHintIsOneLine() {
        assertEquals("gone", new DmlException("gone", null).getMessage());
    }
}
