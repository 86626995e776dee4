package io.zerolayer.operators.execution;

import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;

/**
 * A triage ticket's graph compiled on the real encoders, for tests of what runs it: a classify task
 * with an optional evidence node, so pruning shows. Close it after the tests.
 */
public final class TicketGraph implements AutoCloseable {
    public static final String PROMPT =
            "<task:classify><output_format:json><labels>billing, shipping</labels>"
                    + "<ticket>My parcel never arrived.</ticket>";

    public final EncoderPool encoders = new EncoderPool(1);
    public final ClassifiedPrompt classified = new StructureClassifier().classify(PROMPT);
    public final CompiledGraph graph =
            new CompiledGraph(
                    new GraphCompiler(GraphIdentity.current("ticket-test", "cpu-generic"))
                            .compile(classified),
                    encoders);

    /** What the classifier decides of the ticket. */
    public RequestDecision decision() {
        return RequestDecision.of(
                classified,
                new GraphCompiler(
                        GraphIdentity.current("ticket-test", GraphIdentity.ANY_HARDWARE)));
    }

    /** The ticket as a batch input. */
    public CompiledGraph.BatchInput input() {
        return CompiledGraph.BatchInput.of(classified.parsed());
    }

    @Override
    public void close() {
        encoders.close();
    }
}
