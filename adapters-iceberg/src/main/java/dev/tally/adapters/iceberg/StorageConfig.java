package dev.tally.adapters.iceberg;

import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where data and metadata files live, and the declarations of its keys. Checked as part of {@link
 * IcebergSinkConfig}, which reports every problem at once.
 *
 * <p>S3 credentials are deliberately not an option: {@code S3FileIO} takes them from the AWS SDK's
 * default provider chain (environment variables {@code AWS_ACCESS_KEY_ID}/{@code
 * AWS_SECRET_ACCESS_KEY}, system properties, web identity, the instance profile, …), so they never
 * sit in a configuration file.
 *
 * @param type see {@link #TYPE}
 * @param s3Endpoint see {@link #S3_ENDPOINT}; {@code null} for AWS S3 itself
 * @param s3PathStyleAccess see {@link #S3_PATH_STYLE_ACCESS}: address buckets as {@code
 *     endpoint/bucket} rather than {@code bucket.endpoint}
 * @param region see {@link #REGION} (Iceberg's {@code client.region}); {@code null} to take it from
 *     the SDK's default region chain ({@code AWS_REGION}, profile, instance metadata)
 */
public record StorageConfig(
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

  /** The kind of storage. */
  public static final ConfigKey<Type> TYPE =
      ConfigKey.enumeration("iceberg.storage.type", Type.class)
          .defaultValue(Type.LOCAL)
          .required()
          .description(
              "Storage: local or s3 (`S3FileIO`; credentials from the AWS SDK's default chain,"
                  + " never from here).");

  /** The endpoint of an S3-compatible store. */
  public static final ConfigKey<String> S3_ENDPOINT =
      ConfigKey.string("iceberg.storage.s3-endpoint")
          .check(StorageConfig::isHttpHost, uri -> "must be an http(s)://host[:port] URL: " + uri)
          .description("S3-compatible endpoint, `http(s)://host:port`; empty for AWS S3.");

  /** Path-style bucket addressing. */
  public static final ConfigKey<Boolean> S3_PATH_STYLE_ACCESS =
      ConfigKey.bool("iceberg.storage.s3-path-style-access")
          .defaultValue(false)
          .description("Path-style bucket addressing, as most S3-compatible stores need.");

  /** The AWS region. */
  public static final ConfigKey<String> REGION =
      ConfigKey.string("iceberg.storage.region")
          .description("AWS region; empty for the SDK's default region chain.");

  /** Iceberg's S3 FileIO implementation. */
  static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";

  /** Local storage. */
  public static StorageConfig local() {
    return new StorageConfig(Type.LOCAL, null, false, null);
  }

  /**
   * S3 storage.
   *
   * @param endpoint see {@link #s3Endpoint()}; {@code null} for AWS S3
   * @param pathStyleAccess see {@link #s3PathStyleAccess()}
   * @param region see {@link #region()}; may be {@code null}
   */
  public static StorageConfig s3(String endpoint, boolean pathStyleAccess, String region) {
    return new StorageConfig(Type.S3, endpoint, pathStyleAccess, region);
  }

  /** Reads the storage keys, unchecked: {@link IcebergSinkConfig} checks the whole. */
  static StorageConfig read(ConfigReader r) {
    return new StorageConfig(
        r.get(TYPE), r.get(S3_ENDPOINT), r.get(S3_PATH_STYLE_ACCESS), r.get(REGION));
  }

  /** Every problem, each naming its key. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    TYPE.check(type, problems);
    if (type == Type.LOCAL && (s3Endpoint != null || s3PathStyleAccess || region != null)) {
      problems.add(
          String.join(", ", S3_ENDPOINT.name(), S3_PATH_STYLE_ACCESS.name(), REGION.name())
              + ": apply to "
              + TYPE
              + " s3 only");
    }
    S3_ENDPOINT.check(s3Endpoint, problems);
    if (region != null && region.isBlank()) {
      problems.add(REGION + ": must not be blank");
    }
    return problems;
  }

  private static boolean isHttpHost(String endpoint) {
    try {
      URI uri = new URI(endpoint);
      return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          && uri.getHost() != null;
    } catch (URISyntaxException e) {
      return false;
    }
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
