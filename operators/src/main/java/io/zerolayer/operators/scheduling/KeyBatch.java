package io.zerolayer.operators.scheduling;

import io.zerolayer.operators.execution.InferenceThread;
import io.zerolayer.operators.execution.SliceBoundary;
import java.util.ArrayList;
import java.util.List;

/**
 * A key's batch on the inference thread: its graphs' batches, which may run in one encoder pass
 * with other keys' of the same encoder group, unless one of its requests runs alone.
 */
public record KeyBatch(
        List<SlotBatches.GraphBatch> graphBatches, SlotBatches batches, SliceBoundary slices)
        implements InferenceThread.Shareable<List<SlotBatches.Executed>> {
    @Override
    public List<SlotBatches.Executed> call() {
        return batches.executeTogether(graphBatches, slices);
    }

    @Override
    public Object group() {
        Object group = null;
        for (SlotBatches.GraphBatch b : graphBatches) {
            if (b.alone() || (group != null && !group.equals(b.graph().encoderGroup()))) {
                return null;
            }
            group = b.graph().encoderGroup();
        }
        return group;
    }

    @Override
    public long paddedTokens() {
        return graphBatches.stream().mapToLong(SlotBatches.GraphBatch::paddedTokens).sum();
    }

    @Override
    public List<List<SlotBatches.Executed>> runWith(
            List<InferenceThread.Shareable<List<SlotBatches.Executed>>> others) {
        List<KeyBatch> all = new ArrayList<>(others.size() + 1);
        all.add(this);
        others.forEach(o -> all.add((KeyBatch) o));
        List<SlotBatches.GraphBatch> together = new ArrayList<>();
        all.forEach(k -> together.addAll(k.graphBatches()));
        List<SlotBatches.Executed> executed = batches.executeTogether(together, slices);
        List<List<SlotBatches.Executed>> byKey = new ArrayList<>(all.size());
        int from = 0;
        for (KeyBatch k : all) {
            int to = from + k.graphBatches().size();
            byKey.add(executed.subList(from, to));
            from = to;
        }
        return byKey;
    }
}
