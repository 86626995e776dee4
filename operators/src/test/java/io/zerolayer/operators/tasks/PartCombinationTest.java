package io.zerolayer.operators.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.operators.structure.DocumentContent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A split document's parts, decoded alone and combined, against the same chunks decoded as one
 * document: exact for embeddings, classification, answers and fields.
 */
class PartCombinationTest {
    private static final int CHUNKS = 30;
    private final Random random = new Random(7);
    private final List<Chunk> chunks = new ArrayList<>();
    private final float[][] vectors = new float[CHUNKS][];

    PartCombinationTest() {
        for (int i = 0; i < CHUNKS; i++) {
            String scope = i < 12 ? "section:intro" : i < 20 ? "section:methods" : "section:end";
            chunks.add(
                    new Chunk(
                            scope, new long[3 + random.nextInt(40)], i * 10, i * 10 + 9, "s" + i));
            vectors[i] = unit();
        }
    }

    private float[] unit() {
        return RandomUnitVectors.next(random);
    }

    private JsonNode decode(String decoder, int from, int to, List<String> queries, float[][] qv)
            throws Exception {
        DocumentContent content =
                new DocumentContent(
                        Map.of(),
                        queries.isEmpty() ? null : queries.get(0),
                        queries,
                        queries,
                        Map.of());
        TaskInput in =
                new TaskInput(
                        content,
                        chunks.subList(from, to),
                        java.util.Arrays.copyOfRange(vectors, from, to),
                        queries,
                        qv,
                        "model");
        return DocumentTask.JSON.readTree(
                DocumentTask.forName(decoder).decode(in, "json").output());
    }

    /** Parts cut across a section (intro and methods), as DocumentParts cuts a long one. */
    private List<JsonNode> parts(String decoder, List<String> queries, float[][] qv)
            throws Exception {
        return List.of(
                decode(decoder, 0, 8, queries, qv),
                decode(decoder, 8, 17, queries, qv),
                decode(decoder, 17, CHUNKS, queries, qv));
    }

    /** The head's decode of chunks {@code from..to}, with the head node's logits. */
    private JsonNode decodeByHead(
            io.zerolayer.operators.heads.ClassifierHead head, double min, int from, int to)
            throws Exception {
        float[][] chunkVectors = java.util.Arrays.copyOfRange(vectors, from, to);
        TaskInput in =
                new TaskInput(
                        new DocumentContent(Map.of(), null, List.of(), List.of(), Map.of()),
                        chunks.subList(from, to),
                        chunkVectors,
                        List.of(),
                        new float[0][],
                        "model",
                        null,
                        HeadScores.of(head, chunkVectors));
        return DocumentTask.JSON.readTree(
                DocumentTask.headClassification(min).decode(in, "json").output());
    }

    @Test
    void aHeadsLogitsOfPartsCombineToTheWholeDocumentsAndSoDoesUnknown() throws Exception {
        List<String> labels = List.of("refund", "outage", "login");
        float[][] w = new float[labels.size()][];
        for (int l = 0; l < w.length; l++) {
            w[l] = unit();
            for (int k = 0; k < w[l].length; k++) {
                w[l][k] *= 20;
            }
        }
        var head =
                new io.zerolayer.operators.heads.ClassifierHead(
                        "logistic", labels, w, new float[] {0.1f, -0.2f, 0.05f});
        for (double min : new double[] {Double.NaN, 0.999}) {
            JsonNode whole = decodeByHead(head, min, 0, CHUNKS);
            List<JsonNode> parts =
                    List.of(
                            decodeByHead(head, min, 0, 8),
                            decodeByHead(head, min, 8, 17),
                            decodeByHead(head, min, 17, CHUNKS));
            JsonNode combined = DocumentTask.forName("classify").combineParts(parts, 0);
            assertThat(combined.path("label").asText()).isEqualTo(whole.path("label").asText());
            for (int i = 0; i < labels.size(); i++) {
                JsonNode a = whole.path("scores").path(i);
                JsonNode b = combined.path("scores").path(i);
                assertThat(b.path("label").asText()).isEqualTo(a.path("label").asText());
                assertThat(b.path("logit").asDouble())
                        .isCloseTo(a.path("logit").asDouble(), within(1e-4));
                assertThat(b.path("probability").asDouble())
                        .isCloseTo(a.path("probability").asDouble(), within(1e-4));
            }
            assertThat(DocumentTask.noteOf(combined) == null)
                    .isEqualTo(DocumentTask.noteOf(whole) == null);
        }
        assertThat(decodeByHead(head, 0.999, 0, CHUNKS).path("label").asText())
                .as("random vectors: no label is that sure")
                .isEqualTo("unknown");
    }

