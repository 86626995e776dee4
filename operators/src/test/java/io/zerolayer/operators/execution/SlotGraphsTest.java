package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.costs.PriceSheet;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.operators.warmup.PrecompileList;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A slot's graphs: compiled on first use, warm after, ahead of use for the structures it owns. */
class SlotGraphsTest {
    private static final String TICKET =
            "<task:classify><output_format:json><labels>billing, shipping</labels>"
                    + "<ticket>My parcel never arrived.</ticket>";
    private static final String QUESTION =
            "<task:answer><output_format:text><question>When?</question>"
                    + "<ticket>It broke on Monday.</ticket>";

    private SlotGraphs graphs;

    /** What the classifier decides of a prompt that compiles under the built-in contracts. */
    private static RequestDecision decided(String prompt) {
        return RequestDecision.of(new StructureClassifier().classify(prompt), ROUTING);
    }

    private static final GraphCompiler ROUTING =
            new GraphCompiler(
                    GraphIdentity.current(
                            TaskContracts.builtIn().version(), GraphIdentity.ANY_HARDWARE));

    private SlotGraphs.Warm lookup(String prompt) {
        return graphs.lookup(decided(prompt), prompt);
    }

    @BeforeEach
    void open() {
        graphs =
                new SlotGraphs(
                        HardwareFingerprint.resolve("cpu-generic", HardwareProfiles.builtIn()),
                        1,
                        gpus -> null,
                        PriceSheet.builtIn(),
                        new WarmGraphCache.Bounds(8, 64 << 20, 3_600_000),
                        TaskContracts.builtIn());
    }

    @AfterEach
    void close() {
        graphs.close();
    }

    @Test
    void aGraphIsCompiledOnItsFirstRequestAndWarmAfter() {
        SlotGraphs.Warm first = lookup(TICKET);
        assertThat(first.compiled()).isTrue();
        assertThat(first.compileMicros()).isPositive();
        assertThat(first.descriptor().getGraphId()).isEqualTo(first.graph().plan().graphId());
        assertThat(first.descriptor().getStructures())
                .containsExactly(
                        new StructureClassifier().classify(TICKET).signature().canonical());
        assertThat(first.descriptor().getHardwareProfile())
                .isEqualTo(graphs.hardwareProfile())
                .startsWith("cpu-generic@");

        SlotGraphs.Warm again = lookup(TICKET);
        assertThat(again.compiled()).isFalse();
        assertThat(again.descriptor()).as("nothing new to publish").isNull();
        assertThat(again.graph()).isSameAs(first.graph());
        assertThat(graphs.graphIds()).containsExactly(first.graph().plan().graphId());

        String abnormal = "<task:summarize><a><b>";
        SlotGraphs.Warm safe =
                graphs.lookup(
                        RequestDecision.safe(
                                new StructureClassifier().classify(abnormal), ROUTING, 1000),
                        abnormal);
        assertThat(safe.content()).as("the SAFE graph reads the prompt as plain text").isNull();
        assertThat(safe.graph().plan().task()).isNotEqualTo(first.graph().plan().task());
        assertThat(graphs.size()).isEqualTo(2);
    }

    @Test
    void structuresOfOneShapeShareOneWarmGraphWhoseDescriptorNamesThemAll() {
        String renamed =
                "<task:classify><output_format:json><labels>billing, shipping</labels>"
                        + "<review format=\"text\">My parcel never came.</review>";
        assertThat(decided(renamed).structureId()).isNotEqualTo(decided(TICKET).structureId());
        assertThat(decided(renamed).graphId()).isEqualTo(decided(TICKET).graphId());

        SlotGraphs.Warm first = lookup(TICKET);
        SlotGraphs.Warm second = lookup(renamed);
        assertThat(second.compiled()).as("one compile for the shape").isFalse();
        assertThat(second.graph()).isSameAs(first.graph());
        assertThat(second.descriptor())
                .as("a new structure on the graph republishes its descriptor")
                .isNotNull();
        assertThat(second.descriptor().getStructures())
                .containsExactly(
                        new StructureClassifier().classify(TICKET).signature().canonical(),
                        new StructureClassifier().classify(renamed).signature().canonical());
        assertThat(lookup(renamed).descriptor()).as("known by now").isNull();
        assertThat(graphs.size()).isEqualTo(1);
    }

    @Test
    void onlyTheStructuresTheSlotOwnsArePrecompiled() {
        PrecompileList list =
                new PrecompileList(
                        List.of(
                                new PrecompileList.Structure("ticket", TICKET),
                                new PrecompileList.Structure("question", QUESTION),
                                new PrecompileList.Structure("broken", "<task:nope>")));
        List<String> asked = new ArrayList<>();
        assertThat(graphs.precompile(list, null, id -> asked.add(id) && false)).isZero();
        assertThat(asked).hasSize(2); // the broken one does not compile, so nobody owns it
        assertThat(graphs.size()).isZero();

        String ticketOwner = asked.get(0);
        assertThat(graphs.precompile(list, null, ticketOwner::equals)).isEqualTo(1);
        assertThat(lookup(TICKET).compiled()).as("warm from precompile").isFalse();
        assertThat(lookup(QUESTION).compiled()).isTrue();
    }

    @Test
    void newContractsAndClearCacheDropWarmGraphs() {
        lookup(TICKET);
        graphs.clear();
        assertThat(graphs.size()).isZero();
        lookup(TICKET);
        graphs.use(TaskContracts.builtIn());
        assertThat(graphs.size()).isZero();
        assertThat(lookup(TICKET).compiled()).isTrue();
    }

    @Test
    void aDecisionIsTrustedUnderItsContractsAndMadeAgainUnderOthers() {
        SlotGraphs.Warm decided = lookup(TICKET);
        assertThat(decided.content().scopes()).containsKey("body");

        // under this slot's contracts a decision is trusted: one that says "question" gets the
        // question's graph whatever the prompt
        RequestDecision question = decided(QUESTION);
        SlotGraphs.Warm trusted = graphs.lookup(question, TICKET);
        assertThat(trusted.graph()).isNotSameAs(decided.graph());

        // decided under contracts this slot does not have: its graph is looked up by what this
        // slot decides of the prompt, not by what the decision says
        RequestDecision older =
                new RequestDecision(
                        question.graphId(),
                        question.structureId(),
                        "older-contracts",
                        question.structure(),
                        question.content(),
                        question.warnings(),
                        0);
        assertThat(graphs.lookup(older, TICKET).graph()).isSameAs(decided.graph());

        // a prompt that no longer compiles under this slot's contracts fails, with why
        assertThatThrownBy(() -> graphs.lookup(older, "<task:nope>"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("different task contracts");
    }
}
