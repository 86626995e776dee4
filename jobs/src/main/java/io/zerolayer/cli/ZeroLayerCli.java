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
            CheckCommand.class,
            BenchCommand.class
        })
public final class ZeroLayerCli implements Runnable {

    public static void main(String[] args) {
        int code = new CommandLine(new ZeroLayerCli()).execute(args);
        System.exit(code);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
