package io.zerolayer.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
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
 *     String job = cluster.submit(jar, List.of("run"), 2, null);
 * }
 * }</pre>
 */
public final class LocalCluster implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
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
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Process broker;
    private String bootstrapServers;
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
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Starts the broker, the JobManager and the TaskManagers, and waits until all registered. */
    public void start() throws IOException, InterruptedException {
        Files.createDirectories(home.resolve("log"));
        writeConfiguration();
        broker =
                launch(
                        "broker",
                        appClasspath,
                        List.of("-Xmx1g"),
                        "io.zerolayer.cli.ZeroLayerCli",
                        List.of(
                                "broker",
                                "--data",
                                home.resolve("kafka").toString(),
                                "--partitions",
                                Integer.toString(taskManagers * slotsPerTaskManager)));
        bootstrapServers = awaitLine("broker", BOOTSTRAP, Duration.ofSeconds(120));
        jobManager =
                flinkProcess(
                        "jobmanager",
                        "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                        "GET_JM_RESOURCE_PARAMS",
                        List.of());
        for (int i = 0; i < taskManagers; i++) {
            startTaskManager();
        }
        awaitTaskManagers(taskManagers, Duration.ofSeconds(120));
    }

    /** Starts one more TaskManager process; it registers with the JobManager by itself. */
    public Process startTaskManager() throws IOException, InterruptedException {
        String name = taskManagerName(taskManagerProcesses.size());
        Process tm =
                flinkProcess(
                        name,
                        "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                        "GET_TM_RESOURCE_PARAMS",
                        // its id in the Web UI and REST API is the name of its log
                        List.of("-D", "taskmanager.resource-id=" + name));
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

    /** Busy slots of each TaskManager by resource id, as the REST API reports them. */
    public Map<String, Integer> busySlots() throws IOException, InterruptedException {
        Map<String, Integer> busy = new java.util.TreeMap<>();
        for (JsonNode tm :
                send(HttpRequest.newBuilder(restUrl().resolve("taskmanagers")).build())
                        .path("taskmanagers")) {
            busy.put(
                    tm.path("id").asText(),
                    tm.path("slotsNumber").asInt() - tm.path("freeSlots").asInt());
        }
        return busy;
    }

    /**
     * When the JobManager recorded each failure of the job (epoch millis, oldest first), from the
     * REST API's exception history.
     */
    public List<Long> failureTimes(String jobId) throws IOException, InterruptedException {
        List<Long> times = new ArrayList<>();
        for (JsonNode e :
                send(HttpRequest.newBuilder(restUrl().resolve("jobs/" + jobId + "/exceptions"))
                                .build())
                        .path("exceptionHistory")
                        .path("entries")) {
            times.add(e.path("timestamp").asLong());
        }
        times.sort(null);
        return times;
    }

    /** Kills TaskManager {@code index} (0-based, in start order) with SIGKILL. */
    public void killTaskManager(int index) throws InterruptedException {
        Process tm = taskManagerProcesses.get(index);
        tm.destroyForcibly();
        tm.waitFor();
    }

    public String bootstrapServers() {
        return bootstrapServers;
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

    public URI restUrl() {
        return URI.create("http://localhost:" + restPort + "/");
    }

    /**
     * Uploads the job jar and runs it with these program arguments, as the Web UI does.
     *
     * @param savepoint a savepoint to start from, or null
     * @return the job id
     */
    public String submit(Path jar, List<String> programArgs, int parallelism, String savepoint)
            throws IOException, InterruptedException {
        String boundary = "zerolayer-" + UUID.randomUUID();
        byte[] head =
                ("--"
                                + boundary
                                + "\r\nContent-Disposition: form-data; name=\"jarfile\";"
                                + " filename=\""
                                + jar.getFileName()
                                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                        .getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        HttpRequest upload =
                HttpRequest.newBuilder(restUrl().resolve("jars/upload"))
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(
                                HttpRequest.BodyPublishers.concat(
                                        HttpRequest.BodyPublishers.ofByteArray(head),
                                        HttpRequest.BodyPublishers.ofFile(jar),
                                        HttpRequest.BodyPublishers.ofByteArray(tail)))
                        .build();
        JsonNode uploaded = send(upload);
        String file = uploaded.path("filename").asText();
        String jarId = Path.of(file).getFileName().toString();
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("entryClass", "io.zerolayer.cli.ZeroLayerCli");
        run.put("programArgsList", programArgs);
        run.put("parallelism", parallelism);
        if (savepoint != null) {
            run.put("savepointPath", savepoint);
        }
        JsonNode started =
                send(
                        HttpRequest.newBuilder(restUrl().resolve("jars/" + jarId + "/run"))
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                JSON.writeValueAsString(run)))
                                .build());
        return started.path("jobid").asText();
    }

    /** The job's state, e.g. RUNNING. */
    public String jobState(String jobId) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(restUrl().resolve("jobs/" + jobId)).build())
                .path("state")
                .asText();
    }

    /** Waits until every task of the job runs. */
    public void awaitRunning(String jobId, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode job = send(HttpRequest.newBuilder(restUrl().resolve("jobs/" + jobId)).build());
            boolean all = job.path("state").asText().equals("RUNNING");
            for (JsonNode v : job.path("vertices")) {
                all &= v.path("status").asText().equals("RUNNING");
            }
            if (all) {
                return;
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("Job " + jobId + " not running after " + timeout);
    }

    /** Stops the job with a savepoint and returns its path. */
    public String stopWithSavepoint(String jobId, Duration timeout)
            throws IOException, InterruptedException {
        JsonNode trigger =
                send(
                        HttpRequest.newBuilder(restUrl().resolve("jobs/" + jobId + "/stop"))
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"drain\":false,\"targetDirectory\":\""
                                                        + home.resolve("savepoints").toUri()
                                                        + "\"}"))
                                .build());
        String request = trigger.path("request-id").asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status =
                    send(
                            HttpRequest.newBuilder(
                                            restUrl()
                                                    .resolve(
                                                            "jobs/"
                                                                    + jobId
                                                                    + "/savepoints/"
                                                                    + request))
                                    .build());
            if (status.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode op = status.path("operation");
                if (op.has("failure-cause")) {
                    throw new IllegalStateException(
                            "Stop with savepoint failed: " + op.path("failure-cause"));
                }
                return op.path("location").asText();
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("No savepoint of " + jobId + " after " + timeout);
    }

    @Override
    public void close() {
        List<Process> all = new ArrayList<>(taskManagerProcesses);
        all.add(jobManager);
        all.add(broker);
        for (Process p : all) {
            if (p != null) {
                p.destroy();
            }
        }
        for (Process p : all) {
            if (p != null) {
                try {
                    if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    p.destroyForcibly();
                }
            }
        }
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
        conf.put("rest.address", "localhost");
        conf.put("rest.bind-address", "localhost");
        conf.put("rest.port", Integer.toString(restPort));
        conf.put("execution.checkpointing.dir", home.resolve("checkpoints").toUri().toString());
        conf.put(
                "execution.checkpointing.savepoint-dir",
                home.resolve("savepoints").toUri().toString());
        // ZeroLayer's native-code libraries are in lib/: load them from there, once per JVM
        conf.put("classloader.parent-first-patterns.additional", PARENT_FIRST_PATTERNS);
        conf.putAll(settings);
        StringBuilder yaml = new StringBuilder("# written by zerolayer's LocalCluster\n");
        conf.forEach(
                (k, v) -> yaml.append(k).append(": '").append(v.replace("'", "''")).append("'\n"));
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/config.yaml"), yaml.toString());
        Files.writeString(
                home.resolve("conf/log4j.properties"),
                """
                rootLogger.level = INFO
                rootLogger.appenderRef.file.ref = file
                appender.file.name = file
                appender.file.type = File
                appender.file.fileName = ${sys:log.file}
                appender.file.layout.type = PatternLayout
                appender.file.layout.pattern = %d{HH:mm:ss.SSS} %-5level %c{1} - %msg%n
                logger.kafka.name = org.apache.kafka
                logger.kafka.level = WARN
                """);
    }

    private Process flinkProcess(
            String name, String mainClass, String resourceQuery, List<String> dynamic)
            throws IOException, InterruptedException {
        List<String> resources = resourceParams(resourceQuery);
        List<String> jvm = new ArrayList<>(List.of(resources.get(0).trim().split("\\s+")));
        jvm.addAll(JVM_OPENS);
        jvm.add("-Dlog.file=" + home.resolve("log/" + name + ".log"));
        jvm.add("-Dlog4j.configurationFile=" + home.resolve("conf/log4j.properties").toUri());
        List<String> args =
                new ArrayList<>(List.of("--configDir", home.resolve("conf").toString()));
        args.addAll(List.of(resources.get(1).trim().split("\\s+")));
        args.addAll(dynamic);
        return launch(name, flinkLib + File.separator + "*", jvm, mainClass, args);
    }

    /** The JVM options and dynamic settings Flink's start scripts compute for a process. */
    private List<String> resourceParams(String query) throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder(
                                java(),
                                "-cp",
                                flinkLib + File.separator + "*",
                                "org.apache.flink.runtime.util.bash.BashJavaUtils",
                                query,
                                "--configDir",
                                home.resolve("conf").toString())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        List<String> results = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.startsWith("BASH_JAVA_UTILS_EXEC_RESULT:")) {
                results.add(line.substring("BASH_JAVA_UTILS_EXEC_RESULT:".length()));
            }
        }
        if (results.size() < 2) {
            throw new IllegalStateException("Flink's BashJavaUtils " + query + " said: " + out);
        }
        return results;
    }

    private Process launch(
            String name, String classpath, List<String> jvm, String mainClass, List<String> args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(jvm);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder pb =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(home.resolve("log/" + name + ".out").toFile());
        pb.environment().put("FLINK_CONF_DIR", home.resolve("conf").toString());
        return pb.start();
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
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

    private void awaitTaskManagers(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (send(HttpRequest.newBuilder(restUrl().resolve("overview")).build())
                                .path("taskmanagers")
                                .asInt()
                        >= count) {
                    return;
                }
            } catch (IOException notYet) {
                // the REST endpoint is not up yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException(
                count + " TaskManagers did not register; see " + home.resolve("log"));
    }

    private JsonNode send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException(
                    request.uri()
                            + " answered HTTP "
                            + response.statusCode()
                            + ": "
                            + response.body());
        }
        return JSON.readTree(response.body());
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
