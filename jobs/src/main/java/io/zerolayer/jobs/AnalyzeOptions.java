package io.zerolayer.jobs;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/** zerolayer analyze: how files are read and split. Part of {@link PipelineOptions}. */
public final class AnalyzeOptions {
    private AnalyzeOptions() {}

    public static final ConfigOption<MemorySize> ANALYZE_MAX_FILE_SIZE =
            ConfigOptions.key("zerolayer.analyze.max-file-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("256mb"))
                    .withDescription(
                            "zerolayer analyze: larger files are not read but reported as error"
                                    + " rows (each file is read whole).");

    public static final ConfigOption<Integer> ANALYZE_PART_CHARS =
            ConfigOptions.key("zerolayer.analyze.part-chars")
                    .intType()
                    .defaultValue(40_000)
                    .withDescription(
                            "zerolayer analyze: documents with more text than this are split at"
                                    + " section boundaries into parts of at most this many"
                                    + " characters, run in parallel and combined per document"
                                    + " (--part-chars).");
}
