package dev.tally.stack;

/** A service of the local stack could not be started, reached or stopped. */
public final class StackException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed, with enough context (log tail, ports, paths) to act on it
   */
  public StackException(String message) {
    super(message);
  }

  /**
   * @param message what failed, with enough context (log tail, ports, paths) to act on it
   * @param cause the underlying failure
   */
  public StackException(String message, Throwable cause) {
    super(message, cause);
  }
}
