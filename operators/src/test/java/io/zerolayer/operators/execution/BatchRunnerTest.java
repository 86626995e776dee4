package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.contracts.DiagnosticCodes;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The main path, the fallback and failures of a batch, on the real encoders. */
class BatchRunnerTest {
    private static TicketGraph ticket;
    private static CompiledGraph graph;
    private static List<CompiledGraph.BatchInput> inputs;

    @BeforeAll
    static void open() {
        ticket = new TicketGraph();
        graph = ticket.graph;
        inputs = List.of(ticket.input(), ticket.input());
    }

    @AfterAll
    static void close() {
        ticket.close();
    }

    private static List<Instant> noDeadlines() {
        return Arrays.asList(null, null);
    }

    @Test
    void aBatchRunsOnTheMainPath() {
        BatchRunner.Outcome o =
                new BatchRunner(0, BatchRunner.Faults.NONE).run(graph, inputs, noDeadlines());
        assertThat(o.failure()).isNull();
        assertThat(o.fellBack()).isFalse();
        assertThat(o.fallbackNote()).isNull();
        assertThat(o.outcomes()).hasSize(2).allSatisfy(r -> assertThat(r.error()).isNull());
        assertThat(o.sequences()).isPositive();
    }

    @Test
    void aFailingMainPathIsAnsweredByTheFallbackWithANoteSayingWhy() {
        BatchRunner runner = new BatchRunner(0, new BatchRunner.Faults(2, false));
        assertThat(runner.run(graph, inputs, noDeadlines()).fellBack()).isFalse();
        BatchRunner.Outcome second = runner.run(graph, inputs, noDeadlines());
        assertThat(second.fellBack()).isTrue();
        assertThat(second.failure()).isNull();
        assertThat(second.outcomes()).hasSize(2);
        assertThat(second.fallbackNote().getCode()).isEqualTo(DiagnosticCodes.FALLBACK_USED);
        assertThat(second.fallbackNote().getMessage())
                .contains("fail-main-every-nth-batch")
                .contains("on the CPU");
        // the same output either way: the fallback runs the same task on another encoder
        assertThat(second.outcomes().get(0).run().output()).startsWith("{\"label\"");
    }

    @Test
    void whenTheFallbackFailsTooTheBatchFailsNamingBoth() {
        BatchRunner.Outcome o =
                new BatchRunner(0, new BatchRunner.Faults(1, true))
                        .run(graph, inputs, noDeadlines());
        assertThat(o.outcomes()).isNull();
        assertThat(o.fellBack()).isTrue();
        assertThat(o.failure().getMessage()).contains("main path:").contains("fallback:");
    }

    @Test
    void theMainPathStopsAtTheEarliestDeadlineOrTheTimeout() {
        long start = 1_000_000_000L;
        long now = 5_000;
        assertThat(BatchRunner.mainPathDeadline(start, 0, noDeadlines(), now))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(BatchRunner.mainPathDeadline(start, 200, noDeadlines(), now))
                .isEqualTo(start + 200_000_000L);
        assertThat(
                        BatchRunner.mainPathDeadline(
                                start,
                                200,
                                Arrays.asList(
                                        Instant.ofEpochMilli(now + 50),
                                        Instant.ofEpochMilli(now + 80)),
                                now))
                .isEqualTo(start + 50_000_000L);
        // a deadline already past leaves no time at all
        assertThat(
                        BatchRunner.mainPathDeadline(
                                start, 0, List.of(Instant.ofEpochMilli(now - 10)), now))
                .isEqualTo(start);
    }
}
