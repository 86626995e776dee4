package io.zerolayer.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Options of the commands that start a local multi-process cluster ({@code cluster up}, {@code
 * bench recovery}): its TaskManagers, their slots and the job's parallelism, and where the build
 * put what the cluster runs.
 */
final class ClusterShape {
    /** Flink's jars and ZeroLayer's natives, assembled by the flink-lib module. */
    static final Path FLINK_LIB = Path.of("flink-lib", "target", "lib");

    /** The job jar submitted to the cluster. */
    static final Path JOB_JAR = Path.of("jobs", "target", "zerolayer-flink.jar");

    @Option(
            names = "--task-managers",
            defaultValue = "2",
            description = "TaskManager processes. Default: ${DEFAULT-VALUE}.")
    int taskManagers;

    @Option(
            names = "--slots",
            defaultValue = "2",
            description = "Slots per TaskManager. Default: ${DEFAULT-VALUE}.")
    int slots;

    @Option(
            names = "--parallelism",
            description =
                    "The job's parallelism. Default: the TaskManager count, so that the job"
                            + " finds slots on the others when one is killed.")
    Integer parallelism;

    int parallelism() {
        return parallelism != null ? parallelism : taskManagers;
    }

    /** Fails with what to do when the build outputs the cluster runs are missing. */
    static void requireBuild() {
        if (!Files.isDirectory(FLINK_LIB) || !Files.exists(JOB_JAR)) {
            throw new IllegalArgumentException(
                    "Run from the repository root after mvn -B package -DskipTests (needs "
                            + FLINK_LIB
                            + " and "
                            + JOB_JAR
                            + ")");
        }
    }
}
