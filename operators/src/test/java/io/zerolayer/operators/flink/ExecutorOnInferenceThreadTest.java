package io.zerolayer.operators.flink;

import static io.zerolayer.operators.flink.MicroBatchingTest.answered;
import static io.zerolayer.operators.flink.MicroBatchingTest.costs;
import static io.zerolayer.operators.flink.MicroBatchingTest.tickets;
import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.scheduling.MicroBatchPolicy;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The executor with its inference thread, as the streaming job runs it (inside {@link
 * GraphExecutorOperator}): a batch runs off the task thread, so the task thread returns at once and
 * a snapshot can be taken while the batch encodes; the snapshot holds the batch's requests and a
 * restore answers them exactly once; a key's queue behind its running batch is bounded. Replies
 * come only from the task thread (the mail saying a batch is done, or an arrival that waits), so
 * what the harness has emitted at each step is deterministic.
 */
class ExecutorOnInferenceThreadTest {
    private static final ExecutionSettings BATCHES_OF_TWO =
            new ExecutionSettings(2, 60_000, 0, 0, false);

    private static GraphExecutorFunction executor(ExecutionSettings settings) {
        return new GraphExecutorFunction(
                MicroBatchingTest.setup(settings).withInferenceThread(true));
    }

    /** The function in its operator, restored from {@code snapshot} (null: fresh) and open. */
    private static KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply>
            operator(GraphExecutorFunction fn, OperatorSubtaskState snapshot) throws Exception {
        var h =
                new KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply>(
                        new GraphExecutorOperator(fn, List.of(ControlCommand.STATE)),
                        r -> r.shardKey(),
                        Types.STRING,
                        1,
                        1,
                        0);
        h.setup();
        if (snapshot != null) {
            h.initializeState(snapshot);
        }
        h.open();
        return h;
    }

