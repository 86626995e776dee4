package io.zerolayer.operators.prompt;

import io.zerolayer.operators.grammar.PromptLexer;
import io.zerolayer.operators.prompt.ParsedPrompt.ParseProblem;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.Token;

/**
 * Reads a prompt into a {@link ParsedPrompt} tree. The ANTLR lexer ({@code PromptLexer.g4})
 * recognises whole tags; this class pairs them. A close tag closes the nearest open tag of that
 * name; open tags it skips over were never closed and become void (their would-be children move to
 * their parent), which is how directives such as {@code <task:summarize>} are written.
 */
public final class PromptReader {
    private static final Pattern TAG_HEAD =
            Pattern.compile("^</?([a-zA-Z_][a-zA-Z0-9_-]*)(?::([a-zA-Z0-9_.-]+))?");
    private static final Pattern ATTRIBUTE =
            Pattern.compile("([a-zA-Z_][a-zA-Z0-9_-]*)\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)')");

    private PromptReader() {}

    /** Reads with the default limits (depth 32, 10 000 tags). */
    public static ParsedPrompt read(String prompt) {
        return read(prompt, 32, 10_000);
    }

    /**
     * Reads a prompt, giving up on the tree as soon as it nests deeper than {@code maxDepth} or has
     * more than {@code maxTags} tags: such a prompt is abnormal, is never walked recursively, and
     * its {@link ParsedPrompt#complete()} is false. This keeps a hostile prompt (100 000 nested
     * tags, millions of tags) from costing more than one linear lexing pass and bounded memory.
     */
    public static ParsedPrompt read(String prompt, int maxDepth, int maxTags) {
        PromptLexer lexer = new PromptLexer(CharStreams.fromString(prompt));
        lexer.removeErrorListeners(); // every character is matched by TEXT or LT: no lexer errors
        TagNode root = new TagNode("#root", null, Map.of(), 1, 1);
        root.markClosed();
        Deque<TagNode> open = new ArrayDeque<>();
        open.push(root);
        List<ParseProblem> problems = new ArrayList<>();
        StringBuilder pendingText = new StringBuilder();
        int[] pendingAt = null;
        int tags = 0;
        int depth = 0;

        for (Token token = lexer.nextToken();
                token.getType() != Token.EOF;
                token = lexer.nextToken()) {
            String text = token.getText();
            int line = token.getLine();
            int column = token.getCharPositionInLine() + 1;
            switch (token.getType()) {
                case PromptLexer.TEXT, PromptLexer.LT -> {
                    if (pendingText.isEmpty()) {
                        pendingAt = new int[] {token.getStartIndex(), line, column};
                    }
                    pendingText.append(text);
                }
                case PromptLexer.OPEN_TAG -> {
                    flushText(open.peek(), pendingText, pendingAt);
                    TagNode tag = tag(text, line, column);
                    open.peek().mutableChildren().add(tag);
                    if (++tags > maxTags) {
                        problems.add(
                                new ParseProblem(
                                        "ZL041",
                                        line,
                                        column,
                                        "More than " + maxTags + " tags; reading stopped here"));
                        return new ParsedPrompt(prompt, root, problems, depth, tags, false);
                    }
                    if (text.endsWith("/>")) {
                        tag.markClosed();
                    } else {
                        open.push(tag);
                        depth = Math.max(depth, open.size() - 1);
                        if (depth > maxDepth) {
                            problems.add(
                                    new ParseProblem(
                                            "ZL040",
                                            line,
                                            column,
                                            "Tags nest deeper than "
                                                    + maxDepth
                                                    + " levels; reading stopped here"));
                            return new ParsedPrompt(prompt, root, problems, depth, tags, false);
                        }
                    }
                }
                case PromptLexer.CLOSE_TAG -> {
                    flushText(open.peek(), pendingText, pendingAt);
                    Matcher m = TAG_HEAD.matcher(text);
                    m.find();
                    closeTag(open, m.group(1), line, column, problems);
                }
                default -> throw new IllegalStateException("Unexpected token " + token);
            }
        }
        flushText(open.peek(), pendingText, pendingAt);
        while (open.size() > 1) {
            makeVoid(open.pop(), open.peek());
        }
        return new ParsedPrompt(prompt, root, problems, depth, tags, true);
    }

    /**
     * The prompt's text with its tags left out (each tag becomes a space), read straight from the
     * token stream without building a tree, and cut at {@code maxChars}: what the SAFE graph reads
     * when the structure cannot be trusted. Linear in the input and safe on any nesting.
     */
    public static String plainText(String prompt, int maxChars) {
        PromptLexer lexer = new PromptLexer(CharStreams.fromString(prompt));
        lexer.removeErrorListeners();
        StringBuilder text = new StringBuilder();
        for (Token token = lexer.nextToken();
                token.getType() != Token.EOF && text.length() < maxChars;
                token = lexer.nextToken()) {
            if (token.getType() == PromptLexer.TEXT || token.getType() == PromptLexer.LT) {
                text.append(token.getText());
            } else if (!text.isEmpty() && text.charAt(text.length() - 1) != ' ') {
                text.append(' ');
            }
        }
        return text.length() > maxChars ? text.substring(0, maxChars) : text.toString();
    }

    private static void closeTag(
            Deque<TagNode> open, String name, int line, int column, List<ParseProblem> problems) {
        boolean matches =
                open.stream().anyMatch(t -> t.name().equals(name) && t != open.peekLast());
        if (!matches) {
            problems.add(
                    new ParseProblem(
                            "ZL002",
                            line,
                            column,
                            "Close tag </" + name + "> has no open <" + name + ">"));
            return;
        }
        while (!open.peek().name().equals(name)) {
            makeVoid(open.pop(), open.peek());
        }
        open.pop().markClosed();
    }

    /** A tag never closed keeps no children: they belong to its parent, right after it. */
    private static void makeVoid(TagNode tag, TagNode parent) {
        // While tag was open everything went into it, so it is still its parent's last child and
        // appending its children to the parent keeps source order.
        parent.mutableChildren().addAll(tag.mutableChildren());
        tag.mutableChildren().clear();
    }

    private static TagNode tag(String text, int line, int column) {
        Matcher head = TAG_HEAD.matcher(text);
        head.find();
        Map<String, String> attributes = new LinkedHashMap<>();
        Matcher attr = ATTRIBUTE.matcher(text);
        attr.region(head.end(), text.length());
        while (attr.find()) {
            attributes.put(attr.group(1), attr.group(2) != null ? attr.group(2) : attr.group(3));
        }
        return new TagNode(head.group(1), head.group(2), attributes, line, column);
    }

    private static void flushText(TagNode parent, StringBuilder pending, int[] at) {
        if (pending.isEmpty()) {
            return;
        }
        parent.mutableChildren().add(new TextNode(pending.toString(), at[0], at[1], at[2]));
        pending.setLength(0);
    }
}
