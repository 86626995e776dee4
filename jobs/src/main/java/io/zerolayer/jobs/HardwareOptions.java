package io.zerolayer.jobs;

import io.zerolayer.gpu.ArenaExtendStrategy;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * The hardware graphs are compiled for and the encoders they may run: profiles, threads, GPUs,
 * model catalog and quality profiles. Part of {@link PipelineOptions}.
 */
public final class HardwareOptions {
    private HardwareOptions() {}

    public static final ConfigOption<String> HARDWARE_PROFILE =
            ConfigOptions.key("zerolayer.hardware-profile")
                    .stringType()
                    .defaultValue("auto")
                    .withDescription(
                            "auto detects each slot's device (CUDA through JavaCPP, else the CPU)"
                                + " and maps it onto hardware-profiles.yaml; a profile id overrides"
                                + " detection (custom mode, per TaskManager in mixed clusters).");

    public static final ConfigOption<String> HARDWARE_PROFILES_FILE =
            ConfigOptions.key("zerolayer.hardware-profiles.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Extra hardware profiles (e.g. written by zerolayer calibrate), added"
                                    + " to the built-in ones; read when the job is built.");

    public static final ConfigOption<Integer> INTRA_OP_THREADS =
            ConfigOptions.key("zerolayer.onnx.intra-op-threads")
                    .intType()
                    .defaultValue(1)
                    .withDescription(
                            "ONNX Runtime threads per session; one per slot keeps slots from"
                                    + " fighting for cores.");

    public static final ConfigOption<List<Integer>> GPU_DEVICE_IDS =
            ConfigOptions.key("zerolayer.gpu.device-ids")
                    .intType()
                    .asList()
                    .defaultValues()
                    .withDescription(
                            "CUDA devices of a TaskManager its slots use, slot i taking"
                                    + " device-ids[i % n]; empty (default): every device detected,"
                                    + " round robin.");

    public static final ConfigOption<MemorySize> GPU_MEMORY_LIMIT =
            ConfigOptions.key("zerolayer.gpu.memory-limit")
                    .memoryType()
                    .defaultValue(MemorySize.ZERO)
                    .withDescription(
                            "The CUDA provider's arena limit per session (gpu_mem_limit); 0: no"
                                    + " limit.");

    public static final ConfigOption<ArenaExtendStrategy> GPU_ARENA_STRATEGY =
            ConfigOptions.key("zerolayer.gpu.arena-extend-strategy")
                    .enumType(ArenaExtendStrategy.class)
                    .defaultValue(ArenaExtendStrategy.NEXT_POWER_OF_TWO)
                    .withDescription(
                            "How the CUDA provider's arena grows: kNextPowerOfTwo or"
                                    + " kSameAsRequested.");

    public static final ConfigOption<String> MODELS_FILE =
            ConfigOptions.key("zerolayer.models.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A model catalog of your own encoders (flink-conf/model-catalog.yaml's"
                                + " form: ONNX file, tokenizer.json, SHA-256, shape), added to the"
                                + " shipped ones; checked when the job is built and when each task"
                                + " opens, so the files must be at the same path on every"
                                + " TaskManager.");

    public static final ConfigOption<String> QUALITY_PROFILES_FILE =
            ConfigOptions.key("zerolayer.quality-profiles.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A quality profile (zerolayer eval's output) the compiler chooses"
                                + " encoder tiers by, in place of the shipped"
                                + " flink-conf/quality-profiles.yaml; read when the job is built"
                                + " and when each task opens.");
}
