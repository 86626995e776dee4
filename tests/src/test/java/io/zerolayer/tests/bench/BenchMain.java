package io.zerolayer.tests.bench;

import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/** Runs the JMH benchmarks and prints each prompt size's time and throughput. */
public final class BenchMain {
    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        var results =
                new Runner(
                                new OptionsBuilder()
                                        .include(ClassifyBenchmark.class.getSimpleName())
                                        .build())
                        .run();
        System.out.println();
        System.out.println("classify + type-check + graph id:");
        for (RunResult r : results) {
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
            double error = r.getPrimaryResult().getScoreError();
            System.out.printf(
                    Locale.ROOT,
                    "  %-6s %,12d bytes  %,14.1f ± %,.1f µs  %8.1f MB/s%n",
                    size,
                    bytes,
                    micros,
                    error,
                    bytes / micros);
        }
    }
}
