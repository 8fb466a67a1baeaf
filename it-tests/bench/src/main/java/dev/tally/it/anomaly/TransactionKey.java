package dev.tally.it.anomaly;

/** A transaction's identity, the anomaly table's identifier: (user, transaction id). */
public record TransactionKey(String userId, String transactionId)
    implements Comparable<TransactionKey> {

  @Override
  public int compareTo(TransactionKey o) {
    int c = userId.compareTo(o.userId);
    return c != 0 ? c : transactionId.compareTo(o.transactionId);
  }
}
