package io.zerolayer.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's own encoder from a catalog file: treated like the shipped ones once it passes the
 * checks, and stopped with an error naming what is wrong otherwise. The user's "own" model here is
 * a copy of the shipped int8 MiniLM on disk, so the test needs nothing from the network.
 */
class ModelCatalogTest {
    @TempDir Path dir;
    private String sha;

    @BeforeEach
    void copyAModelToDisk() throws Exception {
        EncoderModel shipped = EncoderModel.MINILM_L6_V2_INT8;
        try (InputStream in = shipped.openWeights()) {
            Files.copy(in, dir.resolve("model.onnx"));
        }
        try (InputStream in = shipped.openTokenizer()) {
            Files.copy(in, dir.resolve("tokenizer.json"));
        }
        sha = shipped.sha256();
    }

    @AfterEach
    void uninstall() {
        ModelCatalog.uninstallAll();
    }

    private Path catalog(String extra) throws Exception {
        Path file = dir.resolve("my-models.yaml");
        Files.writeString(
                file,
                """
                models:
                  acme-encoder-int8:
                    family: acme-encoder
                    precision: int8
                    layers: 6
                    hidden-size: %s
                    ffn-size: 1536
                    pooling: mean
                    query-prefix: "query: "
                    onnx: %s
                    tokenizer: tokenizer.json
                    sha256: "%s"
                %s\
                """
                        .formatted(
                                extra.contains("hidden-size") ? "200" : "384",
                                extra.contains("missing") ? "nowhere.onnx" : "model.onnx",
                                extra.contains("checksum") ? "0".repeat(64) : sha,
                                extra.contains("field") ? "    colour: blue\n" : ""));
        return file;
    }

    @Test
    void aUsersEncoderIsKnownByIdAndRunsLikeAShippedOne() throws Exception {
        List<EncoderModel> added = ModelCatalog.install(catalog(""));
        EncoderModel mine = EncoderModel.byId("acme-encoder-int8");
        assertThat(added).containsExactly(mine);
        assertThat(mine.shipped()).isFalse();
        assertThat(EncoderModel.values()).contains(mine, EncoderModel.BGE_SMALL_EN_V15_FP32);
        assertThat(ModelCatalog.checksums()).containsEntry("acme-encoder-int8", sha);
        try (SentenceEncoder encoder = SentenceEncoder.open(mine, 1)) {
            float[] v = encoder.embed(List.of("the tenant pays rent monthly"))[0];
            assertThat(v).hasSize(384);
            assertThat(Pooling.cosine(v, v))
                    .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-4));
            assertThat(encoder.queryIds("rent").length)
                    .isGreaterThan(encoder.tokenizeText("rent").ids().length);
        }
        // the same file again is a no-op
        assertThat(ModelCatalog.install(catalog(""))).containsExactly(mine);
    }

    @Test
    void wrongEntriesStopWithAnErrorNamingTheEntryAndTheFix() throws Exception {
        assertThatThrownBy(() -> ModelCatalog.install(catalog("checksum")))
                .hasMessageContaining("acme-encoder-int8")
                .hasMessageContaining("SHA-256 " + sha)
                .hasMessageContaining("not the catalog's");
        assertThatThrownBy(() -> ModelCatalog.install(catalog("hidden-size")))
                .hasMessageContaining("hidden-size 200")
                .hasMessageContaining("384 wide");
        assertThatThrownBy(() -> ModelCatalog.install(catalog("missing")))
                .hasMessageContaining("no file at")
                .hasMessageContaining("nowhere.onnx");
        assertThatThrownBy(() -> ModelCatalog.install(catalog("field")))
                .hasMessageContaining("unknown field 'colour'");
        assertThat(ModelCatalog.knows("acme-encoder-int8")).isFalse();
        Path clash = dir.resolve("clash.yaml");
        Files.writeString(
                clash,
                Files.readString(catalog("")).replace("acme-encoder-int8", "minilm-l6-v2-int8"));
        assertThatThrownBy(() -> ModelCatalog.install(clash))
                .hasMessageContaining("is a shipped encoder");
        assertThatThrownBy(() -> EncoderModel.byId("nope"))
                .hasMessageContaining("known: minilm-l6-v2-fp32, minilm-l6-v2-int8,")
                .hasMessageContaining("zerolayer.models.file");
    }

    @Test
    void theShippedCatalogHoldsFourTiersOfTwoFamilies() {
        assertThat(EncoderModel.values().stream().filter(EncoderModel::shipped))
                .extracting(EncoderModel::id)
                .containsExactly(
                        "minilm-l6-v2-fp32",
                        "minilm-l6-v2-int8",
                        "bge-small-en-v1.5-fp32",
                        "bge-small-en-v1.5-int8");
        assertThat(EncoderModel.BGE_SMALL_EN_V15_INT8.pooling())
                .isEqualTo(EncoderModel.PoolingMode.CLS);
        assertThat(EncoderModel.BGE_SMALL_EN_V15_FP32.forwardFlops(1, 128))
                .isEqualTo(2 * EncoderModel.MINILM_L6_V2_FP32.forwardFlops(1, 128));
    }
}
