package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.operators.structure.DocumentContent;
import java.util.List;

/**
 * Question answering by passage retrieval: the chunk most similar to the question, with its score
 * and character offsets in the prompt. A split document's answer is its best part's: passages are
 * scored alone, so that is the whole document's best passage (bar windows across a part break).
 */
final class PassageAnswer implements DocumentTask {
    @Override
    public boolean queriesSearchPassages() {
        return true;
    }

    @Override
    public List<String> queryTexts(DocumentContent content) {
        return List.of(content.question());
    }

    @Override
    public TaskResult decode(TaskInput in, String outputFormat) {
        BestChunk best = BestChunk.of(in.queryVectors()[0], in.chunkVectors());
        double bestScore = best.score();
        Chunk c = in.chunks().get(best.index());
        long flops = DocumentTask.similarityFlops(1, in.chunkVectors().length, in.dimensions());
        if (outputFormat.equals("json")) {
            ObjectNode root = JSON.createObjectNode();
            root.put("question", in.content().question());
            root.put("passage", c.text().strip())
                    .put("scope", c.scope())
                    .put("start", c.start())
                    .put("end", c.end())
                    .put("score", DocumentTask.round(bestScore));
            return new TaskResult(DocumentTask.json(root), flops);
        }
        return new TaskResult(c.text().strip(), flops);
    }

    @Override
    public ObjectNode combineParts(List<JsonNode> parts, int sentences) {
        int best = 0;
        for (int p = 1; p < parts.size(); p++) {
            if (parts.get(p).path("score").asDouble() > parts.get(best).path("score").asDouble()) {
                best = p;
            }
        }
        ObjectNode root = ExtractiveSummary.withPart(parts.get(best), best);
        root.put("parts", parts.size());
        return root;
    }

    @Override
    public String text(JsonNode result) {
        return result.path("passage").asText();
    }
}
