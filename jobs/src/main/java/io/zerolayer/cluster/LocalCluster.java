package io.zerolayer.cluster;

import io.zerolayer.embedded.DemoTenant;
import io.zerolayer.embedded.EmbeddedKafkaBroker;
import io.zerolayer.embedded.EmbeddedPipeline;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.kafka.ClientSettingsFile;
import io.zerolayer.operators.kafka.KafkaConnection;
import io.zerolayer.operators.tenants.AuthMode;
import io.zerolayer.operators.tenants.KafkaTenancy;
import io.zerolayer.schemas.auth.TenantCredentials;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Flink session cluster and a Kafka broker on this machine as separate processes, started from
 * Flink's own entry points ({@code StandaloneSessionClusterEntrypoint}, {@code TaskManagerRunner})
 * on the lib folder {@code flink-lib/} assembles from Maven jars, and ZeroLayer's {@code broker}
 * command: the shape of a real cluster, with the job submitted through the REST API as a user
 * would.
 *
 * <pre>{@code
 * try (LocalCluster cluster = LocalCluster.builder()
 *         .home(Path.of("target/cluster"))
 *         .flinkLib(Path.of("flink-lib/target/lib"))
 *         .appClasspath(System.getProperty("java.class.path"))
 *         .taskManagers(2)
 *         .build()) {
 *     cluster.start();
 *     String job = cluster.rest().submit(jar, List.of("run"), 2, null);
 * }
 * }</pre>
 */
