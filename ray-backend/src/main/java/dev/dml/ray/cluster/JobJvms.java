package dev.dml.ray.cluster;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What every JVM of a job gets, the driver's and each worker's: JVM options and environment. */
public final class JobJvms {

    private JobJvms() {}

    /** Lets Java 17 reflect into JDK types, as Ray's serializer (FST) needs. */
    static final List<String> ADD_OPENS = List.of(
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.math=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED");

    /**
     * Environment variables that the driver process and every worker process of its job get,
     * unless this JVM's environment already sets them. {@code THP_MEM_ALLOC_ENABLE=1} makes
     * PyTorch back large CPU tensors with transparent huge pages: a freshly allocated tensor is
     * then written (decoded into) without a page fault per 4 KiB, about three times faster where
     * the kernel's THP mode is {@code madvise}.
     */
    public static final Map<String, String> WORKER_ENV = Map.of("THP_MEM_ALLOC_ENABLE", "1");

    /**
     * Returns the value of each {@link #WORKER_ENV} variable that a driver or worker gets: this
     * JVM's own value where it has one, else the default.
     *
     * @return the variables, by name
     */
    static Map<String, String> workerEnv() {
        Map<String, String> out = new TreeMap<>();
        WORKER_ENV.forEach((k, v) -> out.put(k, System.getenv().getOrDefault(k, v)));
        return out;
    }
}
