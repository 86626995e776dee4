package io.zerolayer.operators.flink;

import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.door.RequestAdmission;
import io.zerolayer.operators.door.RequestAuthenticator;
import io.zerolayer.operators.door.TenantsInForce;
import io.zerolayer.operators.door.UnauthenticatedRequestException;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.kafka.DeadLetter;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.kafka.RequestDecoding;
import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.replies.Responses;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.routing.StructureEstimates;
import io.zerolayer.operators.routing.TenantRouting;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.ContentParts;
import io.zerolayer.operators.structure.DocumentContent;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.operators.tenants.TenantQuotas;
import io.zerolayer.schemas.AnalysisRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Decodes a raw request (Avro single-object, or JSON when {@code content-type: application/json}),
 * verifies its sender ({@link RequestAuthenticator}), type-checks it against its task contract and
 * computes its structure id (the graph id without hardware, which only the executor's slot knows).
 * Every input leaves as exactly one of: a {@link RoutedRequest} (main output; to the SAFE graph
 * when its structure is abnormal and the tenant's policy degrades), a REJECTED {@link Reply}
 * ({@link #REJECTIONS}) or a {@link DeadLetter} ({@link #DEAD_LETTERS}). Counting holds: records in
 * = routed + rejected + dead letters. Nothing is replied to before the sender is verified.
 *
 * <p>Keyed by the tenant and request id the record claims ({@link RequestKeys}): the id of a
 * verified request that passed the door's checks is kept in keyed state for the replay window, so a
 * copy of a signed record sent again, to any partition, is dead-lettered as replayed. Only verified
 * ids enter the state, so forged records cannot block a tenant's future ids.
 *
 * <p>The broadcast input carries {@link ControlCommand}s; {@code reload-contracts} swaps the
 * contracts requests are checked against, {@code reload-tenants} re-reads the tenants file, both
 * without a restart.
 */
public class DecodeAndClassifyFunction
        extends KeyedBroadcastProcessFunction<String, RawRecord, ControlCommand, RoutedRequest>
        implements ResultTypeQueryable<RoutedRequest> {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(DecodeAndClassifyFunction.class);

    public static final OutputTag<Reply> REJECTIONS = new OutputTag<>("rejections") {};
    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters") {};

    private final ContractsInForce contracts;
    private final RequestAdmission admission;
    private io.zerolayer.operators.kafka.KafkaConnection watched;
    private transient io.zerolayer.operators.kafka.BrokerWatch watch;
    private final SafeModePolicy policy;
    private final HotGraphSharder sharder;

    /** Applies the control topic's commands. */
    private transient ControlCommands commands;

    /** Decodes each record's request, once. */
    private transient RequestDecoding decoding;

    private transient StructureClassifier classifier;
    private transient GraphCompiler compiler;
    private transient Counter recordsIn;
    private transient Counter deadLetters;
    private transient Counter rejected;
    private transient Counter safeMode;
    private transient MetricGroup metrics;
    private transient Map<String, Counter> rejectedCodes;

    /** Verifies senders and refuses replays; null when zerolayer.auth.mode is none. */
    private TenantDoor door;

    private TenantsInForce tenants;

    /** The tenants' per-second quotas in this subtask; null without tenants. */
    private transient RateQuotas rates;

    /** The slot hardware load estimates are made for; null: a nominal CPU (tests, tools). */
    private String hardwareSetting;

    private String extraProfilesYaml;

    /** The user's encoders and quality profile, if any. */
    private io.zerolayer.operators.quality.TierSources tiers =
            io.zerolayer.operators.quality.TierSources.SHIPPED;

    private int intraOpThreads = 1;

    /** This TaskManager's hardware, only to estimate each structure's encode time. */
    private transient io.zerolayer.operators.compiler.CostEstimator estimator;

    private transient int safeModeMaxChars;

    /** Each structure's estimate on this hardware, under the contracts in force. */
    private transient StructureEstimates estimates;

    /** A request's compliance level, quality floor and safe-mode policy. */
    private transient TenantRouting routing;

    /**
     * @param contractsFile the tasks.yaml a bare reload-contracts re-reads, or null for the
     *     built-in
     * @param admission what a decoded request must satisfy (reply topic, timestamps, sizes)
     */
    public DecodeAndClassifyFunction(
            String contractsYaml,
            String contractsFile,
            RequestAdmission admission,
            SafeModePolicy policy,
            HotGraphSharder sharder) {
        this.contracts = new ContractsInForce(contractsYaml, contractsFile);
        this.admission = admission;
        this.policy = policy;
        this.sharder = sharder;
    }

    /**
     * Reads the tenants from the tenants file ({@code file}) or, for a registry of the job's own
     * making, {@code inlineYaml}: their encoder-token quotas apply, and {@link #withAuthentication}
     * verifies against them.
     */
    public DecodeAndClassifyFunction withTenants(String file, String inlineYaml) {
        this.tenants = new TenantsInForce(file, inlineYaml);
        return this;
    }

    /**
     * Verifies every request's signature against the tenants ({@link #withTenants}, which must come
     * first); request ids are remembered for {@code replayWindow} to refuse replays, or not at all
     * when it is null (a bounded run over the user's own files).
     */
    public DecodeAndClassifyFunction withAuthentication(
            RequestAuthenticator authenticator, Duration replayWindow) {
        if (tenants == null) {
            throw new IllegalStateException(
                    "Requests are verified against tenants: set them first");
        }
        this.door = new TenantDoor(authenticator, replayWindow);
        return this;
    }

    /**
     * Estimates the encoder load the hot-graph sharder spreads by for the slot hardware the
     * executor resolves from the same settings (zerolayer.hardware-profile, the extra profiles
     * file, intra-op threads); without it, for a nominal CPU.
     */
    public DecodeAndClassifyFunction withHardware(
            String hardwareSetting, String extraProfilesYaml, int intraOpThreads) {
        this.hardwareSetting = hardwareSetting;
        this.extraProfilesYaml = extraProfilesYaml;
        this.intraOpThreads = intraOpThreads;
        return this;
    }

    /** Logs once when {@code kafka} stops answering and once when it is back; null: no watch. */
    public DecodeAndClassifyFunction withBrokerWatch(
            io.zerolayer.operators.kafka.KafkaConnection kafka) {
        this.watched = kafka;
        return this;
    }

    /** How many records this subtask decoded. */
    long decodedRecords() {
        return decoding.decoded();
    }

    /** The hardware profile this subtask estimates for, once open. */
    String estimatingFor() {
        return estimator.profile().id();
    }

    /** Estimated encoder tokens from which a request is split over the slots; 0: never. */
    private long splitMinTokens;

    /** Whose requests are strict (level 3), so run whole and alone; null: nobody's. */
    private ExecutionSettings compliance;

    private transient Counter split;

    /**
     * Splits a request whose estimated encoder tokens reach {@code minTokens} into one part per
     * executor slot (at most one per {@code minTokens / 2} tokens), each on a slot of its own, so
     * one long document is encoded by every slot at once; its parts' results are combined by {@link
     * SplitRequestJoin}. A strict request ({@code compliance}: level 3) is never split, nor one
     * served by the SAFE graph. 0: nothing is split.
     */
    public DecodeAndClassifyFunction withSplitting(long minTokens, ExecutionSettings compliance) {
        if (minTokens < 0) {
            throw new IllegalArgumentException(
                    "zerolayer.split.min-tokens must be 0 (off) or positive, got " + minTokens);
        }
        this.splitMinTokens = minTokens;
        this.compliance = java.util.Objects.requireNonNull(compliance, "compliance");
        return this;
    }

    /** Compiles with the encoders and quality profile of {@code tiers}, installed at open. */
    public DecodeAndClassifyFunction withTiers(io.zerolayer.operators.quality.TierSources tiers) {
        this.tiers = java.util.Objects.requireNonNull(tiers, "tiers");
        return this;
    }

    /** What it emits, with the job's own serializer. */
    @Override
    public TypeInformation<RoutedRequest> getProducedType() {
        return RoutedRequestSerializer.TYPE_INFO;
    }

    @Override
    public void open(OpenContext context) {
        tiers.install(); // before compiling: graph ids name every known encoder
        decoding = new RequestDecoding();
        if (hardwareSetting == null) {
            estimator = io.zerolayer.operators.compiler.CostEstimator.nominal();
        } else {
            // as the executor resolves it: this TaskManager's own profile setting wins
            var hardware =
                    TaskManagerHardware.resolve(
                            TaskManagerHardware.configuration(getRuntimeContext()),
                            hardwareSetting,
                            extraProfilesYaml);
            estimator =
                    new io.zerolayer.operators.compiler.CostEstimator(
                            hardware.profile(), hardware.primary(), intraOpThreads);
        }
        use(contracts.initial());
        if (watched != null) {
            watch = io.zerolayer.operators.kafka.BrokerWatch.acquire(watched);
        }
        metrics = getRuntimeContext().getMetricGroup();
        commands = new ControlCommands("classifier", contracts, tenants, this::use, null, metrics);
        recordsIn = metrics.counter("requests_in_total");
        deadLetters = metrics.counter("requests_dead_lettered_total");
        rejected = metrics.counter("requests_rejected_total");
        safeMode = metrics.counter("requests_safe_mode_total");
        split = metrics.counter("requests_split_total");
        rejectedCodes = new HashMap<>();
        if (tenants != null) {
            tenants.open();
            rates =
                    new RateQuotas(
                            getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(),
                            metrics);
        }
        if (door != null) {
            door.open(getRuntimeContext());
        }
        routing = new TenantRouting(tenants, compliance, policy);
        sharder.open(getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
    }

    private void use(TaskContracts taskContracts) {
        classifier = new StructureClassifier(taskContracts);
        compiler =
                io.zerolayer.operators.compiler.SharedCompilers.of(
                        GraphIdentity.current(taskContracts.version(), GraphIdentity.ANY_HARDWARE),
                        io.zerolayer.operators.compiler.CostEstimator.nominal());
        estimates = new StructureEstimates(taskContracts, estimator);
        safeModeMaxChars = taskContracts.limits().safeModeMaxChars();
    }

    /** A control command that fails is logged and ignored, whatever went wrong. */
    @Override
    public void processBroadcastElement(
            ControlCommand command, Context ctx, Collector<RoutedRequest> out) {
        commands.apply(command, ctx.getBroadcastState(ControlCommand.STATE));
    }

    /**
     * The record's error boundary: whatever its bytes and headers, it leaves as a routed request, a
     * rejection or a dead letter naming what went wrong; it never fails the task.
     */
    @Override
    public void processElement(RawRecord raw, ReadOnlyContext ctx, Collector<RoutedRequest> out)
            throws Exception {
        TaskContracts changed = contracts.changed(ctx.getBroadcastState(ControlCommand.STATE));
        if (changed != null) {
            use(changed); // contracts reloaded before a restore
        }
        recordsIn.inc();
        try {
            route(raw, ctx, out);
        } catch (RuntimeException | StackOverflowError e) {
            deadLetters.inc();
            if (e instanceof UnauthenticatedRequestException refused) {
                door.refused(refused);
            }
            ctx.output(DEAD_LETTERS, new DeadLetter(raw, e));
        }
    }

    private void route(RawRecord raw, ReadOnlyContext ctx, Collector<RoutedRequest> out)
            throws Exception {
        long receivedAt = System.currentTimeMillis();
        ReplyRoute route = ReplyRoute.of(raw);
        AnalysisRequest request = decoding.decode(raw, route);
        if (door != null) {
            door.verify(raw, request, tenants.current(), receivedAt);
        }
        admission.admit(request, route);
        if (door != null) {
            door.taken();
        }
        TenantQuotas quotas =
                rates == null ? null : tenants.current().quotas(request.getTenantId());
        // before the prompt is read: a flood beyond its rate costs its signature check and a reply
        if (quotas != null
                && refused(rates.overRequests(request, route, quotas, receivedAt), ctx)) {
            return;
        }
        long start = System.nanoTime();
        ClassifiedPrompt classified = classifier.classify(request.getPrompt());
        long classifyMicros = (System.nanoTime() - start) / 1_000;
        RequestDecision decision = routing.decide(request, classified, compiler, safeModeMaxChars);
        if (decision == null) {
            reject(request, route, classified, classifyMicros, ctx);
            return;
        }
        GraphCompiler.RequestEstimate estimate = estimates.of(decision);
        if (quotas != null
                && refused(
                        rates.overTokens(
                                request,
                                route,
                                quotas,
                                estimate.encoderTokens(),
                                classifyMicros,
                                receivedAt),
                        ctx)) {
            return;
        }
        decision = decision.withEstimate(estimate.encodeMillisAlone());
        int parts = parts(request, decision, estimate);
        if (parts > 1
                && routeParts(request, route, decision, parts, classifyMicros, receivedAt, out)) {
            split.inc();
            return;
        }
        String shardKey =
                sharder.shardKey(
                        decision.graphId(),
                        request.getTenantId(),
                        estimate.encodeMillisAlone(),
                        estimate.batches(),
                        receivedAt);
        out.collect(
                RoutedRequest.routed(
                        request, route, decision, shardKey, classifyMicros, receivedAt));
        if (decision.safeMode()) {
            safeMode.inc();
        }
    }

    /** Answers a request its contracts reject REJECTED, with its diagnostics, and counts it. */
    private void reject(
            AnalysisRequest request,
            ReplyRoute route,
            ClassifiedPrompt classified,
            long classifyMicros,
            ReadOnlyContext ctx) {
        classified.diagnostics().stream()
                .filter(PromptDiagnostic::isError)
                .map(PromptDiagnostic::code)
                .distinct()
                // one counter per code, as a label:
                // flink_..._operator_code_rejections_total{code="ZL010"}
                .forEach(
                        code ->
                                rejectedCodes
                                        .computeIfAbsent(
                                                code,
                                                c ->
                                                        metrics.addGroup("code", c)
                                                                .counter("rejections_total"))
                                        .inc());
        ctx.output(
                REJECTIONS,
                new Reply(
                        Responses.rejected(request, classified.diagnostics(), classifyMicros),
                        route));
        rejected.inc();
    }

    /**
     * Into how many parts a request is split: one per {@code splitMinTokens / 2} of its estimated
     * encoder tokens, at most one per executor slot; 1 when it is not split.
     */
    private int parts(
            AnalysisRequest request,
            RequestDecision decision,
            GraphCompiler.RequestEstimate estimate) {
        if (splitMinTokens == 0
                || decision.safeMode()
                || estimate.encoderTokens() < splitMinTokens
                || sharder.slots() < 2) {
            return 1;
        }
        if (routing.strict(request)) {
            return 1; // strict requests run whole and alone, one audit entry each
        }
        long perPart = Math.max(1, splitMinTokens / 2);
        return (int) Math.min(sharder.slots(), (estimate.encoderTokens() + perPart - 1) / perPart);
    }

    /**
     * Routes a request's parts, each reading its share of the content, each on a slot of its own;
     * whether it was split (a request whose text does not fill two parts is not).
     */
    private boolean routeParts(
            AnalysisRequest request,
            ReplyRoute route,
            RequestDecision decision,
            int parts,
            long classifyMicros,
            long receivedAt,
            Collector<RoutedRequest> out) {
        List<DocumentContent> contents = ContentParts.split(decision.content(), parts);
        if (contents.size() < 2) {
            return false;
        }
        long total = Math.max(1, ContentParts.chars(decision.content()));
        double[] encodeMillis = new double[contents.size()];
        for (int i = 0; i < contents.size(); i++) {
            encodeMillis[i] =
                    (double) decision.encodeMillisAlone()
                            * ContentParts.chars(contents.get(i))
                            / total;
        }
        String[] keys = sharder.partKeys(decision.graphId(), encodeMillis, receivedAt);
        for (int i = 0; i < contents.size(); i++) {
            RequestDecision part =
                    decision.asPart(
                            new RequestDecision.Part(i, contents.size()),
                            contents.get(i),
                            Math.round(encodeMillis[i]));
            out.collect(
                    RoutedRequest.routed(
                            request, route, part, keys[i], classifyMicros, receivedAt));
        }
        return true;
    }

    /** Sends {@code rejection} (a quota's), if there is one; whether there was. */
    private boolean refused(Reply rejection, ReadOnlyContext ctx) {
        if (rejection == null) {
            return false;
        }
        ctx.output(REJECTIONS, rejection);
        rejected.inc();
        return true;
    }

    @Override
    public void close() throws Exception {
        admission.close();
        if (watch != null) {
            watch.release();
            watch = null;
        }
    }
}
