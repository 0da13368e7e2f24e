package dev.dml.ray.train.device;

import dev.dml.DmlException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which CUDA device a worker trains on, decided from what it found out ({@link Facts}, read by
 * {@link GpuProbe}): the GPU Ray assigned it, or a refusal that names the case and what to do.
 * Pure, so every case is tested without a GPU. A worker that asked for no GPU trains on the CPU.
 */
public final class GpuAssignment {

    /** The CPU, as an ordinal. */
    static final int CPU = -1;

    /** The DJL flavor in a libtorch folder name such as {@code 2.7.1-20250812-cpu-linux-x86_64}. */
    private static final Pattern FLAVOR = Pattern.compile(
            "-((?:cpu|cu\\d{3,})(?:-precxx11)?)-(?:linux|osx|win)");
    private static final String HOW_CUDA = "Give the workers DJL's CUDA build of PyTorch:"
            + " PYTORCH_FLAVOR (e.g. cu128), or PYTORCH_LIBRARY_PATH and PYTORCH_VERSION for an"
            + " installed libtorch (docs/gpu.md), or set {gpus-per-worker=0} to train on CPUs.";

    private GpuAssignment() {}

    /**
     * What a worker knows about its GPU.
     *
     * @param asked the GPUs it reserved ({@code --gpus-per-worker})
     * @param rayGpuIds the GPU ids Ray assigned it
     * @param cudaVisibleDevices its {@code CUDA_VISIBLE_DEVICES}, or null when unset
     * @param flavor DJL's PyTorch flavor ({@code cpu}, {@code cu128}), or null when unknown
     * @param engineVersion the libtorch version, e.g. {@code 2.7.1}
     * @param engineCuda whether the engine reports the CUDA capability
     * @param cudaDevices the GPUs CUDA sees in this process
     * @param driverCuda the CUDA version the NVIDIA driver supports, {@code 1000 * major + 10 *
     *     minor} as {@code cuDriverGetVersion} gives it; 0 without a driver
     * @param host the worker's host, for the messages
     */
    record Facts(double asked, List<Long> rayGpuIds, String cudaVisibleDevices, String flavor,
            String engineVersion, boolean engineCuda, int cudaDevices, int driverCuda,
            String host) {

        Facts {
            rayGpuIds = List.copyOf(rayGpuIds);
        }
    }

    /**
     * Refuses a job whose workers each ask for more than one GPU: a worker trains one replica on
     * one device, so the others would be paid for and idle. Called in the driver, before any
     * worker starts.
     *
     * @param gpus {@code --gpus-per-worker}
     * @throws DmlException when {@code gpus > 1}
     */
    public static void requireAtMostOne(double gpus) {
        if (gpus > 1) {
            throw new DmlException("Each worker trains on one GPU, but {gpus-per-worker} asks"
                    + " for " + fmt(gpus) + ": the others would be reserved and idle.",
                    "Use {gpus-per-worker=1} (or a fraction to share a GPU) and more {workers}.");
        }
    }

