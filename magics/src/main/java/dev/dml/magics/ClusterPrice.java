package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.cost.Market;
import dev.dml.cost.Pricing;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The words of {@code %dml cluster price}: an instance type with its market, cloud and region,
 * or {@code --usd-per-hour}, and a user's catalogue with {@code --catalog}; {@code off} forgets
 * the price. Nodes that carry dml's labels keep their own price.
 */
final class ClusterPrice {

    /** The options {@code price} takes. */
    static final List<String> KEYWORDS = List.of("market", "cloud", "region", "usd-per-hour",
            "catalog");
    static final String USAGE = "%dml cluster price [INSTANCE-TYPE [--market spot|on-demand]"
            + " [--cloud C] [--region R] | --usd-per-hour X | off] [--catalog vms.csv]";

    private ClusterPrice() {}

    /** The lines {@code %dml help cluster} adds. */
    static List<String> usage() {
        return List.of("price    what the nodes without dml.dev labels cost (the embedded"
                        + " cluster is free until priced):",
                "         an instance type from the price catalogue, or --usd-per-hour;"
                        + " --catalog adds your own",
                "         catalogue (SkyPilot's vms.csv columns); 'off' forgets the price",
                "  " + USAGE);
    }

    /**
     * Reads the words after {@code price} into the session's new pricing.
     *
     * @param type the instance type, {@code off}, or null
     * @param options the keywords given
     * @param current the session's pricing now
     * @return the new pricing, checked against the catalogue
     * @throws DmlException one line on what is wrong and how to write it
     */
    static Pricing parse(String type, Map<String, List<String>> options, Pricing current) {
        String rate = one(options, "usd-per-hour");
        String catalog = one(options, "catalog");
        boolean place = one(options, "market") != null || one(options, "cloud") != null
                || one(options, "region") != null;
        if (type == null && rate == null && catalog == null && !place) {
            return current;
        }
        Pricing p = "off".equals(type) ? Pricing.NONE : current;
        if (catalog != null) {
            p = p.withCatalog(Path.of(catalog));
        }
        if (rate != null) {
            if (type != null || place) {
                throw new DmlException("%dml cluster price takes an instance type or"
                        + " --usd-per-hour, not both.", "Usage: " + USAGE);
            }
            double usd;
            try {
                usd = Double.parseDouble(rate);
            } catch (NumberFormatException e) {
                usd = -1;
            }
            if (!(usd >= 0) || Double.isInfinite(usd)) {
                throw new DmlException("--usd-per-hour must be dollars per hour of at least 0,"
                        + " got '" + DmlException.literal(rate) + "'.",
                        "Write e.g. --usd-per-hour 0.192.");
            }
            return p.withRate(usd);
        }
        if (type == null || "off".equals(type)) {
            if (place) {
                throw new DmlException("--market, --cloud and --region go with an instance"
                        + " type.", "Usage: " + USAGE);
            }
            return p;
        }
        String market = one(options, "market");
        p = p.withInstance(type, market == null ? Market.ON_DEMAND : Market.parse(market),
                one(options, "cloud"), one(options, "region"));
        p.check();
        return p;
    }

    private static String one(Map<String, List<String>> options, String key) {
        List<String> v = options.getOrDefault(key, List.of());
        return v.isEmpty() ? null : v.get(v.size() - 1);
    }
}
