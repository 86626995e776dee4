package io.zerolayer.operators.contracts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.schemas.Sha256;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The labelled examples a classification task is declared with, from which the compiler fits the
 * task's head: texts each with the label it should get. They come inline in {@code tasks.yaml} (a
 * list of texts under each label) or from a file of JSON lines, {@code {"text": …, "label": …}};
 * either way each example keeps where it was written, so an error names the file and line.
 *
 * @param examples in the order written
 * @param labels every label, in the order of its first example (or of the task's declared labels)
 * @param source where they were read: a file, or the contract's key
 */
public record LabelledExamples(List<Example> examples, List<String> labels, String source)
        implements Serializable {
    /** Fewest examples a label needs: one more than none, so it can be cross-validated. */
    public static final int MIN_PER_LABEL = 2;

    /**
     * One labelled text.
     *
     * @param where the file and line ({@code triage.jsonl:7}) or the contract's key ({@code
     *     tasks.triage.examples.refund[2]}) it was written at
     */
    public record Example(String text, String label, String where) implements Serializable {}

    public LabelledExamples {
        examples = List.copyOf(examples);
        labels = List.copyOf(labels);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Reads a file of JSON lines, {@code {"text": "…", "label": "…"}} each; blank lines are
     * skipped.
     *
     * @param declaredLabels the task's labels, every example's label must be one of them; null when
     *     the task takes its labels from the examples
     * @throws ContractException naming the file, and the line where one is wrong
     */
    public static LabelledExamples read(Path file, List<String> declaredLabels) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ContractException(
                    "examples file " + file.toAbsolutePath() + " does not exist");
        } catch (IOException e) {
            throw new ContractException(
                    "Cannot read examples file " + file.toAbsolutePath() + ": " + e.getMessage(),
                    e);
        }
        return lines(lines, declaredLabels, file.toString());
    }

    /**
     * Examples given as text: JSON lines, {@code {"text": "…", "label": "…"}} each, or one JSON
     * array of such objects (a SQL model's {@code examples} option).
     *
     * @param source what an error names, with the line or the array's index
     * @throws ContractException naming the line or index where one is wrong
     */
    public static LabelledExamples parse(String text, List<String> declaredLabels, String source) {
        String trimmed = text.strip();
        if (!trimmed.startsWith("[")) {
            return lines(List.of(text.split("\\R", -1)), declaredLabels, source);
        }
        JsonNode array;
        try {
            array = JSON.readTree(trimmed);
        } catch (JsonProcessingException e) {
            throw new ContractException(source + ": not JSON (" + e.getOriginalMessage() + ")", e);
        }
        List<Example> examples = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            examples.add(example(array.get(i), source + "[" + i + "]"));
        }
        return of(examples, declaredLabels, source);
    }

    private static LabelledExamples lines(
            List<String> lines, List<String> declaredLabels, String source) {
        List<Example> examples = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            String where = source + ":" + (i + 1);
            JsonNode node;
            try {
                node = JSON.readTree(line);
            } catch (JsonProcessingException e) {
                throw new ContractException(
                        where + ": not JSON (" + e.getOriginalMessage() + ")", e);
            }
            examples.add(example(node, where));
        }
        return of(examples, declaredLabels, source);
    }

    private static Example example(JsonNode node, String where) {
        if (node == null
                || !node.isObject()
                || !node.path("text").isTextual()
                || !node.path("label").isTextual()) {
            throw new ContractException(
                    where + ": an example must be {\"text\": \"…\", \"label\": \"…\"}");
        }
        return new Example(node.get("text").asText(), node.get("label").asText(), where);
    }

    /**
     * Inline examples: for each label, its texts.
     *
     * @param where the contract's key, e.g. {@code tasks.triage.examples}
     */
    public static LabelledExamples inline(
            Map<String, List<String>> byLabel, List<String> declaredLabels, String where) {
        List<Example> examples = new ArrayList<>();
        byLabel.forEach(
                (label, texts) -> {
                    for (int i = 0; i < texts.size(); i++) {
                        examples.add(
                                new Example(
                                        texts.get(i), label, where + "." + label + "[" + i + "]"));
                    }
                });
        return of(examples, declaredLabels, where);
    }

    /**
     * Checks examples against the task's labels: every example's label is one of them and not
     * blank, no text is blank, and every label has {@value #MIN_PER_LABEL} examples or more.
     */
    static LabelledExamples of(List<Example> examples, List<String> declaredLabels, String source) {
        if (examples.isEmpty()) {
            throw new ContractException(source + " holds no examples");
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        if (declaredLabels != null) {
            declaredLabels.forEach(l -> counts.put(l, 0));
        }
        for (Example e : examples) {
            if (e.label().isBlank()) {
                throw new ContractException(e.where() + ": the label is blank");
            }
            if (e.text().isBlank()) {
                throw new ContractException(e.where() + ": the text is blank");
            }
            if (declaredLabels != null && !declaredLabels.contains(e.label())) {
                throw new ContractException(
                        e.where()
                                + ": label '"
                                + e.label()
                                + "' is not one of the task's labels "
                                + declaredLabels
                                + NearestName.of(e.label(), declaredLabels)
                                        .map(n -> "; did you mean '" + n + "'?")
                                        .orElse(""));
            }
            counts.merge(e.label(), 1, Integer::sum);
        }
        List<String> few = new ArrayList<>();
        counts.forEach(
                (label, n) -> {
                    if (n < MIN_PER_LABEL) {
                        few.add("'" + label + "' has " + n);
                    }
                });
        if (!few.isEmpty()) {
            throw new ContractException(
                    source
                            + ": every label needs at least "
                            + MIN_PER_LABEL
                            + " examples; "
                            + String.join(", ", few));
        }
        return new LabelledExamples(examples, List.copyOf(counts.keySet()), source);
    }

    /**
     * SHA-256 over the examples' labels and texts in order, not where they were written: the same
     * examples from a file or inline fit the same head.
     */
    public String sha256() {
        StringBuilder sb = new StringBuilder();
        for (Example e : examples) {
            sb.append(e.label()).append('\u0000').append(e.text()).append('\u0000');
        }
        return Sha256.hex(sb.toString());
    }
}