    /**
     * Picks the device.
     *
     * @param f what the worker found out
     * @return the CUDA ordinal to train on, or {@link #CPU} when no GPU was asked for
     * @throws DmlException naming the case (no GPU assigned, no CUDA in the engine, a build that
     *     does not match the driver, a GPU CUDA cannot see) and what to do
     */
    static int choose(Facts f) {
        if (f.asked() <= 0) {
            return CPU;
        }
        if (f.rayGpuIds().isEmpty()) {
            throw new DmlException("No GPU assigned: Ray gave the worker on " + f.host() + " no"
                    + " GPU, though {gpus-per-worker} is " + fmt(f.asked()) + ".",
                    "Run the job on a cluster whose nodes offer GPUs to Ray (ray start"
                            + " --num-gpus), or set {gpus-per-worker=0} to train on CPUs.");
        }
        int build = buildCuda(f.flavor());
        boolean cudaEngine = build > 0 || (f.flavor() == null && f.engineCuda());
        if (!cudaEngine) {
            throw new DmlException("No CUDA in the workers' engine: PyTorch " + f.engineVersion()
                    + " (DJL flavor " + (f.flavor() == null ? "unknown" : f.flavor()) + ") on "
                    + f.host() + " cannot use the GPU Ray assigned.", HOW_CUDA);
        }
        if (f.driverCuda() <= 0 && f.cudaDevices() == 0) {
            throw new DmlException("No NVIDIA driver on " + f.host() + ": the workers' CUDA"
                    + " build of PyTorch " + f.engineVersion() + " finds no GPU.",
                    "Install the NVIDIA driver on the GPU nodes (or use an image that has"
                            + " it), or set {gpus-per-worker=0}.");
        }
        if (build > 0 && f.driverCuda() > 0 && (f.driverCuda() / 1000 < build / 1000
                || (f.cudaDevices() == 0 && f.driverCuda() < build))) {
            throw new DmlException("CUDA build and driver do not match: PyTorch "
                    + f.engineVersion() + " is built for CUDA " + version(build) + ", but the"
                    + " NVIDIA driver on " + f.host() + " supports CUDA up to "
                    + version(f.driverCuda()) + ".", "Update the NVIDIA driver on the GPU"
                    + " nodes, or give the workers a libtorch built for CUDA "
                    + version(f.driverCuda()) + " or older (PYTORCH_FLAVOR,"
                    + " PYTORCH_LIBRARY_PATH; docs/gpu.md).");
        }
        long id = f.rayGpuIds().get(0);
        int ordinal = ordinal(id, f.cudaVisibleDevices());
        if (ordinal < 0 || ordinal >= f.cudaDevices()) {
            throw new DmlException("CUDA on " + f.host() + " sees " + f.cudaDevices() + " GPU"
                    + " (CUDA_VISIBLE_DEVICES=" + f.cudaVisibleDevices() + "), but Ray assigned"
                    + " GPU " + id + ".", "Start Ray on that node with the GPUs it really has"
                    + " (ray start --num-gpus), and leave CUDA_VISIBLE_DEVICES to Ray.");
        }
        return ordinal;
    }

    /**
     * The CUDA ordinal of a GPU Ray assigned: its place in {@code CUDA_VISIBLE_DEVICES} where
     * that is set (CUDA then numbers only the listed GPUs), else the id itself.
     *
     * @param rayId the GPU id Ray assigned
     * @param visible {@code CUDA_VISIBLE_DEVICES}, or null
     * @return the ordinal, or -1 when the list does not hold the id
     */
    static int ordinal(long rayId, String visible) {
        if (visible == null || visible.isBlank()) {
            return (int) rayId;
        }
        String[] ids = visible.split(",");
        for (int i = 0; i < ids.length; i++) {
            if (ids[i].trim().equals(Long.toString(rayId))) {
                return i;
            }
        }
        return -1;
    }

    /**
     * DJL's PyTorch flavor: the one set for the job, else the one in the libtorch folder's name.
     *
     * @param configured {@code PYTORCH_FLAVOR}, or null
     * @param libtorchPath where DJL loaded libtorch from, or null
     * @return e.g. {@code cpu} or {@code cu128}, or null when neither says
     */
    static String flavor(String configured, String libtorchPath) {
        if (configured != null && !configured.isBlank()) {
            return configured.trim().toLowerCase(Locale.ROOT);
        }
        if (libtorchPath == null) {
            return null;
        }
        Matcher m = FLAVOR.matcher(libtorchPath.replace('\\', '/'));
        String found = null;
        while (m.find()) {
            found = m.group(1);
        }
        return found;
    }

    /** The CUDA version a flavor is built for ({@code cu128}: 12080), or 0 for a CPU one. */
    static int buildCuda(String flavor) {
        if (flavor == null || !flavor.startsWith("cu")) {
            return 0;
        }
        String digits = flavor.substring(2).replaceAll("\\D.*", "");
        if (digits.length() < 3) {
            return 0;
        }
        int major = Integer.parseInt(digits.substring(0, digits.length() - 1));
        int minor = digits.charAt(digits.length() - 1) - '0';
        return major * 1000 + minor * 10;
    }

    private static String version(int cuda) {
        return cuda / 1000 + "." + (cuda % 1000) / 10;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }
}
