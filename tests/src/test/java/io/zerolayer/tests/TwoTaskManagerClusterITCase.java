package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.jobs.JobTopic;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.tests.testutils.BuiltArtifacts;
import io.zerolayer.tests.testutils.InFlightLoad;
import io.zerolayer.tests.testutils.TestTenants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The job on a real multi-process Flink cluster (a JobManager and two TaskManagers from Flink's own
 * entry points, a broker process), submitted through the REST API as a user would: a TaskManager
 * killed with SIGKILL once the job answers (half the requests sent before the kill, half after)
 * loses nothing and answers nothing twice, and after stop-with-savepoint a second job on the same
 * TaskManagers loads the natives and answers.
 */
class TwoTaskManagerClusterITCase {
    private static final Path JAR = Path.of("..", "jobs", "target", "zerolayer-flink.jar");
    private static final Path FLINK_LIB = Path.of("..", "flink-lib", "target", "lib");

    /**
     * One reply topic for both tenants of the load: outside the tenants' namespaces, so it must be
     * on the allow-list by name (an operator's choice, for a requester every tenant trusts).
     */
    private static final String REPLIES = "cluster-it.replies";

    private static final String ALLOWED = "zerolayer.replies.*;" + REPLIES + ";cluster-it.clean";

    /**
     * The broker runs SASL/SCRAM with ACLs (the job verifies tenants): the test reads and writes as
     * its super user, on its admin listener, while the job signs in as its own principal.
     */
    private static String adminServers() {
        return cluster.adminConnection().bootstrapServers();
    }

    private static InFlightLoad asAdmin(InFlightLoad load) {
        var admin = cluster.adminConnection().clientProperties();
        return load.kafkaSettings(admin, admin);
    }

    /** The admin's client settings as a file, for the CLI's --command-config. */
    private static Path adminFile() throws java.io.IOException {
        Path file = cluster.home().resolve("admin-client.properties");
        java.util.Properties p = new java.util.Properties();
        p.putAll(cluster.adminConnection().clientProperties());
        try (var w = Files.newBufferedWriter(file)) {
            p.store(w, null);
        }
        return file;
    }

    /** Requests a run: enough that half of them are still unanswered when the first one is. */
    private static final int REQUESTS = 60;

    /** Sentences a request summarises. */
    private static final int SENTENCES = 30;

    private static LocalCluster cluster;
    private static InFlightLoad load;

