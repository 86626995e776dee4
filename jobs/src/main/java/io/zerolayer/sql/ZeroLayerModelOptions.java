package io.zerolayer.sql;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.zerolayer.operators.contracts.ContractException;
import io.zerolayer.operators.contracts.LabelledExamples;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.operators.execution.ComplianceMode;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;

/**
 * The options of {@code CREATE MODEL … WITH ('provider' = 'zerolayer', …)}: the task a model runs
 * on each row's document and its inputs, written as the head of each row's prompt exactly as {@code
 * zerolayer analyze} writes it, and type-checked by the task contracts at planning time.
 */
public final class ZeroLayerModelOptions {
    private ZeroLayerModelOptions() {}

    public static final ConfigOption<String> TASK =
            key("task")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "What the model does with each row's document: classify, answer,"
                                    + " summarize, extract or embed (a task of the contracts).");

    public static final ConfigOption<String> LABELS =
            key("labels")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("classify: the candidate labels, comma separated.");

    public static final ConfigOption<String> EXAMPLES =
            key("examples")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "classify: labelled examples, JSON lines {\"text\": …, \"label\":"
                                    + " …} (or a JSON array of them), inline; the compiler fits the"
                                    + " task's head on them and the labels come from them.");

    public static final ConfigOption<String> QUESTION =
            key("question")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("answer: the question each document should answer.");

    public static final ConfigOption<String> FIELDS =
            key("fields")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("extract: the fields to find, comma separated.");

    public static final ConfigOption<Integer> SENTENCES =
            key("sentences")
                    .intType()
                    .noDefaultValue()
                    .withDescription("summarize: how many sentences (the contracts' range).");

    public static final ConfigOption<String> QUALITY =
            key("quality")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "fast, balanced or best: the quality floor the encoder tier is"
                                    + " chosen for, as a request's quality attribute; default: the"
                                    + " task's.");

    public static final ConfigOption<String> COMPLIANCE =
            key("compliance")
                    .stringType()
                    .defaultValue("standard")
                    .withDescription(
                            "standard, audited or strict: as a request's compliance attribute"
                                    + " (strict: redaction and audit on every row, each row"
                                    + " alone).");

    public static final ConfigOption<String> TENANT =
            key("tenant")
                    .stringType()
                    .defaultValue("sql")
                    .withDescription("The tenant every row's cost records are billed to.");

    public static final ConfigOption<String> FORMAT =
            key("format")
                    .stringType()
                    .defaultValue("text")
                    .withDescription(
                            "How the input column's text is read: text, markdown or html"
                                    + " (sections from headings).");

    /** Every option a model takes besides {@code provider}. */
    static Set<ConfigOption<?>> all() {
        return Set.of(
                TASK,
                LABELS,
                EXAMPLES,
                QUESTION,
                FIELDS,
                SENTENCES,
                QUALITY,
                COMPLIANCE,
                TENANT,
                FORMAT);
    }

    /**
     * The task the options name, well formed; whether the contracts accept it is {@link #check}.
     */
    static AnalysisTask task(ReadableConfig options) {
        try {
            return AnalysisTask.builder(options.get(TASK))
                    .outputFormat("json")
                    // with examples the labels are theirs; 'labels' then only checks them
                    .labels(options.getOptional(EXAMPLES).isPresent() ? null : options.get(LABELS))
                    .question(options.get(QUESTION))
                    .fields(options.get(FIELDS))
                    .sentences(options.get(SENTENCES))
                    .buildForContracts();
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
    }

    /**
     * {@code contracts} with the model's task classifying by its {@code examples}, or as they are
     * without the option. The examples are inline text: a model's options never name a file, so no
     * SQL statement can make the cluster read one.
     *
     * @throws ValidationException naming the line of a bad example
     */
    static TaskContracts withExamples(
            String model, ReadableConfig options, TaskContracts contracts) {
        Optional<String> text = options.getOptional(EXAMPLES);
        if (text.isEmpty()) {
            return contracts;
        }
        try {
            return contracts.withExamples(
                    options.get(TASK),
                    LabelledExamples.parse(text.get(), declaredLabels(options), "'examples'"));
        } catch (ContractException e) {
            throw new ValidationException("Model " + model + ": option " + e.getMessage(), e);
        }
    }

    private static List<String> declaredLabels(ReadableConfig options) {
        return options.getOptional(LABELS)
                .map(io.zerolayer.operators.structure.DocumentContent::items)
                .orElse(null);
    }

    /** How the input column's text is read into a document's sections. */
    static DocumentFormat format(ReadableConfig options) {
        String format = options.get(FORMAT);
        for (DocumentFormat f :
                List.of(DocumentFormat.TEXT, DocumentFormat.MARKDOWN, DocumentFormat.HTML)) {
            if (f.promptFormat().equalsIgnoreCase(format)) {
                return f;
            }
        }
        throw new ValidationException(
                "Option 'format' is '" + format + "'; use text, markdown or html");
    }

    /** The attributes each row's request carries: its compliance level and quality floor. */
    static Map<String, String> attributes(ReadableConfig options) {
        String compliance = options.get(COMPLIANCE);
        Map<String, String> attributes = new java.util.LinkedHashMap<>();
        try {
            attributes.put("compliance", ComplianceMode.parse(compliance).toString());
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    "Option 'compliance' is '" + compliance + "': " + e.getMessage(), e);
        }
        options.getOptional(QUALITY)
                .ifPresent(
                        q -> {
                            try {
                                attributes.put(
                                        "quality",
                                        io.zerolayer.operators.quality.QualityFloor.parse(q)
                                                .toString());
                            } catch (IllegalArgumentException e) {
                                throw new ValidationException("Option " + e.getMessage(), e);
                            }
                        });
        return attributes;
    }

    /**
     * Type-checks {@code task} against {@code contracts} as the job checks a prompt: on a prompt of
     * its head and a one-word document.
     *
     * @throws ValidationException with the contracts' diagnostics when they reject it
     */
    static void check(String model, AnalysisTask task, TaskContracts contracts) {
        String prompt = task.promptForText("text", DocumentFormat.TEXT);
        ClassifiedPrompt classified = new StructureClassifier(contracts).classify(prompt);
        if (!classified.compiles()) {
            throw new ValidationException(
                    "Model "
                            + model
                            + ": its options fail ZeroLayer's task contracts ("
                            + contracts.version()
                            + "):\n"
                            + classified.diagnostics().stream()
                                    .filter(PromptDiagnostic::isError)
                                    .map(ZeroLayerModelOptions::describe)
                                    .collect(Collectors.joining("\n")));
        }
    }

    /** A diagnostic as {@code zerolayer check} prints it, without a position in a file. */
    static String describe(PromptDiagnostic d) {
        return "  error["
                + d.code()
                + "]: "
                + d.message()
                + (d.hint() == null ? "" : " (" + d.hint() + ")");
    }
}
