package io.zerolayer.operators.eval;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Reuters-21578 articles in the XML form R's {@code tm} package ships ({@code texts/acq/*.xml},
 * {@code texts/crude/*.xml}: one {@code <REUTERS>} a file; {@code texts/reuters-21578.xml}: many
 * under {@code <LEWIS>}). An article's text is its title and body; its labels are its {@code
 * <TOPICS>}. Parsed with DTDs and external entities off.
 */
final class ReutersXml {
    private ReutersXml() {}

    /** One article: its NEWID, title + body, and topics. */
    record Article(String id, String text, List<String> topics) {}

    static List<Article> read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            org.w3c.dom.Document doc = builder().parse(in);
            NodeList articles = doc.getElementsByTagName("REUTERS");
            List<Article> out = new ArrayList<>();
            for (int i = 0; i < articles.getLength(); i++) {
                Element a = (Element) articles.item(i);
                String title = text(a, "TITLE");
                String body = text(a, "BODY");
                if (body.isBlank() && title.isBlank()) {
                    continue; // brief items with neither carry no text to classify
                }
                List<String> topics = new ArrayList<>();
                NodeList t = a.getElementsByTagName("TOPICS");
                if (t.getLength() > 0) {
                    NodeList ds = ((Element) t.item(0)).getElementsByTagName("D");
                    for (int k = 0; k < ds.getLength(); k++) {
                        topics.add(ds.item(k).getTextContent().strip());
                    }
                }
                String text = title.isBlank() ? body : title + ".\n" + body;
                out.add(
                        new Article(
                                file.getFileName() + "#" + a.getAttribute("NEWID"), text, topics));
            }
            return out;
        } catch (SAXException e) {
            throw new IOException("Not Reuters XML: " + file + ": " + e.getMessage(), e);
        }
    }

    private static String text(Element article, String tag) {
        NodeList n = article.getElementsByTagName(tag);
        if (n.getLength() == 0) {
            return "";
        }
        Node node = n.item(0);
        // the wire's paragraph breaks are newlines plus an indent; keep the text as it reads
        return node.getTextContent().replaceAll("\\s*\\n\\s*", "\n").strip();
    }

    private static DocumentBuilder builder() {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setExpandEntityReferences(false);
            return f.newDocumentBuilder();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }
}
