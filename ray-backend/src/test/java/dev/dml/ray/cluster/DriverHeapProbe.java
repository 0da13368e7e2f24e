package dev.dml.ray.cluster;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/** Returns the names of the driver JVM's collectors (the serial one's are Copy, MarkSweep...). */
final class DriverHeapProbe implements DriverTask<String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String run(DriverContext context) {
        List<String> names = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).toList();
        return String.join(",", names);
    }
}
