package dev.dml.ray.data.store;

import dev.dml.DmlException;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.io.InputFile;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Objects in S3 or an S3-compatible store. A key is a file; a prefix ending in {@code /} (or a
 * key with no object whose {@code key/} holds some) is a folder of the objects directly under
 * it, listed page by page. Reads are ranged GETs with {@code If-Match} on the ETag listed, so an
 * object replaced during a job is refused, never read in part old and part new.
 */
final class S3Store implements DataStore {

    private static final long serialVersionUID = 1L;
    private static final int PAGE_KEYS = 1000;

    /** Null: AWS itself. */
    private final String endpoint;
    private final int pageKeys;

    S3Store(String endpoint) {
        this(endpoint, PAGE_KEYS);
    }

    S3Store(String endpoint, int pageKeys) {
        this.endpoint = endpoint;
        this.pageKeys = pageKeys;
    }

    private S3Client client() {
        return S3Clients.get(endpoint);
    }

    @Override
    public Listing list(String location) {
        S3Url url = S3Url.parse(location);
        if (!url.key().isEmpty() && !url.key().endsWith("/")) {
            StoredFile one = head(url);
            if (one != null) {
                return new Listing(Kind.FILE, List.of(one));
            }
            List<StoredFile> under = listPrefix(url.withKey(url.key() + "/"));
            return under.isEmpty() ? new Listing(Kind.MISSING, List.of())
                    : new Listing(Kind.FOLDER, under);
        }
        return new Listing(Kind.FOLDER, listPrefix(url));
    }

    private List<StoredFile> listPrefix(S3Url prefix) {
        List<StoredFile> out = new ArrayList<>();
        String token = null;
        do {
            String from = token;
            ListObjectsV2Response page = S3Calls.call(prefix, endpoint,
                    () -> client().listObjectsV2(r -> r.bucket(prefix.bucket())
                            .prefix(prefix.key()).delimiter("/").maxKeys(pageKeys)
                            .continuationToken(from)));
            for (S3Object o : page.contents()) {
                if (!o.key().endsWith("/")) {
                    out.add(new StoredFile(prefix.withKey(o.key()).toString(), o.size(),
                            o.eTag()));
                }
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        out.sort(java.util.Comparator.comparing(StoredFile::url));
        return out;
    }

    private StoredFile head(S3Url url) {
        try {
            HeadObjectResponse h = S3Calls.call(url, endpoint,
                    () -> client().headObject(r -> r.bucket(url.bucket()).key(url.key())));
            return new StoredFile(url.toString(), h.contentLength(), h.eTag());
        } catch (DmlException e) {
            if (e.getCause() instanceof S3Exception s && s.statusCode() == 404) {
                return null;
            }
            throw e;
        }
    }

    @Override
    public StoredFile stat(StoredFile f) {
        return head(S3Url.parse(f.url()));
    }

    @Override
    public SeekableByteChannel open(StoredFile f) {
        S3Url url = S3Url.parse(f.url());
        return new RangedFile(f.size(), (position, length) -> range(url, f, position, length));
    }

    private byte[] range(S3Url url, StoredFile f, long position, int length) throws IOException {
        if (length == 0) {
            return new byte[0];
        }
        GetObjectRequest req = GetObjectRequest.builder().bucket(url.bucket()).key(url.key())
                .range("bytes=" + position + "-" + (position + length - 1))
                .ifMatch(f.version()).build();
        try {
            byte[] got = S3Calls.call(url, endpoint,
                    () -> client().getObjectAsBytes(req).asByteArray());
            S3Calls.fetched(got.length);
            return got;
        } catch (DmlException e) {
            if (e.getCause() instanceof S3Exception s
                    && (s.statusCode() == 412 || s.statusCode() == 404)) {
                StoredFile now = stat(f);
                throw f.changed(now == null ? "it is gone" : "ETag " + f.version() + " then, "
                        + now.version() + " now");
            }
            throw e;
        }
    }

    @Override
    public InputFile parquet(StoredFile f) {
        return new ChannelInputFile(f.size(), () -> open(f));
    }
}
