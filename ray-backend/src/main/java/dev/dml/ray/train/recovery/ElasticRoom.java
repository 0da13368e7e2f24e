package dev.dml.ray.train.recovery;

import dev.dml.DmlException;
import dev.dml.events.JobNotice;
import dev.dml.ray.collective.Slot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An elastic job's view of the cluster's room ({@code --workers MIN:MAX}), in the driver:
 * when it may grow, into which slots (first those of workers a shrink dropped), and when it
 * tries again after a growth failed.
 */
public final class ElasticRoom {

    /** How long after a growth that failed it tries again, with no new node. */
    public static final Duration RETRY = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(ElasticRoom.class);

    private final WorkerRoom room;
    /** Slots of workers a shrink dropped, whose bundles a growth uses first. */
    private final List<Slot> free = new ArrayList<>();
    private int seen;
    /** The room the last {@link #next} read, which a growth then counts as seen. */
    private int read;
    /** When a growth that failed may be tried again with no new node; MIN_VALUE: now. */
    private long retryAfter = Long.MIN_VALUE;

    /**
     * A view.
     *
     * @param room how many workers the cluster could hold, read to start and to grow
     */
    public ElasticRoom(WorkerRoom room) {
        this.room = room;
    }

    /** Reads the room at the start. @return how many workers the cluster could hold */
    public int open() {
        seen = room.slots();
        return seen;
    }

    /** Keeps a dropped worker's slot for a later growth. */
    public void free(Slot slot) {
        free.add(slot);
    }

    /**
     * Says where new workers go, when room joined the cluster since the last look.
     *
     * @param size the workers now
     * @param most the most workers the job takes
     * @param placement the job's placement group, or null (LOCAL mode)
     * @param wait how long a placement may take to add bundles
     * @return the slots; empty when the job does not grow now
     */
    public List<Slot> next(int size, int most, JobPlacement placement, Duration wait) {
        long now = System.nanoTime();
        if (size >= most || (retryAfter != Long.MIN_VALUE && now - retryAfter < 0)) {
            return List.of();
        }
        read = room.slots();
        boolean joined = read > seen;
        seen = Math.min(seen, read); // a lost node lowers the bar for the next join
        int want = Math.min(most, read) - size;
        if (!joined || want <= 0) {
            return List.of();
        }
        List<Slot> where = new ArrayList<>(free.subList(0, Math.min(want, free.size())));
        if (where.size() < want) {
            where.addAll(placement == null
                    ? Collections.nCopies(want - where.size(), Slot.ANYWHERE)
                    : placement.extend(want - where.size(), wait));
        }
        if (where.isEmpty()) {
            retryAfter = now + RETRY.toNanos();
        }
        return where;
    }

    /** The job grew into {@code where}. */
    public void grew(List<Slot> where) {
        free.removeAll(where);
        seen = read;
    }

    /**
     * A growth into {@code where} failed: its slots are kept, and it waits {@link #RETRY}; the
     * job goes on with the workers it has.
     *
     * @param where the slots it tried
     * @param e why they did not join
     * @param size the workers the job goes on with
     * @param step the job's step
     * @return the notice that says so in one line
     */
    public JobNotice failed(List<Slot> where, RuntimeException e, int size, long step) {
        LOG.warn("{} more worker(s) did not join; trying again later", where.size(), e);
        where.stream().filter(w -> !free.contains(w)).forEach(free::add);
        retryAfter = System.nanoTime() + RETRY.toNanos();
        String why = e instanceof DmlException d ? d.whatTemplate()
                : DmlException.literal(String.valueOf(e));
        why = why.endsWith(".") ? why : why + ".";
        return new JobNotice(step, "The job could not grow to " + (size + where.size())
                + " workers and goes on with its " + size + ": " + why + " It tries again in "
                + RETRY.toSeconds() + " s.");
    }
}
