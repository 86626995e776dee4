package io.zerolayer.jobs;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Testing only: settings that make the job fail on purpose, so tests can check that it answers,
 * falls back and recovers as it should. Off by default, and not part of the settings a deployment
 * configures ({@link PipelineOptions}); docs/execution.md says how tests use them.
 */
public final class FaultInjection {
    private FaultInjection() {}

    public static final ConfigOption<Integer> FAIL_MAIN_EVERY_NTH_BATCH =
            ConfigOptions.key("zerolayer.fault-injection.fail-main-every-nth-batch")
                    .intType()
                    .defaultValue(0)
                    .withDescription(
                            "The main path of every n-th batch of each slot throws,"
                                    + " so the fallback answers it (fidelity REDUCED). 0: off.");

    public static final ConfigOption<Integer> CRASH_AFTER_REQUESTS =
            ConfigOptions.key("zerolayer.fault-injection.crash-after-requests")
                    .intType()
                    .defaultValue(0)
                    .withDescription(
                            "An executor slot fails its task after this many"
                                    + " requests, once per JVM, so the job restarts from its last"
                                    + " checkpoint and replays. 0: off.");

    public static final ConfigOption<Boolean> FAIL_FALLBACK =
            ConfigOptions.key("zerolayer.fault-injection.fail-fallback")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "The fallback path throws too, so injected failures are"
                                    + " answered FAILED.");

    public static final ConfigOption<Double> INJECTED_FREE_MEMORY =
            ConfigOptions.key("zerolayer.fault-injection.free-memory-ratio")
                    .doubleType()
                    .defaultValue(-1.0)
                    .withDescription(
                            "The free memory share pruning sees (0 to 1); negative:"
                                    + " the real one.");
}
