package dev.tally.adapters.iceberg;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where data and metadata files live. Validated as part of {@link IcebergSinkOptions}, which
 * reports every problem at once.
 *
 * <p>S3 credentials are deliberately not an option: {@code S3FileIO} takes them from the AWS SDK's
 * default provider chain (environment variables {@code AWS_ACCESS_KEY_ID}/{@code
 * AWS_SECRET_ACCESS_KEY}, system properties, web identity, the instance profile, …), so they never
 * sit in a configuration file.
 *
 * @param type local filesystem or S3
 * @param s3Endpoint for {@link Type#S3}: the endpoint of an S3-compatible store ({@code
 *     http(s)://host:port}); {@code null} for AWS S3 itself
 * @param s3PathStyleAccess for {@link Type#S3}: address buckets as {@code endpoint/bucket} rather
 *     than {@code bucket.endpoint}, as most S3-compatible stores need
 * @param region for {@link Type#S3}: the AWS region ({@code client.region}); {@code null} to take
 *     it from the SDK's default region chain ({@code AWS_REGION}, profile, instance metadata)
 */
public record StorageOptions(
    Type type, String s3Endpoint, boolean s3PathStyleAccess, String region) {

  /** The kind of storage. */
  public enum Type {
    /**
     * Whatever the catalog's default FileIO resolves for the warehouse location; for a {@code
     * file:} warehouse, the local filesystem.
     */
    LOCAL,
    /** Iceberg's {@code S3FileIO} on AWS S3 or an S3-compatible store. */
    S3
  }

  /** Iceberg's S3 FileIO implementation. */
  static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";

  /** Local storage: the default. */
  public static StorageOptions local() {
    return new StorageOptions(Type.LOCAL, null, false, null);
  }

  /**
   * S3 storage.
   *
   * @param endpoint see {@link #s3Endpoint()}; {@code null} for AWS S3
   * @param pathStyleAccess see {@link #s3PathStyleAccess()}
   * @param region see {@link #region()}; may be {@code null}
   */
  public static StorageOptions s3(String endpoint, boolean pathStyleAccess, String region) {
    return new StorageOptions(Type.S3, endpoint, pathStyleAccess, region);
  }

  /** Every problem, each naming its key under {@code storage.}. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (type == null) {
      problems.add("storage.type must be set");
      return problems;
    }
    if (type == Type.LOCAL && (s3Endpoint != null || s3PathStyleAccess || region != null)) {
      problems.add(
          "storage.s3Endpoint, s3PathStyleAccess and region apply to storage.type S3 only");
    }
    if (s3Endpoint != null) {
      try {
        URI uri = new URI(s3Endpoint);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
            || uri.getHost() == null) {
          problems.add("storage.s3Endpoint must be an http(s)://host[:port] URL: " + s3Endpoint);
        }
      } catch (URISyntaxException e) {
        problems.add("storage.s3Endpoint is no URI: " + e.getMessage());
      }
    }
    if (region != null && region.isBlank()) {
      problems.add("storage.region must not be blank");
    }
    return problems;
  }

  /** The catalog properties this storage sets. */
  Map<String, String> catalogProperties() {
    Map<String, String> properties = new LinkedHashMap<>();
    if (type == Type.S3) {
      properties.put("io-impl", S3_FILE_IO);
      if (s3Endpoint != null) {
        properties.put("s3.endpoint", s3Endpoint);
      }
      properties.put("s3.path-style-access", Boolean.toString(s3PathStyleAccess));
      if (region != null) {
        properties.put("client.region", region);
      }
    }
    return properties;
  }
}
