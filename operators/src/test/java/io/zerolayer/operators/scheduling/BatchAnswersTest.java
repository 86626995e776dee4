package io.zerolayer.operators.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.execution.BatchRunner;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.execution.TicketGraph;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.replies.ReplyAssembler;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A batch's answers, on real runs: every request answered once, whatever failed. */
class BatchAnswersTest {
    private static TicketGraph ticket;
    private static EncoderPool encoders;
    private static CompiledGraph graph;
    private static List<CompiledGraph.BatchInput> inputs;

    private final List<Reply> replies = new ArrayList<>();
    private final List<KernelCostRecord> costs = new ArrayList<>();
    private final List<ExecutionGraph> descriptors = new ArrayList<>();
    private final BatchAnswers.Out out =
            BatchAnswers.Out.of((in, reply) -> replies.add(reply), costs::add, descriptors::add);

    /** The batches the slot reported: how many requests each, and whether it fell back. */
    private final List<String> batchesRan = new ArrayList<>();

    private final SlotMetrics metrics =
            new SlotMetrics() {
                @Override
                public void batchRan(int requests, BatchRunner.Outcome outcome) {
                    batchesRan.add(requests + (outcome.fellBack() ? " fell back" : ""));
                }
            };

    private final BatchAnswers answers =
            new BatchAnswers(
                    new ReplyAssembler("cpu-generic", () -> "", 0.15), metrics, () -> "test cpu");

    @BeforeAll
    static void open() {
        ticket = new TicketGraph();
        encoders = ticket.encoders;
        graph = ticket.graph;
        inputs = List.of(ticket.input(), ticket.input());
    }

    @AfterAll
    static void close() {
        ticket.close();
    }

    private static List<RoutedRequest> requests(String... ids) {
        List<RoutedRequest> out = new ArrayList<>();
        for (String id : ids) {
            out.add(
                    RoutedRequest.routed(
                            AnalysisRequest.newBuilder()
                                    .setRequestId(id)
                                    .setTenantId("acme")
                                    .setPrompt("p")
                                    .setSubmittedAt(Instant.EPOCH)
                                    .build(),
                            new ReplyRoute(),
                            ticket.decision(),
                            "g#0",
                            0,
                            0));
        }
        return out;
    }

    @Test
    void eachRequestOfABatchIsAnsweredOnceWithItsCostRecords() {
        BatchRunner.Outcome ran =
                new BatchRunner(0, BatchRunner.Faults.NONE)
                        .run(graph, inputs, java.util.Arrays.asList(null, null));
        answers.batch(graph, requests("a", "b"), new long[] {300, 0}, ran, out);
        assertThat(replies).extracting(r -> r.response.getRequestId()).containsExactly("a", "b");
        assertThat(replies)
                .allSatisfy(r -> assertThat(r.response.getStatus()).isEqualTo(ResponseStatus.OK));
        assertThat(replies.get(0).response.getTimings().getCompileMicros()).isEqualTo(300);
        assertThat(costs).hasSize(2 * ran.outcomes().get(0).run().nodeRuns().size());
        assertThat(batchesRan).containsExactly("2");
    }

    @Test
    void aFailedBatchOrRequestIsAnsweredFailedAndTheOthersStillAre() {
        answers.batch(
                graph,
                requests("x", "y"),
                new long[2],
                new BatchRunner.Outcome(
                        null, null, new IllegalStateException("both failed"), true, 0, 0),
                out);
        BatchRunner.Outcome ran =
                new BatchRunner(0, BatchRunner.Faults.NONE)
                        .run(graph, inputs, java.util.Arrays.asList(null, null));
        List<CompiledGraph.BatchOutcome> oneBroken =
                List.of(
                        ran.outcomes().get(0),
                        new CompiledGraph.BatchOutcome(
                                null, new IllegalArgumentException("no text")));
        answers.batch(
                graph,
                requests("ok", "broken"),
                new long[2],
                new BatchRunner.Outcome(oneBroken, null, null, false, 1, 1),
                out);
        assertThat(replies)
                .extracting(r -> r.response.getRequestId() + ":" + r.response.getStatus())
                .containsExactly("x:FAILED", "y:FAILED", "ok:OK", "broken:FAILED");
        assertThat(batchesRan).containsExactly("2 fell back", "2");
    }

    @Test
    void aGraphsMeasuredTimesAreRepublishedAfterItsFifthRun() {
        // a graph of its own: the others' runs count towards the shared one's timings
        CompiledGraph fresh = new CompiledGraph(graph.plan(), encoders);
        for (int i = 0; i < 5; i++) {
            assertThat(descriptors).as("not before the fifth run").isEmpty();
            BatchRunner.Outcome ran =
                    new BatchRunner(0, BatchRunner.Faults.NONE)
                            .run(
                                    graph,
                                    inputs.subList(0, 1),
                                    java.util.Arrays.asList((Instant) null));
            answers.batch(graph, requests("r" + i), new long[1], ran, out);
        }
        assertThat(descriptors).hasSize(1);
        assertThat(descriptors.get(descriptors.size() - 1).getHardwareReport())
                .isEqualTo("test cpu");
    }
}
