package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.costs.PriceSheet;
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
        SlotGraphs.Warm first = graphs.lookup(TICKET, false);
        assertThat(first.compiled()).isTrue();
        assertThat(first.compileMicros()).isPositive();
        assertThat(first.compiledDescriptor().getGraphId())
                .isEqualTo(first.graph().plan().graphId());
        assertThat(first.compiledDescriptor().getHardwareProfile())
                .isEqualTo(graphs.hardwareProfile())
                .startsWith("cpu-generic@");

        SlotGraphs.Warm again = graphs.lookup(TICKET, false);
        assertThat(again.compiled()).isFalse();
        assertThat(again.graph()).isSameAs(first.graph());
        assertThat(graphs.graphIds()).containsExactly(first.graph().plan().graphId());

        SlotGraphs.Warm safe = graphs.lookup("anything <at all", true);
        assertThat(safe.graph().plan().task()).isNotEqualTo(first.graph().plan().task());
        assertThat(graphs.size()).isEqualTo(2);
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
        assertThat(graphs.lookup(TICKET, false).compiled()).as("warm from precompile").isFalse();
        assertThat(graphs.lookup(QUESTION, false).compiled()).isTrue();
    }

    @Test
    void newContractsAndClearCacheDropWarmGraphs() {
        graphs.lookup(TICKET, false);
        graphs.clear();
        assertThat(graphs.size()).isZero();
        graphs.lookup(TICKET, false);
        graphs.use(TaskContracts.builtIn());
        assertThat(graphs.size()).isZero();
        assertThatThrownBy(() -> graphs.lookup("<task:nope>", false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("different task contracts");
    }
}
