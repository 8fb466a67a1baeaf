package dev.tally.domain.spending;

import dev.tally.domain.transaction.Transaction;
import java.util.Arrays;
import java.util.Objects;

/**
 * One user's counted transaction ids, as a {@link UserLedger} needs them to tell new transactions,
 * exact duplicates and conflicting ones apart: per id its 64-bit {@link #fingerprint}, event time,
 * amount and currency, in parallel primitive arrays with an open-addressing index over the
 * fingerprints. No object per id, so a user's whole dedupe memory is one value that a caller can
 * keep on the heap and store as one state entry, and a lookup is a hash probe, not a search.
 *
 * <p>Exactness: with fingerprints alone, a new id whose fingerprint equals that of an id already
 * counted for the same user is taken for it (an exact duplicate when the content matches too, else
 * a conflicting one). {@link #add} with {@code keepId} also keeps the full id, and then a
 * fingerprint match counts only when the ids are equal (docs/behaviour.md "Dedupe memory").
 *
 * <p>Mutable and not thread-safe: {@link #add} and {@link #forgetBefore} change it in place, and so
 * does the first {@link #find} after a read or a copy, which builds the index. Confine a set to one
 * thread even where it is only looked up.
 */
public final class SeenIds {

  private static final int MIN_CAPACITY = 4;

  private int size;
  private long[] fingerprints;
  private long[] eventTimes;
  private long[] amounts;
  private int[] currencies;

  /** Full ids by entry, {@code null} until one is kept; an entry without its id holds null. */
  private String[] ids;

  /**
   * Open addressing: entry index + 1 by slot, 0 for an empty slot; a power of two > 2 size. {@code
   * null} until the first lookup, and again after {@link #forgetBefore} and in a {@link #copy}: a
   * state reader appends every entry of a user's chunks and the user's whole set, and only the
   * whole set is ever looked up, so each is indexed once, when it is looked up, not each chunk on
   * deserialization nor the whole set at every doubling while it is read (docs/benchmarks.md "JMH",
   * {@code ColdReadBenchmark}).
   */
  private int[] slots;

  private SeenIds(int capacity) {
    int n = Math.max(MIN_CAPACITY, capacity);
    fingerprints = new long[n];
    eventTimes = new long[n];
    amounts = new long[n];
    currencies = new int[n];
  }

  /** No id. */
  public static SeenIds empty() {
    return new SeenIds(MIN_CAPACITY);
  }

