package dev.dml.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PricingTest {

    private static Map<String, String> labels(String type, String market, String region) {
        return Map.of(Pricing.CLOUD, "aws", Pricing.REGION, region, Pricing.INSTANCE_TYPE, type,
                Pricing.MARKET, market);
    }

    @Test
    void aLabelledNodeIsPricedFromTheCatalogueInItsMarket() {
        NodePrice spot = Pricing.NONE.price(labels("g5.xlarge", "spot", "us-west-2"));
        assertEquals(0.40, spot.usdPerHour(), 1e-9);
        assertTrue(spot.spot());
        assertEquals("aws g5.xlarge spot, us-west-2 (dml's price catalogue, 2025-05-31)",
                spot.what());
        NodePrice od = Pricing.NONE.price(labels("g5.xlarge", "on-demand", "us-west-2"));
        assertEquals(1.006, od.usdPerHour(), 1e-9);
        assertFalse(od.spot());
    }

    @Test
    void anUnlabelledNodeCostsNothingUntilPriced() {
        assertEquals(NodePrice.UNPRICED, Pricing.NONE.price(Map.of()));
        assertFalse(Pricing.NONE.price(Map.of()).priced());
        NodePrice m5 = Pricing.NONE.withInstance("m5.xlarge", Market.ON_DEMAND, null, null)
                .price(Map.of());
        assertEquals(0.192, m5.usdPerHour(), 1e-9);
        assertTrue(m5.priced());
        assertEquals(3.5, Pricing.NONE.withRate(3.5).price(Map.of()).usdPerHour());
        // labels win over the cluster-wide price
        assertEquals(1.006, Pricing.NONE.withRate(3.5)
                .price(labels("g5.xlarge", "on-demand", "us-east-1")).usdPerHour(), 1e-9);
    }

    @Test
    void aTypeOrMarketTheCatalogueLacksIsUnknownAndSaysWhy() {
        NodePrice eu = Pricing.NONE.price(labels("g5.xlarge", "spot", "eu-west-1"));
        assertFalse(eu.known());
        assertEquals("No price catalogue lists aws g5.xlarge spot in eu-west-1 (only in"
                + " us-east-1, us-west-2).", eu.problem());
        Pricing azureSpot = Pricing.NONE.withInstance("Standard_ND96asr_v4", Market.SPOT,
                "azure", "eastus");
        DmlException e = assertThrows(DmlException.class, azureSpot::check);
        assertEquals("dml's price catalogue has no spot price for azure Standard_ND96asr_v4,"
                + " eastus.", e.what());
        assertTrue(e.hint().contains("--usd-per-hour"));
        assertThrows(DmlException.class, () -> Pricing.NONE.withInstance("x9.huge",
                Market.ON_DEMAND, null, null).check());
        assertThrows(DmlException.class, () -> Pricing.NONE.withRate(-1));
    }

    @Test
    void aUsersCatalogueComesFirstAndTravelsToTheDriver(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("vms.csv");
        Files.writeString(f, "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,"
                + "Price,SpotPrice,Region,AvailabilityZone\n"
                + "m5.xlarge,,,4,16,0.25,0.05,us-east-1,us-east-1a\n");
        Pricing mine = Pricing.NONE.withCatalog(f).withInstance("m5.xlarge", Market.SPOT, null,
                "us-east-1");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(mine);
        }
        Pricing back = (Pricing) new ObjectInputStream(
                new ByteArrayInputStream(bytes.toByteArray())).readObject();
        assertEquals(0.05, back.check().usdPerHour(), 1e-9);
        assertTrue(back.describe().contains(f.toAbsolutePath().toString()), back.describe());
        assertEquals(1.006, back.price(labels("g5.xlarge", "on-demand", "us-east-1"))
                .usdPerHour(), 1e-9);
        Files.writeString(dir.resolve("bad.csv"), "nonsense\n");
        assertThrows(DmlException.class, () -> Pricing.NONE.withCatalog(dir.resolve("bad.csv")));
    }
}
