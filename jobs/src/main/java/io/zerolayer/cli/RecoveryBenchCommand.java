package io.zerolayer.cli;

import io.zerolayer.bench.RecoveryBench;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer bench recovery}: the time a TaskManager crash costs the people waiting for
 * replies, on a local multi-process cluster ({@link RecoveryBench}).
 */
@Command(
        name = "recovery",
        mixinStandardHelpOptions = true,
        description = {
            "Run the job saturated on a local multi-process cluster, kill a TaskManager with"
                    + " SIGKILL, and measure the time to the JobManager noticing, to the first"
                    + " reply after recovery and to full throughput again.",
            "Prints a Markdown report and writes it to bench-results/latest-recovery.md, the"
                    + " figures as JSON beside it. Run from the repository root after mvn -B"
                    + " package -DskipTests."
        })
final class RecoveryBenchCommand implements Callable<Integer> {
    @Mixin ClusterShape cluster;

    @Option(
            names = "--in-flight",
            defaultValue = "200",
            description =
                    "Requests in flight (closed loop), enough to keep every slot busy through"
                            + " checkpoint waits. Default: ${DEFAULT-VALUE}.")
    int inFlight;

    @Option(
            names = "--warmup",
            defaultValue = "20s",
            description = "Load before the measurement starts. Default: ${DEFAULT-VALUE}.")
    String warmup;

    @Option(
            names = "--before",
            defaultValue = "20s",
            description = "Measured load before the kill. Default: ${DEFAULT-VALUE}.")
    String before;

    @Option(
            names = "--after",
            defaultValue = "60s",
            description = "Load after the kill. Default: ${DEFAULT-VALUE}.")
    String after;

    @Option(
            names = "--replace",
            description =
                    "Start a new TaskManager right after the kill, as Kubernetes would restart"
                            + " the pod; by default the job recovers on the others' slots.")
    boolean replace;

    @Option(names = "--seed", defaultValue = "42", description = "Workload seed.")
    long seed;

    @Mixin BenchResultsFolder results;

    @Mixin PipelineSettings settings;

    @Override
    public Integer call() throws Exception {
        ClusterShape.requireBuild();
        if (cluster.slots * (cluster.taskManagers - 1) < cluster.parallelism() && !replace) {
            throw new IllegalArgumentException(
                    "After one TaskManager is killed the others have too few slots for the job;"
                            + " add --replace, more --slots or fewer --parallelism");
        }
        Path home = Files.createTempDirectory("zerolayer-recovery-");
        RecoveryBench.Options o =
                new RecoveryBench.Options(
                        home,
                        ClusterShape.FLINK_LIB,
                        ClusterShape.JOB_JAR,
                        System.getProperty("java.class.path"),
                        settings.load(),
                        cluster.taskManagers,
                        cluster.slots,
                        cluster.parallelism(),
                        inFlight,
                        duration(warmup),
                        duration(before),
                        duration(after),
                        replace,
                        seed,
                        results.out);
        RecoveryBench.Result result = RecoveryBench.run(o);
        System.out.println();
        System.out.println(RecoveryBench.markdown(result, o));
        Path json = RecoveryBench.write(result, o);
        System.out.println(
                "Figures: " + json + " and " + results.out.resolve("latest-recovery.md"));
        // the broker's data and the checkpoints are only of use to this run; the logs are kept
        for (String scratch : java.util.List.of("kafka", "checkpoints", "savepoints")) {
            org.apache.flink.util.FileUtils.deleteDirectoryQuietly(home.resolve(scratch).toFile());
        }
        System.out.println("Logs of the cluster: " + home.resolve("log"));
        return result.lost() == 0 ? 0 : 1;
    }

    private static Duration duration(String text) {
        return TimeUtils.parseDuration(text);
    }
}
