package io.zerolayer.operators.flink;

import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import java.util.List;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.SimpleTimerService;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Runs a {@link GraphExecutorFunction} and tells it on the task thread, through the task's mailbox,
 * when a batch on the slot's inference thread is done: the mailbox action answers the batch at
 * once, through this operator's own output, and starts the key's next one. Nothing polls and no
 * timer stands in for the signal. Everything else is Flink's operator for a keyed broadcast process
 * function (the same state, timers and contexts).
 */
public final class GraphExecutorOperator
        extends CoBroadcastWithKeyedOperator<String, RoutedRequest, ControlCommand, Reply> {
    private static final long serialVersionUID = 1L;
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(GraphExecutorOperator.class);

    private transient MailboxExecutor mailbox;

    public GraphExecutorOperator(
            GraphExecutorFunction function, List<MapStateDescriptor<?, ?>> broadcastStates) {
        super(function, broadcastStates);
    }

    @Override
    public void open() throws Exception {
        mailbox =
                getContainingTask()
                        .getMailboxExecutorFactory()
                        .createExecutor(getOperatorConfig().getChainIndex());
        // the timer service Flink's operator gives the function (same name, same timers)
        TimerService timers =
                new SimpleTimerService(
                        getInternalTimerService(
                                "user-timers", VoidNamespaceSerializer.INSTANCE, this));
        KeyOutput current = new CurrentKeyOutput(timers);
        GraphExecutorFunction function = (GraphExecutorFunction) userFunction;
        function.whenBatchDone(
                key ->
                        mailbox.execute(
                                () -> {
                                    setCurrentKey(key);
                                    function.batchDone(current);
                                },
                                "zerolayer: the batch of %s is done",
                                key));
        super.open();
        List<String> inFlight = KeyedBatchQueue.keysInFlight(getKeyedStateBackend());
        if (!inFlight.isEmpty()) {
            LOG.info(
                    "{} keys had a batch in flight at the checkpoint; running them again",
                    inFlight.size());
        }
        for (String key : inFlight) {
            // after open: the restored batches run as the task's first mailbox actions
            mailbox.execute(
                    () -> {
                        setCurrentKey(key);
                        function.resume(current);
                    },
                    "zerolayer: the batch of %s in flight at the checkpoint runs again",
                    key);
        }
    }

    /** The operator's current key, answered through its own output (records without timestamps). */
    private final class CurrentKeyOutput implements KeyOutput {
        private final TimerService timers;

        CurrentKeyOutput(TimerService timers) {
            this.timers = timers;
        }

        @Override
        public String key() {
            return (String) getCurrentKey();
        }

        @Override
        public TimerService timers() {
            return timers;
        }

        @Override
        public void reply(Reply reply) {
            output.collect(new StreamRecord<>(reply));
        }

        @Override
        public <T> void output(OutputTag<T> tag, T value) {
            output.collect(tag, new StreamRecord<>(value));
        }
    }
}
