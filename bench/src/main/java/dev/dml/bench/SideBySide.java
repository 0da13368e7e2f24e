package dev.dml.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a subject and its peers alternately in one process: after the warm-up rounds, round
 * {@code r} starts with trial {@code r mod n} and goes on in order, so each trial takes each
 * place equally often and slow drifts of the machine fall on all of them alike. A full GC runs
 * before every trial, so one trial's garbage is not collected in another's time.
 *
 * <pre>{@code
 * Map<String, TrialTimes> s = new SideBySide(new Rounds(2, 7))
 *         .add(subject, round -> timeSubject(round))
 *         .add(memcpy, round -> timeMemcpy())
 *         .run();
 * }</pre>
 */
public final class SideBySide {

    private final Rounds rounds;
    private final List<TrialTimes> samples = new ArrayList<>();
    private final List<Trial> trials = new ArrayList<>();

    /**
     * Creates an empty run.
     *
     * @param rounds the warm-up and timed rounds
     */
    SideBySide(Rounds rounds) {
        this.rounds = rounds;
    }

    /**
     * Adds a trial.
     *
     * @param into where its times go
     * @param trial the trial
     * @return this run
     */
    public SideBySide add(TrialTimes into, Trial trial) {
        samples.add(into);
        trials.add(trial);
        return this;
    }

    /**
     * Runs the warm-up and timed rounds.
     *
     * @return the samples by name, in the order added
     * @throws Exception the first failure of a trial
     */
    public Map<String, TrialTimes> run() throws Exception {
        int n = trials.size();
        Round warm = new Round(false);
        Round timed = new Round(true);
        for (int w = 0; w < rounds.warmups(); w++) {
            for (Trial t : trials) {
                System.gc();
                t.seconds(warm);
            }
        }
        for (int r = 0; r < rounds.timed(); r++) {
            for (int k = 0; k < n; k++) {
                int i = (r + k) % n;
                System.gc();
                samples.get(i).add(trials.get(i).seconds(timed));
            }
        }
        Map<String, TrialTimes> out = new LinkedHashMap<>();
        for (TrialTimes s : samples) {
            out.put(s.name(), s);
        }
        return out;
    }
}
