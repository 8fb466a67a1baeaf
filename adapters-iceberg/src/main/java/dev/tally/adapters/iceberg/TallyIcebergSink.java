package dev.tally.adapters.iceberg;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.SupportsConcurrentExecutionAttempts;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.streaming.runtime.partitioner.GlobalPartitioner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.IcebergSink;

/**
 * Iceberg's {@link IcebergSink} with three changes to its topology and, for a keyed table of format
 * version 2, its own writer; pre-commit aggregator, committer and their serializers are Iceberg's
 * own, called as they are, so the commits and the operators' uids are what {@code IcebergSink}
 * makes. The writer of a keyed table is {@link DeltaSinkWriter}: the files Iceberg's writer would
 * write, without the empty equality-delete file Iceberg's opens, uploads and deletes again per
 * partition and checkpoint ({@link EqualityDeltaWriter}).
 *
 * <ol>
 *   <li>With a {@link PartitionChannel}, the shuffle in front of the writers keys rows by their
 *       partition's values instead of Iceberg's hash distribution (which formats a partition path
 *       per row). Without one, Iceberg's own distribution is used.
 *   <li>An anchor operator is chained to Iceberg's pre-commit aggregator, holding one value of
 *       operator state: the id of the last checkpoint. The aggregator keeps no state, and Flink
 *       tells a task which checkpoint it was restored from only when the task has state. Without
 *       the anchor, an aggregator restored after a failover counts checkpoints from 0 again, and
 *       when its input ends before the restored job's first checkpoint, it labels the final
 *       committable "checkpoint 1", which Iceberg's committer then skips as already committed: a
 *       bounded run that fails over near its end would lose its last rows (docs/exactly-once.md).
 *       With the anchor, the task is restored with the checkpoint id, and the aggregator labels the
 *       final committable with the next one. The anchor also records the ids of the jobs its state
 *       went through, and on a restore or a start refuses what Iceberg's committer cannot do
 *       exactly ({@link RestoreLineage}).
 *   <li>The anchor also labels each committable with the watermark its checkpoint covers ({@link
 *       WatermarkedCommittable}), and the committer writes it into the snapshot it commits ({@link
 *       CompletenessMarker}, {@link WatermarkCommitter}). The anchor sees the watermark that
 *       Iceberg's aggregator forwards: the smallest over the writers of the last one each forwarded
 *       before its committable of that checkpoint. Flink keeps the exchanges of a sink's committing
 *       topology aligned, so that is the watermark as of the barrier, and every row emitted before
 *       a writer forwarded it is in that checkpoint's files. The anchor checkpoints the largest
 *       value it has labelled and never labels a smaller one: after a restore the live watermark
 *       starts from nothing, while what the table already shows final stays final (the aggregator's
 *       watermark floor keeps those windows closed).
 * </ol>
 *
 * <p>Iceberg's post-commit topology (its own table maintenance, which Tally does not use: {@link
 * TableMaintenanceFunction}) is not added.
 *
 * <p>The Iceberg sink is built with {@code IcebergSink.Builder}'s package-private {@code build()},
 * reached reflectively: 1.11 offers no public way to get the sink without also adding it to the
 * job. So is the sink's map of snapshot properties, which its committer sets on each commit: 1.11
 * has no per-commit properties. A later Iceberg without that method or a mutable map of that name,
 * or whose pre-commit topology no longer ends in a global exchange after the aggregator, fails the
 * job at submission with a message saying so, never silently.
 *
 * @param <C> Iceberg's committable (package-private in Iceberg, so only a type parameter here)
 * @param <W> Iceberg's write result
 */
