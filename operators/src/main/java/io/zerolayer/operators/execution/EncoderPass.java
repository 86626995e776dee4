package io.zerolayer.operators.execution;

import io.zerolayer.gpu.Pooling;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.TokenBatch;
import io.zerolayer.operators.compiler.EncoderRuns;
import io.zerolayer.operators.costs.PriceSheet;
import java.util.ArrayList;
import java.util.List;

/**
 * One pass of requests through an encoder session: the requests of one graph's micro-batch, or of
 * several graphs of one {@link CompiledGraph.EncoderGroup} run together. Each request is tokenized
 * and chunked by its own graph; the sequences of all of them (less those the embedding cache holds
 * or the pass already has) are sorted by length and encoded in the runs {@link EncoderRuns} cuts;
 * the pass's encode and pool time and bill are split among its requests by tokens; each request is
 * decoded by its own graph.
 */
final class EncoderPass {
    private EncoderPass() {}

    /** {@link CompiledGraph#executeTogether}. */
    static List<List<CompiledGraph.BatchOutcome>> run(
            List<CompiledGraph.Part> parts, long deadlineNanos, SliceBoundary boundary) {
        CompiledGraph lead = parts.get(0).graph();
        for (CompiledGraph.Part part : parts) {
            CompiledGraph g = part.graph();
            if (!g.encoderGroup().equals(lead.encoderGroup())) {
                throw new IllegalArgumentException(
                        "Graphs "
                                + lead.plan().graphId()
                                + " and "
                                + g.plan().graphId()
                                + " do not share an encoder session, cache and prices");
            }
        }
        CompiledGraph.BatchOutcome[][] outcomes = new CompiledGraph.BatchOutcome[parts.size()][];
        List<PreparedRequest> prepared = new ArrayList<>();
        List<CompiledGraph> owners = new ArrayList<>();
        List<Integer> partOf = new ArrayList<>();
        long maxRunTokens = Long.MAX_VALUE;
        for (int j = 0; j < parts.size(); j++) {
            CompiledGraph g = parts.get(j).graph();
            List<CompiledGraph.BatchInput> inputs = parts.get(j).inputs();
            outcomes[j] = new CompiledGraph.BatchOutcome[inputs.size()];
            maxRunTokens =
                    Math.min(maxRunTokens, g.plan().paddedTokensWithin(boundary.sliceMicros()));
            for (int i = 0; i < inputs.size(); i++) {
                try {
                    prepared.add(
                            PreparedRequest.prepare(
                                    i, inputs.get(i), g.chunker(), g.encoder(), g.task()));
                    owners.add(g);
                    partOf.add(j);
                } catch (RuntimeException e) {
                    // whatever one request's content does to tokenizing or chunking, it fails
                    // alone
                    outcomes[j][i] = new CompiledGraph.BatchOutcome(null, e);
                }
            }
        }
        if (!prepared.isEmpty()) {
            CompiledGraph.BatchTotals totals =
                    encodeAndPool(
                            lead.encoderGroup(),
                            prepared,
                            owners,
                            deadlineNanos,
                            boundary,
                            maxRunTokens);
            parts.forEach(part -> part.graph().lastBatch(totals));
            for (int k = 0; k < prepared.size(); k++) {
                PreparedRequest p = prepared.get(k);
                try {
                    outcomes[partOf.get(k)][p.index] =
                            new CompiledGraph.BatchOutcome(owners.get(k).decode(p), null);
                } catch (RuntimeException e) {
                    outcomes[partOf.get(k)][p.index] = new CompiledGraph.BatchOutcome(null, e);
                }
            }
        }
        List<List<CompiledGraph.BatchOutcome>> all = new ArrayList<>(parts.size());
        for (CompiledGraph.BatchOutcome[] part : outcomes) {
            all.add(List.of(part));
        }
        return all;
    }

