package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.Suggestions;
import dev.dml.cost.Pricing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/** {@code %dml cluster [show|start|connect ADDRESS|stop]}: the session's Ray cluster. */
final class ClusterCommand extends NamedCommand {

    private static final String USAGE = "%dml cluster [show | start | connect HOST:PORT | stop"
            + " | price ...]";
    private static final List<String> ACTIONS = List.of("show", "start", "connect", "stop",
            "price");
    private final CommandArgs args = new CommandArgs("cluster", schema(), USAGE);

    private static MagicsArgs schema() {
        MagicsArgs.MagicsArgsBuilder b = MagicsArgs.builder().optional("action")
                .optional("address");
        ClusterPrice.KEYWORDS.forEach(k -> b.keyword(k, MagicsArgs.KeywordSpec.ONCE));
        return b.onlyKnownKeywords().onlyKnownFlags().build();
    }

    ClusterCommand() {
        super("cluster", "show, start, connect to or stop this session's Ray cluster");
    }

    @Override
    public List<String> usage() {
        List<String> lines = new ArrayList<>(List.of(USAGE, "",
                "show     the cluster's address, kind and nodes with their prices (the default)",
                "start    start the embedded local head now (otherwise the first job does)",
                "connect  use a running cluster, e.g. one started with 'ray start --head'",
                "stop     stop the embedded head this kernel started (never anyone else's)"));
        lines.addAll(ClusterPrice.usage());
        lines.addAll(List.of("Examples:", "  %dml cluster", "  %dml cluster connect"
                + " 10.0.0.5:6379", "  %dml cluster price m5.xlarge",
                "  %dml cluster price g5.xlarge --market spot --region us-east-1"));
        return lines;
    }

    @Override
    public Object run(CommandContext context, List<String> words, String body) {
        Map<String, List<String>> parsed = args.parse(words);
        String action = parsed.get("action").isEmpty() ? "show" : parsed.get("action").get(0);
        List<String> address = parsed.get("address");
        if (!ACTIONS.contains(action)) {
            String guess = Suggestions.closest(action, ACTIONS)
                    .map(g -> "Did you mean '%dml cluster " + g + "'? ").orElse("");
            throw new DmlException("%dml cluster: unknown action '" + action + "'.",
                    guess + "Usage: " + USAGE);
        }
        if (action.equals("price")) {
            return price(context, address.isEmpty() ? null : address.get(0), parsed);
        }
        if (ClusterPrice.KEYWORDS.stream().anyMatch(k -> !parsed.get(k).isEmpty())) {
            throw new DmlException("%dml cluster " + action + " takes no options.",
                    "Usage: " + USAGE);
        }
        if (action.equals("connect") == address.isEmpty()) {
            throw new DmlException(action.equals("connect")
                    ? "%dml cluster connect needs the cluster's address."
                    : "%dml cluster " + action + " takes no address.", "Usage: " + USAGE);
        }
        DmlSession session = context.session();
        if (!action.equals("show")) {
            session.jobs().running().ifPresent(r -> {
                throw new DmlException("Job " + r.id() + " is running on this cluster.",
                        "Stop it first with %dml stop " + r.id() + ".");
            });
        }
        DmlBackend.ClusterView view;
        switch (action) {
            case "start" -> view = session.backend().startCluster();
            case "connect" -> view = session.backend().connect(address.get(0));
            case "stop" -> {
                if (session.isOpen()) {
                    session.backend().stopCluster();
                }
                context.display(Html.text("The session's cluster is stopped; the next job"
                        + " starts the embedded one again."));
                return null;
            }
            default -> view = session.isOpen() ? session.backend().cluster() : null;
        }
        context.display(show(view));
        return null;
    }

    /** Prices the nodes without labels from now on, and shows what that makes each node cost. */
    private static Object price(CommandContext context, String type,
            Map<String, List<String>> parsed) {
        DmlSession session = context.session();
        DmlBackend backend = session.backend();
        Pricing pricing = ClusterPrice.parse(type, parsed, backend.pricing());
        DmlBackend.ClusterView view = backend.price(pricing);
        context.display(Html.text(pricing.describe()));
        if (!view.address().isEmpty()) {
            context.display(show(view));
        }
        return null;
    }

    private static org.dflib.jjava.jupyter.kernel.display.DisplayData show(
            DmlBackend.ClusterView view) {
        if (view == null || view.address().isEmpty()) {
            return Html.text("No cluster is open yet: the first %dml train starts an embedded"
                    + " one on this machine (or use %dml cluster connect HOST:PORT).");
        }
        List<List<String>> rows = new ArrayList<>();
        for (DmlBackend.ClusterView.Node n : view.nodes()) {
            rows.add(List.of(n.id().length() > 12 ? n.id().substring(0, 12) : n.id(), n.host(),
                    n.alive() ? "alive" : "dead", trim(n.cpus()), trim(n.gpus()),
                    String.format("%.1f GiB", n.memoryBytes() / (double) (1L << 30)),
                    n.price()));
        }
        return Html.table("Cluster " + view.address() + " (" + view.kind() + "); logs: "
                        + view.logs(),
                List.of("node", "host", "state", "CPUs", "GPUs", "memory", "price"), rows);
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
