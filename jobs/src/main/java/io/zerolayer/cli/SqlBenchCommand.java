package io.zerolayer.cli;

import io.zerolayer.bench.SqlBench;
import java.nio.file.Files;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer bench sql}: rows per second through Flink SQL's {@code ML_PREDICT} against the
 * streaming job, on the same documents ({@link SqlBench}).
 */
@Command(
        name = "sql",
        mixinStandardHelpOptions = true,
        description = {
            "Classify the same customer-service tickets with ML_PREDICT on a zerolayer model and"
                    + " with the streaming job on the embedded broker, both on a local Flink of"
                    + " the same parallelism, and print rows per second of each.",
            "Writes the figures to bench-results/latest-sql.md."
        })
final class SqlBenchCommand implements Callable<Integer> {
    @Option(
            names = "--rows",
            defaultValue = "2000",
            description = "Tickets measured. Default: ${DEFAULT-VALUE}.")
    int rows;

    @Option(
            names = "--warmup-rows",
            defaultValue = "200",
            description = "Other tickets each system answers first. Default: ${DEFAULT-VALUE}.")
    int warmup;

    @Option(
            names = {"-p", "--parallelism"},
            defaultValue = "2",
            description = "Parallelism of both. Default: ${DEFAULT-VALUE}.")
    int parallelism;

    @Option(
            names = "--in-flight",
            defaultValue = "" + SqlBench.IN_FLIGHT,
            description =
                    "Requests the streaming client keeps in flight, and rows ML_PREDICT keeps in"
                            + " flight over its subtasks. Default: ${DEFAULT-VALUE}.")
    int inFlight;

    @Option(names = "--seed", defaultValue = "42", description = "Ticket seed.")
    long seed;

    @Mixin BenchResultsFolder results;

    @Override
    public Integer call() throws Exception {
        List<SqlBench.Result> run =
                SqlBench.run(rows, warmup, parallelism, inFlight, seed, System.out);
        StringBuilder md = new StringBuilder();
        md.append("# ML_PREDICT against the streaming job\n\n")
                .append(
                        String.format(
                                Locale.ROOT,
                                "`zerolayer bench sql --rows %d --warmup-rows %d -p %d --in-flight"
                                        + " %d --seed %d`, %s, %d cores.%n%n",
                                rows,
                                warmup,
                                parallelism,
                                inFlight,
                                seed,
                                LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME),
                                Runtime.getRuntime().availableProcessors()))
                .append(
                        "| system | rows | OK | seconds | rows/s | submitted after, s | first"
                                + " answer after, s | first to last answer, rows/s |\n"
                                + "|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (SqlBench.Result r : run) {
            md.append(
                    String.format(
                            Locale.ROOT,
                            "| %s | %d | %d | %.2f | %.1f | %.2f | %.2f | %.1f |%n",
                            r.system(),
                            r.rows(),
                            r.ok(),
                            r.seconds(),
                            r.rowsPerSecond(),
                            r.submitSeconds(),
                            r.firstSeconds(),
                            r.steadyRowsPerSecond()));
        }
        Files.createDirectories(results.out);
        Files.writeString(results.out.resolve("latest-sql.md"), md.toString());
        System.out.println();
        System.out.print(md);
        System.out.println("Figures: " + results.out.resolve("latest-sql.md"));
        return run.stream().allMatch(r -> r.ok() == r.rows()) ? 0 : 1;
    }
}
