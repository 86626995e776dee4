package io.zerolayer.operators.costs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PriceSheetTest {
    private static final String SHEET =
            """
            version: test-1
            profiles:
              default:
                compute-usd-per-pflop: {fp32: 0.80, int8: 0.40}
                memory-usd-per-gb: 0.00002
                pcie-usd-per-gb: 0.0001
                device-usd-per-hour: 0
              timed:
                compute-usd-per-pflop: {fp32: 0}
                memory-usd-per-gb: 0
                pcie-usd-per-gb: 0
                device-usd-per-hour: 3.60
            """;

    @Test
    void quantitiesBecomeNonOverlappingIntegerNanoUsdAtTheProfilesPrices() {
        PriceSheet sheet = PriceSheet.parse(SHEET);
        assertThat(sheet.version()).isEqualTo("test-1");
        // 1e15 fp32 FLOPs at $0.80 = 800,000,000 nano-USD; int8 half that
        PriceSheet.Money fp32 =
                sheet.bill("cpu-avx2", "fp32", 1_000_000_000_000_000L, null, null, 0);
        assertThat(fp32).isEqualTo(new PriceSheet.Money(800_000_000L, 0, 0, 0));
        assertThat(sheet.bill("cpu-avx2", "int8", 1_000_000_000_000_000L, null, null, 0).compute())
                .isEqualTo(400_000_000L);
        // an unpriced precision is billed as fp32
        assertThat(sheet.bill("cpu-avx2", "fp16", 1_000_000_000_000_000L, null, null, 0).compute())
                .isEqualTo(800_000_000L);
        // 5 GB of memory traffic at $0.00002 = 100,000 nano-USD; 2 GB of PCIe at $0.0001 = 200,000
        PriceSheet.Money traffic = sheet.bill("x", "fp32", null, 5_000_000_000L, 2_000_000_000L, 1);
        assertThat(traffic).isEqualTo(new PriceSheet.Money(0, 100_000, 200_000, 0));
        // a profile that bills time: one second at $3.60 an hour = 1,000,000 nano-USD
        assertThat(sheet.bill("timed", "fp32", 10L, 10L, 10L, 1_000_000_000L))
                .isEqualTo(new PriceSheet.Money(0, 0, 0, 1_000_000));
        // rounded once, half to even: 21.2 MFLOP of fp32 = 16.96 nano-USD → 17; 600 FLOPs → 0
        assertThat(sheet.bill("x", "fp32", 21_200_000L, null, null, 0).total()).isEqualTo(17);
        assertThat(sheet.bill("x", "fp32", 600L, null, null, 0).total()).isZero();
    }

    @Test
    void theBuiltInSheetPricesEveryProfileThroughItsDefault() {
        PriceSheet sheet = PriceSheet.builtIn();
        assertThat(sheet.version()).startsWith("prices-");
        assertThat(sheet.pricesFor("no-such-profile")).isEqualTo(sheet.pricesFor("default"));
        assertThat(sheet.pricesFor("nvidia-h200")).isNotEqualTo(sheet.pricesFor("default"));
    }

    @Test
    void brokenSheetsAreRefusedWithTheirMistake() {
        assertThatThrownBy(() -> PriceSheet.parse("profiles: {}")).hasMessageContaining("version");
        assertThatThrownBy(() -> PriceSheet.parse("version: 1\nprofiles: {gpu: {}}"))
                .hasMessageContaining("'default'");
        assertThatThrownBy(
                        () ->
                                PriceSheet.parse(
                                        SHEET.replace(
                                                "memory-usd-per-gb: 0.00002",
                                                "memory-usd-per-gb: -1")))
                .hasMessageContaining("negative");
    }
}
