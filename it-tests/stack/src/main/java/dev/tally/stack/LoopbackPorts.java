package dev.tally.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Free TCP ports on the loopback interface, for services that must not be reachable from outside.
 */
public final class LoopbackPorts {
  private LoopbackPorts() {}

  /** The loopback address every service of the stack listens on. */
  public static final String HOST = "127.0.0.1";

  /**
   * Returns a port that was free on 127.0.0.1 a moment ago.
   *
   * <p>The kernel picks it (port 0), so parallel builds rarely collide; the small window between
   * closing this socket and the service binding the port is accepted: a collision shows up as a
   * failed start with the service's log, not as a silent misroute.
   */
  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      socket.setReuseAddress(false);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + HOST, e);
    }
  }
}
