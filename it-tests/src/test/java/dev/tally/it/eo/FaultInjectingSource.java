package dev.tally.it.eo;

import dev.tally.ports.in.TransactionSource;
import dev.tally.ports.in.TransactionStreams;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The real transaction source with a {@link FaultInjector} behind it: the test-side decorator of
 * the {@link TransactionSource} port that a Guice override puts in place of the production binding,
 * so production code carries no test hook.
 */
final class FaultInjectingSource implements TransactionSource {

  private final TransactionSource delegate;
  private final Fault fault;

  FaultInjectingSource(TransactionSource delegate, Fault fault) {
    this.delegate = delegate;
    this.fault = fault;
  }

  @Override
  public TransactionStreams open(StreamExecutionEnvironment env) {
    TransactionStreams real = delegate.open(env);
    return new TransactionStreams(
        real.accepted()
            .map(new FaultInjector(fault))
            .returns(real.accepted().getType())
            .uid("eo-test-fault-injector")
            .name("Fault injector (test only)"),
        real.rejected());
  }
}
