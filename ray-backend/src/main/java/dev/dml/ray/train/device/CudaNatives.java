package dev.dml.ray.train.device;

import dev.dml.DmlEnv;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * DJL's CUDA build of PyTorch for the workers of a job that asked for GPUs, and for no other:
 * a GPU node's setup ({@code clusters/node/setup.sh --gpu}) installs a CUDA libtorch and records
 * it as {@code DML_PYTORCH_LIBRARY_PATH}, {@code DML_PYTORCH_VERSION} and {@code
 * DML_PYTORCH_FLAVOR} in the environment Ray starts workers with. A GPU job's worker turns them
 * into DJL's own settings (system properties, which DJL reads like environment variables)
 * before its engine loads; a CPU job's keeps the CPU build its jars carry. Settings the job
 * gives itself (worker JVM options such as {@code -DPYTORCH_FLAVOR=cu128}) or the node gives
 * under DJL's names win. Nothing CUDA is ever on the kernel's class path.
 */
final class CudaNatives {

    /** DJL's settings for where libtorch comes from. */
    static final List<String> DJL_NAMES = List.of("PYTORCH_LIBRARY_PATH", "PYTORCH_VERSION",
            "PYTORCH_FLAVOR");
    private CudaNatives() {}

    /**
     * The DJL settings a worker sets before its engine loads.
     *
     * @param gpus the job's {@code --gpus-per-worker}
     * @param env the worker's environment
     * @param props the worker's system properties
     * @return DJL's names to their values; empty for a CPU job, or where DJL is already told
     */
    static Map<String, String> settings(double gpus, Map<String, String> env, Properties props) {
        Map<String, String> out = new LinkedHashMap<>();
        if (gpus <= 0) {
            return out;
        }
        for (String name : DJL_NAMES) {
            if (env.get(name) != null || props.getProperty(name) != null) {
                return Map.of(); // the job or the node chose a libtorch itself
            }
        }
        DmlEnv node = DmlEnv.of(env);
        for (String name : DJL_NAMES) {
            node.value(DmlEnv.NODE_LIBTORCH_PREFIX + name).ifPresent(v -> out.put(name, v));
        }
        return out;
    }

    /**
     * Sets them in this worker; call before anything loads the PyTorch engine.
     *
     * @param gpus the job's {@code --gpus-per-worker}
     * @return what was set
     */
    static Map<String, String> apply(double gpus) {
        Map<String, String> s = settings(gpus, System.getenv(), System.getProperties());
        s.forEach(System::setProperty);
        return s;
    }
}
