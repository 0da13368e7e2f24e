package dev.dml.ray.data.store;

import dev.dml.DmlException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Runs one S3 request with bounded retries: a transient failure (the server unreachable or
 * timing out, 5xx, throttling) is tried again after a doubling, jittered back-off, at most {@link
 * #ATTEMPTS} times in all; every retry is counted for the job's summary. What is not transient,
 * or still fails, becomes one line naming the URL and one line with the fix.
 */
final class S3Calls {

    /** Tries in all, and the first back-off; the waits add up to about 1.4 s. */
    static final int ATTEMPTS = 4;
    private static final long FIRST_BACKOFF_MS = 200;
    private static final AtomicLong RETRIES = new AtomicLong();
    private static final AtomicLong REQUESTS = new AtomicLong();
    private static final AtomicLong BYTES = new AtomicLong();

    private S3Calls() {}

    /** A request. */
    @FunctionalInterface
    interface Call<T> {
        T run();
    }

    /**
     * Returns the retries this JVM has made so far.
     *
     * @return the count, over every S3 request
     */
    static long retries() {
        return RETRIES.get();
    }

    /** @return the requests this JVM has sent, retries included */
    static long requests() {
        return REQUESTS.get();
    }

    /** @return the object bytes this JVM has fetched by ranged GETs */
    static long bytes() {
        return BYTES.get();
    }

    static void fetched(int bytes) {
        BYTES.addAndGet(bytes);
    }

    static <T> T call(S3Url url, String endpoint, Call<T> call) {
        for (int attempt = 1; ; attempt++) {
            REQUESTS.incrementAndGet();
            try {
                return call.run();
            } catch (S3Exception | SdkClientException e) {
                if (!isTransient(e) || attempt == ATTEMPTS) {
                    throw S3Errors.of(url, endpoint, e, attempt);
                }
            }
            RETRIES.incrementAndGet();
            long wait = (FIRST_BACKOFF_MS << (attempt - 1));
            try {
                Thread.sleep(wait + ThreadLocalRandom.current().nextLong(wait / 2 + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DmlException("Interrupted while reading " + url + ".",
                        "The job was cancelled; run it again.", e);
            }
        }
    }

    private static boolean isTransient(RuntimeException e) {
        if (e instanceof S3Exception s) {
            int status = s.statusCode();
            return status >= 500 || status == 429 || "SlowDown".equals(S3Errors.code(s))
                    || "RequestTimeout".equals(S3Errors.code(s));
        }
        return !S3Errors.noCredentials(e);
    }
}
