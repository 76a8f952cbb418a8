import WharfServer
import WharfSystem

// The `wharf` executable: parse the command line, then serve or run a subcommand.
ProcessControl.limitAllocatorArenas(to: 2)
do {
    switch try CommandLineParser.parse(ProcessControl.arguments()) {
    case .help:
        print(CommandLineParser.usage)
    case .commandHelp(let words):
        print(HelpText.render(.wharf, command: words))
    case .version:
        print("wharf \(ServerInfo.version) (protocol \(ServerInfo.protocolVersion))")
    case .serve(let options):
        StdioHost.run(options)
    case .listen(let options, let socket):
        DaemonHost.run(options, socket: socket)
    case .connect(let socket, let daemonArguments):
        BridgeHost.run(socket: socket, daemonArguments: daemonArguments)
    case .types(let command):
        ProcessControl.exit(Subcommands.run(command))
    case .access(let command, let stateDirectory):
        ProcessControl.exit(Subcommands.run(command, stateDirectory: stateDirectory))
    case .pick(let command):
        ProcessControl.exit(DialogCommands.run(command))
    case .save(let command):
        ProcessControl.exit(DialogCommands.run(command))
    case .move(let command):
        ProcessControl.exit(DialogCommands.run(command))
    case .portal(let command):
        PortalHost.run(command)
    }
} catch {
    ProcessControl.writeToStandardError("wharf: \(error)\nTry 'wharf --help'.\n")
    ProcessControl.exit(2)
}
