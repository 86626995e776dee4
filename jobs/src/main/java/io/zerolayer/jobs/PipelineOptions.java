package io.zerolayer.jobs;

import io.zerolayer.operators.execution.ComplianceMode;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;

/**
 * Every setting of the streaming job, with its default; set them in config.yaml or on the CLI. They
 * are declared by concern: {@link KafkaOptions}, {@link TenancyOptions}, {@link BillingOptions},
 * {@link HardwareOptions}, {@link ExecutorOptions}, {@link AnalyzeOptions} (and {@link
 * FaultInjection} for tests); this class reads what several of them describe together.
 */
public final class PipelineOptions {
    private PipelineOptions() {}

    /** The classes that declare the job's settings, by concern. */
    public static final List<Class<?>> BY_CONCERN =
            List.of(
                    KafkaOptions.class,
                    TenancyOptions.class,
                    BillingOptions.class,
                    HardwareOptions.class,
                    ExecutorOptions.class,
                    AnalyzeOptions.class);

    /** Every setting of the job (fault injection's excepted), in the order they are declared. */
    public static List<ConfigOption<?>> all() {
        List<ConfigOption<?>> all = new java.util.ArrayList<>();
        for (Class<?> c : BY_CONCERN) {
            for (java.lang.reflect.Field f : c.getFields()) {
                if (ConfigOption.class.isAssignableFrom(f.getType())) {
                    try {
                        all.add((ConfigOption<?>) f.get(null));
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return all;
    }

    /** The reply-topic allow-list these settings describe. */
    public static io.zerolayer.operators.door.ReplyTopics replyTopics(
            org.apache.flink.configuration.Configuration conf) {
        var topics =
                new io.zerolayer.operators.door.ReplyTopics(
                        conf.get(KafkaOptions.RESPONSES_TOPIC),
                        conf.get(KafkaOptions.REPLY_ALLOWED_TOPICS),
                        List.of(
                                conf.get(KafkaOptions.REQUESTS_TOPIC),
                                conf.get(KafkaOptions.COSTS_TOPIC),
                                conf.get(KafkaOptions.COST_SUMMARY_TOPIC),
                                conf.get(KafkaOptions.GRAPHS_TOPIC),
                                conf.get(KafkaOptions.DEAD_LETTERS_TOPIC),
                                conf.get(KafkaOptions.CONTROL_TOPIC),
                                conf.get(KafkaOptions.AUDIT_TOPIC)));
        // a verified tenant's replies stay in its own namespace of zerolayer.replies.*
        return verified(conf)
                ? topics.withTenantNamespaces(conf.get(KafkaOptions.TENANT_REPLIES_PREFIX))
                : topics;
    }

    /** Whether the job verifies who sent each request (auth.mode hmac). */
    public static boolean verified(org.apache.flink.configuration.Configuration conf) {
        return conf.get(TenancyOptions.AUTH_MODE) == io.zerolayer.operators.tenants.AuthMode.HMAC;
    }

    public static io.zerolayer.operators.execution.ExecutionSettings execution(
            org.apache.flink.configuration.Configuration conf) {
        return new io.zerolayer.operators.execution.ExecutionSettings(
                conf.get(ExecutorOptions.BATCH_SIZE),
                conf.get(ExecutorOptions.BATCH_MAX_QUEUE_DELAY).toMillis(),
                conf.get(ExecutorOptions.MAIN_PATH_TIMEOUT).toMillis(),
                conf.get(FaultInjection.FAIL_MAIN_EVERY_NTH_BATCH),
                conf.get(FaultInjection.FAIL_FALLBACK),
                conf.get(ExecutorOptions.PRUNE_BELOW_FREE_MEMORY),
                conf.get(FaultInjection.INJECTED_FREE_MEMORY),
                conf.get(TenancyOptions.COMPLIANCE_MODE),
                tenantComplianceModes(conf),
                new io.zerolayer.operators.execution.ExecutionSettings.Gpu(
                        conf.get(HardwareOptions.GPU_DEVICE_IDS),
                        conf.get(HardwareOptions.GPU_MEMORY_LIMIT).getBytes(),
                        conf.get(HardwareOptions.GPU_ARENA_STRATEGY)));
    }

    /**
     * The compliance mode of each tenant named in {@link #TenancyOptions.TENANT_COMPLIANCE_MODES}.
     */
    static Map<String, ComplianceMode> tenantComplianceModes(
            org.apache.flink.configuration.Configuration conf) {
        Map<String, ComplianceMode> modes = new java.util.LinkedHashMap<>();
        conf.get(TenancyOptions.TENANT_COMPLIANCE_MODES)
                .forEach(
                        (tenant, mode) -> {
                            try {
                                modes.put(tenant, ComplianceMode.parse(mode));
                            } catch (IllegalArgumentException e) {
                                throw new IllegalArgumentException(
                                        TenancyOptions.TENANT_COMPLIANCE_MODES.key()
                                                + ", tenant '"
                                                + tenant
                                                + "': "
                                                + e.getMessage(),
                                        e);
                            }
                        });
        return modes;
    }
}
