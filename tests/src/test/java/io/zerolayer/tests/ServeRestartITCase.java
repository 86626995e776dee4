package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.embedded.DemoTenant;
import io.zerolayer.embedded.EmbeddedPipeline;
import io.zerolayer.operators.kafka.ClientSettingsFile;
import io.zerolayer.operators.tenants.KafkaTenancy;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.tests.testutils.InFlightLoad;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zerolayer serve --data DIR} as a child process, killed with SIGKILL once it answers and
 * has a checkpoint (half the requests sent before the kill, half once it is back), and started
 * again on the same folder: it comes back on the same port, resumes from its last checkpoint, and
 * every request is answered — at least once, as replies are by default, each duplicate with the
 * same reply id — while each kernel is billed exactly once (read_committed, as clients read).
 */
class ServeRestartITCase {
    private static final int REQUESTS = 40;
    private static final Pattern BOOTSTRAP = Pattern.compile("bootstrap servers\\s*:\\s*(\\S+)");

    /** In the namespace of serve's tenant, demo, as the job requires of a signed request. */
    private static final String REPLIES = "zerolayer.replies.demo.restart-it";

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopChildren() throws Exception {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aKilledServeResumesFromItsCheckpointAnswersEveryRequestAndBillsItOnce(@TempDir Path data)
            throws Exception {
        Serve first = serve(data, "first");
        // serve verifies requests, and its broker its clients: sign in and sign as the tenant it
        // wrote to its data folder, which may create topics in its own namespace
        Path credentials = data.resolve(EmbeddedPipeline.CREDENTIALS_DIR);
        Map<String, String> demo =
                ClientSettingsFile.read(credentials.resolve(DemoTenant.ID + ".properties"));
        Map<String, Object> admin = new java.util.HashMap<>(demo);
        admin.put("bootstrap.servers", first.bootstrap);
        try (Admin tenant = Admin.create(admin)) {
            tenant.createTopics(List.of(new NewTopic(REPLIES, 1, (short) 1))).all().get();
        }
        InFlightLoad load =
                new InFlightLoad(first.bootstrap, REPLIES, 30)
                        .kafkaSettings(
                                demo,
                                ClientSettingsFile.read(
                                        credentials.resolve(KafkaTenancy.BILLING + ".properties")))
                        .signingAs(
                                TenantRegistry.load(data.resolve(DemoTenant.FILE))
                                        .credentials(DemoTenant.ID));
        // the kill's latch: the job answers the first half and has a checkpoint to resume from;
        // the second half is sent once serve is back (its broker dies with it), so the resumed
        // job reads it after whatever of the first half it must answer again
        load.send(0, REQUESTS / 2);
        load.replies(1, Duration.ofSeconds(120));
        // at-least-once replies do not wait for a checkpoint: wait for one, to resume from it
        awaitCheckpointAfter(data.resolve("checkpoints"), -1, Duration.ofSeconds(60));
        first.process.destroyForcibly();
        assertThat(first.process.waitFor(30, TimeUnit.SECONDS)).isTrue();

        Serve second = serve(data, "second");
        assertThat(second.bootstrap).as("the broker keeps its port").isEqualTo(first.bootstrap);
        assertThat(second.output).anyMatch(line -> line.contains("resumed from chk-"));
        load.send(REQUESTS / 2, REQUESTS - REQUESTS / 2);
        load.replies(REQUESTS, Duration.ofSeconds(180));
        // the last cost records are committed by the first checkpoint that starts after this
        awaitCheckpointAfter(
                data.resolve("checkpoints"),
                latestCheckpoint(data.resolve("checkpoints")) + 1,
                Duration.ofSeconds(60));
        Map<String, List<String>> replies = load.replyIds(REQUESTS, Duration.ZERO);
        assertThat(replies).as("requests answered").hasSize(REQUESTS);
        // requests answered after the last checkpoint before the kill were answered again
        assertThat(replies.values())
                .as("reply ids of each request's replies")
                .allSatisfy(ids -> assertThat(ids).doesNotContainNull().containsOnly(ids.get(0)));
        assertThat(replies.values().stream().map(ids -> ids.get(0)).distinct())
                .as("a reply id per request")
                .hasSize(REQUESTS);
        // the bill stays exactly once: billedPerTenant fails on a cost record id seen twice
        assertThat(load.billedPerTenant("zerolayer.kernel-costs")).isNotEmpty();

        second.process.destroy(); // SIGTERM: serve stops the job and the broker cleanly
        assertThat(second.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(data.resolve("ports.properties")).exists();
        assertThat(data.resolve("checkpoints")).isDirectory();
    }

    /** Waits until a checkpoint under {@code folder} numbered above {@code after} is complete. */
    private static void awaitCheckpointAfter(Path folder, long after, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (latestCheckpoint(folder) <= after) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "No checkpoint after " + after + " completed under " + folder);
            }
            Thread.sleep(100);
        }
    }

    /**
     * The number of the latest complete checkpoint under {@code folder} (its {@code _metadata}
     * written), or -1.
     */
    private static long latestCheckpoint(Path folder) throws Exception {
        if (!Files.isDirectory(folder)) {
            return -1;
        }
        try (var files = Files.walk(folder)) {
            return files.filter(
                            f ->
                                    f.getFileName().toString().equals("_metadata")
                                            && f.getParent()
                                                    .getFileName()
                                                    .toString()
                                                    .startsWith("chk-"))
                    .mapToLong(
                            f ->
                                    Long.parseLong(
                                            f.getParent().getFileName().toString().substring(4)))
                    .max()
                    .orElse(-1);
        } catch (java.io.UncheckedIOException racedWithFlink) {
            return -1; // a checkpoint folder came or went while walking: look again
        }
    }

    /** A running {@code zerolayer serve} child: its process, bootstrap address and output. */
    private record Serve(Process process, String bootstrap, List<String> output) {}

    private Serve serve(Path data, String name) throws Exception {
        Path root = Path.of("..").toAbsolutePath().normalize();
        Path log = Path.of("target", "serve-restart-" + name + ".log").toAbsolutePath();
        List<String> command =
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx2g",
                        "--add-opens=java.base/java.util=ALL-UNNAMED",
                        "--add-opens=java.base/java.lang=ALL-UNNAMED",
                        "--add-opens=java.base/java.nio=ALL-UNNAMED",
                        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.zerolayer.cli.ZeroLayerCli",
                        "serve",
                        "--data",
                        data.toString(),
                        // clear of the other ITCases' Prometheus ports
                        "-Dmetrics.reporter.prom.port=9300-9319");
        Process process =
                new ProcessBuilder(command)
                        .directory(root.toFile())
                        .redirectErrorStream(true)
                        .start();
        started.add(process);
        List<String> output = new CopyOnWriteArrayList<>();
        Thread reader =
                new Thread(
                        () -> {
                            try (BufferedReader in =
                                            new BufferedReader(
                                                    new InputStreamReader(
                                                            process.getInputStream(),
                                                            StandardCharsets.UTF_8));
                                    var file = Files.newBufferedWriter(log)) {
                                for (String line; (line = in.readLine()) != null; ) {
                                    output.add(line);
                                    file.write(line);
                                    file.newLine();
                                    file.flush();
                                }
                            } catch (java.io.IOException ended) {
                                // the process is gone
                            }
                        },
                        "serve-" + name + "-output");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (System.nanoTime() < deadline) {
            if (output.stream().anyMatch(l -> l.contains("Ctrl-C to stop"))) {
                for (String line : output) {
                    Matcher m = BOOTSTRAP.matcher(line);
                    if (m.find()) {
                        return new Serve(process, m.group(1), output);
                    }
                }
            }
            if (!process.isAlive()) {
                throw new AssertionError("serve exited " + process.exitValue() + ": see " + log);
            }
            Thread.sleep(200);
        }
        throw new AssertionError("serve did not come up in 180 s: see " + log);
    }
}
