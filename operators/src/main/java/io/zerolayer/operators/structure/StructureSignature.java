package io.zerolayer.operators.structure;

import io.zerolayer.operators.prompt.PromptNode;
import io.zerolayer.operators.prompt.TagNode;
import io.zerolayer.operators.prompt.TextNode;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Canonical, content-free description of a prompt's structure: the tag tree, attribute keys, enum
 * attribute values and text size buckets. Two prompts that differ only in their text (within the
 * same size buckets) have the same signature; any structural difference changes it.
 *
 * <p>Form: {@code document{format=pdf}(section:abstract(~1) section:methods(~3)) task:summarize},
 * where {@code ~b} is a text run of size bucket b, a numeric tag value is written {@code #}, and a
 * free-form attribute value is written {@code *}.
 */
public record StructureSignature(String canonical) {

    /** Attributes whose values are enums, so part of the structure; all others are content. */
    static final Set<String> ENUM_ATTRIBUTES =
            Set.of("format", "lang", "style", "length", "type", "kind");

    /** Size bucket of a text run: 0 below 128 chars, then one bucket per doubling. */
    public static int sizeBucket(int chars) {
        if (chars < 128) {
            return 0;
        }
        return Math.min(16, 32 - Integer.numberOfLeadingZeros(chars / 128));
    }

    public static StructureSignature of(TagNode root) {
        StringBuilder sb = new StringBuilder();
        appendChildren(root, sb);
        return new StructureSignature(sb.toString());
    }

    private static void appendChildren(TagNode parent, StringBuilder sb) {
        boolean first = true;
        for (PromptNode child : parent.children()) {
            if (child instanceof TextNode t) {
                if (t.text().isBlank()) {
                    continue;
                }
                separate(sb, first);
                sb.append('~').append(sizeBucket(t.text().strip().length()));
            } else {
                separate(sb, first);
                appendTag((TagNode) child, sb);
            }
            first = false;
        }
    }

    private static void separate(StringBuilder sb, boolean first) {
        if (!first) {
            sb.append(' ');
        }
    }

    private static void appendTag(TagNode tag, StringBuilder sb) {
        sb.append(tag.name().toLowerCase(Locale.ROOT));
        if (tag.value() != null) {
            sb.append(':')
                    .append(
                            tag.value().chars().allMatch(Character::isDigit)
                                    ? "#"
                                    : tag.value().toLowerCase(Locale.ROOT));
        }
        if (!tag.attributes().isEmpty()) {
            Map<String, String> sorted = new TreeMap<>();
            tag.attributes()
                    .forEach(
                            (k, v) ->
                                    sorted.put(
                                            k.toLowerCase(Locale.ROOT),
                                            ENUM_ATTRIBUTES.contains(k.toLowerCase(Locale.ROOT))
                                                    ? v.toLowerCase(Locale.ROOT)
                                                    : "*"));
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, String> e : sorted.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                sb.append(e.getKey()).append('=').append(e.getValue());
                first = false;
            }
            sb.append('}');
        }
        if (!tag.children().isEmpty()) {
            sb.append('(');
            appendChildren(tag, sb);
            sb.append(')');
        }
    }

    @Override
    public String toString() {
        return canonical;
    }
}
