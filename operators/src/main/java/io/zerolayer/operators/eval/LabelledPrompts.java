package io.zerolayer.operators.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.Document;
import io.zerolayer.operators.documents.DocumentFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The labelled corpora as the prompts a user would send, each with the answer that is right: what
 * {@code zerolayer eval} asks each tier and what the bench's labelled stream sends each system.
 */
public final class LabelledPrompts {
    private static final ObjectMapper JSON = new ObjectMapper();

    private LabelledPrompts() {}

    /**
     * One prompt and its right answer.
     *
     * @param id the corpus and the item
     * @param task {@code classify} or {@code answer}
     * @param prompt the prompt (JSON output)
     * @param field the field of the JSON result that holds the answer ({@code label}, {@code
     *     scope})
     * @param expected its right value
     */
    public record LabelledPrompt(
            String id, String task, String prompt, String field, String expected) {

        /**
         * Whether a reply's JSON result holds the right answer; a result that is not JSON does not.
         */
        public boolean right(String jsonResult) {
            if (jsonResult == null) {
                return false;
            }
            try {
                JsonNode node = JSON.readTree(jsonResult);
                return expected.equals(node.path(field).asText(null));
            } catch (IOException e) {
                return false;
            }
        }
    }

    /** Every text of a classification corpus asked with all its label texts. */
    public static List<LabelledPrompt> classification(ClassificationCorpus corpus) {
        AnalysisTask task =
                AnalysisTask.builder("classify")
                        .outputFormat("json")
                        .labels(String.join(", ", corpus.hypotheses().values()))
                        .build();
        List<LabelledPrompt> out = new ArrayList<>();
        for (LabelledText item : corpus.items()) {
            String prompt =
                    task.promptFor(
                            new Document(
                                    null, List.of(new Document.Section(null, null, item.text()))),
                            DocumentFormat.TEXT);
            out.add(
                    new LabelledPrompt(
                            corpus.name() + "/" + item.id(),
                            "classify",
                            prompt,
                            "label",
                            corpus.hypotheses().get(item.label())));
        }
        return out;
    }

    /** Each question of a FAQ page asked over the whole page, one section per answer. */
    public static List<LabelledPrompt> questions(String corpus, FaqCorpus.Page page) {
        List<Document.Section> sections = new ArrayList<>();
        for (int i = 0; i < page.sections().size(); i++) {
            sections.add(
                    new Document.Section(sectionName(i), null, page.sections().get(i).answer()));
        }
        Document document = new Document(null, sections);
        List<LabelledPrompt> out = new ArrayList<>();
        for (int i = 0; i < page.sections().size(); i++) {
            String prompt =
                    AnalysisTask.builder("answer")
                            .outputFormat("json")
                            .question(page.sections().get(i).question())
                            .build()
                            .promptFor(document, DocumentFormat.TEXT);
            out.add(
                    new LabelledPrompt(
                            corpus + "/" + page.file() + "#" + (i + 1),
                            "answer",
                            prompt,
                            "scope",
                            // the scope its chunks carry
                            "section:" + sectionName(i)));
        }
        return out;
    }

    /** Every question of every page of a FAQ corpus. */
    public static List<LabelledPrompt> questions(FaqCorpus faq) {
        List<LabelledPrompt> out = new ArrayList<>();
        faq.pages().forEach(p -> out.addAll(questions(faq.name(), p)));
        return out;
    }

    private static String sectionName(int i) {
        return "q" + (i + 1);
    }
}
