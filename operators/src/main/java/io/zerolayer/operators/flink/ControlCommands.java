package io.zerolayer.operators.flink;

import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.door.TenantsInForce;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.BroadcastState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place an operator applies a command of the control topic: new contracts (kept in
 * broadcast state, so a restore keeps them), re-read tenants, an emptied graph cache. A command
 * that fails, for whatever reason, is logged and ignored; the job keeps running on what it had.
 */
final class ControlCommands {
    private static final Logger LOG = LoggerFactory.getLogger(ControlCommands.class);

    private final String operator;
    private final ContractsInForce contracts;
    private final TenantsInForce tenants;
    private final Consumer<TaskContracts> useContracts;
    private final Runnable clearCache;

    /**
     * @param operator names the operator in log lines
     * @param tenants the operator's tenants, or null where none are configured
     * @param useContracts rebuilds what depends on the contracts when new ones are in force
     * @param clearCache empties the operator's cache of compiled graphs, or null where it has none
     */
    ControlCommands(
            String operator,
            ContractsInForce contracts,
            TenantsInForce tenants,
            Consumer<TaskContracts> useContracts,
            Runnable clearCache) {
        this.operator = operator;
        this.contracts = contracts;
        this.tenants = tenants;
        this.useContracts = useContracts;
        this.clearCache = clearCache;
    }

    void apply(ControlCommand command, BroadcastState<String, String> state) {
        try {
            switch (String.valueOf(command.command)) {
                case ControlCommand.CLEAR_CACHE -> {
                    if (clearCache != null) {
                        clearCache.run();
                    }
                }
                case ControlCommand.RELOAD_CONTRACTS -> {
                    TaskContracts reloaded = contracts.reload(command, state);
                    if (reloaded != null) {
                        useContracts.accept(reloaded);
                    }
                }
                case ControlCommand.RELOAD_TENANTS -> {
                    if (tenants == null) {
                        LOG.warn(
                                "{}: reload-tenants ignored: no zerolayer.tenants.file is set",
                                operator);
                    } else {
                        tenants.reload();
                    }
                }
                default -> LOG.warn("{}: ignoring control command: {}", operator, command);
            }
        } catch (Exception e) {
            LOG.error("{}: control command {} ignored", operator, command, e);
        }
    }
}
