package io.zerolayer.jobs;

import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.execution.ComplianceMode;
import io.zerolayer.operators.tenants.AuthMode;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Who may send requests and how their requests run: authentication, the tenants file, contracts,
 * compliance and safe mode. Part of {@link PipelineOptions}.
 */
public final class TenancyOptions {
    private TenancyOptions() {}

    public static final ConfigOption<AuthMode> AUTH_MODE =
            ConfigOptions.key("zerolayer.auth.mode")
                    .enumType(AuthMode.class)
                    .defaultValue(AuthMode.HMAC)
                    .withDescription(
                            "hmac: every request must carry its tenant's HMAC-SHA256 signature"
                                    + " (docs/tenants.md); unsigned, forged, stale and replayed"
                                    + " records are dead-lettered, never executed or billed."
                                    + " none: the tenant is whatever a request says; only where"
                                    + " every writer of the requests topic is trusted, and logged"
                                    + " as a warning at start.");

    public static final ConfigOption<String> TENANTS_FILE =
            ConfigOptions.key("zerolayer.tenants.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The tenant registry (YAML: each tenant's id and one or two hex"
                                    + " keys), read by every TaskManager; in Kubernetes a mounted"
                                    + " Secret. Required when zerolayer.auth.mode is hmac. Re-read"
                                    + " on {\"command\":\"reload-tenants\"}; a file that cannot"
                                    + " be used is logged and the tenants in force stay.");

    public static final ConfigOption<Duration> AUTH_MAX_CLOCK_SKEW =
            ConfigOptions.key("zerolayer.auth.max-clock-skew")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "How far a request's signed timestamp may be from the time its record"
                                    + " reached Kafka (the broker's append time; the job's clock"
                                    + " when the topic keeps producer timestamps). A request id is"
                                    + " remembered for twice this, to refuse replays.");

    public static final ConfigOption<String> CONTRACTS_FILE =
            ConfigOptions.key("zerolayer.contracts.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Task contracts (tasks.yaml) to check requests against; the copy of"
                                    + " flink-conf/tasks.yaml built into the jar when unset.");

    public static final ConfigOption<SafeModePolicy.Policy> SAFE_MODE_POLICY =
            ConfigOptions.key("zerolayer.safe-mode.policy")
                    .enumType(SafeModePolicy.Policy.class)
                    .defaultValue(SafeModePolicy.Policy.DEGRADE)
                    .withDescription(
                            "What happens to prompts with abnormal structure: degrade (answer with"
                                    + " the SAFE graph, fidelity SAFE_MODE) or strict (reject).");

    public static final ConfigOption<Map<String, String>> TENANT_SAFE_MODE_POLICIES =
            ConfigOptions.key("zerolayer.safe-mode.tenant-policies")
                    .mapType()
                    .defaultValue(Map.of())
                    .withDescription(
                            "Per-tenant safe-mode policy, e.g. 'acme:strict,beta:degrade'; a"
                                    + " tenant's safe-mode in the tenant registry comes first.");

    public static final ConfigOption<ComplianceMode> COMPLIANCE_MODE =
            ConfigOptions.key("zerolayer.compliance.mode")
                    .enumType(ComplianceMode.class)
                    .defaultValue(ComplianceMode.STANDARD)
                    .withDescription(
                            "The compliance level of tenants the tenant registry gives none:"
                                    + " standard (1: cost records and graph ids), audited (2:"
                                    + " plus the audit attributes and redaction on every"
                                    + " response), or strict (3: plus each request alone, for"
                                    + " bit-identical answers, nothing pruned). A request's"
                                    + " 'compliance' attribute may ask for a higher level, never"
                                    + " a lower one.");

    public static final ConfigOption<Map<String, String>> TENANT_COMPLIANCE_MODES =
            ConfigOptions.key("zerolayer.compliance.tenant-modes")
                    .mapType()
                    .defaultValue(Map.of())
                    .withDescription(
                            "Compliance level per tenant, e.g. 'bank:strict,clinic:audited'; a"
                                    + " level in the tenant registry comes first.");
}
