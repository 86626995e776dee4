package io.zerolayer.gpu.hardware;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Detection against recorded device properties: no GPU needed. */
class HardwareFingerprintTest {
    private static final HardwareProfiles PROFILES = HardwareProfiles.builtIn();
    private static final long GB = 1_000_000_000L;

    private static DeviceReport gpu(String name, double memoryGiB) {
        return DeviceReport.gpu(
                0,
                name,
                (long) (memoryGiB * 1073741824L),
                (long) (memoryGiB * 1073741824L * 0.9),
                108,
                1_215_000,
                5120,
                "8.0",
                12040,
                12090);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "Tesla V100-SXM2-16GB, 15.77, nvidia-v100-sxm2",
        "Tesla V100-SXM2-32GB, 31.74, nvidia-v100-sxm2",
        "Tesla V100S-PCIE-32GB, 31.74, nvidia-v100-pcie",
        "Tesla T4, 14.75, nvidia-t4",
        "NVIDIA A100-SXM4-40GB, 39.39, nvidia-a100-40gb",
        "NVIDIA A100-SXM4-80GB, 79.15, nvidia-a100-80gb",
        "NVIDIA A100 80GB PCIe, 79.15, nvidia-a100-80gb",
        "'  NVIDIA   A100-PCIE-40GB ', 39.39, nvidia-a100-40gb",
        "NVIDIA L4, 22.03, nvidia-l4",
        "NVIDIA H100 80GB HBM3, 79.1, nvidia-h100-sxm",
        "NVIDIA H100 PCIe, 79.1, nvidia-h100-pcie",
        "NVIDIA H200, 139.8, nvidia-h200",
    })
    void realDeviceNamesMapOntoProfiles(String name, double memoryGiB, String profile) {
        HardwareFingerprint hw =
                HardwareFingerprint.resolve(
                        "auto", PROFILES, () -> List.of(gpu(name, memoryGiB)), List::of);
        assertThat(hw.profile().id()).isEqualTo(profile);
        assertThat(hw.detected()).isTrue();
    }

    @Test
    void unknownGpusGetTheGenericProfile() {
        HardwareFingerprint hw =
                HardwareFingerprint.resolve(
                        "auto",
                        PROFILES,
                        () -> List.of(gpu("NVIDIA GeForce RTX 4090", 23.6)),
                        List::of);
        assertThat(hw.profile().id()).isEqualTo("gpu-generic");
        assertThat(HardwareProfiles.normalise("NVIDIA GeForce RTX 4090")).isEqualTo("rtx-4090");
    }

    @Test
    void gpuBandwidthComesFromMemoryClockAndBusWidth() {
        // A100 40 GB: 1215 MHz HBM2, 5120-bit bus → 1555 GB/s, the datasheet figure
        assertThat(gpu("NVIDIA A100-SXM4-40GB", 39.39).memoryBandwidthBytesPerSec())
                .isEqualTo(1_555_200_000_000L);
    }

    @Test
    void cpusMapByTheirRichestInstructionSet() {
        DeviceReport avx512 =
                DeviceReport.cpu(
                        "Intel Xeon",
                        8,
                        2.5,
                        32 * GB,
                        Set.of("avx2", "fma", "avx512f", "avx512_vnni"));
        DeviceReport avx2 =
                DeviceReport.cpu("AMD EPYC", 2, 3.0, 24 * GB, Set.of("avx", "avx2", "fma"));
        DeviceReport old = DeviceReport.cpu("old", 4, 2.0, 8 * GB, Set.of("sse4_2"));
        assertThat(PROFILES.match(avx512).orElseThrow().id()).isEqualTo("cpu-avx512-vnni");
        HardwareProfile p = PROFILES.match(avx2).orElseThrow();
        assertThat(p.id()).isEqualTo("cpu-avx2");
        assertThat(p.peakFlops("fp32", avx2)).isEqualTo(32 * 2 * 3.0e9);
        assertThat(PROFILES.match(old).orElseThrow().id()).isEqualTo("cpu-generic");
    }

    @Test
    void anAmdZen4RunsAvx512AtHalfTheIntelPeak() {
        Set<String> avx512 = Set.of("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16");
        Set<String> zen4 = new java.util.HashSet<>(avx512);
        zen4.add("clzero");
        DeviceReport genoa = DeviceReport.cpu("AMD EPYC", 2, 2.6, 24 * GB, zen4);
        HardwareProfile p = PROFILES.match(genoa).orElseThrow();
        assertThat(p.id()).isEqualTo("cpu-amd-zen4");
        assertThat(p.peakFlops("fp32", genoa))
                .isEqualTo(
                        PROFILES.get("cpu-avx512-vnni").orElseThrow().peakFlops("fp32", genoa) / 2);
        // Zen 5 has full-width 512-bit units and AVX-VNNI; an Intel AVX-512 CPU has no clzero
        Set<String> zen5 = new java.util.HashSet<>(zen4);
        zen5.add("avx_vnni");
        assertThat(PROFILES.match(DeviceReport.cpu("AMD EPYC", 2, 2.6, 24 * GB, zen5)))
                .map(HardwareProfile::id)
                .contains("cpu-avx512-vnni");
        assertThat(PROFILES.match(DeviceReport.cpu("Intel Xeon", 2, 2.6, 24 * GB, avx512)))
                .map(HardwareProfile::id)
                .contains("cpu-avx512-vnni");
    }

    @Test
    void aGpuThatOnnxRuntimeCannotUseDoesNotCount() {
        DeviceReport epyc =
                DeviceReport.cpu("AMD EPYC", 2, 3.0, 24 * GB, Set.of("avx", "avx2", "fma"));
        HardwareFingerprint hw =
                HardwareFingerprint.resolve(
                        "auto",
                        PROFILES,
                        () -> List.of(gpu("NVIDIA H200", 139.8)),
                        () -> List.of(epyc),
                        false);
        assertThat(hw.profile().id()).isEqualTo("cpu-avx2");
        assertThat(hw.primary()).isEqualTo(epyc);
    }

    @Test
    void hostRatesAreReadAndEveryFigureIsInTheFingerprint() {
        String yaml =
                """
                version: 1
                profiles:
                  measured:
                    kind: cpu
                    flops-per-cycle-per-core: {fp32: 80}
                    memory-bandwidth-gbs: 50
                    host-us-per-token: {tokenize: 2.5}
                    host-us-per-call: {decode: 150}
                """;
        HardwareProfile measured = HardwareProfiles.builtInWith(yaml).get("measured").orElseThrow();
        assertThat(measured.hostMicrosPerToken("tokenize")).isEqualTo(2.5);
        assertThat(measured.hostMicrosPerCall("decode")).isEqualTo(150);
        // what the file leaves out comes from the defaults
        assertThat(measured.hostMicrosPerToken("pool"))
                .isEqualTo(HardwareProfile.DEFAULT_HOST_MICROS_PER_TOKEN.get("pool"));
        HardwareProfile recalibrated =
                HardwareProfiles.builtInWith(yaml.replace("tokenize: 2.5", "tokenize: 2.6"))
                        .get("measured")
                        .orElseThrow();
        assertThat(recalibrated.fingerprint()).hasSize(8).isNotEqualTo(measured.fingerprint());
        assertThat(HardwareProfiles.builtInWith(yaml).get("measured").orElseThrow().fingerprint())
                .isEqualTo(measured.fingerprint());
        assertThatThrownBy(
                        () ->
                                HardwareProfiles.builtInWith(
                                        yaml.replace("tokenize: 2.5", "tokenise: 2.5")))
                .hasMessageContaining("unknown node kind 'tokenise'");
    }

    @Test
    void cpuinfoIsRead(@TempDir Path dir) throws Exception {
        Path cpuinfo =
                Files.writeString(
                        dir.resolve("cpuinfo"),
                        "processor\t: 0\nmodel name\t: AMD EPYC 7B13\ncpu MHz\t\t: 2450.000\n"
                                + "flags\t\t: fpu sse avx avx2 fma\n");
        Path meminfo = Files.writeString(dir.resolve("meminfo"), "MemTotal:       24576000 kB\n");
        DeviceReport cpu = new CpuDeviceProbe(cpuinfo, meminfo).probe().get(0);
        assertThat(cpu.name()).isEqualTo("AMD EPYC 7B13");
        assertThat(cpu.clockGhz()).isEqualTo(2.45);
        assertThat(cpu.flags()).contains("avx2", "fma");
        assertThat(cpu.memoryBytes()).isEqualTo(24576000L * 1024);
        assertThat(cpu.summary()).contains("flags [avx, avx2, fma]");
    }

    @Test
    void aConfiguredProfileOverridesDetection() {
        HardwareFingerprint hw =
                HardwareFingerprint.resolve(
                        "nvidia-l4",
                        PROFILES,
                        List::of,
                        () -> List.of(DeviceReport.cpu("x", 2, 2, GB, Set.of())));
        assertThat(hw.profile().id()).isEqualTo("nvidia-l4");
        assertThat(hw.detected()).isFalse();
        assertThatThrownBy(
                        () ->
                                HardwareFingerprint.resolve(
                                        "nvidia-a200", PROFILES, List::of, List::of))
                .hasMessageContaining("Unknown hardware profile 'nvidia-a200'")
                .hasMessageContaining("nvidia-h200");
    }

    @Test
    void thisMachineIsDetectedWithoutFailing() {
        HardwareFingerprint hw = HardwareFingerprint.resolve("auto", PROFILES);
        assertThat(hw.profile()).isNotNull();
        assertThat(hw.primary().summary()).isNotBlank();
    }
}
