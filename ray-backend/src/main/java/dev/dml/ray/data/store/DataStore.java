package dev.dml.ray.data.store;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.Locale;
import org.apache.parquet.io.InputFile;

/**
 * Where data files are: the local file system or an S3 bucket. The data path's readers open
 * files only through this seam, so each reader exists once. A store is a plain {@link
 * Serializable} value (an S3 store carries its endpoint, not a client), so it travels to the
 * workers with their files.
 */
public interface DataStore extends Serializable {

    /** What a location names. */
    enum Kind { FILE, FOLDER, MISSING }

    /**
     * The files a location names.
     *
     * @param kind a file, a folder (prefix), or nothing
     * @param files the file, or the folder's files in name order (not only data files)
     */
    record Listing(Kind kind, List<StoredFile> files) { }

    /**
     * Picks the store of a location.
     *
     * @param location a path, a {@code file://} URL or an {@code s3://} URL
     * @param s3Endpoint the S3 endpoint to use ({@code --s3-endpoint}), or null for {@code
     *     AWS_ENDPOINT_URL} or else AWS itself
     * @return the store
     * @throws DmlException for another scheme
     */
    static DataStore of(String location, String s3Endpoint) {
        String scheme = scheme(location);
        if (scheme == null || scheme.equals("file")) {
            return LocalStore.INSTANCE;
        }
        if (scheme.equals("s3")) {
            return new S3Store(S3Clients.endpoint(s3Endpoint));
        }
        throw new DmlException("dml reads files from a path, a file:// URL or an s3:// URL,"
                + " not " + scheme + "://; nothing here can fetch "
                + DmlException.literal(location) + ".", "Copy the files to a folder every"
                + " node mounts, or to an S3 bucket (or an S3-compatible store), and give its"
                + " path or s3:// URL.");
    }

    /**
     * Refuses an S3 endpoint that is no http(s) URL with a host.
     *
     * @param endpoint the endpoint, as the user gave it
     * @throws DmlException naming it
     */
    static void requireS3Endpoint(String endpoint) {
        S3Clients.requireEndpoint(endpoint);
    }

    /**
     * Returns the object-store requests this JVM tried again after a transient failure, for
     * the job's summary.
     *
     * @return the count since the JVM started
     */
    static long retries() {
        return S3Calls.retries();
    }

    /**
     * Returns what this JVM asked of object stores: requests sent (retries included) and
     * object bytes fetched, for the workers' log lines and the request costs.
     *
     * @return {requests, bytes} since the JVM started
     */
    static long[] traffic() {
        return new long[] {S3Calls.requests(), S3Calls.bytes()};
    }

    /**
     * Tells an {@code s3://} URL.
     *
     * @param location a path or URL
     * @return {@code true} for {@code s3://...}
     */
    static boolean isS3(String location) {
        return "s3".equals(scheme(location));
    }

    private static String scheme(String location) {
        int colon = location.indexOf("://");
        if (colon > 0 && location.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
            return location.substring(0, colon).toLowerCase(Locale.ROOT);
        }
        return null;
    }

    /**
     * Lists a location: a file, or a folder's (prefix's) files, paging through all of them.
     *
     * @param location a path or URL of this store
     * @return what it names
     */
    Listing list(String location);

    /**
     * Looks a file up again.
     *
     * @param file the file as listed before
     * @return it as it is now, or null when it is gone
     */
    StoredFile stat(StoredFile file);

    /**
     * Opens a file for random reads; reads of an object are ranged GETs, refused once the
     * object's version differs from {@code file}'s.
     *
     * @param file the file as listed
     * @return an owned, read-only channel
     * @throws IOException when it cannot be opened
     */
    SeekableByteChannel open(StoredFile file) throws IOException;

    /**
     * The file as Parquet's reader takes it: footer first, then each column chunk by range.
     *
     * @param file the file as listed
     * @return the input
     */
    InputFile parquet(StoredFile file);

    /**
     * Tells whether this store sits on the local file system.
     *
     * @return {@code true} for local paths
     */
    default boolean isLocal() {
        return false;
    }
}
