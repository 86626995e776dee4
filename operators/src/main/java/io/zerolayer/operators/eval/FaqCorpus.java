package io.zerolayer.operators.eval;

import java.util.List;

/**
 * Question → answer-section pairs: each document is one FAQ page, each of its sections one
 * question's answer. Asked as passage answering over the whole page, the answer is right when the
 * passage returned lies in the question's own section.
 *
 * @param name the dataset's name
 * @param source the Debian package and files it is read from
 * @param pages the FAQ pages
 */
public record FaqCorpus(String name, String source, List<Page> pages) {

    /** One FAQ page: its file and its sections, in order. */
    public record Page(String file, List<Section> sections) {
        public Page {
            sections = List.copyOf(sections);
        }
    }

    /** A question (the section's heading) and its answer (the section's text). */
    public record Section(String question, String answer) {}

    public FaqCorpus {
        pages = List.copyOf(pages);
    }

    /** How many questions the corpus asks. */
    public int questions() {
        return pages.stream().mapToInt(p -> p.sections().size()).sum();
    }
}
