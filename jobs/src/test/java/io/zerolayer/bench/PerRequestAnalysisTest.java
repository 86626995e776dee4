package io.zerolayer.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.execution.NodeRun;
import io.zerolayer.operators.execution.PerRequestAnalysis;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The baselines must do the same work as a compiled graph, or the comparison measures something
 * else: the same answer from the same encoder sequences.
 */
class PerRequestAnalysisTest {
    private static final TaskContracts CONTRACTS =
            TaskContracts.parse(ComparisonBench.benchContracts());
    private static EncoderPool pool;

    @BeforeAll
    static void open() {
        pool = new EncoderPool(1);
    }

    @AfterAll
    static void close() {
        pool.close();
    }

    /** Short requests of every workload: triage, embed, answer, summarize, strict contracts. */
    private static List<Workload.Request> requests() {
        List<Workload.Request> out = new ArrayList<>();
        out.addAll(Workload.CUSTOMER_SERVICE.take(11, 3));
        out.addAll(Workload.UNIQUE.take(11, 3));
        out.addAll(Workload.CONTRACT_REVIEW.take(11, 2));
        // the mixed stream's other short tasks, two of each
        Map<String, Integer> taken = new java.util.HashMap<>();
        for (Workload.Request r : Workload.MIXED.take(11, 1000)) {
            for (String task : List.of("embed", "answer", "summarize")) {
                if (r.prompt().startsWith("<task:" + task)
                        && !r.prompt().contains("<contract ")
                        && taken.merge(task, 1, Integer::sum) <= 2) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    @Test
    void theBaselineAnswersAsTheCompiledGraphDoes() {
        StructureClassifier classifier = new StructureClassifier(CONTRACTS);
        GraphCompiler compiler =
                new GraphCompiler(
                        GraphIdentity.current(CONTRACTS.version(), GraphIdentity.ANY_HARDWARE));
        Set<String> tasks = new java.util.TreeSet<>();
        for (Workload.Request r : requests()) {
            ClassifiedPrompt c = classifier.classify(r.prompt());
            ExecutionPlan plan = compiler.compile(c);
            CompiledGraph graph = new CompiledGraph(plan, pool);
            boolean strict = "strict".equals(r.attributes().get("compliance"));
            CompiledGraph.RunMode mode =
                    strict
                            ? new CompiledGraph.RunMode(false, Set.of("redact", "audit"))
                            : CompiledGraph.RunMode.STANDARD;
            String expected =
                    graph.executeBatch(List.of(CompiledGraph.BatchInput.of(c.parsed(), mode)))
                            .get(0)
                            .run()
                            .output();
            SentenceEncoder session = pool.get(graph.model());
            String actual =
                    PerRequestAnalysis.analyse(
                            c.parsed(), c.contract().decoder(), c.outputFormat(), strict, session);
            assertThat(actual).as(r.id()).isEqualTo(expected);
            tasks.add(c.task());
        }
        assertThat(tasks).contains("triage", "extract", "answer", "embed", "summarize");
    }

    @Test
    void encoderWorkIsTheSequencesAGraphRunEncodes() {
        List<Workload.Request> requests = requests();
        EncoderWork work = EncoderWork.of(requests, CONTRACTS, "auto", 1, pool);
        assertThat(work.items()).hasSize(requests.size());
        StructureClassifier classifier = new StructureClassifier(CONTRACTS);
        GraphCompiler compiler =
                new GraphCompiler(
                        GraphIdentity.current(CONTRACTS.version(), GraphIdentity.ANY_HARDWARE));
        for (int i = 0; i < requests.size(); i++) {
            ClassifiedPrompt c = classifier.classify(requests.get(i).prompt());
            long encoded =
                    new CompiledGraph(compiler.compile(c), pool)
                            .execute(c.parsed()).nodeRuns().stream()
                                    .filter(n -> n.kind().equals("encode"))
                                    .mapToLong(NodeRun::tokens)
                                    .sum();
            assertThat(work.items().get(i).tokens()).as(requests.get(i).id()).isEqualTo(encoded);
        }
        assertThat(work.tokensPerRequest()).isEqualTo((double) work.tokens() / requests.size());
    }
}
