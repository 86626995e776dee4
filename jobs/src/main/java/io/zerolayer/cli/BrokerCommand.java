package io.zerolayer.cli;

import io.zerolayer.embedded.EmbeddedKafkaBroker;
import io.zerolayer.jobs.JobTopic;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer broker}: only the KRaft broker, with the job's topics, for people who bring
 * their own Flink (and what {@code zerolayer cluster up} runs as its broker process).
 */
@Command(
        name = "broker",
        mixinStandardHelpOptions = true,
        description =
                "Start a single-node Kafka broker (KRaft) on localhost with the job's topics, and"
                        + " keep it up until Ctrl-C.")
final class BrokerCommand implements Callable<Integer> {
    @Option(
            names = "--data",
            description =
                    "Folder for the broker's data, kept across runs with its port. Default: a"
                            + " temporary folder, removed on exit.")
    Path dataDir;

    @Option(
            names = "--partitions",
            defaultValue = "2",
            description =
                    "Partitions of the requests and kernel-costs topics (one per executor slot)."
                            + " Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Mixin PipelineSettings settings;

    @Override
    public Integer call() throws Exception {
        Configuration conf = settings.load();
        // a broker for a job that verifies its tenants verifies its clients too
        boolean scram =
                conf.get(io.zerolayer.jobs.TenancyOptions.AUTH_MODE)
                        != io.zerolayer.operators.tenants.AuthMode.NONE;
        EmbeddedKafkaBroker broker =
                EmbeddedKafkaBroker.start(
                        dataDir,
                        scram
                                ? EmbeddedKafkaBroker.Security.SCRAM
                                : EmbeddedKafkaBroker.Security.PLAINTEXT);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    broker.close();
                                    stopped.countDown();
                                }));
        broker.createTopics(
                JobTopic.of(conf, partitions).stream().map(JobTopic::newTopic).toList());
        if (scram && conf.contains(io.zerolayer.jobs.TenancyOptions.TENANTS_FILE)) {
            io.zerolayer.embedded.EmbeddedPipeline.syncTenants(broker, conf);
        }
        System.out.println("Kafka broker up.");
        System.out.println("  bootstrap servers : " + broker.bootstrapServers());
        System.out.println("  data              : " + broker.dataDir());
        if (scram) {
            System.out.println(
                    "  security          : SASL/SCRAM and ACLs; client settings in "
                            + broker.dataDir()
                                    .resolve(io.zerolayer.embedded.EmbeddedPipeline.CREDENTIALS_DIR)
                            + (conf.contains(io.zerolayer.jobs.TenancyOptions.TENANTS_FILE)
                                    ? ""
                                    : " once zerolayer tenants sync has run"));
            System.out.println(
                    "  admin             : "
                            + broker.adminConnection().bootstrapServers()
                            + " (SASL/PLAIN, user "
                            + EmbeddedKafkaBroker.ADMIN_USER
                            + ", password in "
                            + broker.dataDir().resolve("admin.properties")
                            + ")");
        }
        for (JobTopic t : JobTopic.of(conf, partitions)) {
            System.out.printf(
                    "  %-18s: %s%n", t.option().key().replace("zerolayer.topics.", ""), t.name());
        }
        System.out.println("Ctrl-C to stop.");
        stopped.await();
        return 0;
    }
}
