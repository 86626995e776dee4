package io.zerolayer.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every shipped encoder of the catalog, opened once. */
class SentenceEncoderTest {
    private static final java.util.Map<EncoderModel, SentenceEncoder> OPEN =
            new java.util.HashMap<>();

    @BeforeAll
    static void open() {
        for (EncoderModel m : shipped()) {
            OPEN.put(m, SentenceEncoder.open(m, 1));
        }
    }

    @AfterAll
    static void close() {
        OPEN.values().forEach(SentenceEncoder::close);
    }

    static List<EncoderModel> shipped() {
        return EncoderModel.values().stream().filter(EncoderModel::shipped).toList();
    }

    private static SentenceEncoder encoder(EncoderModel model) {
        return OPEN.get(model);
    }

    @ParameterizedTest
    @MethodSource("shipped")
    void similarSentencesScoreHigherThanUnrelatedOnes(EncoderModel model) {
        float[][] v =
                encoder(model)
                        .embed(
                                List.of(
                                        "My laptop battery drains within an hour after the update.",
                                        "After installing the latest update the notebook's battery"
                                                + " runs out very quickly.",
                                        "The tenant shall pay rent on the first day of each"
                                                + " calendar month."));
        double similar = Pooling.cosine(v[0], v[1]);
        double unrelated = Pooling.cosine(v[0], v[2]);
        assertThat(similar).isGreaterThan(unrelated + 0.3);
        assertThat(v[0]).hasSize(model.hiddenSize());
    }

    /** Texts of different lengths, so each is padded differently in every batch it joins. */
    private static final List<String> TEXTS =
            List.of(
                    "Refund policy.",
                    "A much longer sentence that forces the short one to be padded to the same"
                            + " length in the batch.",
                    "The Customer shall pay each undisputed invoice within thirty days of its"
                            + " receipt, and late payments bear interest at one percent a month"
                            + " until paid in full.",
                    "Wheat exports rose sharply.",
                    "ERROR 500 ZZZZ !!! 0xDEADBEEF ??? €€€ ∑∫ numbers 1234567890 and SHOUTING");

    @ParameterizedTest
    @MethodSource("shipped")
    void aTextsVectorIsTheSameAloneAndInAnyBatch(EncoderModel model) {
        SentenceEncoder encoder = encoder(model);
        assertThat(encoder.batchInvariant()).isTrue();
        float[][] together = encoder.embed(TEXTS);
        List<String> reversed = new java.util.ArrayList<>(TEXTS);
        java.util.Collections.reverse(reversed);
        float[][] backwards = encoder.embed(reversed);
        for (int i = 0; i < TEXTS.size(); i++) {
            float[] alone = encoder.embed(List.of(TEXTS.get(i)))[0];
            float[] withTheLongest = encoder.embed(List.of(TEXTS.get(i), TEXTS.get(2)))[0];
            assertThat(together[i])
                    .as("text %d in a batch of 5", i)
                    .containsExactly(alone, within(1e-4f));
            assertThat(backwards[TEXTS.size() - 1 - i])
                    .as("text %d in reverse order", i)
                    .containsExactly(alone, within(1e-4f));
            assertThat(withTheLongest)
                    .as("text %d padded to the longest", i)
                    .containsExactly(alone, within(1e-4f));
        }
    }

    @ParameterizedTest
    @MethodSource("shipped")
    void tokenBatchCountsRealTokensAndPadsToLongest(EncoderModel model) {
        TokenBatch batch = encoder(model).tokenize(List.of("one two", "one two three four five"));
        assertThat(batch.batchSize()).isEqualTo(2);
        // [CLS] + words + [SEP]
        assertThat(batch.seqLen()).isEqualTo(7);
        assertThat(batch.realTokens()).isEqualTo(4 + 7);
        assertThat(batch.inputBytes()).isEqualTo(3L * 8 * 2 * 7);
    }

    @ParameterizedTest
    @MethodSource("shipped")
    void tokenSpansPointBackIntoTheText(EncoderModel model) {
        String text = "Clause 4.2: the Supplier indemnifies the Buyer.";
        TokenizedText tokens = encoder(model).tokenizeText(text);
        assertThat(tokens.size()).isGreaterThan(5);
        assertThat(text.substring(tokens.starts()[0], tokens.ends()[0]).toLowerCase())
                .isEqualTo("clause");
        int last = tokens.size() - 1;
        assertThat(text.substring(tokens.starts()[last], tokens.ends()[last])).isEqualTo(".");
    }

    @ParameterizedTest
    @MethodSource("shipped")
    void longTextsAreTruncatedToTheModelLimit(EncoderModel model) {
        String longText = "word ".repeat(1000);
        TokenBatch batch = encoder(model).tokenize(List.of(longText));
        assertThat(batch.seqLen()).isEqualTo(SentenceEncoder.MAX_SEQUENCE_LENGTH);
        assertThat(encoder(model).encode(batch))
                .hasSize(SentenceEncoder.MAX_SEQUENCE_LENGTH * model.hiddenSize());
    }

    @org.junit.jupiter.api.Test
    void forwardFlopsMatchTwiceTheNonEmbeddingParametersPerToken() {
        // MiniLM-L6 has ~10.6 M non-embedding weights: ~21 MFLOPs per token at short sequence
        // length
        long perToken = EncoderModel.MINILM_L6_V2_FP32.forwardFlops(1, 1);
        assertThat(perToken).isBetween(20_000_000L, 22_000_000L);
        assertThat(EncoderModel.MINILM_L6_V2_FP32.forwardFlops(2, 128))
                .isGreaterThan(2 * 128 * perToken);
    }

