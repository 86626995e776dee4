package io.zerolayer.operators.replies;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.DiagnosticCodes;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.GraphRun;
import io.zerolayer.operators.execution.TicketGraph;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.Diagnostic;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Replies and cost records of an executor slot, built from real runs of a classify graph. */
class ReplyAssemblerTest {
    private static final String PROMPT = TicketGraph.PROMPT;
    private static TicketGraph ticket;
    private static CompiledGraph graph;
    private static ClassifiedPrompt classified;
    private final ReplyAssembler assembler =
            new ReplyAssembler("cpu-generic", () -> "12% free", 0.2);

    @BeforeAll
    static void open() {
        ticket = new TicketGraph();
        graph = ticket.graph;
        classified = ticket.classified;
    }

    @AfterAll
    static void close() {
        ticket.close();
    }

    private static RoutedRequest request() {
        return request(ticket.decision());
    }

    private static RoutedRequest request(RequestDecision decision) {
        return RoutedRequest.routed(
                AnalysisRequest.newBuilder()
                        .setRequestId("r-1")
                        .setTenantId("acme")
                        .setPrompt(PROMPT)
                        .setSubmittedAt(Instant.parse("2026-12-05T00:00:00Z"))
                        .setAttributes(Map.of("ticket", "42"))
                        .build(),
                new ReplyRoute(),
                decision,
                "g#0",
                70,
                0);
    }

    private static GraphRun run(boolean prune) {
        return graph.executeBatch(
                        List.of(
                                CompiledGraph.BatchInput.of(
                                        classified.parsed(),
                                        new CompiledGraph.RunMode(prune, java.util.Set.of()))),
                        Long.MAX_VALUE,
                        io.zerolayer.operators.execution.SliceBoundary.NONE)
                .get(0)
                .run();
    }

    @Test
    void aRequestThatRanIsAnsweredInFullWithACostRecordPerKernel() {
        GraphRun run = run(false);
        ReplyAssembler.Answer a = assembler.ok(request(), graph, run, null, 900, 300);
        var response = a.reply().response;
        assertThat(response.getStatus()).isEqualTo(ResponseStatus.OK);
        assertThat(response.getFidelity()).isEqualTo(Fidelity.FULL);
        assertThat(response.getGraphId()).isEqualTo(graph.plan().graphId());
        assertThat(response.getOutput()).isEqualTo(run.output());
        assertThat(response.getAttributes()).containsEntry("ticket", "42");
        assertThat(response.getTimings().getCompileMicros()).isEqualTo(300);
        assertThat(response.getTimings().getExecuteMicros()).isEqualTo(900);
        assertThat(response.getCost().getKernels()).isEqualTo(run.nodeRuns().size());
        assertThat(a.costs()).hasSize(run.nodeRuns().size());
        assertThat(a.costs())
                .extracting(KernelCostRecord::getHardwareProfile)
                .containsOnly("cpu-generic");
        assertThat(a.costs()).extracting(KernelCostRecord::getRecordId).doesNotHaveDuplicates();
        assertThat(a.pruned()).isFalse();
    }

    @Test
    void theFallbackPathAndPruningReduceFidelityAndSayWhy() {
        Diagnostic note =
                new Diagnostic(DiagnosticCodes.FALLBACK_USED, "warning", 0, 0, "main failed", null);
        ReplyAssembler.Answer fell = assembler.ok(request(), graph, run(false), note, 1, 0);
        assertThat(fell.reply().response.getFidelity()).isEqualTo(Fidelity.REDUCED);
        assertThat(fell.reply().response.getDiagnostics()).contains(note);
        assertThat(fell.costs()).extracting(KernelCostRecord::getDevice).containsOnly("cpu");

        ReplyAssembler.Answer pruned = assembler.ok(request(), graph, run(true), null, 1, 0);
        assertThat(pruned.pruned()).isTrue();
        assertThat(pruned.reply().response.getFidelity()).isEqualTo(Fidelity.REDUCED);
        assertThat(pruned.reply().response.getDiagnostics())
                .anySatisfy(
                        d -> {
                            assertThat(d.getCode()).isEqualTo(DiagnosticCodes.NODES_PRUNED);
                            assertThat(d.getMessage()).contains("12% free").contains("20%");
                        });

        RoutedRequest safe =
                request(
                        RequestDecision.safe(
                                new StructureClassifier().classify("<task:summarize><a><b>"),
                                new GraphCompiler(
                                        GraphIdentity.current("t", GraphIdentity.ANY_HARDWARE)),
                                1000));
        assertThat(assembler.ok(safe, graph, run(false), null, 1, 0).reply().response.getFidelity())
                .isEqualTo(Fidelity.SAFE_MODE);
    }

    @Test
    void failuresAndPassedDeadlinesAreAnsweredFailedWithTheirCode() {
        var failed = assembler.failed(request(), "g", new IllegalStateException("boom")).response;
        assertThat(failed.getStatus()).isEqualTo(ResponseStatus.FAILED);
        assertThat(failed.getDiagnostics().get(0).getCode())
                .isEqualTo(DiagnosticCodes.EXECUTION_FAILED);
        assertThat(failed.getDiagnostics().get(0).getMessage()).contains("boom");

        RoutedRequest late = request();
        late.request().setDeadline(Instant.parse("2026-12-05T00:00:01Z"));
        assertThat(assembler.deadlinePassed(late, Instant.parse("2026-12-05T00:00:01Z"))).isNull();
        var passed = assembler.deadlinePassed(late, Instant.parse("2026-12-05T00:00:02Z"));
        assertThat(passed.response.getDiagnostics().get(0).getCode())
                .isEqualTo(DiagnosticCodes.DEADLINE_PASSED);
        assertThat(assembler.deadlinePassed(request(), Instant.MAX)).isNull();
    }
}
