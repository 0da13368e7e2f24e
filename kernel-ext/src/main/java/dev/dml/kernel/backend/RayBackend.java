package dev.dml.kernel.backend;

import dev.dml.kernel.DmlKernel;
import dev.dml.kernel.jupyter.TableDisplay;
import dev.dml.Closeables;
import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.cost.JobPlan;
import dev.dml.cost.Pricing;
import dev.dml.magics.AttachedRun;
import dev.dml.magics.DmlBackend;
import dev.dml.events.PredictProgress;
import dev.dml.magics.PredictRequest;
import dev.dml.magics.PreparedJob;
import dev.dml.magics.RunViews;
import dev.dml.magics.TrainRequest;
import dev.dml.options.PlanOptions;
import dev.dml.options.PredictOptions;
import dev.dml.options.ScaleOptions;
import dev.dml.options.TrainOptions;
import dev.dml.options.WorkerRange;
import dev.dml.ray.Dml;
import dev.dml.ray.cluster.ClusterNodes;
import dev.dml.ray.cluster.ClusterPricing;
import dev.dml.ray.cluster.ClusterSpec;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.plan.JobPlanner;
import dev.dml.ray.plan.ScaleStudy;
import dev.dml.ray.predict.BatchPredictor;
import dev.dml.ray.runs.DetachedRuns;
import dev.dml.ray.runs.RunFollower;
import dev.dml.ray.train.result.RunFolders;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.scaling.ScaleTable;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import tech.tablesaw.api.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code %dml} on Ray: one cluster and one driver per kernel session, opened by the first job
 * (the embedded head takes seconds to start, so later jobs reuse it) and closed with the
 * kernel. All Ray calls run in the driver process, so no Ray failure can end the kernel.
 */
final class RayBackend implements DmlBackend {

    private static final Logger LOG = LoggerFactory.getLogger(RayBackend.class);
    private static final Duration NODES_TIMEOUT = Duration.ofSeconds(10);
    /** Rows of a scored table the cell shows. */
    private static final int HEAD_ROWS = 10;

    private final NotebookData data;
    private final DmlKernel kernel;
    private String address;
    private RayCluster cluster;
    private DriverProcess driver;
    private Pricing pricing = Pricing.NONE;

    RayBackend(NotebookData data, DmlKernel kernel) {
        this.data = data;
        this.kernel = kernel;
    }

    /** Opens the Ray backend for a kernel; found through {@code META-INF/services}. */
    public static final class Factory implements DmlBackend.Factory {
        @Override
        public DmlBackend open(BaseKernel kernel) {
            if (kernel instanceof DmlKernel dml) {
                return new RayBackend(new NotebookData(dml::variable, dml::variableNames,
                        dml::userClasses), dml);
            }
            return new RayBackend(NotebookData.filesOnly(), null);
        }
    }

    @Override
    public PreparedJob prepare(TrainRequest request) {
        return new PreparedRayJob(request, TrainRequests.spec(request, data), this::driver);
    }

    @Override
    public JobPlan plan(TrainRequest request, Consumer<String> progress) {
        TrainSpec spec = TrainRequests.spec(request, data);
        JobPlanner.Builder planner = JobPlanner.builder().setSpec(spec)
                .setDriver(driver(request.cluster())).optPricing(pricing())
                .optProbeSteps(request.get(PlanOptions.PROBE_STEPS)).optProgress(progress);
        sizes(request).forEach(planner::addSizes);
        List<String> instances = request.get(PlanOptions.INSTANCES);
        if (instances != null) {
            instances.forEach(planner::addInstance);
        }
        return planner.build().plan();
    }

    @Override
    public ScaleTable scale(TrainRequest request, Consumer<String> progress) {
        ScaleStudy.Builder study = ScaleStudy.builder().setSpec(TrainRequests.spec(request, data))
                .setDriver(driver(request.cluster())).optProgress(progress);
        sizes(request).forEach(study::addSizes);
        Double target = request.get(ScaleOptions.TARGET);
        if (target != null) {
            study.optTarget(target);
        }
        return study.build().run();
    }

    @Override
    public Prediction predict(PredictRequest request, Consumer<PredictProgress> progress) {
        TrainResult model = data.model(request.model());
        Table table = data.table(request.source(), NotebookData.DATA);
        LastProgress last = new LastProgress(progress);
        BatchPredictor.Builder b = Dml.predict(model)
                .optWorkers(request.get(PredictOptions.WORKERS))
                .optBatchSize(request.get(PredictOptions.BATCH_SIZE))
                .optCpusPerWorker(request.get(PredictOptions.CPUS_PER_WORKER))
                .optProgress(last);
        b.build().check(table); // a bad table fails here, before any cluster starts
        BatchPredictor predictor = b.optDriver(driver(request.cluster())).build();
        long t0 = System.nanoTime();
        Table scored = predictor.predict(table);
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Prediction(scored, scored.rowCount(), predictor.workers().size(), seconds,
                last.rate(), scored.print(HEAD_ROWS),
                TableDisplay.html(scored, HEAD_ROWS, TableDisplay.MAX_COLUMNS));
    }

    /** Passes progress on and keeps the last, for the summary's throughput. */
    private static final class LastProgress implements Consumer<PredictProgress> {
        private final Consumer<PredictProgress> next;
        private volatile PredictProgress last;

