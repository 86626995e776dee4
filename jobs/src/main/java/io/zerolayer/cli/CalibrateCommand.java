package io.zerolayer.cli;

import io.zerolayer.gpu.calibration.Calibration;
import io.zerolayer.gpu.hardware.CpuDeviceProbe;
import io.zerolayer.gpu.hardware.DeviceReport;
import io.zerolayer.gpu.hardware.HardwareProfile;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.execution.CompiledGraph;
import io.zerolayer.operators.execution.EncoderPool;
import io.zerolayer.operators.execution.NodeRun;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer calibrate}: measures this machine through ONNX Runtime, writes a CPU hardware
 * profile, then checks the cost model with it: for each sample prompt, the encode node's estimate
 * against its measured time on one thread (as a slot runs it).
 */
@Command(
        name = "calibrate",
        mixinStandardHelpOptions = true,
        description =
                "Measure this machine through ONNX Runtime, write a hardware profile, and check the"
                        + " cost model's estimates against measured times.")
final class CalibrateCommand implements Callable<Integer> {
    @Option(
            names = "--out",
            defaultValue = "flink-conf/hardware-profiles.local.yaml",
            description =
                    "Profiles file to write (use it with -Dzerolayer.hardware-profiles.file)."
                            + " Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(
            names = "--matrix",
            defaultValue = "1024",
            description = "MatMul size. Default: ${DEFAULT-VALUE}.")
    int matrix;

    @Option(
            names = "--repetitions",
            defaultValue = "8",
            description = "Runs per measurement (the fastest counts). Default: ${DEFAULT-VALUE}.")
    int repetitions;

    @Option(
            names = "--samples",
            defaultValue = "samples",
            description = "Prompts for the cost-model check. Default: ${DEFAULT-VALUE}.")
    Path samples;

    @Override
    public Integer call() throws Exception {
        DeviceReport cpu = new CpuDeviceProbe().probe().get(0);
        System.out.println("Calibrating " + cpu.summary());
        Calibration.Result result =
                new Calibration(System.out::println).run(cpu, matrix, repetitions);
        String id = result.suggestedId();
        String yaml = "version: 1\nprofiles:\n" + result.profileYaml(id);
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(out, yaml, StandardCharsets.UTF_8);
        System.out.printf("%nWrote profile %s to %s:%n%s", id, out, yaml);
        System.out.printf(
                "Use it with -Dzerolayer.hardware-profiles.file=%s"
                        + " -Dzerolayer.hardware-profile=%s%n%n",
                out, id);

        HardwareProfile profile = HardwareProfiles.builtInWith(yaml).get(id).orElseThrow();
        checkCostModel(profile, cpu);
        return 0;
    }

    /** Estimate vs measured time of each sample's encode node, on one thread as a slot runs it. */
    private void checkCostModel(HardwareProfile profile, DeviceReport cpu) throws Exception {
        TaskContracts contracts = TaskContracts.builtIn();
        StructureClassifier classifier = new StructureClassifier(contracts);
        GraphCompiler compiler =
                new GraphCompiler(
                        GraphIdentity.current(contracts.version(), profile.id()),
                        new CostEstimator(profile, cpu, 1));
        List<Double> ratios = new ArrayList<>();
        System.out.println(
                "cost model check (encode node, 1 thread): estimate vs fastest of 3 runs");
        try (EncoderPool encoders = new EncoderPool(1)) {
            for (Path file : PromptFiles.expand(List.of(samples))) {
                ClassifiedPrompt p = classifier.classify(Files.readString(file));
                if (!p.compiles()) {
                    continue;
                }
                ExecutionPlan plan = compiler.compile(p);
                CompiledGraph graph = new CompiledGraph(plan, encoders);
                long best = Long.MAX_VALUE;
                for (int i = 0; i < 4; i++) { // first run warms up
                    NodeRun encode =
                            graph.execute(p.parsed()).nodeRuns().stream()
                                    .filter(r -> r.kind().equals("encode"))
                                    .findFirst()
                                    .orElseThrow();
                    if (i > 0) {
                        best = Math.min(best, encode.durationNanos());
                    }
                }
                double estimate =
                        Double.parseDouble(plan.node("encode").params().get("estimate.micros"))
                                * 1e3;
                double ratio = estimate / best;
                ratios.add(ratio);
                System.out.printf(
                        Locale.ROOT,
                        "  %-28s estimate %8.2f ms  measured %8.2f ms  ratio %.2f%n",
                        PromptFiles.label(file),
                        estimate / 1e6,
                        best / 1e6,
                        ratio);
            }
        }
        Collections.sort(ratios);
        long within = ratios.stream().filter(r -> r >= 0.5 && r <= 2).count();
        System.out.printf(
                Locale.ROOT,
                "%d of %d estimates within 2× of measured; median ratio %.2f%n",
                within,
                ratios.size(),
                ratios.isEmpty() ? Double.NaN : ratios.get(ratios.size() / 2));
    }
}
