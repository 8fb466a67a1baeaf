package dev.tally.domain.spending;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.spending.StateSettings.RestoreVerdict;
import dev.tally.domain.window.TumblingWindows;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateSettingsTest {

  private static final StateSettings HOURLY =
      StateSettings.of(
          TumblingWindows.of(Duration.ofHours(1)), Duration.ZERO, Duration.ofHours(24));

  @Test
  void stateBuiltWithTheSameSettingsRestoresExactly() {
    assertThat(HOURLY.restoring(List.of(HOURLY, HOURLY), 1_000L, false))
        .isEqualTo(RestoreVerdict.EXACT);
  }

  @Test
  void everyChangedSettingIsAReasonWithBothValues() {
    StateSettings configured =
        StateSettings.of(
            new TumblingWindows(Duration.ofMinutes(30), Duration.ofMinutes(5)),
            Duration.ofMinutes(10),
            Duration.ofHours(24));

    assertThat(configured.restoring(List.of(HOURLY, HOURLY), 1_000L, false))
        .isEqualTo(
            new RestoreVerdict.Refused(
                List.of(
                    new RestoreVerdict.SettingChanged(StateSetting.WINDOW_SIZE, "PT1H", "PT30M"),
                    new RestoreVerdict.SettingChanged(StateSetting.WINDOW_OFFSET, "PT0S", "PT5M"),
                    new RestoreVerdict.SettingChanged(
                        StateSetting.ALLOWED_LATENESS, "PT0S", "PT10M"))));
  }

  @Test
  void stateTakenAfterTheFinalWatermarkIsRefusedToAStreamingJobWhateverItsSettings() {
    assertThat(HOURLY.restoring(List.of(HOURLY), Long.MAX_VALUE, false))
        .isEqualTo(new RestoreVerdict.Refused(List.of(new RestoreVerdict.InputEnded())));
    assertThat(HOURLY.restoring(List.of(), Long.MAX_VALUE, false))
        .isEqualTo(new RestoreVerdict.Refused(List.of(new RestoreVerdict.InputEnded())));
  }

  @Test
  void aBoundedJobRestoredAfterTheFinalWatermarkGoesOnUntilARecordArrives() {
    RestoreVerdict verdict = HOURLY.restoring(List.of(HOURLY), Long.MAX_VALUE, true);

    assertThat(verdict).isEqualTo(RestoreVerdict.EXACT_WITHOUT_INPUT);
    assertThat(RestoreVerdict.EXACT_WITHOUT_INPUT.onRecord())
        .isEqualTo(new RestoreVerdict.Refused(List.of(new RestoreVerdict.InputAfterEnd())));
  }

  @Test
  void aBoundedJobRestoredAfterTheFinalWatermarkUnderOtherSettingsIsRefusedAtStart() {
    StateSettings halfHourly =
        StateSettings.of(
            TumblingWindows.of(Duration.ofMinutes(30)), Duration.ZERO, Duration.ofHours(24));

    assertThat(halfHourly.restoring(List.of(HOURLY), Long.MAX_VALUE, true))
        .isEqualTo(
            new RestoreVerdict.Refused(
                List.of(
                    new RestoreVerdict.SettingChanged(StateSetting.WINDOW_SIZE, "PT1H", "PT30M"))));
  }

  @Test
  void aBoundedJobRestoredBeforeTheEndOfInputRestoresExactly() {
    assertThat(HOURLY.restoring(List.of(HOURLY), 1_000L, true)).isEqualTo(RestoreVerdict.EXACT);
  }

  @Test
  void stateWithoutARecordOrWithoutASettingIsTakenAsBuiltWithTheConfiguredOnes() {
    assertThat(HOURLY.restoring(List.of(), Long.MIN_VALUE, false)).isEqualTo(RestoreVerdict.EXACT);
    StateSettings olderRecord =
        new StateSettings(
            Map.of(StateSetting.WINDOW_SIZE, "PT1H", StateSetting.WINDOW_OFFSET, "PT0S"));
    assertThat(HOURLY.restoring(List.of(olderRecord), 5L, false)).isEqualTo(RestoreVerdict.EXACT);
  }

  @Test
  void settingsAreFoundByTheirStableIds() {
    for (StateSetting setting : StateSetting.values()) {
      assertThat(StateSetting.byId(setting.id())).isSameAs(setting);
    }
    assertThat(StateSetting.byId("anomaly-rule")).isNull();
  }
}
