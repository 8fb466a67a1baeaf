package dev.tally.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A GET survives the JobManager's REST endpoint refusing briefly during a failover: a real HTTP
 * server on loopback drops connections or answers 5xx a given number of times, then answers.
 */
class FlinkRestClientRetryTest {

  private static final String OVERVIEW = "{\"taskmanagers\":2,\"slots-total\":4}";

  /** A failure the server plays for one request: a status code, or -1 to drop the connection. */
  private final Deque<Integer> failures = new ArrayDeque<>();

  private final AtomicInteger requests = new AtomicInteger();
  private HttpServer server;

  private FlinkRestClient clientFailing(Integer... plan) throws IOException {
    failures.addAll(List.of(plan));
    server =
        HttpServer.create(new InetSocketAddress(InetAddress.getByName(LoopbackPorts.HOST), 0), 0);
    server.createContext("/", this::answer);
    server.start();
    return FlinkRestClient.onLoopback(server.getAddress().getPort());
  }

  private void answer(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    Integer failure;
    synchronized (failures) {
      failure = failures.poll();
    }
    if (failure != null && failure < 0) {
      // No status line at all: the client sees the connection closed under its request.
      exchange.close();
      return;
    }
    int status = failure == null ? 200 : failure;
    byte[] body =
        (status == 200 ? OVERVIEW : "{\"errors\":[\"failing over\"]}")
            .getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void aGetAnsweredServiceUnavailableTwiceIsAnsweredOnTheThirdAttempt() throws IOException {
    FlinkRestClient client = clientFailing(503, 500);

    assertThat(client.overview()).isEqualTo(new FlinkRestClient.ClusterOverview(2, 4));
    assertThat(requests).hasValue(3);
  }

  @Test
  void aGetWhoseConnectionIsDroppedIsTriedAgain() throws IOException {
    FlinkRestClient client = clientFailing(-1, -1);

    assertThat(client.overview()).isEqualTo(new FlinkRestClient.ClusterOverview(2, 4));
    assertThat(requests).hasValue(3);
  }

  @Test
  void aGetFailingOnEveryAttemptThrowsAfterThree() throws IOException {
    FlinkRestClient client = clientFailing(503, 503, 503, 503);

    assertThatThrownBy(client::overview)
        .isInstanceOf(StackException.class)
        .hasMessageContaining("answered 503");
    assertThat(requests).hasValue(FlinkRestClient.GET_ATTEMPTS);
  }

  @Test
  void anEndpointRefusingEveryAttemptThrowsAfterThree() throws IOException {
    FlinkRestClient client = clientFailing();
    server.stop(0);

    assertThatThrownBy(client::overview)
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("failed " + FlinkRestClient.GET_ATTEMPTS + " times");
  }

  @Test
  void aClientErrorIsNotTriedAgain() throws IOException {
    FlinkRestClient client = clientFailing(404);

    assertThatThrownBy(client::overview)
        .isInstanceOf(StackException.class)
        .hasMessageContaining("answered 404");
    assertThat(requests).hasValue(1);
  }
}
