package io.zerolayer.operators.contracts;

import static io.zerolayer.operators.contracts.DiagnosticCodes.*;

import io.zerolayer.operators.prompt.ParsedPrompt;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.prompt.PromptNode;
import io.zerolayer.operators.prompt.TagNode;
import io.zerolayer.operators.prompt.TextNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Type-checks a read prompt against the task contracts, like a compiler: every problem found, each
 * with its position, a stable code, a message and — where one helps — a hint ({@code did you mean
 * <document>?}, the allowed values of an attribute). The walk is iterative, so it is safe on any
 * tree {@link io.zerolayer.operators.prompt.PromptReader} completes.
 */
public final class ContractChecker {
    private final TaskContracts contracts;

    public ContractChecker(TaskContracts contracts) {
        this.contracts = contracts;
    }

    /** What the checker found: the task's contract (null if none resolved) and the diagnostics. */
    public record Result(
            TaskContract task, String outputFormat, List<PromptDiagnostic> diagnostics) {}

    public Result check(ParsedPrompt prompt) {
        List<PromptDiagnostic> out = new ArrayList<>();
        prompt.problems()
                .forEach(
                        p ->
                                out.add(
                                        PromptDiagnostic.error(
                                                p.code(),
                                                p.line(),
                                                p.column(),
                                                p.message(),
                                                p.code().equals(STRAY_CLOSE_TAG)
                                                        ? "remove it or add the matching open tag"
                                                        : null)));
        if (!prompt.complete()) {
            return new Result(null, null, out);
        }
        TaskContract task = resolveTask(prompt, out);
        String outputFormat = outputFormat(prompt, task, out);
        Text text = walk(prompt, task, out);
        if (task != null) {
            checkInputs(prompt, task, text, out);
        }
        return new Result(task, outputFormat, out);
    }

    /** The prompt's output format ({@code text} when it names none), checked against the task. */
    private String outputFormat(
            ParsedPrompt prompt, TaskContract task, List<PromptDiagnostic> out) {
        String outputFormat = "text";
        List<TagNode> formats = prompt.tagsNamed("output_format");
        if (!formats.isEmpty() && formats.get(0).value() != null) {
            outputFormat = formats.get(0).value().toLowerCase(Locale.ROOT);
            boolean knownFormat =
                    contracts.tag("output_format").value() == null
                            || !contracts.tag("output_format").value().isEnum()
                            || contracts
                                    .tag("output_format")
                                    .value()
                                    .values()
                                    .contains(outputFormat);
            // an unknown format is reported once, as a bad enum value, by the tag check
            if (task != null && knownFormat && !task.outputFormats().contains(outputFormat)) {
                TagNode f = formats.get(0);
                out.add(
                        PromptDiagnostic.error(
                                OUTPUT_FORMAT_NOT_ALLOWED,
                                f.line(),
                                f.column(),
                                "Task '"
                                        + task.name()
                                        + "' does not produce output format '"
                                        + f.value()
                                        + "'",
                                "use one of " + task.outputFormats()));
            }
        }

        return outputFormat;
    }

    /** How much text a prompt holds, and whether any of it is document text (not a query's). */
    private record Text(int chars, boolean document) {}

    /** Checks every tag where it stands, in one pre-order walk, and measures the text. */
    private Text walk(ParsedPrompt prompt, TaskContract task, List<PromptDiagnostic> out) {
        int textChars = 0;
        boolean documentText = false;
        // iterative pre-order walk over (tag, next child) frames
        List<Frame> stack = new ArrayList<>();
        stack.add(new Frame(prompt.root(), false));
        while (!stack.isEmpty()) {
            Frame frame = stack.get(stack.size() - 1);
            if (frame.next >= frame.tag.children().size()) {
                stack.remove(stack.size() - 1);
                continue;
            }
            PromptNode child = frame.tag.children().get(frame.next++);
            if (child instanceof TextNode t) {
                textChars += t.text().length();
                documentText |= !frame.query && !t.text().isBlank();
                continue;
            }
            TagNode tag = (TagNode) child;
            checkTag(tag, frame.tag, task, out);
            stack.add(new Frame(tag, frame.query || TaskContract.QUERY_TAGS.contains(tag.name())));
        }

        return new Text(textChars, documentText);
    }

