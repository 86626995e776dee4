package io.zerolayer.jobs;

import io.zerolayer.operators.kafka.KafkaConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * The Kafka cluster the job reads and writes, its topics, and how its sinks deliver. Part of {@link
 * PipelineOptions}.
 */
public final class KafkaOptions {
    private KafkaOptions() {}

    public static final ConfigOption<String> BOOTSTRAP_SERVERS =
            ConfigOptions.key("zerolayer.kafka.bootstrap-servers")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Kafka bootstrap servers, e.g. localhost:9092.");

    public static final ConfigOption<String> REQUESTS_TOPIC =
            ConfigOptions.key("zerolayer.topics.requests")
                    .stringType()
                    .defaultValue("zerolayer.requests")
                    .withDescription("Topic the job reads AnalysisRequests from.");

    public static final ConfigOption<String> RESPONSES_TOPIC =
            ConfigOptions.key("zerolayer.topics.responses")
                    .stringType()
                    .defaultValue("zerolayer.responses")
                    .withDescription(
                            "Reply topic for requests without a kafka_replyTopic header when"
                                    + " requests are not verified (auth.mode none); verified"
                                    + " requests are answered in their tenant's namespace"
                                    + " (zerolayer.replies.tenant-prefix).");

    public static final ConfigOption<ReplyDelivery> REPLY_DELIVERY =
            ConfigOptions.key("zerolayer.replies.delivery-guarantee")
                    .enumType(ReplyDelivery.class)
                    .defaultValue(ReplyDelivery.AT_LEAST_ONCE)
                    .withDescription(
                            "at-least-once: a reply is sent as soon as its batch finishes; after a"
                                    + " restart some requests are answered again, with the same"
                                    + " kafka_correlationId and x-zerolayer-reply-id. exactly-once:"
                                    + " replies commit with the next checkpoint, so each waits up"
                                    + " to a checkpoint interval. The bill is exactly once either"
                                    + " way.");

    public static final ConfigOption<List<String>> REPLY_ALLOWED_TOPICS =
            ConfigOptions.key("zerolayer.replies.allowed-topics")
                    .stringType()
                    .asList()
                    .defaultValues("zerolayer.replies.*")
                    .withDescription(
                            "Topics a request may name in kafka_replyTopic, besides the responses"
                                + " topic: exact names, or prefixes ending in '*'. The job's own"
                                + " topics (requests, costs, cost summary, graphs, dead letters,"
                                + " control) are never allowed. A request naming another topic is"
                                + " dead-lettered with the reason.");

    public static final ConfigOption<String> COSTS_TOPIC =
            ConfigOptions.key("zerolayer.topics.costs")
                    .stringType()
                    .defaultValue("zerolayer.kernel-costs")
                    .withDescription("Topic of KernelCostRecords, keyed by record id.");

    public static final ConfigOption<String> COST_SUMMARY_TOPIC =
            ConfigOptions.key("zerolayer.topics.cost-summary")
                    .stringType()
                    .defaultValue("zerolayer.cost-summary")
                    .withDescription(
                            "Topic of CostSummary records: each tenant's costs per kernel kind per"
                                    + " event-time window, keyed tenant/kernel/windowStart.");

    public static final ConfigOption<String> GRAPHS_TOPIC =
            ConfigOptions.key("zerolayer.topics.graphs")
                    .stringType()
                    .defaultValue("zerolayer.graphs")
                    .withDescription(
                            "Compacted topic of ExecutionGraph descriptors, keyed by graph id.");

    public static final ConfigOption<String> DEAD_LETTERS_TOPIC =
            ConfigOptions.key("zerolayer.topics.dead-letters")
                    .stringType()
                    .defaultValue("zerolayer.requests-dlt")
                    .withDescription(
                            "Undecodable request records, original bytes plus Spring's kafka_dlt-*"
                                    + " headers.");

    public static final ConfigOption<String> AUDIT_TOPIC =
            ConfigOptions.key("zerolayer.topics.audit")
                    .stringType()
                    .defaultValue("zerolayer.audit")
                    .withDescription(
                            "The tenants' audit chains: an entry per level-3 response, linked by"
                                    + " SHA-256 to the tenant's previous one, and anchors of each"
                                    + " chain's head; keyed by tenant id, never compacted or aged"
                                    + " out (docs/audit.md).");

    public static final ConfigOption<String> CONTROL_TOPIC =
            ConfigOptions.key("zerolayer.topics.control")
                    .stringType()
                    .defaultValue("zerolayer.control")
                    .withDescription(
                            "Control commands broadcast to every slot:"
                                + " {\"command\":\"clear-cache\"},"
                                + " {\"command\":\"reload-contracts\"[,\"contracts\":\"<tasks.yaml>\"]},"
                                + " {\"command\":\"reload-tenants\"}.");

    public static final ConfigOption<String> GROUP_ID =
            ConfigOptions.key("zerolayer.kafka.group-id")
                    .stringType()
                    .defaultValue("zerolayer")
                    .withDescription("Consumer group of the requests source.");

