package io.zerolayer.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where {@code zerolayer bench} and {@code bench recovery} write their figures. */
final class BenchResultsFolder {
    @Option(
            names = "--out",
            defaultValue = "bench-results",
            description = "Folder for the JSON and Markdown results. Default: ${DEFAULT-VALUE}.")
    Path out;
}
