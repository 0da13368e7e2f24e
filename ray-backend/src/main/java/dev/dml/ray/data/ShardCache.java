package dev.dml.ray.data;

import dev.dml.DmlEnv;
import dev.dml.DmlException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's cache of decoded units (a row group or record batch, already encoded as a shard's
 * Arrow IPC bytes) on local disk, least recently used first out once it holds more than its
 * size. Each entry is one file named by a hash of its key; a hit marks it used by touching its
 * time, so the order survives the process: a worker that restarts, and the next job on the
 * node, find what an earlier one read. Several workers of a node may share one folder: entries
 * are written under a temporary name, forced to disk and moved into place.
 *
 * <p>The folder is the user's own ({@code dml-data-cache-<user>} in the temp folder unless set),
 * made owner-only, and refused when another user owns it or others may write into it, so no
 * one else can plant entries. Each entry carries its payload's length and CRC32C: a damaged or
 * truncated one is deleted and read again from its file.
 */
public final class ShardCache {

    /** The folder used when none is set: {@code dml-data-cache-<user>} in the temp folder. */
    public static final String DEFAULT_FOLDER = DmlEnv.DEFAULT_DATA_CACHE;
    private static final String SUFFIX = ".arrows";
    private static final byte[] MAGIC = "DMLCACH1".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER = MAGIC.length + Long.BYTES + Integer.BYTES;
    private static final Logger LOG = LoggerFactory.getLogger(ShardCache.class);

    private final Path dir;
    private final long maxBytes;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong evicted = new AtomicLong();

    /**
     * A cache in a folder, created owner-only if missing.
     *
     * @param dir the folder on the node's local disk
     * @param maxBytes the most bytes its entries may take; 0 caches nothing (and leaves the
     *     folder alone)
     * @throws DmlException when the folder cannot be made, belongs to another user, or others
     *     may write into it
     */
    public ShardCache(Path dir, long maxBytes) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        if (maxBytes > 0) {
            CacheFolder.prepare(dir);
        }
    }

    /**
     * The default folder: {@code $DML_DATA_CACHE}, else {@code dml-data-cache-<user>} in {@code
     * java.io.tmpdir}.
     *
     * @return the folder
     */
    public static Path defaultDir() {
        return DmlEnv.system().dataCache(Path.of(System.getProperty("java.io.tmpdir")));
    }

    /**
     * Returns the entry for a key, loading and storing it on a miss. A damaged entry is
     * deleted and counts as a miss.
     *
     * @param key what the bytes are (a file's unit and the columns it was encoded with)
     * @param load makes the bytes on a miss
     * @return the bytes
     */
    public byte[] get(String key, Supplier<byte[]> load) {
        if (maxBytes <= 0) {
            misses.incrementAndGet();
            return load.get();
        }
        Path entry = entry(key);
        byte[] b = read(entry);
        if (b != null) {
            hits.incrementAndGet();
            return b;
        }
        misses.incrementAndGet();
        b = load.get();
        if (b.length <= maxBytes) {
            put(entry, b);
            evict();
        }
        return b;
    }

    /**
     * Drops a key's entry, and loads and stores it again: for an entry whose checksum held
     * but whose bytes the reader refused (left by another dml version, say).
     *
     * @param key the key
     * @param load makes the bytes
     * @return the bytes
     */
    public byte[] reload(String key, Supplier<byte[]> load) {
        if (maxBytes > 0) {
            delete(entry(key));
            hits.decrementAndGet(); // that hit was none
        }
        return get(key, load);
    }

    /** The payload bytes of an entry file of {@code size} bytes: what the size limit counts. */
    private static long payload(long size) {
        return Math.max(0, size - HEADER);
    }

    /** The file of a key's entry. */
    Path entry(String key) {
        return dir.resolve(hash(key) + SUFFIX);
    }

    /** The entry's payload, or null when it is missing or damaged (then it is deleted). */
    private byte[] read(Path entry) {
        byte[] all;
        try {
            all = Files.readAllBytes(entry);
            Files.setLastModifiedTime(entry, FileTime.fromMillis(System.currentTimeMillis()));
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ByteBuffer b = ByteBuffer.wrap(all);
        if (all.length >= HEADER && Arrays.equals(all, 0, MAGIC.length, MAGIC, 0, MAGIC.length)
                && b.getLong(MAGIC.length) == all.length - HEADER) {
            CRC32C crc = new CRC32C();
            crc.update(all, HEADER, all.length - HEADER);
            if ((int) crc.getValue() == b.getInt(MAGIC.length + Long.BYTES)) {
                return Arrays.copyOfRange(all, HEADER, all.length);
            }
        }
        LOG.warn("Deleting the damaged cache entry {} ({} bytes); reading its unit again.",
                entry, all.length);
        delete(entry);
        return null;
    }

    private void delete(Path entry) {
        try {
            if (Files.deleteIfExists(entry)) {
                evicted.incrementAndGet();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void put(Path entry, byte[] b) {
        CRC32C crc = new CRC32C();
        crc.update(b);
        ByteBuffer head = ByteBuffer.allocate(HEADER).put(MAGIC).putLong(b.length)
                .putInt((int) crc.getValue()).flip();
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, ".part-", ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer body = ByteBuffer.wrap(b);
                while (head.hasRemaining() || body.hasRemaining()) {
                    ch.write(new ByteBuffer[] {head, body});
                }
                ch.force(true); // else a crash can leave the name pointing at lost bytes
            }
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
                        all.add(new Entry(p, payload(Files.size(p)),
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
        if (maxBytes <= 0) {
            return 0;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(SUFFIX))
                    .mapToLong(p -> payload(p.toFile().length())).sum();
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

    /** @return how many entries this cache deleted: to stay in its size, or damaged */
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
}
