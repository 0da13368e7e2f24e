package dev.dml.ray.data.store;

import dev.dml.DmlException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** S3's failures as one line naming the URL and one line with the fix. */
final class S3Errors {

    private static final String CREDENTIALS = "Give every node credentials that may read it"
            + " the standard way: an instance profile or service account on a cloud node, else"
            + " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE.";

    private S3Errors() {}

    static String code(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    static boolean noCredentials(RuntimeException e) {
        return e instanceof SdkClientException && String.valueOf(e.getMessage())
                .contains("Unable to load credentials");
    }

    static DmlException of(S3Url url, String endpoint, RuntimeException e, int attempts) {
        String at = endpoint == null ? "" : " at " + endpoint;
        String tries = attempts > 1 ? " after " + attempts + " tries" : "";
        if (noCredentials(e)) {
            return new DmlException("No AWS credentials were found to read " + url + ".",
                    CREDENTIALS, e);
        }
        if (!(e instanceof S3Exception s)) {
            return new DmlException("Could not reach the S3 endpoint" + (endpoint == null
                    ? "" : " " + endpoint) + " for " + url + tries + ": "
                    + DmlException.literal(rootMessage(e)) + ".", "Check {s3-endpoint} (or"
                    + " AWS_ENDPOINT_URL) and that this node reaches it; then run again.", e);
        }
        String code = code(s) == null ? "HTTP " + s.statusCode() : code(s);
        int status = s.statusCode();
        if ("NoSuchBucket".equals(code)) {
            return new DmlException("The bucket " + url.bucket() + " of " + url + " does not"
                    + " exist" + at + ".", "Check the bucket's name"
                    + (endpoint == null ? ", or give {s3-endpoint} for an S3-compatible store."
                    : " and {s3-endpoint}."), e);
        }
        if ("ExpiredToken".equals(code) || "TokenRefreshRequired".equals(code)) {
            return new DmlException("The AWS credentials used for " + url + " have expired.",
                    "Refresh them (aws sso login, or new session credentials) and run"
                            + " again.", e);
        }
        if (status == 403 || "InvalidAccessKeyId".equals(code)
                || "SignatureDoesNotMatch".equals(code)) {
            return new DmlException("Access to " + url + at + " was denied (" + code + ").",
                    CREDENTIALS, e);
        }
        if (status == 404) {
            return new DmlException("There is no object " + url + at + ".",
                    "Check the key, or end the URL with / for a prefix of files.", e);
        }
        return new DmlException("S3" + at + " answered " + url + " with " + status + " "
                + code + tries + ".", status >= 500 || status == 429
                ? "The store is failing or throttling; run again later." : "Check the URL and"
                + " the store's settings.", e);
    }

    private static String rootMessage(Throwable e) {
        Throwable c = e;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c.getMessage() == null ? c.getClass().getSimpleName() : c.toString();
    }
}
