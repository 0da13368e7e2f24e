package dev.dml.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PriceCatalogTest {

    private static final String SKY_HEADER = "InstanceType,AcceleratorName,AcceleratorCount,"
            + "vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone";

    @Test
    void theShippedCatalogueHasTheIssuesFiguresEachWithASourceAndADate() {
        PriceCatalog c = PriceCatalog.builtIn();
        InstancePrice g5 = c.find("g5.xlarge", "aws", "us-east-1").orElseThrow();
        assertEquals(1.006, g5.onDemand(), 1e-9);
        assertEquals(0.40, g5.price(Market.SPOT), 1e-9);
        assertEquals("A10G", g5.accelerator());
        assertEquals(1, g5.acceleratorCount());
        assertEquals(32.7726, c.find("p4d.24xlarge", "aws", null).orElseThrow().onDemand(), 1e-9);
        assertEquals(98.32, c.find("p5.48xlarge", null, null).orElseThrow().onDemand(), 1e-9);
        assertEquals(3.6734, c.find("a2-highgpu-1g", "gcp", "us-central1").orElseThrow()
                .onDemand(), 1e-9);
        assertEquals(27.20, c.find("Standard_ND96asr_v4", "azure", "eastus").orElseThrow()
                .onDemand(), 1e-9);
        assertEquals(Set.of("aws", "gcp", "azure"), Set.copyOf(c.rows().stream()
                .map(InstancePrice::cloud).toList()));
        for (InstancePrice p : c.rows()) {
            assertTrue(p.source().startsWith("https://"), p.label());
            assertTrue(p.date().matches("\\d{4}-\\d{2}-\\d{2}"), p.label());
            assertTrue(p.onDemand() > 0, p.label());
            // a spot price is never above the list price; where the row has none, it says so
            assertTrue(Double.isNaN(p.spot()) ? p.note().contains("spot")
                    : p.spot() < p.onDemand(), p.label());
        }
        // every instance type the cluster files launch is priced in their regions
        assertTrue(c.find("m6i.xlarge", "aws", "us-west-2").isPresent());
        assertTrue(c.find("g5.xlarge", "aws", "us-west-2").isPresent());
        assertTrue(c.find("n2-standard-4", "gcp", "us-central1").isPresent());
    }

    @Test
    void aSkyPilotVmsCsvReadsWithItsOwnColumnsAndQuotes(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("vms.csv");
        Files.writeString(f, SKY_HEADER + "\n"
                + "m5.xlarge,,,4.0,16.0,0.2,0.07,us-east-2,us-east-2a\n"
                + "\"g5.xlarge\",A10G,1.0,4.0,16.0,1.1,,\"eu-west-1\",eu-west-1a\n");
        PriceCatalog c = PriceCatalog.load(f);
        assertEquals(2, c.rows().size());
        assertEquals(0.07, c.find("M5.XLARGE", "aws", "us-east-2").orElseThrow().spot(), 1e-9);
        InstancePrice g5 = c.find("g5.xlarge", null, "eu-west-1").orElseThrow();
        assertTrue(Double.isNaN(g5.spot()));
        assertEquals("", g5.cloud());
        assertEquals(Set.of("eu-west-1"), c.regions("g5.xlarge"));
        assertFalse(c.find("g5.xlarge", null, "us-east-1").isPresent());
    }

    @Test
    void aMalformedCatalogueFailsWithOneLineNamingTheLine(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("mine.csv");
        Files.writeString(f, SKY_HEADER + "\nm5.xlarge,,,4,16,cheap,,us-east-1,\n");
        DmlException e = assertThrows(DmlException.class, () -> PriceCatalog.load(f));
        assertEquals("Price catalogue " + f + ", line 2: Price 'cheap' is not a number of at"
                + " least 0.", e.what());
        assertTrue(e.hint().contains("SkyPilot's vms.csv columns"), e.hint());
        assertFalse(e.what().contains("\n"));

        for (List<String> bad : List.of(
                List.of("InstanceType,Price\nm5.xlarge,0.1\n", "the header has no Region column"),
                List.of(SKY_HEADER + "\nm5.xlarge,,,4,16,0.1,,us-east-1\n",
                        "it has 8 columns, the header 9"),
                List.of(SKY_HEADER + "\nm5.xlarge,,,4,16,-1,,us-east-1,\n",
                        "Price '-1' is not a number of at least 0"),
                List.of(SKY_HEADER + "\n\"m5.xlarge,,,4,16,1,,us-east-1,\n",
                        "a quote is not closed"),
                List.of("", "it is empty, with no header line"))) {
            DmlException x = assertThrows(DmlException.class,
                    () -> PriceCatalog.parse("t.csv", bad.get(0)));
            assertTrue(x.what().endsWith(bad.get(1) + "."), x.what());
        }
        DmlException missing = assertThrows(DmlException.class,
                () -> PriceCatalog.load(dir.resolve("none.csv")));
        assertTrue(missing.what().startsWith("Cannot read the price catalogue"), missing.what());
    }
}
