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
            t.submit("ok", () -> "fine", listener, Long.MAX_VALUE);
            t.submit(
                    "bad",
                    () -> {
                        throw new IllegalStateException("broken batch");
                    },
                    listener,
                    Long.MAX_VALUE);
            assertThat(told.poll(10, TimeUnit.SECONDS)).isEqualTo("ok");
            assertThat(told.poll(10, TimeUnit.SECONDS)).isEqualTo("bad");
            assertThat(doneWhenTold).containsExactly(true, true);
            assertThat(t.take("ok")).isEqualTo("fine");
            assertThatThrownBy(() -> t.take("bad")).hasMessage("broken batch");
            assertThat(told.poll(200, TimeUnit.MILLISECONDS)).as("told once each").isNull();
        }
    }

    @Test
    void theWaitingBatchDueFirstRunsNextAndTiesRunInTheOrderHandedOver() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch gate = new CountDownLatch(1);
        try (var t = thread()) {
            CountDownLatch holding = new CountDownLatch(1);
            t.submit(
                    "hold",
                    () -> {
                        holding.countDown();
                        return gate.await(10, TimeUnit.SECONDS) ? "held" : "?";
                    },
                    null,
                    0);
            holding.await(10, TimeUnit.SECONDS);
            t.submit("late", () -> ran.add("late") ? "" : "?", null, 300);
            t.submit("soon", () -> ran.add("soon") ? "" : "?", null, 100);
            t.submit("soon-too", () -> ran.add("soon-too") ? "" : "?", null, 100);
            // running: due 0; waiting: due 100 first
            assertThat(t.holdsWorkDueBy(0)).isTrue();
            gate.countDown();
            t.take("late");
            assertThat(ran).containsExactly("soon", "soon-too", "late");
        }
    }

    @Test
    void aRunningBatchLetsTheBatchesDueBeforeItRunBetweenItsSlicesOneLevelDeep() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch handedOver = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        try (var t = thread()) {
            t.submit(
                    "document",
                    () -> {
                        gate.await(10, TimeUnit.SECONDS);
                        handedOver.await(10, TimeUnit.SECONDS);
                        ran.add("slice 1");
                        long paused = t.between();
                        ran.add("slice 2");
                        return paused > 0 ? "paused" : "not paused";
                    },
                    null,
                    1_000);
            t.submit(
                    "ticket",
                    () -> {
                        ran.add("ticket");
                        assertThat(t.between()).as("no deeper than one level").isZero();
                        return "answered";
                    },
                    null,
                    100);
            t.submit("later", () -> ran.add("later") ? "" : "?", null, 2_000);
            // the document (due 1 000) runs, held by the gate; the ticket waits first in line
            assertThat(t.holdsWorkDueBy(999)).as("the ticket is due by 999").isTrue();
            assertThat(t.holdsWorkDueBy(50)).as("nothing is due by 50").isFalse();
            handedOver.countDown();
            gate.countDown();
            assertThat(t.take("document")).isEqualTo("paused");
            assertThat(t.take("ticket")).isEqualTo("answered");
            t.take("later");
            assertThat(ran).containsExactly("slice 1", "ticket", "slice 2", "later");
            assertThat(t.interleavedBatches()).isOne();
            // from any other thread it does nothing
            assertThat(t.between()).isZero();
        }
    }

    /** A batch of a group that records which batches ran in its pass. */
    private record Shared(String name, String group, long paddedTokens, List<List<String>> passes)
            implements InferenceThread.Shareable<String> {
        @Override
        public String call() {
            passes.add(List.of(name));
            return name + " alone";
        }

        @Override
        public List<String> runWith(List<InferenceThread.Shareable<String>> others) {
            List<String> pass = new java.util.ArrayList<>(List.of(name));
            others.forEach(o -> pass.add(((Shared) o).name()));
            passes.add(pass);
            return pass.stream().map(n -> n + " with " + (pass.size() - 1)).toList();
        }
    }

    @Test
    void waitingBatchesOfOneGroupJoinTheFirstOneDueWithinTheTokenBudget() throws Exception {
        List<List<String>> passes = new CopyOnWriteArrayList<>();
        CountDownLatch gate = new CountDownLatch(1);
        try (var t =
                new InferenceThread<String, String>(
                        "test-inference", InferenceThreadTest.class.getClassLoader(), 1_000)) {
            t.submit(
                    "busy",
                    () -> {
                        gate.await(10, TimeUnit.SECONDS);
                        return "busy";
                    });
            t.submit("a", new Shared("a", "minilm", 400, passes), null, 100);
            t.submit("other-model", new Shared("other-model", "bge", 10, passes), null, 150);
            t.submit("b", new Shared("b", "minilm", 500, passes), null, 200);
            t.submit("too-big", new Shared("too-big", "minilm", 200, passes), null, 300);
            t.submit("alone", new Shared("alone", null, 10, passes), null, 400);
            gate.countDown();
            // a runs first (due first) and b joins it; too-big would pass the budget of 1 000
            assertThat(t.take("b")).isEqualTo("b with 1");
            assertThat(t.take("a")).isEqualTo("a with 1");
            assertThat(t.take("other-model")).isEqualTo("other-model alone");
            assertThat(t.take("too-big")).isEqualTo("too-big alone");
            assertThat(t.take("alone")).isEqualTo("alone alone");
            assertThat(passes)
                    .containsExactly(
                            List.of("a", "b"),
                            List.of("other-model"),
                            List.of("too-big"),
                            List.of("alone"));
            assertThat(t.joinedBatches()).isOne();
        }
    }

    @Test
    void withoutATokenBudgetEveryBatchRunsAloneAndAFailedPassFailsEachOfItsBatches()
            throws Exception {
        List<List<String>> passes = new CopyOnWriteArrayList<>();
        CountDownLatch gate = new CountDownLatch(1);
        try (var t = thread()) {
            t.submit(
                    "busy",
                    () -> {
                        gate.await(10, TimeUnit.SECONDS);
                        return "busy";
                    });
            t.submit("a", new Shared("a", "minilm", 1, passes), null, 100);
            t.submit("b", new Shared("b", "minilm", 1, passes), null, 200);
            gate.countDown();
            assertThat(t.take("a")).isEqualTo("a alone");
            assertThat(t.take("b")).isEqualTo("b alone");
            assertThat(t.joinedBatches()).isZero();
        }
    }

    @Test
    void aPassThatThrowsFailsEachOfItsBatches() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        record Failing(String group) implements InferenceThread.Shareable<String> {
            @Override
            public String call() {
                return "alone";
            }

            @Override
            public long paddedTokens() {
                return 1;
            }

            @Override
            public List<String> runWith(List<InferenceThread.Shareable<String>> others)
                    throws java.io.IOException {
                throw new java.io.IOException("encoder gone");
            }
        }
        try (var t =
                new InferenceThread<String, String>(
                        "test-inference", InferenceThreadTest.class.getClassLoader(), 100)) {
            t.submit(
                    "busy",
                    () -> {
                        gate.await(10, TimeUnit.SECONDS);
                        return "busy";
                    });
            t.submit("a", new Failing("g"), null, 100);
            t.submit("b", new Failing("g"), null, 200);
            gate.countDown();
            assertThatThrownBy(() -> t.take("a")).hasMessage("encoder gone");
            assertThatThrownBy(() -> t.take("b")).hasMessage("encoder gone");
            assertThat(t.take("busy")).isEqualTo("busy");
            assertThat(t.idle()).isTrue();
        }
    }
}
