package dev.dml.cost;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Instance prices, offline: dml's own dated catalogue ({@link #builtIn()}, the resource {@code
 * dev/dml/cost/prices.csv}) or a user's ({@link #load(Path)}), in SkyPilot's catalog columns
 * {@code InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price, SpotPrice,
 * Region, AvailabilityZone}. dml's file adds {@code Cloud}, {@code Source}, {@code PriceDate}
 * and {@code Note}; a SkyPilot {@code vms.csv} without them reads as well. Only {@code
 * InstanceType}, {@code Price} and {@code Region} are required.
 */
public final class PriceCatalog {

    private static final String RESOURCE = "prices.csv";
    private static final List<String> REQUIRED = List.of("InstanceType", "Price", "Region");
    private static final String HINT = "A catalogue is a CSV with SkyPilot's vms.csv columns"
            + " (InstanceType, Price and Region at least; prices in $ per hour); fix the row"
            + " or remove it.";
    private static volatile PriceCatalog builtIn;

    private final String name;
    private final List<InstancePrice> rows;

    private PriceCatalog(String name, List<InstancePrice> rows) {
        this.name = name;
        this.rows = List.copyOf(rows);
    }

    /**
     * Returns the catalogue shipped with dml: common training instance types of AWS, GCP and
     * Azure, each row with its source and date (docs/cost.md says which figures are
     * approximate).
     *
     * @return the catalogue
     */
    public static PriceCatalog builtIn() {
        PriceCatalog c = builtIn;
        if (c == null) {
            try (InputStream in = PriceCatalog.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("dml's " + RESOURCE + " is missing");
                }
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                c = parse("dml's price catalogue", text);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            builtIn = c;
        }
        return c;
    }

    /**
     * Reads a user's catalogue, e.g. SkyPilot's {@code ~/.sky/catalogs/v7/aws/vms.csv}.
     *
     * @param file the CSV file
     * @return the catalogue
     * @throws DmlException one line naming the file, the line and what is wrong in it
     */
    public static PriceCatalog load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new DmlException("Cannot read the price catalogue "
                    + DmlException.literal(file) + ": " + e.getMessage() + ".",
                    "Give the path of a readable CSV file, e.g. SkyPilot's vms.csv.", e);
        }
        return parse(file.toString(), text);
    }

    /**
     * Reads a catalogue from its text.
     *
     * @param name what messages call it, e.g. its file
     * @param text the CSV, header first
     * @return the catalogue
     * @throws DmlException one line naming the line and what is wrong in it
     */
    public static PriceCatalog parse(String name, String text) {
        List<String> lines = text.lines().toList();
        if (lines.isEmpty() || lines.get(0).isBlank()) {
            throw bad(name, 1, "it is empty, with no header line");
        }
        List<String> header = Csv.split(lines.get(0), name, 1);
        Map<String, Integer> at = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < header.size(); i++) {
            at.put(header.get(i).strip(), i);
        }
        for (String required : REQUIRED) {
            if (!at.containsKey(required)) {
                throw bad(name, 1, "the header has no " + required + " column");
            }
        }
        List<InstancePrice> rows = new ArrayList<>();
        for (int n = 1; n < lines.size(); n++) {
            if (lines.get(n).isBlank()) {
                continue;
            }
            List<String> cells = Csv.split(lines.get(n), name, n + 1);
            if (cells.size() != header.size()) {
                throw bad(name, n + 1, "it has " + cells.size() + " columns, the header "
                        + header.size());
            }
            rows.add(new Row(name, n + 1, cells, at).read());
        }
        return new PriceCatalog(name, rows);
    }

    /**
     * Returns the catalogue's name, as messages show it.
     *
     * @return e.g. its file
     */
    public String name() {
        return name;
    }

    /**
     * Returns every row, in file order.
     *
     * @return the rows
     */
    public List<InstancePrice> rows() {
        return rows;
    }

    /**
     * Finds an instance type's price; the first row that matches wins.
     *
     * @param instanceType e.g. {@code g5.xlarge} (any case)
     * @param cloud the cloud, or null for any; rows without a cloud match any
     * @param region the region, or null for the first region the catalogue lists
     * @return the row, or empty when none matches
     */
    public Optional<InstancePrice> find(String instanceType, String cloud, String region) {
        return rows.stream().filter(r -> r.instanceType().equalsIgnoreCase(instanceType))
                .filter(r -> cloud == null || r.cloud().isEmpty()
                        || r.cloud().equalsIgnoreCase(cloud))
                .filter(r -> region == null || r.region().equalsIgnoreCase(region))
                .findFirst();
    }

    /**
     * Lists the regions in which the catalogue prices an instance type.
     *
     * @param instanceType e.g. {@code g5.xlarge}
     * @return the regions, in file order; empty when the type is not listed
     */
    public Set<String> regions(String instanceType) {
        Set<String> out = new LinkedHashSet<>();
        rows.stream().filter(r -> r.instanceType().equalsIgnoreCase(instanceType))
                .forEach(r -> out.add(r.region()));
        return out;
    }

    static DmlException bad(String name, int line, String what) {
        return new DmlException("Price catalogue " + DmlException.literal(name) + ", line "
                + line + ": " + what + ".", HINT);
    }

    /** One data line, read against the header's columns. */
    private record Row(String name, int line, List<String> cells, Map<String, Integer> at) {

        InstancePrice read() {
            String type = text("InstanceType");
            if (type.isEmpty()) {
                throw bad(name, line, "InstanceType is empty");
            }
            String region = text("Region");
            if (region.isEmpty()) {
                throw bad(name, line, "Region is empty");
            }
            double count = number("AcceleratorCount");
            return new InstancePrice(text("Cloud"), type, text("AcceleratorName"),
                    Double.isNaN(count) ? 0 : (int) count, number("vCPUs"), number("MemoryGiB"),
                    number("Price"), number("SpotPrice"), region, text("AvailabilityZone"),
                    text("Source"), text("PriceDate"), text("Note"));
        }

        private String text(String column) {
            Integer i = at.get(column);
            return i == null ? "" : cells.get(i).strip();
        }

        /** A number, or NaN for an empty cell or a missing column. */
        private double number(String column) {
            String t = text(column);
            if (t.isEmpty()) {
                return Double.NaN;
            }
            try {
                double d = Double.parseDouble(t);
                if (d < 0 || !Double.isFinite(d)) {
                    throw new NumberFormatException(t);
                }
                return d;
            } catch (NumberFormatException e) {
                throw bad(name, line, column + " '" + DmlException.literal(t)
                        + "' is not a number of at least 0");
            }
        }
    }
}
