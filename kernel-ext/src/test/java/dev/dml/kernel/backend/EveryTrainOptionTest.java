package dev.dml.kernel.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.magics.TrainRequest;
import dev.dml.options.Option;
import dev.dml.options.TrainOptions;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.train.TrainSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * Every option of {@code %dml train}, from its one declaration: it parses in the line and the
 * cell form alike, {@code %dml help train} shows it with its declared default, and its value
 * reaches the engine's spec (or, for job control, the request the magic acts on).
 */
class EveryTrainOptionTest {

    private final Table fraud = SyntheticFraud.generate(2_000, 7);
    private final NotebookData data = new NotebookData(
            name -> Optional.ofNullable(Map.<String, Object>of("fraud", fraud, "net",
                    new CellBlockTest.Logistic(), "images", images()).get(name)),
            () -> List.of("fraud", "net", "images"), Map::of);

    /** 40 rows of 32x32x3 pixels and an is_fraud label, for --image's example. */
    private static Table images() {
        Table t = Table.create("images");
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
        for (int i = 0; i < 32 * 32 * 3; i++) {
            t.addColumns(tech.tablesaw.api.DoubleColumn.create("p" + i,
                    rnd.doubles(40).toArray()));
        }
        return t.addColumns(tech.tablesaw.api.IntColumn.create("is_fraud",
                java.util.stream.IntStream.range(0, 40).map(r -> r % 2).toArray()));
    }

    /** What each option needs beside it to make a valid job. */
    private static String companions(Option<?> o, Path dir) {
        if (List.of(TrainOptions.STAGES, TrainOptions.MICROBATCHES, TrainOptions.SCHEDULE,
                TrainOptions.BALANCE).contains(o)) {
            return " --strategy pipeline --hidden 32,16";
        }
        if (o == TrainOptions.REPLICAS) {
            return " --strategy hybrid --hidden 32,16";
        }
        if (List.of(TrainOptions.CHECKPOINT_EVERY, TrainOptions.RESUME,
                TrainOptions.CHECKPOINT_STORE, TrainOptions.CHECKPOINT_FAILURE).contains(o)) {
            return " --checkpoint-dir " + dir;
        }
        if (o == TrainOptions.EARLY_STOP) {
            return " --validation 0.2"; // it watches the validation loss
        }
        if (o == TrainOptions.COMPRESS || o == TrainOptions.SYNC
                || o == TrainOptions.SHARD_OPTIMIZER || o == TrainOptions.SHARD_GRADIENTS) {
            // one worker exchanges no gradients, runs ahead of none, shares no optimizer
            return " --workers 2";
        }
        if (o == TrainOptions.PS) {
            return " --workers 2 --sync async"; // servers serve asynchronous workers
        }
        if (o == TrainOptions.PRECISION) {
            return " --gpus-per-worker 1"; // fp16 runs on GPUs; the spec resolves without one
        }
        if (o == TrainOptions.DATA_CACHE_MB) {
            return " --read-on-workers"; // it sizes the cache of the files workers read
        }
        if (o == TrainOptions.IMAGE) {
            return " --model cnn"; // it shapes a cnn's images, on the table of images
        }
        return "";
    }

