package io.zerolayer.cli;

import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.embedded.DemoTenant;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code zerolayer cluster up | down | kill-taskmanager N}: a local multi-process Flink cluster (a
 * broker, a JobManager, TaskManagers) running the streaming job, submitted through the REST API,
 * with no Docker. The processes outlive the command; {@code down} stops them.
 */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description =
                "A local multi-process Flink cluster running the job: up, down, kill-taskmanager.",
        subcommands = {
            ClusterCommand.Up.class,
            ClusterCommand.Down.class,
            ClusterCommand.KillTaskManager.class
        })
final class ClusterCommand implements Runnable {
    static final Path DEFAULT_HOME = Path.of("data", "cluster");

    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    static Properties state(Path home) throws Exception {
        Path file = home.resolve(LocalCluster.STATE_FILE);
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(
                    "No cluster in " + home + " (no " + file + "); start one with cluster up");
        }
        Properties state = new Properties();
        try (var in = Files.newInputStream(file)) {
            state.load(in);
        }
        return state;
    }

    @Command(
            name = "up",
            mixinStandardHelpOptions = true,
            description =
                    "Start a broker, a JobManager and TaskManagers as processes, submit the job"
                            + " over REST, and print the addresses.")
    static final class Up implements Callable<Integer> {
        @Option(
                names = "--home",
                description = "Folder for the cluster's files. Default: data/cluster.")
        Path home = DEFAULT_HOME;

        @Mixin ClusterShape shape;

        @Option(
                names = "--rest-port",
                defaultValue = "8081",
                description = "The Web UI and REST port. Default: ${DEFAULT-VALUE}.")
        int restPort;

        @Mixin PipelineSettings settings;

        @Override
        public Integer call() throws Exception {
            if (Files.exists(home.resolve(LocalCluster.STATE_FILE))) {
                throw new IllegalArgumentException(
                        "A cluster was started in " + home + "; stop it with cluster down first");
            }
            ClusterShape.requireBuild();
            LocalCluster.Builder builder =
                    LocalCluster.builder()
                            .home(home)
                            .flinkLib(ClusterShape.FLINK_LIB)
                            .appClasspath(System.getProperty("java.class.path"))
                            .taskManagers(shape.taskManagers)
                            .slotsPerTaskManager(shape.slots)
                            .restPort(restPort);
            builder.settingsFrom(settings.load());
            LocalCluster cluster = builder.build();
            System.out.printf(
                    "Starting a broker, a JobManager and %d TaskManager(s) in %s …%n",
                    shape.taskManagers, home.toAbsolutePath());
            cluster.start();
            cluster.writeState();
            String job =
                    cluster.rest()
                            .submit(
                                    ClusterShape.JOB_JAR,
                                    List.of(
                                            "run",
                                            "--bootstrap-servers",
                                            cluster.bootstrapServers()),
                                    shape.parallelism(),
                                    null);
            cluster.rest().awaitRunning(job, Duration.ofSeconds(300));
            System.out.println("ZeroLayer runs on a local Flink cluster.");
            System.out.println("  Web UI / REST     : " + cluster.restUrl());
            System.out.println("  bootstrap servers : " + cluster.bootstrapServers());
            System.out.println("  job               : " + job);
            try {
                System.out.println(
                        "  metrics           : "
                                + new ClusterEndpoints(
                                                java.net.http.HttpClient.newHttpClient(),
                                                cluster.restUrl())
                                        .discover());
            } catch (java.io.IOException e) {
                System.out.println("  metrics           : not readable yet (" + e + ")");
            }
            System.out.println("  logs              : " + home.resolve("log").toAbsolutePath());
            System.out.println(
                    "Try: ./zerolayer submit --bootstrap-servers "
                            + cluster.bootstrapServers()
                            + (cluster.kafkaSettings(DemoTenant.ID).isEmpty()
                                    ? ""
                                    : " --command-config "
                                            + cluster.kafkaSettingsFile(DemoTenant.ID))
                            + " --tenants-file "
                            + home.resolve(DemoTenant.FILE).toAbsolutePath()
                            + " samples/");
            System.out.println(
                    "     ./zerolayer status --rest-url " + cluster.restUrl() + "   (warm?)");
            System.out.println("     ./zerolayer cluster kill-taskmanager 1   (SIGKILL one)");
            System.out.println("     ./zerolayer cluster down");
            return 0;
        }
    }

    @Command(
            name = "down",
            mixinStandardHelpOptions = true,
            description = "Stop the processes of the cluster started with cluster up.")
    static final class Down implements Callable<Integer> {
        @Option(names = "--home", description = "The cluster's folder. Default: data/cluster.")
        Path home = DEFAULT_HOME;

        @Override
        public Integer call() throws Exception {
            Properties state = state(home);
            for (String key : state.stringPropertyNames()) {
                if (key.endsWith(".pid")) {
                    ProcessHandle.of(Long.parseLong(state.getProperty(key)))
                            .ifPresent(
                                    p -> {
                                        p.destroy();
                                        p.onExit().join();
                                        System.out.println("stopped " + key.replace(".pid", ""));
                                    });
                }
            }
            Files.delete(home.resolve(LocalCluster.STATE_FILE));
            return 0;
        }
    }

    @Command(
            name = "kill-taskmanager",
            mixinStandardHelpOptions = true,
            description =
                    "Kill one TaskManager of the cluster with SIGKILL, as a crash would; start"
                            + " the cluster again, or watch Flink recover on the others.")
    static final class KillTaskManager implements Callable<Integer> {
        @Option(names = "--home", description = "The cluster's folder. Default: data/cluster.")
        Path home = DEFAULT_HOME;

        @Parameters(index = "0", description = "Which TaskManager (1, 2, …).")
        int number;

        @Override
        public Integer call() throws Exception {
            String pid = state(home).getProperty("taskmanager." + number + ".pid");
            if (pid == null) {
                throw new IllegalArgumentException("No TaskManager " + number + " in " + home);
            }
            var process = ProcessHandle.of(Long.parseLong(pid));
            if (process.isEmpty()) {
                System.out.println("TaskManager " + number + " is not running");
                return 1;
            }
            process.get().destroyForcibly();
            process.get().onExit().join();
            System.out.println("killed TaskManager " + number + " (pid " + pid + ")");
            return 0;
        }
    }
}