    /**
     * Runs the task's mail (a batch is done, or one restored in flight runs again) as it comes, and
     * any flush timers, until the harness has emitted {@code n} replies: what the task thread's
     * mailbox loop does.
     */
    private static List<String> untilAnswered(
            KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h,
            int n)
            throws Exception {
        long giveUp = System.nanoTime() + 60_000_000_000L;
        while (h.extractOutputValues().size() < n && System.nanoTime() < giveUp) {
            Optional<Mail> mail = h.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY);
            if (mail.isPresent()) {
                mail.get().run();
            } else {
                Thread.sleep(1);
            }
            h.setProcessingTime(h.getProcessingTime() + 1);
        }
        return answered(h);
    }

    /** Where {@code key} is in {@code fn}'s state machine, seen from its operator. */
    private static io.zerolayer.operators.scheduling.KeyPhase phase(
            KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h,
            GraphExecutorFunction fn,
            String key)
            throws Exception {
        h.getOperator().setCurrentKey(key);
        return fn.phase(
                new KeyOutput() {
                    @Override
                    public String key() {
                        return key;
                    }

                    @Override
                    public org.apache.flink.streaming.api.TimerService timers() {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public void reply(Reply reply) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public <T> void output(org.apache.flink.util.OutputTag<T> tag, T value) {
                        throw new UnsupportedOperationException();
                    }
                });
    }

    @Test
    void anIdleSlotStartsARequestAtOnceAndThoseThatComeWhileItRunsFormTheNextBatch()
            throws Exception {
        List<RoutedRequest> in = tickets(3);
        GraphExecutorFunction fn = executor(BATCHES_OF_TWO);
        try (var h = operator(fn, null)) {
            h.setProcessingTime(0);
            String key = in.get(0).shardKey();
            assertThat(phase(h, fn, key))
                    .isEqualTo(io.zerolayer.operators.scheduling.KeyPhase.IDLE);
            h.processElement(in.get(0), 0); // nothing runs: t0 starts without waiting for a t1
            assertThat(phase(h, fn, key))
                    .isIn(
                            io.zerolayer.operators.scheduling.KeyPhase.RUNNING,
                            io.zerolayer.operators.scheduling.KeyPhase.DONE);
            h.processElement(in.get(1), 0);
            h.processElement(in.get(2), 0); // t1 and t2 queue behind it; the calls return
            assertThat(h.extractOutputValues()).isEmpty(); // only the task thread answers
            assertThat(h.numProcessingTimeTimers()).isZero(); // nothing polls; no flush timer

            assertThat(untilAnswered(h, 3)).containsExactly("t0", "t1", "t2");
            assertThat(phase(h, fn, key))
                    .isEqualTo(io.zerolayer.operators.scheduling.KeyPhase.IDLE);
            assertThat(h.extractOutputValues())
                    .allSatisfy(
                            r -> {
                                assertThat(r.response.getStatus()).isEqualTo(ResponseStatus.OK);
                                assertThat(r.response.getFidelity()).isEqualTo(Fidelity.FULL);
                                assertThat(r.response.getOutput()).contains("refund");
                            });
            // two encoder passes: t0 alone, then t1 and t2 together (their records share a start)
            var encodeStarts =
                    costs(h).stream()
                            .filter(c -> c.getKernel().equals("encode"))
                            .collect(
                                    java.util.stream.Collectors.groupingBy(
                                            KernelCostRecord::getStartedAt,
                                            java.util.stream.Collectors.mapping(
                                                    KernelCostRecord::getRequestId,
                                                    java.util.stream.Collectors.toSet())));
            assertThat(encodeStarts.values())
                    .containsExactlyInAnyOrder(
                            java.util.Set.of("t0"), java.util.Set.of("t1", "t2"));
            assertThat(h.numProcessingTimeTimers()).isZero(); // done: no timer left
        }
    }

    @Test
    void aSnapshotTakenWhileABatchRunsHoldsItsRequestsAndARestoreAnswersThemOnce()
            throws Exception {
        List<RoutedRequest> in = tickets(3);
        OperatorSubtaskState snapshot;
        try (var h = operator(executor(BATCHES_OF_TWO), null)) {
            h.setProcessingTime(0);
            h.processElement(in.get(0), 0); // runs
            h.processElement(in.get(1), 0); // queued behind it
            snapshot = h.snapshot(1, 10); // the barrier does not wait for the batch
            assertThat(h.extractOutputValues()).isEmpty();
            // this run goes on to answer them; the snapshot is what a failure restores to
            assertThat(untilAnswered(h, 2)).containsExactly("t0", "t1");
        }

        // restored: the operator finds the batch that was in flight and runs it again
        try (var restored = operator(executor(BATCHES_OF_TWO), snapshot)) {
            restored.setProcessingTime(0);
            assertThat(untilAnswered(restored, 2)).containsExactly("t0", "t1");
            restored.setProcessingTime(restored.getProcessingTime() + 1_000);
            assertThat(answered(restored)).containsExactly("t0", "t1");
        }

        // restored, and a new request of the key comes first: it joins them, each answered once
        try (var restored = operator(executor(BATCHES_OF_TWO), snapshot)) {
            restored.setProcessingTime(0);
            restored.processElement(in.get(2), 0);
            assertThat(untilAnswered(restored, 3)).containsExactlyInAnyOrder("t0", "t1", "t2");
            restored.setProcessingTime(restored.getProcessingTime() + 120_000);
            assertThat(answered(restored)).hasSize(3);
        }

        // restored with the inference thread off: the task thread answers them, in the mail the
        // operator leaves itself when it opens
        try (var restored = operator(MicroBatchingTest.executor(BATCHES_OF_TWO), snapshot)) {
            assertThat(answered(restored)).isEmpty();
            assertThat(untilAnswered(restored, 2)).containsExactly("t0", "t1");
        }
    }

    @Test
    void anArrivalThatFillsItsKeysQueueWaitsForTheRunningBatch() throws Exception {
        int bound = MicroBatchPolicy.QUEUED_BATCHES_PER_KEY;
        List<RoutedRequest> in = tickets(bound + 2);
        ExecutionSettings one = new ExecutionSettings(1, 60_000, 0, 0, false);
        try (var h = operator(executor(one), null)) {
            h.setProcessingTime(0);
            for (int i = 0; i < bound; i++) {
                h.processElement(in.get(i), 0); // t0 runs, the rest queue behind it
            }
            assertThat(h.extractOutputValues()).isEmpty();
            h.processElement(in.get(bound), 0); // the queue is full: this call waits for t0
            assertThat(answered(h)).containsExactly("t0");

            h.processElement(in.get(bound + 1), 0);
            List<String> all = untilAnswered(h, bound + 2);
            assertThat(all)
                    .containsExactlyElementsOf(
                            in.stream().map(r -> r.request().getRequestId()).toList());
        }
    }
}
