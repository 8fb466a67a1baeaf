package dev.tally.domain.spending;

import static dev.tally.domain.fixtures.Transactions.aTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.rejection.Rejection;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.TumblingWindows;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ledger's verdicts, with the exact messages the dead-letter topic carries, and its firing. */
class UserLedgerTest {

  private static final Instant H10 = Instant.parse("2026-11-29T10:00:00Z");
  private static final long H11 = H10.plusSeconds(3_600).toEpochMilli();
  private static final UserLedger HOURLY =
      new UserLedger(TumblingWindows.of(Duration.ofHours(1)), Duration.ZERO);
  private static final UserLedger HOURLY_WITH_LATENESS =
      new UserLedger(TumblingWindows.of(Duration.ofHours(1)), Duration.ofMinutes(10));

  private static Verdict.Counted counted(Verdict verdict) {
    assertThat(verdict).isInstanceOf(Verdict.Counted.class);
    return (Verdict.Counted) verdict;
  }

  private static Rejection rejection(Verdict verdict) {
    assertThat(verdict).isInstanceOf(Verdict.Rejected.class);
    return ((Verdict.Rejected) verdict).rejection();
  }

  /** Alice's open windows after counting {@code amount} at each instant, before any watermark. */
  private static OpenWindow[] opened(UserLedger ledger, long amount, Instant... at) {
    OpenWindow[] open = null;
    for (Instant instant : at) {
      Transaction tx = aTransaction().user("alice").amount(amount).at(instant).build();
      open = counted(ledger.accept(tx, null, open, Long.MIN_VALUE)).windows();
    }
    return open;
  }

  private static List<String> rows(Firing firing) {
    return firing.rows().stream()
        .map(
            r ->
                r.key().currency()
                    + "@"
                    + r.window().start()
                    + "="
                    + r.aggregate().totalSpentCents()
                    + "#"
                    + r.aggregate().transactionCount()
                    + (r.firstForKey() ? " first" : ""))
        .toList();
  }

  @Test
  void theSameIdWithTheSameContentIsAnExactDuplicate() {
    Transaction tx = aTransaction().id("t1").user("alice").amount(100).at(H10).build();

    assertThat(HOURLY.accept(tx, SeenTransaction.of(tx), null, Long.MIN_VALUE))
        .isSameAs(Verdict.EXACT_DUPLICATE);
  }

  @Test
  void theSameIdWithOtherContentIsAConflictEvenInAnotherCurrency() {
    Transaction first =
        aTransaction()
            .id("t1")
            .user("alice")
            .amount(100)
            .currency("EUR")
            .at("2026-11-29T10:00:00.250Z")
            .build();
    Transaction again =
        aTransaction()
            .id("t1")
            .user("alice")
            .amount(100)
            .currency("USD")
            .at("2026-11-29T10:00:00.250Z")
            .build();

    assertThat(rejection(HOURLY.accept(again, SeenTransaction.of(first), null, Long.MIN_VALUE)))
        .isEqualTo(
            new Rejection(
                RejectionReason.CONFLICTING_DUPLICATE,
                "transaction_id t1 was already counted for user alice with amount_cents=100"
                    + " currency=EUR event_timestamp=2026-11-29T10:00:00.250Z; this record has"
                    + " amount_cents=100 currency=USD event_timestamp=2026-11-29T10:00:00.250Z"));
  }

  @Test
  void anEventOfAFinalWindowIsLateNamingTheWatermarkAndTheLateness() {
    Transaction tx = aTransaction().user("alice").at("2026-11-29T10:59:59.999Z").build();
    long watermark = Instant.parse("2026-11-29T11:30:00Z").toEpochMilli() - 1;

    assertThat(rejection(HOURLY_WITH_LATENESS.accept(tx, null, null, watermark)))
        .isEqualTo(
            new Rejection(
                RejectionReason.LATE,
                "event_timestamp 2026-11-29T10:59:59.999Z falls in window [2026-11-29T10:00:00Z,"
                    + " 2026-11-29T11:00:00Z), final since the watermark 2026-11-29T11:30:00Z"
                    + " passed its end plus the allowed lateness PT10M"));
    assertThat(HOURLY.screen(tx, null, H11 - 1)).isPresent();
    assertThat(HOURLY.screen(tx, null, H11 - 2)).as("not complete yet").isEmpty();
  }

