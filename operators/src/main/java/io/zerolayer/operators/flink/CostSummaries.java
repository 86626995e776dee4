package io.zerolayer.operators.flink;

import io.zerolayer.schemas.CostSummary;
import io.zerolayer.schemas.KernelCostRecord;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The windowed cost summary: kernel cost records keyed by tenant × kernel, totalled per event-time
 * window (the records' {@code startedAt}) into {@link CostSummary} records. Integer sums only, so
 * the summaries of a tenant add up to its records exactly.
 */
public final class CostSummaries {
    private CostSummaries() {}

    /** Event time from each record's start; a little disorder allowed between executor slots. */
    public static WatermarkStrategy<KernelCostRecord> watermarks(Duration outOfOrderness) {
        return WatermarkStrategy.<KernelCostRecord>forBoundedOutOfOrderness(outOfOrderness)
                .withTimestampAssigner((r, ts) -> r.getStartedAt().toEpochMilli())
                .withIdleness(outOfOrderness.multipliedBy(2));
    }

    /** The key records are summed under. */
    public static String key(KernelCostRecord r) {
        return r.getTenantId() + "\u0000" + r.getKernel();
    }

    /** Running totals of one key's records in one window. */
    public static class Totals {
        public String tenantId;
        public String kernel;
        public long records;
        public long kernelNanos;
        public long flops;
        public long compute;
        public long memory;
        public long pcie;
        public long deviceTime;

        public Totals() {}
    }

    /** Sums records into {@link Totals}. */
    public static final class Sum implements AggregateFunction<KernelCostRecord, Totals, Totals> {
        @Override
        public Totals createAccumulator() {
            return new Totals();
        }

        @Override
        public Totals add(KernelCostRecord r, Totals t) {
            t.tenantId = r.getTenantId();
            t.kernel = r.getKernel();
            t.records++;
            t.kernelNanos += r.getDurationNanos();
            t.flops += r.getFlops() == null ? 0 : r.getFlops();
            t.compute += orZero(r.getComputeNanoUsd());
            t.memory += orZero(r.getMemoryNanoUsd());
            t.pcie += orZero(r.getPcieNanoUsd());
            t.deviceTime += r.getDeviceTimeNanoUsd();
            return t;
        }

        @Override
        public Totals getResult(Totals t) {
            return t;
        }

        @Override
        public Totals merge(Totals a, Totals b) {
            Totals t = new Totals();
            t.tenantId = a.tenantId != null ? a.tenantId : b.tenantId;
            t.kernel = a.kernel != null ? a.kernel : b.kernel;
            t.records = a.records + b.records;
            t.kernelNanos = a.kernelNanos + b.kernelNanos;
            t.flops = a.flops + b.flops;
            t.compute = a.compute + b.compute;
            t.memory = a.memory + b.memory;
            t.pcie = a.pcie + b.pcie;
            t.deviceTime = a.deviceTime + b.deviceTime;
            return t;
        }

        private static long orZero(Long v) {
            return v == null ? 0 : v;
        }
    }

    /** Stamps a window's totals with its bounds. */
    public static final class ToSummary
            extends ProcessWindowFunction<Totals, CostSummary, String, TimeWindow> {
        @Override
        public void process(
                String key, Context ctx, Iterable<Totals> totals, Collector<CostSummary> out) {
            for (Totals t : totals) {
                out.collect(
                        CostSummary.newBuilder()
                                .setTenantId(t.tenantId)
                                .setKernel(t.kernel)
                                .setWindowStart(Instant.ofEpochMilli(ctx.window().getStart()))
                                .setWindowEnd(Instant.ofEpochMilli(ctx.window().getEnd()))
                                .setRecords(t.records)
                                .setKernelNanos(t.kernelNanos)
                                .setFlops(t.flops)
                                .setComputeNanoUsd(t.compute)
                                .setMemoryNanoUsd(t.memory)
                                .setPcieNanoUsd(t.pcie)
                                .setDeviceTimeNanoUsd(t.deviceTime)
                                .setNanoUsd(t.compute + t.memory + t.pcie + t.deviceTime)
                                .build());
            }
        }
    }
}