    /**
     * encode and pool over the whole pass, shortest sequences first, in the runs {@link
     * EncoderRuns} cuts, at most {@code maxRunTokens} padded tokens each; then each request's share
     * of their time and bill. {@code owners} is each request's graph.
     */
    private static CompiledGraph.BatchTotals encodeAndPool(
            CompiledGraph.EncoderGroup group,
            List<PreparedRequest> prepared,
            List<CompiledGraph> owners,
            long deadlineNanos,
            SliceBoundary boundary,
            long maxRunTokens) {
        // a sequence cached or already in this batch is not encoded again
        BatchSequences batchSequences =
                new BatchSequences(prepared, group.embeddings(), group.encoder());
        Runs runs =
                encodeRuns(group.encoder(), batchSequences, deadlineNanos, boundary, maxRunTokens);
        // and after the last: pooling and decoding follow
        boundary.between();
        attribute(group, prepared, owners, runs);
        return new CompiledGraph.BatchTotals(
                runs.sequences, runs.batchTokens, runs.encodeNanos, runs.poolNanos);
    }

    /** What a pass's encoder runs took, all together. */
    private record Runs(
            long startedAt, long encodeNanos, long poolNanos, long batchTokens, int sequences) {}

    /**
     * Encodes and pools the sequences to encode, run by run, giving each request its vectors and
     * counting its tokens, FLOPs and bytes; a slice boundary before each run lets other batches in,
     * and the deadline moves by the time they took.
     */
    private static Runs encodeRuns(
            SentenceEncoder encoder,
            BatchSequences batchSequences,
            long deadlineNanos,
            SliceBoundary boundary,
            long maxRunTokens) {
        int hidden = encoder.model().hiddenSize();
        long startedAt = System.currentTimeMillis();
        long encodeNanos = 0;
        long poolNanos = 0;
        long batchTokens = 0;
        int sequences = 0;
        for (List<BatchSequences.Ref> slice :
                EncoderRuns.split(
                        batchSequences.toEncode(), BatchSequences.Ref::length, maxRunTokens)) {
            // before each run, the first too: tokenizing and chunking a long document is a slice
            long paused = boundary.between();
            if (deadlineNanos != Long.MAX_VALUE) {
                deadlineNanos += paused;
            }
            List<long[]> ids = new ArrayList<>(slice.size());
            slice.forEach(r -> ids.add(r.ids()));
            long start = System.nanoTime();
            TokenBatch batch = encoder.batch(ids);
            long timeout = 0;
            if (deadlineNanos != Long.MAX_VALUE) {
                timeout = deadlineNanos - System.nanoTime();
                if (timeout <= 0) {
                    throw new io.zerolayer.gpu.EncoderException(
                            "The batch's time ran out before its encoder run", null, true);
                }
            }
            float[] states = encoder.encode(batch, timeout);
            long encoded = System.nanoTime();
            float[][] vectors = Pooling.pool(encoder.model(), batch, states);
            poolNanos += System.nanoTime() - encoded;
            encodeNanos += encoded - start;
            long perSequenceFlops = encoder.model().forwardFlops(1, batch.seqLen());
            long perSequenceIn = batch.inputBytes() / batch.batchSize();
            long perSequenceOut = (long) batch.seqLen() * hidden * Float.BYTES;
            for (int k = 0; k < slice.size(); k++) {
                BatchSequences.Ref r = slice.get(k);
                int real = BatchSequences.realTokens(r.length());
                r.owner().vectors[r.position()] = vectors[k];
                r.owner().encodeTokens += real;
                r.owner().encodeFlops += perSequenceFlops;
                r.owner().encodeInBytes += perSequenceIn;
                r.owner().encodeOutBytes += perSequenceOut;
                r.owner().poolTokens += real;
                r.owner().encodedSequences++;
                batchSequences.encoded(r, vectors[k], real);
            }
            batchTokens += batch.realTokens();
            sequences += slice.size();
        }
        return new Runs(startedAt, encodeNanos, poolNanos, batchTokens, sequences);
    }

