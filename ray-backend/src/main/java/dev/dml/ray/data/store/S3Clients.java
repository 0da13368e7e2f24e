package dev.dml.ray.data.store;

import dev.dml.DmlException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * The S3 clients of this JVM, one per endpoint, made on first use and kept for its life.
 * Credentials come from the SDK's default chain (system properties, environment, profile, web
 * identity, container and instance roles), the region from its default chain (us-east-1 when
 * none is set: S3 then follows each bucket to its region). The SDK's own retries are off: {@link
 * S3Calls} retries, so that they are bounded and counted.
 */
final class S3Clients {

    private static final Duration CONNECT = Duration.ofSeconds(5);
    private static final Duration SOCKET = Duration.ofSeconds(30);
    private static final Duration ATTEMPT = Duration.ofSeconds(60);
    private static final Map<String, S3Client> CLIENTS = new ConcurrentHashMap<>();

    private S3Clients() {}

    /**
     * The endpoint to use: the one given ({@code --s3-endpoint}), else {@code
     * AWS_ENDPOINT_URL_S3} or {@code AWS_ENDPOINT_URL} as the AWS CLI reads them, else none
     * (AWS itself).
     *
     * @param given the endpoint the user gave, or null
     * @return an http(s) URL, or null
     */
    static String endpoint(String given) {
        String e = given;
        if (e == null || e.isBlank()) {
            e = System.getenv("AWS_ENDPOINT_URL_S3");
        }
        if (e == null || e.isBlank()) {
            e = System.getenv("AWS_ENDPOINT_URL");
        }
        if (e == null || e.isBlank()) {
            return null;
        }
        requireEndpoint(e);
        return e.strip();
    }

    /**
     * Refuses an endpoint that is no http(s) URL with a host.
     *
     * @param e the endpoint
     * @throws DmlException naming it
     */
    static void requireEndpoint(String e) {
        URI uri;
        try {
            uri = URI.create(e.strip());
        } catch (IllegalArgumentException bad) {
            uri = null;
        }
        if (uri == null || uri.getHost() == null || !("http".equals(uri.getScheme())
                || "https".equals(uri.getScheme()))) {
            throw new DmlException("The S3 endpoint " + DmlException.literal(e) + " is no"
                    + " http:// or https:// URL.", "Give {s3-endpoint} as the store's URL,"
                    + " such as http://minio.local:9000.");
        }
    }

    /** The client of an endpoint (null: AWS). */
    static S3Client get(String endpoint) {
        return CLIENTS.computeIfAbsent(endpoint == null ? "" : endpoint, S3Clients::build);
    }

    private static S3Client build(String endpoint) {
        RetryStrategy none = AwsRetryStrategy.doNotRetry();
        S3ClientBuilder b = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(CONNECT).socketTimeout(SOCKET))
                .credentialsProvider(DefaultCredentialsProvider.builder().build())
                .overrideConfiguration(c -> c.retryStrategy(none)
                        .apiCallAttemptTimeout(ATTEMPT).apiCallTimeout(ATTEMPT))
                .region(region());
        if (endpoint.isEmpty()) {
            b.crossRegionAccessEnabled(true);
        } else {
            // S3-compatible stores: bucket in the path, and no flexible checksums, which
            // several of them answer with NotImplemented
            b.endpointOverride(URI.create(endpoint)).forcePathStyle(true)
                    .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        }
        return b.build();
    }

    private static Region region() {
        try {
            return new DefaultAwsRegionProviderChain().getRegion();
        } catch (SdkClientException none) {
            return Region.US_EAST_1;
        }
    }
}