  @Test
  void aTotalThatWouldOverflowIsRejectedAndThePreviousTotalKept() {
    OpenWindow[] open =
        counted(
                HOURLY.accept(
                    aTransaction()
                        .user("alice")
                        .currency("GBP")
                        .amount(Long.MAX_VALUE - 1)
                        .at(H10)
                        .build(),
                    null,
                    null,
                    Long.MIN_VALUE))
            .windows();
    Transaction tx =
        aTransaction().user("alice").currency("GBP").amount(2).at("2026-11-29T10:30:00Z").build();

    assertThat(rejection(HOURLY.accept(tx, null, open, Long.MIN_VALUE)))
        .isEqualTo(
            new Rejection(
                RejectionReason.AMOUNT_OVERFLOW,
                "counting amount_cents 2 in window [2026-11-29T10:00:00Z, 2026-11-29T11:00:00Z)"
                    + " of alice/GBP: adding 2 to the total 9223372036854775806 leaves the signed"
                    + " 64-bit range"));
    assertThat(rows(HOURLY.fire("alice", open, H11 - 1)))
        .containsExactly("GBP@2026-11-29T10:00:00Z=9223372036854775806#1 first");
  }

  @Test
  void aWindowOpenedBesideAnotherCurrencysWindowOfTheSameStartDoesNotOpenTheStart() {
    Verdict.Counted eur =
        counted(
            HOURLY.accept(
                aTransaction().user("alice").currency("EUR").at(H10).build(),
                null,
                null,
                Long.MIN_VALUE));
    Verdict.Counted usd =
        counted(
            HOURLY.accept(
                aTransaction().user("alice").currency("USD").at(H10).build(),
                null,
                eur.windows(),
                Long.MIN_VALUE));
    Verdict.Counted eurAgain =
        counted(
            HOURLY.accept(
                aTransaction().user("alice").currency("EUR").at(H10).build(),
                null,
                usd.windows(),
                Long.MIN_VALUE));

    assertThat(List.of(eur.opensWindow(), eur.opensStart())).containsExactly(true, true);
    assertThat(List.of(usd.opensWindow(), usd.opensStart())).containsExactly(true, false);
    assertThat(List.of(eurAgain.opensWindow(), eurAgain.opensStart()))
        .containsExactly(false, false);
    assertThat(eurAgain.windowStart()).isEqualTo(H10.toEpochMilli());
    assertThat(eurAgain.windows()).hasSize(2);
    assertThat(eurAgain.upsert()).isNull();
  }

  @Test
  void firingEmitsCompleteWindowsOnceKeepsThemThroughTheLatenessThenDropsThem() {
    OpenWindow[] open =
        opened(HOURLY_WITH_LATENESS, 5, H10, H10.plusSeconds(10), H10.plusSeconds(3_600));

    Firing complete = HOURLY_WITH_LATENESS.fire("alice", open, H11 - 1);
    Firing again = HOURLY_WITH_LATENESS.fire("alice", complete.windows(), H11 + 60_000);
    Firing finalAt =
        HOURLY_WITH_LATENESS.fire(
            "alice", again.windows(), HOURLY_WITH_LATENESS.finalAt(H10.toEpochMilli()));

    assertThat(rows(complete)).containsExactly("EUR@2026-11-29T10:00:00Z=10#2 first");
    assertThat(complete.windows()).hasSize(2);
    assertThat(rows(again)).isEmpty();
    assertThat(again.changed()).isFalse();
    assertThat(rows(finalAt)).isEmpty();
    assertThat(finalAt.changed()).isTrue();
    assertThat(finalAt.windows())
        .singleElement()
        .extracting(OpenWindow::windowStart)
        .isEqualTo(H11);
  }

  @Test
  void anEventWithinTheLatenessUpsertsTheRowAtOnceAndIsNotEmittedAgain() {
    OpenWindow[] open =
        HOURLY_WITH_LATENESS
            .fire("alice", opened(HOURLY_WITH_LATENESS, 100, H10), H11 - 1)
            .windows();

    Verdict.Counted late =
        counted(
            HOURLY_WITH_LATENESS.accept(
                aTransaction().user("alice").amount(5).at(H10.plusSeconds(30)).build(),
                null,
                open,
                H11 + 1));

    assertThat(late.upsert().aggregate()).isEqualTo(new SpendingAggregate(105, 2));
    assertThat(late.upsert().firstForKey()).isFalse();
    assertThat(rows(HOURLY_WITH_LATENESS.fire("alice", late.windows(), H11 + 2))).isEmpty();
    assertThat(rows(HOURLY_WITH_LATENESS.fireEarly("alice", late.windows(), H11 + 2))).isEmpty();
  }

  @Test
  void earlyFiringEmitsOnlyOpenWindowsThatChangedSinceTheirLastRow() {
    OpenWindow[] open = opened(HOURLY, 7, H10, H10.plusSeconds(3_600));

    Firing early = HOURLY.fireEarly("alice", open, H11 - 1);

    assertThat(rows(early)).containsExactly("EUR@2026-11-29T11:00:00Z=7#1 first");
    assertThat(rows(HOURLY.fireEarly("alice", early.windows(), H11 - 1))).isEmpty();
    assertThat(rows(HOURLY.fire("alice", early.windows(), H11 - 1)))
        .containsExactly("EUR@2026-11-29T10:00:00Z=7#1 first");
  }
}
