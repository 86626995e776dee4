package io.zerolayer.analyze;

import io.zerolayer.jobs.JobFunctions;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.contracts.ContractException;
import io.zerolayer.operators.contracts.LabelledExamples;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.structure.DocumentContent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.configuration.Configuration;

/** {@code zerolayer analyze --examples}: a batch run whose classify task is taught by examples. */
public final class TaskExamples {
    private TaskExamples() {}

    /**
     * Points {@code conf} at the contracts it names (the built-in ones when none) with {@code task}
     * classifying by the examples of {@code file}, written to a file of their own: the run's
     * operators read them, and a cluster gets their text with the job.
     *
     * @param labels the task's labels as given ({@code --labels}), which every example's label must
     *     be one of; null to take the labels from the examples
     * @throws ContractException naming the file and line of a bad example, or why the task takes
     *     none
     */
    public static void teach(Configuration conf, String task, String labels, Path file)
            throws IOException {
        List<String> declared = labels == null ? null : DocumentContent.items(labels);
        TaskContracts contracts =
                JobFunctions.contracts(conf)
                        .withExamples(task, LabelledExamples.read(file, declared));
        Path taught = Files.createTempFile("zerolayer-contracts-", ".yaml");
        taught.toFile().deleteOnExit();
        Files.writeString(taught, contracts.source());
        conf.set(TenancyOptions.CONTRACTS_FILE, taught.toString());
    }
}
