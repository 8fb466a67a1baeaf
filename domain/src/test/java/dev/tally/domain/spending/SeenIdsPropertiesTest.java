package dev.tally.domain.spending;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.junit.jupiter.api.Test;

/** {@link SeenIds} against a brute-force oracle: a {@link HashMap} from id to what was counted. */
class SeenIdsPropertiesTest {

  private static final String[] CURRENCIES = {"EUR", "USD", "GBP", "JPY"};

  /** One step: count (if new) the transaction of this id, or forget before a time, or copy. */
  record Op(int kind, int id, long amount, int currency, long time) {}

  @Property(tries = 1_000)
  void answersAsAMapOfIdToWhatWasCounted(
      @ForAll("ops") List<Op> ops,
      @ForAll boolean keepIds,
      @ForAll("copies") int copyHow,
      @ForAll boolean hashOnce) {
    SeenIds seen = SeenIds.empty();
    Map<String, SeenTransaction> oracle = new HashMap<>();
    for (Op op : ops) {
      switch (op.kind()) {
        case 0 -> {
          long t = op.time();
          boolean oracleForgot =
              oracle.entrySet().removeIf(e -> e.getValue().eventTimeMillis() < t);
          assertThat(seen.forgetBefore(t)).isEqualTo(oracleForgot);
        }
        case 1 -> {
          SeenIds copy = seen.copy();
          Map<String, SeenTransaction> frozen = new HashMap<>(oracle);
          // Changing the copy leaves the original alone.
          copy.add(tx("other-" + op.id(), op), keepIds);
          copy.forgetBefore(Long.MAX_VALUE);
          assertMatches(seen, frozen);
          seen =
              switch (copyHow) {
                case 0 -> rebuilt(seen);
                case 1 -> seen.copy();
                default -> rechunked(seen, op.id() % 7 + 1, op.amount() > 0);
              };
        }
        default -> {
          Transaction tx = tx("tx-" + op.id(), op);
          long fingerprint = SeenIds.fingerprint(tx.transactionId());
          SeenTransaction found =
              hashOnce ? seen.find(tx.transactionId(), fingerprint) : seen.find(tx.transactionId());
          assertThat(found).isEqualTo(oracle.get(tx.transactionId()));
          if (found == null) {
            if (hashOnce) {
              seen.add(tx, fingerprint, keepIds);
            } else {
              seen.add(tx, keepIds);
            }
            oracle.put(tx.transactionId(), SeenTransaction.of(tx));
          }
        }
      }
      assertMatches(seen, oracle);
    }
  }

  private static void assertMatches(SeenIds seen, Map<String, SeenTransaction> oracle) {
    assertThat(seen.size()).isEqualTo(oracle.size());
    for (Map.Entry<String, SeenTransaction> e : oracle.entrySet()) {
      assertThat(seen.find(e.getKey())).isEqualTo(e.getValue());
    }
    for (int i = 0; i < 50; i++) {
      if (!oracle.containsKey("tx-" + i)) {
        assertThat(seen.find("tx-" + i)).isNull();
      }
    }
  }

  /** The set as a state reader builds it from what a writer reads through the accessors. */
  private static SeenIds rebuilt(SeenIds seen) {
    SeenIds copy = SeenIds.withCapacity(seen.size());
    for (int i = 0; i < seen.size(); i++) {
      copy.append(
          seen.fingerprintAt(i),
          seen.eventTimeAt(i),
          seen.amountAt(i),
          seen.currencyAt(i),
          seen.idAt(i));
    }
    return copy;
  }

  /**
   * The set as a state reader gathers a user's chunks ({@link SeenIds#appendAll}): split into
   * chunks of {@code chunk} entries, each appended whole to a fresh set, which was looked up first
   * (so indexed while it grows) when {@code lookedUp}.
   */
  private static SeenIds rechunked(SeenIds seen, int chunk, boolean lookedUp) {
    SeenIds gathered = SeenIds.empty();
    if (lookedUp) {
      assertThat(gathered.find("tx-0")).isNull();
    }
    for (int from = 0; from < seen.size(); from += chunk) {
      SeenIds part = SeenIds.empty();
      for (int i = from; i < Math.min(seen.size(), from + chunk); i++) {
        part.appendEntryOf(seen, i);
      }
      gathered.appendAll(part);
    }
    assertThat(gathered).isEqualTo(seen);
    return gathered;
  }

  @Provide
  Arbitrary<Integer> copies() {
    return Arbitraries.integers().between(0, 2);
  }

