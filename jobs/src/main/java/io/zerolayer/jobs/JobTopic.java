package io.zerolayer.jobs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A topic the streaming job reads or writes, as its configuration names it, with the shape the job
 * expects: what the embedded modes create, and what a job on an existing cluster checks before it
 * starts, so a missing topic is an error that names it and the command that creates it rather than
 * a job that fails over until someone notices.
 *
 * @param option the setting that names the topic
 * @param name the topic
 * @param partitions partitions to create it with (the requests: one per executor slot)
 * @param compacted whether it is a compacted topic (graph descriptors: the latest per graph id)
 * @param reads what the job does with it, for messages
 */
public record JobTopic(
        ConfigOption<String> option, String name, int partitions, boolean compacted, String reads) {

    /** The job's topics under {@code conf}, with {@code slots} partitions for the requests. */
    public static List<JobTopic> of(Configuration conf, int slots) {
        return List.of(
                topic(conf, PipelineOptions.REQUESTS_TOPIC, slots, false, "reads requests"),
                topic(conf, PipelineOptions.CONTROL_TOPIC, 1, false, "reads control commands"),
                topic(conf, PipelineOptions.RESPONSES_TOPIC, 1, false, "writes replies"),
                topic(conf, PipelineOptions.COSTS_TOPIC, slots, false, "writes kernel costs"),
                topic(conf, PipelineOptions.COST_SUMMARY_TOPIC, 1, false, "writes cost summaries"),
                topic(
                        conf,
                        PipelineOptions.GRAPHS_TOPIC,
                        1,
                        true,
                        "writes and reads graph descriptors"),
                topic(conf, PipelineOptions.DEAD_LETTERS_TOPIC, 1, false, "writes dead letters"));
    }

    private static JobTopic topic(
            Configuration conf,
            ConfigOption<String> option,
            int partitions,
            boolean compacted,
            String reads) {
        return new JobTopic(option, conf.get(option), partitions, compacted, reads);
    }

    /** The topic to create, replicated as the broker's default says. */
    public NewTopic newTopic() {
        NewTopic t = new NewTopic(name, partitions, (short) -1);
        return compacted ? t.configs(Map.of("cleanup.policy", "compact")) : t;
    }

    /** The command that creates it with Kafka's own tools. */
    public String createCommand(String bootstrapServers) {
        return "kafka-topics.sh --bootstrap-server "
                + bootstrapServers
                + " --create --topic "
                + name
                + " --partitions "
                + partitions
                + (compacted ? " --config cleanup.policy=compact" : "");
    }

    /**
     * Fails, naming each missing topic, what the job does with it, the setting that names it and
     * the command that creates it, unless every topic exists.
     *
     * @param existing the topics on the cluster
     * @throws IllegalArgumentException when any is missing
     */
    public static void requireAll(
            List<JobTopic> topics, Collection<String> existing, String bootstrapServers) {
        List<String> missing = new ArrayList<>();
        for (JobTopic t : topics) {
            if (!existing.contains(t.name())) {
                missing.add(
                        "  "
                                + t.name()
                                + " (the job "
                                + t.reads()
                                + "; set by "
                                + t.option().key()
                                + "):\n    "
                                + t.createCommand(bootstrapServers));
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(
                    missing.size()
                            + " topic(s) the job needs are missing on "
                            + bootstrapServers
                            + "; create them, or name existing ones in config.yaml:\n"
                            + String.join("\n", missing));
        }
    }
}
