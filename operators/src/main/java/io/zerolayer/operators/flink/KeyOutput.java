package io.zerolayer.operators.flink;

import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Where the executor answers the current key, and its timers: Flink's context and collector while
 * it handles a request or a timer, or {@link GraphExecutorOperator}'s own output in the mailbox
 * action that learns a key's batch is done.
 */
interface KeyOutput {
    /** The key being answered. */
    String key();

    TimerService timers();

    /** A reply to the requester. */
    void reply(Reply reply);

    /** A record of a side output. */
    <T> void output(OutputTag<T> tag, T value);

    /**
     * Sends the reply to {@code in}: a whole request's to the requester, a part's to {@link
     * GraphExecutorFunction#PART_REPLIES}, marked with its part.
     */
    default void answer(RoutedRequest in, Reply reply) {
        RequestDecision.Part part = in.decision().part();
        if (part == null) {
            reply(reply);
            return;
        }
        reply.part =
                new Reply.Part(
                        part.index(),
                        part.count(),
                        in.decision().structure().decoder(),
                        sentences(in.decision().content().taskAttributes().get("sentences")));
        output(GraphExecutorFunction.PART_REPLIES, reply);
    }

    /** A summary's {@code sentences} attribute; 0 (the decoder's default) when absent or bad. */
    static int sentences(String attribute) {
        if (attribute == null) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(attribute.strip()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The key Flink's context is at, answered through its collector and side outputs. */
    static KeyOutput of(
            KeyedBroadcastProcessFunction<String, ?, ?, Reply>.ReadOnlyContext ctx,
            Collector<Reply> out) {
        return new KeyOutput() {
            @Override
            public String key() {
                return ctx.getCurrentKey();
            }

            @Override
            public TimerService timers() {
                return ctx.timerService();
            }

            @Override
            public void reply(Reply reply) {
                out.collect(reply);
            }

            @Override
            public <T> void output(OutputTag<T> tag, T value) {
                ctx.output(tag, value);
            }
        };
    }
}
