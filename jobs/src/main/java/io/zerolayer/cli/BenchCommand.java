package io.zerolayer.cli;

import io.zerolayer.bench.ComparisonBench;
import io.zerolayer.bench.Workload;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.KafkaOptions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer bench}: the comparison of ZeroLayer with the hardware ceiling, a naive Flink job
 * and a runtime router on the same seeded request streams ({@link ComparisonBench}).
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        subcommands = {RecoveryBenchCommand.class, SqlBenchCommand.class},
        description = {
            "Compare zerolayer with bare ONNX Runtime (the ceiling), a naive per-record Flink job"
                    + " and a runtime router on the same seeded request streams: closed-loop"
                    + " maximum throughput, open-loop latency at fixed rates, parallelism 1 and"
                    + " 2, document sizes 1 KB → 1 MB.",
            "Prints Markdown tables and writes every figure as JSON to bench-results/."
        })
final class BenchCommand implements Callable<Integer> {
    @Option(names = "--seed", defaultValue = "42", description = "Workload seed.")
    long seed;

    @Option(
            names = {"-p", "--parallelism"},
            description = "Task slots of each system (and ceiling workers). Default: cores.")
    Integer parallelism;

    @Option(
            names = "--workloads",
            split = ",",
            defaultValue = "customer-service,unique,papers,contracts,mixed,labelled",
            description =
                    "Workloads measured closed-loop. labelled (the public corpora of zerolayer"
                            + " eval, each answer graded) needs their Debian packages and is left"
                            + " out, with a note, where they are missing. Default:"
                            + " ${DEFAULT-VALUE}.")
    List<String> workloads;

    @Option(
            names = "--open-loop",
            split = ",",
            defaultValue = "customer-service,mixed",
            description =
                    "Workloads also measured open-loop at --loads of each system's maximum."
                            + " Default: ${DEFAULT-VALUE}.")
    List<String> openLoop;

    @Option(
            names = "--loads",
            split = ",",
            defaultValue = "0.5,0.7",
            description = "Open-loop rates as shares of the maximum. Default: ${DEFAULT-VALUE}.")
    List<Double> loads;

    @Option(
            names = "--sizes",
            split = ",",
            defaultValue = "1024,10240,102400,1048576",
            description =
                    "Document sizes in characters (zerolayer and ceiling). Default:"
                            + " ${DEFAULT-VALUE}.")
    List<Integer> sizes;

    @Option(
            names = "--size-requests",
            split = ",",
            defaultValue = "80,30,6,1",
            description = "Documents sent at each size. Default: ${DEFAULT-VALUE}.")
    List<Integer> sizeRequests;

    @Option(
            names = "--systems",
            split = ",",
            defaultValue = "zerolayer,naive-flink,runtime-router",
            description =
                    "Systems measured against the ceiling. Default: ${DEFAULT-VALUE}. Fewer give"
                            + " a quicker answer to a question about one; the targets that"
                            + " compare with a missing system are left out.")
    List<String> systems;

    @Option(
            names = "--reply-delivery",
            split = ",",
            description =
                    "Reply modes the open loops run in, every system alike; the first is also the"
                            + " closed loops'. Default: zerolayer.replies.delivery-guarantee of the"
                            + " settings, then the other mode.")
    List<String> replyDelivery;

    @Option(names = "--no-scaling", description = "Skip the parallelism-1 runs.")
    boolean noScaling;

    @Option(
            names = "--warmup",
            defaultValue = "4s",
            description = "Warm-up before each closed-loop measurement. Default: ${DEFAULT-VALUE}.")
    String warmup;

    @Option(
            names = "--measure",
            defaultValue = "10s",
            description = "Each closed-loop measurement. Default: ${DEFAULT-VALUE}.")
    String measure;

    @Option(
            names = "--open-measure",
            defaultValue = "8s",
            description = "Each open-loop measurement. Default: ${DEFAULT-VALUE}.")
    String openMeasure;

    @Option(
            names = "--window",
            defaultValue = "128",
            description =
                    "Most requests in flight: of a closed loop, and of the document-size runs."
                            + " Default: ${DEFAULT-VALUE}.")
    int window;

    @Option(
            names = "--in-flight-seconds",
            defaultValue = "2",
            description =
                    "Closed loop: requests in flight per workload, as seconds of the ceiling's"
                            + " work (at least 2 a slot, at most --window). Default:"
                            + " ${DEFAULT-VALUE}.")
    double inFlightSeconds;

    @Option(
            names = "--checkpoint-interval",
            description =
                    "Checkpoint interval of every job (exactly-once replies become visible when"
                            + " their checkpoint commits). Default: zerolayer.checkpoint-interval"
                            + " of the settings (1 s in flink-conf/config.yaml).")
    String checkpointInterval;

    @Option(
            names = "--soak",
            description =
                    "Instead of the comparison: run zerolayer on the mixed workload at the first"
                            + " --loads share (use --loads 0.7) of its maximum for this long"
                            + " (e.g. 10m), sampling resident memory every 10 s.")
    String soak;

