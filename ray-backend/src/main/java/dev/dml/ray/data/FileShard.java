package dev.dml.ray.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.dml.DmlException;
import dev.dml.ray.cluster.Payloads;
import dev.dml.ray.data.store.DataStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's shard as a reference to units of {@link DataFiles} rather than rows: the worker
 * reads them itself, through its node's {@link ShardCache}, reading unit {@code i+1} while it
 * decodes unit {@code i} ({@link Prefetch}). It crosses Ray as bytes ({@link #toBytes()}), in
 * the place of a shard's Arrow IPC bytes, and {@link #isFileShard} tells the two apart.
 */
public final class FileShard implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(FileShard.class);
    private static final byte[] MAGIC = "DMLFILESHARD1".getBytes(StandardCharsets.US_ASCII);

    private final DataFiles files;
    private final int[] units;
    private final ColumnSelection columns;
    private final String cacheDir;
    private final long cacheBytes;
    /** What the last {@link #open} found in the cache, for tests and reports. */
    private transient long lastHits;
    private transient long lastMisses;

    /**
     * A shard.
     *
     * @param files the files
     * @param units the units of this shard, in reading order
     * @param columns the columns, with class names and vocabulary learnt
     * @param cacheDir the node's cache folder, or null for {@link ShardCache#defaultDir()}
     * @param cacheBytes the cache's size; 0 reads without caching
     */
    public FileShard(DataFiles files, int[] units, ColumnSelection columns, Path cacheDir,
            long cacheBytes) {
        this.files = files;
        this.units = units.clone();
        this.columns = columns;
        this.cacheDir = cacheDir == null ? null : cacheDir.toString();
        this.cacheBytes = cacheBytes;
    }

    /**
     * Returns the units' rows.
     *
     * @return the shard's row count
     */
    public long rows() {
        List<DataFiles.Unit> all = files.units();
        return Arrays.stream(units).mapToLong(u -> all.get(u).rows()).sum();
    }

    /**
     * Reads, decodes and joins this shard's units on the calling worker.
     *
     * @param decoder the worker's decoder
     * @param manager where the arrays live
     * @return the shard
     */
    public ShardArrays open(ShardDecoder decoder, NDManager manager) {
        ShardCache cache = new ShardCache(cacheDir == null ? ShardCache.defaultDir()
                : Path.of(cacheDir), cacheBytes);
        long t0 = System.nanoTime();
        long[] traffic = DataStore.traffic();
        List<ShardArrays> parts = new ArrayList<>();
        try (Prefetch<byte[]> next = new Prefetch<>(units.length,
                i -> cache.get(cacheKey(units[i]), () -> encode(units[i])), "dml-prefetch")) {
            for (int i = 0; next.hasNext(); i++) {
                parts.add(decode(next.next(), units[i], cache, decoder, manager));
            }
        } catch (RuntimeException e) {
            parts.forEach(ShardArrays::close);
            throw e instanceof DmlException ? e : new DmlException("Could not read the"
                    + " shard's files " + files.location() + ": " + e + ".",
                    "Check that every node reaches them at the same path.", e);
        }
        long[] after = DataStore.traffic();
        LOG.info("read {} units ({} rows) of {} in {} ms; cache {}: {} hits, {} misses,"
                + " {} evicted, {} of {} bytes used; object store: {} requests, {} bytes",
                units.length, rows(), files.location(), (System.nanoTime() - t0) / 1_000_000,
                cache.dir(), cache.hits(), cache.misses(), cache.evicted(), cache.bytes(),
                cache.maxBytes(), after[0] - traffic[0], after[1] - traffic[1]);
        lastHits = cache.hits();
        lastMisses = cache.misses();
        return ShardArrays.concat(parts);
    }

    /** The cache's key of a unit: the file's unit and the columns it is encoded with. */
    String cacheKey(int unit) {
        return files.key(unit) + "|" + columns; // toString: the same on every JVM
    }

    /** Reads a unit from its file and encodes it, checking every value (TableValidator). */
    private byte[] encode(int unit) {
        List<String> wanted = new ArrayList<>(columns.features());
        wanted.add(columns.label());
        return ArrowShards.encode(files.read(unit, wanted), columns);
    }

    /**
     * Decodes a unit's bytes. Bytes from the cache skipped the checks of {@link #encode}, so
     * their values are checked here; bytes that fail to decode or hold a missing or infinite
     * value are dropped from the cache and the unit is read again from its file, whose own
     * checks then say what is wrong, if anything is.
     */
    private ShardArrays decode(byte[] bytes, int unit, ShardCache cache, ShardDecoder decoder,
            NDManager manager) {
        ShardArrays a = null;
        try {
            a = decoder.openArrays(bytes, manager);
            if (allFinite(a)) {
                return a;
            }
            LOG.warn("The cached unit {} of {} holds a missing or infinite value; reading it"
                    + " again.", unit, files.location());
        } catch (RuntimeException e) {
            LOG.warn("The cached unit {} of {} could not be decoded ({}); reading it again.",
                    unit, files.location(), e.toString());
        }
        if (a != null) {
            a.close();
        }
        return decoder.openArrays(cache.reload(cacheKey(unit), () -> encode(unit)), manager);
    }

    private static boolean allFinite(ShardArrays a) {
        return finite(a.features()) && (a.labels() == null
                || a.labels().getDataType().isInteger() || finite(a.labels()));
    }

    private static boolean finite(NDArray x) {
        try (NDArray nan = x.isNaN(); NDArray inf = x.isInfinite();
                NDArray bad = nan.logicalOr(inf); NDArray any = bad.any()) {
            return !any.getBoolean();
        }
    }

    /** @return the cache hits of the last {@link #open} */
    public long lastHits() {
        return lastHits;
    }

    /** @return the cache misses of the last {@link #open} */
    public long lastMisses() {
        return lastMisses;
    }

    /**
     * Serialises this reference for the trip to a worker.
     *
     * @return the bytes, starting with a magic that {@link #isFileShard} knows
     */
    public byte[] toBytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(MAGIC);
        try (ObjectOutputStream o = new ObjectOutputStream(out)) {
            o.writeObject(this);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out.toByteArray();
    }

    /**
     * Tells a file shard's bytes from a shard's Arrow IPC bytes.
     *
     * @param bytes a shard
     * @return {@code true} for {@link #toBytes()}'s output
     */
    public static boolean isFileShard(byte[] bytes) {
        return bytes.length > MAGIC.length
                && Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
    }

    /**
     * Reads {@link #toBytes()}'s output back, through {@link Payloads}' filter.
     *
     * @param bytes the bytes
     * @return the shard
     */
    public static FileShard fromBytes(byte[] bytes) {
        try {
            return (FileShard) Payloads.read(bytes, MAGIC.length, bytes.length - MAGIC.length);
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new DmlException("Could not read the file shard sent to this worker: "
                    + DmlException.literal(String.valueOf(e.getMessage())) + ".",
                    "Run the kernel and the workers with the same dml version.", e);
        }
    }
}
