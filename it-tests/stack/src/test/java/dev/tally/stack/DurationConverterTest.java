package dev.tally.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationConverterTest {

  private final DurationConverter converter = new DurationConverter();

  @ParameterizedTest
  @CsvSource({"500ms, 500", "10s, 10000", "2m, 120000", "90, 90000", " 5M , 300000"})
  void readsMillisecondsSecondsMinutesAndPlainSeconds(String text, long millis) {
    assertThat(converter.convert(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "ten seconds", "1h", "1.5s"})
  void refusesWhatItCannotRead(String text) {
    assertThatThrownBy(() -> converter.convert(text)).isInstanceOf(NumberFormatException.class);
  }
}
