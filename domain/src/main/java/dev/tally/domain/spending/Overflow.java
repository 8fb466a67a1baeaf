package dev.tally.domain.spending;

import java.util.Objects;

/**
 * An exact sum or count would leave the signed 64-bit range: docs/behaviour.md "Aggregation" makes
 * that an error, never a wrap. The operands are left as they were.
 *
 * @param message which operands, and which range they would leave
 */
public record Overflow(String message) implements Addition {

  public Overflow {
    Objects.requireNonNull(message, "message");
  }
}
