package io.zerolayer.operators.documents;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Set;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeTraversor;
import org.jsoup.select.NodeVisitor;

/**
 * An HTML page: its visible text (no scripts, styles, templates or hidden elements), headings
 * {@code <h1>}–{@code <h6>} as sections, {@code <title>} (else the first {@code <h1>}) as title.
 * The charset comes from the page's meta tag or BOM, UTF-8 otherwise.
 */
final class HtmlReader {
    private static final Set<String> INVISIBLE =
            Set.of("script", "style", "noscript", "template", "head", "svg", "iframe", "object");
    private static final Set<String> HEADINGS = Set.of("h1", "h2", "h3", "h4", "h5", "h6");

    private HtmlReader() {}

    static Document read(byte[] bytes) throws UnreadableDocumentException {
        org.jsoup.nodes.Document page;
        try {
            page = Jsoup.parse(new ByteArrayInputStream(bytes), null, "");
        } catch (IOException e) {
            throw new UnreadableDocumentException("cannot parse HTML: " + e.getMessage(), e);
        }
        String title = page.title();
        if (title.isBlank()) {
            Element h1 = page.selectFirst("h1");
            title = h1 == null ? null : h1.text();
        }
        SectionsBuilder b = new SectionsBuilder();
        Element body = page.body();
        NodeTraversor.traverse(
                new NodeVisitor() {
                    private Node skipping; // an invisible element or a heading being read

                    @Override
                    public void head(Node node, int depth) {
                        if (skipping != null) {
                            return;
                        }
                        if (node instanceof Element e) {
                            if (INVISIBLE.contains(e.normalName()) || hidden(e)) {
                                skipping = e;
                            } else if (HEADINGS.contains(e.normalName())) {
                                b.heading(e.text());
                                skipping = e;
                            } else if (e.normalName().equals("br")) {
                                b.append("\n");
                            }
                        } else if (node instanceof TextNode t) {
                            b.append(t.text());
                        }
                    }

                    @Override
                    public void tail(Node node, int depth) {
                        if (node == skipping) {
                            skipping = null;
                        } else if (skipping == null
                                && node instanceof Element e
                                && e.isBlock()
                                && !e.normalName().equals("br")) {
                            b.paragraphBreak();
                        }
                    }
                },
                body);
        return b.build(title);
    }

    private static boolean hidden(Element e) {
        return e.hasAttr("hidden")
                || e.attr("style").replace(" ", "").contains("display:none")
                || "true".equals(e.attr("aria-hidden"));
    }
}
