package io.zerolayer.tests.bench;

import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the JMH benchmarks and prints a summary: graph work per request, and classify throughput.
 */
public final class BenchMain {
    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        var results =
                new Runner(
                                new OptionsBuilder()
                                        .include(ClassifyBenchmark.class.getSimpleName())
                                        .include(CompileBenchmark.class.getSimpleName())
                                        .include(BatchingBenchmark.class.getSimpleName())
                                        .include(AuthenticationBenchmark.class.getSimpleName())
                                        .include(Int8QuantisationBenchmark.class.getSimpleName())
                                        .build())
                        .run();
        System.out.println();
        System.out.println("warm graphs (executor, per request):");
        for (RunResult r : results) {
            String benchmark = r.getParams().getBenchmark();
            if (benchmark.contains("CompileBenchmark")) {
                System.out.printf(
                        Locale.ROOT,
                        "  %-18s %,12.3f ± %,.3f %s%n",
                        benchmark.substring(benchmark.lastIndexOf('.') + 1),
                        r.getPrimaryResult().getScore(),
                        r.getPrimaryResult().getScoreError(),
                        r.getPrimaryResult().getScoreUnit());
            }
        }
        System.out.println("an int8 encoder run, per-tensor against per-row activation scales:");
        for (RunResult r : results) {
            if (r.getParams().getBenchmark().contains("Int8QuantisationBenchmark")) {
                System.out.printf(
                        Locale.ROOT,
                        "  %-24s %-10s batch %2s x %s tokens %,10.2f ± %,.2f %s%n",
                        r.getParams().getParam("tier"),
                        r.getParams().getParam("scales"),
                        r.getParams().getParam("batch"),
                        r.getParams().getParam("tokens"),
                        r.getPrimaryResult().getScore(),
                        r.getPrimaryResult().getScoreError(),
                        r.getPrimaryResult().getScoreUnit());
            }
        }
        System.out.println("a tenant's signature (ids the job keys by; HMAC check):");
        for (RunResult r : results) {
            String benchmark = r.getParams().getBenchmark();
            if (benchmark.contains("AuthenticationBenchmark")) {
                System.out.printf(
                        Locale.ROOT,
                        "  %-12s %-6s %,10.2f ± %,.2f %s%n",
                        benchmark.substring(benchmark.lastIndexOf('.') + 1),
                        r.getParams().getParam("size"),
                        r.getPrimaryResult().getScore(),
                        r.getPrimaryResult().getScoreError(),
                        r.getPrimaryResult().getScoreUnit());
            }
        }
        System.out.println("classify + type-check + graph id:");
        for (RunResult r : results) {
            if (!r.getParams().getBenchmark().contains("ClassifyBenchmark")) {
                continue;
            }
            String size = r.getParams().getParam("size");
            int bytes =
                    ClassifyBenchmark.prompt(
                                    switch (size) {
                                        case "1KB" -> 1 << 10;
                                        case "100KB" -> 100 << 10;
                                        default -> 10 << 20;
                                    })
                            .length();
            double micros = r.getPrimaryResult().getScore();
            System.out.printf(
                    Locale.ROOT,
                    "  %-6s %,12d bytes  %,14.1f ± %,.1f µs  %8.1f MB/s%n",
                    size,
                    bytes,
                    micros,
                    r.getPrimaryResult().getScoreError(),
                    bytes / micros);
        }
        System.out.println(
                "micro-batches of tickets (one graph, 1 ONNX thread): requests/s by batch size");
        for (String precision : List.of("fp32", "int8")) {
            StringBuilder line = new StringBuilder("  " + precision + " ");
            double single = Double.NaN;
            for (RunResult r : results) {
                if (!r.getParams().getBenchmark().contains("BatchingBenchmark")
                        || !r.getParams().getParam("precision").equals(precision)) {
                    continue;
                }
                int batch = Integer.parseInt(r.getParams().getParam("batch"));
                double perSecond = batch / (r.getPrimaryResult().getScore() / 1e3);
                if (batch == 1) {
                    single = perSecond;
                }
                line.append(
                        String.format(
                                Locale.ROOT,
                                "  b=%d %.1f/s (%.2f×)",
                                batch,
                                perSecond,
                                perSecond / single));
            }
            System.out.println(line);
        }
        System.out.println(
                "queue delay at low load (one request every 30 ms, real executor operator):");
        for (QueueDelayBench.Result r : QueueDelayBench.run(40, 30, 8, 5)) {
            System.out.printf(
                    Locale.ROOT,
                    "  %-38s arrival → reply p50 %6.2f ms  p90 %6.2f ms%n",
                    r.label(),
                    r.p50Millis(),
                    r.p90Millis());
        }
    }
}
