package dev.tally.domain.anomaly;

import java.util.Objects;

/**
 * What {@link AnomalyRule#judge} decided about one transaction, and why. Every outcome is a value.
 */
public sealed interface AnomalyVerdict
    permits AnomalyVerdict.Anomalous,
        AnomalyVerdict.Normal,
        AnomalyVerdict.TooFewBaseline,
        AnomalyVerdict.NotJudged {

  /** The one {@link NotJudged}. */
  NotJudged NOT_JUDGED = new NotJudged();

  /**
   * The amount lies more than k standard deviations above the baseline's mean.
   *
   * @param amountCents the amount judged
   * @param baseline the baseline it was judged against
   */
  record Anomalous(long amountCents, Baseline baseline) implements AnomalyVerdict {
    public Anomalous {
      Objects.requireNonNull(baseline, "baseline");
    }
  }

  /**
   * The amount is within k standard deviations above the mean (or at or below it).
   *
   * @param baseline the baseline it was judged against
   */
  record Normal(Baseline baseline) implements AnomalyVerdict {
    public Normal {
      Objects.requireNonNull(baseline, "baseline");
    }
  }

  /**
   * The baseline holds fewer transactions than the rule needs: no judgement.
   *
   * @param count how many it holds
   * @param required how many the rule needs
   */
  record TooFewBaseline(long count, int required) implements AnomalyVerdict {}

  /** The amount is 0 or less (a refund): never judged, never part of a baseline. */
  record NotJudged() implements AnomalyVerdict {}
}
