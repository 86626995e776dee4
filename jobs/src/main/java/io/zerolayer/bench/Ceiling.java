package io.zerolayer.bench;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.TokenBatch;
import io.zerolayer.operators.compiler.EncoderRuns;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hardware ceiling: ONNX Runtime alone running a stream's encoder work ({@link EncoderWork}) in
 * a tight loop — sequences pre-tokenized, the whole stream's sorted by length and cut into runs as
 * the executor cuts a batch's ({@link EncoderRuns}: the least padding any batching can reach, at
 * most 64 a run), {@code workers} threads each with its own sessions of {@code intraOpThreads}
 * threads, as the pipeline's task slots have. No Kafka, no parsing, no decoding: only the encoder.
 */
final class Ceiling {
    private Ceiling() {}

    /** What one ceiling measurement came to. */
    record Result(
            int workers,
            int requests,
            long sequences,
            long tokens,
            int passes,
            double seconds,
            double requestsPerSecond,
            double tokensPerSecond,
            double cpuSecondsPerRequest) {}

    private record Run(EncoderModel model, TokenBatch batch) {}

    /** Runs the work repeatedly until at least {@code minSeconds} have passed. */
    static Result measure(EncoderWork work, int workers, int intraOpThreads, double minSeconds)
            throws InterruptedException {
        Map<EncoderModel, List<long[]>> byModel = new java.util.LinkedHashMap<>();
        for (EncoderWork.Item item : work.items()) {
            byModel.computeIfAbsent(item.model(), m -> new ArrayList<>()).addAll(item.sequences());
        }
        List<Map<EncoderModel, SentenceEncoder>> sessions = new ArrayList<>();
        try {
            for (int w = 0; w < workers; w++) {
                Map<EncoderModel, SentenceEncoder> mine = new java.util.HashMap<>();
                for (EncoderModel m : byModel.keySet()) {
                    mine.put(m, SentenceEncoder.open(m, intraOpThreads));
                }
                sessions.add(mine);
            }
            List<Run> runs = new ArrayList<>();
            byModel.forEach(
                    (model, sequences) -> {
                        sequences.sort(Comparator.comparingInt(s -> s.length));
                        SentenceEncoder tokenizer = sessions.get(0).get(model);
                        for (List<long[]> run : EncoderRuns.split(sequences, s -> s.length)) {
                            runs.add(new Run(model, tokenizer.batch(run)));
                        }
                    });
            // warm-up: every worker runs each model once
            pass(runs.subList(0, Math.min(runs.size(), workers * byModel.size())), sessions);
            long cpu0 = ProcessStats.cpuNanos();
            long start = System.nanoTime();
            int passes = 0;
            do {
                pass(runs, sessions);
                passes++;
            } while ((System.nanoTime() - start) / 1e9 < minSeconds);
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpu = (ProcessStats.cpuNanos() - cpu0) / 1e9;
            int requests = work.items().size() * passes;
            return new Result(
                    workers,
                    work.items().size(),
                    work.sequences(),
                    work.tokens(),
                    passes,
                    seconds,
                    requests / seconds,
                    work.tokens() * passes / seconds,
                    cpu / requests);
        } finally {
            for (Map<EncoderModel, SentenceEncoder> mine : sessions) {
                mine.values().forEach(SentenceEncoder::close);
            }
        }
    }

    /** One pass over the runs, shared out to the workers as they come free. */
    private static void pass(List<Run> runs, List<Map<EncoderModel, SentenceEncoder>> sessions)
            throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        java.util.concurrent.atomic.AtomicReference<RuntimeException> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        for (Map<EncoderModel, SentenceEncoder> mine : sessions) {
            Thread t =
                    new Thread(
                            () -> {
                                try {
                                    for (int i = next.getAndIncrement();
                                            i < runs.size();
                                            i = next.getAndIncrement()) {
                                        Run r = runs.get(i);
                                        mine.get(r.model()).encode(r.batch());
                                    }
                                } catch (RuntimeException e) {
                                    failure.compareAndSet(null, e);
                                }
                            },
                            "ceiling-worker");
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
