package io.zerolayer.cli;

import io.zerolayer.analyze.AnalysisRun;
import io.zerolayer.analyze.AnalysisSummary;
import io.zerolayer.analyze.TaskExamples;
import io.zerolayer.jobs.AnalyzeOptions;
import io.zerolayer.operators.contracts.ContractException;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.quality.QualityFloor;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code zerolayer analyze}: batch document analysis over files, on the streaming job's classifier,
 * compiler and executor in Flink's BATCH mode (a local MiniCluster when run plainly, the cluster
 * under {@code flink run}).
 */
@Command(
        name = "analyze",
        mixinStandardHelpOptions = true,
        description = {
            "Analyse documents at rest: .txt, .md, .html, .pdf, .jsonl (a prompt a line) and"
                    + " .prompt files, one result row per document.",
            "Exit 0 when every document was answered, 1 when some were not (their rows say why),"
                    + " 2 on usage errors."
        })
final class AnalyzeCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Files and folders to read.")
    List<Path> paths;

    @Option(
            names = "--task",
            description =
                    "summarize, classify, answer, extract, embed (or a task of the contracts)."
                            + " Without it, each prompt of .jsonl and .prompt files runs the task"
                            + " its own <task:…> names; documents need it.")
    String task;

    @Option(
            names = "--quality",
            description =
                    "fast, balanced or best: the quality floor every request asks for (the"
                            + " tier the compiler may choose), never below the tenant's. Default:"
                            + " each task's own.")
    String quality;

    @Option(names = "--labels", description = "classify: the labels, e.g. \"billing, outage\".")
    String labels;

    @Option(
            names = "--examples",
            paramLabel = "FILE",
            description =
                    "classify: labelled examples, JSON lines {\"text\": …, \"label\": …}; the"
                            + " compiler fits the task's head on them and the labels come from"
                            + " them (docs/prompts.md).")
    Path examples;

    @Option(names = "--question", description = "answer: the question.")
    String question;

    @Option(names = "--fields", description = "extract: the fields, e.g. \"party, due date\".")
    String fields;

    @Option(names = "--sentences", description = "summarize: sentences in each summary.")
    Integer sentences;

    @Option(
            names = "--output-format",
            defaultValue = "json",
            description = "json or text. Default: ${DEFAULT-VALUE}.")
    String outputFormat;

    @Option(
            names = "--out",
            defaultValue = "results.jsonl",
            description = "Result rows, one JSON object a document. Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(
            names = "--costs",
            description =
                    "Kernel cost records as JSON lines (readable by zerolayer costs report"
                            + " --file).")
    Path costs;

    @Option(
            names = "--resume",
            description =
                    "Keep the answered rows of --out and skip their inputs (same path and content"
                            + " hash); inputs whose rows were errors run again.")
    boolean resume;

    @Option(
            names = {"-p", "--parallelism"},
            description =
                    "Parallel slots. Default: the machine's cores; under flink run, what the"
                            + " cluster gives the job (flink run -p, parallelism.default).")
    Integer parallelism;

    @Option(
            names = "--part-chars",
            description =
                    "Split documents with more text than this into parts at section boundaries"
                            + " (zerolayer.analyze.part-chars, default 40000).")
    Integer partChars;

    @Option(
            names = "--tenant",
            defaultValue = "batch",
            description = "Tenant the cost records bill. Default: ${DEFAULT-VALUE}.")
    String tenant;

    @Option(names = "--quiet", description = "No progress line, only the summary.")
    boolean quiet;

    @Mixin PipelineSettings settings;

    /**
     * The analysis's parallelism: {@code -p} when given; on a cluster, what the cluster gives the
     * job ({@code flink run -p}, else its parallelism.default); run locally, the machine's cores.
     */
    static int parallelism(Integer option, int environments, boolean onCluster) {
        if (option != null) {
            return option;
        }
        return onCluster ? environments : Runtime.getRuntime().availableProcessors();
    }

    /**
     * The task every document is asked, or each prompt's own where {@code --task} is absent.
     *
     * @throws IllegalArgumentException (a usage error) naming what is wrong with the options
     */
    AnalysisTask analysisTask() {
        String floor = quality == null ? null : QualityFloor.parse(quality).toString();
        if (task != null) {
            AnalysisTask.Builder builder =
                    AnalysisTask.builder(task)
                            .outputFormat(outputFormat)
                            .sentences(sentences)
                            .labels(labels)
                            .question(question)
                            .fields(fields)
                            .quality(floor);
            // with examples the labels are theirs: --labels, if given, only checks them
            return examples != null ? builder.labels(null).buildForContracts() : builder.build();
        }
        List<String> inputs = new java.util.ArrayList<>();
        if (labels != null) {
            inputs.add("--labels");
        }
        if (examples != null) {
            inputs.add("--examples");
        }
        if (question != null) {
            inputs.add("--question");
        }
        if (fields != null) {
            inputs.add("--fields");
        }
        if (sentences != null) {
            inputs.add("--sentences");
        }
        if (!inputs.isEmpty()) {
            throw new IllegalArgumentException(
                    String.join(", ", inputs)
                            + " belong to a task: give --task, or put them in each prompt");
        }
        return AnalysisTask.eachPromptsOwn(floor);
    }

    @Override
    public Integer call() throws Exception {
        Configuration conf = settings.load();
        if (partChars != null) {
            conf.set(AnalyzeOptions.ANALYZE_PART_CHARS, partChars);
        }
        AnalysisTask analysisTask = analysisTask();
        if (examples != null) {
            try {
                TaskExamples.teach(conf, task, labels, examples);
            } catch (ContractException e) {
                throw new IllegalArgumentException("--examples: " + e.getMessage(), e);
            }
        }
        boolean progress = !quiet && io.zerolayer.analyze.ProgressLine.onTerminal();
        if (progress) {
            // per-graph INFO lines would break the progress line; warnings still show
            org.apache.logging.log4j.core.config.Configurator.setLevel(
                    "io.zerolayer", org.apache.logging.log4j.Level.WARN);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        if ("local".equals(env.getConfiguration().get(DeploymentOptions.TARGET))
                && !conf.contains(JobManagerOptions.SCHEDULER)
                && !conf.contains(ExecutionOptions.BATCH_SHUFFLE_MODE)) {
            // On the local cluster, pipelined exchanges (which need the default scheduler) let
            // rows arrive, and the progress line move, as graphs finish; BATCH mode's blocking
            // exchanges would hold every row until the last graph ran. A cluster keeps its own.
            conf.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Default);
            conf.set(ExecutionOptions.BATCH_SHUFFLE_MODE, BatchShuffleMode.ALL_EXCHANGES_PIPELINED);
            env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        }
        env.setParallelism(
                parallelism(parallelism, env.getParallelism(), ZeroLayerCli.insideFlink()));
        AnalysisSummary summary =
                AnalysisRun.builder()
                        .setInputs(paths)
                        .setTask(analysisTask)
                        .setOut(out)
                        .setCosts(costs)
                        .setResume(resume)
                        .setTenant(tenant)
                        .setProgress(System.err, progress)
                        .build()
                        .run(env, conf);
        System.out.print(summary.render());
        System.out.println("results: " + out + (costs != null ? "  costs: " + costs : ""));
        return summary.allOk() ? 0 : 1;
    }
}
