package dev.tally.it.support;

import java.io.StringWriter;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Every log event of this JVM at INFO and above, as text, while open; the console keeps its WARN
 * level meanwhile.
 */
public final class CapturedLogs implements AutoCloseable {
  private final StringWriter text = new StringWriter();
  private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
  private final Appender appender;
  private final Level rootLevel;

  /** Starts capturing. */
  public CapturedLogs() {
    Configuration configuration = context.getConfiguration();
    appender =
        WriterAppender.newBuilder()
            .setName("it-capture")
            .setTarget(text)
            .setLayout(PatternLayout.newBuilder().withPattern("%p %c - %m%n").build())
            .build();
    appender.start();
    configuration.addAppender(appender);
    LoggerConfig rootLogger = configuration.getRootLogger();
    rootLevel = rootLogger.getLevel();
    Appender console = configuration.getAppender("STDOUT");
    rootLogger.removeAppender("STDOUT");
    if (console != null) {
      rootLogger.addAppender(console, Level.WARN, null);
    }
    rootLogger.addAppender(appender, Level.INFO, null);
    rootLogger.setLevel(Level.INFO);
    context.updateLoggers();
  }

  /** What was logged so far. */
  public String text() {
    synchronized (text) {
      return text.toString();
    }
  }

  @Override
  public void close() {
    Configuration configuration = context.getConfiguration();
    LoggerConfig rootLogger = configuration.getRootLogger();
    rootLogger.removeAppender(appender.getName());
    Appender console = configuration.getAppender("STDOUT");
    rootLogger.removeAppender("STDOUT");
    if (console != null) {
      rootLogger.addAppender(console, null, null);
    }
    rootLogger.setLevel(rootLevel);
    context.updateLoggers();
    appender.stop();
  }
}
