package dev.tally.it.eo;

import dev.tally.domain.transaction.SourcedTransaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/** Passes transactions through unchanged and fires its {@link Fault} once (or paces them). */
final class FaultInjector
    implements MapFunction<SourcedTransaction, SourcedTransaction>, CheckpointedFunction {
  private static final long serialVersionUID = 1L;

  /**
   * The pause per record of {@link Fault.Kind#PACE}: about 1,000 records per second and subtask, so
   * a harness dataset takes about a minute, far longer than a stop with a savepoint.
   */
  static final long PACE_MILLIS = 1;

  private final Fault fault;
  private transient long records;

  FaultInjector(Fault fault) {
    this.fault = fault;
  }

  @Override
  public SourcedTransaction map(SourcedTransaction value) throws InterruptedException {
    records++;
    if (fault.kind() == Fault.Kind.PACE && records > fault.afterRecords()) {
      // Between two records the task handles its mailbox, so checkpoint barriers are not held up.
      Thread.sleep(PACE_MILLIS);
    }
    if (fault.kind() == Fault.Kind.TASK_EXCEPTION && records >= fault.afterRecords() && claim()) {
      throw new InjectedFault("injected: an exception in a task after " + records + " records");
    }
    return value;
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) {
    if (fault.kind() == Fault.Kind.CHECKPOINT_FAILURE
        && context.getCheckpointId() >= fault.atCheckpoint()
        && records > 0
        && claim()) {
      throw new InjectedFault(
          "injected: a failure in the snapshot of checkpoint " + context.getCheckpointId());
    }
  }

  @Override
  public void initializeState(FunctionInitializationContext context) {
    // Stateless: the marker file, not state, keeps the fault from firing again after a restore.
  }

  private boolean claim() {
    try {
      Files.createFile(Path.of(fault.marker()));
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The injected failure, recognisable in logs. */
  static final class InjectedFault extends RuntimeException {
    private static final long serialVersionUID = 1L;

    InjectedFault(String message) {
      super(message);
    }
  }
}
