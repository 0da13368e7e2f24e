package dev.dml.magics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.cost.Pricing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The words of %dml cluster price, read into the session's pricing. */
class ClusterPriceTest {

    private static Pricing parse(String type, Map<String, List<String>> options) {
        return ClusterPrice.parse(type, options, Pricing.NONE);
    }

    @Test
    void anInstanceTypeOrARatePricesTheUnlabelledNodes() {
        assertEquals(0.192, parse("m5.xlarge", Map.of()).check().usdPerHour(), 1e-9);
        assertEquals(0.40, parse("g5.xlarge", Map.of("market", List.of("spot"), "region",
                List.of("us-west-2"))).check().usdPerHour(), 1e-9);
        assertEquals(4.5, parse(null, Map.of("usd-per-hour", List.of("4.5"))).check()
                .usdPerHour());
        Pricing priced = parse("m5.xlarge", Map.of());
        assertSame(priced, ClusterPrice.parse(null, Map.of(), priced), "no words: unchanged");
        assertTrue(!ClusterPrice.parse("off", Map.of(), priced).pricesUnlabelled());
    }

    @Test
    void badWordsFailWithOneLine(@TempDir Path dir) throws Exception {
        assertEquals("No price catalogue lists x9.huge on-demand.", assertThrows(
                DmlException.class, () -> parse("x9.huge", Map.of())).what());
        assertEquals("Unknown market 'cheap'.", assertThrows(DmlException.class,
                () -> parse("m5.xlarge", Map.of("market", List.of("cheap")))).what());
        assertTrue(assertThrows(DmlException.class, () -> parse(null,
                Map.of("usd-per-hour", List.of("lots")))).what()
                .startsWith("--usd-per-hour must be dollars per hour"));
        assertTrue(assertThrows(DmlException.class, () -> parse("m5.xlarge",
                Map.of("usd-per-hour", List.of("1")))).what().contains("not both"));
        assertTrue(assertThrows(DmlException.class, () -> parse(null,
                Map.of("region", List.of("us-east-1")))).what().contains("go with an instance"));
        Path bad = dir.resolve("vms.csv");
        Files.writeString(bad, "InstanceType,Price,Region\nm5.xlarge,0.1\n");
        DmlException e = assertThrows(DmlException.class, () -> parse("m5.xlarge",
                Map.of("catalog", List.of(bad.toString()))));
        assertEquals("Price catalogue " + bad + ", line 2: it has 2 columns, the header 3.",
                e.what());
    }
}
