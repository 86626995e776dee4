package io.zerolayer.jobs;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * What each kernel is billed at, how costs are summed, and how level-3 tenants' audit chains are
 * anchored. Part of {@link PipelineOptions}.
 */
public final class BillingOptions {
    private BillingOptions() {}

    public static final ConfigOption<String> PRICES_FILE =
            ConfigOptions.key("zerolayer.prices.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "prices.yaml: what kernel cost records are billed at (read when the"
                                    + " job is built; relative to the config folder). Default:"
                                    + " the built-in flink-conf/prices.yaml.");

    public static final ConfigOption<Duration> COST_SUMMARY_WINDOW =
            ConfigOptions.key("zerolayer.cost-summary.window")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription("Event-time window of the cost summary.");

    public static final ConfigOption<Duration> COST_SUMMARY_OUT_OF_ORDERNESS =
            ConfigOptions.key("zerolayer.cost-summary.out-of-orderness")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(2))
                    .withDescription(
                            "How late a cost record may arrive behind the newest one and still"
                                    + " count in its window (the watermark's delay).");

    public static final ConfigOption<Integer> AUDIT_ANCHOR_EVERY =
            ConfigOptions.key("zerolayer.audit.anchor-every")
                    .intType()
                    .defaultValue(100)
                    .withDescription(
                            "An anchor record holds a tenant's chain head after this many"
                                    + " entries.");

    public static final ConfigOption<Duration> AUDIT_ANCHOR_INTERVAL =
            ConfigOptions.key("zerolayer.audit.anchor-interval")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "And otherwise this long after the first entry it does not hold yet.");
}
