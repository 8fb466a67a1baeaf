package dev.tally.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import org.apache.flink.api.common.SupportsConcurrentExecutionAttempts;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Bench only: a committing sink whose writers are slow. Everything is the wrapped sink's own (its
 * shuffle in front of the writers, its writers, pre-commit topology, committer and serializers),
 * except that each writer subtask lets at most {@code rowsPerSecond} rows a second into its writer:
 * the slowness sits in the writer's task, behind the network exchange that feeds it, where a slow
 * writer is in production.
 *
 * <p>The fault lasts until the file {@code liftedBy} exists: then rows pass at full speed, so the
 * bench can drain the backlog and check the output without waiting at the throttled rate.
 *
 * @param <I> the sink's input
 * @param <W> the writers' write results
 * @param <C> the committables
 */
final class ThrottledWriterSink<I, W, C>
    implements Sink<I>,
        SupportsPreWriteTopology<I>,
        SupportsCommitter<C>,
        SupportsPreCommitTopology<W, C>,
        SupportsConcurrentExecutionAttempts {

  private static final long serialVersionUID = 1L;

  private final Sink<I> sink;
  private final int rowsPerSecond;
  private final String liftedBy;

  private ThrottledWriterSink(Sink<I> sink, int rowsPerSecond, Path liftedBy) {
    this.sink = sink;
    this.rowsPerSecond = rowsPerSecond;
    this.liftedBy = liftedBy.toString();
  }

  /**
   * The sink with throttled writers.
   *
   * @throws IllegalArgumentException when the sink does not have the shape of Tally's Iceberg sink
   *     (a shuffle before its writers, a committer behind a pre-commit topology)
   */
  static <I> Sink<I> around(Sink<I> sink, int rowsPerSecond, Path liftedBy) {
    if (!(sink instanceof SupportsPreWriteTopology<?>
        && sink instanceof SupportsCommitter<?>
        && sink instanceof SupportsPreCommitTopology<?, ?>)) {
      throw new IllegalArgumentException(
          "not a committing sink with pre-write and pre-commit topologies: " + sink);
    }
    if (rowsPerSecond <= 0) {
      throw new IllegalArgumentException("rowsPerSecond must be positive: " + rowsPerSecond);
    }
    return new ThrottledWriterSink<>(sink, rowsPerSecond, liftedBy);
  }

  @SuppressWarnings("unchecked")
  private SupportsPreCommitTopology<W, C> preCommit() {
    return (SupportsPreCommitTopology<W, C>) sink;
  }

  @SuppressWarnings("unchecked")
  private SupportsCommitter<C> committing() {
    return (SupportsCommitter<C>) sink;
  }

  @Override
  @SuppressWarnings("unchecked")
  public SinkWriter<I> createWriter(WriterInitContext context) throws IOException {
    return new ThrottledWriter<>(
        (CommittingSinkWriter<I, W>) sink.createWriter(context),
        new Pace(rowsPerSecond),
        Path.of(liftedBy));
  }

  @Override
  @SuppressWarnings("unchecked")
  public DataStream<I> addPreWriteTopology(DataStream<I> input) {
    return ((SupportsPreWriteTopology<I>) sink).addPreWriteTopology(input);
  }

  @Override
  public DataStream<CommittableMessage<C>> addPreCommitTopology(
      DataStream<CommittableMessage<W>> writeResults) {
    return preCommit().addPreCommitTopology(writeResults);
  }

  @Override
  public SimpleVersionedSerializer<W> getWriteResultSerializer() {
    return preCommit().getWriteResultSerializer();
  }

  @Override
  public Committer<C> createCommitter(CommitterInitContext context) throws IOException {
    return committing().createCommitter(context);
  }

  @Override
  public SimpleVersionedSerializer<C> getCommittableSerializer() {
    return committing().getCommittableSerializer();
  }

  /** The real writer behind the pace, until the fault is lifted. */
  // "try": close() throws what the wrapped writer's does, as SinkWriter declares it.
  @SuppressWarnings("try")
  private static final class ThrottledWriter<I, W> implements CommittingSinkWriter<I, W> {
    private static final long CHECK_EVERY_NANOS = 1_000_000_000L;

    private final CommittingSinkWriter<I, W> writer;
    private final Pace pace;
    private final Path liftedBy;
    private boolean lifted;
    private long checkedAt;

    ThrottledWriter(CommittingSinkWriter<I, W> writer, Pace pace, Path liftedBy) {
      this.writer = writer;
      this.pace = pace;
      this.liftedBy = liftedBy;
      this.checkedAt = System.nanoTime();
    }

    @Override
    public void write(I element, Context context) throws IOException, InterruptedException {
      if (!lifted) {
        long now = System.nanoTime();
        if (now - checkedAt >= CHECK_EVERY_NANOS) {
          checkedAt = now;
          lifted = Files.exists(liftedBy);
        }
        if (!lifted) {
          pace.await();
        }
      }
      writer.write(element, context);
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
      writer.flush(endOfInput);
    }

    @Override
    public void writeWatermark(Watermark watermark) throws IOException, InterruptedException {
      writer.writeWatermark(watermark);
    }

    @Override
    public Collection<W> prepareCommit() throws IOException, InterruptedException {
      return writer.prepareCommit();
    }

    @Override
    public void close() throws Exception {
      writer.close();
    }
  }
}
