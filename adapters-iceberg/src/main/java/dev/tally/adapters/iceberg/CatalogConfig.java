package dev.tally.adapters.iceberg;

import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigPrefix;
import dev.tally.ports.config.ConfigReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which Iceberg catalog tracks the output table, how to reach it, and the declarations of its keys.
 * Checked as part of {@link IcebergSinkConfig}, which reports every problem at once; {@link
 * #toString()} masks every secret.
 *
 * <p>Secrets are never read from a file: pass them from the environment, e.g. with {@link
 * Builder#secretsFromEnvironment(Map)} or a {@code ${NAME}} reference in the configuration.
 *
 * @param type see {@link #TYPE}
 * @param name see {@link #NAME}; also the catalog part of table names
 * @param uri see {@link #URI}; unused by {@link CatalogType#HADOOP}
 * @param warehouse see {@link #WAREHOUSE}; for Polaris, the catalog name
 * @param restToken see {@link #TOKEN} (Iceberg's {@code token})
 * @param restCredential see {@link #CREDENTIAL} (Iceberg's {@code credential}), exchanged for a
 *     token
 * @param oauth2ServerUri see {@link #OAUTH2_SERVER_URI}; {@code null} for the catalog's default
 * @param oauth2Scope see {@link #SCOPE}
 * @param jdbcUser see {@link #JDBC_USER} (Iceberg's {@code jdbc.user})
 * @param jdbcPassword see {@link #JDBC_PASSWORD} (Iceberg's {@code jdbc.password})
 * @param properties further catalog properties passed to Iceberg unchanged (e.g. {@code
 *     header.X-Iceberg-Access-Delegation}, {@code rest.sigv4-enabled}); must not set what the keys
 *     above or {@link StorageConfig} own, nor static S3 keys
 */
public record CatalogConfig(
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

  /** The kind of catalog. */
  public static final ConfigKey<CatalogType> TYPE =
      ConfigKey.enumeration("iceberg.catalog.type", CatalogType.class)
          .defaultValue(CatalogType.HADOOP)
          .required()
          .description(
              "Catalog kind: hadoop (a local warehouse, for the embedded stack), rest, jdbc.");

  /** The catalog's name inside Flink. */
  public static final ConfigKey<String> NAME =
      ConfigKey.string("iceberg.catalog.name")
          .defaultValue("tally")
          .required()
          .description("Catalog name inside Flink.");

  /** Where the catalog is. */
  public static final ConfigKey<String> URI =
      ConfigKey.string("iceberg.catalog.uri")
          .description("REST: the server's base URL; JDBC: the `jdbc:` URL.");

  /** The warehouse. */
  public static final ConfigKey<String> WAREHOUSE =
      ConfigKey.string("iceberg.catalog.warehouse")
          .description(
              "Warehouse: hadoop, a local directory or file: URI (required); jdbc, the table root;"
                  + " rest, optional.");

  /** The REST bearer token. */
  public static final ConfigKey<String> TOKEN =
      ConfigKey.string("iceberg.catalog.token")
          .secret()
          .description("REST bearer token; secret: set it as `${TALLY_ICEBERG_REST_TOKEN}`.");

  /** The REST OAuth2 client credentials. */
  public static final ConfigKey<String> CREDENTIAL =
      ConfigKey.string("iceberg.catalog.credential")
          .secret()
          .description(
              "REST OAuth2 client credentials `id:secret` (Polaris); secret, from the"
                  + " environment.");

  /** The REST OAuth2 token endpoint. */
  public static final ConfigKey<String> OAUTH2_SERVER_URI =
      ConfigKey.string("iceberg.catalog.oauth2-server-uri")
          .check(CatalogConfig::isHttp, uri -> "must be an http(s):// URL: " + uri)
          .description("REST OAuth2 token endpoint for the credential; default the catalog's.");

  /** The REST OAuth2 scope. */
  public static final ConfigKey<String> SCOPE =
      ConfigKey.string("iceberg.catalog.scope")
          .description("REST OAuth2 scope, e.g. `PRINCIPAL_ROLE:ALL`.");

  /** The JDBC user. */
  public static final ConfigKey<String> JDBC_USER =
      ConfigKey.string("iceberg.catalog.jdbc-user").description("JDBC user.");

  /** The JDBC password. */
  public static final ConfigKey<String> JDBC_PASSWORD =
      ConfigKey.string("iceberg.catalog.jdbc-password")
          .secret()
          .description("JDBC password; secret, from the environment.");

  /** Further catalog properties. */
  public static final ConfigPrefix PROPERTIES =
      new ConfigPrefix(
          "iceberg.catalog.properties.", "Further catalog properties passed to Iceberg unchanged.");

  /** Environment variable read by {@link Builder#secretsFromEnvironment}: REST bearer token. */
  public static final String ENV_REST_TOKEN = "TALLY_ICEBERG_REST_TOKEN";

  /** Environment variable read by {@link Builder#secretsFromEnvironment}: OAuth2 credential. */
  public static final String ENV_REST_CREDENTIAL = "TALLY_ICEBERG_REST_CREDENTIAL";

  /** Environment variable read by {@link Builder#secretsFromEnvironment}: JDBC user. */
  public static final String ENV_JDBC_USER = "TALLY_ICEBERG_JDBC_USER";

  /** Environment variable read by {@link Builder#secretsFromEnvironment}: JDBC password. */
  public static final String ENV_JDBC_PASSWORD = "TALLY_ICEBERG_JDBC_PASSWORD";

  /** Catalog properties the keys own; setting them through {@code properties} is an error. */
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

  public CatalogConfig {
    properties = properties == null ? Map.of() : Map.copyOf(properties);
  }

  /** A builder with every key's declared default: the embedded Hadoop catalog. */
  public static Builder builder() {
    return new Builder();
  }

  /** Reads the catalog's keys, unchecked: {@link IcebergSinkConfig} checks the whole. */
  static CatalogConfig read(ConfigReader r) {
    return new CatalogConfig(
        r.get(TYPE),
        r.get(NAME),
        r.get(URI),
        r.get(WAREHOUSE),
        r.get(TOKEN),
        r.get(CREDENTIAL),
        r.get(OAUTH2_SERVER_URI),
        r.get(SCOPE),
        r.get(JDBC_USER),
        r.get(JDBC_PASSWORD),
        r.get(PROPERTIES));
  }

  /** Every problem, each naming its key. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    NAME.check(name, problems);
    TYPE.check(type, problems);
    if (type == null) {
      return problems;
    }
    OAUTH2_SERVER_URI.check(oauth2ServerUri, problems);
    String forType = " for " + typeIs(type);
    switch (type) {
      case HADOOP -> {
        if (uri != null) {
          problems.add(URI + ": does not apply to " + typeIs(type));
        }
        if (blank(warehouse)) {
          problems.add(WAREHOUSE + ": must be set" + forType);
        } else if (!isLocal(warehouse)) {
          problems.add(
              WAREHOUSE
                  + ": must be a local directory or file: URI"
                  + forType
                  + ", not "
                  + warehouse);
        }
      }
      case REST -> {
        if (blank(uri)) {
          problems.add(URI + ": must be set" + forType);
        } else if (!isHttp(uri)) {
          problems.add(URI + ": must be an http(s):// URL" + forType + ": " + uri);
        }
        if (restToken != null && restCredential != null) {
          problems.add(TOKEN + ", " + CREDENTIAL + ": set at most one of them");
        }
        if ((oauth2ServerUri != null || oauth2Scope != null) && restCredential == null) {
          problems.add(OAUTH2_SERVER_URI + ", " + SCOPE + ": need " + CREDENTIAL);
        }
      }
      case JDBC -> {
        if (blank(uri) || !uri.startsWith("jdbc:")) {
          problems.add(URI + ": must be a jdbc: URL" + forType);
        }
        if (blank(warehouse)) {
          problems.add(WAREHOUSE + ": must be set" + forType);
        }
      }
    }
    if (type != CatalogType.REST
        && (restToken != null
            || restCredential != null
            || oauth2ServerUri != null
            || oauth2Scope != null)) {
      problems.add(
          String.join(", ", TOKEN.name(), CREDENTIAL.name(), OAUTH2_SERVER_URI.name(), SCOPE.name())
              + ": apply to "
              + typeIs(CatalogType.REST)
              + " only");
    }
    if (type != CatalogType.JDBC && (jdbcUser != null || jdbcPassword != null)) {
      problems.add(
          JDBC_USER + ", " + JDBC_PASSWORD + ": apply to " + typeIs(CatalogType.JDBC) + " only");
    }
    for (String key : properties.keySet()) {
      if (RESERVED_PROPERTIES.contains(key)) {
        problems.add(PROPERTIES.name() + key + ": is set by its own key");
      } else if (FORBIDDEN_PROPERTIES.contains(key)) {
        problems.add(
            PROPERTIES.name()
                + key
                + ": is not accepted: S3 credentials come from the environment or the AWS SDK's"
                + " default provider chain");
      }
    }
    return problems;
  }

  /** {@code iceberg.catalog.type <type>}, for messages. */
  static String typeIs(CatalogType type) {
    return TYPE + " " + TYPE.type().format(type);
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
    return "CatalogConfig[type="
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

  /** Builds {@link CatalogConfig} in code; setters reject {@code null}, the sink checks it. */
  public static final class Builder {
    private CatalogType type = TYPE.defaultValue();
    private String name = NAME.defaultValue();
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

    /** See {@link CatalogConfig#type()}. */
    public Builder type(CatalogType value) {
      this.type = Objects.requireNonNull(value, "type");
      return this;
    }

    /** See {@link CatalogConfig#name()}. */
    public Builder name(String value) {
      this.name = Objects.requireNonNull(value, "name");
      return this;
    }

    /** See {@link CatalogConfig#uri()}. */
    public Builder uri(String value) {
      this.uri = Objects.requireNonNull(value, "uri");
      return this;
    }

    /** See {@link CatalogConfig#warehouse()}. */
    public Builder warehouse(String value) {
      this.warehouse = Objects.requireNonNull(value, "warehouse");
      return this;
    }

    /** See {@link CatalogConfig#restToken()}. */
    public Builder restToken(String value) {
      this.restToken = Objects.requireNonNull(value, "restToken");
      return this;
    }

    /** See {@link CatalogConfig#restCredential()}. */
    public Builder restCredential(String value) {
      this.restCredential = Objects.requireNonNull(value, "restCredential");
      return this;
    }

    /** See {@link CatalogConfig#oauth2ServerUri()}. */
    public Builder oauth2ServerUri(String value) {
      this.oauth2ServerUri = Objects.requireNonNull(value, "oauth2ServerUri");
      return this;
    }

    /** See {@link CatalogConfig#oauth2Scope()}. */
    public Builder oauth2Scope(String value) {
      this.oauth2Scope = Objects.requireNonNull(value, "oauth2Scope");
      return this;
    }

    /** See {@link CatalogConfig#jdbcUser()}. */
    public Builder jdbcUser(String value) {
      this.jdbcUser = Objects.requireNonNull(value, "jdbcUser");
      return this;
    }

    /** See {@link CatalogConfig#jdbcPassword()}. */
    public Builder jdbcPassword(String value) {
      this.jdbcPassword = Objects.requireNonNull(value, "jdbcPassword");
      return this;
    }

    /** Adds one pass-through catalog property; see {@link CatalogConfig#properties()}. */
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

    /** The catalog, unchecked: {@link IcebergSinkConfig.Builder#build()} checks the whole. */
    public CatalogConfig build() {
      return new CatalogConfig(
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
