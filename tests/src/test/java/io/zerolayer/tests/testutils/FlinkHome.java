package io.zerolayer.tests.testutils;

import io.zerolayer.cluster.ClusterLib;
import io.zerolayer.cluster.ClusterRest;
import io.zerolayer.cluster.FlinkLauncher;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.RestOptions;

/**
 * A stock Flink 2.2 installation, {@code $FLINK_HOME}, as a user has one before following
 * docs/cluster.md "Your own cluster": Flink's jars in {@code lib/}, the Prometheus reporter in
 * {@code opt/}, the distribution's {@code conf/config.yaml} and {@code log4j.properties}, empty
 * {@code plugins/} and {@code log/}. Nothing of ZeroLayer is in it until a test adds it by the
 * documented steps. Its scripts' work ({@code start-cluster.sh}, {@code flink}) is done by {@link
 * FlinkLauncher}, as this machine has no binary distribution.
 */
public final class FlinkHome implements AutoCloseable {
    private static final Pattern SUBMITTED =
            Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})");
    private static final Pattern SAVEPOINT = Pattern.compile("Savepoint completed\\. Path: (\\S+)");

    private final Path home;
    private final List<Process> taskManagers = new ArrayList<>();
    private Process jobManager;
    private FlinkLauncher launcher;
    private int clientRuns;

    private FlinkHome(Path home) {
        this.home = home;
    }

    /**
     * A fresh {@code $FLINK_HOME} in {@code home}, from the jars of {@code flink-lib/target/lib}
     * that are Flink's own: ZeroLayer's native-code libraries are left out, and the Prometheus
     * reporter goes to {@code opt/}, where the distribution keeps it.
     */
    public static FlinkHome stock(Path home, Path flinkLib) throws IOException {
        Path dir = home.toAbsolutePath().normalize();
        for (String folder : List.of("lib", "opt", "conf", "plugins", "log")) {
            Files.createDirectories(dir.resolve(folder));
        }
        for (Path jar : ClusterLib.flinkJars(flinkLib.toAbsolutePath().normalize())) {
            String name = jar.getFileName().toString();
            Path to = dir.resolve(name.startsWith("flink-metrics-prometheus") ? "opt" : "lib");
            Files.createSymbolicLink(to.resolve(name), jar.toAbsolutePath().normalize());
        }
        for (String file : List.of("config.yaml", "log4j.properties")) {
            try (InputStream in =
                    FlinkHome.class.getResourceAsStream("/stock-flink-conf/" + file)) {
                Files.copy(in, dir.resolve("conf").resolve(file));
            }
        }
        return new FlinkHome(dir);
    }

    public Path home() {
        return home;
    }

    public Path lib() {
        return home.resolve("lib");
    }

    public Path opt() {
        return home.resolve("opt");
    }

    public Path conf() {
        return home.resolve("conf");
    }

    public Path plugins() {
        return home.resolve("plugins");
    }

    public Path log() {
        return home.resolve("log");
    }

    /** Appends {@code text} to {@code conf/file}, as a user appends a block to it. */
    public void append(String file, String text) throws IOException {
        Files.writeString(conf().resolve(file), "\n" + text + "\n", StandardOpenOption.APPEND);
    }

    /**
     * {@code bin/start-cluster.sh}: a JobManager and {@code taskManagers} TaskManagers on {@code
     * lib/}'s jars and {@code conf/}, waiting until the TaskManagers registered.
     */
    public void startCluster(int taskManagers) throws IOException, InterruptedException {
        launcher = new FlinkLauncher(conf(), log(), plugins(), FlinkLauncher.libClasspath(lib()));
        jobManager = launcher.jobManager("jobmanager");
        for (int i = 0; i < taskManagers; i++) {
            startTaskManager();
        }
        rest().awaitTaskManagers(taskManagers, Duration.ofSeconds(120), log());
    }

    /** {@code bin/taskmanager.sh start}: one more TaskManager, logging to taskmanager-N.log. */
    public void startTaskManager() throws IOException, InterruptedException {
        taskManagers.add(
                launcher.taskManager("taskmanager-" + (taskManagers.size() + 1), List.of()));
    }

    /** SIGKILLs TaskManager {@code index} (0-based, in start order). */
    public void killTaskManager(int index) throws InterruptedException {
        Process tm = taskManagers.get(index);
        tm.destroyForcibly();
        tm.waitFor();
    }

    /**
     * {@code bin/flink ARGS}, run from {@code workingDir}: what it printed, once it exited with 0.
     */
    public String flink(Path workingDir, List<String> args)
            throws IOException, InterruptedException {
        return launcher.runClient("flink-client-" + ++clientRuns, workingDir, args);
    }

    /** The job id {@code flink run -d} printed. */
    public static String submittedJob(String flinkRunOutput) {
        return find(SUBMITTED, flinkRunOutput);
    }

    /** The savepoint {@code flink stop} printed. */
    public static String savepoint(String flinkStopOutput) {
        return find(SAVEPOINT, flinkStopOutput);
    }

    private static String find(Pattern pattern, String output) {
        Matcher m = pattern.matcher(output);
        if (!m.find()) {
            throw new IllegalStateException("No " + pattern + " in:\n" + output);
        }
        return m.group(1);
    }

    /** The REST API at the address of {@code conf/config.yaml}, to watch jobs. */
    public ClusterRest rest() {
        var conf = GlobalConfiguration.loadConfiguration(conf().toString());
        return new ClusterRest(
                URI.create(
                        "http://"
                                + conf.get(RestOptions.ADDRESS)
                                + ":"
                                + conf.get(RestOptions.PORT)
                                + "/"),
                home.resolve("savepoints"));
    }

    @Override
    public void close() {
        List<Process> all = new ArrayList<>(taskManagers);
        all.add(jobManager);
        FlinkLauncher.stop(all);
    }
}
