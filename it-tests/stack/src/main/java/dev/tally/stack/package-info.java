/**
 * The local stack: real services (a Kafka broker, an S3-compatible object store, an Iceberg REST
 * catalog), each started from Maven artifacts in its own JVM and stopped again from Java code.
 *
 * <p>No Docker is needed. Each service's class path comes from a resource file that the {@code
 * it-tests/stack-*} modules write at build time ({@code tally-stack/<service>.classpath}), so the
 * services' libraries never meet the class path of the tests or of Flink. {@link
 * dev.tally.stack.LocalStack} starts all three; the integration tests and the demo use it.
 */
package dev.tally.stack;
