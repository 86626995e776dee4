package io.zerolayer.operators.scheduling;

import io.zerolayer.operators.execution.BatchRunner;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.GraphRun;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.replies.ReplyAssembler;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.schemas.Diagnostic;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.KernelCostRecord;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the requests of a batch that ran: one reply each (FAILED for a request, or a whole batch,
 * that failed), the cost records of the kernels each ran, a graph descriptor republished with its
 * measured node times now and then, and the slot's metrics. Whatever goes wrong with one request's
 * answer fails that request, never the job.
 */
public final class BatchAnswers {
    private static final Logger LOG = LoggerFactory.getLogger(BatchAnswers.class);

    /** Where a slot's answers go: in the function, Flink's collector and side outputs. */
    public interface Out {
        /** The reply to request {@code in}. */
        void reply(RoutedRequest in, Reply reply);

        void costRecord(KernelCostRecord record);

        void descriptor(ExecutionGraph descriptor);

        static Out of(
                java.util.function.BiConsumer<RoutedRequest, Reply> replies,
                java.util.function.Consumer<KernelCostRecord> costRecords,
                java.util.function.Consumer<ExecutionGraph> descriptors) {
            return new Out() {
                @Override
                public void reply(RoutedRequest in, Reply reply) {
                    replies.accept(in, reply);
                }

                @Override
                public void costRecord(KernelCostRecord record) {
                    costRecords.accept(record);
                }

                @Override
                public void descriptor(ExecutionGraph descriptor) {
                    descriptors.accept(descriptor);
                }
            };
        }
    }

    private final ReplyAssembler replies;
    private final SlotMetrics metrics;
    private final Supplier<String> hardwareReport;

    public BatchAnswers(
            ReplyAssembler replies, SlotMetrics metrics, Supplier<String> hardwareReport) {
        this.replies = replies;
        this.metrics = metrics;
        this.hardwareReport = hardwareReport;
    }

    /**
     * Answers a batch of {@code graph} that ran as {@code done}.
     *
     * @param compileMicros per request, how long compiling the graph took when it was compiled for
     *     that request, else 0
     */
    void batch(
            CompiledGraph graph,
            List<RoutedRequest> requests,
            long[] compileMicros,
            BatchRunner.Outcome done,
            Out out) {
        String graphId = graph.plan().graphId();
        metrics.batchRan(requests.size(), done);
        if (done.failure() != null) {
            requests.forEach(in -> failed(in, graphId, done.failure(), out));
            return;
        }
        for (int i = 0; i < requests.size(); i++) {
            RoutedRequest in = requests.get(i);
            CompiledGraph.BatchOutcome outcome = done.outcomes().get(i);
            if (outcome.error() != null) {
                failed(in, graphId, outcome.error(), out);
                continue;
            }
            try {
                ran(
                        in,
                        graph,
                        outcome.run(),
                        done.fallbackNote(),
                        done.executeMicros(),
                        compileMicros[i],
                        out);
            } catch (RuntimeException e) {
                failed(in, graphId, e, out);
            }
        }
    }

    private void ran(
            RoutedRequest in,
            CompiledGraph graph,
            GraphRun run,
            Diagnostic fallbackNote,
            long executeMicros,
            long compileMicros,
            Out out) {
        ReplyAssembler.Answer answer =
                replies.ok(in, graph, run, fallbackNote, executeMicros, compileMicros);
        answer.costs().forEach(out::costRecord);
        metrics.kernels(in.request().getTenantId(), run.nodeRuns());
        if (answer.pruned()) {
            metrics.prunedRequest();
        }
        if (fallbackNote == null) {
            graph.timings().record(run);
            if (graph.timings().worthPublishing()) {
                // the compacted graphs topic keeps the latest: inspect shows measured p50s
                out.descriptor(graph.descriptor(hardwareReport.get()));
            }
        }
        reply(in, answer.reply(), out);
    }

    /** Answers a request FAILED: it is never dropped, and the job keeps going. */
    void failed(RoutedRequest in, String graphId, Throwable e, Out out) {
        LOG.warn("Request {} on graph {} failed", in.request().getRequestId(), graphId, e);
        reply(in, replies.failed(in, graphId, e), out);
    }

    /** Sends a request's reply and counts it (a whole request's). */
    void reply(RoutedRequest in, Reply reply, Out out) {
        out.reply(in, reply);
        if (in.decision().part() == null) {
            // a part is not a response: its request's one reply is counted where it is joined
            metrics.replied(reply.response, System.currentTimeMillis() - in.receivedAtMillis());
        }
    }
}
