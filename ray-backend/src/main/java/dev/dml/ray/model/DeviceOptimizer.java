package dev.dml.ray.model;

import dev.dml.options.OptimizerKind;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The optimizers of {@link OptimizerSpec} as NDArray operations on the parameters' device (a
 * GPU), with their state there too. The operations are the Java loop's of {@link
 * FlatOptimizer.OnHost}, in the same order, each rounded to float32: SGD is bitwise the same
 * (tested on the CPU); Adam differs by float rounding, as PyTorch's vectorised kernels round
 * some steps differently. The state saves in the same flat format, so a checkpoint moves
 * between the CPU and the GPU path, and a run resumes exactly on its own path. Owns its state
 * arrays through the model's {@link NDManager}; one thread at a time.
 */
final class DeviceOptimizer extends FlatOptimizer {

    private final List<Parameter> params;
    private final int[] offsets;
    /** Per parameter: whether weight decay applies (a weight, not a bias). */
    private final boolean[] decays;
    /** Per parameter: SGD's velocity (none without momentum), or Adam's {m, v}. */
    private final List<NDArray[]> moments = new ArrayList<>();
    /** The state in host memory, made only to save or load it. */
    private float[][] host;
    private final int total;

    DeviceOptimizer(OptimizerSpec spec, ParameterBuffers buffers, NDManager manager) {
        super(spec);
        this.params = buffers.parameters();
        this.total = buffers.total();
        this.offsets = new int[params.size()];
        this.decays = new boolean[params.size()];
        int kinds = spec.kind() == OptimizerKind.ADAM ? 2 : spec.momentum() == 0f ? 0 : 1;
        for (int i = 0; i < params.size(); i++) {
            offsets[i] = buffers.offset(i);
            decays[i] = buffers.decays(i);
            NDArray p = params.get(i).getArray();
            NDArray[] s = new NDArray[kinds];
            for (int k = 0; k < kinds; k++) {
                s[k] = manager.zeros(p.getShape(), p.getDataType(), p.getDevice());
            }
            moments.add(s);
        }
    }

    @Override
    void apply(ParameterBuffers buffers) {
        beginStep(buffers);
        GradMode.off(() -> {
            for (int i = 0; i < params.size(); i++) {
                NDArray p = params.get(i).getArray();
                try (NDManager scope = p.getManager().newSubManager();
                        NDArray g = p.getGradient()) {
                    g.tempAttach(scope);
                    float wd = decays[i] ? spec.weightDecay() : 0f;
                    if (spec.kind() == OptimizerKind.SGD) {
                        // L2: the decay joins the gradient, as FlatOptimizer.SgdMomentum adds it
                        sgd(p, wd == 0f ? g : decayed(p, g, wd, scope), moments.get(i));
                    } else {
                        if (wd != 0f) {
                            p.muli(1 - rate * wd); // decoupled, as AdamW
                        }
                        adam(p, g, moments.get(i), scope);
                    }
                }
            }
        });
    }

    /** {@code g + wd p}, owned by the step's scope. */
    private static NDArray decayed(NDArray p, NDArray g, float wd, NDManager scope) {
        NDArray pw = p.mul(wd);
        pw.attach(scope);
        NDArray out = g.add(pw);
        out.attach(scope);
        return out;
    }

    /** {@code v = mu v + g; p -= lr v}, or {@code p -= lr g} without momentum. */
    private void sgd(NDArray p, NDArray g, NDArray[] s) {
        float lr = rate;
        if (s.length == 0) {
            try (NDArray step = g.mul(lr)) {
                p.subi(step);
            }
            return;
        }
        NDArray v = s[0].muli(spec.momentum()).addi(g);
        try (NDArray step = v.mul(lr)) {
            p.subi(step);
        }
    }

    /** Adam, each operation as {@code FlatOptimizer.Adam} rounds it. */
    private void adam(NDArray p, NDArray g, NDArray[] s, NDManager scope) {
        float b1 = spec.beta1();
        float b2 = spec.beta2();
        float c1 = (float) (1 - StrictMath.pow(b1, steps));
        float c2 = (float) (1 - StrictMath.pow(b2, steps));
        float lr = rate / c1;
        float sc2 = (float) Math.sqrt(c2);
        // temporaries go to the step's scope; the moments are updated in place
        NDArray m = s[0].muli(b1).addi(g.mul(1 - b1));
        NDArray v = s[1].muli(b2).addi(g.mul(1 - b2).muli(g));
        NDArray denom = v.sqrt();
        denom.attach(scope);
        denom.divi(scope.full(v.getShape(), sc2)).addi(spec.epsilon());
        NDArray step = m.mul(lr);
        step.attach(scope);
        p.subi(step.divi(denom));
    }

    @Override
    float[][] state() {
        int kinds = moments.isEmpty() ? 0 : moments.get(0).length;
        if (host == null) {
            host = new float[kinds][total];
        }
        for (int i = 0; i < moments.size(); i++) {
            for (int k = 0; k < kinds; k++) {
                float[] a = moments.get(i)[k].toFloatArray();
                System.arraycopy(a, 0, host[k], offsets[i], a.length);
            }
        }
        return host;
    }

    /** Counted on the device, without copying the state to the host as {@link #state} does. */
    @Override
    long stateBytes() {
        long n = 0;
        for (NDArray[] s : moments) {
            for (NDArray a : s) {
                n += a.size();
            }
        }
        return n * Float.BYTES;
    }

    @Override
    void loaded() {
        GradMode.off(() -> {
            for (int i = 0; i < moments.size(); i++) {
                NDArray[] s = moments.get(i);
                for (int k = 0; k < s.length; k++) {
                    FloatBuffer part = FloatBuffer.wrap(host[k], offsets[i], (int) s[k].size());
                    ParameterBuffers.write(s[k], part.slice());
                }
            }
        });
        host = null; // the device holds the state; a save reads it again
    }
}
