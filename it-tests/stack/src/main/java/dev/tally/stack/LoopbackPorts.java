package dev.tally.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on the loopback interface, for services that must not be reachable from outside.
 */
public final class LoopbackPorts {
  private LoopbackPorts() {}

  /** The loopback address every service of the stack listens on. */
  public static final String HOST = "127.0.0.1";

  private static final int LOWEST = 10_000;
  private static final int ATTEMPTS = 200;
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /** Ports handed out by this JVM: a port is given once, even before its service binds it. */
  private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

  /**
   * Returns a port that was free on 127.0.0.1 a moment ago, below the kernel's ephemeral range.
   *
   * <p>A service binds its port a while after this returns (a child JVM starting). A port from the
   * ephemeral range, which the kernel also gives to outgoing connections, can be taken in between
   * by any client socket on the machine ("Address already in use" at the service's start). A port
   * below that range is never given to a client, so only another process choosing the same port at
   * random can collide with it. When no such port is found, the kernel picks one.
   */
  public static int freePort() {
    int below = ephemeralLow();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; below - LOWEST > 1_000 && attempt < ATTEMPTS; attempt++) {
      int port = random.nextInt(LOWEST, below);
      if (!GIVEN.contains(port) && bindable(port) && GIVEN.add(port)) {
        return port;
      }
    }
    return kernelPort();
  }

  /** The lowest ephemeral port (Linux), 32768 when it cannot be read. */
  private static int ephemeralLow() {
    try {
      String[] range = Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+");
      return Integer.parseInt(range[0]);
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
      socket.setReuseAddress(false);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int kernelPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      socket.setReuseAddress(false);
      int port = socket.getLocalPort();
      GIVEN.add(port);
      return port;
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + HOST, e);
    }
  }
}
