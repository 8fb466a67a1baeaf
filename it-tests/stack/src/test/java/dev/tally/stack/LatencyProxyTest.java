package dev.tally.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The proxy is a real link to a real service: every byte the client sends reaches the service in
 * order, and every answer comes back, on each of several connections, with a latency in force or
 * changed while connections are open, and under a bandwidth that connections share.
 */
class LatencyProxyTest {

  /** Answers each length-prefixed message with the same bytes reversed. */
  private static Thread reversingService(ServerSocket server) {
    Thread thread =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try {
                  Socket socket = server.accept();
                  Thread connection = new Thread(() -> reverse(socket));
                  connection.setDaemon(true);
                  connection.start();
                } catch (IOException e) {
                  return;
                }
              }
            });
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static void reverse(Socket socket) {
    try (socket;
        DataInputStream in = new DataInputStream(socket.getInputStream());
        DataOutputStream out = new DataOutputStream(socket.getOutputStream())) {
      while (true) {
        byte[] message = new byte[in.readInt()];
        in.readFully(message);
        for (int i = 0, j = message.length - 1; i < j; i++, j--) {
          byte b = message[i];
          message[i] = message[j];
          message[j] = b;
        }
        out.writeInt(message.length);
        out.write(message);
        out.flush();
      }
    } catch (IOException e) {
      // The client closed the connection.
    }
  }

  private static byte[] roundTrip(DataInputStream in, DataOutputStream out, byte[] message)
      throws IOException {
    out.writeInt(message.length);
    out.write(message);
    out.flush();
    byte[] answer = new byte[in.readInt()];
    in.readFully(answer);
    return answer;
  }

  private static byte[] reversed(byte[] bytes) {
    byte[] r = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      r[i] = bytes[bytes.length - 1 - i];
    }
    return r;
  }

  @Test
  void everyByteReachesTheServiceInOrderAndEveryAnswerComesBack() throws Exception {
    Random random = new Random(7);
    try (ServerSocket server = new ServerSocket()) {
      server.bind(new InetSocketAddress(InetAddress.getByName(LoopbackPorts.HOST), 0));
      reversingService(server);
      try (LatencyProxy proxy =
          LatencyProxy.start(LoopbackPorts.HOST, server.getLocalPort(), Duration.ofMillis(20))) {
        for (int connection = 0; connection < 3; connection++) {
          try (Socket client = new Socket(LoopbackPorts.HOST, proxy.port());
              DataInputStream in = new DataInputStream(client.getInputStream());
              DataOutputStream out = new DataOutputStream(client.getOutputStream())) {
            // Larger than the proxy's chunk, so one message crosses in many delayed chunks.
            for (int size : new int[] {1, 1_000, 300_000}) {
              byte[] message = new byte[size];
              random.nextBytes(message);
              assertThat(roundTrip(in, out, message)).isEqualTo(reversed(message));
            }
            proxy.latency(Duration.ZERO);
            byte[] after = new byte[5_000];
            random.nextBytes(after);
            assertThat(roundTrip(in, out, after)).isEqualTo(reversed(after));
            proxy.latency(Duration.ofMillis(20));
          }
        }
        assertThat(proxy.connections()).isEqualTo(3);
        assertThat(proxy.latency()).isEqualTo(Duration.ofMillis(20));
      }
    }
  }

  private static final long SECOND = 1_000_000_000L;

  @Test
  void aCappedLinkPassesTheBytesOfEveryConnectionInTurnAtItsRate() {
    LatencyProxy.Link link = new LatencyProxy.Link();
    link.bandwidth(1_000);
    long t0 = 42 * SECOND;

    // Two connections ready at once: the second's bytes pass after the first's.
    assertThat(link.pass(500, t0)).isEqualTo(t0 + SECOND / 2);
    assertThat(link.pass(500, t0)).isEqualTo(t0 + SECOND);
    // An idle link banks nothing: later bytes start when they are ready.
    assertThat(link.pass(100, t0 + 5 * SECOND)).isEqualTo(t0 + 5 * SECOND + SECOND / 10);

    link.bandwidth(0);
    assertThat(link.pass(1_000_000, t0 + 6 * SECOND)).isEqualTo(t0 + 6 * SECOND);
    assertThat(link.bandwidth()).isZero();
  }

  @Test
  void underABandwidthCapEveryByteOfConnectionsAtOnceStillArrivesInOrder() throws Exception {
    try (ServerSocket server = new ServerSocket()) {
      server.bind(new InetSocketAddress(InetAddress.getByName(LoopbackPorts.HOST), 0));
      reversingService(server);
      try (LatencyProxy proxy =
          LatencyProxy.start(LoopbackPorts.HOST, server.getLocalPort(), Duration.ZERO)) {
        proxy.bandwidth(4_000_000);
        List<CompletableFuture<Void>> connections = new ArrayList<>();
        for (int connection = 0; connection < 3; connection++) {
          Random random = new Random(connection);
          connections.add(
              CompletableFuture.runAsync(
                  () -> {
                    try (Socket client = new Socket(LoopbackPorts.HOST, proxy.port());
                        DataInputStream in = new DataInputStream(client.getInputStream());
                        DataOutputStream out = new DataOutputStream(client.getOutputStream())) {
                      // Many slices of the link each, interleaved with the other connections'.
                      byte[] message = new byte[200_000];
                      random.nextBytes(message);
                      assertThat(roundTrip(in, out, message)).isEqualTo(reversed(message));
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  }));
        }
        CompletableFuture.allOf(connections.toArray(CompletableFuture[]::new)).get();
        assertThat(proxy.connections()).isEqualTo(3);
        assertThat(proxy.bandwidth()).isEqualTo(4_000_000);
      }
    }
  }
}
