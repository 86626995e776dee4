package io.zerolayer.operators.documents;

import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Heading;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.text.TextContentRenderer;

/**
 * A Markdown file: headings become sections, everything else is its text as a reader sees it
 * (emphasis, links and code marks dropped). A single top-level {@code # Title} that opens the file
 * is the document's title.
 */
final class MarkdownReader {
    private static final Parser PARSER = Parser.builder().build();
    private static final TextContentRenderer TEXT = TextContentRenderer.builder().build();

    /** Keeps a link's text and drops its address: a URL is noise to the encoder. */
    private static final AbstractVisitor UNLINK =
            new AbstractVisitor() {
                @Override
                public void visit(Link link) {
                    visitChildren(link);
                    for (Node c = link.getFirstChild(); c != null; ) {
                        Node next = c.getNext();
                        link.insertBefore(c);
                        c = next;
                    }
                    link.unlink();
                }
            };

    private MarkdownReader() {}

    static Document read(String markdown) {
        Node root = PARSER.parse(markdown);
        root.accept(UNLINK);
        String title = null;
        Node first = root.getFirstChild();
        if (first instanceof Heading h && h.getLevel() == 1 && h1Count(root) == 1) {
            title = TEXT.render(h).strip();
        }
        SectionsBuilder b = new SectionsBuilder();
        for (Node n = root.getFirstChild(); n != null; n = n.getNext()) {
            if (n instanceof Heading h) {
                if (n == first && title != null) {
                    continue;
                }
                b.heading(TEXT.render(h));
            } else {
                b.append(TEXT.render(n).strip());
                b.paragraphBreak();
            }
        }
        return b.build(title);
    }

    private static int h1Count(Node root) {
        int n = 0;
        for (Node c = root.getFirstChild(); c != null; c = c.getNext()) {
            if (c instanceof Heading h && h.getLevel() == 1) {
                n++;
            }
        }
        return n;
    }
}