    /** The data: the table variable, or the same rows as a Parquet file for worker reads. */
    private static String source(Option<?> o, Path dir) {
        if (o == TrainOptions.IMAGE) {
            return "images";
        }
        if (o != TrainOptions.READ_ON_WORKERS && o != TrainOptions.DATA_CACHE_MB) {
            return "fraud";
        }
        Path parquet = dir.resolve("fraud.parquet");
        if (!java.nio.file.Files.exists(parquet)) {
            Path csv = dir.resolve("fraud.csv");
            try {
                SyntheticFraud.generate(2_000, 7).write().csv(csv.toFile());
                Process p = new ProcessBuilder("python3", Path.of(System.getProperty("basedir",
                        "."), "..", "ray-backend", "src", "test", "python", "write_parquet.py")
                        .toString(), csv.toString(), parquet.toString(), "500", "snappy")
                        .inheritIO().start();
                assertEquals(0, p.waitFor(), "write_parquet.py needs python3 with pyarrow");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        return parquet.toString();
    }

    /** The value the test gives: the declared example, but no address outside loopback. */
    private static String value(Option<?> o) {
        return o == TrainOptions.CLUSTER ? "127.0.0.1:6379" : o.example();
    }

    @Test
    void everyOptionParsesInBothFormsIsHelpedAndReachesTheSpec(@TempDir Path dir) {
        String help = String.join("\n", dev.dml.magics.DmlMagics.standard().commands().stream()
                .filter(c -> c.name().equals("train")).findFirst().orElseThrow().usage());
        List<String> checked = new ArrayList<>();
        for (Option<?> o : TrainOptions.ALL) {
            String label = o == TrainOptions.LABEL ? "" : " --label is_fraud";
            String flag = o.isSwitch() ? o.flag() : o.flag() + " " + value(o);
            String line = source(o, dir) + label + companions(o, dir) + " " + flag;
            TrainRequest byLine = TrainRequest.parse(List.of(line.split(" ")), null);
            StringBuilder body = new StringBuilder();
            for (String kv : (label + companions(o, dir)).trim().split(" --")) {
                if (!kv.isBlank()) {
                    String k = kv.replaceFirst("^--", "");
                    body.append(k.contains(" ") ? k.replaceFirst(" ", ": ") : k + ": true")
                            .append('\n'); // a switch, in the cell form, is name: true
                }
            }
            body.append(o.name().replace('-', '_')).append(": ").append(value(o)).append('\n');
            TrainRequest byCell = TrainRequest.parse(List.of(source(o, dir)), body.toString());
            assertEquals(byLine, byCell, o.flag() + ": line and cell forms differ");
            assertTrue(help.contains(o.usage()) && help.contains("(default: " + o.defaultText()
                    + ")"), o.flag() + " is not in the help with its default");
            assertReaches(o, byLine);
            checked.add(o.name());
        }
        assertEquals(TrainOptions.ALL.size(), checked.size());
    }

    private void assertReaches(Option<?> o, TrainRequest r) {
        Object given = r.get(o);
        assertEquals(o.parse(value(o)), given, o.flag());
        if (o == TrainOptions.INTO) {
            assertEquals("model", r.into());
            return;
        }
        if (o == TrainOptions.BACKGROUND || o == TrainOptions.DEBUG) {
            assertTrue(o == TrainOptions.BACKGROUND ? r.background() : r.debug(), o.flag());
            return;
        }
        if (o == TrainOptions.PLAN) {
            return; // the magics resolve it against the session's plan: PlanCommandsTest
        }
        if (o == TrainOptions.DETACH) {
            return; // the cell hands the job to a driver of its own: test_detach.py
        }
        if (o == TrainOptions.NO_PLOTS) {
            assertTrue(!r.plots());
            return;
        }
        if (o == TrainOptions.S3_ENDPOINT) {
            // it reaches DataFiles.open with s3:// data (S3WorkerReadIT); with a table it is
            // refused rather than ignored
            dev.dml.DmlException e = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.dml.DmlException.class, () -> TrainRequests.spec(r, data));
            assertEquals("{s3-endpoint} is set, but the data fraud is no s3:// URL.",
                    e.whatTemplate());
            return;
        }
        TrainSpec spec = TrainRequests.spec(r, data);
        if (o.target() == Option.Target.SPEC) {
            assertEquals(given, spec.get(o), o.flag() + " did not reach the spec");
        } else if (o == TrainOptions.LABEL) {
            assertEquals("is_fraud", spec.columns().label());
        } else if (o == TrainOptions.FEATURES) {
            assertEquals(List.of("amount", "v1"), spec.columns().features());
        } else if (o == TrainOptions.VALIDATION) {
            assertEquals(0.2, spec.validationFraction());
        } else if (o == TrainOptions.READ_ON_WORKERS) {
            assertEquals(2_000, spec.trainRows());
            assertTrue(spec.files().isPresent() && spec.trainTable() == null,
                    "the kernel held the rows");
        } else if (o == TrainOptions.BLOCK) {
            assertEquals(dev.dml.ray.model.ModelSpec.Family.CUSTOM, spec.model().family());
        } else if (o == TrainOptions.CLUSTER) {
            assertEquals("127.0.0.1:6379", spec.clusterAddress().orElseThrow());
        } else {
            throw new AssertionError(o.flag() + " has no check here: add one");
        }
    }
}
