package dev.dml.ray.data.store;

import dev.dml.DmlException;
import java.io.Serializable;

/**
 * One data file as it was listed: its URL (a local path for local files), its size and its
 * version (the modification time in nanoseconds for a local file, the ETag for an object). Size
 * and version together tell a rewritten file from the one a job checked. A plain {@link
 * Serializable} class: it travels to the workers inside their shard.
 */
public final class StoredFile implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String url;
    private final long size;
    private final String version;

    /**
     * A file.
     *
     * @param url its path or URL
     * @param size its length in bytes
     * @param version what changes when it is rewritten
     */
    public StoredFile(String url, long size, String version) {
        this.url = url;
        this.size = size;
        this.version = version;
    }

    /** @return its path or URL */
    public String url() {
        return url;
    }

    /** @return its length in bytes */
    public long size() {
        return size;
    }

    /** @return its modification time (local) or ETag (object) */
    public String version() {
        return version;
    }

    /** @return the last segment of its path, such as {@code clicks.parquet} */
    public String name() {
        String u = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        return u.substring(Math.max(u.lastIndexOf('/'), u.lastIndexOf('\\')) + 1);
    }

    /** @return its name without the extension, as tables are named */
    public String baseName() {
        String n = name();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }

    /**
     * Tells whether another listing of the same URL found the same contents.
     *
     * @param now the file as listed now, or null when it is gone
     * @return {@code true} when size and version agree
     */
    public boolean sameAs(StoredFile now) {
        return now != null && now.size == size && now.version.equals(version);
    }

    /**
     * Says how another listing of the same URL differs from this one, for {@link #changed}: its
     * size when that differs, else its version (a rewrite of the same length changes only the
     * ETag or the modification time).
     *
     * @param now the file as listed now, or null when it is gone
     * @return such as "it is gone", "100 bytes then, 120 now" or "ETag "a1" then, "b2" now"
     */
    public String changeTo(StoredFile now) {
        if (now == null) {
            return "it is gone";
        }
        if (now.size != size) {
            return size + " bytes then, " + now.size + " now";
        }
        String what = url.startsWith("s3://") ? "ETag " : "modified at ";
        return what + version + " then, " + now.version + " now";
    }

    /**
     * The error for a file whose contents changed after the job checked its rows: the scan
     * checked them (labels among the model's classes, values finite) and learnt the statistics
     * from the old contents, and the cache keys units by size and version, so rows written
     * since would reach training unchecked (issue 26, row 10).
     *
     * @param change what differs, such as "100 bytes then, 120 now"
     * @return the exception to throw
     */
    public DmlException changed(String change) {
        return new DmlException("The file " + DmlException.literal(url) + " changed after the"
                + " job checked its rows (" + change + "); dml trains only on rows it checked.",
                "Run the training again, and leave the files unchanged while a job reads"
                        + " them (write new data to a new file).");
    }

    @Override
    public String toString() {
        return url;
    }
}
