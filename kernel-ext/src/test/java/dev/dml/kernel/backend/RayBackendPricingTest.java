package dev.dml.kernel.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.cost.Market;
import dev.dml.cost.Pricing;
import dev.dml.magics.DmlBackend;
import org.junit.jupiter.api.Test;

/** %dml cluster price before any cluster is open: kept for the cluster the first job opens. */
class RayBackendPricingTest {

    @Test
    void aPriceIsKeptWithoutStartingACluster() {
        try (RayBackend backend = new RayBackend(NotebookData.filesOnly(), null)) {
            assertSame(Pricing.NONE, backend.pricing());
            Pricing m5 = Pricing.NONE.withInstance("m5.xlarge", Market.ON_DEMAND, "aws", null);
            DmlBackend.ClusterView view = backend.price(m5);
            assertEquals("", view.address(), "pricing starts no cluster");
            assertTrue(view.nodes().isEmpty());
            assertSame(m5, backend.pricing());
        }
    }
}
