package dev.dml.ray.data;

import dev.dml.DmlEnv;
import dev.dml.DmlException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A node's cache of decoded units (a row group or record batch, already encoded as a shard's
 * Arrow IPC bytes) on local disk, least recently used first out once it holds more than its
 * size. Each entry is one file named by a hash of its key; a hit marks it used by touching its
 * time, so the order survives the process: a worker that restarts, and the next job on the
 * node, find what an earlier one read. Several workers of a node may share one folder: entries
 * are written under a temporary name and moved into place.
 */
public final class ShardCache {

    /** The folder used when none is set: {@code dml-data-cache} under the JVM's temp folder. */
    public static final String DEFAULT_FOLDER = DmlEnv.DEFAULT_DATA_CACHE;
    private static final String SUFFIX = ".arrows";

    private final Path dir;
    private final long maxBytes;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong evicted = new AtomicLong();

    /**
     * A cache in a folder, created if missing.
     *
     * @param dir the folder on the node's local disk
     * @param maxBytes the most bytes its entries may take; 0 caches nothing
     */
    public ShardCache(Path dir, long maxBytes) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new DmlException("Could not create the data cache folder " + dir + ": "
                    + e.getMessage() + ".", "Set {data-cache-mb=0} to read without a cache,"
                    + " or free the disk.", e);
        }
    }

    /**
     * The default folder: {@code $DML_DATA_CACHE}, else {@code dml-data-cache} in {@code
     * java.io.tmpdir}.
     *
     * @return the folder
     */
    public static Path defaultDir() {
        return DmlEnv.system().dataCache(Path.of(System.getProperty("java.io.tmpdir")));
    }

    /**
     * Returns the entry for a key, loading and storing it on a miss.
     *
     * @param key what the bytes are (a file's unit and the columns it was encoded with)
     * @param load makes the bytes on a miss
     * @return the bytes
     */
    public byte[] get(String key, Supplier<byte[]> load) {
        Path entry = dir.resolve(hash(key) + SUFFIX);
        try {
            byte[] b = Files.readAllBytes(entry);
            Files.setLastModifiedTime(entry, FileTime.fromMillis(System.currentTimeMillis()));
            hits.incrementAndGet();
            return b;
        } catch (NoSuchFileException e) {
            // a miss: load below
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        misses.incrementAndGet();
        byte[] b = load.get();
        if (maxBytes > 0 && b.length <= maxBytes) {
            put(entry, b);
            evict();
        }
        return b;
    }

    private void put(Path entry, byte[] b) {
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, ".part-", ".tmp");
            Files.write(tmp, b);
            try {
                Files.move(tmp, entry, StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, entry, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (tmp != null) { // a failed or interrupted write leaves no part file behind
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the next eviction does not count it; the folder's owner may remove it
                }
            }
        }
    }

    /** Deletes the least recently used entries until the rest fit in the size. */
    void evict() {
        record Entry(Path path, long size, long used) { }
        List<Entry> all = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (p.getFileName().toString().endsWith(SUFFIX)) {
                    try {
                        all.add(new Entry(p, Files.size(p),
                                Files.getLastModifiedTime(p).toMillis()));
                    } catch (NoSuchFileException gone) {
                        // another worker of the node evicted it
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long total = all.stream().mapToLong(Entry::size).sum();
        all.sort(Comparator.comparingLong(Entry::used));
        for (Entry e : all) {
            if (total <= maxBytes) {
                break;
            }
            try {
                Files.deleteIfExists(e.path());
                evicted.incrementAndGet();
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            total -= e.size();
        }
    }

    /**
     * Returns the bytes the entries take now.
     *
     * @return the size on disk
     */
    public long bytes() {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(SUFFIX))
                    .mapToLong(p -> p.toFile().length()).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return how many gets found their entry */
    public long hits() {
        return hits.get();
    }

    /** @return how many gets had to load */
    public long misses() {
        return misses.get();
    }

    /** @return how many entries this cache deleted to stay in its size */
    public long evicted() {
        return evicted.get();
    }

    /** @return the folder */
    public Path dir() {
        return dir;
    }

    /** @return the size limit in bytes */
    public long maxBytes() {
        return maxBytes;
    }

    @Override
    public String toString() {
        return "ShardCache[" + dir + ", " + hits + " hits, " + misses + " misses, "
                + evicted + " evicted, limit " + maxBytes + " B]";
    }

    private static String hash(String key) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String baseName(Path path) {
        String n = path.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }
}
