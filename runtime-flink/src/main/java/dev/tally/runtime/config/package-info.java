/**
 * The job's configuration as a whole: {@link dev.tally.runtime.config.ConfigSource} loads the YAML
 * file, {@code --set} overrides and {@code ${ENV}} references into flat keys, and {@link
 * dev.tally.runtime.config.TallyConfig#read} reads every feature from them, cross-checks features
 * against each other and reports every problem at once ({@link
 * dev.tally.runtime.config.ConfigurationException}).
 *
 * <p>The features declared here are the runtime's own ({@code StateConfig}, {@code
 * CheckpointConfig}, {@code RestartConfig}, {@code JobConfig}, {@code AggregationKeys}); the
 * adapters declare theirs. Class names follow the scheme of {@link dev.tally.ports.config}: {@code
 * *Config} is a feature's validated value record, declaring and checking its own keys.
 */
package dev.tally.runtime.config;
