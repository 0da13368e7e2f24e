package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.train.recovery.Checkpoints;
import dev.dml.ray.train.recovery.StageFile;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job's checkpoints in {@code --checkpoint-dir}: the folder {@code <job>-<fingerprint>}
 * under it, where only this job, with this model, keeps and prunes its files; so a job never
 * deletes another's, and {@code --resume} never restores another model's state.
 *
 * <p>The fingerprint is a hash of the model's description: family, layer sizes (which fix the
 * data's width and its classes), objective, optimizer kind and the stages' layers; it is also
 * in each file's header and checked on resume. Two stores: with {@code --checkpoint-store
 * driver} the workers send their states to the driver, which writes one file where its machine
 * sees {@code --checkpoint-dir} (no shared file system needed); with {@code shared} rank 0 of
 * each stage writes its stage's state straight into {@code --checkpoint-dir}, a folder every
 * node mounts at the same path, and the driver writes only a small file naming them (a big
 * model's state then never travels through the driver).
 *
 * <p>A running job holds its folder ({@link #open}): a lock on the file {@code .lock} in it,
 * so a second kernel that starts the same job and model into the same {@code --checkpoint-dir}
 * is refused instead of pruning the first one's files or resuming from its state. The
 * operating system drops the lock when the process ends, however it ends, so a resume after a
 * crash finds the folder free.
 */
final class CheckpointStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointStore.class);
    /** How many checkpoints a job keeps. */
    static final int KEEP = 3;
    /** The file a running job locks in its folder. */
    static final String LOCK = ".lock";

    private final Path root;
    private final String job;
    private final String description;
    private final String fingerprint;
    private final boolean shared;
    private final Path folder;
    private int run = -1;
    private FileChannel lockFile;
    private boolean holding;
    /** The folders the jobs of this JVM hold. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    /**
     * A job's store.
     *
     * @param root {@code --checkpoint-dir}
     * @param job the job's name (a notebook's table variable, {@code TrainSpec.name()})
     * @param description the model in words; its hash is the fingerprint
     * @param shared whether the workers write the states ({@code --checkpoint-store shared})
     */
    CheckpointStore(Path root, String job, String description, boolean shared) {
        this.root = root;
        this.job = job;
        this.description = description;
        this.fingerprint = fingerprint(description);
        this.shared = shared;
        this.folder = root.resolve(job.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + fingerprint);
    }

    /**
     * A job's store, holding its folder until {@link #close}.
     *
     * @param root {@code --checkpoint-dir}
     * @param job the job's name
     * @param description the model in words
     * @param shared whether the workers write the states
     * @return the store, owned by the caller
     * @throws DmlException when another job (of this process or another) holds the folder
     */
    static CheckpointStore open(Path root, String job, String description, boolean shared) {
        CheckpointStore store = new CheckpointStore(root, job, description, shared);
        // closing any channel of the lock file would drop this process's lock on it (POSIX),
        // so a job of this JVM is refused before a second channel is opened
        if (!HELD.add(store.folder.toAbsolutePath().normalize())) {
            throw store.held("another job of this kernel");
        }
        store.holding = true;
        try {
            store.lock();
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }

    /**
     * Takes the folder's lock unless this store has it. A folder that cannot be written yet
     * (a full disk, a file in its place) leaves it to the next checkpoint, whose write then
     * fails and is reported as any failed write is; a file system without locks warns.
     *
     * @throws DmlException when another process holds it
     */
    private void lock() {
        if (lockFile != null || !holding) {
            return;
        }
        Path file = folder.resolve(LOCK);
        try {
            Files.createDirectories(folder);
            // The holder deletes the file when it ends, so the file locked may no longer be
            // the one the path names: the lock counts only when the path named the same file
            // (device and inode, read without opening it: closing any channel of the file
            // would drop the lock) before the open and after the lock. A file that is open
            // keeps its inode, so no other file can take its number meanwhile.
            for (int attempt = 0; attempt < 3 && lockFile == null; attempt++) {
                Object before = fileKey(file);
                FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
                        StandardOpenOption.READ, StandardOpenOption.WRITE);
                try {
                    if (ch.tryLock() == null) {
                        throw held(Files.readString(file).strip());
                    }
                    if (before != null && before.equals(fileKey(file))) {
                        ch.truncate(0);
                        ch.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid()
                                + " on " + host()).getBytes(StandardCharsets.UTF_8)), 0);
                        lockFile = ch;
                    }
                } finally {
                    if (lockFile != ch) {
                        ch.close();
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("Cannot lock {} ({}); trying again at the next checkpoint.", folder,
                    e.getMessage());
        }
    }

    /** A file's device and inode, or null when it is missing. */
    private static Object fileKey(Path file) throws IOException {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private DmlException held(String holder) {
        return new DmlException("Job '" + job + "' of this model is already writing"
                + " checkpoints into {checkpoint-dir} " + DmlException.literal(root)
                + (holder.isEmpty() ? "" : " (" + DmlException.literal(holder) + ")") + ".",
                "Wait for that job to end, or give this one another {checkpoint-dir}.");
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "this host";
        }
    }

    /** Lets go of the folder, deleting its lock file while still holding it. */
    @Override
    public void close() {
        if (lockFile != null) {
            try {
                Files.deleteIfExists(folder.resolve(LOCK));
                lockFile.close(); // releases the lock
            } catch (IOException e) {
                LOG.warn("Could not let go of {}: {}", folder, e.getMessage());
            }
            lockFile = null;
        }
        if (holding) {
            HELD.remove(folder.toAbsolutePath().normalize());
            holding = false;
        }
    }

    /** The first 12 hex digits of the SHA-256 of the model's description. */
    static String fingerprint(String description) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256")
                    .digest(description.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The job's own folder. */
    Path folder() {
        return folder;
    }

    /**
     * Checks, with the shared store, that every worker sees {@code --checkpoint-dir}: the
     * driver leaves a file there and each worker looks for it.
     *
     * @param plan the job's workers
     * @throws DmlException naming a worker that cannot see it
     */
    void checkShared(StrategyWorkers plan) {
        if (!shared) {
            return;
        }
        Path marker = folder.resolve(".probe-" + UUID.randomUUID());
        try {
            Files.createDirectories(folder);
            Files.writeString(marker, "dml");
            List<WorkerInfo> blind = StageStates.cannotSee(plan.stages(), marker);
            if (!blind.isEmpty()) {
                throw new DmlException("{checkpoint-dir} " + DmlException.literal(root)
                        + " is not shared with every worker: " + blind.get(0) + " cannot see it"
                        + " ({checkpoint-store} shared).", "Mount it at the same path on every"
                        + " node, or use {checkpoint-store} driver.");
            }
        } catch (IOException e) {
            throw new DmlException("Cannot write into {checkpoint-dir} "
                    + DmlException.literal(root) + ": " + DmlException.literal(e) + ".",
                    "Pass a folder this machine can write to.", e);
        } finally {
            try {
                Files.deleteIfExists(marker);
            } catch (IOException ignored) {
                // a stray probe file is harmless
            }
        }
    }

    /**
     * Finds the newest intact checkpoint of this job and model.
     *
     * @return the checkpoint, or null when there is none (see {@link #noneFound()})
     * @throws DmlException when the job's checkpoints are of another model
     */
    Checkpoints.Checkpoint latest() {
        for (Path f : files(folder)) {
            try {
                Checkpoints.Checkpoint c = Checkpoints.read(f);
                if (!c.header().fingerprint().equals(fingerprint)) {
                    throw otherModel(c.header());
                }
                return c;
            } catch (IOException e) {
                LOG.warn("Skipping damaged checkpoint {}: {}; trying the previous one.", f,
                        e.getMessage());
            }
        }
        Checkpoints.Header other = newestOfOtherModels();
        if (other != null) {
            throw otherModel(other);
        }
        return null;
    }

    /** The line a {@code --resume} that found nothing shows. */
    String noneFound() {
        return "{resume} found no checkpoint of job '" + job + "' in {checkpoint-dir} " + root
                + "; the job starts afresh.";
    }

    /** The newest checkpoint of this job's name written for another model, or null. */
    private Checkpoints.Header newestOfOtherModels() {
        String prefix = folder.getFileName().toString()
                .substring(0, folder.getFileName().toString().length() - fingerprint.length());
        List<Path> candidates = new ArrayList<>();
        try (Stream<Path> s = Files.list(root)) {
            for (Path d : s.toList()) {
                String n = d.getFileName().toString();
                if (Files.isDirectory(d) && n.startsWith(prefix) && !d.equals(folder)
                        && n.length() == prefix.length() + fingerprint.length()) {
                    candidates.addAll(files(d));
                }
            }
        } catch (IOException e) {
            return null;
        }
        Checkpoints.Header newest = null;
        long newestTime = Long.MIN_VALUE;
        for (Path f : candidates) {
            try {
                long t = Files.getLastModifiedTime(f).toMillis();
                if (t > newestTime) {
                    newest = Checkpoints.header(f);
                    newestTime = t;
                }
            } catch (IOException e) {
                // unreadable: not evidence of another model
            }
        }
        return newest;
    }

    private DmlException otherModel(Checkpoints.Header h) {
        return new DmlException("{resume}: the checkpoints of job '" + job + "' in "
                + "{checkpoint-dir} are of another model (" + DmlException.literal(
                        h.description()) + "); this job trains " + DmlException.literal(
                        description) + ".", "Resume with that model and data, drop {resume} to"
                + " start afresh, or use another {checkpoint-dir}.");
    }

    private static List<Path> files(Path dir) {
        try {
            return Checkpoints.list(dir);
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * Writes a checkpoint of the job's state now and prunes the job's older ones.
     *
     * @param plan the job's workers
     * @param step the global step
     * @param stepsPerEpoch the job's steps per epoch
     * @return the file written
     * @throws IOException when the folder cannot be written
     */
    Path write(StrategyWorkers plan, long step, int stepsPerEpoch) throws IOException {
        lock(); // when the folder could not be locked at the start
        if (run < 0) {
            run = Checkpoints.lastRun(folder) + 1; // a new start outranks every older one
        }
        Checkpoints.Header h = new Checkpoints.Header(null, run, step, stepsPerEpoch,
                fingerprint, description);
        Path file;
        if (shared) {
            Files.createDirectories(folder);
            List<StageFile> files = StageStates.saveTo(plan.stages(), folder, run,
                    step, plan.gathersState());
            file = Checkpoints.write(folder, h, List.of(), files);
        } else {
            file = Checkpoints.write(folder, h,
                    StageStates.save(plan.stages(), plan.gathersState()), List.of());
        }
        Checkpoints.prune(folder, KEEP);
        return file;
    }

    /**
     * Loads a checkpoint into every stage's workers: from its bytes, or (shared store) each
     * worker from its stage's file.
     *
     * @param plan the job's workers
     * @param c the checkpoint
     */
    void restore(StrategyWorkers plan, Checkpoints.Checkpoint c) {
        if (c.files().isEmpty()) {
            StageStates.restore(plan.stages(), c.states());
        } else {
            StageStates.restoreFrom(plan.stages(), c.header().file(), c.files());
        }
    }
}
