package io.zerolayer.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

class JobTopicTest {

    @Test
    void theJobNamesEveryTopicItReadsOrWritesAsConfigured() {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.COSTS_TOPIC, "billing.costs");
        List<JobTopic> topics = JobTopic.of(conf, 4);
        assertThat(topics)
                .extracting(JobTopic::name)
                .containsExactly(
                        "zerolayer.requests",
                        "zerolayer.control",
                        "billing.costs",
                        "zerolayer.cost-summary",
                        "zerolayer.graphs",
                        "zerolayer.requests-dlt",
                        "zerolayer.audit");
        assertThat(topics.get(0).partitions()).isEqualTo(4);
        assertThat(topics.get(4).newTopic().configs()).containsEntry("cleanup.policy", "compact");
        // an audit chain with an entry aged out or compacted away no longer verifies
        assertThat(topics.get(6).newTopic().configs())
                .containsEntry("cleanup.policy", "delete")
                .containsEntry("retention.ms", "-1")
                .containsEntry("retention.bytes", "-1");
    }

    @Test
    void theSharedResponsesTopicIsOneOnlyWhenRequestsAreNotVerified() {
        Configuration none = new Configuration();
        none.set(TenancyOptions.AUTH_MODE, io.zerolayer.operators.tenants.AuthMode.NONE);
        assertThat(JobTopic.of(none, 2))
                .extracting(JobTopic::name)
                .contains("zerolayer.responses")
                .hasSize(8);
        // verified requests are answered on their tenants' own topics (tenants sync makes them)
        assertThat(JobTopic.of(new Configuration(), 2))
                .extracting(JobTopic::name)
                .doesNotContain("zerolayer.responses");
    }

    @Test
    void aMissingTopicIsNamedWithTheSettingAndTheCommandThatCreatesIt() {
        List<JobTopic> topics = JobTopic.of(new Configuration(), 2);
        Set<String> allButTwo =
                topics.stream()
                        .map(JobTopic::name)
                        .filter(t -> !t.equals("zerolayer.kernel-costs"))
                        .filter(t -> !t.equals("zerolayer.graphs"))
                        .collect(Collectors.toSet());
        assertThatThrownBy(() -> JobTopic.requireAll(topics, allButTwo, "kafka:9092"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("2 topic(s) the job needs are missing on kafka:9092")
                .hasMessageContaining(
                        "zerolayer.kernel-costs (the job writes kernel costs; set by"
                                + " zerolayer.topics.costs)")
                .hasMessageContaining(
                        "kafka-topics.sh --bootstrap-server kafka:9092 --create --topic"
                                + " zerolayer.graphs --partitions 1 --config"
                                + " cleanup.policy=compact")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("zerolayer.requests "));
        // all there: no complaint
        JobTopic.requireAll(topics, topics.stream().map(JobTopic::name).toList(), "kafka:9092");
    }
}