    @BeforeAll
    static void startCluster() throws Exception {
        BuiltArtifacts.jobJar();
        BuiltArtifacts.flinkLib();
        cluster =
                LocalCluster.builder()
                        .home(Path.of("target", "cluster-it-" + UUID.randomUUID()))
                        .flinkLib(FLINK_LIB)
                        .appClasspath(System.getProperty("java.class.path"))
                        .taskManagers(2)
                        .slotsPerTaskManager(1)
                        .restPort(LocalCluster.freePort())
                        .setting("zerolayer.checkpoint-interval", "1 s")
                        .setting("zerolayer.replies.allowed-topics", ALLOWED)
                        // the test tenants, whose keys InFlightLoad signs with
                        .setting("zerolayer.tenants.file", TestTenants.file().toString())
                        // batches of one and no embedding cache: a request's bill does not
                        // depend on its companions or on what an earlier run cached
                        .setting("zerolayer.batch.size", "1")
                        .setting("zerolayer.embedding-cache.size", "0 b")
                        .setting("heartbeat.interval", "1000")
                        .setting("heartbeat.timeout", "8000")
                        .setting(
                                "metrics.reporter.prom.factory.class",
                                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory")
                        .setting("metrics.reporter.prom.port", "9340-9349")
                        .build();
        cluster.start();
        try (Admin admin = Admin.create(cluster.adminConnection().properties())) {
            admin.createTopics(List.of(new NewTopic(REPLIES, 1, (short) 1))).all().get();
        }
        load = asAdmin(new InFlightLoad(adminServers(), REPLIES, SENTENCES));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aKilledTaskManagerLosesNothingAndASecondJobOnTheSameTaskManagersRuns() throws Exception {
        // replies exactly once here, so that a kill must lose and duplicate nothing at all; the
        // default (at-least-once) is killed in ServeRestartITCase
        List<String> run =
                List.of(
                        "run",
                        "--bootstrap-servers",
                        cluster.bootstrapServers(),
                        "-Dzerolayer.replies.delivery-guarantee=exactly-once",
                        // globex at level 3: its replies form an audit chain the kill must not fork
                        "-Dzerolayer.compliance.tenant-modes=globex:strict",
                        "-Dzerolayer.audit.anchor-every=10");
        // one upload serves the three runs below
        String jar = cluster.rest().upload(JAR);
        // from before the job's slots open (ONNX sessions, tokenizers) to its steady state
        Map<Path, Long> logged = taskManagerLogLines();
        String job = cluster.rest().run(jar, run, 2, null);
        cluster.rest().awaitRunning(job, Duration.ofSeconds(180));

        // the kill's latch: the job is answering the first half, so those still unanswered are
        // in flight; the second half is sent after the kill, so it is read by the recovered job
        load.send(0, REQUESTS / 2);
        load.replies(1, Duration.ofSeconds(120));
        // steady state, the exactly-once sinks committing at each checkpoint: nothing to warn of
        cluster.rest().awaitCheckpointAfterNow(job, Duration.ofSeconds(60));
        cluster.rest().awaitCheckpointAfterNow(job, Duration.ofSeconds(60));
        assertThat(warningsSince(logged)).as("TaskManager WARNs while answering").isEmpty();
        cluster.killTaskManager(0);
        load.send(REQUESTS / 2, REQUESTS - REQUESTS / 2);
        cluster.startTaskManager();

        load.replies(REQUESTS, Duration.ofSeconds(240));
        // a duplicate would be committed by the first checkpoint that starts after this
        cluster.rest().awaitCheckpointAfterNow(job, Duration.ofSeconds(60));
        Map<String, Integer> replies = load.replies(REQUESTS, Duration.ZERO);
        assertThat(replies).hasSize(REQUESTS);
        assertThat(replies.values()).as("replies per request").containsOnly(1);
        // each kernel billed once: no cost record id twice (billedPerTenant fails on one)
        Map<String, Long> billed = load.billedPerTenant("zerolayer.kernel-costs");
        assertThat(billed).containsOnlyKeys("acme", "globex");
        // globex's audit chain: each of its requests once, and intact through the kill
        List<String> chained = chainedRequests(REQUESTS / 2, Duration.ofSeconds(60));
        assertThat(chained).doesNotHaveDuplicates().hasSize(REQUESTS / 2);
        assertThat(chained)
                .allSatisfy(id -> assertThat(Integer.parseInt(id.substring(5)) % 2).isOne());
        java.io.StringWriter verified = new java.io.StringWriter();
        int verdict =
                io.zerolayer.cli.ZeroLayerCli.commandLine()
                        .setOut(new java.io.PrintWriter(verified, true))
                        .execute(
                                "audit",
                                "verify",
                                "--bootstrap-servers",
                                adminServers(),
                                "--command-config",
                                adminFile().toString(),
                                "--tenant",
                                "globex");
        assertThat(verdict).as(verified.toString()).isZero();
        assertThat(verified.toString()).startsWith("globex: intact, " + REQUESTS / 2 + " entries");
        // re-committing the restored checkpoint's transactions is expected in recovery; no sink
        // may report it as an ERROR that reads like data loss
        assertThat(committerErrors()).as("KafkaCommitter ERRORs after the recovery").isEmpty();

        // stop with a savepoint; the same requests on a second job, on fresh topics and the same
        // TaskManagers, with no failure: each tenant's bill is the same to the nano-dollar
        String savepoint = cluster.rest().stopWithSavepoint(job, Duration.ofSeconds(120));
        Configuration clean = new Configuration();
        List<String> cleanRun = new java.util.ArrayList<>(run);
        for (JobTopic t : JobTopic.of(new Configuration(), 2)) {
            String name = "clean." + t.name();
            clean.set(t.option(), name);
            cleanRun.add("-D" + t.option().key() + "=" + name);
        }
        cleanRun.add("-Dzerolayer.kafka.transactional-id-prefix=clean");
        cleanRun.add("-Dzerolayer.kafka.group-id=clean");
        String cleanReplies = "cluster-it.clean";
        try (Admin admin = Admin.create(cluster.adminConnection().properties())) {
            List<NewTopic> topics = new java.util.ArrayList<>();
            JobTopic.of(clean, 2).forEach(t -> topics.add(t.newTopic()));
            topics.add(new NewTopic(cleanReplies, 1, (short) 1));
            admin.createTopics(topics).all().get();
        }
        // the broker lets the clean job's principal at its own topics only once they are synced
        List<String> sync =
                new java.util.ArrayList<>(
                        List.of(
                                "tenants",
                                "sync",
                                "--bootstrap-servers",
                                adminServers(),
                                "--command-config",
                                adminFile().toString(),
                                "--tenants-file",
                                TestTenants.file().toString(),
                                "--credentials-dir",
                                cluster.home().resolve("clean-credentials").toString(),
                                "-Dzerolayer.replies.allowed-topics=" + ALLOWED));
        cleanRun.stream().filter(a -> a.startsWith("-D")).forEach(sync::add);
        assertThat(io.zerolayer.cli.ZeroLayerCli.commandLine().execute(sync.toArray(String[]::new)))
                .isZero();
        String cleanJob = cluster.rest().run(jar, cleanRun, 2, null);
        cluster.rest().awaitRunning(cleanJob, Duration.ofSeconds(180));
        InFlightLoad cleanLoad =
                asAdmin(
                        new InFlightLoad(
                                adminServers(),
                                clean.get(KafkaOptions.REQUESTS_TOPIC),
                                cleanReplies,
                                SENTENCES));
        cleanLoad.send(0, REQUESTS);
        assertThat(cleanLoad.replies(REQUESTS, Duration.ofSeconds(240))).hasSize(REQUESTS);
        // the last requests' cost records are committed with the next checkpoint
        cluster.rest().awaitCheckpointAfterNow(cleanJob, Duration.ofSeconds(60));
        assertThat(cleanLoad.billedPerTenant(clean.get(KafkaOptions.COSTS_TOPIC)))
                .isEqualTo(billed);
        cluster.rest().stopWithSavepoint(cleanJob, Duration.ofSeconds(120));

        // an upgrade: the first job again, from its savepoint, on the same TaskManagers
        String second = cluster.rest().run(jar, run, 2, savepoint);
        cluster.rest().awaitRunning(second, Duration.ofSeconds(180));
        load.send(REQUESTS, 1);
        assertThat(load.replies(REQUESTS + 1, Duration.ofSeconds(120))).hasSize(REQUESTS + 1);
        assertThat(cluster.rest().jobState(second)).isEqualTo("RUNNING");
    }

    /**
     * The request ids of the committed entries on the audit topic, read until there are {@code
     * count} or the timeout passed.
     */
    private static List<String> chainedRequests(int count, Duration timeout) {
        var codec =
                io.zerolayer.schemas.serde.SingleObjectCodec.of(
                        io.zerolayer.schemas.AuditEntry.class);
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> ids;
        do {
            ids =
                    load.committed("zerolayer.audit").stream()
                            .map(r -> codec.decode(r.value()))
                            .filter(e -> e.getKind() == io.zerolayer.schemas.AuditRecordKind.ENTRY)
                            .map(e -> e.getRequestId())
                            .toList();
        } while (ids.size() < count && System.nanoTime() < deadline);
        return ids;
    }

    /** ERROR lines of the Kafka sinks' committers in every TaskManager's log. */
    /** How many lines each TaskManager's log holds now. */
    private static Map<Path, Long> taskManagerLogLines() throws Exception {
        Map<Path, Long> lines = new java.util.HashMap<>();
        try (var logs = Files.list(cluster.home().resolve("log"))) {
            for (Path log :
                    logs.filter(p -> p.getFileName().toString().matches("taskmanager.*\\.log"))
                            .toList()) {
                try (var l = Files.lines(log)) {
                    lines.put(log, l.count());
                }
            }
        }
        return lines;
    }

    /** The WARN lines the TaskManagers logged after {@code since}. */
    private static List<String> warningsSince(Map<Path, Long> since) throws Exception {
        List<String> warnings = new java.util.ArrayList<>();
        for (var e : since.entrySet()) {
            try (var l = Files.lines(e.getKey())) {
                l.skip(e.getValue())
                        .filter(line -> line.contains(" WARN "))
                        .forEach(line -> warnings.add(e.getKey().getFileName() + ": " + line));
            }
        }
        return warnings;
    }

    private static List<String> committerErrors() throws Exception {
        List<String> errors = new java.util.ArrayList<>();
        try (var logs = Files.list(cluster.home().resolve("log"))) {
            for (Path log :
                    logs.filter(p -> p.getFileName().toString().startsWith("taskmanager"))
                            .toList()) {
                for (String line : Files.readAllLines(log)) {
                    if (line.contains(" ERROR ") && line.contains("KafkaCommitter")) {
                        errors.add(log.getFileName() + ": " + line);
                    }
                }
            }
        }
        return errors;
    }
}