    @Option(
            names = "--worker-jvm-options",
            split = " ",
            defaultValue = "-XX:TieredStopAtLevel=1",
            description =
                    "JVM options added to every system's worker alike (space-separated). Default"
                            + " ${DEFAULT-VALUE}: the models run in native code, and C2's compile"
                            + " threads otherwise compete with the measured work on a small"
                            + " machine well into a run. Give \"\" to run with the JVM's default"
                            + " compilers.")
    List<String> workerJvmOptions;

    @Option(
            names = "--no-noisy-neighbour",
            description =
                    "Skip the noisy-neighbour phase (one tenant flooding zerolayer at"
                            + " --noisy-flood × its customer-service maximum beside one at"
                            + " 10 %%).")
    boolean noNoisyNeighbour;

    @Option(
            names = "--noisy-flood",
            defaultValue = "5",
            description =
                    "The flooding tenant's rate in the noisy-neighbour phase, as a multiple of"
                            + " zerolayer's customer-service maximum (its quota is half that"
                            + " maximum). Default: ${DEFAULT-VALUE}.")
    double noisyFlood;

    @Option(
            names = "--quick",
            description =
                    "A short run to try the command: 2 s warm-up, 4 s measurements, sizes 1 KB"
                            + " and 100 KB, no scaling.")
    boolean quick;

    @Mixin BenchResultsFolder results;

    @Mixin PipelineSettings settings;

    @Override
    public Integer call() throws Exception {
        int p = parallelism != null ? parallelism : Runtime.getRuntime().availableProcessors();
        List<Workload> closed = workloads.stream().map(Workload::byId).toList();
        if (closed.contains(Workload.LABELLED) && !Workload.labelledMissing().isEmpty()) {
            System.err.println(
                    "The labelled stream is left out: "
                            + String.join("; ", Workload.labelledMissing()));
            closed = closed.stream().filter(w -> w != Workload.LABELLED).toList();
        }
        // an open loop runs at a share of the closed loop's maximum: only workloads measured both
        // ways
        List<Workload> open =
                openLoop.stream().map(Workload::byId).filter(closed::contains).toList();
        if (sizeRequests.size() < sizes.size()) {
            throw new picocli.CommandLine.ParameterException(
                    new picocli.CommandLine(this), "--size-requests needs one count per size");
        }
        for (String system : systems) {
            if (!ComparisonBench.SYSTEMS.contains(system)) {
                throw new picocli.CommandLine.ParameterException(
                        new picocli.CommandLine(this),
                        "Unknown system '" + system + "'; known: " + ComparisonBench.SYSTEMS);
            }
        }
        double soakSeconds = soak == null ? 0 : seconds(soak);
        if (soakSeconds > 0) {
            closed = List.of(Workload.MIXED);
            open = List.of();
        }
        double warm = seconds(warmup);
        double meas = seconds(measure);
        double openMeas = seconds(openMeasure);
        List<Integer> sz = sizes;
        List<Integer> szCount = sizeRequests;
        boolean scaling = !noScaling;
        if (quick) {
            warm = 2;
            meas = 4;
            openMeas = 4;
            sz = Arrays.asList(1024, 102400);
            szCount = Arrays.asList(10, 2);
            scaling = false;
        }
        if (!(noisyFlood > 0)) {
            throw new IllegalArgumentException(
                    "--noisy-flood must be above 0, got "
                            + noisyFlood
                            + "; --no-noisy-neighbour skips the phase");
        }
        Configuration conf = settings.load();
        ComparisonBench.run(
                new ComparisonBench.Options(
                        seed,
                        p,
                        systems,
                        closed,
                        open,
                        loads,
                        sz,
                        szCount,
                        scaling,
                        warm,
                        meas,
                        openMeas,
                        window,
                        inFlightSeconds,
                        checkpointInterval != null
                                ? TimeUtils.parseDuration(checkpointInterval)
                                : conf.get(ExecutorOptions.CHECKPOINT_INTERVAL),
                        soakSeconds,
                        noNoisyNeighbour ? 0 : noisyFlood,
                        workerJvmOptions.stream().filter(a -> !a.isBlank()).toList(),
                        results.out,
                        conf,
                        deliveries(conf)));
        return 0;
    }

    /** The reply modes to measure: as given, else the settings' own first, then the other. */
    private List<io.zerolayer.jobs.ReplyDelivery> deliveries(Configuration conf) {
        if (replyDelivery != null && !replyDelivery.isEmpty()) {
            // read as the setting is, so the same words work here and in config.yaml
            return replyDelivery.stream()
                    .map(
                            mode ->
                                    Configuration.fromMap(
                                                    java.util.Map.of(
                                                            KafkaOptions.REPLY_DELIVERY.key(),
                                                            mode))
                                            .get(KafkaOptions.REPLY_DELIVERY))
                    .distinct()
                    .toList();
        }
        var first = conf.get(KafkaOptions.REPLY_DELIVERY);
        List<io.zerolayer.jobs.ReplyDelivery> all = new java.util.ArrayList<>(List.of(first));
        for (var d : io.zerolayer.jobs.ReplyDelivery.values()) {
            if (d != first) {
                all.add(d);
            }
        }
        return all;
    }

    private static double seconds(String duration) {
        Duration d = TimeUtils.parseDuration(duration);
        return d.toMillis() / 1000.0;
    }
}
