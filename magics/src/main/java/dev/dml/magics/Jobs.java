package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.Suggestions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The jobs a session started, oldest first; at most one runs at a time. */
final class Jobs {

    private final Map<String, JobRecord> jobs = new LinkedHashMap<>();

    synchronized void add(JobRecord record) {
        jobs.put(record.id(), record);
    }

    /** The running job, if any. */
    synchronized Optional<JobRecord> running() {
        return jobs.values().stream().filter(r -> !r.isDone()).findFirst();
    }

    synchronized List<JobRecord> all() {
        return new ArrayList<>(jobs.values());
    }

    /** Whether this session started a job of that id. */
    synchronized boolean has(String id) {
        return jobs.containsKey(id);
    }

    /** The named job, or an error that lists the jobs there are. */
    synchronized JobRecord find(String id) {
        JobRecord r = jobs.get(id);
        if (r != null) {
            return r;
        }
        if (jobs.isEmpty()) {
            throw new DmlException("There is no job '" + id + "': this session has run none.",
                    "Start one with %dml train.");
        }
        String guess = Suggestions.closest(id, jobs.keySet())
                .map(g -> "Did you mean " + g + "? ").orElse("");
        throw new DmlException("There is no job '" + id + "'.",
                guess + "Jobs: " + String.join(", ", jobs.keySet()) + ".");
    }

    /** Stops every running job; used when the session closes. */
    void stopAll() {
        for (JobRecord r : all()) {
            if (!r.isDone()) {
                r.job().stop();
            }
            r.closeCell();
        }
    }
}
