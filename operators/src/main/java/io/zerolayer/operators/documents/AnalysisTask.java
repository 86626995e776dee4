package io.zerolayer.operators.documents;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@code zerolayer analyze} asks of every document: the task and its inputs, written as the
 * head of each document's prompt ({@code <task:answer><output_format:json><question>…</question>}).
 *
 * <pre>{@code
 * AnalysisTask task = AnalysisTask.builder("classify").labels("billing, outage").build();
 * String prompt = task.promptFor(document, DocumentFormat.PDF);
 * }</pre>
 */
public final class AnalysisTask implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String task;
    private final String outputFormat;
    private final Integer sentences;
    private final String labels;
    private final String question;
    private final String fields;
    private final String quality;

    private AnalysisTask(Builder b) {
        this.task = b.task;
        this.outputFormat = b.outputFormat;
        this.sentences = b.sentences;
        this.labels = b.labels;
        this.question = b.question;
        this.fields = b.fields;
        this.quality = b.quality;
    }

    /**
     * No task of its own: each prompt (a {@code .prompt} file, a line of a {@code .jsonl} file)
     * runs as written, with the task its own tags name; a document, which names none, cannot be
     * asked anything.
     *
     * @param quality the quality floor every request asks for, or null for its task's
     */
    public static AnalysisTask eachPromptsOwn(String quality) {
        return new AnalysisTask(new Builder().quality(quality));
    }

    public static Builder builder(String task) {
        return new Builder(task);
    }

    /** The task's name; null when each prompt names its own ({@link #eachPromptsOwn}). */
    public String task() {
        return task;
    }

    /**
     * The quality floor every request asks for ({@code fast}, {@code balanced}, {@code best}), or
     * null.
     */
    public String quality() {
        return quality;
    }

    public String outputFormat() {
        return outputFormat;
    }

    /** The summary length asked for, or null for the decoder's default. */
    public Integer sentences() {
        return sentences;
    }

    /** The same task asking for JSON: parts of a split document are combined from their JSON. */
    public AnalysisTask asJson() {
        return new Builder(task)
                .outputFormat("json")
                .quality(quality)
                .sentences(sentences)
                .labels(labels)
                .question(question)
                .fields(fields)
                .build();
    }

    /** The task's tags, the head of every prompt this task writes. */
    public String header() {
        if (task == null) {
            throw new IllegalStateException(
                    "A document names no task: analyze needs --task to ask it anything");
        }
        StringBuilder sb = new StringBuilder("<task:").append(task);
        if (sentences != null) {
            sb.append(" sentences=\"").append(sentences).append('"');
        }
        sb.append("><output_format:").append(outputFormat).append(">\n");
        if (labels != null) {
            sb.append("<labels>").append(PromptText.escape(labels)).append("</labels>\n");
        }
        if (question != null) {
            sb.append("<question>").append(PromptText.escape(question)).append("</question>\n");
        }
        if (fields != null) {
            sb.append("<fields>").append(PromptText.escape(fields)).append("</fields>\n");
        }
        return sb.toString();
    }

    /**
     * The prompt for a document: the header, then {@code <document format="…" title="…">} with text
     * outside sections first and one {@code <section:name>} per section, text escaped so that
     * nothing in it reads as a tag (figure and table markers excepted).
     */
    public String promptFor(Document document, DocumentFormat format) {
        StringBuilder sb = new StringBuilder(header());
        sb.append("<document format=\"").append(format.promptFormat()).append('"');
        if (document.title() != null) {
            sb.append(" title=\"").append(PromptText.attribute(document.title())).append('"');
        }
        sb.append(">\n");
        for (Document.Section s : document.sections()) {
            if (s.name() == null) {
                sb.append(PromptText.escapeKeepingMarkers(s.text())).append('\n');
            } else {
                sb.append("<section:").append(s.name()).append(">\n");
                sb.append(PromptText.escapeKeepingMarkers(s.text())).append("\n</section>\n");
            }
        }
        return sb.append("</document>\n").toString();
    }

    /**
     * The prompt for a document given as {@code text} in {@code format} (text, markdown or html),
     * read as {@code zerolayer analyze} reads a file of it. Text no reader takes (blank, or not of
     * the format) goes in as written, for the contracts to judge: this never fails.
     */
    public String promptForText(String text, DocumentFormat format) {
        Document document;
        try {
            document =
                    DocumentReaders.read(
                            format, text.getBytes(java.nio.charset.StandardCharsets.UTF_8), "text");
        } catch (UnreadableDocumentException | IllegalArgumentException unreadable) {
            document = new Document(null, List.of(new Document.Section(null, null, text)));
        }
        return promptFor(document, format);
    }

    /**
     * A prompt file's prompt as it will run: unchanged when it names its own task (or this analysis
     * has none, and the contracts judge it as written), else this task's header before it.
     */
    public String promptForPrompt(String prompt) {
        return task == null || PromptText.hasTaskTag(prompt) ? prompt : header() + prompt;
    }

    @Override
    public String toString() {
        return task == null ? "each prompt's own task" : header().strip().replace('\n', ' ');
    }

    /** Builds an {@link AnalysisTask}; {@link #build()} says what a task is missing. */
    public static final class Builder {
        private final String task;
        private String outputFormat = "json";
        private String quality;
        private Integer sentences;
        private String labels;
        private String question;
        private String fields;

        private Builder(String task) {
            this.task = Objects.requireNonNull(task, "task");
        }

        private Builder() {
            this.task = null;
        }

        /** The quality floor every request asks for; null leaves it to each task's contract. */
        public Builder quality(String quality) {
            this.quality = quality;
            return this;
        }

        public Builder outputFormat(String format) {
            this.outputFormat = Objects.requireNonNull(format, "outputFormat");
            return this;
        }

        public Builder sentences(Integer n) {
            this.sentences = n;
            return this;
        }

        public Builder labels(String labels) {
            this.labels = labels;
            return this;
        }

        public Builder question(String question) {
            this.question = question;
            return this;
        }

        public Builder fields(String fields) {
            this.fields = fields;
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the option a task needs and does not have
         */
        public AnalysisTask build() {
            AnalysisTask built = buildForContracts();
            List<String> missing = new ArrayList<>();
            if (task.equals("classify") && blank(labels)) {
                missing.add("--labels \"a, b, c\"");
            }
            if (task.equals("answer") && blank(question)) {
                missing.add("--question \"…\"");
            }
            if (task.equals("extract") && blank(fields)) {
                missing.add("--fields \"party, due date\"");
            }
            if (!missing.isEmpty()) {
                throw new IllegalArgumentException(
                        "Task " + task + " needs " + String.join(" and ", missing));
            }
            if (sentences != null && sentences < 1) {
                throw new IllegalArgumentException("--sentences must be at least 1");
            }
            return built;
        }

        /**
         * The task as written, checked only for what keeps its prompt well formed (a task name, a
         * known output format): whether the task knows it, and has the inputs it needs, is left to
         * the task contracts, which check its prompts with their own diagnostics (Flink SQL's model
         * options are checked so).
         *
         * @throws IllegalArgumentException when the name is no task name or the format unknown
         */
        public AnalysisTask buildForContracts() {
            if (!task.matches("[a-zA-Z_][a-zA-Z0-9_-]*")) {
                throw new IllegalArgumentException(
                        "Task '" + task + "' is not a task name (letters, digits, _ and -)");
            }
            if (!outputFormat.equals("json") && !outputFormat.equals("text")) {
                throw new IllegalArgumentException(
                        "The output format must be json or text, not '" + outputFormat + "'");
            }
            return new AnalysisTask(this);
        }

        private static boolean blank(String s) {
            return s == null || s.isBlank();
        }
    }
}