final class TallyIcebergSink<C, W>
    implements Sink<RowData>,
        SupportsPreWriteTopology<RowData>,
        SupportsCommitter<WatermarkedCommittable<C>>,
        SupportsPreCommitTopology<W, WatermarkedCommittable<C>>,
        SupportsConcurrentExecutionAttempts {

  private static final long serialVersionUID = 1L;

  /**
   * The stable uid of the operator chained to the pre-commit aggregator; Flink prefixes it with the
   * sink's uid, as it does the aggregator's.
   */
  static final String ANCHOR_UID = "pre-commit-checkpoint-anchor";

  private final IcebergSink iceberg;
  private final PartitionChannel channel;
  private final TableLoader tableLoader;

  /** The columns keying a row for {@link DeltaSinkWriter}, {@code null} for Iceberg's writer. */
  private final List<String> deltaKey;

  /**
   * The map Iceberg's committer sets on every commit. The same object as the {@code IcebergSink}'s
   * field, also after Flink has serialized the sink: Java serialization keeps shared references.
   */
  private final Map<String, String> snapshotProperties;

  private TallyIcebergSink(
      IcebergSink iceberg,
      PartitionChannel channel,
      TableLoader tableLoader,
      List<String> deltaKey) {
    this.iceberg = iceberg;
    this.channel = channel;
    this.tableLoader = tableLoader;
    this.deltaKey = deltaKey == null ? null : List.copyOf(deltaKey);
    this.snapshotProperties = snapshotProperties(iceberg);
  }

  /**
   * Builds Iceberg's sink from the builder, then wraps it.
   *
   * @param builder a configured {@code IcebergSink} builder; its {@code append()} is not called
   * @param channel how rows are keyed to writers, or {@code null} for Iceberg's own distribution
   * @param tableLoader the sink's table, which the anchor checks a start against
   * @param deltaKey the builder's equality columns, to write with {@link DeltaSinkWriter} while the
   *     table is of format version 2, or {@code null} for Iceberg's own writer
   */
  static TallyIcebergSink<?, ?> wrap(
      IcebergSink.Builder builder,
      PartitionChannel channel,
      TableLoader tableLoader,
      List<String> deltaKey) {
    return new TallyIcebergSink<>(build(builder), channel, tableLoader, deltaKey);
  }

  private static IcebergSink build(IcebergSink.Builder builder) {
    try {
      Method build = IcebergSink.Builder.class.getDeclaredMethod("build");
      build.setAccessible(true);
      return (IcebergSink) build.invoke(builder);
    } catch (NoSuchMethodException | IllegalAccessException | RuntimeException e) {
      throw new IllegalStateException(
          "This Iceberg version's IcebergSink.Builder has no build() Tally can call; Tally is"
              + " built against Iceberg 1.11.",
          e);
    } catch (InvocationTargetException e) {
      // The builder's own checks (table, equality fields, options): report them as they are.
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("building Iceberg's sink", cause);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> snapshotProperties(IcebergSink sink) {
    Object map;
    try {
      Field field = IcebergSink.class.getDeclaredField("snapshotProperties");
      field.setAccessible(true);
      map = field.get(sink);
      // Written before each commit: an immutable map fails here; a committer that copied it would
      // commit without the marker, which CompletenessMarkerIT finds.
      ((Map<String, String>) map).put(CompletenessMarker.PROPERTY, "");
      ((Map<String, String>) map).remove(CompletenessMarker.PROPERTY);
    } catch (NoSuchFieldException | IllegalAccessException | RuntimeException e) {
      throw new IllegalStateException(
          "This Iceberg version's IcebergSink has no mutable snapshotProperties map Tally can write"
              + " its completeness marker to; Tally is built against Iceberg 1.11.",
          e);
    }
    return (Map<String, String>) map;
  }

  @Override
  public DataStream<RowData> addPreWriteTopology(DataStream<RowData> rows) {
    if (channel == null) {
      return iceberg.addPreWriteTopology(rows);
    }
    // A keyBy, not a custom partitioner: with unaligned checkpoints Flink can re-route in-flight
    // rows of a keyed exchange to the right writer after rescaling, and refuses custom partitioners
    // for that reason. The writer is keyed again per row, which this key makes cheap.
    return rows.keyBy(channel, Types.INT);
  }

  @Override
  public SinkWriter<RowData> createWriter(WriterInitContext context) throws IOException {
    if (deltaKey != null) {
      TableLoader loader = tableLoader.clone();
      try {
        loader.open();
        Table table = loader.loadTable();
        // Decided on the running table: a table upgraded to version 3 needs deletion vectors.
        if (TableUtil.formatVersion(table) == 2) {
          return new DeltaSinkWriter(loader, table, deltaKey, context);
        }
      } catch (RuntimeException e) {
        loader.close();
        throw e;
      }
      loader.close();
    }
    return iceberg.createWriter(context);
  }

  @Override
  @SuppressWarnings("unchecked")
  public Committer<WatermarkedCommittable<C>> createCommitter(CommitterInitContext context)
      throws IOException {
    return new WatermarkCommitter<>(
        (Committer<C>) (Committer<?>) iceberg.createCommitter(context), snapshotProperties);
  }

  @Override
  @SuppressWarnings("unchecked")
  public SimpleVersionedSerializer<WatermarkedCommittable<C>> getCommittableSerializer() {
    return new WatermarkedCommittableSerializer<>(
        (SimpleVersionedSerializer<C>)
            (SimpleVersionedSerializer<?>) iceberg.getCommittableSerializer());
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public DataStream<CommittableMessage<WatermarkedCommittable<C>>> addPreCommitTopology(
      DataStream<CommittableMessage<W>> writeResults) {
    // Raw types: Iceberg's committable type is package-private, and the framework is erased.
    DataStream toCommitter = iceberg.addPreCommitTopology((DataStream) writeResults);
    Transformation<?> exchange = toCommitter.getTransformation();
    if (!(exchange instanceof PartitionTransformation<?> global)
        || !(global.getPartitioner() instanceof GlobalPartitioner)
        || global.getInputs().size() != 1) {
      throw new IllegalStateException(
          "Iceberg's pre-commit topology no longer ends in a global exchange after its aggregator"
              + " (found "
              + exchange
              + "); Tally is built against Iceberg 1.11 and cannot anchor the aggregator's"
              + " checkpoint ids to this one");
    }
    Transformation aggregator = global.getInputs().get(0);
    DataStream aggregated = new DataStream(toCommitter.getExecutionEnvironment(), aggregator);
    TypeInformation<CommittableMessage<WatermarkedCommittable<C>>> marked =
        CommittableMessageTypeInfo.of(this::getCommittableSerializer);
    return aggregated
        .process(new CheckpointAnchor(tableLoader), marked)
        .uid(ANCHOR_UID)
        .name("Iceberg pre-commit checkpoint anchor")
        // Same parallelism and max parallelism as the aggregator, and a forward edge: chained into
        // the aggregator's task, whose restore is what the anchor's state is for.
        .setParallelism(aggregator.getParallelism())
        .setMaxParallelism(aggregator.getMaxParallelism())
        .global();
  }

  @Override
  @SuppressWarnings("unchecked")
  public SimpleVersionedSerializer<W> getWriteResultSerializer() {
    return (SimpleVersionedSerializer<W>)
        (SimpleVersionedSerializer<?>) iceberg.getWriteResultSerializer();
  }

  /**
   * Passes committables through, each labelled with the watermark its checkpoint covers (see the
   * class comment). Its state gives the aggregator's task a restored checkpoint id (see the class
   * comment), keeps the largest watermark labelled, and records the job lineage with which it
   * refuses, at start, a restore or start that Iceberg's committer cannot make exact ({@link
   * RestoreLineage}): the job fails with a {@link SuppressRestartsException}, before any
   * committable is processed, and is not restarted.
   */
  static final class CheckpointAnchor extends ProcessFunction<Object, Object>
      implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    /** Name of the operator state; one value, the id of the last checkpoint taken. */
    static final String STATE = "last-checkpoint-id";

    /** Name of the operator state holding the job ids the state went through, oldest first. */
    static final String LINEAGE = "job-lineage";

    /** Name of the operator state holding the largest watermark a committable was labelled with. */
    static final String WATERMARK = "labelled-watermark";

    private final TableLoader tableLoader;
    private transient ListState<Long> lastCheckpoint;
    private transient ListState<String> lineageState;
    private transient List<String> lineage;
    private transient ListState<Long> watermarkState;
    private transient long watermark;

    CheckpointAnchor(TableLoader tableLoader) {
      this.tableLoader = tableLoader;
    }

    @Override
    public void processElement(Object message, Context context, Collector<Object> out) {
      if (message instanceof CommittableWithLineage<?> committable) {
        watermark =
            Math.max(
                watermark,
                CompletenessMarker.fromFlinkWatermark(context.timerService().currentWatermark()));
        long checkpoint = committable.getCheckpointId();
        long labelled = watermark;
        out.collect(committable.map(c -> new WatermarkedCommittable<>(c, checkpoint, labelled)));
      } else if (message instanceof CommittableSummary<?> summary) {
        out.collect(summary.map());
      } else {
        throw new IllegalStateException("not a committable message: " + message);
      }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      lastCheckpoint.update(List.of(context.getCheckpointId()));
      lineageState.update(lineage);
      watermarkState.update(List.of(watermark));
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
      lastCheckpoint =
          context
              .getOperatorStateStore()
              .getListState(new ListStateDescriptor<>(STATE, Types.LONG));
      lineageState =
          context
              .getOperatorStateStore()
              .getListState(new ListStateDescriptor<>(LINEAGE, Types.STRING));
      watermarkState =
          context
              .getOperatorStateStore()
              .getListState(new ListStateDescriptor<>(WATERMARK, Types.LONG));
      watermark = Long.MIN_VALUE;
      for (Long restored : watermarkState.get()) {
        watermark = Math.max(watermark, restored);
      }
      String jobId = getRuntimeContext().getJobInfo().getJobId().toString();
      List<String> restored = new ArrayList<>();
      lineageState.get().forEach(restored::add);
      long checkpoint = -1;
      for (Long id : lastCheckpoint.get()) {
        checkpoint = Math.max(checkpoint, id);
      }
      // A restored state without a lineage (written before it was recorded) is not checked.
      if (!context.isRestored() || !restored.isEmpty()) {
        check(jobId, context.isRestored() ? restored : null, checkpoint);
      }
      lineage = RestoreLineage.extend(restored, jobId);
    }

    private void check(String jobId, List<String> restored, long checkpoint) throws Exception {
      Optional<String> refusal;
      try (TableLoader loader = tableLoader.clone()) {
        loader.open();
        Table table = loader.loadTable();
        refusal =
            RestoreLineage.refusal(RestoreLineage.newestCommit(table), jobId, restored, checkpoint);
      }
      if (refusal.isPresent()) {
        throw new SuppressRestartsException(
            new IllegalStateException(
                "The Iceberg sink cannot go on exactly, so the job does not start: "
                    + refusal.get()));
      }
    }
  }
}
