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

/**
 * Runs a {@link GraphExecutorFunction} and tells it on the task thread, through the task's mailbox,
 * when a batch on the slot's inference thread is done: the function then answers it at once instead
 * of polling for it with timers. Everything else is Flink's operator for a keyed broadcast process
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
        GraphExecutorFunction function = (GraphExecutorFunction) userFunction;
        function.whenBatchDone(
                key ->
                        mailbox.execute(
                                () -> {
                                    setCurrentKey(key);
                                    function.batchDone(timers);
                                },
                                "zerolayer: a batch of %s is done",
                                key));
        super.open();
        int resumed = function.resumeInFlight(getKeyedStateBackend(), timers);
        if (resumed > 0) {
            LOG.info(
                    "{} keys had a batch in flight at the checkpoint; running them again", resumed);
        }
    }
}
