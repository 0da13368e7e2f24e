package dev.dml.magics;

import java.util.ArrayList;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.JupyterIO;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.dflib.jjava.jupyter.kernel.comm.CommManager;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;
import org.dflib.jjava.jupyter.kernel.util.StringStyler;

/** A kernel with no language that records what magics display, as a stock JJava kernel would. */
final class RecordingKernel extends BaseKernel {

    final List<DisplayData> displayed = new ArrayList<>();

    RecordingKernel() {
        super("recording", "9.9", null, List.of(), null, new JupyterIO(
                java.nio.charset.StandardCharsets.UTF_8), new CommManager(), new Renderer(), null,
                new MagicsRegistry(), true, new StringStyler.Builder().build());
    }

    @Override
    public void display(DisplayData data) {
        displayed.add(data);
    }

    @Override
    public Object evalRaw(String source) {
        throw new UnsupportedOperationException("RecordingKernel evaluates no code");
    }

    @Override
    public DisplayData inspect(String code, int at, boolean extraDetail) {
        return null;
    }

    @Override
    public ReplacementOptions complete(String code, int at) {
        return null;
    }

    @Override
    public String isComplete(String code) {
        return IS_COMPLETE_MAYBE;
    }
}
