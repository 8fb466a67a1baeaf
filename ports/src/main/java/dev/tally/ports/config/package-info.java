/**
 * Declarations of configuration keys and the one reader that reads them, shared by the adapters and
 * the runtime so that each key is declared once, next to the feature that owns it.
 *
 * <p>Names, one word per kind of class:
 *
 * <ul>
 *   <li>{@link dev.tally.ports.config.ConfigKey} and {@link dev.tally.ports.config.ConfigPrefix}:
 *       the declaration of one key (name, type, default, allowed values, description, secrecy), a
 *       {@code public static final} constant of the feature that reads it.
 *   <li>{@code *Config}: a feature's validated, immutable value record (e.g. {@code
 *       KafkaSourceConfig}, {@code CheckpointConfig}). It declares the feature's keys, checks every
 *       one of them and the cross-checks between them in its constructor, whether it is read from
 *       configuration ({@code read(ConfigReader)}) or built in code ({@code builder()}), and
 *       reports all problems at once, each naming its key.
 *   <li>{@code *Keys}: the declarations of a feature whose validated value type is owned by other
 *       code (the aggregation's settings, which belong to the topology).
 * </ul>
 *
 * <p>{@code *Options} is left to Flink's and the connectors' own {@code ConfigOption} holders.
 */
package dev.tally.ports.config;
