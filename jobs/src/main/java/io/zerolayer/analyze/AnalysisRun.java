package io.zerolayer.analyze;

import io.zerolayer.jobs.BatchAnalysisJob;
import io.zerolayer.jobs.JobFunctions;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.DocumentAttributes;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.operators.replies.AnalysisEvent;
import io.zerolayer.schemas.KernelCostRecord;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * One {@code zerolayer analyze} run: finds and hashes the inputs, leaves out what a resumed run
 * already answered, runs {@link BatchAnalysisJob} and writes what it emits as it arrives — one
 * result row per document to {@code out}, every kernel cost record to {@code costs} — with a
 * progress line on a terminal and an {@link AnalysisSummary} at the end.
 *
 * <pre>{@code
 * AnalysisSummary s =
 *         AnalysisRun.builder()
 *                 .setInputs(List.of(Path.of("papers")))
 *                 .setTask(AnalysisTask.builder("summarize").build())
 *                 .setOut(Path.of("results.jsonl"))
 *                 .build()
 *                 .run(StreamExecutionEnvironment.getExecutionEnvironment(conf), conf);
 * }</pre>
 */
public final class AnalysisRun {
    private final List<Path> inputs;
    private final AnalysisTask task;
    private final Path out;
    private final Path costs;
    private final boolean resume;
    private final String tenant;
    private final Path baseDir;
    private final PrintStream progressOut;
    private final boolean progress;

    private AnalysisRun(Builder b) {
        this.inputs = List.copyOf(b.inputs);
        this.task = b.task;
        this.out = b.out;
        this.costs = b.costs;
        this.resume = b.resume;
        this.tenant = b.tenant;
        this.baseDir = b.baseDir;
        this.progressOut = b.progressOut;
        this.progress = b.progress;
    }

    public static Builder builder() {
        return new Builder();
    }