    @ParameterizedTest
    @MethodSource("shipped")
    void eachSessionRunsTheWeightsItsCatalogEntryPins(EncoderModel model) {
        assertThat(encoder(model).checksum()).isEqualTo(model.sha256()).hasSize(64);
        assertThat(shipped().stream().map(EncoderModel::sha256).distinct())
                .hasSize(shipped().size());
    }

    @org.junit.jupiter.api.Test
    void closedEncoderFailsClearly() {
        SentenceEncoder e = SentenceEncoder.open(EncoderModel.MINILM_L6_V2_INT8, 1);
        e.close();
        assertThatThrownBy(() -> e.embed(List.of("x")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void aQueryCarriesItsModelsInstructionAndAPassageNone() {
        SentenceEncoder bge = encoder(EncoderModel.BGE_SMALL_EN_V15_FP32);
        SentenceEncoder minilm = encoder(EncoderModel.MINILM_L6_V2_FP32);
        long[] plain = bge.tokenizeText("what is a refund").ids();
        long[] query = bge.queryIds("what is a refund");
        assertThat(query.length).isGreaterThan(plain.length + 5);
        assertThat(java.util.Arrays.copyOfRange(query, query.length - plain.length, query.length))
                .containsExactly(plain);
        assertThat(minilm.queryIds("what is a refund"))
                .containsExactly(minilm.tokenizeText("what is a refund").ids());
        assertThat(bge.passageIds(plain)).isSameAs(plain);
    }

    private static EncoderModel twoWide(EncoderModel.PoolingMode pooling) {
        return new EncoderModel(
                "two-wide",
                "t",
                "fp32",
                1,
                2,
                2,
                pooling,
                true,
                "",
                "",
                "classpath:/none",
                "classpath:/none",
                "0".repeat(64),
                "");
    }

    @Test
    void clsPoolingTakesTheFirstTokensStateAndMeanPoolingAveragesRealTokens() {
        // two texts, three positions, hidden size 2: the second text has one padding position
        TokenBatch batch =
                new TokenBatch(new long[6], new long[] {1, 1, 1, 1, 1, 0}, new long[6], 2, 3, 5);
        float[] states = {3, 4, 0, 0, 0, 0, 0, 2, 6, 0, 100, 100};
        float[][] cls = Pooling.pool(twoWide(EncoderModel.PoolingMode.CLS), batch, states);
        assertThat(cls[0]).containsExactly(0.6f, 0.8f);
        assertThat(cls[1]).containsExactly(0f, 1f);
        float[][] mean = Pooling.pool(twoWide(EncoderModel.PoolingMode.MEAN), batch, states);
        assertThat(mean[0][0] / mean[0][1])
                .isCloseTo(3f / 4f, org.assertj.core.data.Offset.offset(1e-6f));
        // (0, 2) and (6, 0) averaged; the padding's (100, 100) left out
        assertThat(mean[1][0] / mean[1][1])
                .isCloseTo(3f, org.assertj.core.data.Offset.offset(1e-5f));
    }

    @org.junit.jupiter.api.Test
    void oneLayerOfOneSequenceMatchesAHandComputedCount() {
        // d = 384, ffn = 1536, seq = 128, one sequence, per layer:
        //   Q, K, V, O projections: 4 × 128 × 384 × 384 multiply-adds  =  75 497 472
        //   feed-forward up + down: 2 × 128 × 384 × 1536                 = 150 994 944
        //   scores QKᵀ and weights·V: 2 × 128 × 128 × 384                 =  12 582 912
        //   = 239 075 328 multiply-adds = 478 150 656 FLOPs per layer; 6 layers
        assertThat(EncoderModel.MINILM_L6_V2_FP32.forwardFlops(1, 128))
                .isEqualTo(6L * 478_150_656L);
    }

    @Test
    void aCudaSessionWithoutAUsableProviderRunsOnTheCpuAndSaysSo() {
        ExecutionDevice gpu0 =
                ExecutionDevice.cuda(0, 2L << 30, ArenaExtendStrategy.SAME_AS_REQUESTED);
        assertThat(gpu0).hasToString("cuda:0");
        try (SentenceEncoder onCpu = SentenceEncoder.open(EncoderModel.MINILM_L6_V2_INT8, 1);
                SentenceEncoder planned =
                        SentenceEncoder.open(EncoderModel.MINILM_L6_V2_INT8, 1, gpu0)) {
            if (!SentenceEncoder.cudaProviderAvailable()) { // the CPU build
                assertThat(planned.device()).isEqualTo("cpu");
                assertThat(SentenceEncoder.runtimeVersion()).doesNotContain("+cuda");
            }
            if (!planned.device().equals("cpu")) {
                assertThat(planned.device()).isEqualTo("cuda:0"); // -Pgpu on a GPU host
                return;
            }
            // -Pgpu without a usable GPU lands here too: the same numbers as a CPU session
            float[][] a = planned.embed(java.util.List.of("refund for a late parcel"));
            float[][] b = onCpu.embed(java.util.List.of("refund for a late parcel"));
            assertThat(a[0]).containsExactly(b[0]);
        }
    }

    @Test
    void theArenaStrategyIsWrittenAsOnnxRuntimeNamesIt() {
        assertThat(ArenaExtendStrategy.NEXT_POWER_OF_TWO).hasToString("kNextPowerOfTwo");
        assertThat(ArenaExtendStrategy.SAME_AS_REQUESTED).hasToString("kSameAsRequested");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ExecutionDevice.cuda(0, 0, null))
                .isInstanceOf(NullPointerException.class);
    }
}
