package io.zerolayer.bench;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The encoder work of a request stream as ZeroLayer's executor would do it: each request classified
 * and compiled for this machine's hardware profile exactly as a slot compiles it, then tokenized
 * and chunked by its {@link CompiledGraph} — the sequences and the model its run would encode. The
 * ceiling replays these sequences on the bare encoder; the naive baseline takes its per-task model
 * from them so all systems do the same encoder work.
 */
final class EncoderWork {
    /** One request's encoder input. */
    record Item(String requestId, String task, EncoderModel model, List<long[]> sequences) {
        /** Real tokens encoded, with [CLS] and [SEP], as a graph run counts them. */
        long tokens() {
            long t = 0;
            for (long[] s : sequences) {
                t += Math.min(s.length, SentenceEncoder.MAX_SEQUENCE_LENGTH - 2) + 2;
            }
            return t;
        }
    }

    private final List<Item> items;

    private EncoderWork(List<Item> items) {
        this.items = List.copyOf(items);
    }

    /**
     * @throws IllegalArgumentException if a request does not compile (the workloads only make
     *     prompts that do)
     */
    static EncoderWork of(
            List<Workload.Request> requests,
            TaskContracts contracts,
            String hardwareSetting,
            int intraOpThreads,
            EncoderPool pool) {
        HardwareFingerprint hardware =
                HardwareFingerprint.resolve(hardwareSetting, HardwareProfiles.builtIn());
        CostEstimator estimator =
                new CostEstimator(hardware.profile(), hardware.primary(), intraOpThreads);
        GraphCompiler compiler =
                new GraphCompiler(
                        GraphIdentity.current(
                                contracts.version(),
                                hardware.profile().id() + "@" + hardware.profile().fingerprint()),
                        estimator);
        StructureClassifier classifier = new StructureClassifier(contracts);
        Map<String, CompiledGraph> graphs = new HashMap<>();
        List<Item> items = new ArrayList<>(requests.size());
        for (Workload.Request r : requests) {
            ClassifiedPrompt classified = classifier.classify(r.prompt());
            if (!classified.compiles()) {
                throw new IllegalArgumentException(
                        "Benchmark request "
                                + r.id()
                                + " does not compile: "
                                + classified.diagnostics());
            }
            ExecutionPlan plan = compiler.compile(classified);
            CompiledGraph graph =
                    graphs.computeIfAbsent(plan.graphId(), id -> new CompiledGraph(plan, pool));
            items.add(
                    new Item(
                            r.id(),
                            classified.task(),
                            graph.model(),
                            graph.encoderSequences(
                                    CompiledGraph.BatchInput.of(classified.parsed()))));
        }
        return new EncoderWork(items);
    }

    /** All the items of several streams, as one. */
    static EncoderWork merge(List<EncoderWork> works) {
        List<Item> all = new ArrayList<>();
        works.forEach(w -> all.addAll(w.items));
        return new EncoderWork(all);
    }

    List<Item> items() {
        return items;
    }

    long tokens() {
        return items.stream().mapToLong(Item::tokens).sum();
    }

    long sequences() {
        return items.stream().mapToLong(i -> i.sequences().size()).sum();
    }

    double tokensPerRequest() {
        return items.isEmpty() ? 0 : (double) tokens() / items.size();
    }

    /** The model each task's requests mostly run on: what a hand-written job would hard-code. */
    Map<String, EncoderModel> taskModels() {
        Map<String, Map<EncoderModel, Long>> counts = new LinkedHashMap<>();
        for (Item i : items) {
            counts.computeIfAbsent(i.task(), t -> new java.util.LinkedHashMap<>())
                    .merge(i.model(), i.tokens(), Long::sum);
        }
        Map<String, EncoderModel> out = new LinkedHashMap<>();
        counts.forEach(
                (task, byModel) ->
                        out.put(
                                task,
                                byModel.entrySet().stream()
                                        .max(Map.Entry.comparingByValue())
                                        .orElseThrow()
                                        .getKey()));
        return out;
    }

    /** Share of encoder tokens whose model differs from {@link #taskModels()}'s for the task. */
    double tokensOffTaskModel() {
        Map<String, EncoderModel> table = taskModels();
        long off = 0;
        for (Item i : items) {
            if (table.get(i.task()) != i.model()) {
                off += i.tokens();
            }
        }
        long all = tokens();
        return all == 0 ? 0 : (double) off / all;
    }
}