    public AnalysisSummary run(StreamExecutionEnvironment env, Configuration conf)
            throws Exception {
        TaskContracts contracts = JobFunctions.contracts(conf);
        if (task.task() != null && contracts.task(task.task()) == null) {
            throw new IllegalArgumentException(
                    "Unknown task '"
                            + task.task()
                            + "'; the contracts define "
                            + String.join(", ", new java.util.TreeSet<>(contracts.taskNames())));
        }
        long start = System.nanoTime();
        AnalysisInputs found = AnalysisInputs.scan(inputs, baseDir);
        if (task.task() == null) {
            for (AnalysisInputs.InputFile f : found.files()) {
                DocumentFormat format = DocumentFormat.of(f.path()).orElse(null);
                if (format != DocumentFormat.JSONL && format != DocumentFormat.PROMPT) {
                    throw new IllegalArgumentException(
                            f.path()
                                    + " is a document, which names no task: give --task (only"
                                    + " .jsonl and .prompt files carry their own prompts)");
                }
            }
        }
        java.util.Map<String, String> current = new java.util.HashMap<>();
        found.files().forEach(f -> current.put(f.path(), f.sha256()));
        Set<String> done = resume ? ResultsFile.keepFinalRows(out, current) : Set.of();
        AnalysisSummary summary = new AnalysisSummary();
        summary.ignoredFiles = found.skipped();
        List<org.apache.flink.core.fs.Path> files = new ArrayList<>();
        List<AnalysisInputs.InputFile> running = new ArrayList<>();
        int units = 0;
        for (AnalysisInputs.InputFile f : found.files()) {
            int doneUnits = doneUnits(f, done);
            summary.skipped += doneUnits;
            if (doneUnits < f.units()) {
                files.add(org.apache.flink.core.fs.Path.fromLocalFile(f.file().toFile()));
                running.add(f);
                units += f.units() - doneUnits;
            }
        }
        if (files.isEmpty()) {
            if (found.files().isEmpty()) {
                throw new IllegalArgumentException(
                        "No files to analyse in "
                                + inputs
                                + "; analyze reads "
                                + DocumentFormat.extensions());
            }
            summary.nanos = System.nanoTime() - start;
            return summary;
        }
        DocumentRows rows =
                new DocumentRows(
                        contracts,
                        task.outputFormat(),
                        task.sentences() == null ? 0 : task.sentences());
        ProgressLine line = new ProgressLine(progressOut, progress, units);
        Set<String> answered = new java.util.HashSet<>(); // paths with a row from this run
        try (ResultsFile results = resume ? ResultsFile.append(out) : ResultsFile.create(out);
                ResultsFile costFile =
                        costs == null
                                ? null
                                : resume ? ResultsFile.append(costs) : ResultsFile.create(costs);
                CloseableIterator<AnalysisEvent> events =
                        BatchAnalysisJob.builder()
                                .setFiles(files)
                                .setTask(task)
                                .setTenant(tenant)
                                .setBaseDir(baseDir.toAbsolutePath().toString())
                                .setDone(done)
                                .build()
                                .define(env, conf)
                                .executeAndCollect(BatchAnalysisJob.JOB_NAME)) {
            while (events.hasNext()) {
                AnalysisEvent e = events.next();
                if (e.cost != null) {
                    cost(e.cost, summary, line, costFile);
                } else if (e.response != null) {
                    var row = rows.add(e.response);
                    if (row != null) {
                        answered.add(row.path("path").asText());
                        results.write(row.toString());
                        summary.row(row.path("status").asText());
                        line.documentDone();
                    }
                } else {
                    var row = DocumentRows.errorRow(e);
                    answered.add(e.path);
                    results.write(row.toString());
                    summary.row("ERROR");
                    line.documentDone();
                }
            }
        } finally {
            line.finish();
        }
        if (rows.pending() > 0) {
            throw new IllegalStateException(
                    rows.pending() + " split documents are missing parts: the job lost responses");
        }
        // every file that ran must have rows: a job that ends early must not look like success
        List<String> missing = new ArrayList<>();
        for (AnalysisInputs.InputFile f : running) {
            if (!answered.contains(f.path())) {
                missing.add(f.path());
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException(
                    "The job ended without answering "
                            + missing.size()
                            + " files (first: "
                            + missing.get(0)
                            + "); run again with --resume to finish them");
        }
        summary.nanos = System.nanoTime() - start;
        return summary;
    }

    private static void cost(
            KernelCostRecord r, AnalysisSummary summary, ProgressLine line, ResultsFile file)
            throws java.io.IOException {
        summary.costRecords++;
        long nanoUsd =
                orZero(r.getComputeNanoUsd())
                        + orZero(r.getMemoryNanoUsd())
                        + orZero(r.getPcieNanoUsd())
                        + r.getDeviceTimeNanoUsd();
        summary.nanoUsdByKernel.merge(r.getKernel(), nanoUsd, Long::sum);
        if (r.getKernel().equals("tokenize") && r.getTokens() != null) {
            summary.tokens += r.getTokens();
            line.tokens(r.getTokens());
        }
        if (file != null) {
            file.write(r.toString().replace('\n', ' ')); // Avro prints a record as JSON
        }
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    /** Units of {@code f} a previous run answered with a final row. */
    private static int doneUnits(AnalysisInputs.InputFile f, Set<String> done) {
        if (done.isEmpty()) {
            return 0;
        }
        if (done.contains(DocumentAttributes.unitKey(f.path(), f.sha256(), 0))) {
            return f.units();
        }
        String prefix = f.path() + "\n" + f.sha256() + "\n";
        return (int) done.stream().filter(k -> k.startsWith(prefix)).count();
    }

    /** Builds an {@link AnalysisRun}; {@link #build()} says what is missing. */
    public static final class Builder {
        private List<Path> inputs = List.of();
        private AnalysisTask task;
        private Path out = Path.of("results.jsonl");
        private Path costs;
        private boolean resume;
        private String tenant = "batch";
        private Path baseDir = Path.of("");
        private PrintStream progressOut = System.err;
        private boolean progress;

        public Builder setInputs(List<Path> inputs) {
            this.inputs = Objects.requireNonNull(inputs, "inputs");
            return this;
        }

        public Builder setTask(AnalysisTask task) {
            this.task = Objects.requireNonNull(task, "task");
            return this;
        }

        /** Where result rows go (default results.jsonl). */
        public Builder setOut(Path out) {
            this.out = Objects.requireNonNull(out, "out");
            return this;
        }

        /** Where kernel cost records go, as JSON lines; null for nowhere. */
        public Builder setCosts(Path costs) {
            this.costs = costs;
            return this;
        }

        /** Keep the answered rows of {@code out} and skip their inputs. */
        public Builder setResume(boolean resume) {
            this.resume = resume;
            return this;
        }

        public Builder setTenant(String tenant) {
            this.tenant = Objects.requireNonNull(tenant, "tenant");
            return this;
        }

        /** Rows name files relative to this folder (default: the working folder). */
        public Builder setBaseDir(Path baseDir) {
            this.baseDir = Objects.requireNonNull(baseDir, "baseDir");
            return this;
        }

        /** Draw a progress line on {@code out} (only sensible on a terminal). */
        public Builder setProgress(PrintStream out, boolean enabled) {
            this.progressOut = Objects.requireNonNull(out, "out");
            this.progress = enabled;
            return this;
        }

        public AnalysisRun build() {
            if (task == null) {
                throw new IllegalArgumentException("Set --task");
            }
            if (inputs.isEmpty()) {
                throw new IllegalArgumentException(
                        "Name the files or folders to analyse, e.g. zerolayer analyze papers/"
                                + " --task summarize");
            }
            if (costs != null && costs.toAbsolutePath().equals(out.toAbsolutePath())) {
                throw new IllegalArgumentException("--out and --costs must be different files");
            }
            return new AnalysisRun(this);
        }
    }
}
