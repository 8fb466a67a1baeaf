package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IcebergAccessCheckTest {

  private static final CatalogConfig WITH_CREDENTIAL =
      CatalogConfig.builder()
          .type(CatalogType.REST)
          .uri("http://catalog.example:8181")
          .restCredential("tally-job:s3cr3t")
          .build();

  @Test
  void aServerMessageThatEchoesTheCredentialOrItsSecretIsMasked() {
    assertThat(
            IcebergAccessCheck.withoutSecrets(
                "invalid_client: tally-job:s3cr3t refused; secret s3cr3t unknown", WITH_CREDENTIAL))
        .isEqualTo("invalid_client: **** refused; secret **** unknown");
  }

  @Test
  void aServerMessageWithoutSecretsIsPassedOnAsItIs() {
    assertThat(
            IcebergAccessCheck.withoutSecrets(
                "unauthorized_client: Invalid client or Invalid client credentials",
                WITH_CREDENTIAL))
        .isEqualTo("unauthorized_client: Invalid client or Invalid client credentials");
  }
}
