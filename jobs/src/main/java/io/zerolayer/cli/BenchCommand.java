package io.zerolayer.cli;

import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.embedded.EmbeddedPipeline;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.TokenBatch;
import io.zerolayer.jobs.PipelineOptions;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer bench}: raw ONNX Runtime throughput of each encoder at sequence length 128 (the
 * ceiling), then the same kind of work through the whole pipeline (Kafka → Flink → ONNX → Kafka),
 * and their ratio. Figures are printed, not asserted; quote ratios from one run.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description =
                "Measure raw encoder throughput at seq 128 and the pipeline's throughput on the"
                        + " same work.")
final class BenchCommand implements Callable<Integer> {
    private static final String WORDS =
            "the supplier shall deliver goods within thirty days of the order and the buyer shall"
                    + " inspect them on arrival and report defects in writing without undue delay ";

    @Option(
            names = "--seconds",
            defaultValue = "8",
            description = "Measuring time per raw encoder. Default: ${DEFAULT-VALUE}.")
    int seconds;

    @Option(
            names = "--batch",
            defaultValue = "32",
            description = "Sequences per raw ONNX run. Default: ${DEFAULT-VALUE}.")
    int batch;

    @Option(
            names = "--requests",
            defaultValue = "300",
            description = "Requests sent through the pipeline. Default: ${DEFAULT-VALUE}.")
    int requests;

    @Option(
            names = "--parallelism",
            defaultValue = "2",
            description = "Pipeline task slots. Default: ${DEFAULT-VALUE}.")
    int parallelism;

    @Mixin PipelineSettings settings;

    @Override
    public Integer call() throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.printf(
                Locale.ROOT,
                "Raw ONNX Runtime, CPU, batch %d × seq 128, %d s each%n",
                batch,
                seconds);
        for (int threads : cores > 1 ? new int[] {1, cores} : new int[] {1})
            for (EncoderModel model : EncoderModel.values()) {
                try (SentenceEncoder encoder = SentenceEncoder.open(model, threads)) {
                    long[] content =
                            Arrays.copyOf(encoder.tokenizeText(WORDS.repeat(4)).ids(), 126);
                    List<long[]> sequences = new ArrayList<>();
                    for (int i = 0; i < batch; i++) {
                        sequences.add(content);
                    }
                    TokenBatch tokens = encoder.batch(sequences);
                    encoder.encode(tokens); // warm-up
                    long start = System.nanoTime();
                    long done = 0;
                    while (System.nanoTime() - start < seconds * 1_000_000_000L) {
                        encoder.encode(tokens);
                        done += batch;
                    }
                    double perSecond = done / ((System.nanoTime() - start) / 1e9);
                    System.out.printf(
                            Locale.ROOT,
                            "  %-18s %d thread(s) %7.1f sequences/s%n",
                            model.id(),
                            threads,
                            perSecond);
                }
            }

        // One request = one 128-token embed sequence (fp32), so the figures compare directly.
        String prompt =
                "<task:embed><output_format:text><note>"
                        + WORDS.repeat(4).substring(0, 560)
                        + "</note>";
        Configuration conf = settings.load();
        System.out.printf(
                Locale.ROOT,
                "%nPipeline (embedded broker + MiniCluster, parallelism %d): %d embed requests of"
                        + " ~128 tokens%n",
                parallelism,
                requests);
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(conf, null, parallelism);
                ZeroLayerClient client =
                        ZeroLayerClient.builder()
                                .bootstrapServers(pipeline.bootstrapServers())
                                .requestsTopic(
                                        pipeline.configuration()
                                                .get(PipelineOptions.REQUESTS_TOPIC))
                                .build()) {
            client.submit(PromptFiles.request("warmup", "bench", prompt, Map.of())).join();
            long start = System.nanoTime();
            List<CompletableFuture<AnalysisResponse>> replies = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                replies.add(
                        client.submit(
                                PromptFiles.request("bench-" + i, "bench", prompt, Map.of())));
            }
            long ok = 0;
            long kernelNanos = 0;
            for (CompletableFuture<AnalysisResponse> f : replies) {
                AnalysisResponse r = f.join();
                ok += r.getStatus() == ResponseStatus.OK ? 1 : 0;
                kernelNanos += r.getCost().getKernelNanos();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "  %d/%d OK in %.1f s: %.1f requests/s (= sequences/s); mean kernel time %.1f"
                            + " ms/request%n",
                    ok,
                    requests,
                    seconds,
                    requests / seconds,
                    kernelNanos / 1e6 / requests);
        }
        return 0;
    }
}
