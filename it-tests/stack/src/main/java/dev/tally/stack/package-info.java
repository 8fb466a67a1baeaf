/**
 * The local stack: real services (a Kafka broker, an S3-compatible object store, an Iceberg REST
 * catalog, a Flink standalone cluster), each started from Maven artifacts in its own JVM and
 * stopped again from Java code; and what the tools that run Tally's job on them share: the job's
 * command line ({@link dev.tally.stack.TallyJobLauncher}) and the reader of Flink's REST API
 * ({@link dev.tally.stack.FlinkRestClient}).
 *
 * <p>No Docker is needed. Each service's class path comes from a resource file that the {@code
 * it-tests/stack-*} modules write at build time ({@code tally-stack/<service>.classpath}), so the
 * services' libraries never meet the class path of the tests or of Flink. {@link
 * dev.tally.stack.LocalStack} starts the first three; the integration tests, the demo and the bench
 * use it, and {@link dev.tally.stack.StackMain} runs it alone until Ctrl-C.
 */
package dev.tally.stack;
