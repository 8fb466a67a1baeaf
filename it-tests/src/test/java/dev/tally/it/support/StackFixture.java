package dev.tally.it.support;

import dev.tally.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * The local stack of one test class under {@code target/<name>/<millis>}, with the object store's
 * credentials where the AWS SDK of Iceberg's S3 client looks for them and a REST catalog client for
 * reading the tables back.
 *
 * @param root the run's directory: the stack's services under {@code stack}, the rest is the test's
 * @param stack the running services
 * @param catalog a client of the stack's REST catalog
 */
public record StackFixture(Path root, LocalStack stack, RESTCatalog catalog)
    implements AutoCloseable {

  /** Starts the plain stack. */
  public static StackFixture start(String name) throws IOException {
    return start(name, LocalStack::start);
  }

  /** Starts the stack {@code starter} makes of its directory, e.g. a secured one. */
  public static StackFixture start(String name, Function<Path, LocalStack> starter)
      throws IOException {
    Path root =
        Files.createDirectories(Path.of("target", name))
            .resolve(Long.toString(System.currentTimeMillis()))
            .toAbsolutePath();
    LocalStack stack = starter.apply(root.resolve("stack"));
    System.setProperty("aws.accessKeyId", stack.objectStore().accessKey());
    System.setProperty("aws.secretAccessKey", stack.objectStore().secretKey());
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("reader", stack.catalog().clientProperties());
    return new StackFixture(root, stack, catalog);
  }

  @Override
  public void close() throws IOException {
    try {
      catalog.close();
    } finally {
      stack.close();
    }
  }
}