    /**
     * The task's required tags are there and not empty, it has text to work on, and not too much.
     */
    private void checkInputs(
            ParsedPrompt prompt, TaskContract task, Text text, List<PromptDiagnostic> out) {
        for (String required : task.requires()) {
            if (prompt.tagsNamed(required).stream().noneMatch(t -> !t.text().isBlank())) {
                TagNode at = prompt.tagsNamed("task").get(0);
                out.add(
                        PromptDiagnostic.error(
                                MISSING_REQUIRED_TAG,
                                at.line(),
                                at.column(),
                                "Task '"
                                        + task.name()
                                        + "' needs a non-empty <"
                                        + required
                                        + ">…</"
                                        + required
                                        + ">",
                                hintForRequired(required)));
            }
        }
        if (!text.document()) {
            TagNode at = prompt.tagsNamed("task").get(0);
            out.add(
                    PromptDiagnostic.error(
                            NO_TEXT,
                            at.line(),
                            at.column(),
                            "Task '"
                                    + task.name()
                                    + "' has no text to work on: the prompt holds only tags"
                                    + " and the task's own inputs",
                            "put the document's text in the prompt, e.g. <task:"
                                    + task.name()
                                    + "> The pump failed twice."));
        }
        if (text.chars() > task.maxChars()) {
            out.add(
                    PromptDiagnostic.error(
                            TEXT_TOO_LONG,
                            1,
                            1,
                            "The prompt has "
                                    + text.chars()
                                    + " characters of text; task '"
                                    + task.name()
                                    + "' accepts at most "
                                    + task.maxChars(),
                            "split the document into several requests"));
        }
    }

    private static final class Frame {
        final TagNode tag;

        /** Inside a tag whose text is a query input. */
        final boolean query;

        int next;

        Frame(TagNode tag, boolean query) {
            this.tag = tag;
            this.query = query;
        }
    }

    private TaskContract resolveTask(ParsedPrompt prompt, List<PromptDiagnostic> out) {
        List<TagNode> tasks = prompt.tagsNamed("task");
        if (tasks.isEmpty()) {
            out.add(
                    PromptDiagnostic.error(
                            NO_TASK,
                            1,
                            1,
                            "The prompt has no <task:…> tag",
                            "add one of "
                                    + sorted(contracts.taskNames())
                                    + ", e.g. <task:summarize>"));
            return null;
        }
        for (TagNode extra : tasks.subList(1, tasks.size())) {
            out.add(
                    PromptDiagnostic.error(
                            SECOND_TASK,
                            extra.line(),
                            extra.column(),
                            "A prompt has one task; this is a second <task> tag",
                            "split the request in two"));
        }
        TagNode t = tasks.get(0);
        String name = t.value() == null ? "" : t.value().toLowerCase(Locale.ROOT);
        TaskContract task = contracts.task(name);
        if (task == null) {
            out.add(
                    PromptDiagnostic.error(
                            UNKNOWN_TASK,
                            t.line(),
                            t.column(),
                            "Unknown task '" + name + "'",
                            NearestName.of(name, contracts.taskNames())
                                    .map(s -> "did you mean <task:" + s + ">?")
                                    .orElse("known tasks: " + sorted(contracts.taskNames()))));
        }
        return task;
    }

