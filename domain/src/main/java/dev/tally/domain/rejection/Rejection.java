package dev.tally.domain.rejection;

import java.util.Objects;

/**
 * The verdict that a record is not counted: a reason code and a message a human can act on.
 *
 * @param reason the stable reason code
 * @param message what exactly was wrong, naming the field and the offending value where there is
 *     one
 */
public record Rejection(RejectionReason reason, String message) {

  public Rejection {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
  }
}