        LastProgress(Consumer<PredictProgress> next) {
            this.next = next;
        }

        @Override
        public void accept(PredictProgress p) {
            last = p;
            next.accept(p);
        }

        double rate() {
            PredictProgress p = last;
            return p != null ? p.rowsPerSecond() : 0;
        }
    }

    /** The sizes {@code --workers N|MIN:MAX} names for plan and scale; none when not given. */
    private static List<Integer> sizes(TrainRequest request) {
        List<Integer> out = new java.util.ArrayList<>();
        if (request.options().isSet(TrainOptions.WORKERS)) {
            WorkerRange r = request.get(TrainOptions.WORKERS);
            for (int w = r.min(); w <= r.max(); w++) {
                out.add(w);
            }
        }
        return out;
    }

    @Override
    public RunViews.RunList runs(String where, int last) {
        return new RecordedRuns(RunFolders.defaultStore()).list(where, last);
    }

    @Override
    public RunViews.Comparison compare(List<String> runIds, String metric) {
        return new RecordedRuns(RunFolders.defaultStore()).compare(runIds, metric);
    }

    @Override
    public String detach(TrainRequest request) {
        TrainSpec spec = TrainRequests.spec(request, data);
        RayCluster target;
        synchronized (this) {
            // refused before an embedded head starts only to be refused
            boolean embedded = request.cluster() == null && cluster != null
                    ? cluster.isEmbedded()
                    : RayCluster.wouldEmbed(request.cluster() != null ? request.cluster()
                            : address);
            if (embedded) {
                throw DetachedRuns.embeddedRefused();
            }
            driver(request.cluster());
            target = cluster;
        }
        return DetachedRuns.start(spec, target);
    }

    @Override
    public AttachedRun attach(String runId) {
        return new FollowedRun(runId, RunFollower.open(RunFolders.defaultStore(), runId));
    }

    @Override
    public String stopRun(String runId) {
        return DetachedRuns.stop(RunFolders.defaultStore(), runId).name()
                .toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public void bind(String name, Object value) {
        if (kernel == null) {
            throw new DmlException("--into needs the dml kernel to bind '" + name + "'.",
                    "Use the 'Java (dml)' kernel, or drop --into and keep the magic's value.");
        }
        kernel.bind(name, value);
    }

    /** The session's driver on the wanted cluster, opening (or switching) as needed. */
    private synchronized DriverProcess driver(String wanted) {
        if (wanted != null && !wanted.equals(address) && cluster != null) {
            closeCluster();
        }
        if (cluster == null) {
            String target = wanted != null ? wanted : address;
            ClusterSpec.Builder spec = ClusterSpec.builder();
            if (target != null) {
                spec.optAddress(target);
            }
            cluster = RayCluster.open(spec.build()); // a bad address fails here, unremembered
            address = target;
        }
        if (driver == null || !driver.isAlive()) {
            if (driver != null) {
                LOG.warn("the session's driver {} died; opening a new one", driver.pid());
                driver.close();
            }
            driver = cluster.openDriver();
            if (pricing != Pricing.NONE) {
                driver.call(new ClusterPricing(pricing), NODES_TIMEOUT);
            }
        }
        return driver;
    }

    @Override
    public synchronized ClusterView cluster() {
        if (cluster == null) {
            return new ClusterView("", address == null ? "none yet" : "to connect", List.of(),
                    "");
        }
        List<ClusterView.Node> nodes = List.of();
        if (driver != null && driver.isAlive()) {
            try {
                nodes = driver.call(new ClusterNodes(), NODES_TIMEOUT).stream()
                        .map(n -> new ClusterView.Node(n.id, n.address, n.alive, n.cpus, n.gpus,
                                n.memoryBytes, pricing.price(n.labels).describe())).toList();
            } catch (DmlException e) {
                LOG.warn("cannot list the cluster's nodes: {}", e.getMessage());
            }
        }
        String kind = cluster.isEmbedded() ? "embedded head, owned by this kernel"
                : "external, " + Vocabulary.NOTEBOOK.render(cluster.source());
        String logs = cluster.tempDir().map(Object::toString)
                .orElse(driver == null ? "" : driver.log().toString());
        return new ClusterView(cluster.address(), kind, nodes, logs);
    }

    @Override
    public ClusterView connect(String hostPort) {
        driver(Objects.requireNonNull(hostPort));
        return cluster();
    }

    @Override
    public ClusterView startCluster() {
        driver(null);
        return cluster();
    }

    @Override
    public synchronized Pricing pricing() {
        return pricing;
    }

    @Override
    public synchronized ClusterView price(Pricing newPricing) {
        pricing = newPricing;
        if (driver != null && driver.isAlive()) {
            driver.call(new ClusterPricing(newPricing), NODES_TIMEOUT);
        }
        return cluster();
    }

    @Override
    public synchronized void stopCluster() {
        closeCluster();
        address = null;
    }

    private synchronized void closeCluster() {
        try {
            Closeables.closeAll(driver, cluster); // the driver first: it runs on the cluster
        } finally {
            driver = null;
            cluster = null;
        }
    }

    @Override
    public void close() {
        closeCluster();
    }
}