    public static final ConfigOption<String> TRANSACTIONAL_ID_PREFIX =
            ConfigOptions.key("zerolayer.kafka.transactional-id-prefix")
                    .stringType()
                    .defaultValue("zerolayer")
                    .withDescription(
                            "Prefix of the Kafka sinks' transactional ids; must be unique per job"
                                    + " on a cluster.");

    public static final ConfigOption<Duration> TRANSACTION_TIMEOUT =
            ConfigOptions.key("zerolayer.kafka.transaction-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "Producer transaction timeout; must not exceed the broker's"
                                    + " transaction.max.timeout.ms (15 min by default).");

    public static final ConfigOption<MemorySize> MAX_RECORD_SIZE =
            ConfigOptions.key("zerolayer.kafka.max-record-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("64mb"))
                    .withDescription(
                            "Largest record the sinks may write (max.request.size): a dead letter"
                                + " carries the original bytes, so it must fit the largest request."
                                + " The topics' max.message.bytes must allow it too.");

    public static final ConfigOption<String> CLIENT_SETTINGS_FILE =
            ConfigOptions.key("zerolayer.kafka.client-settings-file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A properties file of Kafka client settings every client of the job"
                                + " shares (security.protocol, sasl.mechanism, sasl.jaas.config,"
                                + " TLS stores), as zerolayer tenants sync writes them: a mounted"
                                + " Secret keeps the password out of config.yaml. Settings under"
                                + " zerolayer.kafka.properties. win over the file's.");

    /**
     * Kafka client settings every client of the job shares (sources, sinks, admin clients), under
     * this prefix: {@code zerolayer.kafka.properties.security.protocol: SASL_SSL}, {@code
     * …sasl.mechanism: SCRAM-SHA-512}, {@code …sasl.jaas.config: …}. Flink hides the values of keys
     * that hold {@code password}, {@code secret} or {@code jaas.config} in its logs and Web UI.
     */
    public static final String CLIENT_PROPERTIES_PREFIX = "zerolayer.kafka.properties.";

    /**
     * How the job's clients reach Kafka: {@link #BOOTSTRAP_SERVERS}, the settings of {@link
     * #CLIENT_SETTINGS_FILE} and every setting under {@link #CLIENT_PROPERTIES_PREFIX}.
     *
     * @throws IllegalArgumentException when no bootstrap servers are set, or a shared setting is
     *     one the job sets per client
     */
    public static KafkaConnection connection(Configuration conf) {
        String bootstrap =
                conf.getOptional(BOOTSTRAP_SERVERS)
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "Set "
                                                        + BOOTSTRAP_SERVERS.key()
                                                        + " (or --bootstrap-servers) to the Kafka"
                                                        + " cluster to read from"));
        Map<String, String> shared =
                new TreeMap<>(
                        io.zerolayer.operators.kafka.ClientSettingsFile.read(
                                conf.getOptional(CLIENT_SETTINGS_FILE)
                                        .map(java.nio.file.Path::of)
                                        .orElse(null)));
        conf.toMap()
                .forEach(
                        (key, value) -> {
                            if (key.startsWith(CLIENT_PROPERTIES_PREFIX)) {
                                shared.put(key.substring(CLIENT_PROPERTIES_PREFIX.length()), value);
                            }
                        });
        return new KafkaConnection(bootstrap, shared);
    }

    public static final ConfigOption<String> TENANT_REPLIES_PREFIX =
            ConfigOptions.key("zerolayer.replies.tenant-prefix")
                    .stringType()
                    .defaultValue("zerolayer.replies.")
                    .withDescription(
                            "Where tenants' reply namespaces start, ending in '.'. With verified"
                                    + " requests (auth.mode hmac) a reply goes to its tenant's own"
                                    + " topic <prefix><tenant> unless the request names one under"
                                    + " <prefix><tenant>.; another tenant's namespace and the"
                                    + " shared responses topic are refused. tenants sync creates"
                                    + " each tenant's topic and its ACLs under this prefix. Two"
                                    + " deployments on one Kafka cluster use two prefixes.");

    /** The job's topics and name prefixes, as the tenancy on the cluster names them. */
    public static io.zerolayer.operators.tenants.KafkaTenancy.JobTopics tenancyTopics(
            Configuration conf) {
        return new io.zerolayer.operators.tenants.KafkaTenancy.JobTopics(
                conf.get(REQUESTS_TOPIC),
                conf.get(RESPONSES_TOPIC),
                conf.get(TENANT_REPLIES_PREFIX),
                conf.get(COSTS_TOPIC),
                conf.get(COST_SUMMARY_TOPIC),
                conf.get(GRAPHS_TOPIC),
                conf.get(AUDIT_TOPIC),
                conf.get(DEAD_LETTERS_TOPIC),
                conf.get(CONTROL_TOPIC),
                conf.get(GROUP_ID),
                conf.get(TRANSACTIONAL_ID_PREFIX),
                conf.get(REPLY_ALLOWED_TOPICS).stream()
                        .map(String::strip)
                        .filter(t -> !t.startsWith(conf.get(TENANT_REPLIES_PREFIX)))
                        .toList());
    }
}
