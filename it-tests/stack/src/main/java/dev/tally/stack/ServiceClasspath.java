package dev.tally.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Resources that the {@code it-tests/stack-*} modules put on this module's class path: one class
 * path file per service and the services' configuration files.
 *
 * <p>The class path file lists absolute paths into the local Maven repository; it is build output,
 * so a stale or missing file means the stack modules were not built in this reactor.
 */
final class ServiceClasspath {
  private static final String PREFIX = "tally-stack/";

  private ServiceClasspath() {}

  /**
   * The jars of one service, as resolved by Maven when its stack module was built.
   *
   * @param service the service name, e.g. {@code kafka} for {@code tally-stack/kafka.classpath}
   */
  static List<Path> of(String service) {
    String resource = PREFIX + service + ".classpath";
    String text = readResource(resource).trim();
    if (text.isEmpty()) {
      throw new StackException("class path resource " + resource + " is empty");
    }
    List<Path> jars = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (String entry : text.split(java.io.File.pathSeparator)) {
      Path jar = Path.of(entry.trim());
      jars.add(jar);
      if (!Files.isRegularFile(jar)) {
        missing.add(entry);
      }
    }
    if (!missing.isEmpty()) {
      throw new StackException(
          "the class path of service '"
              + service
              + "' names jars that do not exist (rebuild the it-tests/stack-* modules): "
              + missing);
    }
    return List.copyOf(jars);
  }

  /** Copies a configuration resource to a file, so a service JVM can be pointed at it. */
  static Path copyResource(String name, Path target) {
    String resource = PREFIX + name;
    try (InputStream in = open(resource)) {
      Files.createDirectories(target.getParent());
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + resource + " to " + target, e);
    }
  }

  private static String readResource(String resource) {
    try (InputStream in = open(resource)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }

  private static InputStream open(String resource) {
    ClassLoader loader = ServiceClasspath.class.getClassLoader();
    InputStream in = loader.getResourceAsStream(resource);
    if (in == null) {
      throw new StackException(
          "resource "
              + resource
              + " is not on the class path: depend on the matching it-tests/stack-* module");
    }
    return in;
  }
}
