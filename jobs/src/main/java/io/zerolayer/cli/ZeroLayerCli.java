package io.zerolayer.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code zerolayer}: the command line of ZeroLayer. */
@Command(
        name = "zerolayer",
        mixinStandardHelpOptions = true,
        version = "zerolayer 0.1.0",
        description = "Streaming document analysis with compile-time static execution graphs.",
        subcommands = {
            DemoCommand.class,
            ServeCommand.class,
            RunCommand.class,
            SubmitCommand.class,
            AnalyzeCommand.class,
            CheckCommand.class,
            HardwareCommand.class,
            InspectCommand.class,
            StatusCommand.class,
            CalibrateCommand.class,
            DeviceCheckCommand.class,
            CostsCommand.class,
            BenchCommand.class
        })
public final class ZeroLayerCli implements Runnable {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line with ZeroLayer's error handling: a mistake a user can fix (a bad option
     * value, an unknown profile, a broken tasks.yaml) prints its message and exits 2, without a
     * stack trace.
     */
    public static CommandLine commandLine() {
        return new CommandLine(new ZeroLayerCli())
                .setExecutionExceptionHandler(
                        (e, cmd, parsed) -> {
                            if (e instanceof IllegalArgumentException) {
                                cmd.getErr()
                                        .println(
                                                "zerolayer "
                                                        + cmd.getCommandName()
                                                        + ": "
                                                        + e.getMessage());
                                return 2;
                            }
                            throw e;
                        });
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
