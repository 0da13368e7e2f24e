package dev.dml.magics;

import dev.dml.cost.JobPlan;
import dev.dml.cost.Pricing;
import dev.dml.events.PredictProgress;
import dev.dml.scaling.ScaleTable;
import java.util.List;
import java.util.function.Consumer;
import org.dflib.jjava.jupyter.kernel.BaseKernel;

/**
 * What runs {@code %dml}'s jobs: it resolves a request against the notebook's data, owns the
 * session's cluster, and binds results to notebook variables. {@code magics} knows only this
 * interface; the dml kernel supplies the Ray implementation through {@code META-INF/services}
 * (a {@link Factory}), so a kernel without one still has {@code %dml help}.
 */
public interface DmlBackend extends AutoCloseable {

    /** Opens the backend for one kernel session; found with {@link java.util.ServiceLoader}. */
    interface Factory {
        /**
         * Opens a backend bound to a kernel.
         *
         * @param kernel the kernel whose notebook variables the backend reads and binds
         * @return the backend, owned by the caller
         */
        DmlBackend open(BaseKernel kernel);
    }

    /**
     * Resolves a request: reads the data, checks columns and options, sizes the job. Starts
     * nothing, so a bad request fails fast and leaves no process behind.
     *
     * @param request the parsed {@code %dml train} request
     * @return the job, ready to start
     * @throws RuntimeException a dml exception naming what is wrong and how to fix it
     */
    PreparedJob prepare(TrainRequest request);

    /**
     * Plans a job before it runs ({@code %dml plan}): probes each size on the session's
     * cluster, opening it when needed, and ranks the configurations by predicted time and
     * dollars.
     *
     * @param request the job as {@code %dml train} would run it, with the plan's options
     * @param progress receives a line as each probe starts and ends
     * @return the plan
     * @throws RuntimeException a dml exception naming what is wrong and how to fix it
     */
    JobPlan plan(TrainRequest request, Consumer<String> progress);

    /**
     * Runs a job at several sizes on the session's cluster ({@code %dml scale}).
     *
     * @param request the job, with its sizes in {@code --workers}
     * @param progress receives a line as each size starts
     * @return the table
     * @throws RuntimeException a dml exception naming what is wrong and how to fix it
     */
    ScaleTable scale(TrainRequest request, Consumer<String> progress);

    /**
     * Scores a table with a trained model on worker actors of the session's cluster ({@code
     * %dml predict}), opening it when needed.
     *
     * @param request the model, the data and the options
     * @param progress receives rows scored and throughput as the workers go
     * @return the scored table and how it went
     * @throws RuntimeException a dml exception naming what is wrong and how to fix it
     */
    Prediction predict(PredictRequest request, Consumer<PredictProgress> progress);

    /**
     * A scored table, as {@code %dml predict} shows and binds it.
     *
     * @param table the scored table: the input's columns, then the prediction columns
     * @param rows its rows
     * @param workers the workers that scored it
     * @param seconds the whole call's wall time, the workers' start included
     * @param rowsPerSecond the workers' throughput while scoring
     * @param headText the table's first rows as text
     * @param headHtml the same as HTML
     */
    record Prediction(Object table, int rows, int workers, double seconds,
            double rowsPerSecond, String headText, String headHtml) {}

    /**
     * Lists the runs of the run store ({@code %dml runs}), newest first.
     *
     * @param where a filter such as {@code val_accuracy > 0.9}, or null for every run
     * @param last keep only the newest this many (after the filter); 0 keeps all
     * @return the runs' key settings and results
     * @throws RuntimeException a dml exception naming what is wrong and how to fix it
     */
    RunViews.RunList runs(String where, int last);

    /**
     * Puts recorded runs side by side ({@code %dml compare}): their curves of one metric, and
     * the settings that differ.
     *
     * @param runIds the runs, as {@code %dml runs} lists them
     * @param metric {@code loss} (per step) or an epoch metric such as {@code val_loss}
     * @return the curves and the differing settings
     * @throws RuntimeException a dml exception naming what is wrong and how to fix it
     */
    RunViews.Comparison compare(List<String> runIds, String metric);

    /**
     * Hands a job to a driver that outlives this kernel ({@code %dml train --detach}), on an
     * external cluster; returns once that driver records it.
     *
     * @param request the job
     * @return the run's id in the run store
     * @throws RuntimeException a dml exception naming what is wrong and how to fix it (the
     *     embedded cluster, which ends with the kernel, is refused)
     */
    String detach(TrainRequest request);

    /**
     * Opens a recorded run to follow ({@code %dml attach}).
     *
     * @param runId the run, as {@code %dml runs} lists it
     * @return the run, owned by the caller
     * @throws RuntimeException a dml exception when the store has no such run
     */
    AttachedRun attach(String runId);

    /**
     * Asks a detached run to stop ({@code %dml stop RUN}); its driver stops it within seconds.
     *
     * @param runId the run
     * @return the run's status when asked ({@code running}: the stop was asked for)
     * @throws RuntimeException a dml exception when the store has no such run
     */
    String stopRun(String runId);

    /**
     * Binds a value to a notebook variable, so the next cell can use it.
     *
     * @param name the variable
     * @param value the value
     */
    void bind(String name, Object value);

    /**
     * Describes the session's cluster without starting one.
     *
     * @return the cluster's state
     */
    ClusterView cluster();

    /**
     * Makes the session use a running cluster from now on (closing an embedded one it owns).
     *
     * @param address the cluster's {@code host:port}
     * @return the cluster's state
     */
    ClusterView connect(String address);

    /**
     * Starts the session's cluster now (the embedded default unless connected elsewhere).
     *
     * @return the cluster's state
     */
    ClusterView startCluster();

    /**
     * Returns how the session prices its cluster's nodes.
     *
     * @return the pricing; {@link Pricing#NONE} until {@code %dml cluster price}
     */
    Pricing pricing();

    /**
     * Prices the session's nodes from now on, for {@code %dml cluster} and every job's cost,
     * budget included: nodes with dml's labels by their labels, the others as {@code pricing}
     * says. Starts nothing; kept for a cluster opened later.
     *
     * @param pricing the pricing, checked against its catalogue
     * @return the cluster's state, with each node's price (no nodes when none is open)
     */
    ClusterView price(Pricing pricing);

    /** Stops the session's cluster: an embedded head it started, or the link to another. */
    void stopCluster();

    /** Stops jobs and closes everything the backend opened. */
    @Override
    void close();

    /**
     * A cluster as {@code %dml cluster} shows it.
     *
     * @param address {@code host:port}, or empty when none is open
     * @param kind what it is, e.g. "embedded head, owned by this kernel"
     * @param nodes its nodes, empty when none is open
     * @param logs where its logs are
     */
    record ClusterView(String address, String kind, List<Node> nodes, String logs) {
        /** A view is plain data. */
        public ClusterView {
            nodes = List.copyOf(nodes);
        }

        /**
         * One node of a cluster.
         *
         * @param id the node id
         * @param host its address
         * @param alive whether it is alive
         * @param cpus its CPUs
         * @param gpus its GPUs
         * @param memoryBytes its memory
         * @param price what it costs and why, e.g. {@code $0.192/h: aws m5.xlarge on-demand,
         *     us-east-1 (dml's price catalogue, 2025-05-31)} or {@code not priced}
         */
        public record Node(String id, String host, boolean alive, double cpus, double gpus,
                long memoryBytes, String price) {}
    }
}
