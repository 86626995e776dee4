package io.zerolayer.operators.tasks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.operators.execution.Chunk;
import io.zerolayer.operators.structure.DocumentContent;
import java.util.List;

/**
 * Field extraction by retrieval: for each requested field ({@code <fields>party, due
 * date</fields>}) the sentence most similar to the field's name, with its score and offsets. It
 * finds where a field is stated; it does not generate a normalised value.
 */
final class FieldExtraction implements DocumentTask {
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
        long flops = DocumentTask.similarityFlops(fields.size(), in.chunkVectors().length);
        return new TaskResult(
                outputFormat.equals("json") ? DocumentTask.json(root) : text.toString().strip(),
                flops);
    }
}
