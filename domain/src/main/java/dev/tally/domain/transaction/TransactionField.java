package dev.tally.domain.transaction;

/** The input fields of docs/behaviour.md "Input", with their exact JSON names (no case folding). */
public enum TransactionField {
  TRANSACTION_ID("transaction_id"),
  USER_ID("user_id"),
  AMOUNT_CENTS("amount_cents"),
  CURRENCY("currency"),
  EVENT_TIMESTAMP("event_timestamp");

  private final String jsonName;

  TransactionField(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The field's name in the JSON object. */
  public String jsonName() {
    return jsonName;
  }
}