  /** No id, with room for {@code capacity} before it grows (a reader that knows the count). */
  public static SeenIds withCapacity(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must not be negative: " + capacity);
    }
    return new SeenIds(capacity);
  }

  /** How many ids are kept. */
  public int size() {
    return size;
  }

  /** Whether no id is kept. */
  public boolean isEmpty() {
    return size == 0;
  }

  /**
   * What is remembered of the counted transaction with this id, {@code null} for none.
   *
   * @param transactionId an id of this set's user
   */
  public SeenTransaction find(String transactionId) {
    return find(transactionId, fingerprint(transactionId));
  }

  /**
   * {@link #find} with the id's {@link #fingerprint} computed by the caller, who passes it on to
   * {@link #add(Transaction, long, boolean)}: an event hashes its id once.
   *
   * @param fingerprint {@link #fingerprint}{@code (transactionId)}
   */
  public SeenTransaction find(String transactionId, long fingerprint) {
    int entry = indexOf(transactionId, fingerprint);
    return entry < 0
        ? null
        : new SeenTransaction(amounts[entry], currencyOf(currencies[entry]), eventTimes[entry]);
  }

  private int indexOf(String transactionId, long fingerprint) {
    if (slots == null) {
      reindex(tableSize(size));
    }
    int mask = slots.length - 1;
    for (int slot = (int) fingerprint & mask; ; slot = (slot + 1) & mask) {
      int entry = slots[slot] - 1;
      if (entry < 0) {
        return -1;
      }
      if (fingerprints[entry] == fingerprint
          && (ids == null || ids[entry] == null || ids[entry].equals(transactionId))) {
        return entry;
      }
    }
  }

  /**
   * Remembers a counted transaction, whose id {@link #find} does not know.
   *
   * @param keepId whether to keep the full id, so that only an equal id ever matches it
   */
  public void add(Transaction tx, boolean keepId) {
    add(tx, fingerprint(tx.transactionId()), keepId);
  }

  /**
   * {@link #add(Transaction, boolean)} with the fingerprint {@link #find(String, long)} was given.
   *
   * @param fingerprint {@link #fingerprint} of the transaction's id
   */
  public void add(Transaction tx, long fingerprint, boolean keepId) {
    append(
        fingerprint,
        tx.eventTimeMillis(),
        tx.amountCents(),
        currencyCode(tx.currency()),
        keepId ? tx.transactionId() : null);
  }

  /** Appends entry {@code i} of {@code from} as {@link #append} does: a copy between stores. */
  public void appendEntryOf(SeenIds from, int i) {
    append(
        from.fingerprintAt(i),
        from.eventTimeAt(i),
        from.amountAt(i),
        from.currencyAt(i),
        from.idAt(i));
  }

  /**
   * Appends an entry as stored (a state reader): its fingerprint, event time, amount, {@link
   * #currencyCode} and full id, {@code null} for none. Not checked against the entries there.
   */
  public void append(
      long fingerprint, long eventTimeMillis, long amountCents, int currency, String id) {
    if (size == fingerprints.length) {
      resize(size * 2);
    }
    if (id != null && ids == null) {
      ids = new String[fingerprints.length];
    }
    fingerprints[size] = fingerprint;
    eventTimes[size] = eventTimeMillis;
    amounts[size] = amountCents;
    currencies[size] = currency;
    if (ids != null) {
      ids[size] = id;
    }
    size++;
    indexFrom(size - 1);
  }

  /**
   * Appends every entry of {@code from}, in order, as {@link #appendEntryOf} each would: a state
   * reader's gathering of a user's chunks, one array copy per field rather than five accessor calls
   * and a hash insert per entry.
   */
  public void appendAll(SeenIds from) {
    int n = from.size;
    if (n == 0) {
      return;
    }
    int needed = size + n;
    if (needed > fingerprints.length) {
      resize(Math.max(needed, size * 2));
    }
    System.arraycopy(from.fingerprints, 0, fingerprints, size, n);
    System.arraycopy(from.eventTimes, 0, eventTimes, size, n);
    System.arraycopy(from.amounts, 0, amounts, size, n);
    System.arraycopy(from.currencies, 0, currencies, size, n);
    if (from.ids != null) {
      if (ids == null) {
        ids = new String[fingerprints.length];
      }
      System.arraycopy(from.ids, 0, ids, size, n);
    } else if (ids != null) {
      Arrays.fill(ids, size, needed, null);
    }
    int first = size;
    size = needed;
    indexFrom(first);
  }

  /** Indexes the entries appended from {@code first} on, if the index is built. */
  private void indexFrom(int first) {
    if (slots == null) {
      return;
    }
    if (size * 2 >= slots.length) {
      reindex(tableSize(size));
    } else {
      for (int i = first; i < size; i++) {
        insert(i);
      }
    }
  }

  /** Moves the entries to arrays of {@code capacity} entries. */
  private void resize(int capacity) {
    fingerprints = Arrays.copyOf(fingerprints, capacity);
    eventTimes = Arrays.copyOf(eventTimes, capacity);
    amounts = Arrays.copyOf(amounts, capacity);
    currencies = Arrays.copyOf(currencies, capacity);
    if (ids != null) {
      ids = Arrays.copyOf(ids, capacity);
    }
  }

  /**
   * Forgets every id counted with an event time before {@code eventTimeMillis}.
   *
   * @return whether any was forgotten
   */
  public boolean forgetBefore(long eventTimeMillis) {
    int kept = 0;
    for (int i = 0; i < size; i++) {
      if (eventTimes[i] >= eventTimeMillis) {
        fingerprints[kept] = fingerprints[i];
        eventTimes[kept] = eventTimes[i];
        amounts[kept] = amounts[i];
        currencies[kept] = currencies[i];
        if (ids != null) {
          ids[kept] = ids[i];
        }
        kept++;
      }
    }
    if (kept == size) {
      return false;
    }
    if (ids != null) {
      Arrays.fill(ids, kept, size, null);
    }
    size = kept;
    shrink();
    slots = null;
    return true;
  }

  /**
   * Gives back the room of forgotten entries once less than half of it is used: a user's burst must
   * not hold its arrays (and, kept on the heap, the whole retention) after cleanup. Half the
   * entries again stay free, so that steady additions do not grow them back at once.
   */
  private void shrink() {
    if (fingerprints.length <= 2 * Math.max(MIN_CAPACITY, size)) {
      return;
    }
    resize(Math.max(MIN_CAPACITY, size + (size >>> 1)));
  }

  /** How many entries fit before the arrays grow; for tests of {@link #forgetBefore}. */
  int capacity() {
    return fingerprints.length;
  }

  /** An independent copy: changes to either leave the other alone. */
  public SeenIds copy() {
    SeenIds copy = new SeenIds(size);
    copy.size = size;
    System.arraycopy(fingerprints, 0, copy.fingerprints, 0, size);
    System.arraycopy(eventTimes, 0, copy.eventTimes, 0, size);
    System.arraycopy(amounts, 0, copy.amounts, 0, size);
    System.arraycopy(currencies, 0, copy.currencies, 0, size);
    if (ids != null) {
      copy.ids = Arrays.copyOf(ids, copy.fingerprints.length);
    }
    return copy;
  }

  /** Equal entries in the same order. */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof SeenIds other) || other.size != size) {
      return false;
    }
    for (int i = 0; i < size; i++) {
      if (fingerprints[i] != other.fingerprints[i]
          || eventTimes[i] != other.eventTimes[i]
          || amounts[i] != other.amounts[i]
          || currencies[i] != other.currencies[i]
          || !Objects.equals(idAt(i), other.idAt(i))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = size;
    for (int i = 0; i < size; i++) {
      h = 31 * h + Long.hashCode(fingerprints[i]);
    }
    return h;
  }

  @Override
  public String toString() {
    return "SeenIds[" + size + " ids" + (keepsIds() ? ", full ids" : "") + "]";
  }

  /** Whether some entry keeps its full id. */
  public boolean keepsIds() {
    if (ids != null) {
      for (int i = 0; i < size; i++) {
        if (ids[i] != null) {
          return true;
        }
      }
    }
    return false;
  }

  /** The fingerprint of entry {@code i}, in order of addition. */
  public long fingerprintAt(int i) {
    return fingerprints[checked(i)];
  }

  /** The event time of entry {@code i}. */
  public long eventTimeAt(int i) {
    return eventTimes[checked(i)];
  }

  /** The amount of entry {@code i}. */
  public long amountAt(int i) {
    return amounts[checked(i)];
  }

  /** The {@link #currencyCode} of entry {@code i}. */
  public int currencyAt(int i) {
    return currencies[checked(i)];
  }

  /** The full id of entry {@code i}, {@code null} when only its fingerprint is kept. */
  public String idAt(int i) {
    checked(i);
    return ids == null ? null : ids[i];
  }

  private int checked(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException("entry " + i + " of " + size);
    }
    return i;
  }

  private void reindex(int tableSize) {
    slots = new int[tableSize];
    for (int i = 0; i < size; i++) {
      insert(i);
    }
  }

  private void insert(int entry) {
    int mask = slots.length - 1;
    int slot = (int) fingerprints[entry] & mask;
    while (slots[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    slots[slot] = entry + 1;
  }

  /** The smallest power of two above twice {@code entries}: the index stays at most half full. */
  private static int tableSize(int entries) {
    return Integer.highestOneBit(Math.max(MIN_CAPACITY, entries) * 2) * 2;
  }

  /**
   * The 64-bit fingerprint of a transaction id: FNV-1a over its UTF-16 code units, then the
   * MurmurHash3 finalizer so that every bit depends on every input bit. Stored in state, so it must
   * never change: a changed function would make every remembered id unknown.
   */
  public static long fingerprint(String transactionId) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < transactionId.length(); i++) {
      h = (h ^ transactionId.charAt(i)) * 0x100000001b3L;
    }
    h ^= transactionId.length();
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  /** A currency code (three ASCII characters, as a {@link Transaction} has) packed in an int. */
  public static int currencyCode(String currency) {
    if (currency.length() != 3) {
      throw new IllegalArgumentException("not a three-letter currency code: " + currency);
    }
    int code = 0;
    for (int i = 0; i < 3; i++) {
      char c = currency.charAt(i);
      if (c > 0x7f) {
        throw new IllegalArgumentException("not a three-letter currency code: " + currency);
      }
      code = code << 8 | c;
    }
    return code;
  }

  /** The currency a {@link #currencyCode} packs. */
  public static String currencyOf(int code) {
    return new String(
        new char[] {(char) (code >>> 16 & 0x7f), (char) (code >>> 8 & 0x7f), (char) (code & 0x7f)});
  }
}
