package io.zerolayer.operators.prompt;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A tag. {@code <section:abstract>} has name {@code section} and value {@code abstract}. A tag that
 * is never closed is void: it has no children, and what followed it belongs to its parent.
 */
public final class TagNode implements PromptNode {
    private final String name;
    private final String value;
    private final Map<String, String> attributes;
    private final int line;
    private final int column;
    private final List<PromptNode> children = new ArrayList<>();
    private boolean closed;

    TagNode(String name, String value, Map<String, String> attributes, int line, int column) {
        this.name = name;
        this.value = value;
        this.attributes = Collections.unmodifiableMap(attributes);
        this.line = line;
        this.column = column;
    }

    public String name() {
        return name;
    }

    /** The part after the colon, or null. */
    public String value() {
        return value;
    }

    public Map<String, String> attributes() {
        return attributes;
    }

    public List<PromptNode> children() {
        return Collections.unmodifiableList(children);
    }

    /** True when a matching close tag was found (or the tag was self-closing). */
    public boolean closed() {
        return closed;
    }

    List<PromptNode> mutableChildren() {
        return children;
    }

    void markClosed() {
        closed = true;
    }

    @Override
    public int line() {
        return line;
    }

    @Override
    public int column() {
        return column;
    }

    /** Concatenated text of all descendants. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        appendText(this, sb);
        return sb.toString();
    }

    private static void appendText(TagNode tag, StringBuilder sb) {
        for (PromptNode child : tag.children) {
            if (child instanceof TextNode t) {
                sb.append(t.text());
            } else {
                appendText((TagNode) child, sb);
            }
        }
    }

    @Override
    public String toString() {
        return "<"
                + name
                + (value == null ? "" : ":" + value)
                + (attributes.isEmpty() ? "" : " " + attributes)
                + ">";
    }
}
