package dev.tally.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Produces workload events at a fixed rate with event time = the wall clock at sending, so a
 * window's end in event time is a moment on the wall clock and freshness can be measured against
 * it.
 */
final class LiveTraffic implements Runnable {

  private final String bootstrap;
  private final String topic;
  private final int rate;
  private final Workload workload;
  private final Consumer<Workload.Event> sent;
  private final AtomicLong produced = new AtomicLong();
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private volatile boolean running = true;

  LiveTraffic(String bootstrap, String topic, int rate, long seed, int users, double zipf) {
    this(bootstrap, topic, rate, seed, users, zipf, Long.MAX_VALUE, event -> {});
  }

  /**
   * Traffic whose expected rows ({@link #expectedRows}) count windows of {@code windowMillis},
   * aligned to the epoch as the job aligns them.
   */
  LiveTraffic(
      String bootstrap,
      String topic,
      int rate,
      long seed,
      int users,
      double zipf,
      long windowMillis) {
    this(bootstrap, topic, rate, seed, users, zipf, windowMillis, event -> {});
  }

  /**
   * @param sent told of every event just before it is sent, in order, on the producing thread: what
   *     the run must find counted (a failed send fails the run, see {@link #failure()})
   */
  LiveTraffic(
      String bootstrap,
      String topic,
      int rate,
      long seed,
      int users,
      double zipf,
      Consumer<Workload.Event> sent) {
    this(bootstrap, topic, rate, seed, users, zipf, Long.MAX_VALUE, sent);
  }

  private LiveTraffic(
      String bootstrap,
      String topic,
      int rate,
      long seed,
      int users,
      double zipf,
      long windowMillis,
      Consumer<Workload.Event> sent) {
    this.sent = sent;
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.rate = rate;
    long first =
        windowMillis == Long.MAX_VALUE
            ? 0
            : System.currentTimeMillis() / windowMillis * windowMillis;
    this.workload = new Workload(seed, users, zipf, Long.MAX_VALUE, first, 1, windowMillis);
  }

  @Override
  public void run() {
    try (KafkaProducer<byte[], byte[]> producer = Preloader.producer(bootstrap, 5)) {
      long started = System.nanoTime();
      while (running) {
        long due = (System.nanoTime() - started) / 1_000_000L * rate / 1_000L;
        while (produced.get() < due && running) {
          Workload.Event event = workload.live(System.currentTimeMillis());
          sent.accept(event);
          producer.send(
              new ProducerRecord<>(topic, event.key(), event.value()),
              (metadata, e) -> {
                if (e != null) {
                  failure.compareAndSet(null, e);
                }
              });
          produced.incrementAndGet();
        }
        Thread.sleep(5);
      }
      producer.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      failure.compareAndSet(null, e);
    }
  }

  void stop() {
    running = false;
  }

  long produced() {
    return produced.get();
  }

  Exception failure() {
    return failure.get();
  }

  /**
   * Distinct (user, currency, window) rows of what was produced: the rows of the table once every
   * window is closed. Read it after the producing thread has ended.
   */
  long expectedRows() {
    return workload.expectedRows();
  }

  /** The exact sum of the amounts produced; read it after the producing thread has ended. */
  long amountSum() {
    return workload.amountSum();
  }
}
