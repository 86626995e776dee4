package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.operators.structure.DocumentContent;
import java.util.List;

/**
 * Field extraction by retrieval: for each requested field ({@code <fields>party, due
 * date</fields>}) the sentence most similar to the field's name, with its score and offsets. It
 * finds where a field is stated; it does not generate a normalised value. A split document keeps,
 * per field, the best-scoring part's sentence: sentences are scored alone, so that is exact.
 */
final class FieldExtraction implements DocumentTask {
    @Override
    public boolean queriesSearchPassages() {
        return true;
    }

    @Override
    public List<String> queryTexts(DocumentContent content) {
        return content.fields();
    }

    @Override
    public TaskResult decode(TaskInput in, String outputFormat) {
        List<String> fields = in.content().fields();
        ObjectNode root = JSON.createObjectNode();
        ArrayNode arr = root.putArray("fields");
        StringBuilder text = new StringBuilder();
        for (int f = 0; f < fields.size(); f++) {
            BestChunk best = BestChunk.of(in.queryVectors()[f], in.chunkVectors());
            double bestScore = best.score();
            Chunk c = in.chunks().get(best.index());
            arr.addObject()
                    .put("field", fields.get(f))
                    .put("text", c.text().strip())
                    .put("scope", c.scope())
                    .put("start", c.start())
                    .put("end", c.end())
                    .put("score", DocumentTask.round(bestScore));
            text.append(fields.get(f)).append(": ").append(c.text().strip()).append('\n');
        }
        long flops =
                DocumentTask.similarityFlops(
                        fields.size(), in.chunkVectors().length, in.dimensions());
        return new TaskResult(
                outputFormat.equals("json") ? DocumentTask.json(root) : text.toString().strip(),
                flops);
    }

    @Override
    public ObjectNode combineParts(List<JsonNode> parts, int sentences) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode arr = root.putArray("fields");
        int fields = parts.get(0).path("fields").size();
        for (int f = 0; f < fields; f++) {
            int best = 0;
            for (int p = 1; p < parts.size(); p++) {
                if (parts.get(p).path("fields").path(f).path("score").asDouble()
                        > parts.get(best).path("fields").path(f).path("score").asDouble()) {
                    best = p;
                }
            }
            arr.add(ExtractiveSummary.withPart(parts.get(best).path("fields").path(f), best));
        }
        root.put("parts", parts.size());
        return root;
    }

    @Override
    public String text(JsonNode result) {
        StringBuilder text = new StringBuilder();
        for (JsonNode f : result.path("fields")) {
            text.append(f.path("field").asText())
                    .append(": ")
                    .append(f.path("text").asText())
                    .append('\n');
        }
        return text.toString().strip();
    }
}
