package dev.tally.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A network fault between a client and a service on loopback: a TCP proxy that delivers every chunk
 * of bytes the client sends a fixed latency after it arrived, in order, as a slow link does
 * (toxiproxy's latency toxic, without the jitter). Each request therefore reaches the service that
 * much later, however the client pools its connections; answers come back at once. The latency can
 * change while connections are open: a chunk waits for the latency in force when it arrived.
 *
 * <p>The link can also be narrow: with a {@link #bandwidth(long)} the bytes clients send share that
 * many bytes a second among all connections, after their latency, as on a slow uplink to the store.
 * Unlike latency, this holds uploads back however many run at once.
 *
 * <p>Bytes are passed through unchanged (TLS, HTTP keep-alive, signatures all work), so the client
 * sees a real, slower service, not a mock.
 */
public final class LatencyProxy implements AutoCloseable {

  private static final int CHUNK = 64 * 1024;

  /**
   * The most bytes sent upstream in one go under a bandwidth: small enough that connections sending
   * at once take turns, and a chunk does not hold the link for long.
   */
  private static final int SLICE = 8 * 1024;

  /** What a reader hands its writer: bytes to send at a moment, or the end of the stream. */
  private record Chunk(long dueNanos, byte[] bytes) {}

  private static final Chunk END = new Chunk(0, new byte[0]);

  private final ServerSocket server;
  private final String upstreamHost;
  private final int upstreamPort;
  private final ConcurrentHashMap<Socket, Boolean> sockets = new ConcurrentHashMap<>();
  private final AtomicLong connections = new AtomicLong();
  private final Link link = new Link();
  private volatile long latencyNanos;
  private volatile boolean closed;

  private LatencyProxy(ServerSocket server, String upstreamHost, int upstreamPort, Duration latency)
      throws IOException {
    this.server = server;
    this.upstreamHost = upstreamHost;
    this.upstreamPort = upstreamPort;
    latency(latency);
    Thread acceptor = new Thread(this::accept, "latency-proxy-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /**
   * Listens on a free loopback port and forwards to {@code upstreamHost:upstreamPort}.
   *
   * @param latency how late each chunk the client sends is delivered; zero passes it on at once
   */
  public static LatencyProxy start(String upstreamHost, int upstreamPort, Duration latency) {
    try {
      ServerSocket server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getByName(LoopbackPorts.HOST), 0));
      return new LatencyProxy(server, upstreamHost, upstreamPort, latency);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on loopback", e);
    }
  }

  /** Sets the latency of every chunk that arrives from now on. */
  public void latency(Duration latency) {
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative: " + latency);
    }
    latencyNanos = latency.toNanos();
  }

  /**
   * Caps the bytes all clients send, together, at {@code bytesPerSecond}, from now on; 0 lifts the
   * cap. Answers are not capped: the fault is a slow upload.
   */
  public void bandwidth(long bytesPerSecond) {
    link.bandwidth(bytesPerSecond);
  }

  /** The cap in force in bytes a second, 0 for none. */
  public long bandwidth() {
    return link.bandwidth();
  }

  /** The latency in force. */
  public Duration latency() {
    return Duration.ofNanos(latencyNanos);
  }

  /** Connections accepted so far: a check that the client really goes through the proxy. */
  public long connections() {
    return connections.get();
  }

  /** The loopback port clients connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /** {@code http://127.0.0.1:<port>}, for an HTTP service such as the object store. */
  public String httpEndpoint() {
    return "http://" + LoopbackPorts.HOST + ":" + port();
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      try {
        Socket upstream = new Socket(upstreamHost, upstreamPort);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        connections.incrementAndGet();
        sockets.put(client, Boolean.TRUE);
        sockets.put(upstream, Boolean.TRUE);
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        start("read", () -> readDelayed(client, upstream, queue));
        start("write", () -> writeWhenDue(queue, client, upstream));
        start("answer", () -> copy(upstream, client));
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void start(String role, Runnable pump) {
    Thread thread = new Thread(pump, "latency-proxy-" + port() + "-" + role);
    thread.setDaemon(true);
    thread.start();
  }

  /** Client to queue: each chunk stamped with when it may go on. */
  private void readDelayed(Socket client, Socket upstream, BlockingQueue<Chunk> queue) {
    byte[] buffer = new byte[CHUNK];
    try (InputStream in = client.getInputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        queue.add(new Chunk(System.nanoTime() + latencyNanos, Arrays.copyOf(buffer, n)));
      }
    } catch (IOException e) {
      // The connection ended; the writer closes both sides.
    } finally {
      queue.add(END);
    }
  }

  /** Queue to service: waits until each chunk is due, in order. */
  private void writeWhenDue(BlockingQueue<Chunk> queue, Socket client, Socket upstream) {
    try (OutputStream out = upstream.getOutputStream()) {
      while (true) {
        Chunk chunk = queue.take();
        if (chunk == END) {
          break;
        }
        sleepUntil(chunk.dueNanos());
        byte[] bytes = chunk.bytes();
        for (int off = 0; off < bytes.length; off += SLICE) {
          int len = Math.min(SLICE, bytes.length - off);
          // The slice is sent once it has passed the link: when the link's earlier bytes, of any
          // connection, have passed and then this slice at the link's rate.
          sleepUntil(link.pass(len, System.nanoTime()));
          out.write(bytes, off, len);
        }
        out.flush();
      }
      upstream.shutdownOutput();
    } catch (IOException e) {
      closeQuietly(client);
      closeQuietly(upstream);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long wait = nanos - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  /**
   * The link all connections send through: a bandwidth shared in arrival order, each slice after
   * the ones reserved before it (a single queue, as on one slow uplink).
   */
  static final class Link {
    private long bytesPerSecond;
    private long freeAtNanos = Long.MIN_VALUE;

    synchronized void bandwidth(long bytesPerSecond) {
      if (bytesPerSecond < 0) {
        throw new IllegalArgumentException("bandwidth must not be negative: " + bytesPerSecond);
      }
      this.bytesPerSecond = bytesPerSecond;
      freeAtNanos = Long.MIN_VALUE;
    }

    synchronized long bandwidth() {
      return bytesPerSecond;
    }

    /**
     * Reserves the link for {@code bytes} that are ready at {@code nowNanos} and returns when they
     * have passed it: at once without a cap.
     */
    synchronized long pass(int bytes, long nowNanos) {
      if (bytesPerSecond == 0) {
        return nowNanos;
      }
      long start = freeAtNanos == Long.MIN_VALUE ? nowNanos : Math.max(nowNanos, freeAtNanos);
      freeAtNanos = start + bytes * 1_000_000_000L / bytesPerSecond;
      return freeAtNanos;
    }
  }

  /** Service to client, at once. */
  private void copy(Socket upstream, Socket client) {
    try (InputStream in = upstream.getInputStream();
        OutputStream out = client.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException e) {
      // One side went away; closing both ends the other pumps.
    } finally {
      closeQuietly(client);
      closeQuietly(upstream);
    }
  }

  private void closeQuietly(Socket socket) {
    sockets.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  /** Stops listening and cuts every open connection. */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // Already closed.
    }
    sockets.keySet().forEach(this::closeQuietly);
  }
}
