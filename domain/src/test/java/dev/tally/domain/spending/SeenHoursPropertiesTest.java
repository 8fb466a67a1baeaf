package dev.tally.domain.spending;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.transaction.Transaction;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link SeenHours} against a brute-force oracle (a {@link HashMap} from id to what was counted)
 * and a store of chunks by key as the aggregator keeps them: the verdicts are those of one set of
 * ids whatever the writes and re-reads in between, a write writes only hours that changed, what is
 * stored is always the oracle's ids split by hour, and no hour has more than log2(ids) + 1 chunks.
 */
class SeenHoursPropertiesTest {

  private static final long HOUR = SeenHours.PART_MILLIS;
  private static final String[] CURRENCIES = {"EUR", "USD"};

  /** One step: count (if new), forget before a time, or write the changed parts and re-read. */
  record Op(int kind, int id, long amount, int currency, long time) {}

  @Property(tries = 1_000)
  void answersAsOneSetOfIdsAndStoresExactlyItsHours(
      @ForAll("ops") List<Op> ops, @ForAll boolean keepIds) {
    SeenHours seen = SeenHours.empty();
    Map<String, SeenTransaction> oracle = new HashMap<>();
    Map<Long, SeenIds> store = new HashMap<>();
    Set<Long> touched = new HashSet<>();
    for (Op op : ops) {
      switch (op.kind()) {
        case 0 -> {
          long t = op.time();
          oracle.values().stream()
              .filter(s -> s.eventTimeMillis() < t)
              .forEach(s -> touched.add(SeenHours.partOf(s.eventTimeMillis())));
          boolean oracleForgot =
              oracle.entrySet().removeIf(e -> e.getValue().eventTimeMillis() < t);
          assertThat(seen.forgetBefore(t)).isEqualTo(oracleForgot);
        }
        case 1 -> {
          Map<Long, SeenIds> parts = seen.changedParts();
          // Only hours an addition or a forgetting reached are written.
          assertThat(touched).containsAll(parts.keySet().stream().map(SeenHours::partOf).toList());
          parts.forEach(
              (key, part) -> {
                if (part.isEmpty()) {
                  store.remove(key);
                } else {
                  store.put(key, part);
                }
              });
          seen.markWritten();
          touched.clear();
          assertThat(seen.hasChanges()).isFalse();
          assertThat(contents(store)).isEqualTo(byHour(oracle, keepIds));
          seen = SeenHours.empty();
          store.forEach(seen::addStoredPart);
        }
        default -> {
          Transaction tx = tx("tx-" + op.id(), op);
          long fingerprint = SeenIds.fingerprint(tx.transactionId());
          SeenTransaction found = seen.find(tx.transactionId(), fingerprint);
          assertThat(found).isEqualTo(oracle.get(tx.transactionId()));
          if (found == null) {
            seen.add(tx, fingerprint, keepIds);
            oracle.put(tx.transactionId(), SeenTransaction.of(tx));
            touched.add(SeenHours.partOf(tx.eventTimeMillis()));
          }
        }
      }
      assertThat(seen.size()).isEqualTo(oracle.size());
      for (int i = 0; i < 40; i++) {
        String id = "tx-" + i;
        assertThat(seen.find(id, SeenIds.fingerprint(id))).isEqualTo(oracle.get(id));
      }
    }
  }

  /** The oracle's ids split by hour: per hour, each id's stored entry as text. */
  private static Map<Long, Set<String>> byHour(
      Map<String, SeenTransaction> oracle, boolean keepIds) {
    Map<Long, Set<String>> hours = new HashMap<>();
    oracle.forEach(
        (id, s) ->
            hours
                .computeIfAbsent(SeenHours.partOf(s.eventTimeMillis()), h -> new HashSet<>())
                .add(
                    SeenIds.fingerprint(id)
                        + " "
                        + s.eventTimeMillis()
                        + " "
                        + s.amountCents()
                        + " "
                        + s.currency()
                        + " "
                        + (keepIds ? id : null)));
    return hours;
  }

  /** The stored parts as {@link #byHour} describes them. */
  private static Map<Long, Set<String>> contents(Map<Long, SeenIds> store) {
    Map<Long, Set<String>> hours = new HashMap<>();
    Map<Long, Integer> sizes = new HashMap<>();
    Map<Long, Integer> chunks = new HashMap<>();
    store.forEach(
        (key, part) -> {
          long hour = SeenHours.partOf(key);
          assertThat(part.isEmpty()).as("chunk %d: none stored empty", key).isFalse();
          sizes.merge(hour, part.size(), Integer::sum);
          chunks.merge(hour, 1, Integer::sum);
          Set<String> entries = hours.computeIfAbsent(hour, h -> new HashSet<>());
          for (int i = 0; i < part.size(); i++) {
            entries.add(
                part.fingerprintAt(i)
                    + " "
                    + part.eventTimeAt(i)
                    + " "
                    + part.amountAt(i)
                    + " "
                    + SeenIds.currencyOf(part.currencyAt(i))
                    + " "
                    + part.idAt(i));
          }
        });
    hours.forEach(
        (hour, entries) -> {
          assertThat(entries).as("hour %d: no duplicate entries", hour).hasSize(sizes.get(hour));
          // Size-tiered: an older chunk is over twice the next, so log2(n) + 1 chunks at most.
          assertThat(chunks.get(hour))
              .as("hour %d: chunks of %d ids", hour, entries.size())
              .isLessThanOrEqualTo(1 + 31 - Integer.numberOfLeadingZeros(entries.size()));
        });
    return hours;
  }

  private static Transaction tx(String id, Op op) {
    return new Transaction(
        id, "alice", op.amount(), CURRENCIES[op.currency()], Instant.ofEpochMilli(op.time()));
  }

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Op> op =
        Combinators.combine(
                Arbitraries.integers().between(0, 10),
                Arbitraries.integers().between(0, 39),
                Arbitraries.longs().between(1, 3),
                Arbitraries.integers().between(0, CURRENCIES.length - 1),
                // Six hours of event time, cut at and between hour starts.
                Arbitraries.longs().between(0, 6 * HOUR).map(t -> t % 3 == 0 ? t - t % HOUR : t))
            .as((kind, id, amount, currency, time) -> new Op(kind, id, amount, currency, time));
    return op.list().ofMaxSize(200);
  }
}
