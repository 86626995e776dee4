package io.zerolayer.sql;

import io.zerolayer.operators.scheduling.InProcessAnalyzer;
import io.zerolayer.schemas.AnalysisRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncPredictFunction;
import org.apache.flink.table.functions.FunctionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ML_PREDICT} on a ZeroLayer model, batched: Flink's async operator keeps up to its capacity
 * of rows in flight ({@code table.exec.async-ml-predict.max-concurrent-operations}), each an {@link
 * #asyncPredict} call that queues the row; one inference thread per function instance takes up to
 * half that many queued rows at once and answers them with an {@link InProcessAnalyzer} (compiled
 * once per structure, warm after, the executor's micro-batches and encoder passes), completing each
 * row as its micro-batch finishes, so the rows that arrive meanwhile form the next batch.
 */
public final class BatchingPredictFunction extends AsyncPredictFunction {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(BatchingPredictFunction.class);

    private final ZeroLayerModel model;

    private transient InProcessAnalyzer analyzer;
    private transient BlockingQueue<Pending> queue;
    private transient Thread inference;
    private transient volatile boolean closed;

    private record Pending(AnalysisRequest request, CompletableFuture<Collection<RowData>> reply) {}

    BatchingPredictFunction(ZeroLayerModel model) {
        this.model = model;
    }

    @Override
    public void open(FunctionContext context) throws Exception {
        analyzer = InProcessAnalyzer.open(model.analyzer());
        queue = new LinkedBlockingQueue<>();
        closed = false;
        inference = new Thread(this::answerBatches, "zerolayer-ml-predict-" + model.task().task());
        inference.setDaemon(true);
        inference.start();
    }

    @Override
    public CompletableFuture<Collection<RowData>> asyncPredict(RowData input) {
        CompletableFuture<Collection<RowData>> reply = new CompletableFuture<>();
        String text = input.isNullAt(0) ? "" : input.getString(0).toString();
        queue.add(new Pending(request(text), reply));
        return reply;
    }

    /** A row's request: its document under the model's task, as zerolayer analyze writes it. */
    AnalysisRequest request(String text) {
        return AnalysisRequest.newBuilder()
                .setRequestId("sql-" + UUID.randomUUID())
                .setTenantId(model.tenant())
                .setPrompt(model.task().promptForText(text, model.format()))
                .setSubmittedAt(Instant.now())
                .setAttributes(model.attributes())
                .build();
    }

    /** The inference thread: batches of the queued rows, until closed. */
    private void answerBatches() {
        List<Pending> batch = new ArrayList<>();
        while (!closed) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            // half the rows Flink keeps in flight: the other half queue up meanwhile and are the
            // next batch, so the encoder never waits for Flink to send more
            queue.drainTo(batch, Math.max(1, model.inFlight() / 2) - 1);
            try {
                // each row as its micro-batch finishes: Flink takes in new rows meanwhile, which
                // form the next batch
                analyzer.analyse(
                        batch.stream().map(Pending::request).toList(),
                        (i, answer) ->
                                batch.get(i)
                                        .reply()
                                        .complete(List.of(model.columns().row(answer))));
            } catch (RuntimeException e) {
                LOG.error("A batch of {} rows failed", batch.size(), e);
                batch.forEach(p -> p.reply().completeExceptionally(e));
            }
            batch.clear();
        }
    }

    @Override
    public void close() throws Exception {
        closed = true;
        if (inference != null) {
            inference.interrupt();
            inference.join(10_000);
        }
        if (analyzer != null) {
            analyzer.close();
        }
    }
}
