package io.zerolayer.operators.structure;

import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.prompt.PromptReader;
import io.zerolayer.operators.prompt.TagNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads a prompt, derives its {@link StructureSignature} and checks the minimum every graph needs:
 * exactly one known task, a known output format, and the inputs the task reads (a question to
 * answer, labels to classify against). The full contract type checker builds on this.
 */
public final class StructureClassifier {
    public static final Set<String> TASKS = Set.of("summarize", "classify", "answer", "embed");
    public static final Set<String> OUTPUT_FORMATS = Set.of("json", "text");

    public ClassifiedPrompt classify(String prompt) {
        ParsedPrompt parsed = PromptReader.read(prompt);
        List<PromptDiagnostic> diagnostics = new ArrayList<>();
        parsed.problems()
                .forEach(
                        p ->
                                diagnostics.add(
                                        PromptDiagnostic.error(
                                                p.code(),
                                                p.line(),
                                                p.column(),
                                                p.message(),
                                                "remove it or add the matching open tag")));

        String task = null;
        List<TagNode> tasks = parsed.tagsNamed("task");
        if (tasks.isEmpty()) {
            diagnostics.add(
                    PromptDiagnostic.error(
                            "ZL001",
                            1,
                            1,
                            "The prompt has no <task:…> tag",
                            "add one of " + sorted(TASKS) + ", e.g. <task:summarize>"));
        } else {
            TagNode t = tasks.get(0);
            task = t.value() == null ? null : t.value().toLowerCase(Locale.ROOT);
            if (task == null || !TASKS.contains(task)) {
                diagnostics.add(
                        PromptDiagnostic.error(
                                "ZL010",
                                t.line(),
                                t.column(),
                                "Unknown task '" + t.value() + "'",
                                nearest(t.value(), TASKS)
                                        .map(s -> "did you mean <task:" + s + ">?")
                                        .orElse("known tasks: " + sorted(TASKS))));
                task = null;
            }
            for (TagNode extra : tasks.subList(1, tasks.size())) {
                diagnostics.add(
                        PromptDiagnostic.error(
                                "ZL003",
                                extra.line(),
                                extra.column(),
                                "A prompt has one task; this is a second <task> tag",
                                "split the request in two"));
            }
        }

        String outputFormat = "text";
        TagNode format = parsed.firstTag("output_format");
        if (format != null) {
            String value = format.value() == null ? "" : format.value().toLowerCase(Locale.ROOT);
            if (OUTPUT_FORMATS.contains(value)) {
                outputFormat = value;
            } else {
                diagnostics.add(
                        PromptDiagnostic.error(
                                "ZL013",
                                format.line(),
                                format.column(),
                                "Unknown output format '" + format.value() + "'",
                                "use <output_format:json> or <output_format:text>"));
            }
        }

        if ("answer".equals(task) && blank(parsed.firstTag("question"))) {
            diagnostics.add(
                    PromptDiagnostic.error(
                            "ZL011",
                            tasks.get(0).line(),
                            tasks.get(0).column(),
                            "Task 'answer' needs a <question>…</question>",
                            "add the question the document should answer"));
        }
        if ("classify".equals(task) && blank(parsed.firstTag("labels"))) {
            diagnostics.add(
                    PromptDiagnostic.error(
                            "ZL012",
                            tasks.get(0).line(),
                            tasks.get(0).column(),
                            "Task 'classify' needs <labels>…</labels>",
                            "list the candidate labels, comma separated"));
        }
        return new ClassifiedPrompt(
                parsed,
                StructureSignature.of(parsed.root()),
                task,
                outputFormat,
                List.copyOf(diagnostics));
    }

    private static boolean blank(TagNode tag) {
        return tag == null || tag.text().isBlank();
    }

    private static List<String> sorted(Set<String> values) {
        return values.stream().sorted().toList();
    }

    /**
     * The known name closest to {@code input} by edit distance, if it is close enough to be a typo.
     */
    static java.util.Optional<String> nearest(String input, Set<String> known) {
        if (input == null) {
            return java.util.Optional.empty();
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = editDistance(input.toLowerCase(Locale.ROOT), k);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return bestDistance <= Math.max(2, input.length() / 3)
                ? java.util.Optional.of(best)
                : java.util.Optional.empty();
    }

    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
