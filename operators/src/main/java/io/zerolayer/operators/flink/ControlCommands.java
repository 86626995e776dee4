package io.zerolayer.operators.flink;

import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.door.TenantsInForce;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place an operator applies a command of the control topic: new contracts (kept in
 * broadcast state, so a restore keeps them), re-read tenants, an emptied graph cache. A command
 * that fails, for whatever reason, is logged and ignored; the job keeps running on what it had.
 * Each command counts in {@code control_commands_total{command="reload_tenants",
 * outcome="applied|ignored"}}, so an operator (and a test) sees that a reload failed without
 * reading logs.
 */
final class ControlCommands {
    private static final Logger LOG = LoggerFactory.getLogger(ControlCommands.class);

    private final String operator;
    private final ContractsInForce contracts;
    private final TenantsInForce tenants;
    private final Consumer<TaskContracts> useContracts;
    private final Runnable clearCache;
    private final MetricGroup metrics;
    private final Map<String, Counter> counters = new HashMap<>();

    /**
     * @param operator names the operator in log lines
     * @param tenants the operator's tenants, or null where none are configured
     * @param useContracts rebuilds what depends on the contracts when new ones are in force
     * @param clearCache empties the operator's cache of compiled graphs, or null where it has none
     * @param metrics the operator's metric group, where the commands are counted
     */
    ControlCommands(
            String operator,
            ContractsInForce contracts,
            TenantsInForce tenants,
            Consumer<TaskContracts> useContracts,
            Runnable clearCache,
            MetricGroup metrics) {
        this.operator = operator;
        this.contracts = contracts;
        this.tenants = tenants;
        this.useContracts = useContracts;
        this.clearCache = clearCache;
        this.metrics = metrics;
    }

    void apply(ControlCommand command, BroadcastState<String, String> state) {
        String name = String.valueOf(command.command);
        boolean applied = false;
        try {
            applied =
                    switch (name) {
                        case ControlCommand.CLEAR_CACHE -> {
                            if (clearCache != null) {
                                clearCache.run();
                            }
                            yield true;
                        }
                        case ControlCommand.RELOAD_CONTRACTS -> {
                            TaskContracts reloaded = contracts.reload(command, state);
                            if (reloaded != null) {
                                useContracts.accept(reloaded);
                            }
                            yield reloaded != null;
                        }
                        case ControlCommand.RELOAD_TENANTS -> {
                            if (tenants == null) {
                                LOG.warn(
                                        "{}: reload-tenants ignored: no zerolayer.tenants.file is"
                                                + " set",
                                        operator);
                                yield false;
                            }
                            yield tenants.reload();
                        }
                        default -> {
                            LOG.warn("{}: ignoring control command: {}", operator, command);
                            yield false;
                        }
                    };
        } catch (Exception e) {
            LOG.error("{}: control command {} ignored", operator, command, e);
        }
        count(name, applied);
    }

    /** Known commands by name; anything else as {@code other}, so junk cannot grow the metrics. */
    private void count(String name, boolean applied) {
        String command =
                switch (name) {
                    // as Prometheus would write them: it turns '-' in label values into '_'
                    case ControlCommand.CLEAR_CACHE,
                            ControlCommand.RELOAD_CONTRACTS,
                            ControlCommand.RELOAD_TENANTS ->
                            name.replace('-', '_');
                    default -> "other";
                };
        String outcome = applied ? "applied" : "ignored";
        counters.computeIfAbsent(
                        command + "/" + outcome,
                        k ->
                                metrics.addGroup("command", command)
                                        .addGroup("outcome", outcome)
                                        .counter("control_commands_total"))
                .inc();
    }
}
