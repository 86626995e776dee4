package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The slot's inference thread on its own: order, one batch per key, results and errors. */
class InferenceThreadTest {
    private static InferenceThread<String, String> thread() {
        return new InferenceThread<>("test-inference", InferenceThreadTest.class.getClassLoader());
    }

    @Test
    void batchesRunOneAtATimeInTheOrderHandedOverAndAreTakenByKey() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch gate = new CountDownLatch(1);
        try (var t = thread()) {
            assertThat(t.idle()).isTrue();
            t.submit(
                    "a",
                    () -> {
                        gate.await(10, TimeUnit.SECONDS);
                        ran.add("a");
                        return "A";
                    });
            t.submit("b", () -> ran.add("b") ? "B" : "?");
            assertThat(t.has("a")).isTrue();
            assertThat(t.idle()).isFalse();
            assertThat(t.size()).isEqualTo(2);
            assertThat(t.done("b")).isFalse(); // waits behind a, which waits for the gate
            gate.countDown();
            assertThat(t.take("b")).isEqualTo("B"); // waits for it
            assertThat(ran).containsExactly("a", "b");
            assertThat(t.done("a")).isTrue(); // done but not taken: still the key's
            assertThat(t.has("a")).isTrue();
            assertThat(t.take("a")).isEqualTo("A");
            assertThat(t.idle()).isTrue();
        }
    }

    @Test
    void aKeyHasOneBatchUntilItIsTakenAndWhatABatchThrowsIsRethrown() throws Exception {
        try (var t = thread()) {
            t.submit(
                    "k",
                    () -> {
                        throw new java.io.IOException("broken batch");
                    });
            assertThatThrownBy(() -> t.submit("k", () -> "again"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not yet taken");
            assertThatThrownBy(() -> t.take("k"))
                    .isInstanceOf(java.io.IOException.class)
                    .hasMessage("broken batch");
            assertThatThrownBy(() -> t.take("k"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no batch");
            t.submit("k", () -> "again"); // taken, so the key may hand over its next
            assertThat(t.take("k")).isEqualTo("again");
        }
    }

    @Test
    void whoeverHandsABatchOverIsToldOnceItIsDoneWhetherItReturnedOrThrew() throws Exception {
        java.util.concurrent.BlockingQueue<String> told =
                new java.util.concurrent.LinkedBlockingQueue<>();
        List<Boolean> doneWhenTold = new CopyOnWriteArrayList<>();
        try (var t = thread()) {
            java.util.function.Consumer<String> listener =
                    key -> {
                        doneWhenTold.add(t.done(key));
                        told.add(key);
                    };
            t.submit("ok", () -> "fine", listener);
            t.submit(
                    "bad",
                    () -> {
                        throw new IllegalStateException("broken batch");
                    },
                    listener);
            assertThat(told.poll(10, TimeUnit.SECONDS)).isEqualTo("ok");
            assertThat(told.poll(10, TimeUnit.SECONDS)).isEqualTo("bad");
            assertThat(doneWhenTold).containsExactly(true, true);
            assertThat(t.take("ok")).isEqualTo("fine");
            assertThatThrownBy(() -> t.take("bad")).hasMessage("broken batch");
            assertThat(told.poll(200, TimeUnit.MILLISECONDS)).as("told once each").isNull();
        }
    }
}
