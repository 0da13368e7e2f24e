package dev.dml.cost;

import dev.dml.DmlException;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How a cluster's nodes are priced. A node that carries dml's Ray node labels ({@value
 * #INSTANCE_TYPE}, {@value #MARKET}, {@value #CLOUD}, {@value #REGION}; the files in {@code
 * clusters/} set them) is priced from the catalogue; a node without them takes the price the
 * user gave with {@code %dml cluster price} (an instance type, or dollars per hour), and
 * without that costs nothing, as the embedded local cluster does. The user's catalogue, when
 * given, is searched before dml's own.
 *
 * <p>Crosses from the kernel to the driver inside a task, so it is {@link Serializable}; the
 * driver reads the catalogue files itself (it runs on the kernel's machine).
 */
public final class Pricing implements Serializable {

    private static final long serialVersionUID = 2L;

    /** The Ray node label naming the node's cloud: {@code aws}, {@code gcp}, {@code azure}. */
    public static final String CLOUD = "dml.dev/cloud";
    /** The Ray node label naming the node's region. */
    public static final String REGION = "dml.dev/region";
    /** The Ray node label naming the node's instance type. */
    public static final String INSTANCE_TYPE = "dml.dev/instance-type";
    /** The Ray node label naming the node's market: {@code spot} or {@code on-demand}. */
    public static final String MARKET = "dml.dev/market";

    /** Labelled nodes from dml's catalogue; every other node costs nothing. */
    public static final Pricing NONE = new Pricing(null, Unlabelled.FREE);

    private static final String HINT = "Price it with %dml cluster price INSTANCE-TYPE"
            + " --usd-per-hour X, or give --catalog a vms.csv that lists it.";

    private final String catalogFile;
    private final Unlabelled unlabelled;

    /**
     * What {@code %dml cluster price} said a node without labels costs: an instance type
     * (with its market, and the cloud and region when named) to look up, or a rate.
     *
     * @param instanceType the type, or null when not priced by type
     * @param market spot or on-demand
     * @param cloud the cloud, or null for any
     * @param region the region, or null for the first the catalogue lists
     * @param usdPerHour the rate set in dollars, or NaN
     */
    private record Unlabelled(String instanceType, Market market, String cloud, String region,
            double usdPerHour) implements Serializable {

        /** Nodes without labels cost nothing. */
        static final Unlabelled FREE = new Unlabelled(null, Market.ON_DEMAND, null, null,
                Double.NaN);

        boolean priced() {
            return instanceType != null || !Double.isNaN(usdPerHour);
        }
    }

    private Pricing(String catalogFile, Unlabelled unlabelled) {
        this.catalogFile = catalogFile;
        this.unlabelled = unlabelled;
    }

    /**
     * Prices every node without labels as one instance type.
     *
     * @param type e.g. {@code m5.xlarge}
     * @param market spot or on-demand
     * @param cloud the cloud, or null for any
     * @param region the region, or null for the first the catalogue lists
     * @return the pricing (the catalogue of this one is kept)
     */
    public Pricing withInstance(String type, Market market, String cloud, String region) {
        return new Pricing(catalogFile, new Unlabelled(type, market, cloud, region, Double.NaN));
    }

    /**
     * Prices every node without labels at a rate.
     *
     * @param usd dollars per hour, at least 0
     * @return the pricing (the catalogue of this one is kept)
     */
    public Pricing withRate(double usd) {
        if (!(usd >= 0) || !Double.isFinite(usd)) {
            throw new DmlException("A node's price must be a number of dollars per hour of at"
                    + " least 0, got " + usd + ".", "Write e.g. --usd-per-hour 0.192.");
        }
        return new Pricing(catalogFile, new Unlabelled(null, unlabelled.market(), null, null,
                usd));
    }

    /**
     * Searches a user's catalogue before dml's own; it is read (and checked) at once.
     *
     * @param file a CSV in SkyPilot's vms.csv columns
     * @return the pricing
     * @throws DmlException one line on what is wrong in the file
     */
    public Pricing withCatalog(Path file) {
        PriceCatalog.load(file);
        return new Pricing(file.toAbsolutePath().toString(), unlabelled);
    }

    /**
     * Tells whether nodes without labels are priced.
     *
     * @return {@code true} after {@link #withInstance} or {@link #withRate}
     */
    public boolean pricesUnlabelled() {
        return unlabelled.priced();
    }

    /**
     * Prices a node from its Ray labels.
     *
     * @param labels the node's labels; empty for none
     * @return the price, NaN with a {@link NodePrice#problem()} when the catalogue lacks it
     */
    public NodePrice price(Map<String, String> labels) {
        String type = labels.get(INSTANCE_TYPE);
        if (type != null && !type.isBlank()) {
            Market m;
            try {
                m = labels.containsKey(MARKET) ? Market.parse(labels.get(MARKET))
                        : Market.ON_DEMAND;
            } catch (DmlException bad) {
                return new NodePrice(Double.NaN, type, false, "The node label " + MARKET
                        + " is '" + labels.get(MARKET) + "'; write spot or on-demand.");
            }
            return lookup(type, m, labels.get(CLOUD), labels.get(REGION));
        }
        Unlabelled u = unlabelled;
        if (!Double.isNaN(u.usdPerHour())) {
            return new NodePrice(u.usdPerHour(), "set by %dml cluster price", false, "");
        }
        if (u.instanceType() != null) {
            return lookup(u.instanceType(), u.market(), u.cloud(), u.region());
        }
        return NodePrice.UNPRICED;
    }

    /**
     * Prices the same nodes in another market: labelled nodes as if their market label said
     * so, and nodes priced by instance type in that market. A rate set in dollars has no
     * market, so it stays.
     *
     * @param other spot or on-demand
     * @return the pricing
     */
    public Pricing inMarket(Market other) {
        Unlabelled u = unlabelled;
        return u.instanceType() == null ? this : new Pricing(catalogFile, new Unlabelled(
                u.instanceType(), other, u.cloud(), u.region(), u.usdPerHour()));
    }

    /**
     * Returns the instance type that nodes without labels are priced as.
     *
     * @return the type; empty when they are unpriced or priced by a rate
     */
    public Optional<String> instanceType() {
        return Optional.ofNullable(unlabelled.instanceType());
    }

    /**
     * Finds an instance type in the catalogues this pricing searches (the user's first), in
     * the cloud and region of {@code %dml cluster price} when it named them.
     *
     * @param type e.g. {@code g5.xlarge}
     * @return its row
     */
    public Optional<InstancePrice> instance(String type) {
        for (PriceCatalog catalog : catalogs()) {
            Optional<InstancePrice> row = catalog.find(type, unlabelled.cloud(),
                    unlabelled.region());
            if (row.isPresent()) {
                return row;
            }
        }
        return Optional.empty();
    }

    private List<PriceCatalog> catalogs() {
        List<PriceCatalog> chain = new ArrayList<>();
        if (catalogFile != null) {
            chain.add(PriceCatalog.load(Path.of(catalogFile)));
        }
        chain.add(PriceCatalog.builtIn());
        return chain;
    }

    /**
     * Prices the nodes without labels as {@code %dml cluster price} set them, failing when the
     * catalogue cannot: what the command checks before it keeps the setting.
     *
     * @return the price of a node without labels
     * @throws DmlException one line on what the catalogue lacks, and how to price it instead
     */
    public NodePrice check() {
        NodePrice p = price(Map.of());
        if (!p.known()) {
            throw new DmlException(p.problem(), HINT);
        }
        return p;
    }

    private NodePrice lookup(String type, Market m, String c, String r) {
        String who = (c == null ? "" : c + " ") + type + " " + m.word();
        List<PriceCatalog> chain = catalogs();
        for (PriceCatalog catalog : chain) {
            Optional<InstancePrice> row = catalog.find(type, c, r);
            if (row.isEmpty()) {
                continue;
            }
            InstancePrice p = row.get();
            String what = p.label().replace(p.instanceType(), p.instanceType() + " "
                    + m.word()) + " (" + catalog.name() + (p.date().isEmpty() ? ""
                    : ", " + p.date()) + ")";
            double usd = p.price(m);
            return Double.isNaN(usd)
                    ? new NodePrice(Double.NaN, what, m == Market.SPOT, catalog.name()
                            + " has no " + m.word() + " price for " + p.label() + ".")
                    : new NodePrice(usd, what, m == Market.SPOT, "");
        }
        List<String> regions = new ArrayList<>();
        chain.forEach(k -> regions.addAll(k.regions(type)));
        String problem = regions.isEmpty() ? "No price catalogue lists " + who + "."
                : "No price catalogue lists " + who + " in " + r + " (only in "
                        + String.join(", ", regions) + ").";
        return new NodePrice(Double.NaN, who, m == Market.SPOT, problem);
    }

    /**
     * Says what nodes without labels cost, as {@code %dml cluster price} confirms it.
     *
     * @return one line
     */
    public String describe() {
        String cost = "nothing (not priced; the embedded local cluster is free)";
        if (pricesUnlabelled()) {
            NodePrice p = check();
            cost = "$" + plain(p.usdPerHour()) + "/h each"
                    + (unlabelled.instanceType() == null ? "" : ": " + p.what());
        }
        return "Nodes with dml.dev labels are priced from "
                + (catalogFile == null ? "dml's price catalogue" : catalogFile
                        + ", then dml's price catalogue")
                + "; nodes without them cost " + cost + ".";
    }

    static String plain(double usd) {
        return String.format(Locale.ROOT, "%.4f", usd).replaceAll("0+$", "").replaceAll("\\.$",
                "");
    }
}
