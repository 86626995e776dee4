package io.zerolayer.operators.structure;

import io.zerolayer.operators.contracts.TaskContract;
import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.prompt.PromptNode;
import io.zerolayer.operators.prompt.PromptReader;
import io.zerolayer.operators.prompt.TagNode;
import io.zerolayer.operators.prompt.TextNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a graph reads from a prompt: document text grouped into scopes (one per {@code <section>},
 * plus {@code body} for text outside sections), and the task's query inputs. Scope names come from
 * the structure only, so the compiler can plan per scope.
 *
 * @param scopes scope name → its text runs, in document order
 * @param question text of the first {@code <question>}, or null
 * @param labels labels of the first {@code <labels>}, split on commas, pipes or newlines
 * @param fields fields of the first {@code <fields>}, split the same way
 * @param taskAttributes attributes of the {@code <task>} tag (e.g. {@code sentences="3"})
 */
public record DocumentContent(
        Map<String, List<TextRun>> scopes,
        String question,
        List<String> labels,
        List<String> fields,
        Map<String, String> taskAttributes) {

    private static final Set<String> QUERY_TAGS = TaskContract.QUERY_TAGS;

    /** A contiguous run of prompt text; {@code offset} indexes into the prompt. */
    public record TextRun(String text, int offset, int sizeBucket) {}

    /** Reads a complete prompt tree (nesting within the limits, so recursion is bounded). */
    public static DocumentContent of(ParsedPrompt parsed) {
        Map<String, List<TextRun>> scopes = new LinkedHashMap<>();
        collect(parsed.root(), "body", scopes, new HashMap<>());
        TagNode question = parsed.firstTag("question");
        TagNode task = parsed.firstTag("task");
        return new DocumentContent(
                scopes,
                question == null ? null : question.text().strip(),
                list(parsed.firstTag("labels")),
                list(parsed.firstTag("fields")),
                task == null ? Map.of() : task.attributes());
    }

    /**
     * Plain text (for the SAFE graph, {@link PromptReader#plainText}) in one {@code body} scope;
     * offsets index into {@code text}.
     */
    public static DocumentContent plainText(String text) {
        Map<String, List<TextRun>> scopes = new LinkedHashMap<>();
        if (!text.isBlank()) {
            scopes.put(
                    "body",
                    List.of(new TextRun(text, 0, StructureSignature.sizeBucket(text.length()))));
        }
        return new DocumentContent(scopes, null, List.of(), List.of(), Map.of());
    }

    private static List<String> list(TagNode tag) {
        return tag == null ? List.of() : items(tag.text());
    }

    /**
     * A list as a {@code <labels>} or {@code <fields>} tag holds it: split on commas, pipes or
     * newlines, each item stripped, blanks and repeats dropped. {@code --labels} and a SQL model's
     * {@code labels} are read the same way.
     */
    public static List<String> items(String text) {
        return Arrays.stream(text.split("[,|\\n]"))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .distinct()
                .toList();
    }

    private static void collect(
            TagNode tag,
            String scope,
            Map<String, List<TextRun>> scopes,
            Map<String, Integer> seen) {
        for (PromptNode child : tag.children()) {
            if (child instanceof TextNode t) {
                if (!t.text().isBlank()) {
                    scopes.computeIfAbsent(scope, k -> new ArrayList<>())
                            .add(
                                    new TextRun(
                                            t.text(),
                                            t.offset(),
                                            StructureSignature.sizeBucket(
                                                    t.text().strip().length())));
                }
            } else {
                TagNode c = (TagNode) child;
                if (QUERY_TAGS.contains(c.name())) {
                    continue;
                }
                String childScope = scope;
                if (c.name().equals("section")) {
                    String base =
                            "section:"
                                    + (c.value() != null
                                            ? c.value()
                                            : c.attributes().getOrDefault("name", "unnamed"));
                    int n = seen.merge(base, 1, Integer::sum);
                    childScope = n == 1 ? base : base + "#" + n;
                }
                collect(c, childScope, scopes, seen);
            }
        }
    }

    /** Largest size bucket of any run: a structural fact (it is in the signature). */
    public int maxSizeBucket() {
        return scopes.values().stream()
                .flatMap(List::stream)
                .mapToInt(TextRun::sizeBucket)
                .max()
                .orElse(0);
    }
}