    private void checkTag(
            TagNode tag, TagNode parent, TaskContract task, List<PromptDiagnostic> out) {
        TagSpec spec = contracts.tag(tag.name());
        if (spec == null) {
            out.add(
                    PromptDiagnostic.error(
                            UNKNOWN_TAG,
                            tag.line(),
                            tag.column(),
                            "Unknown tag <" + tag.name() + ">",
                            NearestName.of(tag.name(), contracts.tagNames())
                                    .map(s -> "did you mean <" + s + ">?")
                                    .orElse("known tags: " + sorted(contracts.tagNames()))));
            return;
        }
        if (task != null && !task.allowsTag(tag.name())) {
            out.add(
                    PromptDiagnostic.error(
                            TAG_NOT_FOR_TASK,
                            tag.line(),
                            tag.column(),
                            "Task '" + task.name() + "' does not use <" + tag.name() + ">",
                            "it reads "
                                    + task.allows()
                                    + " besides its required "
                                    + task.requires()));
        }
        TagSpec parentSpec = parent.name().equals("#root") ? null : contracts.tag(parent.name());
        if (parentSpec != null
                && parentSpec.children() != null
                && !parentSpec.children().contains(tag.name())) {
            out.add(
                    PromptDiagnostic.error(
                            ILLEGAL_NESTING,
                            tag.line(),
                            tag.column(),
                            "<" + tag.name() + "> may not appear inside <" + parent.name() + ">",
                            parentSpec.children().isEmpty()
                                    ? "<" + parent.name() + "> holds only text"
                                    : "<"
                                            + parent.name()
                                            + "> may contain "
                                            + parentSpec.children()));
        }
        if (spec.mustClose() && !tag.closed()) {
            out.add(
                    PromptDiagnostic.error(
                            UNCLOSED_TAG,
                            tag.line(),
                            tag.column(),
                            "<" + tag.name() + "> is never closed",
                            "add </" + tag.name() + "> where it ends"));
        }
        if (spec.value() == null && tag.value() != null) {
            out.add(
                    PromptDiagnostic.error(
                            BAD_TAG_VALUE,
                            tag.line(),
                            tag.column(),
                            "<" + tag.name() + "> takes no ':' value, got '" + tag.value() + "'",
                            "write <" + tag.name() + ">"));
        } else if (spec.value() != null) {
            spec.value().check(tag, "<" + tag.name() + ":…>", tag.value(), out);
        }
        checkAttributes(
                tag,
                tag.name().equals("task") && task != null ? task.attributes() : spec.attributes(),
                out);
    }

    /** A tag's attributes: each known, not too long and valid, and none required missing. */
    private void checkAttributes(
            TagNode tag, Map<String, AttributeSpec> allowed, List<PromptDiagnostic> out) {
        for (Map.Entry<String, String> a : tag.attributes().entrySet()) {
            AttributeSpec attr = allowed.get(a.getKey());
            if (attr == null) {
                out.add(
                        PromptDiagnostic.error(
                                UNKNOWN_ATTRIBUTE,
                                tag.line(),
                                tag.column(),
                                "<" + tag.name() + "> has no attribute '" + a.getKey() + "'",
                                allowed.isEmpty()
                                        ? "<" + tag.name() + "> takes no attributes"
                                        : NearestName.of(a.getKey(), allowed.keySet())
                                                .map(s -> "did you mean " + s + "=?")
                                                .orElse(
                                                        "attributes: "
                                                                + sorted(allowed.keySet()))));
            } else if (a.getValue().length() > contracts.limits().maxAttributeLength()) {
                out.add(
                        PromptDiagnostic.error(
                                ATTRIBUTE_TOO_LONG,
                                tag.line(),
                                tag.column(),
                                "Attribute "
                                        + a.getKey()
                                        + " of <"
                                        + tag.name()
                                        + "> is "
                                        + a.getValue().length()
                                        + " characters long; the limit is "
                                        + contracts.limits().maxAttributeLength(),
                                null));
            } else {
                attr.check(
                        tag,
                        "attribute " + a.getKey() + " of <" + tag.name() + ">",
                        a.getValue(),
                        out);
            }
        }
        for (Map.Entry<String, AttributeSpec> a : allowed.entrySet()) {
            if (a.getValue().required() && !tag.attributes().containsKey(a.getKey())) {
                out.add(
                        PromptDiagnostic.error(
                                MISSING_ATTRIBUTE,
                                tag.line(),
                                tag.column(),
                                "<" + tag.name() + "> needs attribute " + a.getKey(),
                                a.getValue().isEnum()
                                        ? "add "
                                                + a.getKey()
                                                + "=\"…\" with one of "
                                                + a.getValue().values()
                                        : "add " + a.getKey() + "=\"…\""));
            }
        }
    }

    private static String hintForRequired(String tag) {
        return switch (tag) {
            case "question" -> "add the question the document should answer";
            case "labels" -> "list the candidate labels, comma separated";
            case "fields" -> "list the fields to extract, comma separated";
            default -> "add <" + tag + ">…</" + tag + ">";
        };
    }

    private static List<String> sorted(Collection<String> values) {
        return values.stream().sorted().toList();
    }
}
