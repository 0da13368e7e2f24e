package dev.dml.ray.train.device;

import ai.djl.engine.Engine;
import ai.djl.engine.StandardCapabilities;
import ai.djl.pytorch.jni.LibUtils;
import ai.djl.util.Utils;
import ai.djl.util.cuda.CudaUtils;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import io.ray.api.Ray;
import java.net.InetAddress;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads, in a worker, what {@link GpuAssignment} decides on: the GPU ids Ray assigned the actor,
 * the PyTorch engine's flavor and CUDA capability, the GPUs CUDA sees, and the CUDA version the
 * NVIDIA driver supports. Only called when the job asked for GPUs: a CPU job never loads CUDA.
 */
final class GpuProbe {

    private static final Logger LOG = LoggerFactory.getLogger(GpuProbe.class);

    private GpuProbe() {}

    /** The driver API's version query; libcuda is the driver's own library. */
    interface CudaDriver extends Library {
        int cuDriverGetVersion(IntByReference version);
    }

    /**
     * Gathers the facts in this worker.
     *
     * @param asked {@code --gpus-per-worker}
     * @return the facts
     */
    static GpuAssignment.Facts facts(double asked) {
        List<Long> ids = Ray.getRuntimeContext().isLocalMode() ? List.of()
                : Ray.getRuntimeContext().getGpuIds();
        Engine engine = Engine.getEngine("PyTorch");
        String flavor = GpuAssignment.flavor(Utils.getEnvOrSystemProperty("PYTORCH_FLAVOR"),
                LibUtils.getLibtorchPath());
        boolean cuda = engine.hasCapability(StandardCapabilities.CUDA);
        int devices = CudaUtils.getGpuCount();
        int driver = driverCuda();
        GpuAssignment.Facts f = new GpuAssignment.Facts(asked, ids,
                System.getenv("CUDA_VISIBLE_DEVICES"), flavor, engine.getVersion(), cuda, devices,
                driver, host());
        LOG.info("GPU facts: {}", f);
        return f;
    }

    /** The CUDA version the driver supports, or 0 where there is no driver. */
    static int driverCuda() {
        for (String name : new String[] {"libcuda.so.1", "cuda"}) {
            try {
                CudaDriver d = Native.load(name, CudaDriver.class);
                IntByReference v = new IntByReference();
                return d.cuDriverGetVersion(v) == 0 ? v.getValue() : 0;
            } catch (UnsatisfiedLinkError e) {
                // not this name; no driver when none loads
            }
        }
        return 0;
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "this node";
        }
    }
}
