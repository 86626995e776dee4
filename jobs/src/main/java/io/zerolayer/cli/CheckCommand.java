package io.zerolayer.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code zerolayer check}: type-checks prompt files against the task contracts, for users' CI.
 * Prints compiler-style diagnostics ({@code file:line:col: error[ZL010]: …}) or JSON; exits 1 when
 * any prompt has an error, 0 when all are clean, 2 on usage errors.
 */
@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description =
                "Type-check prompt files against the task contracts (exit 0 clean, 1 errors, 2"
                        + " usage).")
final class CheckCommand implements Callable<Integer> {
    @Option(
            names = "--format",
            defaultValue = "text",
            description = "text or json. Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(
            names = "--contracts",
            description =
                    "tasks.yaml to check against. Default: ./flink-conf/tasks.yaml when present,"
                            + " else the built-in one.")
    Path contractsFile;

    @Parameters(
            arity = "1..*",
            paramLabel = "FILE",
            description = "Prompt files, or folders of *.prompt files.")
    List<Path> files;

    @Override
    public Integer call() throws IOException {
        if (!format.equals("text") && !format.equals("json")) {
            System.err.println("--format must be text or json, got '" + format + "'");
            return 2;
        }
        List<Path> prompts;
        TaskContracts contracts;
        try {
            prompts = PromptFiles.expand(files);
            contracts = contracts();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        StructureClassifier classifier = new StructureClassifier(contracts);
        ObjectMapper json = new ObjectMapper();
        ArrayNode report = json.createArrayNode();
        int filesWithErrors = 0;
        int errors = 0;
        StringBuilder text = new StringBuilder();
        for (Path file : prompts) {
            ClassifiedPrompt result =
                    classifier.classify(Files.readString(file, StandardCharsets.UTF_8));
            boolean failed = false;
            for (PromptDiagnostic d : result.diagnostics()) {
                failed |= d.isError();
                errors += d.isError() ? 1 : 0;
                if (format.equals("json")) {
                    report.addObject()
                            .put("file", file.toString())
                            .put("line", d.line())
                            .put("column", d.column())
                            .put("severity", d.severity())
                            .put("code", d.code())
                            .put("message", d.message())
                            .put("hint", d.hint());
                } else {
                    text.append(file)
                            .append(':')
                            .append(d.line())
                            .append(':')
                            .append(d.column())
                            .append(": ")
                            .append(d.severity())
                            .append('[')
                            .append(d.code())
                            .append("]: ")
                            .append(d.message());
                    if (d.hint() != null) {
                        text.append(" (").append(d.hint()).append(')');
                    }
                    text.append('\n');
                }
            }
            filesWithErrors += failed ? 1 : 0;
        }
        if (format.equals("json")) {
            System.out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(report));
        } else {
            System.out.print(text);
        }
        System.err.printf(
                "%d prompt(s) checked against %s: %d with errors, %d error(s)%n",
                prompts.size(), contracts.version(), filesWithErrors, errors);
        return filesWithErrors == 0 ? 0 : 1;
    }

    private TaskContracts contracts() {
        if (contractsFile != null) {
            if (!Files.isRegularFile(contractsFile)) {
                throw new IllegalArgumentException("No contracts file " + contractsFile);
            }
            return TaskContracts.load(contractsFile);
        }
        Path local = Path.of("flink-conf", "tasks.yaml");
        return Files.isRegularFile(local) ? TaskContracts.load(local) : TaskContracts.builtIn();
    }
}