public final class LocalCluster implements AutoCloseable {
    private static final Pattern BOOTSTRAP = Pattern.compile("bootstrap servers\\s*:\\s*(\\S+)");
    private static final List<String> JVM_OPENS =
            List.of(
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");

    /**
     * Classes a cluster loads from its lib/ before the job's jar: ZeroLayer's native-code libraries
     * (ONNX Runtime, the tokenizers and what they load natives with), so their natives load once
     * per TaskManager JVM. The Docker image puts the same jars in lib/ with the same patterns.
     */
    public static final String PARENT_FIRST_PATTERNS =
            "ai.djl.;ai.onnxruntime.;com.sun.jna.;com.google.gson.";

    /** The prefixes of the settings {@link Builder#settingsFrom} passes to a cluster. */
    static final List<String> CLUSTER_PREFIXES =
            List.of(
                    "zerolayer.",
                    "metrics.",
                    "execution.",
                    "heartbeat.",
                    "restart-strategy.",
                    "taskmanager.load-balance.");

    private final Path home;
    private final Path flinkLib;
    private final String appClasspath;
    private final int taskManagers;
    private final int slotsPerTaskManager;
    private final int restPort;
    private final Map<String, String> settings;
    private final ClusterRest rest;

    private FlinkLauncher flink;
    private Process broker;
    private String bootstrapServers;
    private TenantCredentials credentials;
    private Process jobManager;
    private final List<Process> taskManagerProcesses = new ArrayList<>();

    private LocalCluster(Builder b) {
        this.home = b.home.toAbsolutePath().normalize();
        this.flinkLib = b.flinkLib.toAbsolutePath().normalize();
        this.appClasspath = b.appClasspath;
        this.taskManagers = b.taskManagers;
        this.slotsPerTaskManager = b.slotsPerTaskManager;
        this.restPort = b.restPort;
        this.settings = b.settings;
        this.rest = new ClusterRest(restUrl(), home.resolve("savepoints"));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Starts the broker, the JobManager and the TaskManagers, and waits until all registered. */
    public void start() throws IOException, InterruptedException {
        for (String folder : List.of("log", "conf", "plugins")) { // Flink WARNs of no plugins/
            Files.createDirectories(home.resolve(folder));
        }
        writeConfiguration();
        flink =
                new FlinkLauncher(
                        home.resolve("conf"),
                        home.resolve("log"),
                        home.resolve("plugins"),
                        ClusterLib.classpath(flinkLib));
        List<String> brokerArgs =
                new java.util.ArrayList<>(
                        List.of(
                                "broker",
                                "--data",
                                home.resolve("kafka").toString(),
                                "--partitions",
                                Integer.toString(taskManagers * slotsPerTaskManager)));
        // the job's settings: SCRAM and ACLs when it verifies tenants, made from its registry
        // for its topics and reply allow-list
        settings.forEach(
                (key, value) -> {
                    if (key.startsWith("zerolayer.")) {
                        brokerArgs.add("-D" + key + "=" + value);
                    }
                });
        broker =
                flink.launch(
                        "broker",
                        null,
                        appClasspath,
                        List.of("-Xmx1g"),
                        "io.zerolayer.cli.ZeroLayerCli",
                        brokerArgs);
        bootstrapServers = awaitLine("broker", BOOTSTRAP, Duration.ofSeconds(120));
        jobManager = flink.jobManager("jobmanager");
        for (int i = 0; i < taskManagers; i++) {
            startTaskManager();
        }
        rest.awaitTaskManagers(taskManagers, Duration.ofSeconds(120), home.resolve("log"));
    }

    /** Starts one more TaskManager process; it registers with the JobManager by itself. */
    public Process startTaskManager() throws IOException, InterruptedException {
        String name = taskManagerName(taskManagerProcesses.size());
        // its id in the Web UI and REST API is the name of its log
        Process tm = flink.taskManager(name, List.of("-D", "taskmanager.resource-id=" + name));
        taskManagerProcesses.add(tm);
        return tm;
    }

    /**
     * The name of TaskManager {@code index} (0-based, in start order): its resource id in the REST
     * API and the name of its log files, {@code taskmanager-1} for the first.
     */
    public static String taskManagerName(int index) {
        return "taskmanager-" + (index + 1);
    }

    /** Kills TaskManager {@code index} (0-based, in start order) with SIGKILL. */
    public void killTaskManager(int index) throws InterruptedException {
        Process tm = taskManagerProcesses.get(index);
        tm.destroyForcibly();
        tm.waitFor();
    }

    /** What the demo tenant signs with, once started; empty when requests are not verified. */
    public Optional<TenantCredentials> credentials() {
        return Optional.ofNullable(credentials);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Where the broker's sync wrote {@code principal}'s Kafka client settings. */
    public Path kafkaSettingsFile(String principal) {
        return EmbeddedPipeline.credentialsFile(home.resolve("kafka"), principal).toAbsolutePath();
    }

    /** {@code principal}'s Kafka client settings; none on a plaintext broker. */
    public Map<String, String> kafkaSettings(String principal) {
        Path file = kafkaSettingsFile(principal);
        return Files.exists(file) ? ClientSettingsFile.read(file) : Map.of();
    }

    /** The broker's super user: its admin listener on a SCRAM broker, else the servers. */
    public KafkaConnection adminConnection() {
        return EmbeddedKafkaBroker.adminConnection(home.resolve("kafka"))
                .orElse(KafkaConnection.plaintext(bootstrapServers));
    }

    /**
     * Writes where each process of this cluster runs ({@code <home>/cluster.properties}), so a
     * later command can stop the cluster or kill one of its TaskManagers.
     */
    public Path writeState() throws IOException {
        java.util.Properties state = new java.util.Properties();
        state.setProperty("rest-url", restUrl().toString());
        state.setProperty("bootstrap-servers", bootstrapServers);
        state.setProperty("broker.pid", Long.toString(broker.pid()));
        state.setProperty("jobmanager.pid", Long.toString(jobManager.pid()));
        for (int i = 0; i < taskManagerProcesses.size(); i++) {
            state.setProperty(
                    "taskmanager." + (i + 1) + ".pid",
                    Long.toString(taskManagerProcesses.get(i).pid()));
        }
        Path file = home.resolve(STATE_FILE);
        try (var out = Files.newOutputStream(file)) {
            state.store(out, "zerolayer cluster up");
        }
        return file;
    }

    /** The file {@link #writeState} writes in the cluster's home. */
    public static final String STATE_FILE = "cluster.properties";

    public Path home() {
        return home;
    }

    /** The cluster's REST API: submit jobs, watch them, stop them with a savepoint. */
    public ClusterRest rest() {
        return rest;
    }

    public URI restUrl() {
        return URI.create("http://localhost:" + restPort + "/");
    }

    @Override
    public void close() {
        List<Process> all = new ArrayList<>(taskManagerProcesses);
        all.add(jobManager);
        all.add(broker);
        FlinkLauncher.stop(all);
    }

    // ---- processes ----

    private void writeConfiguration() throws IOException {
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("jobmanager.rpc.address", "localhost");
        conf.put("jobmanager.rpc.port", Integer.toString(freePort()));
        conf.put("jobmanager.bind-host", "localhost");
        conf.put("jobmanager.memory.process.size", "1024m");
        conf.put("taskmanager.host", "localhost");
        conf.put("taskmanager.bind-host", "localhost");
        conf.put("taskmanager.numberOfTaskSlots", Integer.toString(slotsPerTaskManager));
        conf.put("taskmanager.memory.process.size", "2560m");
        conf.put("taskmanager.memory.managed.fraction", "0.05");
        conf.put("env.java.opts.all", String.join(" ", JVM_OPENS));
        conf.put("rest.address", "localhost");
        conf.put("rest.bind-address", "localhost");
        conf.put("rest.port", Integer.toString(restPort));
        conf.put("execution.checkpointing.dir", home.resolve("checkpoints").toUri().toString());
        conf.put(
                "execution.checkpointing.savepoint-dir",
                home.resolve("savepoints").toUri().toString());
        // ZeroLayer's native-code libraries are in lib/: load them from there, once per JVM
        conf.put("classloader.parent-first-patterns.additional", PARENT_FIRST_PATTERNS);
        // requests are verified as on any cluster: the demo tenant's key beside the cluster's data
        org.apache.flink.configuration.Configuration pipeline =
                org.apache.flink.configuration.Configuration.fromMap(settings);
        credentials = DemoTenant.prepare(pipeline, home).orElse(null);
        pipeline.getOptional(TenancyOptions.TENANTS_FILE)
                .ifPresent(file -> settings.put(TenancyOptions.TENANTS_FILE.key(), file));
        if (pipeline.get(TenancyOptions.AUTH_MODE) != AuthMode.NONE
                && !settings.containsKey(
                        io.zerolayer.jobs.KafkaOptions.CLIENT_SETTINGS_FILE.key())) {
            // the job signs in as its principal, with what the broker's sync wrote for it
            settings.put(
                    KafkaOptions.CLIENT_SETTINGS_FILE.key(),
                    kafkaSettingsFile(KafkaTenancy.JOB).toString());
        }
        conf.putAll(settings);
        StringBuilder yaml = new StringBuilder("# written by zerolayer's LocalCluster\n");
        conf.forEach(
                (k, v) -> yaml.append(k).append(": '").append(v.replace("'", "''")).append("'\n"));
        Files.writeString(home.resolve("conf/config.yaml"), yaml.toString());
        // its processes' own logging, then what docs/cluster.md adds to any cluster's
        Path log4jFile = home.resolve("conf/log4j.properties");
        try (var log4j = LocalCluster.class.getResourceAsStream("log4j.properties");
                var additions =
                        LocalCluster.class.getResourceAsStream("log4j-cluster.properties")) {
            Files.write(log4jFile, log4j.readAllBytes());
            Files.write(log4jFile, additions.readAllBytes(), StandardOpenOption.APPEND);
        }
    }

    /** A port nothing listens on now, for a process of a local cluster. */
    public static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private String awaitLine(String name, Pattern pattern, Duration timeout)
            throws IOException, InterruptedException {
        Path out = home.resolve("log/" + name + ".out");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(out)) {
                Matcher m = pattern.matcher(Files.readString(out));
                if (m.find()) {
                    return m.group(1);
                }
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(name + " did not come up; see " + out);
    }

    /**
     * Builder of {@link LocalCluster}; home, Flink's lib folder and the app classpath are needed.
     */
    public static final class Builder {
        private Path home;
        private Path flinkLib;
        private String appClasspath;
        private int taskManagers = 2;
        private int slotsPerTaskManager = 1;
        private int restPort = 8081;
        private final Map<String, String> settings = new LinkedHashMap<>();

        /** Where configuration, logs, checkpoints and the broker's data go. */
        public Builder home(Path home) {
            this.home = Objects.requireNonNull(home);
            return this;
        }

        /** The lib folder of Flink and ZeroLayer's natives ({@code flink-lib/target/lib}). */
        public Builder flinkLib(Path flinkLib) {
            this.flinkLib = Objects.requireNonNull(flinkLib);
            return this;
        }

        /** The classpath the broker process runs ZeroLayer's CLI on. */
        public Builder appClasspath(String appClasspath) {
            this.appClasspath = Objects.requireNonNull(appClasspath);
            return this;
        }

        public Builder taskManagers(int taskManagers) {
            this.taskManagers = taskManagers;
            return this;
        }

        public Builder slotsPerTaskManager(int slots) {
            this.slotsPerTaskManager = slots;
            return this;
        }

        public Builder restPort(int restPort) {
            this.restPort = restPort;
            return this;
        }

        /**
         * The settings of a loaded configuration that concern a cluster rather than one client:
         * {@code zerolayer.*}, metrics, execution (checkpoints), heartbeats, restarts and slot
         * placement.
         */
        public Builder settingsFrom(org.apache.flink.configuration.Configuration conf) {
            conf.toMap()
                    .forEach(
                            (k, v) -> {
                                if (CLUSTER_PREFIXES.stream().anyMatch(k::startsWith)) {
                                    setting(k, v);
                                }
                            });
            return this;
        }

        /** A setting of the cluster's config.yaml (zerolayer.* ones included). */
        public Builder setting(String key, String value) {
            settings.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        public LocalCluster build() {
            Objects.requireNonNull(home, "set home(): where the cluster's files go");
            Objects.requireNonNull(flinkLib, "set flinkLib(): flink-lib/target/lib");
            Objects.requireNonNull(appClasspath, "set appClasspath(): the CLI's classpath");
            if (!Files.isDirectory(flinkLib)) {
                throw new IllegalArgumentException(
                        "No Flink lib folder at "
                                + flinkLib
                                + "; build it with mvn -B package -DskipTests -pl flink-lib");
            }
            return new LocalCluster(this);
        }
    }
}
