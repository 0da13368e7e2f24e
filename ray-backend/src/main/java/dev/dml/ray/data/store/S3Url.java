package dev.dml.ray.data.store;

import dev.dml.DmlException;

/**
 * An {@code s3://bucket/key} URL taken apart.
 *
 * @param bucket the bucket
 * @param key the key, or a prefix (possibly empty)
 */
record S3Url(String bucket, String key) {

    static S3Url parse(String url) {
        String rest = url.substring("s3://".length());
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        if (bucket.isEmpty()) {
            throw new DmlException("The URL " + DmlException.literal(url) + " names no bucket.",
                    "Write s3://BUCKET/KEY, or s3://BUCKET/PREFIX/ for a folder of files.");
        }
        return new S3Url(bucket, slash < 0 ? "" : rest.substring(slash + 1));
    }

    /** This bucket's URL of another key. */
    S3Url withKey(String k) {
        return new S3Url(bucket, k);
    }

    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key;
    }
}
