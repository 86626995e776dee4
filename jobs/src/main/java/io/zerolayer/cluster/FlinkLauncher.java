package io.zerolayer.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;

/**
 * Flink's processes started as its {@code bin/} scripts start them ({@code jobmanager.sh}, {@code
 * taskmanager.sh}, {@code flink}), for a machine without Flink's binary distribution: the memory
 * and JVM options Flink's own {@code BashJavaUtils} computes from the folder's {@code config.yaml},
 * that file's {@code env.java.*} options, one log file per process, {@code FLINK_CONF_DIR} and
 * {@code FLINK_PLUGINS_DIR} in its environment.
 */
public final class FlinkLauncher {
    private static final String BASH_RESULT = "BASH_JAVA_UTILS_EXEC_RESULT:";

    private final Path confDir;
    private final Path logDir;
    private final Path pluginsDir;
    private final String classpath;

    /**
     * @param confDir the folder of {@code config.yaml} and {@code log4j.properties}
     * @param logDir where each process writes {@code <name>.log} and its output, {@code <name>.out}
     * @param pluginsDir Flink's {@code plugins/} folder
     * @param classpath the JobManager's and TaskManagers' class path ({@link #libClasspath})
     */
    public FlinkLauncher(Path confDir, Path logDir, Path pluginsDir, String classpath) {
        this.confDir = confDir.toAbsolutePath().normalize();
        this.logDir = logDir.toAbsolutePath().normalize();
        this.pluginsDir = pluginsDir.toAbsolutePath().normalize();
        this.classpath = classpath;
    }

    /** The class path Flink's scripts build from a {@code lib/} folder: its jars, sorted. */
    public static String libClasspath(Path lib) {
        try (Stream<Path> files = Files.list(lib)) {
            return String.join(
                    File.pathSeparator,
                    files.filter(f -> f.getFileName().toString().endsWith(".jar"))
                            .map(f -> f.toAbsolutePath().normalize().toString())
                            .sorted()
                            .toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A JobManager of a session cluster ({@code jobmanager.sh start}), logging as {@code name}. */
    public Process jobManager(String name) throws IOException, InterruptedException {
        return daemon(
                name,
                "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                "GET_JM_RESOURCE_PARAMS",
                "env.java.opts.jobmanager",
                List.of());
    }

    /**
     * A TaskManager ({@code taskmanager.sh start}), logging as {@code name}; it registers with the
     * JobManager by itself.
     *
     * @param dynamic {@code -D key=value} settings of this TaskManager only
     */
    public Process taskManager(String name, List<String> dynamic)
            throws IOException, InterruptedException {
        return daemon(
                name,
                "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                "GET_TM_RESOURCE_PARAMS",
                "env.java.opts.taskmanager",
                dynamic);
    }

    /**
     * Flink's command line client ({@code bin/flink ARGS}) in {@code workingDir}, its output in
     * {@code <name>.out} of the log folder.
     */
    public Process client(String name, Path workingDir, List<String> args) throws IOException {
        List<String> jvm = javaOptions("env.java.opts.client");
        jvm.addAll(logOptions(name));
        return launch(
                name, workingDir, classpath, jvm, "org.apache.flink.client.cli.CliFrontend", args);
    }

    /** What {@link #client} printed, once it exited with 0; else the output in the exception. */
    public String runClient(String name, Path workingDir, List<String> args)
            throws IOException, InterruptedException {
        Process p = client(name, workingDir, args);
        int code = p.waitFor();
        String out = Files.readString(logDir.resolve(name + ".out"));
        if (code != 0) {
            throw new IllegalStateException(
                    "flink " + String.join(" ", args) + " exited with " + code + ":\n" + out);
        }
        return out;
    }

    private Process daemon(
            String name,
            String mainClass,
            String resourceQuery,
            String roleOptions,
            List<String> dynamic)
            throws IOException, InterruptedException {
        List<String> resources = resourceParams(resourceQuery);
        List<String> jvm = new ArrayList<>(List.of(resources.get(0).trim().split("\\s+")));
        jvm.addAll(javaOptions(roleOptions));
        jvm.addAll(logOptions(name));
        List<String> args = new ArrayList<>(List.of("--configDir", confDir.toString()));
        args.addAll(List.of(resources.get(1).trim().split("\\s+")));
        args.addAll(dynamic);
        return launch(name, null, classpath, jvm, mainClass, args);
    }

    /** {@code env.java.default-opts.all}, {@code env.java.opts.all}, then the role's own. */
    private List<String> javaOptions(String roleOptions) {
        Configuration conf = GlobalConfiguration.loadConfiguration(confDir.toString());
        List<String> options = new ArrayList<>();
        for (String key : List.of("env.java.default-opts.all", "env.java.opts.all", roleOptions)) {
            conf.getOptional(
                            org.apache.flink.configuration.ConfigOptions.key(key)
                                    .stringType()
                                    .noDefaultValue())
                    .filter(v -> !v.isBlank())
                    .ifPresent(v -> options.addAll(List.of(v.trim().split("\\s+"))));
        }
        return options;
    }

    private List<String> logOptions(String name) {
        return List.of(
                "-Dlog.file=" + logDir.resolve(name + ".log"),
                "-Dlog4j.configurationFile=" + confDir.resolve("log4j.properties").toUri());
    }

    /** The JVM options and dynamic settings Flink's start scripts compute for a process. */
    private List<String> resourceParams(String query) throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder(
                                java(),
                                "-cp",
                                classpath,
                                "org.apache.flink.runtime.util.bash.BashJavaUtils",
                                query,
                                "--configDir",
                                confDir.toString())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        List<String> results = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.startsWith(BASH_RESULT)) {
                results.add(line.substring(BASH_RESULT.length()));
            }
        }
        if (results.size() < 2) {
            throw new IllegalStateException("Flink's BashJavaUtils " + query + " said: " + out);
        }
        return results;
    }

    /**
     * Starts {@code mainClass} in a JVM of its own, its output in {@code <name>.out} of the log
     * folder, in {@code workingDir} (null: this process's).
     */
    Process launch(
            String name,
            Path workingDir,
            String processClasspath,
            List<String> jvm,
            String mainClass,
            List<String> args)
            throws IOException {
        Files.createDirectories(logDir);
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(jvm);
        command.add("-cp");
        command.add(processClasspath);
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder pb =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(logDir.resolve(name + ".out").toFile());
        if (workingDir != null) {
            pb.directory(workingDir.toFile());
        }
        pb.environment().put("FLINK_CONF_DIR", confDir.toString());
        pb.environment().put("FLINK_PLUGINS_DIR", pluginsDir.toString());
        return pb.start();
    }

    /**
     * Stops {@code processes} (nulls skipped) as {@code stop-cluster.sh} does: SIGTERM to all, then
     * SIGKILL to any still running after 30 s.
     */
    public static void stop(List<Process> processes) {
        List<Process> started = processes.stream().filter(p -> p != null).toList();
        started.forEach(Process::destroy);
        for (Process p : started) {
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

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
