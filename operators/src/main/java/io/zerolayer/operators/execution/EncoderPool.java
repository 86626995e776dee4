package io.zerolayer.operators.execution;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import java.util.EnumMap;
import java.util.Map;

/**
 * The ONNX sessions of one task slot, one per model, opened on first use and shared by every
 * compiled graph in the slot. Closing the pool closes the sessions.
 */
public final class EncoderPool implements AutoCloseable {
    private final int intraOpThreads;
    private final Map<EncoderModel, SentenceEncoder> sessions = new EnumMap<>(EncoderModel.class);

    public EncoderPool(int intraOpThreads) {
        this.intraOpThreads = intraOpThreads;
    }

    public synchronized SentenceEncoder get(EncoderModel model) {
        return sessions.computeIfAbsent(model, m -> SentenceEncoder.open(m, intraOpThreads));
    }

    public synchronized int openSessions() {
        return sessions.size();
    }

    @Override
    public synchronized void close() {
        sessions.values().forEach(SentenceEncoder::close);
        sessions.clear();
    }
}
