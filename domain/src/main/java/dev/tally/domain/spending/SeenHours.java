package dev.tally.domain.spending;

import dev.tally.domain.transaction.Transaction;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One user's counted transaction ids ({@link SeenIds}), kept for storage in parts by hour of event
 * time, with the hours whose part changed since it was last written. Lookups, additions and
 * forgetting work on all the user's ids at once, exactly as one {@link SeenIds} does (one hash
 * probe whatever the number of hours), so verdicts do not depend on how the ids are stored; only
 * what must be written does. An hour's part stops changing once the watermark has passed it (only
 * an accepted late event adds to it, and forgetting removes it whole), so writing the changed parts
 * writes what the events since the last write added, not the user's whole memory.
 *
 * <p>Mutable and not thread-safe.
 */
public final class SeenHours {

  /** The length of a part, in event time: an hour, as the dedupe cleanup timers are aligned. */
  public static final long PART_MILLIS = 3_600_000L;

  private final SeenIds ids = SeenIds.empty();

  /** Start of every hour whose part changed since {@link #markWritten}, in order of change. */
  private long[] changed = new long[2];

  private int changedCount;

  private SeenHours() {}

  /** No id, nothing changed. */
  public static SeenHours empty() {
    return new SeenHours();
  }

  /** The start of the hour of event time {@code eventTimeMillis} falls in: its part's key. */
  public static long partOf(long eventTimeMillis) {
    return eventTimeMillis - Math.floorMod(eventTimeMillis, PART_MILLIS);
  }

  /** Adds a part as stored (a state reader): its ids, not marked changed. */
  public void addStoredPart(SeenIds part) {
    for (int i = 0; i < part.size(); i++) {
      ids.appendEntryOf(part, i);
    }
  }

  /** {@link SeenIds#find(String, long)} over every remembered hour. */
  public SeenTransaction find(String transactionId, long fingerprint) {
    return ids.find(transactionId, fingerprint);
  }

  /** {@link SeenIds#add(Transaction, long, boolean)}; its hour's part changes. */
  public void add(Transaction tx, long fingerprint, boolean keepId) {
    ids.add(tx, fingerprint, keepId);
    markChanged(partOf(tx.eventTimeMillis()));
  }

  /** {@link SeenIds#append} (a migration); its hour's part changes. */
  public void append(
      long fingerprint, long eventTimeMillis, long amountCents, int currency, String id) {
    ids.append(fingerprint, eventTimeMillis, amountCents, currency, id);
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
   * {@link SeenIds#forgetBefore}: the part of every hour an id is forgotten from changes (to
   * nothing, unless {@code eventTimeMillis} falls inside it).
   *
   * @return whether any was forgotten
   */
  public boolean forgetBefore(long eventTimeMillis) {
    for (int i = 0; i < ids.size(); i++) {
      long t = ids.eventTimeAt(i);
      if (t < eventTimeMillis) {
        markChanged(partOf(t));
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
   * The part of every hour changed since {@link #markWritten}, by the hour's start: its ids now, an
   * empty {@link SeenIds} for an hour with none left (to be removed). One pass over the ids.
   */
  public Map<Long, SeenIds> changedParts() {
    Map<Long, SeenIds> parts = new LinkedHashMap<>();
    SeenIds[] byChange = new SeenIds[changedCount];
    for (int c = 0; c < changedCount; c++) {
      byChange[c] = SeenIds.empty();
      parts.put(changed[c], byChange[c]);
    }
    for (int i = 0; i < ids.size(); i++) {
      int c = indexOfChanged(partOf(ids.eventTimeAt(i)));
      if (c >= 0) {
        byChange[c].appendEntryOf(ids, i);
      }
    }
    return parts;
  }

  /** Notes that every changed part was written: none is changed any more. */
  public void markWritten() {
    changedCount = 0;
  }

  @Override
  public String toString() {
    return "SeenHours[" + ids + ", " + changedCount + " hours changed]";
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
}
