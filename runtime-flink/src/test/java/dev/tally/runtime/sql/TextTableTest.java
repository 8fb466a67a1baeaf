package dev.tally.runtime.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextTableTest {

  @Test
  void alignsNumbersRightAndEverythingElseLeft() {
    TextTable table = new TextTable(List.of("user_id", "window_start", "total_spent_cents"));
    table.add(List.of("user-0", Instant.parse("2026-01-15T07:00:00Z"), 1_736_343L));
    table.add(Arrays.asList("user-12", LocalDateTime.parse("2026-01-15T07:00:00.250"), null));

    assertThat(table.render())
        .isEqualTo(
            """
            user_id  window_start             total_spent_cents
            -------  -----------------------  -----------------
            user-0   2026-01-15 07:00:00Z               1736343
            user-12  2026-01-15 07:00:00.250               NULL
            """);
  }
}
