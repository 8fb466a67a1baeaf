package dev.tally.adapters.iceberg;

import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;

/**
 * Whether a REST catalog lets the job in, asked at start with the job's own catalog settings: the
 * OAuth2 token request (when {@link CatalogConfig#CREDENTIAL} is set), the catalog's configuration
 * call, and a look at the output table's namespace. A refusal (a wrong client secret, a scope the
 * token server does not grant, a catalog that wants a token and got none, or one the principal may
 * not use) fails the start with a message naming the catalog's keys: started anyway, the job's sink
 * would fail on the same refusal, with a stack trace, when it opens the table.
 *
 * <p>Other failures (a catalog that does not answer) give no verdict here: the sink reports them
 * itself when it opens the table.
 */
public final class IcebergAccessCheck {

  private IcebergAccessCheck() {}

  /** The problems, empty when the catalog lets the job in or is not a REST catalog. */
  public static List<String> problems(IcebergSinkConfig options) {
    CatalogConfig catalogConfig = options.catalog();
    if (catalogConfig.type() != CatalogType.REST) {
      return List.of();
    }
    String keys =
        String.join(
            " / ",
            CatalogConfig.URI.name(),
            CatalogConfig.CREDENTIAL.name(),
            CatalogConfig.TOKEN.name(),
            CatalogConfig.OAUTH2_SERVER_URI.name(),
            CatalogConfig.SCOPE.name());
    String where =
        "the catalog at "
            + catalogConfig.uri()
            + (catalogConfig.oauth2ServerUri() == null
                ? ""
                : " (token endpoint " + catalogConfig.oauth2ServerUri() + ")");
    try {
      Catalog catalog = IcebergCatalogs.catalogLoader(options).loadCatalog();
      try {
        if (catalog instanceof SupportsNamespaces namespaces) {
          namespaces.namespaceExists(Namespace.of(options.namespace()));
        }
      } finally {
        IcebergCatalogs.close(catalog);
      }
      return List.of();
    } catch (NotAuthorizedException e) {
      return List.of(
          keys
              + ": "
              + where
              + " refused the job's authentication: "
              + withoutSecrets(e.getMessage(), catalogConfig));
    } catch (ForbiddenException e) {
      return List.of(
          keys
              + ": "
              + where
              + " does not authorize the job's principal: "
              + withoutSecrets(e.getMessage(), catalogConfig));
    } catch (BadRequestException e) {
      // The token endpoint answers invalid_scope, invalid_grant and the like as a bad request.
      return List.of(
          keys
              + ": "
              + where
              + " rejected the job's token request: "
              + withoutSecrets(e.getMessage(), catalogConfig));
    }
  }

  /**
   * The server's message with every secret of the configuration masked: it is the server's text,
   * and a server may echo what it was sent.
   */
  static String withoutSecrets(String message, CatalogConfig catalog) {
    if (message == null) {
      return "(no message)";
    }
    String credential = catalog.restCredential();
    String secretPart =
        credential == null || credential.indexOf(':') < 0
            ? null
            : credential.substring(credential.indexOf(':') + 1);
    String masked = message;
    for (String secret :
        Stream.of(credential, secretPart, catalog.restToken())
            .filter(s -> s != null && !s.isEmpty())
            .toList()) {
      masked = masked.replace(secret, Secrets.MASK);
    }
    return masked;
  }
}
