package dev.dml.ray.train;

import dev.dml.options.PipelineSchedule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.options.TrainOptions;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.train.runner.TrainLocalTest;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.settings.SyncResolution;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/** {@code --sync} and {@code --ps}: the defaults, and what cannot work refused in one line. */
class SyncOptionsTest {

    private static final Table T = SyntheticFraud.generate(2 * 16 * 10, 11);

    private static TrainSpecBuilder job(String sync, int workers) {
        return TrainSpec.builder().setTable(T).setColumns(SyntheticFraud.selection())
                .setModel(TrainLocalTest.mlp(T)).optBatchSize(16).optWorkers(workers)
                .optSync(sync);
    }

    private static String refusal(TrainSpecBuilder b) {
        return assertThrows(DmlException.class, b::build).speaking(Vocabulary.NOTEBOOK).what();
    }

    @Test
    void syncIsTheDefaultWithNoServersAndAsyncTakesOne() {
        TrainSpec sync = TrainSpec.builder().setTable(T).setColumns(SyntheticFraud.selection())
                .setModel(TrainLocalTest.mlp(T)).optWorkers(2).build();
        assertEquals("sync", sync.get(TrainOptions.SYNC).toString());
        assertNull(sync.get(TrainOptions.PS));
        TrainSpec async = job("ASYNC", 2).build();
        assertEquals("async", async.get(TrainOptions.SYNC).toString());
        assertEquals(1, async.get(TrainOptions.PS));
        assertEquals(3, SyncResolution.staleness(TrainOptions.SYNC.parse("ssp:3")));
        assertEquals(-1, SyncResolution.staleness(TrainOptions.SYNC.parse("async")));
    }

    @Test
    void whatCannotWorkIsRefusedInTheWordsOfTheSurface() {
        assertEquals("--ps starts parameter servers for an asynchronous job, but this one"
                + " all-reduces every step (--sync sync).", refusal(job("sync", 2)
                        .optParameterServers(2)));
        assertEquals("--sync async trains through parameter servers, but one worker has no"
                + " peer to run ahead of.", refusal(job("async", 1)));
        assertEquals("--sync ssp:2 trains through parameter servers, but --compress compresses"
                + " the all-reduce, which an asynchronous job does not run.",
                refusal(job("ssp:2", 2).optCompress("int8")));
        assertEquals("--sync async trains through parameter servers, but --bucket-mb overlaps"
                + " the all-reduce, which an asynchronous job does not run.",
                refusal(job("async", 2).opt(TrainOptions.BUCKET_MB, 4.0)));
        assertEquals("--sync async trains through parameter servers, but --workers 1:2 changes"
                + " the workers while the servers count on each of them.",
                refusal(job("async", 2).optWorkers(1, 2)));
        assertEquals("--sync async trains through parameter servers, but --ps 3 starts more"
                + " servers than the 2 workers that feed them.", refusal(job("async", 2)
                        .optParameterServers(3)));
        DmlException staged = assertThrows(DmlException.class, job("async", 2)
                .optStrategy(Strategy.pipeline(2, 2, PipelineSchedule.GPIPE))::build);
        assertEquals("optSync(async) trains through parameter servers, but the strategy"
                + " pipeline{replicas=1, stages=2, microbatches=2, GPIPE, PARAMETERS} passes"
                + " each batch through stages in step.", staged.speaking(Vocabulary.JAVA)
                        .what());
        DmlException bad = assertThrows(DmlException.class, () -> job("ssp:-1", 2));
        assertEquals("optSync must be sync, async, or ssp:S with S a whole number of at least"
                + " 0, got ssp:-1.", bad.what());
    }
}
