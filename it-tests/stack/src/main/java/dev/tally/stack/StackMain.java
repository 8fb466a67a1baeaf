package dev.tally.stack;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The local stack on its own: starts the Kafka broker, the S3-compatible store and the Iceberg REST
 * catalog, prints their endpoints, and keeps them up until Ctrl-C, so a user can point their own
 * tools (a Kafka client, a Flink job, a SQL shell) at real services without Docker.
 */
@Command(
    name = "tally-stack",
    description =
        "Starts the local stack (Kafka broker, S3-compatible store, Iceberg REST catalog), prints"
            + " its endpoints and runs until Ctrl-C.")
public final class StackMain implements Callable<Integer> {
  @Mixin private HelpOption help;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "Root directory of the services' configuration, data and logs (default: a new temporary"
              + " directory). A broker's data directory is bound to its cluster id: use a new one"
              + " per run.")
  private Path dir;

  private StackMain() {}

  /** Runs the stack until Ctrl-C; {@code --help} for the options. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new StackMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Path root =
        dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("tally-stack");
    System.out.println("Starting the Tally local stack in " + root + " ...");
    LocalStack stack = LocalStack.start(root);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stack.close();
                  stopped.countDown();
                },
                "tally-stack-stop"));
    System.out.print(stack.describe());
    System.out.println("Press Ctrl-C to stop.");
    stopped.await();
    return 0;
  }
}
