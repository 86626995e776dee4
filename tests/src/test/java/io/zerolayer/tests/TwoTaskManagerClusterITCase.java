package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cli.ZeroLayerCli;
import io.zerolayer.cluster.ClusterRest;
import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.embedded.EmbeddedKafkaBroker;
import io.zerolayer.jobs.JobTopic;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.tests.testutils.BuiltArtifacts;
import io.zerolayer.tests.testutils.FlinkHome;
import io.zerolayer.tests.testutils.InFlightLoad;
import io.zerolayer.tests.testutils.SampleAnswers;
import io.zerolayer.tests.testutils.TestTenants;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/cluster.md "Your own cluster", followed step by step: a stock Flink 2.2 installation ({@link
 * FlinkHome}: Flink's jars, the distribution's conf/) and a Kafka broker with SASL/SCRAM and ACLs
 * that knows nothing of ZeroLayer, set up by the commands the docs give (ZeroLayer's CLI in this
 * JVM, Flink's {@code bin/flink} client in a process of its own, from the repository root) and
 * nothing else. {@link #everyDocumentedStepIsFollowedHere} fails when the docs gain a step this
 * test lacks. Then what the docs promise of it: a signed answer to every sample; a TaskManager of
 * two single-slot ones killed with SIGKILL once the job answers (half the requests sent before the
 * kill, half after) loses nothing and answers nothing twice; after stop-with-savepoint a second job
 * on the same TaskManagers loads the natives and answers; the first job resubmitted from its
 * savepoint answers again.
 */
class TwoTaskManagerClusterITCase {
    /**
     * The titles of the docs' numbered steps, in order; each is a block of {@link #followTheDocs}.
     */
    private static final List<String> STEPS =
            List.of(
                    "Build",
                    "Lib jar",
                    "Settings",
                    "Tenants",
                    "Topics",
                    "Start and submit",
                    "First answer",
                    "After a lost TaskManager");

    /** The repository root, where the docs' commands run. */
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    /**
     * One reply topic for both tenants of the load: outside the tenants' namespaces, so it must be
     * on the allow-list by name (an operator's choice, for a requester every tenant trusts).
     */
    private static final String REPLIES = "cluster-it.replies";

    private static final String ALLOWED = "zerolayer.replies.*;" + REPLIES + ";cluster-it.clean";

    /** The job's parallelism: one slot on each of the two TaskManagers, no spare slot. */
    private static final int PARALLELISM = 2;

    /** The tenant step 7 sends the samples as; the load is acme's and globex's. */
    private static final String SAMPLES_TENANT = "initech";

    /** Requests a run: enough that half of them are still unanswered when the first one is. */
    private static final int REQUESTS = 60;

    /** Sentences a request summarises. */
    private static final int SENTENCES = 30;

    private static Path home;
    private static EmbeddedKafkaBroker broker;
    private static FlinkHome flink;
    private static Path jar;
    private static Path adminFile;
    private static Path credentials;
    private static String job;
    private static InFlightLoad load;

    @BeforeAll
    static void followTheDocs() throws Exception {
        home = Path.of("target", "own-cluster-it-" + UUID.randomUUID()).toAbsolutePath();
        flink = FlinkHome.stock(home.resolve("flink"), BuiltArtifacts.flinkLib());
        broker =
                EmbeddedKafkaBroker.start(
                        home.resolve("kafka"), EmbeddedKafkaBroker.Security.SCRAM);
        adminFile = adminClientFile();
        credentials = home.resolve("kafka-credentials");
        Path tenants = flink.conf().resolve("tenants.yaml");

        // 1. Build
        jar = BuiltArtifacts.jobJar().toAbsolutePath().normalize();
        Path libJar = BuiltArtifacts.flinkLibJar();

        // 2. Lib jar, and Flink's Prometheus reporter as a plugin
        Files.copy(libJar, flink.lib().resolve(libJar.getFileName()));
        Path reporter;
        try (var opt = Files.list(flink.opt())) {
            reporter =
                    opt.filter(j -> j.getFileName().toString().startsWith("flink-metrics-prom"))
                            .findFirst()
                            .orElseThrow();
        }
        Path plugin = Files.createDirectories(flink.plugins().resolve("metrics-prometheus"));
        Files.copy(reporter, plugin.resolve(reporter.getFileName()));

        // 3. Settings: the printed block, with this test's choices as -D
        String block =
                zerolayer(
                        "config",
                        "--for-cluster",
                        "-Dzerolayer.kafka.bootstrap-servers=" + broker.bootstrapServers(),
                        "-Dzerolayer.tenants.file=" + tenants,
                        "-Dzerolayer.kafka.client-settings-file="
                                + credentials.resolve("zerolayer-job.properties"),
                        "-Dexecution.checkpointing.dir=" + home.resolve("checkpoints").toUri(),
                        "-Dexecution.checkpointing.savepoint-dir="
                                + home.resolve("savepoints").toUri(),
                        "-Dmetrics.reporter.prom.port=9340-9349",
                        "-Dzerolayer.replies.allowed-topics=" + ALLOWED,
                        // batches of one and no embedding cache: a request's bill does not
                        // depend on its companions or on what an earlier run cached
                        "-Dzerolayer.batch.size=1",
                        "-Dzerolayer.embedding-cache.size=0 b");
        flink.append("config.yaml", block);
        // this machine runs other clusters: free ports for the stock 6123 and 8081
        Path config = flink.conf().resolve("config.yaml");
        Files.writeString(
                config,
                Files.readString(config)
                        .replace("    port: 6123", "    port: " + LocalCluster.freePort()));
        flink.append("config.yaml", "rest.port: " + LocalCluster.freePort());
        flink.append(
                "log4j.properties",
                Files.readString(REPO.resolve("flink-conf/log4j-cluster.properties")));

        // 4. Tenants
        Files.copy(TestTenants.file(), tenants);

        // 5. Topics, on a broker with ACLs: as its admin, from the cluster's own settings
        zerolayer(
                "topics",
                "create",
                "--bootstrap-servers",
                adminServers(),
                "--command-config",
                adminFile.toString(),
                "--partitions",
                Integer.toString(PARALLELISM),
                "--config-dir",
                flink.conf().toString());
        zerolayer(
                "tenants",
                "sync",
                "--bootstrap-servers",
                adminServers(),
                "--command-config",
                adminFile.toString(),
                "--credentials-dir",
                credentials.toString(),
                "--config-dir",
                flink.conf().toString());

        // 6. Start and submit
        flink.startCluster(PARALLELISM);
        // from before the job's slots open (ONNX sessions, tokenizers) to its steady state
        logged = taskManagerLogLines();
        job = FlinkHome.submittedJob(flink.flink(REPO, flinkRun(null, run())));
        flink.rest().awaitRunning(job, Duration.ofSeconds(180));

        // 7. First answer: every sample, signed
        firstAnswers =
                SampleAnswers.submit(
                        broker.bootstrapServers(),
                        credentials.resolve(SAMPLES_TENANT + ".properties"),
                        SAMPLES_TENANT,
                        tenants);

        // the test's own requester: one reply topic for both tenants of the load
        try (Admin admin = Admin.create(broker.adminConnection().properties())) {
            admin.createTopics(List.of(new NewTopic(REPLIES, 1, (short) 1))).all().get();
        }
        load = asAdmin(new InFlightLoad(adminServers(), REPLIES, SENTENCES));
    }

    private static Map<Path, Long> logged;
    private static SampleAnswers firstAnswers;

    @AfterAll
    static void stopCluster() {
        if (flink != null) {
            flink.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void everyDocumentedStepIsFollowedHere() throws Exception {
        String docs = Files.readString(REPO.resolve("docs/cluster.md"));
        String section = docs.substring(docs.indexOf("## Your own cluster"));
        section = section.substring(0, section.indexOf("\n## ", 1));
        Matcher step = Pattern.compile("(?m)^(\\d+)\\. \\*\\*(.+?)\\.\\*\\*").matcher(section);
        List<String> documented = new ArrayList<>();
        while (step.find()) {
            assertThat(Integer.parseInt(step.group(1))).isEqualTo(documented.size() + 1);
            documented.add(step.group(2));
        }
        assertThat(documented).as("docs/cluster.md's steps").isEqualTo(STEPS);
    }

    @Test
    void everySampleIsAnsweredSigned() {
        firstAnswers.assertEveryOneAnswered();
    }

    /** The job's program arguments: its own choices over the cluster's settings. */
    private static List<String> run() {
        // replies exactly once here, so that a kill must lose and duplicate nothing at all; the
        // default (at-least-once) is killed in ServeRestartITCase
        return List.of(
                "run",
                "-Dzerolayer.replies.delivery-guarantee=exactly-once",
                // globex at level 3: its replies form an audit chain the kill must not fork
                "-Dzerolayer.compliance.tenant-modes=globex:strict",
                "-Dzerolayer.audit.anchor-every=10");
    }

    /** {@code flink run -d -p N [-s SAVEPOINT] JAR ARGS}. */
    private static List<String> flinkRun(String savepoint, List<String> programArgs) {
        List<String> args =
                new ArrayList<>(List.of("run", "-d", "-p", Integer.toString(PARALLELISM)));
        if (savepoint != null) {
            args.addAll(List.of("-s", savepoint));
        }
        args.add(REPO.relativize(jar).toString());
        args.addAll(programArgs);
        return args;
    }

    /** {@code zerolayer ARGS} in this JVM: what it printed, once it exited with 0. */
    private static String zerolayer(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
                ZeroLayerCli.commandLine()
                        .setOut(new PrintWriter(out, true))
                        .setErr(new PrintWriter(err, true))
                        .execute(args);
        assertThat(code).as("zerolayer %s: %s%s", String.join(" ", args), out, err).isZero();
        return out.toString();
    }

    /**
     * The broker runs SASL/SCRAM with ACLs: the test reads and writes as its super user, on its
     * admin listener, while the job signs in as its own principal.
     */
    private static String adminServers() {
        return broker.adminConnection().bootstrapServers();
    }

    private static InFlightLoad asAdmin(InFlightLoad load) {
        var admin = broker.adminConnection().clientProperties();
        return load.kafkaSettings(admin, admin);
    }

    /** The admin's client settings as a file, for the CLI's --command-config. */
    private static Path adminClientFile() throws java.io.IOException {
        Path file = home.resolve("admin-client.properties");
        java.util.Properties p = new java.util.Properties();
        p.putAll(broker.adminConnection().clientProperties());
        try (var w = Files.newBufferedWriter(file)) {
            p.store(w, null);
        }
        return file;
    }

    @Test
    void aKilledTaskManagerLosesNothingAndASecondJobOnTheSameTaskManagersRuns() throws Exception {
        ClusterRest rest = flink.rest();
        // the kill's latch: the job is answering the first half, so those still unanswered are
        // in flight; the second half is sent after the kill, so it is read by the recovered job
        load.send(0, REQUESTS / 2);
        load.replies(1, Duration.ofSeconds(120));
        // steady state, the exactly-once sinks committing at each checkpoint: nothing to warn of
        rest.awaitCheckpointAfterNow(job, Duration.ofSeconds(60));
        rest.awaitCheckpointAfterNow(job, Duration.ofSeconds(60));
        assertThat(warningsSince(logged)).as("TaskManager WARNs while answering").isEmpty();
        // 8. After a lost TaskManager: no spare slot, so the job waits for the replacement
        flink.killTaskManager(0);
        load.send(REQUESTS / 2, REQUESTS - REQUESTS / 2);
        flink.startTaskManager();

        load.replies(REQUESTS, Duration.ofSeconds(240));
        // a duplicate would be committed by the first checkpoint that starts after this
        rest.awaitCheckpointAfterNow(job, Duration.ofSeconds(60));
        Map<String, Integer> replies = load.replies(REQUESTS, Duration.ZERO);
        assertThat(replies).hasSize(REQUESTS);
        assertThat(replies.values()).as("replies per request").containsOnly(1);
        // each kernel billed once: no cost record id twice (billedPerTenant fails on one)
        Map<String, Long> billed = load.billedPerTenant("zerolayer.kernel-costs");
        // and step 7's samples, billed to their tenant
        assertThat(billed).containsOnlyKeys("acme", "globex", SAMPLES_TENANT);
        billed.remove(SAMPLES_TENANT);
        // globex's audit chain: each of its requests once, and intact through the kill
        List<String> chained = chainedRequests(REQUESTS / 2, Duration.ofSeconds(60));
        assertThat(chained).doesNotHaveDuplicates().hasSize(REQUESTS / 2);
        assertThat(chained)
                .allSatisfy(id -> assertThat(Integer.parseInt(id.substring(5)) % 2).isOne());
        StringWriter verified = new StringWriter();
        int verdict =
                ZeroLayerCli.commandLine()
                        .setOut(new PrintWriter(verified, true))
                        .execute(
                                "audit",
                                "verify",
                                "--bootstrap-servers",
                                adminServers(),
                                "--command-config",
                                adminFile.toString(),
                                "--tenant",
                                "globex");
        assertThat(verdict).as(verified.toString()).isZero();
        assertThat(verified.toString()).startsWith("globex: intact, " + REQUESTS / 2 + " entries");
        // re-committing the restored checkpoint's transactions is expected in recovery; no sink
        // may report it as an ERROR that reads like data loss
        assertThat(committerErrors()).as("KafkaCommitter ERRORs after the recovery").isEmpty();

        // rebalancing as the docs' step 8 has it: stop with a savepoint (to the configured
        // folder); the same requests on a second job, on fresh topics and the same TaskManagers,
        // with no failure: each tenant's bill is the same to the nano-dollar
        String savepoint = FlinkHome.savepoint(flink.flink(REPO, List.of("stop", job)));
        Configuration clean = new Configuration();
        List<String> cleanRun = new ArrayList<>(run());
        for (JobTopic t : JobTopic.of(new Configuration(), PARALLELISM)) {
            String name = "clean." + t.name();
            clean.set(t.option(), name);
            cleanRun.add("-D" + t.option().key() + "=" + name);
        }
        cleanRun.add("-Dzerolayer.kafka.transactional-id-prefix=clean");
        cleanRun.add("-Dzerolayer.kafka.group-id=clean");
        String cleanReplies = "cluster-it.clean";
        try (Admin admin = Admin.create(broker.adminConnection().properties())) {
            admin.createTopics(List.of(new NewTopic(cleanReplies, 1, (short) 1))).all().get();
        }
        // its topics, and the broker lets the clean job's principal at them once synced
        for (List<String> command :
                List.of(
                        List.of("topics", "create", "--partitions", Integer.toString(PARALLELISM)),
                        List.of(
                                "tenants",
                                "sync",
                                "--credentials-dir",
                                home.resolve("clean-credentials").toString()))) {
            List<String> args = new ArrayList<>(command);
            args.addAll(
                    List.of(
                            "--bootstrap-servers",
                            adminServers(),
                            "--command-config",
                            adminFile.toString(),
                            "--config-dir",
                            flink.conf().toString()));
            cleanRun.stream().filter(a -> a.startsWith("-D")).forEach(args::add);
            zerolayer(args.toArray(String[]::new));
        }
        String cleanJob = FlinkHome.submittedJob(flink.flink(REPO, flinkRun(null, cleanRun)));
        rest.awaitRunning(cleanJob, Duration.ofSeconds(180));
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
        rest.awaitCheckpointAfterNow(cleanJob, Duration.ofSeconds(60));
        assertThat(cleanLoad.billedPerTenant(clean.get(KafkaOptions.COSTS_TOPIC)))
                .isEqualTo(billed);
        flink.flink(REPO, List.of("stop", cleanJob));

        // an upgrade: the first job again, from its savepoint, on the same TaskManagers
        String second = FlinkHome.submittedJob(flink.flink(REPO, flinkRun(savepoint, run())));
        rest.awaitRunning(second, Duration.ofSeconds(180));
        load.send(REQUESTS, 1);
        assertThat(load.replies(REQUESTS + 1, Duration.ofSeconds(120))).hasSize(REQUESTS + 1);
        assertThat(rest.jobState(second)).isEqualTo("RUNNING");
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
        try (var logs = Files.list(flink.log())) {
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
        try (var logs = Files.list(flink.log())) {
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
