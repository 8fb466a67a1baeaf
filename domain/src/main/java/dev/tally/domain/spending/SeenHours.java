package dev.tally.domain.spending;

import dev.tally.domain.transaction.Transaction;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One user's counted transaction ids ({@link SeenIds}), kept for storage in parts by hour of event
 * time, each hour in one or more chunks, with what changed since it was last written. Lookups,
 * additions and forgetting work on all the user's ids at once, exactly as one {@link SeenIds} does
 * (one hash probe whatever the number of hours or chunks), so verdicts do not depend on how the ids
 * are stored; only what must be written does.
 *
 * <p>A chunk's key is its hour's start plus its sequence in the hour ({@link #chunkKey}): hour
 * starts are multiples of {@link #PART_MILLIS} and a sequence stays far below it, so keys of one
 * hour stay together and apart from the next hour's, and a part stored whole under its hour's start
 * (the layout before chunks) is that hour's chunk 0, read as it is. A write writes the ids added to
 * an hour since the last write as a new chunk, not the hour whole: the current hour grows all hour
 * long, and rewriting it at every write-back made the bytes written per interval grow with it. To
 * keep a user's read to a few chunks, the new chunk absorbs the hour's youngest chunks while they
 * are at most twice its size, or while together they stay within {@link #REWRITTEN_UP_TO} ids
 * (size-tiered merging; a quiet user's hour is so one value): an older chunk then stays over twice
 * the size of the next, so an hour of {@code n} ids has at most log2(n) + 1 chunks, and an id is
 * rewritten only when its chunk grows by half, O(log n) times, not at every write. An hour an id is
 * forgotten from is rewritten as one chunk (removed when nothing is left), all its other chunks
 * removed.
 *
 * <p>Mutable and not thread-safe.
 */
public final class SeenHours {

  /** The length of a part, in event time: an hour, as the dedupe cleanup timers are aligned. */
  public static final long PART_MILLIS = 3_600_000L;

  /** {@link #chunkOf} of an entry not written yet. */
  private static final byte UNWRITTEN = -1;

  /**
   * Most chunks an hour may have: the merging keeps them at log2(ids) + 1, so at most 32 for an
   * {@code int} of ids; a byte per entry says which chunk holds it.
   */
  private static final int MAX_CHUNKS = Byte.MAX_VALUE;

  /**
   * Up to how many ids a write rewrites an hour's young chunks as one rather than adding a chunk: a
   * RocksDB value of a few dozen ids costs a put as one of a few does, while each extra chunk costs
   * a key to read back and, once merged, a delete. So the hour of a user with few events stays one
   * value, as it was before chunks (the 5M benchmark's users, about 8 ids an hour, were 11–18 %
   * slower with a chunk per write-back: docs/benchmarks.md "Scale"), and only a busy user's hour is
   * chunked. The bound on chunks holds: a chunk is still kept apart only when it is over twice the
   * size of what follows it.
   */
  static final int REWRITTEN_UP_TO = 32;

  private final SeenIds ids = SeenIds.empty();

  /** By entry of {@link #ids}: the sequence of the stored chunk holding it, or UNWRITTEN. */
  private byte[] chunkOf = new byte[4];

  /** The stored chunks of every hour that has some, or that changed since {@link #markWritten}. */
  private Hour[] hours = new Hour[2];

  private int hourCount;

  /** Start of every hour changed since {@link #markWritten}, in order of change. */
  private long[] changed = new long[2];

  private int changedCount;

  /** What {@link #changedParts} decided, applied by {@link #markWritten}; null when none is. */
  private Plan[] pending;

  private SeenHours() {}

  /** No id, nothing changed. */
  public static SeenHours empty() {
    return new SeenHours();
  }

  /** The start of the hour of event time {@code eventTimeMillis} falls in: its part's key. */
  public static long partOf(long eventTimeMillis) {
    return eventTimeMillis - Math.floorMod(eventTimeMillis, PART_MILLIS);
  }

  /** The key of chunk {@code sequence} of the hour starting at {@code hourStart}. */
  public static long chunkKey(long hourStart, int sequence) {
    return hourStart + sequence;
  }

  /**
   * Adds a chunk as stored under {@code key} (a state reader): its ids, not marked changed. A key
   * that is an hour's start is the hour's first chunk, as the layout before chunks stored it whole.
   */
  public void addStoredPart(long key, SeenIds part) {
    long hour = partOf(key);
    long sequence = key - hour;
    if (sequence >= MAX_CHUNKS) {
      throw new IllegalArgumentException("not a chunk key of this layout: " + key);
    }
    hourOf(hour, true).addChunk((int) sequence, part.size());
    int first = ids.size();
    ids.appendAll(part);
    if (ids.size() > chunkOf.length) {
      chunkOf = Arrays.copyOf(chunkOf, Math.max(ids.size(), chunkOf.length * 2));
    }
    Arrays.fill(chunkOf, first, ids.size(), (byte) sequence);
  }

  /** {@link SeenIds#find(String, long)} over every remembered hour. */
  public SeenTransaction find(String transactionId, long fingerprint) {
    return ids.find(transactionId, fingerprint);
  }

  /** {@link SeenIds#add(Transaction, long, boolean)}; its hour's part changes. */
  public void add(Transaction tx, long fingerprint, boolean keepId) {
    ids.add(tx, fingerprint, keepId);
    noteEntry(UNWRITTEN);
    markChanged(partOf(tx.eventTimeMillis()));
  }

  /** {@link SeenIds#append} (a migration); its hour's part changes. */
  public void append(
      long fingerprint, long eventTimeMillis, long amountCents, int currency, String id) {
    ids.append(fingerprint, eventTimeMillis, amountCents, currency, id);
    noteEntry(UNWRITTEN);
    markChanged(partOf(eventTimeMillis));
  }

  /** Every entry of {@code old} (a migration from a packed value); their hours' parts change. */
  public void appendAllOf(SeenIds old) {
    for (int i = 0; i < old.size(); i++) {
      append(
          old.fingerprintAt(i),
          old.eventTimeAt(i),
          old.amountAt(i),
          old.currencyAt(i),
          old.idAt(i));
    }
  }

  /**
   * {@link SeenIds#forgetBefore}: every hour an id is forgotten from is rewritten at the next write
   * (to nothing, unless {@code eventTimeMillis} falls inside it).
   *
   * @return whether any was forgotten
   */
  public boolean forgetBefore(long eventTimeMillis) {
    int kept = 0;
    for (int i = 0; i < ids.size(); i++) {
      long t = ids.eventTimeAt(i);
      if (t < eventTimeMillis) {
        long hour = partOf(t);
        markChanged(hour);
        hourOf(hour, true).rewrite = true;
      } else {
        // As SeenIds.forgetBefore keeps its entries: in order, at the front.
        chunkOf[kept++] = chunkOf[i];
      }
    }
    return ids.forgetBefore(eventTimeMillis);
  }

  /** How many ids are kept. */
  public int size() {
    return ids.size();
  }

  /** Whether no id is kept. */
  public boolean isEmpty() {
    return ids.isEmpty();
  }

  /** Whether some part changed since {@link #markWritten}. */
  public boolean hasChanges() {
    return changedCount > 0;
  }

  /**
   * What to write for every hour changed since {@link #markWritten}, by chunk key ({@link
   * #chunkKey}): a chunk's ids now, or an empty {@link SeenIds} for a key to remove. An hour that
   * only gained ids gets one chunk of them and of the young chunks it absorbs (their keys but the
   * first removed); an hour an id was forgotten from is rewritten whole as its chunk 0. One pass
   * over the ids. Write it all, then call {@link #markWritten} before any other change.
   */
  public Map<Long, SeenIds> changedParts() {
    Map<Long, SeenIds> parts = new LinkedHashMap<>();
    Plan[] plans = plan();
    for (Plan plan : plans) {
      for (int sequence : plan.removed) {
        parts.put(chunkKey(plan.hour, sequence), SeenIds.empty());
      }
      // After the removals: a rewritten hour's chunk 0 is both removed and, if ids are left, put.
      parts.put(chunkKey(plan.hour, plan.sequence), plan.ids);
    }
    pending = plans;
    return parts;
  }

  /** Notes that what {@link #changedParts} gave was written: nothing is changed any more. */
  public void markWritten() {
    Plan[] plans = pending != null ? pending : plan();
    pending = null;
    for (int i = 0; i < ids.size(); i++) {
      Plan plan = planOf(plans, partOf(ids.eventTimeAt(i)));
      if (plan != null && plan.includes(chunkOf[i])) {
        chunkOf[i] = (byte) plan.sequence;
      }
    }
    for (Plan plan : plans) {
      Hour hour = hourOf(plan.hour, true);
      hour.rewrite = false;
      hour.truncate(plan.firstReplaced);
      if (plan.ids.isEmpty()) {
        removeHour(plan.hour);
      } else {
        hour.addChunk(plan.sequence, plan.ids.size());
      }
    }
    changedCount = 0;
  }

  @Override
  public String toString() {
    return "SeenHours[" + ids + ", " + changedCount + " hours changed]";
  }

  /**
   * Decides, for every changed hour, which chunks the next write replaces, then gathers its ids.
   */
  private Plan[] plan() {
    Plan[] plans = new Plan[changedCount];
    int[] unwritten = new int[changedCount];
    for (int i = 0; i < ids.size(); i++) {
      if (chunkOf[i] == UNWRITTEN) {
        int c = indexOfChanged(partOf(ids.eventTimeAt(i)));
        if (c >= 0) {
          unwritten[c]++;
        }
      }
    }
    for (int c = 0; c < changedCount; c++) {
      Hour hour = hourOf(changed[c], false);
      plans[c] = hour == null ? new Plan(changed[c], 0, 0) : hour.plan(unwritten[c]);
    }
    for (int i = 0; i < ids.size(); i++) {
      int c = indexOfChanged(partOf(ids.eventTimeAt(i)));
      if (c >= 0 && plans[c].includes(chunkOf[i])) {
        plans[c].ids.appendEntryOf(ids, i);
      }
    }
    return plans;
  }

  private static Plan planOf(Plan[] plans, long hour) {
    for (Plan plan : plans) {
      if (plan.hour == hour) {
        return plan;
      }
    }
    return null;
  }

  private void noteEntry(byte sequence) {
    int i = ids.size() - 1;
    if (i == chunkOf.length) {
      chunkOf = Arrays.copyOf(chunkOf, Math.max(4, chunkOf.length * 2));
    }
    chunkOf[i] = sequence;
  }

  private void markChanged(long part) {
    if (indexOfChanged(part) >= 0) {
      return;
    }
    if (changedCount == changed.length) {
      changed = Arrays.copyOf(changed, changedCount * 2);
    }
    changed[changedCount++] = part;
  }

  /** A linear search: between two writes, a user's changed hours are few (the current ones). */
  private int indexOfChanged(long part) {
    for (int c = 0; c < changedCount; c++) {
      if (changed[c] == part) {
        return c;
      }
    }
    return -1;
  }

  /** A linear search too: a user's hours are at most the retention's (a day's: 25). */
  private Hour hourOf(long start, boolean create) {
    for (int h = 0; h < hourCount; h++) {
      if (hours[h].start == start) {
        return hours[h];
      }
    }
    if (!create) {
      return null;
    }
    if (hourCount == hours.length) {
      hours = Arrays.copyOf(hours, hourCount * 2);
    }
    Hour hour = new Hour(start);
    hours[hourCount++] = hour;
    return hour;
  }

  private void removeHour(long start) {
    for (int h = 0; h < hourCount; h++) {
      if (hours[h].start == start) {
        hours[h] = hours[--hourCount];
        hours[hourCount] = null;
        return;
      }
    }
  }

  /** An hour's stored chunks, by ascending sequence, and whether it must be rewritten whole. */
  private static final class Hour {
    final long start;
    int[] sequences = new int[1];
    int[] sizes = new int[1];
    int count;
    boolean rewrite;

    Hour(long start) {
      this.start = start;
    }

    /** Records a stored chunk; chunks may be read in any order (a heap backend's map). */
    void addChunk(int sequence, int size) {
      if (count == sequences.length) {
        sequences = Arrays.copyOf(sequences, count * 2);
        sizes = Arrays.copyOf(sizes, count * 2);
      }
      int at = count;
      while (at > 0 && sequences[at - 1] > sequence) {
        sequences[at] = sequences[at - 1];
        sizes[at] = sizes[at - 1];
        at--;
      }
      sequences[at] = sequence;
      sizes[at] = size;
      count++;
    }

    /** Forgets the chunks from sequence {@code first} on, which a write replaced. */
    void truncate(int first) {
      while (count > 0 && sequences[count - 1] >= first) {
        count--;
      }
    }

    /** Which chunks a write of {@code unwritten} new ids replaces, and under which sequence. */
    Plan plan(int unwritten) {
      if (rewrite || unwritten == 0) {
        // (No hour changes without a new id or a forgotten one; rewriting is right for both.)
        int[] removed = Arrays.copyOf(sequences, count);
        return new Plan(start, 0, 0, removed);
      }
      int merged = unwritten;
      int youngest = count;
      while (youngest > 0
          && (sizes[youngest - 1] <= 2L * merged
              || merged + sizes[youngest - 1] <= REWRITTEN_UP_TO)) {
        merged += sizes[--youngest];
      }
      int sequence =
          youngest < count ? sequences[youngest] : count == 0 ? 0 : sequences[count - 1] + 1;
      if (sequence >= MAX_CHUNKS) {
        throw new IllegalStateException("hour " + start + " has too many chunks: " + count);
      }
      int[] removed = new int[Math.max(0, count - youngest - 1)];
      for (int r = 0; r < removed.length; r++) {
        removed[r] = sequences[youngest + 1 + r];
      }
      return new Plan(start, sequence, sequence, removed);
    }
  }

  /**
   * One hour's next write: the ids of the chunks from sequence {@code firstReplaced} on and the
   * unwritten ones, written as chunk {@code sequence}, and the chunks {@code removed}.
   */
  private static final class Plan {
    final long hour;
    final int sequence;
    final int firstReplaced;
    final int[] removed;
    final SeenIds ids = SeenIds.empty();

    Plan(long hour, int sequence, int firstReplaced, int... removed) {
      this.hour = hour;
      this.sequence = sequence;
      this.firstReplaced = firstReplaced;
      this.removed = removed;
    }

    boolean includes(byte chunk) {
      return chunk == UNWRITTEN || chunk >= firstReplaced;
    }
  }
}