  private static Transaction tx(String id, Op op) {
    return new Transaction(
        id, "alice", op.amount(), CURRENCIES[op.currency()], Instant.ofEpochMilli(op.time()));
  }

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Op> op =
        Combinators.combine(
                Arbitraries.integers().between(0, 12),
                Arbitraries.integers().between(0, 49),
                Arbitraries.longs().between(-3, 3),
                Arbitraries.integers().between(0, CURRENCIES.length - 1),
                Arbitraries.longs().between(0, 100))
            .as((kind, id, amount, currency, time) -> new Op(kind, id, amount, currency, time));
    return op.list().ofMaxSize(300);
  }

  @Test
  void aLookupAndAnAdditionUseTheFingerprintTheyAreGiven() {
    SeenIds seen = SeenIds.empty();
    Transaction tx = tx("a", new Op(2, 0, 3, 0, 7));
    // Not a's own fingerprint: proof that neither call hashes the id again.
    seen.add(tx, 42L, false);
    assertThat(seen.fingerprintAt(0)).isEqualTo(42L);
    assertThat(seen.find("a", 42L)).isEqualTo(SeenTransaction.of(tx));
    assertThat(seen.find("a")).isNull();
  }

  @Test
  void cleanupGivesBackTheRoomOfForgottenIds() {
    SeenIds seen = SeenIds.empty();
    for (int i = 0; i < 1_000; i++) {
      seen.add(tx("tx-" + i, new Op(2, 0, 1, 0, i)), true);
    }
    assertThat(seen.capacity()).isGreaterThanOrEqualTo(1_000);

    seen.forgetBefore(990);

    assertThat(seen.size()).isEqualTo(10);
    assertThat(seen.capacity()).isLessThanOrEqualTo(20);
    for (int i = 990; i < 1_000; i++) {
      assertThat(seen.find("tx-" + i)).isEqualTo(new SeenTransaction(1, "EUR", i));
    }
    // Grows again as before.
    for (int i = 1_000; i < 1_100; i++) {
      seen.add(tx("tx-" + i, new Op(2, 0, 1, 0, i)), false);
    }
    assertThat(seen.size()).isEqualTo(110);
    assertThat(seen.find("tx-1099")).isEqualTo(new SeenTransaction(1, "EUR", 1_099));
    assertThat(seen.idAt(0)).isEqualTo("tx-990");
  }

  @Test
  void aFingerprintMatchIsTakenForTheIdUnlessTheFullIdIsKept() {
    long fingerprint = SeenIds.fingerprint("a");
    SeenIds fingerprintsOnly = SeenIds.empty();
    // An entry of another id whose fingerprint happens to equal a's: what a collision looks like.
    fingerprintsOnly.append(fingerprint, 5, 1, SeenIds.currencyCode("EUR"), null);
    assertThat(fingerprintsOnly.find("a")).isEqualTo(new SeenTransaction(1, "EUR", 5));

    SeenIds fullIds = SeenIds.empty();
    fullIds.append(fingerprint, 5, 1, SeenIds.currencyCode("EUR"), "b");
    assertThat(fullIds.find("a")).isNull();
    fullIds.append(fingerprint, 6, 2, SeenIds.currencyCode("USD"), "a");
    assertThat(fullIds.find("a")).isEqualTo(new SeenTransaction(2, "USD", 6));
    assertThat(fullIds.find("b")).isNull(); // b's own fingerprint differs
    assertThat(fullIds.keepsIds()).isTrue();
    assertThat(fingerprintsOnly.keepsIds()).isFalse();
  }

  @Test
  void fingerprintsOfManyIdsAreDistinctAndStable() {
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 1_000_000; i++) {
      assertThat(seen.add(SeenIds.fingerprint("tx-" + i))).as("tx-%d", i).isTrue();
    }
    // Stored in state: the function must never change. Pinned values guard it.
    assertThat(SeenIds.fingerprint("")).isEqualTo(-1166397803181037274L);
    assertThat(SeenIds.fingerprint("tx-1")).isEqualTo(-3402896191557694126L);
  }

  @Test
  void currencyCodesRoundTripAndRejectWhatIsNotThreeAsciiCharacters() {
    for (String currency : CURRENCIES) {
      assertThat(SeenIds.currencyOf(SeenIds.currencyCode(currency))).isEqualTo(currency);
    }
    assertThatThrownBy(() -> SeenIds.currencyCode("EURO"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SeenIds.currencyCode("EU\u00c9"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
