package io.zerolayer.tests.testutils;

import static io.zerolayer.tests.testutils.EmbeddedKafkaExtension.freshTopic;

import io.zerolayer.jobs.BillingOptions;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.StreamingJob;
import io.zerolayer.jobs.TenancyOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The streaming job for one test, on topics of its own on a shared broker and MiniCluster. Before
 * each test it prepares the job's settings ({@link #conf()}: fresh topics and tenants' reply
 * topics, 500 ms checkpoints, one shard per graph so compile counts stay exact); the test changes
 * what it needs and calls {@link #start()}; after the test the job is cancelled.
 */
public final class StreamingJobExtension implements BeforeEachCallback, AfterEachCallback {
    private final EmbeddedKafkaExtension kafka;
    private final int slots;
    private final PrometheusCluster cluster;
    private Configuration conf;
    private JobClient job;

    /**
     * @param cluster the MiniCluster the job runs on, asked when a checkpoint completed
     */
    public StreamingJobExtension(
            EmbeddedKafkaExtension kafka, int slots, PrometheusCluster cluster) {
        this.kafka = kafka;
        this.slots = slots;
        this.cluster = cluster;
    }

    /**
     * Waits until a checkpoint that started after this call completed: every record the job wrote
     * before it is committed, so a read to the end of a topic sees it, and any duplicate of it.
     */
    public void awaitCommitted() throws Exception {
        if (job != null && job.getJobStatus().get() == JobStatus.RUNNING) {
            cluster.awaitCheckpointAfterNow(job.getJobID());
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(KafkaOptions.REQUESTS_TOPIC, freshTopic("requests"));
        conf.set(KafkaOptions.COSTS_TOPIC, freshTopic("costs"));
        conf.set(KafkaOptions.GRAPHS_TOPIC, freshTopic("graphs"));
        conf.set(KafkaOptions.COST_SUMMARY_TOPIC, freshTopic("cost-summary"));
        conf.set(BillingOptions.COST_SUMMARY_WINDOW, Duration.ofSeconds(1));
        conf.set(BillingOptions.COST_SUMMARY_OUT_OF_ORDERNESS, Duration.ofMillis(500));
        conf.set(KafkaOptions.DEAD_LETTERS_TOPIC, freshTopic("dlt"));
        conf.set(KafkaOptions.CONTROL_TOPIC, freshTopic("control"));
        conf.set(KafkaOptions.AUDIT_TOPIC, freshTopic("audit"));
        conf.set(KafkaOptions.TRANSACTIONAL_ID_PREFIX, freshTopic("tx"));
        conf.set(KafkaOptions.GROUP_ID, freshTopic("group"));
        conf.set(ExecutorOptions.CHECKPOINT_INTERVAL, Duration.ofMillis(500));
        // nothing compiled ahead: a test's compile counts are its own requests'
        conf.set(ExecutorOptions.PRECOMPILE_FILE, ExecutorOptions.NO_PRECOMPILE);
        // requests are verified as by default; the test tenants sign (EmbeddedKafkaExtension.send)
        conf.set(TenancyOptions.TENANTS_FILE, TestTenants.file().toString());
        // one shard per graph unless a test asks for hot graphs: compile counts stay exact however
        // the burst of requests happens to split over the two classifier subtasks
        conf.set(ExecutorOptions.REQUESTS_PER_SHARD, 1_000_000.0);
        conf.set(ExecutorOptions.LOAD_PER_SHARD, 1e12);
        kafka.broker()
                .createTopics(
                        Map.of(
                                conf.get(KafkaOptions.REQUESTS_TOPIC),
                                slots,
                                conf.get(KafkaOptions.COSTS_TOPIC),
                                2,
                                conf.get(KafkaOptions.GRAPHS_TOPIC),
                                1,
                                conf.get(KafkaOptions.DEAD_LETTERS_TOPIC),
                                1,
                                conf.get(KafkaOptions.CONTROL_TOPIC),
                                1,
                                conf.get(KafkaOptions.COST_SUMMARY_TOPIC),
                                1,
                                conf.get(KafkaOptions.AUDIT_TOPIC),
                                1));
        kafka.createFreshReplyTopics(conf);
    }

    /**
     * Every reply topic of this job's tenants, as {@link #readCommitted} and the broker's readers
     * take it: verified requests that name no reply topic are answered there.
     */
    public String replies() {
        return EmbeddedKafkaExtension.replies(conf);
    }

    /** Where replies to {@code tenant}'s requests that name no topic go. */
    public String replyTopic(String tenant) {
        return EmbeddedKafkaExtension.replyTopic(conf, tenant);
    }

    /**
     * The committed records of {@code topic}: once at least {@code atLeast} came, every record the
     * job wrote before a checkpoint that started then. A duplicate of one of them, or any record
     * more, is among them; no fixed wait stands in for that.
     */
    public List<ConsumerRecord<byte[], byte[]>> readCommitted(
            String topic, int atLeast, Duration timeout) {
        kafka.read(topic, atLeast, timeout, Duration.ZERO);
        try {
            awaitCommitted();
        } catch (Exception e) {
            throw new IllegalStateException("No checkpoint completed after reading " + topic, e);
        }
        return kafka.readToEnd(topic);
    }

    /** The job's settings: change them before {@link #start()}. */
    public Configuration conf() {
        return conf;
    }

    /** Starts the job with {@link #conf()} as it is now, on every slot. */
    public JobClient start() throws Exception {
        return start(slots);
    }

    /**
     * Starts the job with {@link #conf()} as it is now, each operator on {@code parallelism} slots
     * (1: every graph runs in one executor slot).
     */
    public JobClient start(int parallelism) throws Exception {
        if (job != null) {
            throw new IllegalStateException("The job runs; cancel() it first");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamingJob.define(env, conf);
        job = env.executeAsync(StreamingJob.JOB_NAME);
        return job;
    }

    /** The running job. */
    public JobClient job() {
        return job;
    }

    /** Cancels the running job and waits for it. */
    public void cancel() throws Exception {
        if (job != null) {
            JobClient running = job;
            job = null;
            running.cancel().get();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        cancel();
    }
}
