package io.zerolayer.operators.prompt;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A prompt as a tree of tags and text, plus the problems found while pairing tags.
 *
 * @param source the prompt exactly as received; text node offsets index into it
 * @param root synthetic root tag (name {@code #root}) holding the top-level nodes
 * @param problems unbalanced close tags and similar, in source order
 * @param maxDepth deepest nesting of open tags seen
 * @param tagCount tags read
 * @param complete false when reading stopped at a limit: then the tree is partial and must not be
 *     used for anything but diagnostics
 */
public record ParsedPrompt(
        String source,
        TagNode root,
        List<ParseProblem> problems,
        int maxDepth,
        int tagCount,
        boolean complete) {

    /** All tags, depth-first in source order. */
    public List<TagNode> tags() {
        List<TagNode> out = new ArrayList<>();
        collect(root, t -> true, out);
        return out;
    }

    /** The first tag with this name, or null. */
    public TagNode firstTag(String name) {
        List<TagNode> out = new ArrayList<>();
        collect(root, t -> t.name().equals(name), out);
        return out.isEmpty() ? null : out.get(0);
    }

    public List<TagNode> tagsNamed(String name) {
        List<TagNode> out = new ArrayList<>();
        collect(root, t -> t.name().equals(name), out);
        return out;
    }

    private static void collect(TagNode tag, Predicate<TagNode> match, List<TagNode> out) {
        for (PromptNode child : tag.children()) {
            if (child instanceof TagNode t) {
                if (match.test(t)) {
                    out.add(t);
                }
                collect(t, match, out);
            }
        }
    }

    /** A structural problem with its position; the type checker turns these into diagnostics. */
    public record ParseProblem(String code, int line, int column, String message) {}
}