    /**
     * Each request's encode and pool node runs: the pass's time split by tokens, in whole
     * nanoseconds that add up exactly, and its bill billed once and split the same way; a request
     * with cache hits also gets its cache node.
     */
    private static void attribute(
            CompiledGraph.EncoderGroup group,
            List<PreparedRequest> prepared,
            List<CompiledGraph> owners,
            Runs runs) {
        SentenceEncoder encoder = group.encoder();
        PriceSheet prices = group.prices();
        String priceProfile = group.priceProfile();
        int hidden = encoder.model().hiddenSize();
        long[] weights = prepared.stream().mapToLong(p -> p.encodeTokens).toArray();
        long[] encodeShares = Attribution.largestRemainder(runs.encodeNanos, weights);
        long[] poolShares = Attribution.largestRemainder(runs.poolNanos, weights);
        boolean onGpu = encoder.device().startsWith("cuda");
        PriceSheet.Money[] encodeBills = bill(group, prepared, runs, weights, "encode");
        PriceSheet.Money[] poolBills = bill(group, prepared, runs, weights, "pool");
        for (int i = 0; i < prepared.size(); i++) {
            PreparedRequest p = prepared.get(i);
            if (p.cacheHits > 0) {
                p.runs.add(
                        BatchSequences.cacheRun(
                                p, encoder.model(), runs.startedAt, prices, priceProfile));
            }
            if (p.encodeTokens == 0) {
                continue; // every sequence was a hit: nothing encoded or pooled for it
            }
            // what the batch's encoder gave it: its own sequences and those it shared
            int items = p.sequences.size() - p.cacheHits;
            p.runs.add(
                    new NodeRun(
                            "encode",
                            "encode",
                            encoder.model().id(),
                            runs.startedAt,
                            encodeShares[i],
                            items,
                            p.encodeTokens,
                            p.encodeFlops,
                            p.encodeInBytes,
                            p.encodeOutBytes,
                            onGpu ? p.encodeInBytes : null,
                            onGpu ? p.encodeOutBytes : null,
                            runs.sequences,
                            encodeBills[i]));
            long poolFlops = p.poolTokens * hidden + 4L * p.encodedSequences * hidden;
            p.runs.add(
                    new NodeRun(
                            owners.get(i).poolNodeId(),
                            "pool",
                            null,
                            runs.startedAt,
                            poolShares[i],
                            items,
                            p.poolTokens,
                            poolFlops,
                            p.encodeOutBytes,
                            (long) p.encodedSequences * hidden * Float.BYTES,
                            null,
                            null,
                            runs.sequences,
                            poolBills[i]));
        }
    }

    /**
     * A pass's {@code node} ({@code encode} or {@code pool}) billed once, for all its FLOPs, bytes
     * and time, then split by {@code weights} so the shares add up exactly.
     */
    private static PriceSheet.Money[] bill(
            CompiledGraph.EncoderGroup group,
            List<PreparedRequest> prepared,
            Runs runs,
            long[] weights,
            String node) {
        SentenceEncoder encoder = group.encoder();
        int hidden = encoder.model().hiddenSize();
        long encodeIn = prepared.stream().mapToLong(p -> p.encodeInBytes).sum();
        long encodeOut = prepared.stream().mapToLong(p -> p.encodeOutBytes).sum();
        if (node.equals("encode")) {
            boolean onGpu = encoder.device().startsWith("cuda");
            return Attribution.splitMoney(
                    group.prices()
                            .bill(
                                    group.priceProfile(),
                                    encoder.model().precision(),
                                    prepared.stream().mapToLong(p -> p.encodeFlops).sum(),
                                    encodeIn + encodeOut,
                                    onGpu ? encodeIn + encodeOut : null,
                                    runs.encodeNanos),
                    weights);
        }
        long poolFlops = 0;
        long poolBytes = encodeOut; // pool reads the hidden states …
        for (PreparedRequest p : prepared) {
            poolFlops += p.poolTokens * hidden + 4L * p.encodedSequences * hidden;
            poolBytes += (long) p.encodedSequences * hidden * Float.BYTES;
            // … and writes one vector a sequence
        }
        return Attribution.splitMoney(
                group.prices()
                        .bill(
                                group.priceProfile(),
                                "fp32",
                                poolFlops,
                                poolBytes,
                                null,
                                runs.poolNanos),
                weights);
    }
}