    @Test
    void embeddingsOfPartsCombineToTheWholeDocumentsMean() throws Exception {
        JsonNode whole = decode("embed", 0, CHUNKS, List.of(), new float[0][]);
        JsonNode combined =
                DocumentTask.forName("embed")
                        .combineParts(parts("embed", List.of(), new float[0][]), 0);
        assertThat(combined.path("chunks").asInt()).isEqualTo(CHUNKS);
        for (int k = 0; k < EncoderModel.MINILM_L6_V2_FP32.hiddenSize(); k++) {
            assertThat(combined.path("vector").path(k).asDouble())
                    .isCloseTo(whole.path("vector").path(k).asDouble(), within(1e-6));
        }
        // per section too: methods spans parts 2 and 3
        JsonNode wholeMethods = whole.path("scopes").path(1);
        JsonNode combinedMethods = combined.path("scopes").path(1);
        assertThat(combinedMethods.path("scope").asText()).isEqualTo("section:methods");
        assertThat(combinedMethods.path("chunks").asInt()).isEqualTo(8);
        for (int k = 0; k < EncoderModel.MINILM_L6_V2_FP32.hiddenSize(); k++) {
            assertThat(combinedMethods.path("vector").path(k).asDouble())
                    .isCloseTo(wholeMethods.path("vector").path(k).asDouble(), within(1e-6));
        }
    }

    @Test
    void classificationAnswersAndFieldsOfPartsMatchTheWholeDocument() throws Exception {
        List<String> labels = List.of("alpha", "beta", "gamma");
        float[][] qv = {vectors[3], unit(), vectors[25]}; // alpha ~ part 1, gamma ~ part 3
        JsonNode whole = decode("classify", 0, CHUNKS, labels, qv);
        JsonNode combined =
                DocumentTask.forName("classify").combineParts(parts("classify", labels, qv), 0);
        assertThat(combined.path("label").asText()).isEqualTo(whole.path("label").asText());
        for (int l = 0; l < labels.size(); l++) {
            assertThat(combined.path("scores").path(l).path("label").asText())
                    .isEqualTo(whole.path("scores").path(l).path("label").asText());
            assertThat(combined.path("scores").path(l).path("similarity").asDouble())
                    .isCloseTo(
                            whole.path("scores").path(l).path("similarity").asDouble(),
                            within(2e-4));
        }

        float[][] question = {vectors[22]};
        JsonNode answer =
                DocumentTask.forName("answer")
                        .combineParts(parts("answer", List.of("q"), question), 0);
        assertThat(answer.path("passage").asText()).isEqualTo("s22");
        assertThat(answer.path("part").asInt()).isEqualTo(2);

        float[][] fieldVectors = {vectors[5], vectors[14]};
        JsonNode fields =
                DocumentTask.forName("extract")
                        .combineParts(parts("extract", List.of("f1", "f2"), fieldVectors), 0);
        assertThat(fields.path("fields").path(0).path("text").asText()).isEqualTo("s5");
        assertThat(fields.path("fields").path(1).path("text").asText()).isEqualTo("s14");
    }

    @Test
    void summariesKeepTheMostCentralPicksInDocumentOrderAndPerSection() throws Exception {
        JsonNode combined =
                DocumentTask.forName("summarize")
                        .combineParts(parts("summarize", List.of(), new float[0][]), 4);
        JsonNode sentences = combined.path("sentences");
        assertThat(sentences).hasSize(4);
        List<Integer> order = new ArrayList<>();
        sentences.forEach(s -> order.add(Integer.parseInt(s.path("text").asText().substring(1))));
        assertThat(order).isSorted();
        assertThat(combined.path("candidates").asInt()).isEqualTo(CHUNKS);
        assertThat(combined.path("sections").fieldNames())
                .toIterable()
                .containsExactly("section:intro", "section:methods", "section:end");
        assertThat(DocumentTask.forName("summarize").text(combined)).contains("s" + order.get(0));
    }
}
