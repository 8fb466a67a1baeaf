package dev.tally.adapters.iceberg;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which Iceberg catalog tracks the output table, and how to reach it. Validated as part of {@link
 * IcebergSinkOptions}, which reports every problem at once; {@link #toString()} masks every secret.
 *
 * <p>Secrets are never read from a file: pass them from the environment, e.g. with {@link
 * Builder#secretsFromEnvironment(Map)}.
 *
 * @param type the kind of catalog; {@link CatalogType#HADOOP} by default
 * @param name the catalog's name inside Flink and in table names; {@code tally} by default
 * @param uri {@link CatalogType#REST}: the server's base URL; {@link CatalogType#JDBC}: the {@code
 *     jdbc:} URL; unused by {@link CatalogType#HADOOP}
 * @param warehouse {@link CatalogType#HADOOP}: a local directory or {@code file:} URI (required);
 *     {@link CatalogType#JDBC}: the root location of new tables (required); {@link
 *     CatalogType#REST}: the warehouse the server should use (optional; Polaris: the catalog name)
 * @param restToken {@link CatalogType#REST}: a bearer token ({@code token}); secret
 * @param restCredential {@link CatalogType#REST}: OAuth2 client credentials {@code
 *     client_id:client_secret} exchanged for a token ({@code credential}), as Polaris uses; secret
 * @param oauth2ServerUri {@link CatalogType#REST}: the token endpoint for {@code restCredential}
 *     ({@code oauth2-server-uri}); {@code null} for the catalog's default
 * @param oauth2Scope {@link CatalogType#REST}: the scope requested with {@code restCredential}
 *     ({@code scope}), e.g. Polaris' {@code PRINCIPAL_ROLE:ALL}
 * @param jdbcUser {@link CatalogType#JDBC}: the database user ({@code jdbc.user})
 * @param jdbcPassword {@link CatalogType#JDBC}: the database password ({@code jdbc.password});
 *     secret
 * @param properties further catalog properties passed to Iceberg unchanged (e.g. {@code
 *     header.X-Iceberg-Access-Delegation}, {@code rest.sigv4-enabled}); must not set what the
 *     options above or {@link StorageOptions} own, nor static S3 keys
 */
public record CatalogOptions(
    CatalogType type,
    String name,
    String uri,
    String warehouse,
    String restToken,
    String restCredential,
    String oauth2ServerUri,
    String oauth2Scope,
    String jdbcUser,
    String jdbcPassword,
    Map<String, String> properties) {

  /** Environment variable read by {@link Builder#secretsFromEnvironment}: REST bearer token. */
  public static final String ENV_REST_TOKEN = "TALLY_ICEBERG_REST_TOKEN";

  /** Environment variable read by {@link Builder#secretsFromEnvironment}: OAuth2 credential. */
  public static final String ENV_REST_CREDENTIAL = "TALLY_ICEBERG_REST_CREDENTIAL";

  /** Environment variable read by {@link Builder#secretsFromEnvironment}: JDBC user. */
  public static final String ENV_JDBC_USER = "TALLY_ICEBERG_JDBC_USER";

  /** Environment variable read by {@link Builder#secretsFromEnvironment}: JDBC password. */
  public static final String ENV_JDBC_PASSWORD = "TALLY_ICEBERG_JDBC_PASSWORD";

  /** Default catalog name. */
  public static final String DEFAULT_NAME = "tally";

  /** Catalog properties the options own; setting them through {@code properties} is an error. */
  static final Set<String> RESERVED_PROPERTIES =
      Set.of(
          "type",
          "catalog-impl",
          "uri",
          "warehouse",
          "token",
          "credential",
          "oauth2-server-uri",
          "scope",
          "jdbc.user",
          "jdbc.password",
          "io-impl",
          "s3.endpoint",
          "s3.path-style-access",
          "client.region");

  /** Static S3 keys: credentials come from the environment or the SDK chain, never options. */
  static final Set<String> FORBIDDEN_PROPERTIES =
      Set.of("s3.access-key-id", "s3.secret-access-key", "s3.session-token");

  public CatalogOptions {
    properties = properties == null ? Map.of() : Map.copyOf(properties);
  }

  /** A builder for the embedded default: a Hadoop catalog named {@value #DEFAULT_NAME}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Every problem, each naming its key under {@code catalog.}. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (name == null || name.isBlank()) {
      problems.add("catalog.name must be set");
    }
    if (type == null) {
      problems.add("catalog.type must be set");
      return problems;
    }
    switch (type) {
      case HADOOP -> {
        if (uri != null) {
          problems.add("catalog.uri does not apply to catalog.type HADOOP");
        }
        if (blank(warehouse)) {
          problems.add("catalog.warehouse must be set for catalog.type HADOOP");
        } else if (!isLocal(warehouse)) {
          problems.add(
              "catalog.warehouse must be a local directory or file: URI for catalog.type HADOOP,"
                  + " not "
                  + warehouse);
        }
      }
      case REST -> {
        if (blank(uri)) {
          problems.add("catalog.uri must be set for catalog.type REST");
        } else if (!isHttp(uri)) {
          problems.add("catalog.uri must be an http(s):// URL for catalog.type REST: " + uri);
        }
        if (restToken != null && restCredential != null) {
          problems.add("set at most one of catalog.restToken and catalog.restCredential");
        }
        if ((oauth2ServerUri != null || oauth2Scope != null) && restCredential == null) {
          problems.add("catalog.oauth2ServerUri and oauth2Scope need catalog.restCredential");
        }
        if (oauth2ServerUri != null && !isHttp(oauth2ServerUri)) {
          problems.add("catalog.oauth2ServerUri must be an http(s):// URL: " + oauth2ServerUri);
        }
      }
      case JDBC -> {
        if (blank(uri) || !uri.startsWith("jdbc:")) {
          problems.add("catalog.uri must be a jdbc: URL for catalog.type JDBC");
        }
        if (blank(warehouse)) {
          problems.add("catalog.warehouse must be set for catalog.type JDBC");
        }
      }
    }
    if (type != CatalogType.REST
        && (restToken != null
            || restCredential != null
            || oauth2ServerUri != null
            || oauth2Scope != null)) {
      problems.add("catalog.restToken, restCredential, oauth2ServerUri and oauth2Scope need REST");
    }
    if (type != CatalogType.JDBC && (jdbcUser != null || jdbcPassword != null)) {
      problems.add("catalog.jdbcUser and jdbcPassword apply to catalog.type JDBC only");
    }
    for (String key : properties.keySet()) {
      if (RESERVED_PROPERTIES.contains(key)) {
        problems.add("catalog property " + key + " is set by its own option");
      } else if (FORBIDDEN_PROPERTIES.contains(key)) {
        problems.add(
            "catalog property "
                + key
                + " is not accepted: S3 credentials come from the environment or the AWS SDK's"
                + " default provider chain");
      }
    }
    return problems;
  }

  /** The properties Iceberg's catalog is initialised with, secrets included. */
  Map<String, String> catalogProperties() {
    Map<String, String> props = new LinkedHashMap<>(properties);
    putIfSet(props, "uri", uri);
    putIfSet(props, "warehouse", warehouse);
    putIfSet(props, "token", restToken);
    putIfSet(props, "credential", restCredential);
    putIfSet(props, "oauth2-server-uri", oauth2ServerUri);
    putIfSet(props, "scope", oauth2Scope);
    putIfSet(props, "jdbc.user", jdbcUser);
    putIfSet(props, "jdbc.password", jdbcPassword);
    return props;
  }

  /** Secrets masked: safe to log. */
  @Override
  public String toString() {
    return "CatalogOptions[type="
        + type
        + ", name="
        + name
        + ", uri="
        + uri
        + ", warehouse="
        + warehouse
        + ", restToken="
        + Secrets.mask(restToken)
        + ", restCredential="
        + Secrets.mask(restCredential)
        + ", oauth2ServerUri="
        + oauth2ServerUri
        + ", oauth2Scope="
        + oauth2Scope
        + ", jdbcUser="
        + jdbcUser
        + ", jdbcPassword="
        + Secrets.mask(jdbcPassword)
        + ", properties="
        + Secrets.masked(properties)
        + "]";
  }

  private static void putIfSet(Map<String, String> props, String key, String value) {
    if (value != null) {
      props.put(key, value);
    }
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  private static boolean isHttp(String value) {
    try {
      URI parsed = new URI(value);
      return ("http".equals(parsed.getScheme()) || "https".equals(parsed.getScheme()))
          && parsed.getHost() != null;
    } catch (URISyntaxException e) {
      return false;
    }
  }

  private static boolean isLocal(String value) {
    if (value.startsWith("/")) {
      return true;
    }
    try {
      String scheme = new URI(value).getScheme();
      return scheme == null || "file".equals(scheme);
    } catch (URISyntaxException e) {
      return false;
    }
  }

  /** Builds {@link CatalogOptions}; setters reject {@code null}, validation is the sink's. */
  public static final class Builder {
    private CatalogType type = CatalogType.HADOOP;
    private String name = DEFAULT_NAME;
    private String uri;
    private String warehouse;
    private String restToken;
    private String restCredential;
    private String oauth2ServerUri;
    private String oauth2Scope;
    private String jdbcUser;
    private String jdbcPassword;
    private final Map<String, String> properties = new LinkedHashMap<>();

    private Builder() {}

    /** See {@link CatalogOptions#type()}. */
    public Builder type(CatalogType value) {
      this.type = Objects.requireNonNull(value, "type");
      return this;
    }

    /** See {@link CatalogOptions#name()}. */
    public Builder name(String value) {
      this.name = Objects.requireNonNull(value, "name");
      return this;
    }

    /** See {@link CatalogOptions#uri()}. */
    public Builder uri(String value) {
      this.uri = Objects.requireNonNull(value, "uri");
      return this;
    }

    /** See {@link CatalogOptions#warehouse()}. */
    public Builder warehouse(String value) {
      this.warehouse = Objects.requireNonNull(value, "warehouse");
      return this;
    }

    /** See {@link CatalogOptions#restToken()}. */
    public Builder restToken(String value) {
      this.restToken = Objects.requireNonNull(value, "restToken");
      return this;
    }

    /** See {@link CatalogOptions#restCredential()}. */
    public Builder restCredential(String value) {
      this.restCredential = Objects.requireNonNull(value, "restCredential");
      return this;
    }

    /** See {@link CatalogOptions#oauth2ServerUri()}. */
    public Builder oauth2ServerUri(String value) {
      this.oauth2ServerUri = Objects.requireNonNull(value, "oauth2ServerUri");
      return this;
    }

    /** See {@link CatalogOptions#oauth2Scope()}. */
    public Builder oauth2Scope(String value) {
      this.oauth2Scope = Objects.requireNonNull(value, "oauth2Scope");
      return this;
    }

    /** See {@link CatalogOptions#jdbcUser()}. */
    public Builder jdbcUser(String value) {
      this.jdbcUser = Objects.requireNonNull(value, "jdbcUser");
      return this;
    }

    /** See {@link CatalogOptions#jdbcPassword()}. */
    public Builder jdbcPassword(String value) {
      this.jdbcPassword = Objects.requireNonNull(value, "jdbcPassword");
      return this;
    }

    /** Adds one pass-through catalog property; see {@link CatalogOptions#properties()}. */
    public Builder property(String key, String value) {
      properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Takes the secrets that are set in {@code environment} (normally {@code System.getenv()}):
     * {@value #ENV_REST_TOKEN}, {@value #ENV_REST_CREDENTIAL}, {@value #ENV_JDBC_USER}, {@value
     * #ENV_JDBC_PASSWORD}. Unset variables leave the option as it is.
     */
    public Builder secretsFromEnvironment(Map<String, String> environment) {
      Objects.requireNonNull(environment, "environment");
      if (environment.get(ENV_REST_TOKEN) != null) {
        restToken(environment.get(ENV_REST_TOKEN));
      }
      if (environment.get(ENV_REST_CREDENTIAL) != null) {
        restCredential(environment.get(ENV_REST_CREDENTIAL));
      }
      if (environment.get(ENV_JDBC_USER) != null) {
        jdbcUser(environment.get(ENV_JDBC_USER));
      }
      if (environment.get(ENV_JDBC_PASSWORD) != null) {
        jdbcPassword(environment.get(ENV_JDBC_PASSWORD));
      }
      return this;
    }

    /** The options, unvalidated: {@link IcebergSinkOptions.Builder#build()} checks the whole. */
    public CatalogOptions build() {
      return new CatalogOptions(
          type,
          name,
          uri,
          warehouse,
          restToken,
          restCredential,
          oauth2ServerUri,
          oauth2Scope,
          jdbcUser,
          jdbcPassword,
          properties);
    }
  }
}
