package io.zerolayer.operators.documents;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DocumentPartsTest {
    @Test
    void aShortDocumentIsOnePart() {
        Document d = new Document("t", List.of(new Document.Section(null, null, "short text")));
        assertThat(DocumentParts.split(d, 1000)).containsExactly(d);
    }

    @Test
    void longDocumentsSplitAtSectionsAndParagraphsWithinTheLimit() {
        List<Document.Section> sections = new ArrayList<>();
        StringBuilder words = new StringBuilder();
        for (int i = 0; i < 400; i++) {
            words.append("Sentence number ").append(i).append(" of the long methods section. ");
            if (i % 10 == 9) {
                words.append("\n\n");
            }
        }
        sections.add(new Document.Section("abstract", "Abstract", "A short abstract."));
        sections.add(new Document.Section("intro", "Intro", "A short introduction."));
        sections.add(new Document.Section("methods", "Methods", words.toString().strip()));
        sections.add(new Document.Section("end", "End", "Closing words."));
        Document doc = new Document("Paper", sections);

        List<Document> parts = DocumentParts.split(doc, 5000);

        assertThat(parts).hasSizeGreaterThanOrEqualTo(4);
        assertThat(parts).allSatisfy(p -> assertThat(p.chars()).isLessThanOrEqualTo(5000));
        // the two short sections share the first part; the long one is cut at paragraph breaks
        assertThat(parts.get(0).sections())
                .extracting(Document.Section::name)
                .startsWith("abstract", "intro");
        List<String> methods = new ArrayList<>();
        parts.forEach(
                p ->
                        p.sections().stream()
                                .filter(s -> s.name().equals("methods"))
                                .forEach(s -> methods.add(s.text())));
        assertThat(methods).allSatisfy(t -> assertThat(t).endsWith("section."));
        assertThat(String.join(" ", methods).replaceAll("\\s+", " "))
                .isEqualTo(words.toString().strip().replaceAll("\\s+", " "));
        assertThat(parts.get(parts.size() - 1).sections())
                .last()
                .extracting(Document.Section::name)
                .isEqualTo("end");
    }
}
